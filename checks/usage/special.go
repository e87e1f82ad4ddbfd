package usage

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/pinbot-dev/pinbot/internal/pyast"
)

// The calls that name a package's attributes in strings: Python's
// setattr, getattr, hasattr and delattr; unittest.mock's patch (and the
// mock backport's, and pytest-mock's mocker.patch); pytest's monkeypatch;
// imports by name.

// patchForms are unittest.mock's patchers by dotted name, and the form of
// their arguments.
var patchForms = map[string]string{
	"unittest.mock.patch": "patch", "unittest.mock.patch.object": "object",
	"unittest.mock.patch.multiple": "multiple", "unittest.mock.patch.dict": "dict",
	"mock.patch": "patch", "mock.patch.object": "object",
	"mock.patch.multiple": "multiple", "mock.patch.dict": "dict",
}

// patchOptions are the keyword arguments of patch.multiple that are not
// attributes to replace.
var patchOptions = map[string]bool{"spec": true, "spec_set": true, "create": true, "new_callable": true, "autospec": true}

// monkeyPatchClasses are pytest's MonkeyPatch, whose instances (the
// monkeypatch fixture, MonkeyPatch.context()) replace attributes.
var monkeyPatchClasses = []string{"pytest.MonkeyPatch", "_pytest.monkeypatch.MonkeyPatch"}

// importers are the functions that import a module named by a string.
var importers = map[string]bool{"importlib.import_module": true, "pytest.importorskip": true}

// special records what the call c names in strings or literal attribute
// names, beside what its callee and arguments are.
func (w *walker) special(c *pyast.Call, it item) {
	sc := it.sc
	switch lastName(c.Func) {
	case "setattr", "getattr", "hasattr", "delattr":
		switch f := c.Func.(type) {
		case *pyast.Name:
			if sc.builtin(f.Id) {
				w.attrCall(c, f.Id, it)
			}
		case *pyast.Attribute:
			if (f.Attr == "setattr" || f.Attr == "delattr") && w.monkeypatch(f.Value, sc) {
				w.monkeypatchCall(c, f.Attr == "delattr", it)
			}
		}
	case "patch", "object", "multiple", "dict":
		if form := w.patchForm(c.Func, sc); form != "" {
			w.patchCall(c, form, it)
		}
	case "import_module", "importorskip":
		w.importCall(c, it)
	}
}

// lastName returns the name a callee ends with: f for f(), c for a.b.c().
func lastName(e pyast.Expr) string {
	switch e := e.(type) {
	case *pyast.Name:
		return e.Id
	case *pyast.Attribute:
		return e.Attr
	}
	return ""
}

// attrCall records setattr(obj, "x", v), getattr(obj, "x"[, default]),
// hasattr(obj, "x") and delattr(obj, "x") of a package's obj, an instance
// of its class, or self in a subclass. A hasattr, and a getattr with a
// default, are ready for the name to be missing: guarded.
func (w *walker) attrCall(c *pyast.Call, fn string, it item) {
	if len(c.Args) < 2 {
		return
	}
	attr, ok := stringLit(c.Args[1])
	if !ok || !isIdent(attr) {
		return
	}
	pos := w.stringPos(c.Args[1], 0)
	guarded := fn == "hasattr" || fn == "getattr" && len(c.Args) >= 3
	kind, call := Attribute, (*CallShape)(nil)
	switch {
	case fn == "setattr":
		kind = Assign
	case fn == "delattr":
		kind = Delete
	case fn == "getattr" && it.role == callee:
		kind, call = Call, shape(it.call, false)
	}
	b := w.targetsOf(c.Args[0], it.sc, 0)
	multi := w.watchedTargets(b) > 1
	for _, t := range b {
		if t.owner != nil && kind == Assign {
			t.owner.assign(attr, nil, false) // setattr(self, "ctx", v): not followed
		}
		switch {
		case t.self != nil:
			if kind == Attribute || kind == Call {
				if call != nil {
					call.Bound = true
				}
				w.selfAttr(t.self, attr, call, pos, it, guarded)
			}
		case t.inst:
			if kind == Attribute || kind == Call {
				name := t.qual + "." + attr
				if pkg := w.an.pkgOf(name); pkg >= 0 {
					if call != nil {
						call.Bound = true
					}
					w.add(pkg, name, t.module, Instance, call, pos, guarded || it.g.covers(pkg))
				}
			}
		case t.qual != "" && t.local == nil:
			name := t.qual + "." + attr
			if pkg := w.an.pkgOf(name); pkg >= 0 {
				w.add(pkg, name, t.module, kind, call, pos, guarded || multi || it.g.covers(pkg))
			}
		}
	}
}

