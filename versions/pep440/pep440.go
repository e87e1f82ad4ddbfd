// Package pep440 implements the version scheme of Python packages, PEP 440
// (https://packaging.python.org/en/latest/specifications/version-specifiers/).
//
// Ordering and specifier matching come from github.com/aquasecurity/go-pep440-version.
// This package adds what pinbot needs on top: specifier sets parsed with byte spans,
// and refusal of the library's non-PEP "||" extension.
package pep440

import (
	"strings"

	pep440 "github.com/aquasecurity/go-pep440-version"

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
	_, err := pep440.Parse(v)
	return err == nil
}

// Compare orders a and b by PEP 440; invalid versions sort lowest.
func (Scheme) Compare(a, b string) int {
	va, erra := pep440.Parse(a)
	vb, errb := pep440.Parse(b)
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
	pv, err := pep440.Parse(v)
	return err == nil && pv.IsPreRelease()
}

// operators in the order a scanner must try them (longest first).
var operators = []versions.Op{versions.Arbitrary, versions.Compatible, versions.EQ, versions.NE, versions.LE, versions.GE, versions.LT, versions.GT}

// ParseConstraint parses a PEP 440 specifier set such as ">=0.58, <=0.66.0".
// The empty string is the empty set (any version).
func (Scheme) ParseConstraint(text string) (versions.Constraint, error) {
	c := versions.Constraint{Text: text}
	if strings.TrimSpace(text) == "" {
		return c, nil
	}
	fail := func(off int, msg string) (versions.Constraint, error) {
		return versions.Constraint{}, &versions.SyntaxError{Text: text, Offset: off, Msg: msg}
	}
	pos := 0
	for {
		for pos < len(text) && isSpace(text[pos]) {
			pos++
		}
		start := pos
		var op versions.Op
		for _, o := range operators {
			if strings.HasPrefix(text[pos:], string(o)) {
				op = o
				break
			}
		}
		if op == "" {
			return fail(pos, "expected an operator (==, !=, <=, >=, <, >, ~=, ===)")
		}
		pos += len(op)
		for pos < len(text) && isSpace(text[pos]) {
			pos++
		}
		vstart := pos
		for pos < len(text) && text[pos] != ',' && !isSpace(text[pos]) {
			pos++
		}
		v := text[vstart:pos]
		if v == "" {
			return fail(vstart, "expected a version after "+string(op))
		}
		if err := validateClause(op, v); err != "" {
			return fail(vstart, err)
		}
		c.Clauses = append(c.Clauses, versions.Clause{Op: op, Version: v, Start: start, End: pos, VersionStart: vstart})
		for pos < len(text) && isSpace(text[pos]) {
			pos++
		}
		if pos == len(text) {
			return c, nil
		}
		if text[pos] != ',' {
			return fail(pos, "expected ',' between clauses")
		}
		pos++
	}
}

func validateClause(op versions.Op, v string) string {
	if op == versions.Arbitrary {
		return ""
	}
	if strings.ContainsAny(v[:1], "<>=!~") {
		return "expected a version after " + string(op) + ", found " + v
	}
	if _, err := pep440.NewSpecifiers(string(op) + v); err != nil {
		return err.Error()
	}
	if strings.HasSuffix(v, ".*") && op != versions.EQ && op != versions.NE {
		return "a wildcard is allowed only with == and !="
	}
	if strings.Contains(v, "+") && op != versions.EQ && op != versions.NE {
		return "a local version is allowed only with == and !="
	}
	return ""
}

// Match reports whether v satisfies every clause of c. Pre-releases are matched by
// the clauses alone: callers drop them first unless a package opts in.
func (Scheme) Match(v string, c versions.Constraint) bool {
	pv, err := pep440.Parse(v)
	if err != nil {
		return false
	}
	for _, cl := range c.Clauses {
		if cl.Op == versions.Arbitrary {
			if !strings.EqualFold(v, cl.Version) {
				return false
			}
			continue
		}
		spec, err := pep440.NewSpecifiers(string(cl.Op) + cl.Version)
		if err != nil || !spec.Check(pv) {
			return false
		}
	}
	return true
}

func isSpace(b byte) bool { return b == ' ' || b == '\t' }
