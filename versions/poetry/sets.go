package poetry

import (
	"strings"

	"github.com/pinbot-dev/pinbot/versions"
	"github.com/pinbot-dev/pinbot/versions/pep440"
)

// A rng is the set of versions between two bounds, the shape poetry-core
// gives a constraint (VersionRange); a nil bound is unbounded.
type rng struct {
	min, max       *pep440.Version
	incMin, incMax bool
}

// A set is what one clause admits: one version (==V, which ignores the local
// label of a candidate when V has none) or one range, perhaps negated (!=V,
// !=V.*).
type set struct {
	exact *pep440.Version
	r     rng
	not   bool
}

func (s set) allows(v pep440.Version) bool {
	in := false
	if s.exact != nil {
		in = equal(v, *s.exact)
	} else {
		in = s.r.allows(v)
	}
	return in != s.not
}

// equal is ==w: a local label of v counts only when w has one.
func equal(v, w pep440.Version) bool {
	if w.Local() == "" {
		v = public(v)
	}
	return v.Compare(w) == 0
}

func public(v pep440.Version) pep440.Version { return mustParse(v.Public()) }

func mustParse(s string) pep440.Version {
	v, err := pep440.Parse(s)
	if err != nil {
		panic("poetry: " + err.Error())
	}
	return v
}

// allows reports whether v is in r. A bound without a local label compares
// v without its own, and takes PEP 440's exclusive ordered comparisons (>V
// refuses post-releases and local versions of V, <V refuses V's own
// pre-releases), which pep440 decides. A bound with a local label compares
// whole versions, except that <V+local refuses V and everything of its
// release from V's first dev release on (poetry-core: <1.7.0+local.2 refuses
// 1.7.0+local.1).
func (r rng) allows(v pep440.Version) bool {
	if r.min != nil {
		w := *r.min
		switch {
		case w.Local() != "" && r.incMin:
			if v.Compare(w) < 0 {
				return false
			}
		case w.Local() != "":
			if v.Compare(w) <= 0 {
				return false
			}
		case !pepContains(v, ">=", w, r.incMin):
			return false
		}
	}
	if r.max != nil {
		w := *r.max
		switch {
		case w.Local() != "" && r.incMax:
			if v.Compare(w) > 0 {
				return false
			}
		case w.Local() != "":
			limit := public(w)
			if !limit.IsPrerelease() {
				limit = mustParse(limit.Public() + ".dev0")
			}
			if v.Compare(limit) >= 0 {
				return false
			}
		case !pepContains(v, "<=", w, r.incMax):
			return false
		}
	}
	return true
}

// pepContains applies the PEP 440 comparison inclusive (">=" or "<=") or
// its exclusive twin to v and w.
func pepContains(v pep440.Version, inclusive versions.Op, w pep440.Version, inc bool) bool {
	op := inclusive
	if !inc {
		op = op[:1]
	}
	sp, err := pep440.ParseSpecifier(string(op) + w.String())
	return err == nil && sp.Contains(v.String(), pep440.PreInclude)
}

// clauseSet returns what cl admits, or why it is not a constraint.
func clauseSet(cl versions.Clause) (set, string) {
	v := cl.Version
	if strings.ContainsFunc(v, isPySpace) {
		return set{}, "unexpected space in a version"
	}
	if base, ok := strings.CutSuffix(v, ".*"); ok {
		for strings.HasSuffix(base, ".*") {
			base = strings.TrimSuffix(base, ".*")
		}
		switch cl.Op {
		case versions.Exact, versions.EQ, versions.NE:
		default:
			return set{}, "a prefix match (.*) is allowed only with ==, = or != or alone"
		}
		w, err := pep440.Parse(base)
		if err != nil || base == "" || strings.ContainsFunc(base, isPySpace) {
			return set{}, "invalid version " + quote(base)
		}
		if w.Local() != "" {
			return set{}, "a prefix match (.*) takes no local label"
		}
		return set{r: wildcard(w), not: cl.Op == versions.NE}, ""
	}
	if v == "dev" {
		switch cl.Op {
		case versions.Caret, versions.Tilde, versions.Compatible:
		default:
			v = "0.0.dev0" // poetry-core reads the version "dev" as 0.0-dev
		}
	}
	w, err := pep440.Parse(v)
	if err != nil {
		return set{}, "invalid version " + quote(v)
	}
	switch cl.Op {
	case versions.Exact, versions.EQ:
		return set{exact: &w}, ""
	case versions.NE:
		return set{exact: &w, not: true}, ""
	case versions.GE:
		return set{r: rng{min: &w, incMin: true}}, ""
	case versions.GT:
		return set{r: rng{min: &w}}, ""
	case versions.LE:
		return set{r: rng{max: &w, incMax: true}}, ""
	case versions.LT:
		return set{r: rng{max: &w}}, ""
	case versions.Caret:
		hi := mustParse(nextBreaking(w))
		return set{r: rng{min: &w, max: &hi, incMin: true}}, ""
	case versions.Tilde:
		hi := mustParse(next(w, 2))
		if len(w.Release()) == 1 {
			hi = mustParse(next(w, 1))
		}
		return set{r: rng{min: &w, max: &hi, incMin: true}}, ""
	case versions.Compatible:
		hi := mustParse(next(w, 2))
		if len(w.Release()) == 2 {
			hi = mustParse(next(w, 1))
		}
		return set{r: rng{min: &w, max: &hi, incMin: true}}, ""
	}
	return set{}, "operator " + string(cl.Op) + " is not a Poetry operator"
}

