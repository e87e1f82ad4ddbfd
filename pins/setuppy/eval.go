package setuppy

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/pinbot-dev/pinbot/internal/pyast"
)

// A kind is what an expression's value is, as far as reading the file
// without running it tells.
type kind uint8

const (
	unknownKind kind = iota // computed at run time: val.why says how
	strKind                 // a string: one of the literals of elems
	listKind                // a list of requirements
	dictKind                // a mapping: extras_require, or setup()'s keyword arguments
)

// A val is the static value of an expression. A value can have
// alternatives: a name assigned in both arms of an if statement, or a
// conditional expression. Alternatives of a list share its indexes.
type val struct {
	kind    kind
	pos     pyast.Pos
	elems   []elem  // strKind: the alternatives, each at index 0; listKind: the elements
	n       int     // listKind: the number of indexes
	entries []entry // dictKind
	why     string  // unknownKind: why the value cannot be known
}

// An elem is one element of a list (or one alternative of a string): a
// string literal, or why it cannot be read.
type elem struct {
	idx int
	lit *pyast.Constant
	bad *bad
}

// A bad is a value that cannot be read statically, where it is written and
// why.
type bad struct {
	pos pyast.Pos
	why string
}

// An entry is one key of a dict, with its value unread: the value is read
// (in scope) only if the key is one pinbot reads.
type entry struct {
	key   string
	bad   *bad // the key cannot be read
	value pyast.Expr
	scope *scope
}

const (
	// maxWork bounds what one file costs: values built and nodes looked at.
	maxWork = 1 << 20
	// maxDepth bounds how deeply values nest, names followed included.
	maxDepth = 200
	// maxBindings bounds how many assignments of one name are compared.
	maxBindings = 16
	// tooLarge is the reason given once work runs out.
	tooLarge = "too large to read statically: the rest of the file's requirements are not read"
)

func (v val) badOf() *bad {
	if v.kind == unknownKind {
		return &bad{pos: v.pos, why: v.why}
	}
	return &bad{pos: v.pos, why: "not a requirement string"}
}

// add appends v to the list out: one element (a string, or what cannot be
// read), or when v is itself a list, each of its elements (setuptools
// flattens nested lists). Copying is work: past the budget, v is one
// element that is too large to read.
func (x *extractor) add(out *val, v val) {
	if !x.tick(len(v.elems)) {
		v = x.unknown(v.pos, tooLarge)
	}
	switch v.kind {
	case strKind:
		for _, e := range v.elems {
			out.elems = append(out.elems, elem{idx: out.n, lit: e.lit, bad: e.bad})
		}
		out.n++
	case listKind:
		for _, e := range v.elems {
			e.idx += out.n
			out.elems = append(out.elems, e)
		}
		out.n += v.n
	case dictKind:
		out.elems = append(out.elems, elem{idx: out.n, bad: &bad{pos: v.pos, why: "a dict, not a requirement"}})
		out.n++
	default:
		out.elems = append(out.elems, elem{idx: out.n, bad: v.badOf()})
		out.n++
	}
}

// addDict adds the entries of v to the dict out.
func (x *extractor) addDict(out *val, v val) {
	if !x.tick(len(v.entries)) {
		v = x.unknown(v.pos, tooLarge)
	}
	switch v.kind {
	case dictKind:
		out.entries = append(out.entries, v.entries...)
	case unknownKind:
		out.entries = append(out.entries, entry{bad: v.badOf()})
	default:
		out.entries = append(out.entries, entry{bad: &bad{pos: v.pos, why: "not a dict"}})
	}
}

// merge returns the value that is one of alts: a list if any is one, else
// a string or a dict; the alternatives that are not are elements (or
// entries) that cannot be read.
func (x *extractor) merge(pos pyast.Pos, alts ...val) val {
	k := unknownKind
	for _, a := range alts {
		if a.kind == listKind || a.kind != unknownKind && k == unknownKind {
			k = a.kind
		}
	}
	if k == unknownKind {
		return alts[0]
	}
	out := val{kind: k, pos: pos}
	for _, a := range alts {
		if !x.tick(len(a.elems)) {
			a = x.unknown(a.pos, tooLarge)
		}
		switch {
		case k == dictKind:
			x.addDict(&out, a)
		case a.kind == strKind || a.kind == listKind:
			out.elems = append(out.elems, a.elems...)
			out.n = max(out.n, a.n)
		default:
			out.elems = append(out.elems, elem{bad: a.badOf()})
			out.n = max(out.n, 1)
		}
	}
	return out
}

