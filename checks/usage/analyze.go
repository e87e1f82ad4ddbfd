package usage

import (
	"bytes"
	"cmp"
	"errors"
	"slices"
	"strings"

	"github.com/pinbot-dev/pinbot/internal/diag"
	"github.com/pinbot-dev/pinbot/internal/pyast"
)

// An analyzer holds what every file's analysis shares: the watched
// packages and their modules. It is read-only once made, so files are
// analysed in parallel.
type analyzer struct {
	pkgs []Package
	// byTop lists, by a module's first segment, the watched modules
	// starting with it and their packages' indexes in pkgs.
	byTop map[string][]watchedModule
}

type watchedModule struct {
	module string
	pkg    int
}

// newAnalyzer returns the analyzer of pkgs over a repository whose Python
// files are files, leaving out (with a warning in res) the modules the
// repository provides itself.
func newAnalyzer(pkgs []Package, files map[string]bool, res *Result) *analyzer {
	an := &analyzer{byTop: map[string][]watchedModule{}}
	for _, p := range pkgs {
		mods := p.Modules
		if mods == nil {
			mods = Modules(p.Name)
		}
		var keep []string
		for _, m := range mods {
			if own := ownModule(m, files); own != "" {
				res.Warnings = append(res.Warnings, diag.Errorf(own, 0, 0, "", "%s: the repository has its own module %s: its imports of %s are not %s's, and are not listed", p.Name, m, m, p.Name))
				continue
			}
			keep = append(keep, m)
		}
		if len(keep) == 0 {
			continue
		}
		i := len(an.pkgs)
		an.pkgs = append(an.pkgs, Package{Name: p.Name, Modules: keep})
		for _, m := range keep {
			top, _, _ := strings.Cut(m, ".")
			an.byTop[top] = append(an.byTop[top], watchedModule{module: m, pkg: i})
		}
	}
	return an
}

// pkgOf returns the index of the package whose modules name lies in, or -1.
func (an *analyzer) pkgOf(name string) int {
	top, _, _ := strings.Cut(name, ".")
	for _, w := range an.byTop[top] {
		if within(name, w.module) {
			return w.pkg
		}
	}
	return -1
}

// toolModules are the modules whose names the analysis reads although no
// package watches them: the patchers, pytest, imports by name, suppress,
// and the bases that give a subclass nothing (abc.ABC, typing.Generic).
var toolModules = map[string]bool{
	"unittest": true, "mock": true, "pytest": true, "_pytest": true, "importlib": true,
	"importlib_metadata": true, "pkgutil": true, "pkg_resources": true, "contextlib": true,
	"abc": true, "typing": true, "typing_extensions": true,
}

// relevant reports whether the dotted name qual may lead to a watched
// package's name, or is one the analysis reads: only those are bound, so
// that `import numpy as np` costs nothing later.
func (an *analyzer) relevant(qual string) bool {
	top, _, _ := strings.Cut(qual, ".")
	return len(an.byTop[top]) > 0 || toolModules[top]
}

// pkgNamed returns the index of the package a distribution name (as
// importlib.metadata.version takes it) names, or -1.
func (an *analyzer) pkgNamed(dist string) int {
	k := normalizeDist(dist)
	for i, p := range an.pkgs {
		if normalizeDist(p.Name) == k {
			return i
		}
	}
	return -1
}

func normalizeDist(s string) string {
	return strings.NewReplacer("_", "-", ".", "-").Replace(strings.ToLower(s))
}

// source parses one file and returns its references; the warning says why
// the file gave none, or not all.
func (an *analyzer) source(name string, src []byte) ([]Ref, *diag.Error) {
	mod, err := pyast.Parse(name, src)
	if err != nil {
		var se *pyast.SyntaxError
		if errors.As(err, &se) {
			return nil, diag.Errorf(name, se.Line, se.Col, "", "%s (file skipped; the others are read)", se.Msg)
		}
		return nil, diag.Errorf(name, 0, 0, "", "%v (file skipped; the others are read)", err)
	}
	w := &walker{an: an, name: name, src: src, file: mod.File,
		imported: map[string]bool{}, flags: map[string][]int{}, names: map[string]string{}}
	sc := newScope(moduleScope, nil)
	w.block(mod.Body, sc, nil)
	for len(w.deferred) > 0 && !w.full {
		d := w.deferred[0]
		w.deferred = w.deferred[1:]
		w.function(d)
	}
	w.settleAttrs()
	w.settleModules()
	var warn *diag.Error
	if w.full {
		warn = diag.Errorf(name, 0, 0, "", "more than %d references to watched packages: the rest are not listed", MaxRefsPerFile)
	}
	return w.refs, warn
}