func quote(s string) string { return "\"" + s + "\"" }

// next returns the release after v's stable release at component n (1 for
// the next major, 2 minor, 3 patch), keeping v's precision: next("1.2.3", 1)
// is "2.0.0", next("1", 2) is "1.1". Epochs carry over.
func next(v pep440.Version, n int) string {
	rel := v.Release()
	for len(rel) < n {
		rel = append(rel, "0")
	}
	out := make([]string, len(rel))
	for i := range rel {
		switch {
		case i < n-1:
			out[i] = rel[i]
		case i == n-1:
			out[i] = inc(rel[i])
		default:
			out[i] = "0"
		}
	}
	s := strings.Join(out, ".")
	if v.Epoch() != "0" {
		s = v.Epoch() + "!" + s
	}
	return s
}

// nextBreaking is poetry-core's Version.next_breaking, the upper bound of ^v:
// the next major for 1.x, the next minor for 0.x (and 0 written alone, ^0 is
// <1), the next patch for 0.0.x.
func nextBreaking(v pep440.Version) string {
	rel := v.Release()
	switch {
	case rel[0] != "0" || len(rel) == 1:
		return next(v, 1)
	case rel[1] != "0" || len(rel) == 2:
		return next(v, 2)
	}
	return next(v, 3)
}

// stable is poetry-core's Version.stable: the release alone for a
// pre-release, v without its dev release for a dev release of a final or
// post-release, else v.
func stable(v pep440.Version) pep440.Version {
	if _, _, ok := v.Pre(); ok {
		return mustParse(v.BaseVersion())
	}
	if d, ok := v.Dev(); ok {
		return mustParse(strings.TrimSuffix(v.Public(), ".dev"+d))
	}
	return v
}

// wildcard returns the range of the prefix match w.*: from w's first dev
// release up to the first dev release after w's last component (2.0.* is
// >=2.0.dev0,<2.1.dev0; 2.0a1.* is >=2.0a1.dev0,<2.0a2.dev0; 2.0.dev1.* is
// >=2.0.dev1,<2.0.dev2).
func wildcard(w pep440.Version) rng {
	p := w.Public()
	var lo, hi string
	if d, ok := w.Dev(); ok {
		lo = p
		hi = strings.TrimSuffix(p, d) + inc(d)
	} else {
		lo = p + ".dev0"
		switch post, ok := w.Post(); {
		case ok:
			hi = strings.TrimSuffix(p, post) + inc(post) + ".dev0"
		default:
			if l, n, ok := w.Pre(); ok {
				hi = strings.TrimSuffix(p, l+n) + l + inc(n) + ".dev0"
			} else {
				hi = next(w, len(w.Release())) + ".dev0"
			}
		}
	}
	a, b := mustParse(lo), mustParse(hi)
	return rng{min: &a, max: &b, incMin: true}
}

// inc adds one to a decimal number of any size.
func inc(d string) string {
	b := []byte(d)
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] < '9' {
			b[i]++
			return string(b)
		}
		b[i] = '0'
	}
	return "1" + string(b)
}