// monkeypatch reports whether recv is pytest's monkeypatch: the fixture's
// name (bound to nothing the analysis follows), or an instance of
// MonkeyPatch.
func (w *walker) monkeypatch(recv pyast.Expr, sc *scope) bool {
	n, ok := recv.(*pyast.Name)
	if !ok {
		return false
	}
	b, _ := sc.lookup(n.Id)
	if len(b) == 0 {
		return n.Id == "monkeypatch"
	}
	for _, t := range b {
		if t.inst && slices.Contains(monkeyPatchClasses, t.qual) {
			return true
		}
	}
	return false
}

// monkeypatchCall records monkeypatch.setattr("pkg.mod.attr", v) and
// monkeypatch.delattr("pkg.mod.attr"), whose target is a dotted string,
// and monkeypatch.setattr(obj, "attr", v) and delattr(obj, "attr").
func (w *walker) monkeypatchCall(c *pyast.Call, del bool, it item) {
	kind := Assign
	if del {
		kind = Delete
	}
	stringForm := len(c.Args) == 2 && !del || len(c.Args) == 1 && del
	if s, ok := stringLit(firstArg(c)); ok && stringForm {
		w.stringRef(c.Args[0], s, kind, it)
		return
	}
	if len(c.Args) < 2 {
		return
	}
	w.literalAttr(c.Args[0], c.Args[1], kind, it)
}

// literalAttr records kind of the attribute named by the string literal
// attrExpr of what obj stands for, when it is a package's name.
func (w *walker) literalAttr(obj, attrExpr pyast.Expr, kind Kind, it item) {
	attr, ok := stringLit(attrExpr)
	if !ok || !isIdent(attr) {
		return
	}
	w.attrOf(obj, attr, kind, w.stringPos(attrExpr, 0), it)
}

// attrOf records kind of the attribute attr of what obj stands for, when
// it is a package's name, at pos.
func (w *walker) attrOf(obj pyast.Expr, attr string, kind Kind, pos pyast.Pos, it item) {
	b := w.targetsOf(obj, it.sc, 0)
	multi := w.watchedTargets(b) > 1
	for _, t := range b {
		if t.qual == "" || t.inst || t.local != nil {
			continue
		}
		name := t.qual + "." + attr
		if pkg := w.an.pkgOf(name); pkg >= 0 {
			w.add(pkg, name, t.module, kind, nil, pos, multi || it.g.covers(pkg))
		}
	}
}

// patchForm returns the form of the patcher f names ("patch", "object",
// "multiple", "dict"), or "": unittest.mock's and mock's by dotted name,
// and pytest-mock's fixture's, mocker.patch and mocker.patch.object.
func (w *walker) patchForm(f pyast.Expr, sc *scope) string {
	for _, q := range w.quals(f, sc) {
		if form := patchForms[q]; form != "" {
			return form
		}
	}
	a, ok := f.(*pyast.Attribute)
	if !ok {
		return ""
	}
	root, ok := w.chainOf(a).(*pyast.Name)
	if !ok || root.Id != "mocker" || len(w.chain) > 2 || w.chain[0].Attr != "patch" {
		return ""
	}
	if b, _ := sc.lookup(root.Id); len(b) > 0 {
		return ""
	}
	if len(w.chain) == 1 {
		return "patch"
	}
	return patchForms["mock.patch."+w.chain[1].Attr]
}

// patchCall records the attributes a patcher replaces: patch("a.b.C.x"),
// patch.object(C, "x"), patch.multiple("a.b", x=..., y=...) or
// patch.multiple(C, x=...), patch.dict("a.b.REGISTRY", ...).
func (w *walker) patchCall(c *pyast.Call, form string, it item) {
	switch form {
	case "patch", "dict":
		arg := firstArg(c)
		for _, k := range c.Keywords {
			if k.Arg == "target" || form == "dict" && k.Arg == "in_dict" {
				arg = k.Value
			}
		}
		if s, ok := stringLit(arg); ok {
			w.stringRef(arg, s, Assign, it)
		}
	case "object":
		if len(c.Args) >= 2 {
			w.literalAttr(c.Args[0], c.Args[1], Assign, it)
		}
	case "multiple":
		if len(c.Args) == 0 {
			return
		}
		s, isString := stringLit(c.Args[0])
		for _, k := range c.Keywords {
			if k.Arg == "" || patchOptions[k.Arg] {
				continue
			}
			if isString {
				w.stringRefAt(s+"."+k.Arg, Assign, k.Pos(), it)
			} else {
				w.attrOf(c.Args[0], k.Arg, Assign, k.Pos(), it)
			}
		}
	}
}

