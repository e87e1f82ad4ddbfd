// Package holds works out what a cap costs: which other packages the
// release a package's caps admit holds below their newest release, that
// the release the plan moves the caps to would let go. A stale numba cap
// that held numpy back, and so sent a resolver to a broken pre-release
// (pymc-devs/pytensor#2351), is the cost it names: "numba 0.65.1 holds
// numpy<2.5 while numpy 2.5.1 is out; numba 0.67.0 admits numpy<2.6".
//
// It is pure: the requirements of the two releases (their dependency
// metadata, as a source publishes it) and the dependencies' releases are
// fetched before; requirements are read here, with their environment
// markers weighed (extras-only requirements never count; python_version
// against the configured Pythons).
//
// It belongs to bot/planning and imports no other part of bot.
package holds

import (
	"fmt"
	"slices"
	"strings"

	"github.com/pinbot-dev/pinbot/internal/pep503"
	"github.com/pinbot-dev/pinbot/pins/matchspec"
	"github.com/pinbot-dev/pinbot/pins/pep508"
	"github.com/pinbot-dev/pinbot/versions"
)

// A Requirement is one dependency of a release that applies, or may apply,
// in the project's environment.
type Requirement struct {
	// Name is the dependency, normalised.
	Name string
	// Constraint is its version constraint as written ("<2.5,>=1.24"; ""
	// for any version).
	Constraint string
	// Marker is the requirement's environment marker when the environment
	// known does not decide it (a python_version marker with no Python
	// configured); "" when it applies for certain.
	Marker string
}

// An Env is what is known of the project's environment: the Python versions
// it runs on ("3.12"), none when the configuration names none. Requirements
// are read for CPython.
type Env struct {
	Pythons []string
}

// markerEnvs returns the marker environments of env, one per Python.
func (env Env) markerEnvs(scheme versions.Scheme) []pep508.Env {
	compare := func(have, op, spec string) (bool, bool) {
		if scheme == nil || !scheme.Valid(have) {
			return false, false
		}
		c, err := scheme.ParseConstraint(op + spec)
		if err != nil {
			return false, false
		}
		return scheme.Match(have, c), true
	}
	base := map[string]string{"extra": "", "extras": "", "dependency_groups": "",
		"implementation_name": "cpython", "platform_python_implementation": "CPython"}
	if len(env.Pythons) == 0 {
		return []pep508.Env{{Values: base, Version: compare}}
	}
	var out []pep508.Env
	for _, py := range env.Pythons {
		vals := map[string]string{"python_version": py}
		for k, v := range base {
			vals[k] = v
		}
		out = append(out, pep508.Env{Values: vals, Version: compare})
	}
	return out
}

// ParsePEP508 reads a Python release's requirements (Requires-Dist
// strings) and keeps those that apply, or may apply, in env: a requirement
// whose marker is false for every Python of env (extra == "cuda", always;
// python_version < "3.10" with Python 3.12 configured) is dropped, one the
// environment does not decide is kept with its marker. scheme compares
// versions in markers (PEP 440). A requirement that does not parse is an
// error; the others are read.
func ParsePEP508(reqs []string, env Env, scheme versions.Scheme) ([]Requirement, []error) {
	var out []Requirement
	var errs []error
	envs := env.markerEnvs(scheme)
	for _, s := range reqs {
		r, err := pep508.Parse(s)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if r.URL != "" {
			continue // a direct reference has no version to hold
		}
		req := Requirement{Name: pep503.Normalize(r.Name), Constraint: r.Specifier}
		if r.Marker != "" {
			m, err := pep508.ParseMarker(r.Marker)
			if err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", s, err))
				continue
			}
			t := pep508.False
			for _, e := range envs {
				switch m.Eval(e) {
				case pep508.True:
					t = pep508.True
				case pep508.Unknown:
					if t == pep508.False {
						t = pep508.Unknown
					}
				}
			}
			switch t {
			case pep508.False:
				continue
			case pep508.Unknown:
				req.Marker = r.Marker
			}
		}
		out = append(out, req)
	}
	return out, errs
}

// ParseConda reads a conda release's run requirements (MatchSpec strings,
// "numpy >=1.24,<2.6"); a requirement with a build string keeps only its
// version part. The interpreter (python, python_abi) and virtual packages
// (__glibc, __cuda) are left out: a build is made for one Python, which no
// cap holds back. One that does not parse is an error; the others are read.
func ParseConda(reqs []string) ([]Requirement, []error) {
	var out []Requirement
	var errs []error
	for _, s := range reqs {
		sp, err := matchspec.Parse(s)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		name := matchspec.Normalize(sp.Name)
		if name == "python" || name == "python_abi" || strings.HasPrefix(name, "__") {
			continue
		}
		out = append(out, Requirement{Name: name, Constraint: sp.Constraint})
	}
	return out, errs
}

// MayHold reports whether a requirement can hold a dependency below its
// newest release at all: whether its constraint caps versions (an upper
// bound, an exact or prefix pin, ~=, an exclusion). Only such dependencies
// need their releases looked up.
func MayHold(r Requirement, scheme versions.Scheme) bool {
	c, err := scheme.ParseConstraint(r.Constraint)
	if err != nil {
		return false
	}
	for _, cl := range c.Clauses {
		if !cl.Lower() {
			return true
		}
	}
	return false
}