func (x *extractor) unknown(pos pyast.Pos, format string, args ...any) val {
	return val{kind: unknownKind, pos: pos, why: fmt.Sprintf(format, args...)}
}

// tick counts n units of work and reports whether the file's budget allows
// them.
func (x *extractor) tick(n int) bool {
	x.work += n
	return x.work <= maxWork
}

// eval returns the static value of e, an expression of scope s.
func (x *extractor) eval(e pyast.Expr, s *scope, depth int) val {
	if !x.tick(1) {
		return x.unknown(e.Pos(), tooLarge)
	}
	if depth > maxDepth {
		return x.unknown(e.Pos(), "nested too deeply to read statically")
	}
	depth++
	switch e := e.(type) {
	case *pyast.Constant:
		switch e.Kind {
		case pyast.ConstStr:
			return val{kind: strKind, pos: e.Pos(), elems: []elem{{lit: e}}, n: 1}
		case pyast.ConstBytes:
			return x.unknown(e.Pos(), "bytes (%s), not a string", x.excerpt(e))
		}
		return x.unknown(e.Pos(), "%s, not a string", x.excerpt(e))
	case *pyast.JoinedStr:
		return x.unknown(e.Pos(), "an f-string, formatted at run time (%s)", x.excerpt(e))
	case *pyast.List:
		return x.list(e.Pos(), e.Elts, s, depth)
	case *pyast.Tuple:
		return x.list(e.Pos(), e.Elts, s, depth)
	case *pyast.Set:
		return x.list(e.Pos(), e.Elts, s, depth)
	case *pyast.Dict:
		return x.dict(e, s, depth)
	case *pyast.Name:
		return x.name(e, s, depth)
	case *pyast.NamedExpr:
		return x.eval(e.Value, s, depth)
	case *pyast.IfExp:
		return x.merge(e.Pos(), x.eval(e.Body, s, depth), x.eval(e.Orelse, s, depth))
	case *pyast.BinOp:
		return x.binOp(e, s, depth)
	case *pyast.Call:
		return x.call(e, s, depth)
	case *pyast.ListComp, *pyast.SetComp, *pyast.GeneratorExp, *pyast.DictComp:
		return x.computed(e, s, "built by a comprehension at run time ("+x.excerpt(e)+")")
	}
	return x.computed(e, s, "computed at run time ("+x.excerpt(e)+")")
}

// list is the value of a list, tuple or set display.
func (x *extractor) list(pos pyast.Pos, elts []pyast.Expr, s *scope, depth int) val {
	out := val{kind: listKind, pos: pos}
	for _, el := range elts {
		if st, ok := el.(*pyast.Starred); ok {
			el = st.Value
		}
		x.add(&out, x.eval(el, s, depth))
	}
	return out
}

// dict is the value of a dict display: its keys, with the values unread.
func (x *extractor) dict(d *pyast.Dict, s *scope, depth int) val {
	out := val{kind: dictKind, pos: d.Pos()}
	for i, k := range d.Keys {
		switch k := k.(type) {
		case nil: // **mapping
			x.addDict(&out, x.eval(d.Values[i], s, depth))
		case *pyast.Constant:
			if k.Kind != pyast.ConstStr {
				continue // not a keyword or an extra's name
			}
			out.entries = append(out.entries, entry{key: k.Value, value: d.Values[i], scope: s})
		default:
			out.entries = append(out.entries, entry{bad: &bad{pos: k.Pos(), why: "a key computed at run time (" + x.excerpt(k) + ")"}})
		}
	}
	return out
}

// A nameKey is a name in the scope that binds it.
type nameKey struct {
	scope *scope
	name  string
}

// lookup returns the scope that binds name as seen from s, as Python looks
// names up (the function, the functions around it, the module), and its
// bindings there; nil when no scope of the file binds it.
func (x *extractor) lookup(name string, s *scope) (*scope, []binding) {
	for ; s != nil; s = s.parent {
		if s.global[name] {
			s = x.module
		}
		if bs := s.binds[name]; len(bs) > 0 {
			return s, bs
		}
	}
	return nil, nil
}

