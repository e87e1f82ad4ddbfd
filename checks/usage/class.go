package usage

import (
	"strings"

	"github.com/pinbot-dev/pinbot/internal/pyast"
)

// A classInfo is what the analysis knows of a class the file defines: the
// package classes it subclasses, and the names it defines itself.
type classInfo struct {
	name string
	// bases are the package classes it subclasses, its own and through
	// the classes of the file among its bases, in order, each once.
	bases []target
	// locals are the classes of the file among its bases.
	locals []*classInfo
	// opaque is set when a base is neither a package's class, nor the
	// file's, nor one that defines nothing a subclass uses (object, ABC,
	// Generic): which base defines a name cannot be told, and self's
	// names are not followed.
	opaque bool
	// defined are the names the class body binds (methods, attributes,
	// nested classes) and those its methods assign to self.
	defined map[string]bool
	// attrs are what the class's attributes are assigned: NAME = ... in
	// its body, self.NAME = ... (cls.NAME = ...) in its methods.
	attrs map[string]*attrAssign
}

// An attrAssign is what every assignment of one attribute of a class
// bound: one package name or instance (t), else nothing followed (bad).
// None is no value to reach a name through, and is left aside.
type attrAssign struct {
	t   target
	set bool
	bad bool
}

// assign records an assignment of the attribute name of the class, to b
// (or to None).
func (c *classInfo) assign(name string, b binding, none bool) {
	if c.attrs == nil {
		c.attrs = map[string]*attrAssign{}
	}
	a := c.attrs[name]
	if a == nil {
		a = &attrAssign{}
		c.attrs[name] = a
	}
	switch {
	case none:
	case len(b) != 1 || b[0].qual == "" || b[0].local != nil:
		a.bad = true
	case !a.set:
		a.t, a.set = b[0], true
	case a.t != b[0]:
		a.bad = true
	}
}

// attr returns what the attribute name of the class stands for, when
// every assignment of it agrees.
func (c *classInfo) attr(name string) (target, bool) {
	a := c.attrs[name]
	if a == nil || a.bad || !a.set {
		return target{}, false
	}
	return a.t, true
}

// An attrUse is a chain through an attribute of self (self.ctx.x) in a
// method of class, walked as item it.
type attrUse struct {
	class *classInfo
	top   *pyast.Attribute
	it    item
}

// settleAttrs records the chains through self.NAME once the file's
// methods have all been walked, when what every assignment of NAME binds
// agrees: self.ctx.x after self.ctx = Context() is Context.x, an instance's
// attribute, and self.nb.njit after self.nb = numba is numba.njit.
func (w *walker) settleAttrs() {
	for _, u := range w.attrUses {
		if w.full {
			return
		}
		w.chainOf(u.top)
		t, ok := u.class.attr(w.chain[0].Attr)
		if !ok {
			continue
		}
		if t.inst {
			w.instanceRef(t, w.chain[1], u.top, u.it)
			continue
		}
		full := t.qual + "." + w.dotted(w.chain[1:])
		if pkg := w.an.pkgOf(full); pkg >= 0 {
			kind, call := kindOf(u.top, u.it, false)
			w.add(pkg, full, t.module, kind, call, u.top.AttrPos, u.it.g.covers(pkg))
		}
	}
	w.attrUses = nil
}

// maxBases bounds the package classes a class is known to subclass, and
// maxLocalBases the classes of the file defines looks through.
const (
	maxBases      = 8
	maxLocalBases = 64
)

// transparentBases are the bases that give a subclass nothing it would
// use through self: object aside, which is a builtin's name.
var transparentBases = map[string]bool{
	"abc.ABC": true, "typing.Generic": true, "typing.Protocol": true,
	"typing_extensions.Protocol": true, "typing_extensions.Generic": true,
}

// subclasses reports whether self in the class's methods stands for a
// package class: it has one as a base, and no base the analysis cannot
// see into.
func (c *classInfo) subclasses() bool { return len(c.bases) > 0 && !c.opaque }

// defines reports whether the class (when self is set) or a class of the
// file among its bases defines name.
func (c *classInfo) defines(name string, self bool) bool {
	if self && c.defined[name] {
		return true
	}
	if len(c.locals) == 0 {
		return false
	}
	stack := append([]*classInfo(nil), c.locals...)
	seen := map[*classInfo]bool{}
	for len(stack) > 0 && len(seen) < maxLocalBases {
		k := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[k] {
			continue
		}
		seen[k] = true
		if k.defined[name] {
			return true
		}
		stack = append(stack, k.locals...)
	}
	return false
}

