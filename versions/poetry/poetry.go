// Package poetry implements the version constraints of Poetry's
// [tool.poetry.dependencies] tables
// (https://python-poetry.org/docs/dependency-specification/#version-constraints)
// as poetry-core reads them, over PEP 440 versions, held to poetry-core's own
// test vectors (see docs/versions.md).
//
// Versions are PEP 440 versions, ordered by versions/pep440. Constraints add to
// the PEP 440 operators (==, !=, <, <=, >, >=, ~=) Poetry's own:
//
//	^1.2.3   caret: >=1.2.3,<2.0.0  (^0.2.3 <0.3.0, ^0.0.3 <0.0.4, ^0.0 <0.1, ^0 <1)
//	~1.2.3   tilde: >=1.2.3,<1.3.0  (~1.2 <1.3, ~1 <2)
//	~=1.2.3  >=1.2.3,<1.3.0; ~=1.2 <2.0 (~=1 is >=1,<1.1, as poetry-core reads it)
//	1.2.3    a bare version is exact: ==1.2.3 ("1.3" is ==1.3, which 1.3.0 satisfies)
//	=1.2.3   the same as ==1.2.3
//	1.2.*    prefix match: >=1.2.dev0,<1.3.dev0; also ==1.2.*, =1.2.*, !=1.2.*,
//	         v1.2.*, 1.*.*, and after a pre-, post- or dev release (2.0a1.* is
//	         >=2.0a1.dev0,<2.0a2.dev0)
//	*        any version, as are x, v*, *.* and X.x
//	>dev     >0.0.dev0
//
// Versions may be spelled any way PEP 440 normalises (v1.2, 1.2.3-beta.2), and
// a local label is allowed after every operator: >=1.0+cpu admits 1.0+cuda
// (cuda sorts above cpu) and 1.0.post1, not 1.0. Clauses are joined by "," or
// by space (">=1.2 <1.5"), a trailing comma is ignored, and "||" (or "|")
// separates alternatives, which pinbot reads but never edits (Constraint.Or).
//
// Refused, although poetry-core reads them: "<>" (which it takes as ==), and a
// prefix match after <, <=, > or >= (>=1.2.*, which it reads as >=1.2).
package poetry