// A Cap is a package whose caps lag: the release they admit, the release
// the plan moves them to, and what each requires.
type Cap struct {
	// Package is the capped package's name.
	Package string
	// Admitted is the newest release the caps admit as written, Target the
	// release the plan moves them to admit.
	Admitted, Target string
	// Admits and Targets are the requirements of Admitted and of Target.
	Admits, Targets []Requirement
}

// A HoldBack is one dependency the admitted release holds below its newest
// release, which the target would let go further.
type HoldBack struct {
	// Package is the dependency held back.
	Package string
	// Constraint is the part of the admitted release's requirement that
	// shuts out the dependency's newest release ("<2.5"), with its marker
	// after ";" when the environment does not decide it.
	Constraint string
	// RequiredBy is the release that requires it: "numba 0.65.1".
	RequiredBy string
	// Newest is the dependency's newest release.
	Newest string
	// Reason says it in a sentence, with what the target admits instead.
	Reason string
}

// Find returns what c's admitted release holds back: for each of its
// requirements, when the dependency's newest release (releases: each
// dependency's acceptable versions, as its source lists them) is shut out
// and the target's requirements admit a newer release of it than the
// admitted release's do. A dependency the target holds just as far back is
// not the cap's cost, and is left out. Versions are compared by scheme.
func Find(c Cap, releases map[string][]string, scheme versions.Scheme) []HoldBack {
	var out []HoldBack
	seen := map[Requirement]bool{}
	for _, r := range c.Admits {
		if seen[r] || r.Name == pep503.Normalize(c.Package) {
			continue
		}
		seen[r] = true
		vs := valid(scheme, releases[r.Name])
		if len(vs) == 0 {
			continue
		}
		newest := vs[0]
		ca, err := scheme.ParseConstraint(r.Constraint)
		if err != nil || scheme.Match(newest, ca) {
			continue
		}
		bestA := best(scheme, vs, ca)
		if bestA == "" {
			continue // admits no release at all: broken, not held
		}
		var ts []versions.Constraint
		for _, t := range c.Targets {
			if t.Name != r.Name {
				continue
			}
			if ct, err := scheme.ParseConstraint(t.Constraint); err == nil {
				ts = append(ts, ct)
			}
		}
		bestT := best(scheme, vs, ts...)
		if bestT == "" || scheme.Compare(bestT, bestA) <= 0 {
			continue // the target holds it as far back: not the cap's doing
		}
		holding := holdingClauses(scheme, ca, newest)
		constraint := holding
		if r.Marker != "" {
			constraint += "; " + r.Marker
		}
		when := ""
		if r.Marker != "" {
			when = " (when " + r.Marker + ")"
		}
		out = append(out, HoldBack{
			Package: r.Name, Constraint: constraint, RequiredBy: c.Package + " " + c.Admitted, Newest: newest,
			Reason: fmt.Sprintf("%s %s, the newest release the caps admit, holds %s%s%s while %s %s is out; %s %s %s",
				c.Package, c.Admitted, r.Name, holding, when, r.Name, newest, c.Package, c.Target, admits(scheme, r.Name, ts, newest, bestT)),
		})
	}
	slices.SortStableFunc(out, func(a, b HoldBack) int { return strings.Compare(a.Package, b.Package) })
	return out
}

// admits says what the target's requirements (ts) admit of dep.
func admits(scheme versions.Scheme, dep string, ts []versions.Constraint, newest, bestT string) string {
	if len(ts) == 0 {
		return "does not require " + dep
	}
	var caps []string
	for _, t := range ts {
		for _, cl := range t.Clauses {
			if !cl.Lower() {
				caps = append(caps, t.Text[cl.Start:cl.End])
			}
		}
	}
	if scheme.Compare(bestT, newest) == 0 {
		if len(caps) == 0 {
			return "admits " + dep + " " + newest
		}
		return "admits " + dep + strings.Join(caps, ",")
	}
	return fmt.Sprintf("admits %s%s (up to %s)", dep, strings.Join(caps, ","), bestT)
}

// holdingClauses returns the clauses of c that shut out v, as written.
func holdingClauses(scheme versions.Scheme, c versions.Constraint, v string) string {
	if c.Or {
		return c.Text
	}
	var out []string
	for _, cl := range c.Clauses {
		if !scheme.Match(v, versions.Constraint{Text: c.Text, Clauses: []versions.Clause{cl}}) {
			out = append(out, c.Text[cl.Start:cl.End])
		}
	}
	if len(out) == 0 {
		return c.Text
	}
	return strings.Join(out, ",")
}

// valid returns the versions of vs valid in scheme, newest first.
func valid(scheme versions.Scheme, vs []string) []string {
	out := slices.DeleteFunc(slices.Clone(vs), func(v string) bool { return !scheme.Valid(v) })
	slices.SortFunc(out, func(a, b string) int { return scheme.Compare(b, a) })
	return out
}

// best returns the newest of vs (newest first) that every constraint
// admits; "" when none does.
func best(scheme versions.Scheme, vs []string, cs ...versions.Constraint) string {
	for _, v := range vs {
		if !slices.ContainsFunc(cs, func(c versions.Constraint) bool { return !scheme.Match(v, c) }) {
			return v
		}
	}
	return ""
}