// A walker walks one file's syntax tree, statement by statement, keeping
// each scope's bindings, and records the references it meets.
type walker struct {
	an   *analyzer
	name string
	src  []byte
	file *pyast.File
	refs []Ref
	full bool // MaxRefsPerFile reached
	// imported holds every module the file's imports name (a.b.c names
	// a, a.b and a.b.c), for the Module of each reference.
	imported map[string]bool
	// flags are names bound to a test of packages (HAS_NUMBA = True
	// beside a guarded import; NUMBA_OLD = Version(numba.__version__) <
	// ...): a test of the name is a test of those packages.
	flags map[string][]int
	// deferred are the function bodies still to walk: a body runs when
	// the function is called, after the code around it has bound its
	// names, so it is walked after that code.
	deferred []deferred
	// stack is the expression walk's work list (expr.go).
	stack []item
	// chain is the attributes of the chain being read (expr.go).
	chain []*pyast.Attribute
	// names interns the dotted names of references.
	names map[string]string
	// stars are the watched modules the file star-imports; foreignStar
	// is set when it star-imports another (star.go).
	stars       []string
	foreignStar bool
	// attrUses are the chains through self.NAME (cls.NAME) in methods,
	// recorded once every method has assigned what it does (settleAttrs).
	attrUses []attrUse
}

// A deferred is a function body to walk: in which scope it was defined,
// the class it is a method of, and the tests it is defined under.
type deferred struct {
	def    *pyast.FunctionDef
	lambda *pyast.Lambda
	parent *scope
	class  *classInfo
	g      *guard
}

// add records a reference to the package pkg at pos.
func (w *walker) add(pkg int, name, module string, kind Kind, call *CallShape, pos pyast.Pos, guarded bool) {
	if w.full {
		return
	}
	if len(w.refs) >= MaxRefsPerFile {
		w.full = true
		return
	}
	if n, ok := w.names[name]; ok {
		name = n
	} else {
		w.names[name] = name
	}
	at := w.file.Position(pos)
	w.refs = append(w.refs, Ref{
		Package: w.an.pkgs[pkg].Name, Name: name, Module: module, Kind: kind, Call: call,
		Private: Private(name), Guarded: guarded, File: w.name, Line: at.Line, Col: at.Column,
	})
}

// settleModules gives each reference the longest module its name lies in
// that the file imports, when longer than the one its binding came from:
// after `import numba` and `import numba.core.bytecode`, numba.core.bytecode.X
// is reached through numba.core.bytecode. Only the first maxModuleLen
// bytes of a name are looked at: no module's name is longer.
func (w *walker) settleModules() {
	for i := range w.refs {
		r := &w.refs[i]
		if r.Module == "" || r.Kind == Import {
			continue
		}
		for j := len(r.Module) + 1; j < len(r.Name) && j <= maxModuleLen; j++ {
			if r.Name[j] == '.' && w.imported[r.Name[:j]] {
				r.Module = r.Name[:j]
			}
		}
	}
}

// maxModuleLen bounds the dotted module names settleModules looks for.
const maxModuleLen = 256

// block walks a list of statements in sc, under the guard g. After an
// if that tests a package and whose body always leaves the block (`if not
// hasattr(numba, "prange"): return`, `if NUMBA_OLD: pytest.skip(...)`),
// the rest of the block runs only when the test let it: it is under the
// test, as the if's else would be.
func (w *walker) block(body []pyast.Stmt, sc *scope, g *guard) {
	for _, s := range body {
		if w.full {
			return
		}
		var exit []int
		if i, ok := s.(*pyast.If); ok && w.exits(i.Body, sc) {
			exit = w.tests(i.Test, sc)
		}
		w.stmt(s, sc, g)
		g = g.tested(exit)
	}
}