// class walks a class definition: its decorators, bases and keywords,
// then its body, at once (a class body runs where it is), in a scope of
// its own; its methods are deferred with the class they belong to.
func (w *walker) class(s *pyast.ClassDef, sc *scope, g *guard) {
	body := g
	for _, d := range s.DecoratorList {
		w.decorator(d, sc, g)
		body = body.tested(w.skipTest(d, sc))
	}
	for _, b := range s.Bases {
		w.baseRefs(b, sc, g)
	}
	for _, k := range s.Keywords {
		w.expr(k.Value, sc, g)
	}
	info := &classInfo{name: s.Name, defined: map[string]bool{}}
	for _, b := range s.Bases {
		w.base(info, b, sc)
	}
	for _, k := range s.Keywords {
		if k.Arg == "" {
			info.opaque = true // **kwargs: bases could come from anywhere
		}
	}
	inner := newScope(classScope, sc)
	inner.class = info
	w.block(s.Body, inner, body)
	for n, b := range inner.state {
		info.defined[n] = true
		if a := info.attrs[n]; a != nil && !a.bad && (len(b) != 1 && a.set || len(b) == 1 && b[0] != a.t) {
			a.bad = true // bound otherwise too: a def, an import, a loop
		}
	}
	annotated(s.Body, info.defined)
	if info.subclasses() {
		selfStores(s.Body, info.defined)
	}
	sc.set(s.Name, binding{{local: info}})
}

// baseRefs walks the base expression b of a class: a name or a chain that
// stands for a package's name is a Base reference (the code needs it to be
// a class), at its last segment; anything else is walked as an expression.
func (w *walker) baseRefs(b pyast.Expr, sc *scope, g *guard) {
	v, rest := b, pyast.Expr(nil)
	if sub, ok := b.(*pyast.Subscript); ok {
		v, rest = sub.Value, sub.Slice // Base[T]: T is walked as an expression
	}
	var pos pyast.Pos
	switch v := v.(type) {
	case *pyast.Name:
		pos = v.Pos()
	case *pyast.Attribute:
		if _, ok := w.chainOf(v).(*pyast.Name); !ok {
			w.expr(b, sc, g)
			return
		}
		pos = v.AttrPos
	default:
		w.expr(b, sc, g)
		return
	}
	ts := w.targetsOf(v, sc, 0)
	multi := w.watchedTargets(ts) > 1
	found := false
	for _, t := range ts {
		if t.qual == "" || t.inst || t.local != nil {
			continue
		}
		if pkg := w.an.pkgOf(t.qual); pkg >= 0 {
			found = true
			w.add(pkg, t.qual, t.module, Base, nil, pos, multi || g.covers(pkg))
		}
	}
	if !found {
		w.expr(b, sc, g)
		return
	}
	w.expr(rest, sc, g)
}

// base adds what the base expression b of a class stands for to info.
func (w *walker) base(info *classInfo, b pyast.Expr, sc *scope) {
	if sub, ok := b.(*pyast.Subscript); ok {
		b = sub.Value // Generic[T], Base[T]
	}
	if n, ok := b.(*pyast.Name); ok && n.Id == "object" && sc.builtin(n.Id) {
		return
	}
	seen := false
	for _, t := range w.targetsOf(b, sc, 0) {
		switch {
		case t.local != nil:
			seen = true
			info.locals = append(info.locals, t.local)
			info.opaque = info.opaque || t.local.opaque
			for _, pb := range t.local.bases {
				info.addBase(pb)
			}
		case t.qual != "" && !t.inst && w.an.pkgOf(t.qual) >= 0:
			seen = true
			info.addBase(target{qual: t.qual, module: t.module})
		case t.qual != "" && transparentBases[t.qual]:
			seen = true
		}
	}
	if !seen {
		info.opaque = true
	}
}

func (c *classInfo) addBase(t target) {
	for _, b := range c.bases {
		if b.qual == t.qual {
			return
		}
	}
	if len(c.bases) < maxBases {
		c.bases = append(c.bases, t)
	}
}

// annotated adds the names a class body declares with an annotation alone
// (x: int, a dataclass's field) to defined.
func annotated(body []pyast.Stmt, defined map[string]bool) {
	for _, s := range body {
		if a, ok := s.(*pyast.AnnAssign); ok {
			if n, ok := a.Target.(*pyast.Name); ok {
				defined[n.Id] = true
			}
		}
	}
}