// name is the value of a name: of its assignment, or of each of its
// assignments in exclusive arms of if statements, and what statements add
// to it.
func (x *extractor) name(n *pyast.Name, s *scope, depth int) val {
	where, bs := x.lookup(n.Id, s)
	if where == nil {
		return x.unknown(n.Pos(), "%s is not assigned in this file", n.Id)
	}
	key := nameKey{where, n.Id}
	if v, ok := x.names[key]; ok {
		if !x.tick(len(v.elems) + len(v.entries)) {
			return x.unknown(n.Pos(), tooLarge)
		}
		return v
	}
	if x.busy[key] {
		return x.unknown(n.Pos(), "%s refers to itself", n.Id)
	}
	x.busy[key] = true
	v := x.resolve(n, where, bs, depth)
	delete(x.busy, key)
	x.names[key] = v
	return v
}

func (x *extractor) resolve(n *pyast.Name, where *scope, bs []binding, depth int) val {
	if len(bs) > maxBindings {
		return x.unknown(n.Pos(), "%s is assigned %d times: which value setup() gets is decided at run time", n.Id, len(bs))
	}
	for i := range bs {
		for j := i + 1; j < len(bs); j++ {
			if !exclusive(bs[i].path, bs[j].path) {
				return x.unknown(n.Pos(), "%s is assigned more than once (lines %d and %d): which value setup() gets is decided at run time", n.Id, bs[i].line, bs[j].line)
			}
		}
	}
	alts := make([]val, 0, len(bs))
	for _, b := range bs {
		if b.value == nil {
			alts = append(alts, x.unknown(n.Pos(), "%s is %s (line %d)", n.Id, b.how, b.line))
			continue
		}
		alts = append(alts, x.eval(b.value, where, depth))
	}
	return x.mutated(x.merge(n.Pos(), alts...), n, where, depth)
}

// isListOp reports whether a mutation adds to a list.
func isListOp(op string) bool {
	return op == "append" || op == "insert" || op == "extend" || op == "+="
}

// mutated returns v, the value assigned to n in scope where, with what the
// scope's statements add to it: elements appended, extended or inserted,
// keys set or updated.
func (x *extractor) mutated(v val, n *pyast.Name, where *scope, depth int) val {
	ms := where.muts[n.Id]
	if len(ms) == 0 {
		return v
	}
	if v.kind == strKind {
		for _, m := range ms {
			if m.op == "+=" {
				return x.unknown(n.Pos(), "%s is changed by += (line %d)", n.Id, m.line)
			}
		}
		return v
	}
	if v.kind == unknownKind {
		// Computed, yet what is added to it is written out: read that. The
		// first statement that adds to it says whether it is a list.
		if isListOp(ms[0].op) {
			v = val{kind: listKind, pos: v.pos, elems: []elem{{bad: v.badOf()}}, n: 1}
		} else {
			v = val{kind: dictKind, pos: v.pos, entries: []entry{{bad: v.badOf()}}}
		}
	}
	if !x.tick(len(v.elems) + len(v.entries)) {
		return x.unknown(n.Pos(), tooLarge)
	}
	out := v
	out.elems, out.entries = append([]elem(nil), v.elems...), append([]entry(nil), v.entries...)
	for _, m := range ms {
		switch {
		case out.kind == listKind && isListOp(m.op):
			x.add(&out, x.eval(m.value, where, depth))
		case out.kind == dictKind && m.op == "[]" && x.gathers(m.value, n.Id):
			// EXTRAS["all"] = sum(EXTRAS.values(), []): the other extras'
			// requirements, read where they are written; no pin itself.
		case out.kind == dictKind && m.op == "[]":
			if k, ok := m.key.(*pyast.Constant); ok && k.Kind == pyast.ConstStr {
				out.entries = append(out.entries, entry{key: k.Value, value: m.value, scope: where})
			} else {
				out.entries = append(out.entries, entry{bad: &bad{pos: m.key.Pos(), why: "a key computed at run time (" + x.excerpt(m.key) + ")"}})
			}
		case out.kind == dictKind && m.op == "update":
			if m.value != nil {
				x.addDict(&out, x.eval(m.value, where, depth))
			}
			for _, kw := range m.kw {
				if kw.Arg == "" {
					x.addDict(&out, x.eval(kw.Value, where, depth))
				} else {
					out.entries = append(out.entries, entry{key: kw.Arg, value: kw.Value, scope: where})
				}
			}
		}
	}
	return out
}

