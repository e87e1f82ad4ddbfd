package probe

import (
	"fmt"
	"slices"
	"strings"
)

// Star imports and __all__: a module's names include what its "from m import *"
// statements bring in, decided from m's own file when m is in the wheel: the
// names in m's __all__ when it has one (a literal list or tuple of strings,
// concatenations of those and of other modules' __all__, and in-place
// += / extend / append / remove), else every name m binds that does not start
// with an underscore. A star import from a compiled module or a module outside
// the wheel may bring in anything: a look-up it could answer is undecided and
// says which import hides the answer.

// topBinding finds the binding of name in a module: its own statements and
// the star imports that export name, whichever comes last. A star import that
// exports it comes back as the equivalent "from m import name". found is false
// when nothing binds it (st is then Pass).
func (w *wheel) topBinding(mod *sobj, name string, hops int) (b *pyBinding, st Status, why string, found bool) {
	sc := mod.file.top
	type entry struct {
		b     *pyBinding
		maybe string // why a star import may or may not bind it
	}
	var es []entry
	for _, b := range sc.names[name] {
		es = append(es, entry{b: b})
	}
	for _, star := range sc.stars {
		ex, why := w.exports(mod.module, star, name, hops+1)
		switch ex {
		case yes:
			e := *star
			e.kind, e.name, e.attr = bFrom, name, name
			es = append(es, entry{b: &e})
		case maybe:
			es = append(es, entry{b: star, maybe: why})
		}
	}
	if len(es) == 0 {
		return nil, Pass, "", false
	}
	slices.SortStableFunc(es, func(a, b entry) int { return a.b.line - b.b.line })
	last := -1
	for i, e := range es {
		if e.maybe == "" && e.b.cond == "" {
			last = i
		}
	}
	where := "module " + mod.module
	if last+1 < len(es) {
		e := es[last+1]
		switch {
		case e.maybe != "":
			return nil, Unknown, fmt.Sprintf("%s may come from %s", name, e.maybe), true
		case last < 0:
			return nil, Unknown, fmt.Sprintf("%s is bound in %s only conditionally (%s)", name, where, e.b.cond), true
		}
		return nil, Unknown, fmt.Sprintf("%s in %s may be rebound at line %d (%s)", name, where, e.b.line, e.b.cond), true
	}
	b = es[last].b
	if line, ok := sc.deleted[name]; ok && line > b.line {
		return nil, Unknown, fmt.Sprintf("%s in %s is deleted at line %d", name, where, line), true
	}
	if b.kind == bAnnotated {
		return nil, Unknown, fmt.Sprintf("%s in %s is only annotated (line %d), not assigned", name, where, b.line), true
	}
	return b, Pass, "", true
}

// exports says whether the star import star, in module cur, binds name.
func (w *wheel) exports(cur string, star *pyBinding, name string, hops int) (tri, string) {
	stmt := fmt.Sprintf("from %s import * at %s line %d", star.module, cur, star.line)
	abs, err := absModule(cur, w.isPackage(cur), star.module)
	if err != nil {
		return maybe, fmt.Sprintf("%s: %v", stmt, err)
	}
	t, why := w.moduleExports(abs, name, hops)
	if t == maybe {
		why = fmt.Sprintf("%s (%s)", stmt, why)
	}
	return t, why
}

// starKey identifies a (module, name) question about star imports.
type starKey struct{ module, name string }

type starAnswer struct {
	t   tri
	why string
}

// moduleExports says whether "from abs import *" binds name. Answers are
// remembered per wheel, which also cuts import cycles short.
func (w *wheel) moduleExports(abs, name string, hops int) (tri, string) {
	key := starKey{abs, name}
	if a, ok := w.starMemo[key]; ok {
		if a == nil {
			return maybe, "an import cycle through " + abs
		}
		return a.t, a.why
	}
	if hops > maxHops {
		return maybe, "too many imports to follow"
	}
	w.starMemo[key] = nil
	t, why := w.computeExports(abs, name, hops)
	w.starMemo[key] = &starAnswer{t, why}
	return t, why
}

func (w *wheel) computeExports(abs, name string, hops int) (tri, string) {
	mod, st, why, ok := w.module(abs)
	switch {
	case !ok:
		return maybe, fmt.Sprintf("module %s is not in %s", abs, w.name)
	case st != Pass:
		return maybe, why
	case mod.file == nil:
		return no, "" // a namespace package binds nothing
	}
	names, st, why, has := w.allNames(mod, hops+1)
	switch {
	case st != Pass:
		// A computed __all__ can only list names the module has: "import *"
		// fails on any other. A name the module cannot have is not exported.
		if _, _, _, found := w.topBinding(mod, name, hops+1); !found {
			if _, _, _, sub := w.module(abs + "." + name); !sub && runtimeNames(mod.file, name) == "" &&
				len(mod.file.top.names["__getattr__"]) == 0 {
				return no, ""
			}
		}
		return maybe, why
	case has && slices.Contains(names, name):
		return yes, ""
	case has:
		return no, ""
	case strings.HasPrefix(name, "_"):
		return no, ""
	}
	_, st, why, found := w.topBinding(mod, name, hops+1)
	switch {
	case found && st == Pass:
		return yes, ""
	case found:
		return maybe, why
	}
	if why := runtimeNames(mod.file, name); why != "" {
		return maybe, fmt.Sprintf("module %s may make names at run time: %s", abs, why)
	}
	return no, ""
}

