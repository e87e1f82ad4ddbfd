package pep508

import (
	"fmt"
	"strings"
)

// A Marker is a parsed environment marker, the part of a requirement after
// ";" (`python_version < "3.13" and extra == "cuda"`), PEP 508's grammar:
// comparisons of marker variables and quoted strings joined by "and" and
// "or", with parentheses.
type Marker struct {
	root *markerNode
}

// A Truth is the value of a marker in an environment that is only partly
// known: a comparison of a variable the environment does not give is
// Unknown, and "and"/"or" follow Kleene's three-valued logic (False and
// Unknown is False, True or Unknown is True).
type Truth int

// The values of a Truth.
const (
	False Truth = iota
	True
	Unknown
)

// String returns "false", "true" or "unknown".
func (t Truth) String() string {
	return [...]string{"false", "true", "unknown"}[t]
}

// An Env is what is known of the environment a marker is evaluated in.
type Env struct {
	// Values gives marker variables their values ("python_version": "3.12",
	// "extra": ""); a variable not in Values is unknown.
	Values map[string]string
	// Version compares have (the left side) with spec by a version
	// operator, as packaging does (Specifier(op+spec).contains(have)); ok is
	// false when either side is not a version, and the comparison is then
	// made on the strings (== and !=) or is Unknown (the others). Nil
	// compares every operand as a string.
	Version func(have, op, spec string) (result, ok bool)
}

// markerVariables are PEP 508's environment marker variables (and the
// legacy dotted spellings packaging still reads).
var markerVariables = map[string]string{
	"python_version": "", "python_full_version": "", "os_name": "", "sys_platform": "",
	"platform_release": "", "platform_system": "", "platform_version": "", "platform_machine": "",
	"platform_python_implementation": "", "implementation_name": "", "implementation_version": "",
	"extra": "", "extras": "", "dependency_groups": "",
	"os.name": "os_name", "sys.platform": "sys_platform", "platform.version": "platform_version",
	"platform.machine": "platform_machine", "platform.python_implementation": "platform_python_implementation",
	"python_implementation": "platform_python_implementation",
}

// maxMarkerDepth bounds nesting: real markers nest two or three deep.
const maxMarkerDepth = 32

// maxMarkerLen bounds a marker's text: real ones are under a few hundred
// bytes.
const maxMarkerLen = 4096

type markerNode struct {
	op          string // "and", "or", or a comparison operator
	left, right *markerNode
	// For a comparison: each side is a variable (isVar) or a string.
	lhs, rhs       string
	lhsVar, rhsVar bool
}

// ParseMarker parses an environment marker. An unknown variable, an
// unterminated string or an operator PEP 508 does not have is an error.
func ParseMarker(s string) (Marker, error) {
	if len(s) > maxMarkerLen {
		return Marker{}, &Error{Input: s[:64] + "…", Offset: 0, Msg: fmt.Sprintf("marker longer than %d bytes", maxMarkerLen)}
	}
	p := &markerParser{s: s}
	n, err := p.or(0)
	if err != nil {
		return Marker{}, err
	}
	p.space()
	if p.pos != len(s) {
		return Marker{}, p.fail("unexpected %q", s[p.pos:min(len(s), p.pos+12)])
	}
	return Marker{root: n}, nil
}

type markerParser struct {
	s   string
	pos int
}

func (p *markerParser) fail(format string, args ...any) error {
	return &Error{Input: p.s, Offset: p.pos, Msg: fmt.Sprintf(format, args...)}
}

func (p *markerParser) space() {
	for p.pos < len(p.s) && (p.s[p.pos] == ' ' || p.s[p.pos] == '\t') {
		p.pos++
	}
}

// keyword consumes word when it is next and stands alone.
func (p *markerParser) keyword(word string) bool {
	p.space()
	end := p.pos + len(word)
	if end > len(p.s) || p.s[p.pos:end] != word {
		return false
	}
	if end < len(p.s) && isNameChar(p.s[end]) {
		return false
	}
	p.pos = end
	return true
}

func (p *markerParser) or(depth int) (*markerNode, error) {
	left, err := p.and(depth)
	if err != nil {
		return nil, err
	}
	for p.keyword("or") {
		right, err := p.and(depth)
		if err != nil {
			return nil, err
		}
		left = &markerNode{op: "or", left: left, right: right}
	}
	return left, nil
}

func (p *markerParser) and(depth int) (*markerNode, error) {
	left, err := p.expr(depth)
	if err != nil {
		return nil, err
	}
	for p.keyword("and") {
		right, err := p.expr(depth)
		if err != nil {
			return nil, err
		}
		left = &markerNode{op: "and", left: left, right: right}
	}
	return left, nil
}