// exits reports whether a block always leaves the code around it: its
// last statement is a return, raise, continue or break, or a call that
// raises (pytest.skip, self.skipTest, sys.exit).
func (w *walker) exits(body []pyast.Stmt, sc *scope) bool {
	if len(body) == 0 {
		return false
	}
	switch s := body[len(body)-1].(type) {
	case *pyast.Return, *pyast.Raise, *pyast.Continue, *pyast.Break:
		return true
	case *pyast.ExprStmt:
		c, ok := s.Value.(*pyast.Call)
		if !ok {
			return false
		}
		if f, ok := c.Func.(*pyast.Attribute); ok {
			if v, ok := f.Value.(*pyast.Name); ok && exitCalls[v.Id+"."+f.Attr] {
				return true // sys.exit, self.skipTest: names the analysis binds to nothing
			}
		}
		return slices.ContainsFunc(w.quals(c.Func, sc), func(q string) bool { return exitCalls[q] })
	}
	return false
}

// exitCalls are the calls that never return: pytest's outcomes (a skip at
// module level skips the rest of the module), unittest's skipTest, exits.
var exitCalls = map[string]bool{
	"pytest.skip": true, "pytest.xfail": true, "pytest.fail": true, "pytest.exit": true,
	"self.skipTest": true, "sys.exit": true, "os._exit": true,
}

// stmt walks one statement.
func (w *walker) stmt(s pyast.Stmt, sc *scope, g *guard) {
	switch s := s.(type) {
	case *pyast.Import:
		for _, a := range s.Names {
			w.importName(a, sc, g)
		}
	case *pyast.ImportFrom:
		w.importFrom(s, sc, g)
	case *pyast.Assign:
		w.expr(s.Value, sc, g)
		for _, t := range s.Targets {
			w.expr(t, sc, g)
			w.bind(t, s.Value, sc)
		}
	case *pyast.AnnAssign:
		w.expr(s.Annotation, sc, g)
		if s.Value != nil {
			w.expr(s.Value, sc, g)
			w.bind(s.Target, s.Value, sc)
		}
		w.expr(s.Target, sc, g)
	case *pyast.AugAssign:
		w.expr(s.Value, sc, g)
		w.expr(s.Target, sc, g)
		w.unbind(s.Target, sc)
	case *pyast.TypeAlias:
		sc.set(s.Name.Id, nil)
	case *pyast.Delete:
		for _, t := range s.Targets {
			w.expr(t, sc, g)
			if _, ok := t.(*pyast.Attribute); !ok {
				w.unbind(t, sc) // del self.ctx assigns nothing else to it
			}
		}
	case *pyast.ExprStmt:
		w.expr(s.Value, sc, g)
	case *pyast.Return:
		w.expr(s.Value, sc, g)
	case *pyast.Raise:
		w.expr(s.Exc, sc, g)
		w.expr(s.Cause, sc, g)
	case *pyast.Assert:
		w.expr(s.Test, sc, g)
		w.expr(s.Msg, sc, g)
	case *pyast.Global:
		sc.declare(s.Names, true)
	case *pyast.Nonlocal:
		sc.declare(s.Names, false)
	case *pyast.If:
		w.ifChain(s, sc, g)
	case *pyast.While:
		w.expr(s.Test, sc, g)
		inner := g.tested(w.tests(s.Test, sc))
		m := sc.mark()
		w.block(s.Body, sc, inner)
		sc.merge(m, []*branchEnd{sc.end(m), nil})
		w.block(s.Orelse, sc, g)
	case *pyast.For:
		w.expr(s.Iter, sc, g)
		m := sc.mark()
		w.expr(s.Target, sc, g)
		w.unbind(s.Target, sc)
		w.block(s.Body, sc, g)
		sc.merge(m, []*branchEnd{sc.end(m), nil})
		w.block(s.Orelse, sc, g)
	case *pyast.With:
		inner := g
		for _, it := range s.Items {
			w.expr(it.ContextExpr, sc, g)
			if it.OptionalVars != nil {
				w.expr(it.OptionalVars, sc, g)
				w.bind(it.OptionalVars, it.ContextExpr, sc)
			}
			if w.suppresses(it.ContextExpr, sc) {
				inner = inner.caught()
			}
		}
		w.block(s.Body, sc, inner)
	case *pyast.Try:
		w.try(s, sc, g)
	case *pyast.Match:
		w.expr(s.Subject, sc, g)
		m := sc.mark()
		var ends []*branchEnd
		for _, c := range s.Cases {
			w.pattern(c.Pattern, sc, g)
			w.expr(c.Guard, sc, g)
			w.block(c.Body, sc, g)
			ends = append(ends, sc.end(m))
		}
		sc.merge(m, append(ends, nil))
	case *pyast.FunctionDef:
		w.def(s, sc, g)
	case *pyast.ClassDef:
		w.class(s, sc, g)
	}
}

