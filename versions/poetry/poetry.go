// Package poetry implements the version constraints of Poetry's
// [tool.poetry.dependencies] tables
// (https://python-poetry.org/docs/dependency-specification/#version-constraints),
// over PEP 440 versions.
//
// Versions are PEP 440 versions, ordered by versions/pep440. Constraints add to
// the PEP 440 operators (==, !=, <, <=, >, >=, ~=) Poetry's own:
//
//	^1.2.3   caret: >=1.2.3,<2.0.0  (^0.2.3 <0.3.0, ^0.0.3 <0.0.4, ^0.0 <0.1, ^0 <1)
//	~1.2.3   tilde: >=1.2.3,<1.3.0  (~1.2 <1.3, ~1 <2)
//	1.2.3    a bare version is exact: ==1.2.3 ("1.3" is ==1.3, which 1.3.0 satisfies)
//	1.2.*    prefix match, as ==1.2.*
//	*        any version
//	=1.2.3   the same as ==1.2.3
//
// Clauses are joined by "," or by space (">=1.2 <1.5"), and "||" (or "|")
// separates alternatives, which pinbot reads but never edits (Constraint.Or).
package poetry

import (
	"strings"

	"github.com/pinbot-dev/pinbot/versions"
	"github.com/pinbot-dev/pinbot/versions/pep440"
)

// Name is the scheme's identifier.
const Name = "poetry"

// Scheme is the Poetry constraint scheme over PEP 440 versions.
type Scheme struct{}

var _ versions.Scheme = Scheme{}

var pep = pep440.Scheme{}

// Name returns "poetry".
func (Scheme) Name() string { return Name }

// Valid reports whether v is a PEP 440 version.
func (Scheme) Valid(v string) bool { return pep.Valid(v) }

// Compare orders a and b by PEP 440; invalid versions sort lowest.
func (Scheme) Compare(a, b string) int { return pep.Compare(a, b) }

// Prerelease reports whether v is an alpha, beta, release candidate or dev release.
func (Scheme) Prerelease(v string) bool { return pep.Prerelease(v) }

// operators in the order a scanner must try them (longest first).
var operators = []versions.Op{versions.Compatible, versions.EQ, versions.NE, versions.LE, versions.GE, versions.LT, versions.GT, versions.Caret, versions.Tilde}

// ParseConstraint parses a Poetry constraint such as "^0.56.0", "2.8.2",
// ">=1.2,<1.5" or "^1.0 || ^2.0". The empty string and "*" admit any version.
// A single "=" is Poetry's spelling of "==": its clause has Op versions.EQ and
// keeps its one-character operator in the text.
func (Scheme) ParseConstraint(text string) (versions.Constraint, error) {
	c := versions.Constraint{Text: text}
	fail := func(off int, msg string) (versions.Constraint, error) {
		return versions.Constraint{}, &versions.SyntaxError{Text: text, Offset: off, Msg: msg}
	}
	if t := strings.TrimSpace(text); t == "" || t == "*" {
		return c, nil
	}
	pos := skipSpace(text, 0)
	expectClause := true
	for pos < len(text) {
		switch {
		case strings.HasPrefix(text[pos:], "||") || text[pos] == '|':
			if expectClause {
				return fail(pos, "expected a version constraint before '|'")
			}
			c.Or = true
			pos++
			if pos < len(text) && text[pos] == '|' {
				pos++
			}
			pos = skipSpace(text, pos)
			expectClause = true
			continue
		case text[pos] == ',':
			if expectClause {
				return fail(pos, "expected a version constraint before ','")
			}
			pos = skipSpace(text, pos+1)
			expectClause = true
			continue
		}
		start := pos
		op, opLen := versions.Exact, 0
		for _, o := range operators {
			if strings.HasPrefix(text[pos:], string(o)) {
				op, opLen = o, len(o)
				break
			}
		}
		if op == versions.Exact && text[pos] == '=' {
			op, opLen = versions.EQ, 1
		}
		pos = skipSpace(text, pos+opLen)
		vstart := pos
		for pos < len(text) && !isSpace(text[pos]) && !strings.ContainsRune(",|", rune(text[pos])) {
			pos++
		}
		v := text[vstart:pos]
		if v == "" {
			return fail(vstart, "expected a version after "+string(op))
		}
		if msg := validate(op, v); msg != "" {
			return fail(vstart, msg)
		}
		c.Clauses = append(c.Clauses, versions.Clause{Op: op, Version: v, Start: start, End: pos, VersionStart: vstart})
		pos = skipSpace(text, pos)
		expectClause = false
	}
	if expectClause {
		return fail(len(text), "expected a version constraint at the end")
	}
	return c, nil
}

func validate(op versions.Op, v string) string {
	if strings.ContainsAny(v[:1], "<>=!~^") {
		return "expected a version after " + string(op) + ", found " + v
	}
	if v == "*" {
		if op == versions.Exact {
			return ""
		}
		return "'*' stands alone"
	}
	core, wild := strings.CutSuffix(v, ".*")
	if wild {
		switch op {
		case versions.Exact, versions.EQ, versions.NE:
		default:
			return "a wildcard is allowed only with ==, != or a bare version"
		}
	}
	if !pep.Valid(core) {
		return "invalid version " + v
	}
	switch op {
	case versions.Caret, versions.Tilde:
		if strings.Contains(v, "+") {
			return "a local version is not allowed with " + string(op)
		}
	case versions.Compatible:
		if versions.Precision(v) < 2 {
			return "~= needs at least two release components"
		}
	}
	return ""
}

// Match reports whether v satisfies c: every clause of one alternative. Each
// clause is read as its PEP 440 equivalent (^0.56.0 as >=0.56.0,<0.57.0, a bare
// version as ==), so pre-releases follow PEP 440's rules for those clauses.
func (s Scheme) Match(v string, c versions.Constraint) bool {
	if !pep.Valid(v) {
		return false
	}
	if c.Or {
		for _, alt := range strings.FieldsFunc(c.Text, func(r rune) bool { return r == '|' }) {
			ac, err := s.ParseConstraint(alt)
			if err == nil && !ac.Or && s.Match(v, ac) {
				return true
			}
		}
		return false
	}
	for _, cl := range c.Clauses {
		spec, ok := pep440Spec(cl)
		if !ok {
			return false
		}
		pc, err := pep.ParseConstraint(spec)
		if err != nil || !pep.Match(v, pc) {
			return false
		}
	}
	return true
}

// pep440Spec returns the PEP 440 specifier set that means the same as cl.
func pep440Spec(cl versions.Clause) (string, bool) {
	v := cl.Version
	switch cl.Op {
	case versions.Exact:
		if v == "*" {
			return "", true
		}
		return "==" + v, true
	case versions.Caret, versions.Tilde:
		var up string
		var ok bool
		if cl.Op == versions.Caret {
			up, ok = versions.CaretUpper(v)
		} else {
			up, ok = versions.TildeUpper(v)
		}
		return ">=" + v + ",<" + up, ok
	}
	return string(cl.Op) + v, true
}

func skipSpace(s string, i int) int {
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	return i
}

func isSpace(b byte) bool { return b == ' ' || b == '\t' }