func (p *markerParser) expr(depth int) (*markerNode, error) {
	p.space()
	if p.pos < len(p.s) && p.s[p.pos] == '(' {
		if depth >= maxMarkerDepth {
			return nil, p.fail("nested too deeply")
		}
		p.pos++
		n, err := p.or(depth + 1)
		if err != nil {
			return nil, err
		}
		p.space()
		if p.pos >= len(p.s) || p.s[p.pos] != ')' {
			return nil, p.fail("expected ')'")
		}
		p.pos++
		return n, nil
	}
	lhs, lhsVar, err := p.operand()
	if err != nil {
		return nil, err
	}
	op, err := p.operator()
	if err != nil {
		return nil, err
	}
	rhs, rhsVar, err := p.operand()
	if err != nil {
		return nil, err
	}
	return &markerNode{op: op, lhs: lhs, rhs: rhs, lhsVar: lhsVar, rhsVar: rhsVar}, nil
}

// operand reads a quoted string or a marker variable (returned by its
// PEP 508 name).
func (p *markerParser) operand() (string, bool, error) {
	p.space()
	if p.pos >= len(p.s) {
		return "", false, p.fail("expected a marker variable or a quoted string")
	}
	if q := p.s[p.pos]; q == '"' || q == '\'' {
		end := strings.IndexByte(p.s[p.pos+1:], q)
		if end < 0 {
			return "", false, p.fail("unterminated string")
		}
		v := p.s[p.pos+1 : p.pos+1+end]
		p.pos += end + 2
		return v, false, nil
	}
	start := p.pos
	for p.pos < len(p.s) && (isNameChar(p.s[p.pos])) {
		p.pos++
	}
	name := p.s[start:p.pos]
	canonical, ok := markerVariables[name]
	if !ok {
		p.pos = start
		if name == "" {
			return "", false, p.fail("expected a marker variable or a quoted string")
		}
		return "", false, p.fail("unknown marker variable %q", name)
	}
	if canonical == "" {
		canonical = name
	}
	return canonical, true, nil
}

// markerOps are the comparison operators, longest first.
var markerOps = []string{"===", "==", "!=", "<=", ">=", "~=", "<", ">"}

func (p *markerParser) operator() (string, error) {
	p.space()
	for _, op := range markerOps {
		if strings.HasPrefix(p.s[p.pos:], op) {
			p.pos += len(op)
			return op, nil
		}
	}
	if p.keyword("in") {
		return "in", nil
	}
	save := p.pos
	if p.keyword("not") && p.keyword("in") {
		return "not in", nil
	}
	p.pos = save
	return "", p.fail("expected a comparison operator")
}

// Eval returns the marker's value in env. The zero Marker (no marker) is
// True.
func (m Marker) Eval(env Env) Truth {
	if m.root == nil {
		return True
	}
	return m.root.eval(env)
}

// Variables returns the marker variables the marker reads, each once.
func (m Marker) Variables() []string {
	var out []string
	var walk func(n *markerNode)
	walk = func(n *markerNode) {
		if n == nil {
			return
		}
		for _, side := range []struct {
			v     string
			isVar bool
		}{{n.lhs, n.lhsVar}, {n.rhs, n.rhsVar}} {
			if side.isVar && !contains(out, side.v) {
				out = append(out, side.v)
			}
		}
		walk(n.left)
		walk(n.right)
	}
	walk(m.root)
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func (n *markerNode) eval(env Env) Truth {
	switch n.op {
	case "and":
		l := n.left.eval(env)
		if l == False {
			return False
		}
		r := n.right.eval(env)
		switch {
		case r == False:
			return False
		case l == True && r == True:
			return True
		}
		return Unknown
	case "or":
		l := n.left.eval(env)
		if l == True {
			return True
		}
		r := n.right.eval(env)
		switch {
		case r == True:
			return True
		case l == False && r == False:
			return False
		}
		return Unknown
	}
	lhs, ok1 := side(env, n.lhs, n.lhsVar)
	rhs, ok2 := side(env, n.rhs, n.rhsVar)
	if !ok1 || !ok2 {
		return Unknown
	}
	return compare(env, lhs, n.op, rhs)
}

func side(env Env, v string, isVar bool) (string, bool) {
	if !isVar {
		return v, true
	}
	val, ok := env.Values[v]
	return val, ok
}

// compare applies op as packaging does: by version when both sides are
// versions (and op is a version operator), else on the strings.
func compare(env Env, lhs, op, rhs string) Truth {
	switch op {
	case "in":
		return truth(strings.Contains(rhs, lhs))
	case "not in":
		return truth(!strings.Contains(rhs, lhs))
	}
	if env.Version != nil {
		if r, ok := env.Version(lhs, op, rhs); ok {
			return truth(r)
		}
	}
	switch op {
	case "==", "===":
		return truth(lhs == rhs)
	case "!=":
		return truth(lhs != rhs)
	}
	return Unknown // an ordering of strings that are not versions
}

func truth(b bool) Truth {
	if b {
		return True
	}
	return False
}
