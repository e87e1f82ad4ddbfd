package usage

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/pinbot-dev/pinbot/internal/pyast"
)

// A role is what the code around an expression does with its value.
type role uint8

const (
	load      role = iota
	callee         // it is called: item.call is the call
	decorator      // it decorates a def or class: called with one argument
)

// An item is one expression still to walk, with its role, scope and guard.
type item struct {
	e    pyast.Expr
	role role
	call *pyast.Call
	sc   *scope
	g    *guard
}

// expr walks the expression e, recording the references in it. It keeps
// its own work list, so that a deep expression (a sum of a million terms,
// a chain of a million calls) costs no Go stack.
func (w *walker) expr(e pyast.Expr, sc *scope, g *guard) {
	w.push(e, load, nil, sc, g)
	w.run()
}

// decorator walks a decorator: a name or chain is called with the
// decorated function.
func (w *walker) decorator(e pyast.Expr, sc *scope, g *guard) {
	w.push(e, decorator, nil, sc, g)
	w.run()
}

func (w *walker) push(e pyast.Expr, r role, call *pyast.Call, sc *scope, g *guard) {
	if e != nil {
		w.stack = append(w.stack, item{e: e, role: r, call: call, sc: sc, g: g})
	}
}

func (w *walker) pushAll(es []pyast.Expr, sc *scope, g *guard) {
	for _, e := range es {
		w.push(e, load, nil, sc, g)
	}
}

func (w *walker) run() {
	for len(w.stack) > 0 && !w.full {
		it := w.stack[len(w.stack)-1]
		w.stack = w.stack[:len(w.stack)-1]
		w.visit(it)
	}
	w.stack = w.stack[:0]
}

// visit walks one expression, pushing the parts still to walk.
func (w *walker) visit(it item) {
	sc, g := it.sc, it.g
	switch e := it.e.(type) {
	case *pyast.Name:
		if e.Ctx == pyast.Load && it.role != load {
			w.nameCall(e, it)
		}
	case *pyast.Attribute:
		w.attribute(e, it)
	case *pyast.Call:
		w.call(e, it)
	case *pyast.Subscript:
		w.push(e.Value, load, nil, sc, g)
		w.push(e.Slice, load, nil, sc, g)
	case *pyast.Starred:
		w.push(e.Value, load, nil, sc, g)
	case *pyast.BinOp:
		w.push(e.Left, load, nil, sc, g)
		w.push(e.Right, load, nil, sc, g)
	case *pyast.UnaryOp:
		w.push(e.Operand, load, nil, sc, g)
	case *pyast.BoolOp:
		// In `hasattr(np, "x") and np.x()`, what follows a test runs only
		// when it passed (or, for or, failed).
		inner := g
		for i, v := range e.Values {
			w.push(v, load, nil, sc, inner)
			if i < len(e.Values)-1 {
				inner = inner.tested(w.tests(v, sc))
			}
		}
	case *pyast.Compare:
		w.push(e.Left, load, nil, sc, g)
		w.pushAll(e.Comparators, sc, g)
	case *pyast.IfExp:
		w.push(e.Test, load, nil, sc, g)
		inner := g.tested(w.tests(e.Test, sc))
		w.push(e.Body, load, nil, sc, inner)
		w.push(e.Orelse, load, nil, sc, inner)
	case *pyast.NamedExpr:
		w.push(e.Value, load, nil, sc, g)
		target := sc // := binds outside the comprehensions it is in
		for target.comp {
			target = target.parent
		}
		target.set(e.Target.Id, w.targetsOf(e.Value, sc, 0))
	case *pyast.Lambda:
		if e.Args != nil {
			w.pushAll(e.Args.Defaults, sc, g)
			for _, d := range e.Args.KwDefaults {
				w.push(d, load, nil, sc, g)
			}
		}
		w.deferred = append(w.deferred, deferred{lambda: e, parent: sc, g: g.tests()})
	case *pyast.ListComp:
		w.comprehension(e.Generators, []pyast.Expr{e.Elt}, sc, g)
	case *pyast.SetComp:
		w.comprehension(e.Generators, []pyast.Expr{e.Elt}, sc, g)
	case *pyast.GeneratorExp:
		w.comprehension(e.Generators, []pyast.Expr{e.Elt}, sc, g)
	case *pyast.DictComp:
		w.comprehension(e.Generators, []pyast.Expr{e.Key, e.Value}, sc, g)
	case *pyast.Tuple:
		w.pushAll(e.Elts, sc, g)
	case *pyast.List:
		w.pushAll(e.Elts, sc, g)
	case *pyast.Set:
		w.pushAll(e.Elts, sc, g)
	case *pyast.Dict:
		for i, v := range e.Values {
			w.push(e.Keys[i], load, nil, sc, g)
			w.push(v, load, nil, sc, g)
		}
	case *pyast.JoinedStr:
		w.pushAll(e.Values, sc, g)
	case *pyast.FormattedValue:
		w.push(e.Value, load, nil, sc, g)
		if e.FormatSpec != nil {
			w.push(e.FormatSpec, load, nil, sc, g)
		}
	case *pyast.Await:
		w.push(e.Value, load, nil, sc, g)
	case *pyast.Yield:
		w.push(e.Value, load, nil, sc, g)
	case *pyast.YieldFrom:
		w.push(e.Value, load, nil, sc, g)
	case *pyast.Slice:
		w.push(e.Lower, load, nil, sc, g)
		w.push(e.Upper, load, nil, sc, g)
		w.push(e.Step, load, nil, sc, g)
	}
}

