package probe

import (
	"slices"
	"strings"
)

// canonAnnotation is an annotation in one spelling, so that spellings of the same
// type compare equal: Optional[X], Union[X, None], X | None and "X | None" (a
// string annotation, as under from __future__ import annotations) are all
// "X | None"; qualified names are bare (typing.Optional, np.ndarray →
// ndarray); typing's aliases of builtins are the builtins (List[int] →
// list[int]); union members are sorted. Text it cannot parse is compared with
// its whitespace squashed.
func canonAnnotation(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return ""
	}
	p := &annParser{toks: annTokens(s)}
	if p.toks == nil {
		return squash(s)
	}
	n := p.union()
	if n == nil || p.i != len(p.toks) {
		return squash(s)
	}
	return n.canon()
}

// typingAliases maps typing's names to the builtin or collections type they
// stand for.
var typingAliases = map[string]string{
	"List": "list", "Dict": "dict", "Set": "set", "FrozenSet": "frozenset", "Tuple": "tuple",
	"Type": "type", "Text": "str", "Deque": "deque", "DefaultDict": "defaultdict",
	"NoneType": "None",
}

type annTok struct {
	kind byte // 'n' name, 's' string, 'v' other value (number, ...), or the punctuation itself
	text string
}

// annTokens splits an annotation into tokens, or returns nil for text it does not
// know.
func annTokens(s string) []annTok {
	var out []annTok
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			i++
		case strings.IndexByte("[](),|.", c) >= 0:
			if c == '.' && strings.HasPrefix(s[i:], "...") {
				out = append(out, annTok{'v', "..."})
				i += 3
				continue
			}
			out = append(out, annTok{c, string(c)})
			i++
		case c == '"' || c == '\'':
			q := string(c)
			if strings.HasPrefix(s[i:], strings.Repeat(q, 3)) {
				q = strings.Repeat(q, 3)
			}
			j := strings.Index(s[i+len(q):], q)
			if j < 0 || strings.Contains(s[i+len(q):i+len(q)+j], "\\") {
				return nil
			}
			out = append(out, annTok{'s', s[i+len(q) : i+len(q)+j]})
			i += len(q) + j + len(q)
		case isIdentByte(c) || c == '-':
			j := i + 1
			for j < len(s) && isIdentByte(s[j]) {
				j++
			}
			word := s[i:j]
			kind := byte('n')
			if c == '-' || c >= '0' && c <= '9' {
				kind = 'v'
			}
			out = append(out, annTok{kind, word})
			i = j
		default:
			return nil
		}
	}
	return out
}

// annNode is a parsed annotation.
type annNode struct {
	name    string     // a (bare) name, or a value
	literal bool       // a string or number used as a value (Literal["a"])
	args    []*annNode // a subscript's arguments
	sub     bool       // name[args]
	list    bool       // [args] (Callable's parameters)
	union   []*annNode // a | b
}

type annParser struct {
	toks []annTok
	i    int
}

func (p *annParser) peek() byte {
	if p.i < len(p.toks) {
		return p.toks[p.i].kind
	}
	return 0
}

func (p *annParser) union() *annNode {
	first := p.postfix()
	if first == nil {
		return nil
	}
	if p.peek() != '|' {
		return first
	}
	u := &annNode{union: []*annNode{first}}
	for p.peek() == '|' {
		p.i++
		n := p.postfix()
		if n == nil {
			return nil
		}
		u.union = append(u.union, n)
	}
	return u
}

func (p *annParser) list(end byte) []*annNode {
	var out []*annNode
	for p.peek() != end {
		n := p.union()
		if n == nil {
			return nil
		}
		out = append(out, n)
		if p.peek() == ',' {
			p.i++
			continue
		}
		if p.peek() != end {
			return nil
		}
	}
	p.i++
	if out == nil {
		out = []*annNode{}
	}
	return out
}

func (p *annParser) postfix() *annNode {
	var n *annNode
	switch p.peek() {
	case 'n':
		name := p.toks[p.i].text
		p.i++
		for p.peek() == '.' && p.i+1 < len(p.toks) && p.toks[p.i+1].kind == 'n' {
			name = p.toks[p.i+1].text // qualified and bare names are one name
			p.i += 2
		}
		n = &annNode{name: name}
	case 's':
		text := p.toks[p.i].text
		p.i++
		inner := &annParser{toks: annTokens(text)}
		if inner.toks != nil {
			if in := inner.union(); in != nil && inner.i == len(inner.toks) {
				n = in
				break
			}
		}
		n = &annNode{name: squash(text), literal: true}
	case 'v':
		n = &annNode{name: p.toks[p.i].text, literal: true}
		p.i++
	case '[':
		p.i++
		args := p.list(']')
		if args == nil {
			return nil
		}
		n = &annNode{list: true, args: args}
	case '(':
		p.i++
		args := p.list(')')
		if args == nil {
			return nil
		}
		if len(args) == 1 {
			n = args[0]
		} else {
			n = &annNode{name: "tuple", sub: true, args: args}
		}
	default:
		return nil
	}
	for {
		switch p.peek() {
		case '[':
			p.i++
			args := p.list(']')
			if args == nil {
				return nil
			}
			n = &annNode{name: n.canon(), sub: true, args: args}
		case '(':
			// type(None) is None; other calls are kept as text.
			p.i++
			args := p.list(')')
			if args == nil {
				return nil
			}
			if n.name == "type" && !n.sub && len(args) == 1 && args[0].name == "None" {
				n = &annNode{name: "None"}
				continue
			}
			n = &annNode{name: n.canon() + "(" + joinCanon(args) + ")"}
		default:
			return n
		}
	}
}

func joinCanon(ns []*annNode) string {
	parts := make([]string, len(ns))
	for i, n := range ns {
		parts[i] = n.canon()
	}
	return strings.Join(parts, ", ")
}

// canon prints the node in the canonical spelling.
func (n *annNode) canon() string {
	switch {
	case n.union != nil:
		return canonUnion(n.union)
	case n.list:
		return "[" + joinCanon(n.args) + "]"
	case n.sub:
		switch n.name {
		case "Optional":
			if len(n.args) == 1 {
				return canonUnion([]*annNode{n.args[0], {name: "None"}})
			}
		case "Union":
			return canonUnion(n.args)
		case "Literal":
			vals := make([]string, len(n.args))
			for i, a := range n.args {
				vals[i] = a.literalText()
			}
			return "Literal[" + strings.Join(vals, ", ") + "]"
		}
		return n.name + "[" + joinCanon(n.args) + "]"
	case n.literal:
		return n.name
	}
	if a, ok := typingAliases[n.name]; ok {
		return a
	}
	return n.name
}

// literalText is a Literal[...] argument as a value: strings keep their quotes.
func (n *annNode) literalText() string {
	if n.literal || n.union != nil || n.sub || n.list {
		return n.canon()
	}
	return n.name
}

func canonUnion(members []*annNode) string {
	var parts []string
	var add func(ns []*annNode)
	add = func(ns []*annNode) {
		for _, m := range ns {
			switch {
			case m.union != nil:
				add(m.union)
			case m.sub && m.name == "Union":
				add(m.args)
			case m.sub && m.name == "Optional" && len(m.args) == 1:
				add([]*annNode{m.args[0], {name: "None"}})
			default:
				if c := m.canon(); !slices.Contains(parts, c) {
					parts = append(parts, c)
				}
			}
		}
	}
	add(members)
	slices.Sort(parts)
	return strings.Join(parts, " | ")
}
