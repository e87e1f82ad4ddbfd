package conda

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/pinbot-dev/pinbot/versions"
)

// A node is a constraint's expression tree: a clause (an index into the
// clauses) or the AND (",") or OR ("|") of its kids.
type node struct {
	op     byte // 0 for a clause, ',' or '|'
	clause int
	kids   []*node
}

// maxDepth bounds the nesting of parentheses.
const maxDepth = 32

type parser struct {
	text    string
	pos     int
	depth   int
	clauses []versions.Clause
	or      bool
}

func (p *parser) fail(off int, msg string) error {
	return &versions.SyntaxError{Text: p.text, Offset: off, Msg: msg}
}

func (p *parser) skipSpace() {
	for p.pos < len(p.text) && isSpace(p.text[p.pos]) {
		p.pos++
	}
}

// ParseConstraint parses the version part of a conda MatchSpec, such as
// ">=1.22.3,<2.5", "0.47.*" or ">=1.8,<2|==1.7", into its clauses with their
// spans. Or is set when the constraint has a "|"; Clauses then holds the clauses
// of every alternative, in text order. The empty string is the empty constraint,
// which any version satisfies. See the package comment for the grammar.
func (Scheme) ParseConstraint(text string) (versions.Constraint, error) {
	c, _, err := parse(text)
	return c, err
}

func parse(text string) (versions.Constraint, *node, error) {
	c := versions.Constraint{Text: text}
	p := &parser{text: text}
	p.skipSpace()
	if p.pos == len(text) {
		return c, nil, nil
	}
	n, err := p.parseOr()
	if err != nil {
		return versions.Constraint{}, nil, err
	}
	if p.pos < len(text) {
		msg := "expected ',' or '|' between clauses"
		if text[p.pos] == ')' {
			msg = "unexpected ')'"
		}
		return versions.Constraint{}, nil, p.fail(p.pos, msg)
	}
	c.Clauses, c.Or = p.clauses, p.or
	return c, n, nil
}

func (p *parser) parseOr() (*node, error) {
	return p.parseList('|', p.parseAnd)
}

func (p *parser) parseAnd() (*node, error) {
	return p.parseList(',', p.parseTerm)
}

// parseList parses item { sep item }.
func (p *parser) parseList(sep byte, item func() (*node, error)) (*node, error) {
	var kids []*node
	for {
		n, err := item()
		if err != nil {
			return nil, err
		}
		kids = append(kids, n)
		p.skipSpace()
		if p.pos == len(p.text) || p.text[p.pos] != sep {
			break
		}
		if sep == '|' {
			p.or = true
		}
		p.pos++
	}
	if len(kids) == 1 {
		return kids[0], nil
	}
	return &node{op: sep, kids: kids}, nil
}

func (p *parser) parseTerm() (*node, error) {
	p.skipSpace()
	if p.pos < len(p.text) && p.text[p.pos] == '(' {
		open := p.pos
		if p.depth == maxDepth {
			return nil, p.fail(open, "parentheses nested too deeply")
		}
		p.depth++
		p.pos++
		n, err := p.parseOr()
		if err != nil {
			return nil, err
		}
		p.skipSpace()
		if p.pos == len(p.text) || p.text[p.pos] != ')' {
			return nil, p.fail(open, "unclosed '('")
		}
		p.pos++
		p.depth--
		return n, nil
	}
	start := p.pos
	// A regular expression runs from "^" to the first "$", parentheses, "|"
	// and "," included, as conda's tokenizer reads it.
	if start < len(p.text) && p.text[start] == '^' {
		if i := strings.IndexByte(p.text[start:], '$'); i >= 0 {
			end := start + i + 1
			p.pos = end
			re := p.text[start:end]
			if _, err := regexp.Compile(re); err != nil {
				return nil, p.fail(start, "regular expression "+strconv.Quote(re)+" does not compile: "+err.Error())
			}
			p.clauses = append(p.clauses, versions.Clause{Op: versions.Exact, Version: re, Start: start, End: end, VersionStart: start, Pattern: true})
			return &node{clause: len(p.clauses) - 1}, nil
		}
	}
	for p.pos < len(p.text) && !strings.ContainsRune("(),|", rune(p.text[p.pos])) {
		p.pos++
	}
	end := p.pos
	for end > start && isSpace(p.text[end-1]) {
		end--
	}
	if start == end {
		return nil, p.fail(start, "expected a version")
	}
	cl, err := p.parseClause(start, end)
	if err != nil {
		return nil, err
	}
	p.clauses = append(p.clauses, cl)
	return &node{clause: len(p.clauses) - 1}, nil
}