// comprehension walks a comprehension in a scope of its own: its first
// iterable is evaluated outside, the rest inside, where its targets are
// bound.
func (w *walker) comprehension(gens []*pyast.Comprehension, elts []pyast.Expr, sc *scope, g *guard) {
	inner := newScope(functionScope, sc)
	inner.comp = true
	for i, c := range gens {
		if i == 0 {
			w.push(c.Iter, load, nil, sc, g)
		} else {
			w.push(c.Iter, load, nil, inner, g)
		}
		w.unbind(c.Target, inner)
		w.push(c.Target, load, nil, inner, g)
		w.pushAll(c.Ifs, inner, g)
	}
	w.pushAll(elts, inner, g)
}

// chainOf sets w.chain to the attributes of the chain whose last
// attribute is top, from the root outward, and returns the chain's root:
// for a.b.c, [b c] and a.
func (w *walker) chainOf(top *pyast.Attribute) pyast.Expr {
	w.chain = w.chain[:0]
	var e pyast.Expr = top
	for {
		a, ok := e.(*pyast.Attribute)
		if !ok {
			break
		}
		w.chain = append(w.chain, a)
		e = a.Value
	}
	for i, j := 0, len(w.chain)-1; i < j; i, j = i+1, j-1 {
		w.chain[i], w.chain[j] = w.chain[j], w.chain[i]
	}
	return e
}

// dotted returns the attributes of the chain, joined: "b.c".
func (w *walker) dotted(chain []*pyast.Attribute) string {
	var b strings.Builder
	for i, a := range chain {
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(a.Attr)
	}
	return b.String()
}

// attribute walks the chain whose last attribute is top: a.b.c is one
// reference, a.b.c, when a stands for a package's name; self.x one in a
// subclass; ctx.x one of an instance. What is not a name at the chain's
// root (a call, a subscript) is walked on its own.
func (w *walker) attribute(top *pyast.Attribute, it item) {
	if cut := metadataCut(top); cut != nil && cut != top {
		w.push(cut, load, nil, it.sc, it.g) // numba.__version__.split(".") reads numba.__version__
		return
	}
	root := w.chainOf(top)
	first := w.chain[0]
	switch r := root.(type) {
	case *pyast.Name:
		w.nameChain(r, first, top, it)
	case *pyast.Call:
		if w.superChain(r, first, top, it) {
			return
		}
		w.instanceOfCall(r, first, top, it)
		w.push(r, load, nil, it.sc, it.g)
	default:
		w.push(root, load, nil, it.sc, it.g)
	}
}

// metadataAttrs are the attributes that hold a module's (or any object's)
// metadata, values of builtin types (a str, a list, a ModuleSpec): what is
// read through them (numba.__version__.split, numba.__file__.rsplit) is
// not the package's API. The finder decides it here, once: a chain stops
// at them (the reference is numba.__version__, read), and a name bound to
// one stands for nothing followed.
var metadataAttrs = map[string]bool{
	"__version__": true, "__version_info__": true, "__file__": true, "__name__": true, "__qualname__": true,
	"__module__": true, "__path__": true, "__doc__": true, "__spec__": true, "__all__": true,
	"__loader__": true, "__package__": true, "__cached__": true, "__dict__": true, "__builtins__": true,
	"__author__": true, "__license__": true, "__copyright__": true,
}

