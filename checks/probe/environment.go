package probe

import (
	"errors"
	"fmt"
	"github.com/pinbot-dev/pinbot/internal/envdiff"
	"slices"
	"strings"
	"time"
)

// An Environment is the Python environment a dynamic probe ran in: the
// interpreter and every installed distribution, as the probe process itself
// listed them (importlib.metadata), and whether it was reused from the cache.
type Environment struct {
	Python        string `json:"python"` // version and executable
	Distributions []Dist `json:"distributions"`
	Reused        bool   `json:"reused"`
	// Resolved says when the installer last resolved this environment's
	// distributions (zero with --no-install).
	Resolved time.Time `json:"resolved,omitzero"`
}

// A Change is a distribution whose version differs between two environments
// (envdiff.Change).
type Change = envdiff.Change

// Changes lists the distributions other than the probed package whose
// versions differ between the baseline's and the candidate's environments.
func (rep *Report) Changes() []Change {
	if rep.BaselineEnv == nil || rep.CandidateEnv == nil {
		return nil
	}
	return diffDists(rep.BaselineEnv.Distributions, rep.CandidateEnv.Distributions, rep.Package, rep.CandidateDist)
}

// diffDists compares two sets of distributions, leaving out those named
// skip.
func diffDists(from, to []Dist, skip ...string) []Change {
	skipped := func(n string) bool {
		return slices.ContainsFunc(skip, func(s string) bool { return s != "" && normName(s) == n })
	}
	idx := func(ds []Dist) map[string]Dist {
		m := map[string]Dist{}
		for _, d := range ds {
			m[normName(d.Name)] = d
		}
		return m
	}
	a, b := idx(from), idx(to)
	var out []Change
	for n, d := range a {
		if skipped(n) {
			continue
		}
		if e, ok := b[n]; !ok {
			out = append(out, Change{Name: d.Name, From: d.Version})
		} else if !sameVersion(d.Version, e.Version) {
			out = append(out, Change{Name: e.Name, From: d.Version, To: e.Version})
		}
	}
	for n, d := range b {
		if _, ok := a[n]; !ok && !skipped(n) {
			out = append(out, Change{Name: d.Name, To: d.Version})
		}
	}
	slices.SortFunc(out, func(x, y Change) int { return strings.Compare(normName(x.Name), normName(y.Name)) })
	return out
}

// movedBlame explains a candidate failure that the package itself did not
// cause: the same release passed this probe on an earlier resolution, and only
// other distributions moved since. It says which, and how the package
// declares each one it requires directly ("numba declares numpy>=1.22 with no
// cap"); "" when there is nothing to say.
func movedBlame(rec *resolveRecord, name, pkg, version string, requires []string) string {
	if rec == nil {
		return ""
	}
	for i, past := range rec.History {
		if past.Results[name] != Pass {
			continue
		}
		moved := diffDists(past.Dists, rec.Dists, pkg)
		if len(moved) == 0 {
			return ""
		}
		var now, before []string
		for _, c := range moved {
			switch {
			case c.To == "":
				now = append(now, "no "+c.Name)
			default:
				now = append(now, c.Name+" "+c.To)
			}
			if c.From != "" {
				before = append(before, c.Name+" "+c.From)
			}
		}
		// The run that finds the new resolution says so; later runs give the
		// day it was found.
		was := "with " + strings.Join(before, ", ")
		if len(before) == 0 {
			was = "without them"
		}
		since, passed := "new since "+past.Until.Format("2006-01-02"), "it passed "+was+" until then"
		if i == 0 && rec.changed {
			since, passed = "new since the last run", "the last run passed "+was
		}
		msg := fmt.Sprintf("%s %s fails with %s (%s)", pkg, version, strings.Join(now, ", "), since)
		for _, c := range moved {
			if req := declared(requires, c.Name); req != "" {
				cap := "with no cap"
				if hasCap(req) {
					cap = "and admits " + c.To
				}
				msg += fmt.Sprintf("; %s declares %s %s", pkg, req, cap)
			}
		}
		return msg + "; " + passed
	}
	return ""
}

// declared returns the requirement among requires (Requires-Dist lines) that
// names dist, without its marker, or "".
func declared(requires []string, dist string) string {
	for _, r := range requires {
		spec, _, _ := strings.Cut(r, ";")
		spec = strings.TrimSpace(spec)
		i := 0
		for i < len(spec) && (isIdentByte(spec[i]) || spec[i] == '-' || spec[i] == '.') {
			i++
		}
		if i > 0 && normName(spec[:i]) == normName(dist) {
			return sanitize(clipText(spec, 120))
		}
	}
	return ""
}

// hasCap reports whether a requirement's specifier has an upper bound.
func hasCap(req string) bool {
	for _, op := range []string{"<", "==", "~=", "==="} {
		if strings.Contains(req, op) {
			return true
		}
	}
	return false
}

// checkConstraint accepts what may be written as one line of an installer
// constraints file: a name, a version specifier and a marker; no options, no
// URLs, no extras, no line breaks.
func checkConstraint(req string) error {
	switch {
	case req == "":
		return errors.New("empty")
	case !isIdentByte(req[0]) || req[0] >= 0x80:
		return fmt.Errorf("%q does not start with a package name", req)
	case strings.ContainsAny(req, "\n\r\\@[#"):
		return fmt.Errorf("%q is not a name with a version specifier", req)
	}
	return nil
}
