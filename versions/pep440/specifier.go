package pep440

import (
	"fmt"
	"strings"

	"github.com/pinbot-dev/pinbot/versions"
)

// Pre is a pre-release policy, the prereleases argument of pypa/packaging's
// Specifier, SpecifierSet, contains and filter.
type Pre int8

// The pre-release policies.
const (
	// PreDefault leaves the decision to the next level: the specifier's own
	// policy, then the rule of each operation (Contains admits pre-releases,
	// Filter admits them when the specifiers name one or nothing else matches).
	PreDefault Pre = iota
	// PreInclude admits pre-releases.
	PreInclude
	// PreExclude refuses pre-releases.
	PreExclude
)

func (p Pre) or(q Pre) Pre {
	if p != PreDefault {
		return p
	}
	return q
}

// A Specifier is one clause of a PEP 440 version specifier: an operator and a
// version, such as ">=0.58" or "==2.16.*".
type Specifier struct {
	Op versions.Op
	// Version is the version as written, without operator or surrounding space;
	// it may end in ".*" after == and !=.
	Version string
	// Pre is the specifier's own pre-release policy.
	Pre Pre

	v    Version // Version parsed (its prefix for a prefix match); unset for ===
	wild bool    // a prefix match: ==V.* or !=V.*
}

// specOps lists the operators in the order a scanner must try them (longest
// first).
var specOps = []versions.Op{versions.Arbitrary, versions.Compatible, versions.EQ, versions.NE, versions.LE, versions.GE, versions.LT, versions.GT}

// A SpecError is a specifier that does not parse; Offset is the byte position
// of the problem in Text.
type SpecError struct {
	Text   string
	Offset int
	Msg    string
}

func (e *SpecError) Error() string {
	return fmt.Sprintf("invalid specifier %q at offset %d: %s", e.Text, e.Offset, e.Msg)
}

// ParseSpecifier parses one specifier clause, allowing white space around the
// operator and the version.
func ParseSpecifier(s string) (Specifier, error) {
	start := len(s) - len(strings.TrimLeftFunc(s, isSpace))
	end := len(strings.TrimRightFunc(s, isSpace))
	if start >= end {
		return Specifier{}, &SpecError{s, 0, "expected an operator (==, !=, <=, >=, <, >, ~=, ===)"}
	}
	sp, off, msg := parseClause(s[start:end])
	if msg != "" {
		return Specifier{}, &SpecError{s, start + off, msg}
	}
	return sp, nil
}

// parseClause parses a specifier without surrounding space. On failure it
// returns the offset of the problem and a message.
func parseClause(s string) (sp Specifier, off int, msg string) {
	for _, o := range specOps {
		if strings.HasPrefix(s, string(o)) {
			sp.Op = o
			break
		}
	}
	if sp.Op == "" {
		return sp, 0, "expected an operator (==, !=, <=, >=, <, >, ~=, ===)"
	}
	vs := len(sp.Op) + len(s[len(sp.Op):]) - len(strings.TrimLeftFunc(s[len(sp.Op):], isSpace))
	sp.Version = s[vs:]
	if msg := sp.check(); msg != "" {
		return Specifier{}, vs, msg
	}
	return sp, 0, ""
}

// check validates the version of sp for its operator, as the specification's
// grammar (packaging's Specifier regular expression) does, and records the
// parsed version.
func (sp *Specifier) check() string {
	v := sp.Version
	if strings.ContainsFunc(v, isSpace) {
		return "unexpected space in a version"
	}
	if sp.Op == versions.Arbitrary {
		// === compares strings; anything but a space, ";" or ")" belongs to it.
		if strings.ContainsAny(v, ";)") {
			return "=== takes a string without ';' or ')'"
		}
		return ""
	}
	if v == "" {
		return "expected a version after " + string(sp.Op)
	}
	if base, ok := strings.CutSuffix(v, ".*"); ok {
		if sp.Op != versions.EQ && sp.Op != versions.NE {
			return "a prefix match (.*) is allowed only with == and !="
		}
		pv, err := Parse(base)
		if err != nil {
			return "invalid version " + quote(base)
		}
		if pv.pre != "" || pv.post != "" || pv.dev != "" || pv.local != nil {
			return "a prefix match (.*) takes a release only, without pre-, post-, dev-release or local label"
		}
		sp.v, sp.wild = pv, true
		return ""
	}
	pv, err := Parse(v)
	if err != nil {
		return "invalid version " + quote(v)
	}
	if pv.local != nil && sp.Op != versions.EQ && sp.Op != versions.NE {
		return "a local version label is allowed only with == and !="
	}
	if sp.Op == versions.Compatible && len(pv.release) < 2 {
		return "~= needs at least two release components (~=2.16, not ~=2)"
	}
	sp.v = pv
	return ""
}