// selfStores adds the attributes the methods of a class body assign
// through their first parameter (self.x = ..., setattr(self, "x", ...),
// in the method or a function nested in it) to defined.
func selfStores(body []pyast.Stmt, defined map[string]bool) {
	for _, s := range body {
		pyast.Inspect(s, func(n pyast.Node) bool {
			switch n := n.(type) {
			case *pyast.ClassDef:
				return false
			case *pyast.FunctionDef:
				p := firstParam(n.Args)
				if p == "" || hasDecorator(n, "staticmethod") {
					return false
				}
				for _, st := range n.Body {
					pyast.Inspect(st, func(m pyast.Node) bool {
						switch m := m.(type) {
						case *pyast.Attribute:
							if v, ok := m.Value.(*pyast.Name); ok && v.Id == p && m.Ctx == pyast.Store {
								defined[m.Attr] = true
							}
						case *pyast.Call:
							if f, ok := m.Func.(*pyast.Name); ok && f.Id == "setattr" && len(m.Args) >= 2 {
								if v, ok := m.Args[0].(*pyast.Name); ok && v.Id == p {
									if s, ok := stringLit(m.Args[1]); ok {
										defined[s] = true
									}
								}
							}
						}
						return true
					})
				}
				return false
			}
			return true
		})
	}
}

// firstParam returns the name of a function's first positional parameter.
func firstParam(a *pyast.Arguments) string {
	switch {
	case a == nil:
		return ""
	case len(a.PosOnlyArgs) > 0:
		return a.PosOnlyArgs[0].Arg
	case len(a.Args) > 0:
		return a.Args[0].Arg
	}
	return ""
}

// selfRef records self.x (or cls.x) in a method of info, a subclass of
// package classes: a name the class does not define is its bases'.
// Assigning self.x defines it; dunders are every object's; a mangled
// __x is the class's own.
func (w *walker) selfRef(info *classInfo, first, top *pyast.Attribute, it item) {
	if first.Ctx != pyast.Load {
		return
	}
	var call *CallShape
	if first == top && it.role != load {
		_, call = kindOf(top, it, true)
	}
	w.selfAttr(info, first.Attr, call, first.AttrPos, it, false)
}

// selfAttr records the attribute attr of self in info, unless the class
// defines it (or it is a dunder, or mangled).
func (w *walker) selfAttr(info *classInfo, attr string, call *CallShape, pos pyast.Pos, it item, guarded bool) {
	if dunder(attr) || mangled(attr) || info.defines(attr, true) {
		return
	}
	w.subclassRefs(info, attr, call, pos, it, guarded)
}

// subclassRefs records attr of each package class info subclasses: with
// several, the name is one of theirs, and each is listed at the same place.
func (w *walker) subclassRefs(info *classInfo, attr string, call *CallShape, pos pyast.Pos, it item, guarded bool) {
	for _, b := range info.bases {
		name := b.qual + "." + attr
		if pkg := w.an.pkgOf(name); pkg >= 0 {
			w.add(pkg, name, b.module, Subclass, call, pos, guarded || it.g.covers(pkg))
		}
	}
}

// superChain records super().x in a method of a subclass of package
// classes: x of its bases, unless a class of the file among them defines
// it. It reports whether the chain was super()'s.
func (w *walker) superChain(c *pyast.Call, first, top *pyast.Attribute, it item) bool {
	fn, ok := c.Func.(*pyast.Name)
	if !ok || fn.Id != "super" || !it.sc.builtin("super") {
		return false
	}
	s := it.sc
	for s.comp {
		s = s.parent
	}
	info := s.method
	if info == nil || !info.subclasses() {
		return false
	}
	w.pushAll(c.Args, it.sc, it.g)
	if first.Ctx != pyast.Load || mangled(first.Attr) || info.defines(first.Attr, false) {
		return true
	}
	var call *CallShape
	if first == top && it.role != load {
		_, call = kindOf(top, it, true)
	}
	w.subclassRefs(info, first.Attr, call, first.AttrPos, it, false)
	return true
}

// mangled reports whether a name is mangled with its class's (__x).
func mangled(s string) bool {
	return strings.HasPrefix(s, "__") && !strings.HasSuffix(s, "__")
}