// ifChain walks an if with its elif (and else-if) branches as one
// statement of many branches: each branch's body is under every test met
// on the way to it, and what each leaves is merged once, however long the
// chain.
func (w *walker) ifChain(s *pyast.If, sc *scope, g *guard) {
	m := sc.mark()
	var ends []*branchEnd
	for {
		w.expr(s.Test, sc, g)
		g = g.tested(w.tests(s.Test, sc))
		w.block(s.Body, sc, g)
		ends = append(ends, sc.end(m))
		if len(s.Orelse) == 1 {
			if next, ok := s.Orelse[0].(*pyast.If); ok {
				s = next
				continue
			}
		}
		if len(s.Orelse) == 0 {
			ends = append(ends, nil)
		} else {
			w.block(s.Orelse, sc, g)
			ends = append(ends, sc.end(m))
		}
		break
	}
	sc.merge(m, ends)
}

// try walks a try statement: its body (with its else) under a guard when a
// handler catches what a missing module or attribute raises, each handler
// as another way through, then the finally.
func (w *walker) try(s *pyast.Try, sc *scope, g *guard) {
	body := g
	if catches(s.Handlers) {
		body = g.caught()
		w.flagShim(s, sc)
	}
	m := sc.mark()
	w.block(s.Body, sc, body)
	w.block(s.Orelse, sc, g)
	ends := []*branchEnd{sc.end(m)}
	for _, h := range s.Handlers {
		w.expr(h.Type, sc, g)
		if h.Name != "" {
			sc.set(h.Name, nil)
		}
		w.block(h.Body, sc, g)
		ends = append(ends, sc.end(m))
	}
	sc.merge(m, ends)
	w.block(s.Finalbody, sc, g)
}

// pattern binds the names a match pattern captures and reads the values
// and classes it names.
func (w *walker) pattern(p pyast.Pattern, sc *scope, g *guard) {
	pyast.Inspect(p, func(n pyast.Node) bool {
		switch n := n.(type) {
		case *pyast.MatchValue:
			w.expr(n.Value, sc, g)
			return false
		case *pyast.MatchClass:
			w.expr(n.Cls, sc, g)
		case *pyast.MatchMapping:
			for _, k := range n.Keys {
				w.expr(k, sc, g)
			}
			if n.Rest != "" {
				sc.set(n.Rest, nil)
			}
		case *pyast.MatchAs:
			if n.Name != "" {
				sc.set(n.Name, nil)
			}
		case *pyast.MatchStar:
			if n.Name != "" {
				sc.set(n.Name, nil)
			}
		}
		return true
	})
}

// importName walks one name of an import statement: `import a.b.c` binds a
// and imports a, a.b and a.b.c; `import a.b.c as d` binds d to a.b.c.
func (w *walker) importName(a *pyast.Alias, sc *scope, g *guard) {
	w.markImported(a.Name)
	if pkg := w.an.pkgOf(a.Name); pkg >= 0 {
		w.add(pkg, a.Name, a.Name, Import, nil, segmentPos(w.src, a.Pos(), a.Name), g.covers(pkg))
	}
	var b binding
	if w.an.relevant(a.Name) {
		b = binding{{qual: a.Name, module: a.Name}}
	}
	if a.AsName != "" {
		sc.set(a.AsName, b)
		return
	}
	top, _, _ := strings.Cut(a.Name, ".")
	if b != nil {
		b = binding{{qual: top, module: top}}
	}
	sc.set(top, b)
}

// importFrom walks a from-import: each name x of `from m import x` is
// m.x, reached through m (an attribute of m, or its submodule). A relative
// import is the project's own: its names are bound, to nothing followed.
func (w *walker) importFrom(s *pyast.ImportFrom, sc *scope, g *guard) {
	if s.Level > 0 || s.Module == "" {
		for _, a := range s.Names {
			if a.Name == "*" && sc.kind == moduleScope {
				w.star(sc, ".", false)
			} else if a.Name != "*" {
				sc.set(cmp.Or(a.AsName, a.Name), nil)
			}
		}
		return
	}
	w.markImported(s.Module)
	pkg := w.an.pkgOf(s.Module)
	if !w.an.relevant(s.Module) {
		for _, a := range s.Names {
			if a.Name == "*" && sc.kind == moduleScope {
				w.star(sc, s.Module, false)
			} else if a.Name != "*" {
				sc.set(cmp.Or(a.AsName, a.Name), nil)
			}
		}
		return
	}
	for _, a := range s.Names {
		if a.Name == "*" {
			if sc.kind == moduleScope {
				w.star(sc, s.Module, pkg >= 0)
			}
			if pkg >= 0 {
				w.add(pkg, s.Module, s.Module, Import, nil, segmentPos(w.src, s.ModulePos, s.Module), g.covers(pkg))
			}
			continue
		}
		full := s.Module + "." + a.Name
		if p := w.an.pkgOf(full); p >= 0 {
			w.add(p, full, s.Module, Import, nil, a.Pos(), g.covers(p))
		}
		sc.set(cmp.Or(a.AsName, a.Name), binding{{qual: full, module: s.Module}})
	}
}