// String returns the specifier as operator and version, without space.
func (sp Specifier) String() string { return string(sp.Op) + sp.Version }

// Prereleases reports whether sp admits pre-releases when asked to filter with
// no policy: its own policy if set, else whether it names a pre-release with
// an inclusive operator (>=1.0rc1, ==2.0b1, <1.0.dev1; not !=).
func (sp Specifier) Prereleases() bool {
	if sp.Pre != PreDefault {
		return sp.Pre == PreInclude
	}
	if sp.Op == versions.NE {
		return false
	}
	if sp.Op == versions.Arbitrary {
		pv, err := Parse(sp.Version)
		return err == nil && pv.IsPrerelease()
	}
	return !sp.wild && sp.v.IsPrerelease()
}

// Contains reports whether the version v satisfies sp under the pre-release
// policy pre (which overrides sp.Pre; with neither set, pre-releases are
// admitted). === compares v as written, case-insensitively, with the version
// of sp; every other operator needs v to be a PEP 440 version.
func (sp Specifier) Contains(v string, pre Pre) bool {
	pre = pre.or(sp.Pre)
	if sp.Op == versions.Arbitrary {
		if !strings.EqualFold(v, sp.Version) {
			return false
		}
		pv, err := Parse(v)
		return !(pre == PreExclude && err == nil && pv.IsPrerelease())
	}
	pv, err := Parse(v)
	if err != nil || pre == PreExclude && pv.IsPrerelease() {
		return false
	}
	return sp.matches(pv)
}

// matches applies the operator of sp to pv, pre-releases admitted.
func (sp Specifier) matches(pv Version) bool {
	w := sp.v
	switch sp.Op {
	case versions.EQ, versions.NE:
		eq := sp.equal(pv)
		return eq == (sp.Op == versions.EQ)
	case versions.LE:
		return pv.withoutLocal().Compare(w) <= 0
	case versions.GE:
		return pv.withoutLocal().Compare(w) >= 0
	case versions.LT:
		return lessThan(pv, w)
	case versions.GT:
		return greaterThan(pv, w)
	case versions.Compatible:
		return pv.withoutLocal().Compare(w) >= 0 && releasePrefix(pv, w.release[:len(w.release)-1]) && pv.epoch == w.epoch
	}
	return false
}

// equal is == without the operator: a prefix match on the zero-padded
// release for V.*, else equality, ignoring the local label of pv when sp has
// none (==2.1.0 matches 2.1.0+cu118).
func (sp Specifier) equal(pv Version) bool {
	w := sp.v
	if sp.wild {
		return pv.epoch == w.epoch && releasePrefix(pv, w.release)
	}
	if w.local == nil {
		pv = pv.withoutLocal()
	}
	return pv.Compare(w) == 0
}

// lessThan is the exclusive ordered comparison <V: below V, and not a
// pre-release of V itself unless V is a pre-release (<3.1 refuses 3.1.dev0 and
// 3.1rc1; <1.0.post1 refuses 1.0.post1.dev0 but admits 1.0rc1).
func lessThan(pv, w Version) bool {
	if pv.Compare(w) >= 0 {
		return false
	}
	if w.IsPrerelease() {
		return true
	}
	// Below V's first dev release: nothing of V's own pre-releases remains.
	first := w
	first.dev = "0"
	return pv.Compare(first) < 0
}

// greaterThan is the exclusive ordered comparison >V: above V, and neither a
// post-release of V itself unless V is a post-release (>1.7 refuses
// 1.7.post1, >1.0a1 refuses 1.0a1.post1 but admits 1.0.post1) nor a local
// version of V (>1.7 refuses 1.7+cu118).
func greaterThan(pv, w Version) bool {
	if pv.Compare(w) <= 0 {
		return false
	}
	if w.post == "" && w.dev == "" && pv.post != "" {
		base := pv.withoutLocal()
		base.post, base.dev = "", ""
		if base.Compare(w) == 0 {
			return false
		}
	}
	if pv.local != nil && pv.withoutLocal().Compare(w) == 0 {
		return false
	}
	return true
}