// metadataCut returns the attribute nearest the root of the chain ending at
// top that reads a metadata value (metadataAttrs), or nil.
func metadataCut(top *pyast.Attribute) *pyast.Attribute {
	var cut *pyast.Attribute
	for a, ok := top, true; ok; a, ok = a.Value.(*pyast.Attribute) {
		if metadataAttrs[a.Attr] {
			cut = a
		}
	}
	return cut
}

// kindOf returns what the code does with the chain ending at top, and the
// call's shape when it calls it.
func kindOf(top *pyast.Attribute, it item, bound bool) (Kind, *CallShape) {
	switch {
	case top.Ctx == pyast.Store:
		return Assign, nil
	case top.Ctx == pyast.Del:
		return Delete, nil
	case it.role == callee:
		return Call, shape(it.call, bound)
	case it.role == decorator:
		return Call, &CallShape{Positional: 1, Bound: bound}
	}
	return Attribute, nil
}

// nameChain records the reference a chain rooted at the name root makes.
func (w *walker) nameChain(root *pyast.Name, first, top *pyast.Attribute, it item) {
	b := w.lookup(root.Id, it.sc)
	if len(b) == 0 {
		return
	}
	rest := ""
	multi := w.watchedTargets(b) > 1
	for _, t := range b {
		if t.owner != nil && len(w.chain) > 1 {
			w.attrUses = append(w.attrUses, attrUse{class: t.owner, top: top, it: it})
		}
		switch {
		case t.self != nil:
			w.selfRef(t.self, first, top, it)
		case t.inst:
			w.instanceRef(t, first, top, it)
		case t.qual != "" && t.local == nil && w.an.relevant(t.qual):
			if rest == "" {
				rest = w.dotted(w.chain)
			}
			full := t.qual + "." + rest
			pkg := w.an.pkgOf(full)
			if pkg < 0 {
				continue
			}
			kind, call := kindOf(top, it, false)
			w.add(pkg, full, t.module, kind, call, top.AttrPos, multi || it.g.covers(pkg))
		}
	}
}

// watchedTargets counts the targets of b that are names of watched
// packages: uses of a name that may be either of two (a compatibility
// shim's two imports) are guarded, since the code works with either.
func (w *walker) watchedTargets(b binding) int {
	n := 0
	for _, t := range b {
		if t.qual != "" && !t.inst && t.local == nil && w.an.pkgOf(t.qual) >= 0 {
			n++
		}
	}
	return n
}

// nameCall records the call of a name bound to a package's name: njit(f)
// after `from numba import njit`.
func (w *walker) nameCall(n *pyast.Name, it item) {
	b := w.lookup(n.Id, it.sc)
	multi := w.watchedTargets(b) > 1
	for _, t := range b {
		if t.qual == "" || t.inst || t.local != nil {
			continue
		}
		pkg := w.an.pkgOf(t.qual)
		if pkg < 0 {
			continue
		}
		call := &CallShape{Positional: 1}
		if it.role == callee {
			call = shape(it.call, false)
		}
		w.add(pkg, t.qual, t.module, Call, call, n.Pos(), multi || it.g.covers(pkg))
	}
}

// instanceRef records the attribute of an instance: ctx.x after ctx =
// Context() is Context.x. Only the first attribute is the instance's; what
// it holds is not followed. Assigning an attribute of an instance needs
// nothing of the class, and is not a reference.
func (w *walker) instanceRef(t target, a, top *pyast.Attribute, it item) {
	if a.Ctx != pyast.Load {
		return
	}
	name := t.qual + "." + a.Attr
	pkg := w.an.pkgOf(name)
	if pkg < 0 {
		return
	}
	var call *CallShape
	if a == top && it.role != load {
		_, call = kindOf(top, it, true)
	}
	w.add(pkg, name, t.module, Instance, call, a.AttrPos, it.g.covers(pkg))
}

// instanceOfCall records the attribute of an instance made and used at
// once: Context().x.
func (w *walker) instanceOfCall(c *pyast.Call, first, top *pyast.Attribute, it item) {
	for _, t := range w.targetsOf(c, it.sc, 0) {
		if t.inst {
			w.instanceRef(t, first, top, it)
		}
	}
}

// call walks a call: its callee with the call's shape, its arguments, and
// what it names in strings or literal attribute names (setattr,
// mock.patch, monkeypatch).
func (w *walker) call(c *pyast.Call, it item) {
	w.special(c, it)
	w.push(c.Func, callee, c, it.sc, it.g)
	w.pushAll(c.Args, it.sc, it.g)
	for _, k := range c.Keywords {
		w.push(k.Value, load, nil, it.sc, it.g)
	}
}