// gathers reports whether e is built from the dict name's own values and
// adds no requirement of its own: it refers to name, and holds no list,
// tuple or set with a string in it.
func (x *extractor) gathers(e pyast.Expr, name string) bool {
	refers, adds := false, false
	pyast.Inspect(e, func(n pyast.Node) bool {
		if adds || !x.tick(1) {
			adds = true
			return false
		}
		var elts []pyast.Expr
		switch n := n.(type) {
		case *pyast.Name:
			refers = refers || n.Id == name
		case *pyast.List:
			elts = n.Elts
		case *pyast.Tuple:
			elts = n.Elts
		case *pyast.Set:
			elts = n.Elts
		}
		for _, el := range elts {
			if c, ok := el.(*pyast.Constant); ok && c.Kind == pyast.ConstStr {
				adds = true
			}
		}
		return true
	})
	return refers && !adds
}

// binOp is the value of a binary operation: the concatenation of lists,
// the union of dicts; a string built from parts is computed.
func (x *extractor) binOp(e *pyast.BinOp, s *scope, depth int) val {
	switch e.Op {
	case pyast.Add:
		l, r := x.eval(e.Left, s, depth), x.eval(e.Right, s, depth)
		switch {
		case l.kind == strKind || r.kind == strKind:
			return x.computed(e, s, "built at run time by string concatenation ("+x.excerpt(e)+")")
		case l.kind == listKind || r.kind == listKind:
			out := val{kind: listKind, pos: e.Pos()}
			x.add(&out, l)
			x.add(&out, r)
			return out
		case l.kind == unknownKind:
			return l
		}
	case pyast.BitOr:
		l, r := x.eval(e.Left, s, depth), x.eval(e.Right, s, depth)
		if l.kind == dictKind || r.kind == dictKind {
			out := val{kind: dictKind, pos: e.Pos()}
			x.addDict(&out, l)
			x.addDict(&out, r)
			return out
		}
	case pyast.Mod:
		if l := x.eval(e.Left, s, depth); l.kind == strKind {
			return x.computed(e, s, "formatted at run time by % ("+x.excerpt(e)+")")
		}
	}
	return x.computed(e, s, "computed at run time ("+x.excerpt(e)+")")
}

// call is the value of a call: dict(...) is a dict and list(x) or tuple(x)
// of a list is that list; any other call is computed at run time.
func (x *extractor) call(e *pyast.Call, s *scope, depth int) val {
	name := dotted(e.Func)
	switch {
	case name == "dict" && len(e.Args) <= 1:
		out := val{kind: dictKind, pos: e.Pos()}
		if len(e.Args) == 1 {
			x.addDict(&out, x.eval(e.Args[0], s, depth))
		}
		for _, kw := range e.Keywords {
			if kw.Arg == "" {
				x.addDict(&out, x.eval(kw.Value, s, depth))
				continue
			}
			out.entries = append(out.entries, entry{key: kw.Arg, value: kw.Value, scope: s})
		}
		return out
	case (name == "list" || name == "tuple") && len(e.Args) == 1 && len(e.Keywords) == 0:
		if v := x.eval(e.Args[0], s, depth); v.kind == listKind {
			return v
		}
	}
	if a, ok := e.Func.(*pyast.Attribute); ok && a.Attr == "format" {
		return x.computed(e, s, "formatted at run time by str.format ("+x.excerpt(e)+")")
	}
	return x.computed(e, s, "computed at run time by a call ("+x.excerpt(e)+")")
}

// computed is the value of e, computed at run time as what says. An
// expression that reads a file says so instead: its requirements are in
// that file, which discovery reads when it is a pin file.
func (x *extractor) computed(e pyast.Expr, s *scope, what string) val {
	if file, ok := x.readsFile(e, s, 0); ok {
		if file != "" {
			return x.unknown(e.Pos(), "read from another file at run time (%s)", file)
		}
		return x.unknown(e.Pos(), "read from another file at run time")
	}
	return x.unknown(e.Pos(), "%s", what)
}