// importCall records importlib.import_module("a.b") and
// pytest.importorskip("a.b"), which import the module the string names
// (importorskip skips the test when it cannot: guarded).
func (w *walker) importCall(c *pyast.Call, it item) {
	arg := firstArg(c)
	s, ok := stringLit(arg)
	if !ok || !dottedIdent(s) {
		return
	}
	skip := false
	found := false
	for _, q := range w.quals(c.Func, it.sc) {
		if importers[q] {
			found, skip = true, skip || q == "pytest.importorskip"
		}
	}
	if !found {
		return
	}
	w.markImported(s)
	if pkg := w.an.pkgOf(s); pkg >= 0 {
		pos := w.stringPos(arg, strings.LastIndexByte(s, '.')+1)
		w.add(pkg, s, s, Import, nil, pos, skip || it.g.covers(pkg))
	}
}

// callTargets returns what the call c stands for when it is one of the
// calls above: the module an import by name imports, getattr's attribute,
// a MonkeyPatch; nil for any other call.
func (w *walker) callTargets(c *pyast.Call, sc *scope) binding {
	switch lastName(c.Func) {
	case "import_module", "importorskip":
		s, ok := stringLit(firstArg(c))
		if !ok || !dottedIdent(s) {
			return nil
		}
		for _, q := range w.quals(c.Func, sc) {
			if importers[q] {
				return binding{{qual: s, module: s}}
			}
		}
	case "getattr":
		fn, ok := c.Func.(*pyast.Name)
		if !ok || !sc.builtin(fn.Id) || len(c.Args) < 2 {
			return nil
		}
		attr, ok := stringLit(c.Args[1])
		if !ok || !isIdent(attr) {
			return nil
		}
		var out binding
		for _, t := range w.targetsOf(c.Args[0], sc, maxTargetsDepth) {
			if t.qual != "" && !t.inst && t.local == nil {
				out = union(out, binding{{qual: t.qual + "." + attr, module: t.module}})
			}
		}
		return out
	case "context":
		a, ok := c.Func.(*pyast.Attribute)
		if ok && w.monkeypatch(a.Value, sc) || slices.ContainsFunc(w.quals(a.Value, sc), func(q string) bool { return slices.Contains(monkeyPatchClasses, q) }) {
			return binding{{qual: monkeyPatchClasses[0], module: "pytest", inst: true}}
		}
	}
	return nil
}

// stringRef records kind of the dotted name a string literal e holds (a
// patch target), at its last segment.
func (w *walker) stringRef(e pyast.Expr, s string, kind Kind, it item) {
	if !dottedIdent(s) {
		return
	}
	w.stringRefAt(s, kind, w.stringPos(e, strings.LastIndexByte(s, '.')+1), it)
}

func (w *walker) stringRefAt(s string, kind Kind, pos pyast.Pos, it item) {
	if !dottedIdent(s) {
		return
	}
	if pkg := w.an.pkgOf(s); pkg >= 0 {
		w.add(pkg, s, "", kind, nil, pos, it.g.covers(pkg))
	}
}

// firstArg returns the first positional argument of c, or nil.
func firstArg(c *pyast.Call) pyast.Expr {
	if len(c.Args) == 0 {
		return nil
	}
	return c.Args[0]
}

// dottedIdent reports whether s is a dotted name of identifiers: a.b.C.
func dottedIdent(s string) bool {
	if s == "" {
		return false
	}
	for _, seg := range strings.Split(s, ".") {
		if !isIdent(seg) {
			return false
		}
	}
	return true
}

// isIdent reports whether s is a Python identifier (letters, digits and
// _, not starting with a digit; non-ASCII letters as Unicode says).
func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if r == utf8.RuneError {
			return false
		}
		if r == '_' || unicode.IsLetter(r) || i > 0 && (unicode.IsDigit(r) || unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Mc, r)) {
			continue
		}
		return false
	}
	return true
}