// markImported records that the file imports module and its parents.
func (w *walker) markImported(module string) {
	for {
		w.imported[module] = true
		i := strings.LastIndexByte(module, '.')
		if i < 0 {
			return
		}
		module = module[:i]
	}
}

// def walks a function definition where it is: its decorators, defaults
// and annotations now; its body later (see deferred).
func (w *walker) def(s *pyast.FunctionDef, sc *scope, g *guard) {
	body := g.tests()
	for _, d := range s.DecoratorList {
		w.decorator(d, sc, g)
		body = body.tested(w.skipTest(d, sc))
	}
	w.arguments(s.Args, sc, g)
	w.expr(s.Returns, sc, g)
	parent, class := sc, (*classInfo)(nil)
	if sc.kind == classScope {
		parent, class = sc.parent, sc.class
	}
	sc.set(s.Name, nil)
	w.deferred = append(w.deferred, deferred{def: s, parent: parent, class: class, g: body})
}

// arguments walks the defaults and annotations of a def or lambda.
func (w *walker) arguments(a *pyast.Arguments, sc *scope, g *guard) {
	if a == nil {
		return
	}
	for _, d := range a.Defaults {
		w.expr(d, sc, g)
	}
	for _, d := range a.KwDefaults {
		w.expr(d, sc, g)
	}
	for _, list := range [][]*pyast.Arg{a.PosOnlyArgs, a.Args, a.KwOnlyArgs} {
		for _, p := range list {
			w.expr(p.Annotation, sc, g)
		}
	}
	for _, p := range []*pyast.Arg{a.VarArg, a.KwArg} {
		if p != nil {
			w.expr(p.Annotation, sc, g)
		}
	}
}

// params binds the parameters of a function in its scope: to nothing
// followed, except the first of a method (self, cls), bound to self.
func params(a *pyast.Arguments, sc *scope, self binding) {
	if a == nil {
		return
	}
	var first *pyast.Arg
	if len(a.PosOnlyArgs) > 0 {
		first = a.PosOnlyArgs[0]
	} else if len(a.Args) > 0 {
		first = a.Args[0]
	}
	for _, list := range [][]*pyast.Arg{a.PosOnlyArgs, a.Args, a.KwOnlyArgs, {a.VarArg, a.KwArg}} {
		for _, p := range list {
			switch {
			case p == nil:
			case p == first && self != nil:
				sc.set(p.Arg, self)
			default:
				sc.set(p.Arg, nil)
			}
		}
	}
}

// function walks a deferred function body in a scope of its own.
func (w *walker) function(d deferred) {
	sc := newScope(functionScope, d.parent)
	if d.lambda != nil {
		params(d.lambda.Args, sc, nil)
		w.expr(d.lambda.Body, sc, d.g)
		return
	}
	// self (or cls) in a method stands for the class's instance: its
	// attributes are the class's (attrs), and in a subclass of a package
	// class the names it does not define are its bases'.
	var self binding
	if d.class != nil && !hasDecorator(d.def, "staticmethod") {
		t := target{owner: d.class}
		if d.class.subclasses() {
			t.self = d.class
		}
		self = binding{t}
	}
	if d.class != nil {
		sc.method = d.class
	}
	params(d.def.Args, sc, self)
	w.block(d.def.Body, sc, d.g)
}

// hasDecorator reports whether def is decorated with the plain name n.
func hasDecorator(def *pyast.FunctionDef, n string) bool {
	for _, d := range def.DecoratorList {
		if name, ok := d.(*pyast.Name); ok && name.Id == n {
			return true
		}
	}
	return false
}