// fileMethods are the methods that read a file: io's and pathlib's.
var fileMethods = map[string]bool{"open": true, "read": true, "readlines": true, "read_text": true, "read_bytes": true}

// readsFile reports whether evaluating n reads a file: it calls open, a
// method that reads, or a function of this file that does; file is the
// file's name when it is written out.
func (x *extractor) readsFile(n pyast.Node, s *scope, depth int) (file string, ok bool) {
	pyast.Inspect(n, func(n pyast.Node) bool {
		if ok || !x.tick(1) {
			return false
		}
		c, isCall := n.(*pyast.Call)
		if !isCall {
			return true
		}
		switch f := c.Func.(type) {
		case *pyast.Name:
			if f.Id == "open" || x.defReadsFile(f.Id, depth) {
				file, ok = x.fileName(c.Args[:min(len(c.Args), 1)]), true
			}
		case *pyast.Attribute:
			if fileMethods[f.Attr] {
				ok = true
				switch inner, isCall := f.Value.(*pyast.Call); {
				case f.Attr == "open": // io.open("r.txt"), codecs.open(...)
					file = x.fileName(c.Args[:min(len(c.Args), 1)])
				case isCall && dotted(inner.Func) == "open":
					file = x.fileName(inner.Args[:min(len(inner.Args), 1)]) // open("r.txt").read()
				case isCall:
					file = x.fileName(inner.Args) // Path("requirements", "gpu.txt").read_text()
				default:
					file = x.withFile(f.Value, s) // with open("r.txt") as fh: ... fh.read()
				}
			}
		}
		return !ok
	})
	return file, ok
}

// withFile returns the file that e, a name bound by with open(...) as
// name, is: the open call's file name, when it is written out.
func (x *extractor) withFile(e pyast.Expr, s *scope) string {
	n, ok := e.(*pyast.Name)
	if !ok {
		return ""
	}
	_, bs := x.lookup(n.Id, s)
	if len(bs) != 1 {
		return ""
	}
	if c, ok := bs[0].with.(*pyast.Call); ok && dotted(c.Func) == "open" {
		return x.fileName(c.Args[:min(len(c.Args), 1)])
	}
	return ""
}

// defReadsFile reports whether name is a function of the module that reads
// a file.
func (x *extractor) defReadsFile(name string, depth int) bool {
	bs := x.module.binds[name]
	if len(bs) != 1 || bs[0].def == nil || depth > 3 {
		return false
	}
	def := bs[0].def
	if r, ok := x.reads[def]; ok {
		return r
	}
	x.reads[def] = false // while it is looked at: a recursive function
	_, r := x.readsFile(def, x.module, depth+1)
	x.reads[def] = r
	return r
}

// fileName returns the name of the file a call reads, from the string
// literals of the arguments that name it: "requirements/base.txt" of
// open(os.path.join(here, "requirements", "base.txt")).
func (x *extractor) fileName(args []pyast.Expr) string {
	var parts []string
	for _, a := range args {
		pyast.Inspect(a, func(n pyast.Node) bool {
			if c, ok := n.(*pyast.Constant); ok && c.Kind == pyast.ConstStr && c.Value != "" {
				parts = append(parts, c.Value)
			}
			return len(parts) < 8 && x.tick(1)
		})
	}
	return clip(strings.Join(parts, "/"), 80)
}

// dotted returns the dotted name an expression is ("setuptools.setup"), or
// "" for any other expression.
func dotted(e pyast.Expr) string {
	switch e := e.(type) {
	case *pyast.Name:
		return e.Id
	case *pyast.Attribute:
		if v := dotted(e.Value); v != "" {
			return v + "." + e.Attr
		}
	}
	return ""
}

// excerpt returns the source of n on one line, cut to 40 bytes: what a
// reason quotes of the expression it is about.
func (x *extractor) excerpt(n pyast.Node) string {
	start, end := int(n.Pos()), int(n.End())
	if start < 0 || end > len(x.data) || start > end {
		return ""
	}
	end = min(end, start+200) // enough for 40 bytes once spaces are collapsed
	return clip(strings.Join(strings.Fields(string(x.data[start:end])), " "), 40)
}

// clip cuts s to at most n bytes, at a character boundary, marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}