import (
	"strings"
	"unicode"

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

// ParseConstraint parses a Poetry constraint such as "^0.56.0", "2.8.2",
// ">=1.2,<1.5", ">=1.2 <1.5" or "^1.0 || ^2.0" into its clauses with their
// spans, as poetry-core's parse_constraint splits it. The empty string and
// "*" admit any version and have no clauses; so does every any-version term
// ("x", "v*", "*.*"). A single "=" is Poetry's spelling of "==": its clause
// has Op versions.EQ and keeps its one-character operator in the text.
func (Scheme) ParseConstraint(text string) (versions.Constraint, error) {
	c, _, err := parse(text)
	return c, err
}

// parse parses text into its clauses and the clauses of each alternative.
func parse(text string) (versions.Constraint, [][]versions.Clause, error) {
	c := versions.Constraint{Text: text}
	fail := func(off int, msg string) (versions.Constraint, [][]versions.Clause, error) {
		return versions.Constraint{}, nil, &versions.SyntaxError{Text: text, Offset: off, Msg: msg}
	}
	start := len(text) - len(strings.TrimLeftFunc(text, isPySpace))
	end := len(strings.TrimRightFunc(text, isPySpace))
	if start >= end {
		return c, nil, nil
	}
	var groups [][]versions.Clause
	for _, g := range orSplit(text, start, end) {
		// A trailing comma is ignored: poetry-core strips commas, then space.
		ge := len(strings.TrimRight(text[:g[1]], ","))
		ge = max(len(strings.TrimRightFunc(text[:ge], isPySpace)), g[0])
		var group []versions.Clause
		for _, piece := range andSplit(text[g[0]:ge]) {
			ps, pe := g[0]+piece[0], g[0]+piece[1]
			cl, any, off, msg := parseSingle(text, ps, pe)
			if msg != "" {
				return fail(off, msg)
			}
			if !any {
				group = append(group, cl)
				c.Clauses = append(c.Clauses, cl)
			}
		}
		groups = append(groups, group)
	}
	c.Or = len(groups) > 1
	return c, groups, nil
}

// orSplit splits text[start:end] at the alternatives separators, which are
// "|" or "||" with any space around (poetry-core's \s*\|\|?\s*), returning
// the spans of the alternatives.
func orSplit(text string, start, end int) [][2]int {
	var out [][2]int
	from := start
	for i := start; i < end; i++ {
		if text[i] != '|' {
			continue
		}
		s := i
		for s > from && isPySpaceByte(text[s-1]) {
			s--
		}
		j := i + 1
		if j < end && text[j] == '|' {
			j++
		}
		for j < end && isPySpaceByte(text[j]) {
			j++
		}
		out = append(out, [2]int{from, s})
		from, i = j, j-1
	}
	return append(out, [2]int{from, end})
}

// andSplit splits one alternative into its clauses where poetry-core's
// regular expression (?<!^)(?<![\^~=>< ,]) *(?<!-)[, ](?!-) *(?!,|$) matches:
// at a "," or a space, with any spaces around, but not right after an
// operator, not next to a "-" and not before a "," or the end. It returns the
// spans of the clauses. (The expression in the poetry-core source pinbot
// read lacks "^" after the lookbehind's "[", which would split "^ 3.8";
// poetry-core's tests parse "^    3.8", so "^" is in the set here.)
func andSplit(g string) [][2]int {
	var out [][2]int
	from := 0
	for i := 0; i < len(g); i++ {
		if end, ok := andSepAt(g, i); ok {
			out = append(out, [2]int{from, i})
			from, i = end, end-1
		}
	}
	return append(out, [2]int{from, len(g)})
}

// andSepAt matches the clause separator at p, as the backtracking regular
// expression does, returning where it ends.
func andSepAt(g string, p int) (int, bool) {
	if p == 0 || strings.IndexByte("^~=>< ,", g[p-1]) >= 0 {
		return 0, false
	}
	spaces := func(i int) int {
		n := 0
		for i+n < len(g) && g[i+n] == ' ' {
			n++
		}
		return n
	}
	for k := spaces(p); k >= 0; k-- {
		q := p + k
		if q >= len(g) || g[q] != ',' && g[q] != ' ' || g[q-1] == '-' || q+1 < len(g) && g[q+1] == '-' {
			continue
		}
		for m := spaces(q + 1); m >= 0; m-- {
			if r := q + 1 + m; r < len(g) && g[r] != ',' {
				return r, true
			}
		}
	}
	return 0, false
}

// basicOps are poetry-core's comparison operators, in the order its regular
// expression tries them.
var basicOps = []string{"<>", "!=", ">=", ">", "<=", "<", "==", "="}

// parseSingle parses the clause text[s:e] as poetry-core's
// parse_single_constraint does. any is set for a term that admits every
// version; on failure msg says why, at offset off.
func parseSingle(text string, s, e int) (cl versions.Clause, any bool, off int, msg string) {
	t := text[s:e]
	if isAny(t) {
		return cl, true, 0, ""
	}
	op := versions.Exact
	n := 0
	switch {
	case strings.HasPrefix(t, "~="):
		op, n = versions.Compatible, 2
	case strings.HasPrefix(t, "~"):
		op, n = versions.Tilde, 1
	case strings.HasPrefix(t, "^"):
		op, n = versions.Caret, 1
	default:
		for _, o := range basicOps {
			if strings.HasPrefix(t, o) {
				op, n = versions.Op(o), len(o)
				break
			}
		}
	}
	if op == "<>" {
		return cl, false, s, "the operator <> is not supported (poetry-core reads it as ==)"
	}
	if op == "=" {
		op = versions.EQ
	}
	vs := s + n
	for vs < e && isPySpaceByte(text[vs]) {
		vs++
	}
	v := text[vs:e]
	cl = versions.Clause{Op: op, Version: v, Start: s, End: e, VersionStart: vs}
	if v == "" {
		return cl, false, vs, "expected a version after " + string(op)
	}
	if _, err := clauseSet(cl); err != "" {
		return cl, false, vs, err
	}
	return cl, false, 0, ""
}

// isAny reports whether t is a term poetry-core reads as any version:
// (?i)^v?[xX*](\.[xX*])*$.
func isAny(t string) bool {
	if t != "" && (t[0] == 'v' || t[0] == 'V') {
		t = t[1:]
	}
	for _, part := range strings.Split(t, ".") {
		if part != "x" && part != "X" && part != "*" {
			return false
		}
	}
	return true
}

func isPySpace(r rune) bool { return unicode.IsSpace(r) || r >= 0x1c && r <= 0x1f }

func isPySpaceByte(b byte) bool { return b < 0x80 && isPySpace(rune(b)) }

// Match reports whether v satisfies c: every clause of one alternative. A
// clause admits what poetry-core's constraint for it admits (see the package
// comment); pre-releases are matched by the clauses alone, so callers drop
// them first unless a package opts in.
func (Scheme) Match(v string, c versions.Constraint) bool {
	pv, err := pep440.Parse(v)
	if err != nil {
		return false
	}
	if !c.Or {
		return allAdmit(pv, c.Clauses)
	}
	_, groups, err := parse(c.Text)
	if err != nil {
		return false
	}
	for _, g := range groups {
		if allAdmit(pv, g) {
			return true
		}
	}
	return false
}

func allAdmit(pv pep440.Version, clauses []versions.Clause) bool {
	for _, cl := range clauses {
		set, msg := clauseSet(cl)
		if msg != "" || !set.allows(pv) {
			return false
		}
	}
	return true
}