// operators in the order a scanner must try them (longest first).
var operators = []versions.Op{versions.GE, versions.LE, versions.EQ, versions.NE, versions.Compatible, versions.GT, versions.LT, versions.Fuzzy}

// parseClause parses the clause text[start:end], which has no surrounding space.
func (p *parser) parseClause(start, end int) (versions.Clause, error) {
	s := p.text[start:end]
	if s[0] == '^' || s[len(s)-1] == '$' {
		return versions.Clause{}, p.fail(start, "a regular expression must start with '^' and end with '$'")
	}
	op := versions.Exact
	for _, o := range operators {
		if strings.HasPrefix(s, string(o)) {
			op = o
			break
		}
	}
	vs := start + len(op)
	switch {
	case op == versions.Exact && strings.ContainsRune("=<>!~", rune(s[0])):
		return versions.Clause{}, p.fail(start, "invalid operator (want >=, <=, >, <, ==, !=, ~= or =)")
	case op != versions.Exact && vs < end && strings.ContainsRune("=<>!~", rune(p.text[vs])):
		return versions.Clause{}, p.fail(start, "invalid operator (want >=, <=, >, <, ==, !=, ~= or =)")
	case vs == end:
		return versions.Clause{}, p.fail(vs, "expected a version after "+string(op))
	case isSpace(p.text[vs]):
		return versions.Clause{}, p.fail(vs, "no space is allowed between an operator and its version")
	}
	v := p.text[vs:end]
	if i := strings.IndexFunc(v, isPySpace); i >= 0 {
		return versions.Clause{}, p.fail(vs+i, "unexpected space in a version")
	}
	cl := versions.Clause{Op: op, Version: v, Start: start, End: end, VersionStart: vs}
	if op == versions.Exact && v != "*" && (strings.Contains(strings.TrimRight(v, "*"), "*") || strings.Contains(v, "@")) {
		cl.Pattern = true
	}
	if msg := checkClause(cl); msg != "" {
		return versions.Clause{}, p.fail(vs, msg)
	}
	return cl, nil
}

// splitWildcard splits a trailing ".*" or "*" off v.
func splitWildcard(v string) (core, wild string) {
	switch {
	case strings.HasSuffix(v, ".*"):
		return v[:len(v)-2], ".*"
	case strings.HasSuffix(v, "*"):
		return v[:len(v)-1], "*"
	}
	return v, ""
}

// prefixCore returns the version a bare prefix match v ("0.47.*", "0.47*")
// compares with, as conda's VersionSpec computes it.
func prefixCore(v string) string {
	if !strings.HasSuffix(v, ".*") {
		v = v[:len(v)-1] + ".*"
	}
	return strings.TrimRight(strings.TrimRight(v, "*"), ".")
}

// globRegexp is conda's translation of a version with "*" inside (1.*.1):
// "." and "+" are escaped, "*" matches anything, the whole string must match.
func globRegexp(v string) (*regexp.Regexp, error) {
	return regexp.Compile(`^(?:` + strings.NewReplacer(".", `\.`, "+", `\+`, "*", ".*").Replace(v) + `)$`)
}

// checkClause validates a clause, returning an error message or "".
func checkClause(cl versions.Clause) string {
	op, v := cl.Op, cl.Version
	if cl.Pattern {
		switch {
		case strings.HasPrefix(v, "^"):
			if _, err := regexp.Compile(v); err != nil {
				return "regular expression does not compile: " + err.Error()
			}
		case strings.Contains(v, "*"):
			if _, err := globRegexp(v); err != nil {
				return "version pattern does not compile: " + err.Error()
			}
		}
		return ""
	}
	if op == versions.Exact {
		if v == "*" {
			return ""
		}
		core := v
		if strings.HasSuffix(v, "*") {
			core = prefixCore(v)
		}
		if _, ok := parseVersion(core); !ok {
			return "invalid conda version " + strconv.Quote(core)
		}
		return ""
	}
	core, wild := splitWildcard(v)
	switch {
	case op == versions.Fuzzy:
		if v == "*" {
			return ""
		}
	case wild != ".*":
		core = v // after an operator a "*" without "." is part of the version
	case op == versions.GE || op == versions.NE:
	case op == versions.EQ:
		return "\".*\" after == is ambiguous in conda (the MatchSpec name==1.2.* is the prefix 1.2.*, the version spec ==1.2.* is ==1.2): write 1.2.* or =1.2"
	case op == versions.Compatible:
		return "\".*\" is not allowed after ~="
	default:
		return "\".*\" is not allowed after " + string(op) + " (conda ignores it there, with a deprecation warning)"
	}
	pv, ok := parseVersion(core)
	if !ok {
		return "invalid conda version " + strconv.Quote(core)
	}
	if op == versions.Compatible {
		if _, ok := compatiblePrefix(pv); !ok {
			return "~= needs a version with at least two components"
		}
	}
	return ""
}