// bind binds the names of an assignment's target t to what value stands
// for: pairwise for tuples of the same length, to nothing followed for
// other unpackings.
func (w *walker) bind(t, value pyast.Expr, sc *scope) {
	switch t := t.(type) {
	case *pyast.Name:
		b := w.targetsOf(value, sc, 0)
		sc.set(t.Id, b)
		if sc.kind == classScope && sc.class != nil {
			sc.class.assign(t.Id, b, isNone(value)) // NAME = Context() in the class body
		}
		var tested []int
		if flagLike(value) {
			tested = w.tests(value, sc)
		} else {
			tested = w.versions(value, sc)
		}
		if len(tested) > 0 {
			w.flags[t.Id] = tested
		}
	case *pyast.Tuple:
		w.bindSeq(t.Elts, value, sc)
	case *pyast.List:
		w.bindSeq(t.Elts, value, sc)
	case *pyast.Attribute:
		w.storeAttr(t, w.targetsOf(value, sc, 0), isNone(value), sc)
	case *pyast.Starred:
		w.unbind(t.Value, sc)
	}
}

// storeAttr records what self.NAME (or cls.NAME) is assigned in a method:
// b, or None.
func (w *walker) storeAttr(t *pyast.Attribute, b binding, none bool, sc *scope) {
	v, ok := t.Value.(*pyast.Name)
	if !ok {
		return
	}
	for _, o := range w.lookup(v.Id, sc) {
		if o.owner != nil {
			o.owner.assign(t.Attr, b, none)
		}
	}
}

func (w *walker) bindSeq(elts []pyast.Expr, value pyast.Expr, sc *scope) {
	var vals []pyast.Expr
	switch v := value.(type) {
	case *pyast.Tuple:
		vals = v.Elts
	case *pyast.List:
		vals = v.Elts
	}
	if len(vals) != len(elts) || slices.ContainsFunc(vals, isStarred) || slices.ContainsFunc(elts, isStarred) {
		// MAJOR, MINOR = map(int, numba.__version__.split(".")[:2]): each
		// name holds a part of the version.
		tested := w.versions(value, sc)
		for _, e := range elts {
			w.unbind(e, sc)
			if n, ok := e.(*pyast.Name); ok && len(tested) > 0 {
				w.flags[n.Id] = tested
			}
		}
		return
	}
	for i, e := range elts {
		w.bind(e, vals[i], sc)
	}
}

func isStarred(e pyast.Expr) bool {
	_, ok := e.(*pyast.Starred)
	return ok
}

// unbind binds the names of the target t to nothing followed (a loop's
// variable, del, an unpacking not followed).
func (w *walker) unbind(t pyast.Expr, sc *scope) {
	switch t := t.(type) {
	case *pyast.Name:
		sc.set(t.Id, nil)
	case *pyast.Tuple:
		for _, e := range t.Elts {
			w.unbind(e, sc)
		}
	case *pyast.List:
		for _, e := range t.Elts {
			w.unbind(e, sc)
		}
	case *pyast.Attribute:
		w.storeAttr(t, nil, false, sc)
	case *pyast.Starred:
		w.unbind(t.Value, sc)
	}
}

// segmentPos returns where the last segment of the dotted name written at
// start is: `import numba . core` names core at the second line's end when
// the source says so. When the text is not the name (it cannot be, in a
// tree pyast built, but the position must never point elsewhere), start.
func segmentPos(src []byte, start pyast.Pos, dotted string) pyast.Pos {
	i := int(start)
	segs := strings.Split(dotted, ".")
	last := i
	for k, seg := range segs {
		i = skipSpace(src, i)
		if !bytes.HasPrefix(src[min(i, len(src)):], []byte(seg)) {
			return start
		}
		last = i
		i += len(seg)
		if k < len(segs)-1 {
			i = skipSpace(src, i)
			if i >= len(src) || src[i] != '.' {
				return start
			}
			i++
		}
	}
	return pyast.Pos(last)
}

// skipSpace skips blanks and line continuations between the parts of a
// dotted name.
func skipSpace(src []byte, i int) int {
	for i < len(src) {
		switch {
		case src[i] == ' ' || src[i] == '\t' || src[i] == '\f':
			i++
		case src[i] == '\\' && i+1 < len(src) && (src[i+1] == '\n' || src[i+1] == '\r'):
			i += 2
			if src[i-1] == '\r' && i < len(src) && src[i] == '\n' {
				i++
			}
		default:
			return i
		}
	}
	return i
}
