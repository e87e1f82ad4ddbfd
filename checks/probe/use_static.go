package probe

import (
	"fmt"
	"strings"
)

// Static uses: resolved by the static probes' resolver over the wheel (or a
// conda package's site-packages, handed over as one), with its "cannot
// decide" rules (a module __getattr__, star imports and modules it cannot
// read, values computed at run time: unknown); kinds from def, class and
// module, and from what valueFacts knows of an assignment; signatures from a
// def's parameters where they can be read.

// use resolves one use in the wheel.
func (w *wheel) use(u *Use) useAnswer {
	var obj *sobj
	var st Status
	var why string
	switch {
	case u.Target != "":
		obj, st, why = w.resolve(u.Target, 0)
	case u.Instance:
		return w.instanceUse(u)
	default:
		obj, st, why = w.chain(u.Module, u.Attrs)
	}
	if st != Pass {
		// A compiled module hides its names, not itself: import m._ext
		// finds the file.
		if file := w.compiled[u.Name()]; st == Unknown && file != "" && strings.Contains(why, compiledModule) && !u.Instance {
			return useAnswer{status: Pass, kind: KindModule, detail: fmt.Sprintf("found compiled module %s (%s)", u.Name(), file), callable: no}
		}
		return useAnswer{status: st, detail: why}
	}
	a := w.answer(obj, u)
	if u.Call != nil && u.Call.Bound && obj.kind == bDef && obj.owner != nil && obj.owner.class {
		a.self = !hasDecorator(obj.b.decorators, "staticmethod", "classmethod")
	}
	return a
}

// chain imports module as the code does, then gets each attribute.
func (w *wheel) chain(module string, attrs []string) (*sobj, Status, string) {
	obj, st, why := w.importModule(module)
	seg := strings.Count(module, ".") + 1
	for i := 0; st == Pass && i < len(attrs); i++ {
		obj, st, why = w.member(obj, attrs[i], seg+i+1, 0)
	}
	return obj, st, why
}

// importModule finds the module `import name` imports: a file (or package,
// or namespace package) of the wheel. A top-level package the wheel does not
// have, a namespace package, or a package that may add submodules at run
// time (sys.modules, __path__) cannot decide that a submodule is missing.
func (w *wheel) importModule(name string) (*sobj, Status, string) {
	parts := strings.Split(name, ".")
	var last *sobj
	for i := 1; i <= len(parts); i++ {
		mod := strings.Join(parts[:i], ".")
		o, st, why, ok := w.module(mod)
		switch {
		case ok && st != Pass:
			return nil, st, why
		case ok:
			last = o
			continue
		case i == 1:
			return nil, Unknown, fmt.Sprintf("module %s is not in %s (another distribution may provide it)", mod, w.name)
		case last.file == nil:
			return nil, Unknown, fmt.Sprintf("%s is a namespace package; another distribution may provide %s", last.module, mod)
		}
		src := strings.Join(last.file.lines, "\n")
		for _, hint := range []string{"sys.modules", "__path__"} {
			if strings.Contains(src, hint) {
				return nil, Unknown, fmt.Sprintf("the wheel has no module %s, but %s uses %s, which may provide it at run time", mod, last.module, hint)
			}
		}
		return nil, Fail, fmt.Sprintf("no module named %s: the wheel has no file %s.py or %s/__init__.py",
			mod, strings.ReplaceAll(mod, ".", "/"), strings.ReplaceAll(mod, ".", "/"))
	}
	return last, Pass, ""
}

// instanceUse resolves an instance's attribute: the class's (its body or a
// base's), else one a method of the class or a base assigns on self.
func (w *wheel) instanceUse(u *Use) useAnswer {
	attrs, attr := u.Attrs[:len(u.Attrs)-1], u.Attrs[len(u.Attrs)-1]
	cls, st, why := w.chain(u.Module, attrs)
	if st != Pass {
		return useAnswer{status: st, detail: why}
	}
	parent := strings.Join(append([]string{u.Module}, attrs...), ".")
	if cls.kind != bClass {
		return useAnswer{status: Unknown, detail: fmt.Sprintf("%s is %s, not a class: what the instance it makes holds cannot be told", parent, cls.describe())}
	}
	seg := len(strings.Split(parent, ".")) + 1
	obj, st, why := w.classMember(cls, attr, seg, 0, map[*pyBinding]bool{})
	switch {
	case st == Pass && obj.kind == bDef && isPropertyDef(obj.b):
		return useAnswer{status: Pass, detail: fmt.Sprintf("%s.%s is a property of the class, computed on access", parent, attr),
			callable: maybe, nosig: "what the property returns is not known"}
	case st == Pass:
		a := w.answer(obj, u)
		if u.Call != nil && u.Call.Bound && obj.kind == bDef {
			a.self = !hasDecorator(obj.b.decorators, "staticmethod", "classmethod")
		}
		return a
	}
	// Not in the class (or hidden by what static reading cannot see): a
	// method that assigns self.attr decides that instances have it.
	ist, idetail := w.instanceAttribute(parent + "." + attr)
	switch {
	case ist == Pass:
	case st == Unknown:
		return useAnswer{status: Unknown, detail: why}
	case ist == Fail:
		return useAnswer{status: Fail, detail: fmt.Sprintf("%s; %s", why, idetail)}
	default:
		return useAnswer{status: ist, detail: idetail}
	}
	return useAnswer{status: Pass, detail: idetail, callable: maybe, nosig: fmt.Sprintf("what self.%s holds is set at run time", attr)}
}

func isPropertyDef(b *pyBinding) bool {
	for _, d := range b.decorators {
		if isPropertyDeco(d) {
			return true
		}
	}
	return false
}

// answer describes a resolved object: its kind, whether it is callable
// and, for a call, its signature.
func (w *wheel) answer(o *sobj, u *Use) useAnswer {
	f := w.facts(o)
	a := useAnswer{status: Pass, detail: "found " + o.describe(), callable: f.callable}
	switch {
	case f.isModule == yes:
		a.kind = KindModule
	case f.isClass == yes:
		a.kind = KindClass
	case f.callable == yes:
		a.kind = KindFunction
	case f.callable == no:
		a.kind = KindOther
	}
	if u.Call == nil || f.callable == no {
		return a
	}
	sig, st, why := w.callableSignature(o)
	if st != Pass {
		a.nosig = why
		return a
	}
	sig.Text = paramsText(sig.Params)
	a.sig = &sig
	return a
}