// compatiblePrefix returns the prefix that ~=v requires: v without its last
// "."-separated part, as conda's compatible_release_operator computes it.
func compatiblePrefix(v version) (version, bool) {
	i := strings.LastIndexByte(v.norm, '.')
	if i < 0 {
		return version{}, false
	}
	return parseVersion(v.norm[:i])
}

// Match reports whether v satisfies c: every clause when c has no alternatives,
// else the AND/OR expression of c.Text. Pre-releases are matched by the clauses
// alone (conda has no pre-release rule); callers drop them first unless a
// package opts in. An invalid v matches nothing.
func (Scheme) Match(v string, c versions.Constraint) bool {
	pv, ok := parseVersion(v)
	if !ok {
		return false
	}
	if !c.Or {
		for _, cl := range c.Clauses {
			if !matchClause(v, pv, cl) {
				return false
			}
		}
		return true
	}
	tc, n, err := parse(c.Text)
	if err != nil {
		return false
	}
	return eval(v, pv, n, tc.Clauses)
}

func eval(raw string, v version, n *node, clauses []versions.Clause) bool {
	switch n.op {
	case ',':
		for _, k := range n.kids {
			if !eval(raw, v, k, clauses) {
				return false
			}
		}
		return true
	case '|':
		for _, k := range n.kids {
			if eval(raw, v, k, clauses) {
				return true
			}
		}
		return false
	}
	return matchClause(raw, v, clauses[n.clause])
}

// matchClause reports whether v (raw as written, parsed v) satisfies one
// clause; a clause that does not validate matches nothing. Patterns match the
// version as written, as conda's do.
func matchClause(raw string, v version, cl versions.Clause) bool {
	if checkClause(cl) != "" {
		return false
	}
	if cl.Pattern {
		switch {
		case strings.HasPrefix(cl.Version, "^"):
			re, err := regexp.Compile(cl.Version)
			return err == nil && re.MatchString(raw)
		case strings.Contains(cl.Version, "*"):
			re, err := globRegexp(cl.Version)
			return err == nil && re.MatchString(raw)
		}
		return raw == cl.Version // a version with "@": the string itself
	}
	if cl.Version == "*" && (cl.Op == versions.Exact || cl.Op == versions.Fuzzy) {
		return true
	}
	core, wild := splitWildcard(cl.Version)
	switch {
	case cl.Op == versions.Exact && wild != "":
		core = prefixCore(cl.Version)
	case cl.Op == versions.Fuzzy:
	case wild != ".*":
		core, wild = cl.Version, ""
	}
	w, _ := parseVersion(core)
	r := compare(v, w)
	switch cl.Op {
	case versions.Exact:
		if wild != "" {
			return v.hasPrefix(w)
		}
		return r == 0
	case versions.Fuzzy:
		return v.hasPrefix(w)
	case versions.EQ:
		return r == 0
	case versions.NE:
		if wild != "" {
			return !v.hasPrefix(w)
		}
		return r != 0
	case versions.GE:
		return r >= 0
	case versions.GT:
		return r > 0
	case versions.LE:
		return r <= 0
	case versions.LT:
		return r < 0
	case versions.Compatible:
		prefix, _ := compatiblePrefix(w)
		return r >= 0 && v.hasPrefix(prefix)
	}
	return false
}

// isSpace reports whether b is ASCII white space to Python's str.strip().
func isSpace(b byte) bool { return b == ' ' || b >= '\t' && b <= '\r' || b >= 0x1c && b <= 0x1f }