// shape returns the shape of the call c.
func shape(c *pyast.Call, bound bool) *CallShape {
	out := &CallShape{Bound: bound}
	for _, a := range c.Args {
		if _, ok := a.(*pyast.Starred); ok {
			out.Star = true
		} else {
			out.Positional++
		}
	}
	for _, k := range c.Keywords {
		if k.Arg == "" {
			out.DoubleStar = true
		} else {
			out.Keywords = append(out.Keywords, k.Arg)
		}
	}
	return out
}

// maxTargetsDepth bounds how far targetsOf looks through nested
// expressions (a or b, x if c else y, calls of calls).
const maxTargetsDepth = 16

// targetsOf returns what the value of e stands for, when bound to a name:
// a package's name (numba, bc.FunctionIdentity, getattr(numba, "njit")),
// an instance of a package class (Context(), the CapWords name PEP 8 gives
// classes), a module imported by name (importlib.import_module("numba")),
// the class a method's self stands for, or a class the file defines.
func (w *walker) targetsOf(e pyast.Expr, sc *scope, depth int) binding {
	if depth > maxTargetsDepth {
		return nil
	}
	switch e := e.(type) {
	case *pyast.Name:
		return w.lookup(e.Id, sc)
	case *pyast.Attribute:
		if metadataCut(e) != nil {
			return nil // v = numba.__version__: a str, not the package's
		}
		root, ok := w.chainOf(e).(*pyast.Name)
		if !ok {
			return nil
		}
		b := w.lookup(root.Id, sc)
		var out binding
		rest := ""
		for _, t := range b {
			if t.qual != "" && !t.inst && t.local == nil && w.an.relevant(t.qual) {
				if rest == "" {
					rest = w.dotted(w.chain)
				}
				out = union(out, binding{{qual: t.qual + "." + rest, module: t.module}})
			}
		}
		return out
	case *pyast.Call:
		if b := w.callTargets(e, sc); b != nil {
			return b
		}
		var out binding
		for _, t := range w.targetsOf(e.Func, sc, depth+1) {
			if t.qual != "" && !t.inst && t.local == nil && capWords(t.qual) {
				out = union(out, binding{{qual: t.qual, module: t.module, inst: true}})
			}
		}
		return out
	case *pyast.IfExp:
		return union(w.targetsOf(e.Body, sc, depth+1), w.targetsOf(e.Orelse, sc, depth+1))
	case *pyast.BoolOp:
		var out binding
		for _, v := range e.Values {
			out = union(out, w.targetsOf(v, sc, depth+1))
		}
		return out
	}
	return nil
}

// capWords reports whether the last segment of a dotted name is written as
// PEP 8 writes class names (Context, BaseEstimator): calling it makes an
// instance, where calling numpy.zeros makes an array of no class of
// numpy's that the analysis could name.
func capWords(qual string) bool {
	last := qual[strings.LastIndexByte(qual, '.')+1:]
	last = strings.TrimLeft(last, "_")
	r, _ := utf8.DecodeRuneInString(last)
	return unicode.IsUpper(r) && strings.ToUpper(last) != last
}

// quals returns the dotted names e may stand for, when it is a name or a
// chain rooted at one: "unittest.mock.patch" for patch after `from
// unittest.mock import patch`.
func (w *walker) quals(e pyast.Expr, sc *scope) []string {
	var out []string
	for _, t := range w.targetsOf(e, sc, maxTargetsDepth) {
		if t.qual != "" && !t.inst && t.local == nil {
			out = append(out, t.qual)
		}
	}
	return out
}

// stringLit returns the value of a plain string literal.
func stringLit(e pyast.Expr) (string, bool) {
	c, ok := e.(*pyast.Constant)
	if !ok || c.Kind != pyast.ConstStr {
		return "", false
	}
	return c.Value, true
}

// stringPos returns where, in the source, byte off of the string literal
// e's value is, when the literal is one part with no escape (so its body
// is its value); else where the literal starts.
func (w *walker) stringPos(e pyast.Expr, off int) pyast.Pos {
	c := e.(*pyast.Constant)
	if len(c.Parts) == 1 {
		p := c.Parts[0]
		if !p.Escapes && int(p.BodyEnd)-int(p.BodyPos) == len(c.Value) && string(w.src[p.BodyPos:p.BodyEnd]) == c.Value {
			return p.BodyPos + pyast.Pos(off)
		}
	}
	return c.Pos()
}
