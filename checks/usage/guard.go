package usage

import (
	"bytes"
	"slices"

	"github.com/pinbot-dev/pinbot/internal/pyast"
)

// A guard is what the code around a reference does when a name is missing:
// a try that catches it (pkg -1: for any package), or a test of a package
// (an if, a while, a conditional expression, and/or, a skipif decorator)
// that the code runs only when it passes or only when it fails. The list
// holds each package's test once and one catch, so it stays short however
// deep the code.
type guard struct {
	pkg    int
	test   bool
	parent *guard
}

// covers reports whether g guards references to the package pkg.
func (g *guard) covers(pkg int) bool {
	for ; g != nil; g = g.parent {
		if g.pkg == pkg || g.pkg == -1 {
			return true
		}
	}
	return false
}

// caught returns g inside a try (or a contextlib.suppress) that catches
// what a missing module or attribute raises.
func (g *guard) caught() *guard {
	for h := g; h != nil; h = h.parent {
		if h.pkg == -1 {
			return g
		}
	}
	return &guard{pkg: -1, parent: g}
}

// tested returns g under a test of each of pkgs.
func (g *guard) tested(pkgs []int) *guard {
	for _, p := range pkgs {
		if !g.testsPkg(p) {
			g = &guard{pkg: p, test: true, parent: g}
		}
	}
	return g
}

func (g *guard) testsPkg(pkg int) bool {
	for ; g != nil; g = g.parent {
		if g.test && g.pkg == pkg {
			return true
		}
	}
	return false
}

// tests returns the tests of g without its catches: what guards the body
// of a function defined in g. A function defined under a test exists only
// when the test passed, but a try around its definition does not catch
// what its calls raise.
func (g *guard) tests() *guard {
	var pkgs []int
	for h := g; h != nil; h = h.parent {
		if h.test {
			pkgs = append(pkgs, h.pkg)
		}
	}
	slices.Reverse(pkgs)
	return (*guard)(nil).tested(pkgs)
}

// catching are the exceptions whose handlers guard a name that may be
// missing: ImportError and its ModuleNotFoundError, AttributeError, and
// what is broader than both.
var catching = map[string]bool{
	"ImportError": true, "ModuleNotFoundError": true, "AttributeError": true,
	"Exception": true, "BaseException": true,
}

// catches reports whether one of a try's handlers catches what a missing
// module or attribute raises.
func catches(hs []*pyast.ExceptHandler) bool {
	for _, h := range hs {
		if catchesType(h.Type, 0) {
			return true
		}
	}
	return false
}

// catchesType reports whether an except clause's type (nil: a bare except)
// names one of catching, alone or in a tuple.
func catchesType(e pyast.Expr, depth int) bool {
	switch e := e.(type) {
	case nil:
		return true
	case *pyast.Name:
		return catching[e.Id]
	case *pyast.Attribute:
		return catching[e.Attr] // builtins.ImportError
	case *pyast.Tuple:
		if depth < 8 {
			for _, x := range e.Elts {
				if catchesType(x, depth+1) {
					return true
				}
			}
		}
	}
	return false
}

// suppresses reports whether a with item is contextlib.suppress of what a
// missing module or attribute raises.
func (w *walker) suppresses(e pyast.Expr, sc *scope) bool {
	c, ok := e.(*pyast.Call)
	if !ok || !slices.Contains(w.quals(c.Func, sc), "contextlib.suppress") {
		return false
	}
	for _, a := range c.Args {
		if catchesType(a, 0) {
			return true
		}
	}
	return false
}

// versionAttrs are the attributes that say a package's version: a test
// reading one is a version test of the package.
var versionAttrs = map[string]bool{
	"__version__": true, "version": true, "VERSION": true, "version_info": true, "__version_info__": true,
}

// maxTestNodes bounds the nodes of a test expression tests reads: no real
// test is larger, and a hostile one costs no more.
const maxTestNodes = 10_000