// A SpecifierSet is a comma-separated list of specifiers, all of which a
// version must satisfy.
type SpecifierSet struct {
	Specs []Specifier
	// Pre is the set's own pre-release policy.
	Pre Pre
}

// ParseSpecifierSet parses a comma-separated specifier set such as
// ">=0.58, <=0.66.0". Empty items are skipped, as packaging's SpecifierSet
// skips them; the empty string is the empty set, which every version satisfies.
func ParseSpecifierSet(s string) (SpecifierSet, error) {
	c, err := parseSet(s)
	if err != nil {
		return SpecifierSet{}, err
	}
	set := SpecifierSet{}
	for _, cl := range c.Clauses {
		sp, _, _ := parseClause(s[cl.Start:cl.End])
		set.Specs = append(set.Specs, sp)
	}
	return set, nil
}

// parseSet splits a specifier set into clauses with their spans.
func parseSet(text string) (versions.Constraint, error) {
	c := versions.Constraint{Text: text}
	for pos := 0; pos <= len(text); {
		end := strings.IndexByte(text[pos:], ',')
		if end < 0 {
			end = len(text)
		} else {
			end += pos
		}
		item := text[pos:end]
		s := pos + len(item) - len(strings.TrimLeftFunc(item, isSpace))
		e := pos + len(strings.TrimRightFunc(item, isSpace))
		if s < e {
			sp, off, msg := parseClause(text[s:e])
			if msg != "" {
				return versions.Constraint{}, &versions.SyntaxError{Text: text, Offset: s + off, Msg: msg}
			}
			vs := e - len(sp.Version)
			c.Clauses = append(c.Clauses, versions.Clause{Op: sp.Op, Version: sp.Version, Start: s, End: e, VersionStart: vs})
		}
		pos = end + 1
	}
	return c, nil
}

// Prereleases returns the pre-release policy Filter uses when given none: the
// set's own, else PreInclude when a specifier names a pre-release (see
// Specifier.Prereleases), else PreDefault.
func (s SpecifierSet) Prereleases() Pre {
	if s.Pre != PreDefault {
		return s.Pre
	}
	for _, sp := range s.Specs {
		if sp.Prereleases() {
			return PreInclude
		}
	}
	return PreDefault
}

// Contains reports whether v satisfies every specifier of s under the
// pre-release policy pre (which overrides s.Pre; with neither set,
// pre-releases are admitted). installed admits a pre-release whatever the
// policy, as an installer does for what is already installed. The empty set
// admits any string, version or not.
func (s SpecifierSet) Contains(v string, pre Pre, installed bool) bool {
	pre = pre.or(s.Pre)
	pv, err := Parse(v)
	if err == nil && pv.IsPrerelease() {
		if installed {
			pre = PreInclude
		}
		if pre == PreExclude {
			return false
		}
	}
	if pre == PreDefault {
		pre = PreInclude
	}
	for _, sp := range s.Specs {
		if !sp.Contains(v, pre) {
			return false
		}
	}
	return true
}

// Filter returns the items of vs that satisfy s, in order, under the
// pre-release policy pre (which overrides s.Prereleases()). With no policy it
// follows the specification's rule for installers: pre-releases are dropped
// when a final or post release matches, and kept when only pre-releases do.
// Strings that are not versions pass the empty set and === only.
func (s SpecifierSet) Filter(vs []string, pre Pre) []string {
	return filter(vs, pre.or(s.Prereleases()), func(v string, p Pre) bool { return s.Contains(v, p, false) })
}

// Filter is SpecifierSet.Filter for one specifier.
func (sp Specifier) Filter(vs []string, pre Pre) []string {
	pol := pre.or(sp.Pre)
	if pol == PreDefault && sp.Prereleases() {
		pol = PreInclude
	}
	return filter(vs, pol, sp.Contains)
}

// filter keeps the items contains admits under pre; with PreDefault it admits
// pre-releases and then drops them if a version that is not one was kept.
func filter(vs []string, pre Pre, contains func(string, Pre) bool) []string {
	var kept []string
	final := false
	for _, v := range vs {
		p := pre
		if p == PreDefault {
			p = PreInclude
		}
		if !contains(v, p) {
			continue
		}
		kept = append(kept, v)
		if pv, err := Parse(v); err == nil && !pv.IsPrerelease() {
			final = true
		}
	}
	if pre != PreDefault || !final {
		return kept
	}
	out := kept[:0:0]
	for _, v := range kept {
		if pv, err := Parse(v); err != nil || !pv.IsPrerelease() {
			out = append(out, v)
		}
	}
	return out
}
