// Package pep440 implements the version scheme of Python packages, PEP 440
// (https://packaging.python.org/en/latest/specifications/version-specifiers/),
// written from the specification and held to the test vectors of pypa/packaging,
// the implementation pip uses (see docs/versions.md).
//
// Parse reads a version in any spelling the specification normalises;
// Version.Compare orders versions. A Specifier is one clause (">=0.58",
// "==2.16.*", "~=2.16", "===foo") and a SpecifierSet a comma-separated list of
// them; Contains and Filter follow packaging, pre-release policy included.
// Scheme is the versions.Scheme over these: it parses specifier sets with the
// byte span of every clause and matches with pre-releases admitted (callers
// drop them first unless a package opts in).
//
// The specification has no "or": "||" is refused. Empty items between commas
// are skipped, as packaging's SpecifierSet (and so pip) skips them.
package pep440

import (
	"github.com/pinbot-dev/pinbot/versions"
)

// Name is the scheme's identifier.
const Name = "pep440"

// Scheme is the PEP 440 version scheme.
type Scheme struct{}

var _ versions.Scheme = Scheme{}

// Name returns "pep440".
func (Scheme) Name() string { return Name }

// Valid reports whether v is a PEP 440 version.
func (Scheme) Valid(v string) bool {
	_, err := Parse(v)
	return err == nil
}

// Compare orders a and b by PEP 440; invalid versions sort lowest.
func (Scheme) Compare(a, b string) int {
	va, erra := Parse(a)
	vb, errb := Parse(b)
	switch {
	case erra != nil && errb != nil:
		return 0
	case erra != nil:
		return -1
	case errb != nil:
		return 1
	}
	return va.Compare(vb)
}

// Prerelease reports whether v is an alpha, beta, release candidate or dev release.
func (Scheme) Prerelease(v string) bool {
	pv, err := Parse(v)
	return err == nil && pv.IsPrerelease()
}

// ParseConstraint parses a PEP 440 specifier set such as ">=0.58, <=0.66.0"
// into its clauses with their spans. The empty string is the empty set (any
// version).
func (Scheme) ParseConstraint(text string) (versions.Constraint, error) {
	return parseSet(text)
}

// Match reports whether the version v satisfies every clause of c, with
// pre-releases admitted: packaging's SpecifierSet.contains(v, prereleases=True).
// A string that is not a PEP 440 version matches nothing, not even "===" of
// itself: pinbot only ever asks about released versions.
func (Scheme) Match(v string, c versions.Constraint) bool {
	if _, err := Parse(v); err != nil {
		return false
	}
	for _, cl := range c.Clauses {
		sp := Specifier{Op: cl.Op, Version: cl.Version}
		if sp.check() != "" || !sp.Contains(v, PreInclude) {
			return false
		}
	}
	return true
}