// tests returns the packages the test e tests (each once, in the order
// met): e reads a package's version (Version(numba.__version__) >= ...,
// importlib.metadata.version("numba")), asks whether it has a name
// (hasattr(np, "trapezoid"), getattr with a default) or whether it could
// be imported (numba is not None, find_spec("numba")), or reads a name
// bound to such a test (HAS_NUMBA).
func (w *walker) tests(e pyast.Expr, sc *scope) []int {
	if e == nil {
		return nil
	}
	out := w.packagesIn(e, func(n pyast.Node, add func(int)) bool {
		switch n := n.(type) {
		case *pyast.Lambda, *pyast.ListComp, *pyast.SetComp, *pyast.DictComp, *pyast.GeneratorExp:
			return false
		case *pyast.Attribute:
			w.versionRead(n, sc, add)
			return false
		case *pyast.Call:
			if len(n.Args) == 0 {
				return true
			}
			if fn, ok := n.Func.(*pyast.Name); ok && (fn.Id == "hasattr" || fn.Id == "getattr") && sc.builtin(fn.Id) {
				for _, q := range w.quals(n.Args[0], sc) {
					add(w.an.pkgOf(q))
				}
			}
			if s, ok := stringLit(n.Args[0]); ok {
				for _, q := range w.quals(n.Func, sc) {
					switch q {
					case "importlib.util.find_spec", "pkgutil.find_loader", "importlib.find_loader":
						add(w.an.pkgOf(s))
					}
				}
			}
			w.versionRead(n, sc, add)
		}
		return true
	})
	for _, p := range w.available(e, sc, 0) {
		if p >= 0 && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

// packagesIn walks e, at most maxTestNodes of its nodes, and returns the
// packages visit adds and those of the flags e names (HAS_NUMBA, MINOR),
// each once, in the order met; visit says whether to walk n's children.
func (w *walker) packagesIn(e pyast.Expr, visit func(n pyast.Node, add func(int)) bool) []int {
	var out []int
	add := func(p int) {
		if p >= 0 && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	seen := 0
	pyast.Inspect(e, func(n pyast.Node) bool {
		if seen++; seen > maxTestNodes {
			return false
		}
		if name, ok := n.(*pyast.Name); ok {
			for _, p := range w.flags[name.Id] {
				add(p)
			}
		}
		return visit(n, add)
	})
	return out
}

// versionRead adds the packages whose version the node n reads: a chain
// through a version attribute rooted at a package's name
// (numba.__version__, tf.version.VERSION), or a call asking for a
// distribution's version (importlib.metadata.version("numba")).
func (w *walker) versionRead(n pyast.Node, sc *scope, add func(int)) {
	switch n := n.(type) {
	case *pyast.Attribute:
		root, ok := w.chainOf(n).(*pyast.Name)
		if !ok || !slices.ContainsFunc(w.chain, func(a *pyast.Attribute) bool { return versionAttrs[a.Attr] }) {
			return
		}
		for _, q := range w.quals(root, sc) {
			add(w.an.pkgOf(q))
		}
	case *pyast.Call:
		if len(n.Args) == 0 {
			return
		}
		if s, ok := stringLit(n.Args[0]); ok {
			for _, q := range w.quals(n.Func, sc) {
				switch q {
				case "importlib.metadata.version", "importlib_metadata.version", "pkg_resources.get_distribution":
					add(w.an.pkgNamed(s))
				}
			}
		}
	}
}

// versions returns the packages whose version the value e reads, anywhere
// in it (comprehensions included): V = tuple(map(int,
// numba.__version__.split("."))), NV = Version(numba.__version__). A name
// bound to such a value is a flag: comparing it tests the version.
func (w *walker) versions(e pyast.Expr, sc *scope) []int {
	if e == nil || !w.mayReadVersion(e) {
		return nil // most values: not walked twice
	}
	// A flag named in e (MINOR = VERSION[1] after VERSION = ...) reads
	// its version too: packagesIn adds it.
	return w.packagesIn(e, func(n pyast.Node, add func(int)) bool {
		switch n := n.(type) {
		case *pyast.Lambda:
			return false
		case *pyast.Attribute:
			w.versionRead(n, sc, add)
			return false
		case *pyast.Call:
			w.versionRead(n, sc, add)
		}
		return true
	})
}

// mayReadVersion reports whether the source text of e could read a
// version: it names one (version, VERSION, __version_info__), asks for a
// distribution, or names a flag.
func (w *walker) mayReadVersion(e pyast.Expr) bool {
	start, end := int(e.Pos()), int(e.End())
	if start < 0 || end > len(w.src) || start >= end {
		return true
	}
	text := w.src[start:end]
	if bytes.Contains(text, []byte("version")) || bytes.Contains(text, []byte("VERSION")) ||
		bytes.Contains(text, []byte("get_distribution")) {
		return true
	}
	for name := range w.flags {
		if bytes.Contains(text, []byte(name)) {
			return true
		}
	}
	return false
}

// flagLike reports whether an assigned value may be a test worth a flag
// (NEW = Version(numba.__version__) >= ..., HAS = hasattr(numba, "x"),
// OK = numba is not None): a comparison, a boolean operation, a not, or a
// call that asks about a package. Other values are not read as tests,
// which spares reading every assignment twice.
func flagLike(e pyast.Expr) bool {
	switch e := e.(type) {
	case *pyast.Compare, *pyast.BoolOp:
		return true
	case *pyast.UnaryOp:
		return e.Op == pyast.Not
	case *pyast.Call:
		switch lastName(e.Func) {
		case "hasattr", "getattr", "find_spec", "find_loader", "version", "get_distribution":
			return true
		}
	}
	return false
}

// available returns the packages whose availability the test e asks
// about: `if numba:`, `if numba is not None`, `if not FunctionIdentity`,
// and such tests joined by and, or, not.
func (w *walker) available(e pyast.Expr, sc *scope, depth int) []int {
	if depth > 16 {
		return nil
	}
	switch e := e.(type) {
	case *pyast.UnaryOp:
		if e.Op == pyast.Not {
			return w.available(e.Operand, sc, depth+1)
		}
	case *pyast.BoolOp:
		var out []int
		for _, v := range e.Values {
			out = append(out, w.available(v, sc, depth+1)...)
		}
		return out
	case *pyast.Compare:
		if len(e.Ops) == 1 && isNone(e.Comparators[0]) {
			return w.available(e.Left, sc, depth+1)
		}
	case *pyast.Name:
		var out []int
		for _, q := range w.quals(e, sc) {
			if p := w.an.pkgOf(q); p >= 0 {
				out = append(out, p)
			}
		}
		return out
	}
	return nil
}

func isNone(e pyast.Expr) bool {
	c, ok := e.(*pyast.Constant)
	return ok && c.Kind == pyast.ConstNone
}

// skipTest returns the packages a decorator skips the function on:
// pytest.mark.skipif(not HAS_NUMBA, ...), unittest.skipUnless(hasattr(...)).
func (w *walker) skipTest(d pyast.Expr, sc *scope) []int {
	c, ok := d.(*pyast.Call)
	if !ok || len(c.Args) == 0 {
		return nil
	}
	var last string
	switch f := c.Func.(type) {
	case *pyast.Name:
		last = f.Id
	case *pyast.Attribute:
		last = f.Attr
	}
	switch last {
	case "skipif", "skipIf", "skipUnless":
		return w.tests(c.Args[0], sc)
	}
	return nil
}

// flagShim records the names a guarded import's try sets to a constant
// (HAS_NUMBA = True in the body, False in the handler) as tests of the
// packages the body imports.
func (w *walker) flagShim(s *pyast.Try, sc *scope) {
	var pkgs []int
	for _, st := range s.Body {
		switch st := st.(type) {
		case *pyast.Import:
			for _, a := range st.Names {
				if p := w.an.pkgOf(a.Name); p >= 0 && !slices.Contains(pkgs, p) {
					pkgs = append(pkgs, p)
				}
			}
		case *pyast.ImportFrom:
			if p := w.an.pkgOf(st.Module); st.Level == 0 && p >= 0 && !slices.Contains(pkgs, p) {
				pkgs = append(pkgs, p)
			}
		}
	}
	if len(pkgs) == 0 {
		return
	}
	flag := func(body []pyast.Stmt) {
		for _, st := range body {
			a, ok := st.(*pyast.Assign)
			if !ok {
				continue
			}
			if _, ok := a.Value.(*pyast.Constant); !ok {
				continue
			}
			for _, t := range a.Targets {
				if n, ok := t.(*pyast.Name); ok {
					w.flags[n.Id] = pkgs
				}
			}
		}
	}
	flag(s.Body)
	for _, h := range s.Handlers {
		flag(h.Body)
	}
}