// runtimeNames says why names may appear in a module's namespace at run time
// other than through a module __getattr__ ("" if nothing suggests they do).
func runtimeNames(f *pyFile, name string) string {
	var why []string
	if line, ok := f.globals[name]; ok && name != "" {
		why = append(why, fmt.Sprintf("a function declares global %s at line %d", name, line))
	}
	why = append(why, f.top.dynamic...)
	if f.broken != "" {
		why = append(why, "the file could not be read to the end: "+f.broken)
	}
	if len(why) > 3 {
		why = append(why[:3], "...")
	}
	return strings.Join(why, "; ")
}

// allNames returns a module's __all__ (has is false when it binds none), or
// Unknown when __all__ is computed in a way this reader does not follow.
func (w *wheel) allNames(mod *sobj, hops int) (names []string, st Status, why string, has bool) {
	if hops > maxHops {
		return nil, Unknown, "too many imports to follow", true
	}
	sc := mod.file.top
	steps := append(slices.Clone(sc.names["__all__"]), sc.allOps...)
	if len(steps) == 0 {
		return nil, Pass, "", false
	}
	slices.SortStableFunc(steps, func(a, b *pyBinding) int { return a.line - b.line })
	var cur []string
	defined := false
	for _, b := range steps {
		where := fmt.Sprintf("%s line %d", mod.module, b.line)
		if b.cond != "" {
			return nil, Unknown, fmt.Sprintf("__all__ changes conditionally at %s (%s)", where, b.cond), true
		}
		var vals []string
		if b.kind == bAssign || b.attr == "+=" || b.attr == "extend" {
			var ok bool
			if vals, ok = w.allExpr(mod, b.value, b.valueMask, cur, hops); !ok {
				return nil, Unknown, fmt.Sprintf("__all__ is computed at %s", where), true
			}
		}
		switch {
		case b.kind == bAssign:
			cur, defined = vals, true
		case b.kind != bOther || !defined:
			return nil, Unknown, fmt.Sprintf("__all__ is computed at %s", where), true
		case b.attr == "+=" || b.attr == "extend":
			cur = append(slices.Clone(cur), vals...)
		case b.attr == "append" || b.attr == "remove":
			s, ok := stringLiteral(b.value, b.valueMask)
			if !ok {
				return nil, Unknown, fmt.Sprintf("__all__ is computed at %s", where), true
			}
			if b.attr == "append" {
				cur = append(slices.Clone(cur), s)
			} else if i := slices.Index(cur, s); i >= 0 {
				cur = slices.Delete(slices.Clone(cur), i, i+1)
			}
		default:
			return nil, Unknown, fmt.Sprintf("__all__ is changed at %s in a way static mode does not follow", where), true
		}
	}
	if !defined {
		return nil, Unknown, fmt.Sprintf("__all__ of %s is changed but never assigned", mod.module), true
	}
	return cur, Pass, "", true
}

// allExpr evaluates the value of an __all__ assignment: a list or tuple of
// strings, the current __all__, another module's __all__ (m.__all__), and
// "+" of those.
func (w *wheel) allExpr(mod *sobj, text, mask string, cur []string, hops int) ([]string, bool) {
	var out []string
	for _, sg := range splitTopLevel(mask, '+') {
		tm, tt := strings.TrimSpace(mask[sg[0]:sg[1]]), strings.TrimSpace(text[sg[0]:sg[1]])
		switch {
		case tm == "":
			return nil, false
		case tm == "__all__":
			out = append(out, cur...)
		case (tm[0] == '[' || tm[0] == '(') && matchBracket(tm, 0) == len(tm)-1:
			inner, innerT := tm[1:len(tm)-1], tt[1:len(tt)-1]
			for _, is := range splitTopLevel(inner, ',') {
				im, it := strings.TrimSpace(inner[is[0]:is[1]]), strings.TrimSpace(innerT[is[0]:is[1]])
				if im == "" {
					continue // a trailing comma
				}
				s, ok := stringLiteral(it, im)
				if !ok {
					return nil, false
				}
				out = append(out, s)
			}
		case strings.HasSuffix(tm, ".split()"):
			// __all__ = """a b c""".split(), as numba.core.types has it
			lit, ok := stringLiteral(tt[:len(tt)-len(".split()")], tm[:len(tm)-len(".split()")])
			if !ok {
				return nil, false
			}
			out = append(out, strings.Fields(lit)...)
		case strings.HasSuffix(tm, ".__all__") && isDotted(tm):
			ref := strings.ReplaceAll(strings.TrimSuffix(tm, ".__all__"), " ", "")
			o, st, _ := w.lookupName(&sobj{module: mod.module, file: mod.file, owner: mod.file.top}, ref, hops+1)
			if st != Pass || o.kind != 0 || o.file == nil {
				return nil, false
			}
			names, st, _, has := w.allNames(o, hops+1)
			if st != Pass || !has {
				return nil, false
			}
			out = append(out, names...)
		default:
			return nil, false
		}
	}
	return out, true
}

// stringLiteral returns the value of a plain string literal ("x", 'x', r"x",
// triple-quoted) with no escapes; ok is false for anything else.
func stringLiteral(text, mask string) (string, bool) {
	text, mask = strings.TrimSpace(text), strings.TrimSpace(mask)
	i := strings.IndexAny(mask, `"'`)
	if i < 0 || i > 1 || (i == 1 && mask[0] != 'r' && mask[0] != 'R' && mask[0] != 'u' && mask[0] != 'U') {
		return "", false
	}
	q := mask[i : i+1]
	if strings.HasPrefix(mask[i:], strings.Repeat(q, 3)) && len(mask) >= i+6 {
		q = strings.Repeat(q, 3)
	}
	if len(mask) < i+2*len(q) || !strings.HasSuffix(mask, q) || strings.Count(mask, q[:1]) != 2*len(q) {
		return "", false
	}
	s := text[i+len(q) : len(text)-len(q)]
	if strings.Contains(s, `\`) {
		return "", false
	}
	return s, true
}
