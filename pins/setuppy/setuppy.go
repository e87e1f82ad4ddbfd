// Package setuppy reads the requirements of a setuptools setup.py
// (https://setuptools.pypa.io/en/latest/references/keywords.html) without
// running it: the file is parsed with internal/pyast, and only what is
// written out as literals is read.
//
// It finds the calls of setup() (setuptools', distutils', numpy.distutils'
// or scikit-build's, however imported, or any setup() given requirement
// keywords) and reads their install_requires, tests_require, setup_requires
// (build requirements) and extras_require arguments, also from a dict given
// as setup(**kwargs). A value is a list, tuple or set of requirement
// strings, a string, a dict of extras, or a name the module (or the
// function calling setup) assigns once to such a value, or once in each arm
// of an if statement (each arm's literal is a pin); lists concatenated with
// +, *spread, list(...) and dict(...), and what NAME.append, .extend,
// .insert, += and NAME[key] = add to a name, are followed.
//
// Each requirement is a PEP 508 string literal, and the pin's span lies in
// the literal's body, so pins.Apply rewrites the version specifier in the
// file's bytes. A literal with escapes or written as several literals
// (implicit concatenation) is reported and never edited; one over several
// lines, and every value computed at run time (string concatenation, a
// format, an f-string, a call, a comprehension, a file read, a name
// assigned more than once or in a loop) is a skipped entry with the reason.
package setuppy

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/pinbot-dev/pinbot/internal/diag"
	"github.com/pinbot-dev/pinbot/internal/pyast"
	"github.com/pinbot-dev/pinbot/pins"
	"github.com/pinbot-dev/pinbot/pins/pep508"
)

// Name is the format's identifier.
const Name = "setuppy"

// Format reads setup.py files.
type Format struct{}

var _ pins.Format = Format{}

// Name returns "setuppy".
func (Format) Name() string { return Name }

// Match reports whether the file is named setup.py.
func (Format) Match(path string) bool { return pins.Base(path) == "setup.py" }

// setupModules are the modules whose setup() takes setuptools' keywords.
var setupModules = map[string]bool{
	"setuptools": true, "distutils.core": true, "numpy.distutils.core": true, "skbuild": true,
}

// The keywords of setup() that hold requirements. python_requires is not a
// package's.
const (
	installRequires = "install_requires"
	testsRequire    = "tests_require"
	setupRequires   = "setup_requires"
	extrasRequire   = "extras_require"
)

func requirementKeyword(k string) bool {
	return k == installRequires || k == testsRequire || k == setupRequires || k == extrasRequire
}

type extractor struct {
	path   string
	data   []byte
	mod    *pyast.Module
	module *scope
	names  map[nameKey]val
	busy   map[nameKey]bool
	reads  map[*pyast.FunctionDef]bool
	work   int
	self   string // the project's own name, normalised

	pinAt   map[*pyast.Constant]int // literal -> index in out
	skipped map[string]bool
	out     []pins.Pin
	errs    diag.List
}

// A use is one requirement argument of a setup() call and its value.
type use struct {
	label string
	v     val
}

// skipAll is the key of the one entry a setup.py that does not parse is:
// the requirements of its setup() call.
const skipAll = "setup()"

// Extract returns the requirements of data in file order.
func (Format) Extract(path string, data []byte) ([]pins.Pin, error) {
	mod, err := pyast.Parse(path, data)
	if err != nil {
		// A setup.py is code, not a declaration: one that is not Python 3
		// (a Python 2 relic, a cookiecutter template in the tree) is a
		// warning that its requirements are not read, not a failed run.
		var se *pyast.SyntaxError
		if errors.As(err, &se) {
			return nil, pins.Skip(diag.List{diag.Errorf(path, se.Line, se.Col, skipAll,
				"not Python 3 that pinbot can read (it reads setup.py without running it), so its requirements are not read: %s", se.Msg)})
		}
		return nil, &diag.Error{File: path, Err: err}
	}
	x := &extractor{path: path, data: data, mod: mod, names: map[nameKey]val{}, busy: map[nameKey]bool{},
		reads: map[*pyast.FunctionDef]bool{}, pinAt: map[*pyast.Constant]int{}, skipped: map[string]bool{}}
	c := &collector{x: x, module: newScope(nil, "", false)}
	x.module = c.module
	c.stmts(mod.Body, c.module, nil, "")
	funcs := setupFuncs(c.imports)
	var uses []use
	for _, cl := range c.calls {
		if funcs.isSetup(cl.c) {
			uses = append(uses, x.arguments(cl)...)
		}
	}
	for _, u := range uses {
		switch u.label {
		case extrasRequire:
			x.extras(u.label, u.v)
		default:
			x.requirements(u.label, u.v, u.label == setupRequires, "")
		}
	}
	slices.SortStableFunc(x.out, func(a, b pins.Pin) int { return cmp.Compare(a.TextStart, b.TextStart) })
	slices.SortStableFunc(x.errs, func(a, b *diag.Error) int { return cmp.Or(cmp.Compare(a.Line, b.Line), cmp.Compare(a.Col, b.Col)) })
	return x.out, pins.Skip(x.errs)
}

// arguments returns the requirement arguments of a setup() call, those
// of a dict it is given as **kwargs included, and notes the project's name.
func (x *extractor) arguments(cl call) []use {
	var out []use
	add := func(k string, value pyast.Expr, s *scope) {
		switch {
		case k == "name":
			if v := x.eval(value, s, 0); v.kind == strKind && len(v.elems) == 1 && v.elems[0].lit != nil {
				x.self = pep508.Normalize(v.elems[0].lit.Value)
			}
		case requirementKeyword(k) && !isNone(value): // install_requires=None: there are none
			out = append(out, use{label: k, v: x.eval(value, s, 0)})
		}
	}
	for _, kw := range cl.c.Keywords {
		if kw.Arg != "" {
			add(kw.Arg, kw.Value, cl.scope)
			continue
		}
		v := x.eval(kw.Value, cl.scope, 0)
		switch v.kind {
		case dictKind:
			for _, en := range v.entries {
				if en.bad == nil {
					add(en.key, en.value, en.scope)
				}
			}
		case unknownKind:
			x.skip(v.pos, "setup(**"+x.excerpt(kw.Value)+")", v.why+", so the requirements it may hold are not read")
		}
	}
	return out
}

// requirements records the pins of a list of requirements, the value of
// the argument label; build marks setup_requires, cond is the marker of an
// extra named ":marker".
func (x *extractor) requirements(label string, v val, build bool, cond string) {
	switch v.kind {
	case unknownKind:
		x.skip(v.pos, label, v.why)
	case dictKind:
		x.skip(v.pos, label, "a dict, not a list of requirements")
	default:
		for _, el := range v.elems {
			key := fmt.Sprintf("%s[%d]", label, el.idx)
			if el.bad != nil {
				x.skip(el.bad.pos, key, el.bad.why)
				continue
			}
			x.literal(el.lit, key, build, cond)
		}
	}
}

// extras records the pins of extras_require, a dict of extra names to
// requirements. An extra named "name:marker" (or ":marker") applies under
// the marker, as setuptools reads it.
func (x *extractor) extras(label string, v val) {
	switch v.kind {
	case dictKind:
		for _, en := range v.entries {
			if en.bad != nil {
				x.skip(en.bad.pos, label, en.bad.why)
				continue
			}
			if isNone(en.value) {
				continue
			}
			_, marker, _ := strings.Cut(en.key, ":")
			x.requirements(label+"."+en.key, x.eval(en.value, en.scope, 0), false, strings.TrimSpace(marker))
		}
	case unknownKind:
		x.skip(v.pos, label, v.why)
	default:
		x.skip(v.pos, label, "not a dict of extras")
	}
}

// literal records the pin of one requirement string literal, once however
// many arguments hold it.
func (x *extractor) literal(c *pyast.Constant, key string, build bool, cond string) {
	if i, ok := x.pinAt[c]; ok {
		x.out[i].Build = x.out[i].Build && build // needed to run too: not only a build requirement
		return
	}
	if strings.TrimSpace(c.Value) == "" || len(c.Parts) == 0 {
		return // setuptools skips blank requirements
	}
	if strings.ContainsAny(c.Value, "\r\n") {
		x.skip(c.Pos(), key, "a string of several lines (setuptools reads each line as a requirement): pinbot edits only a requirement written on one line")
		return
	}
	part := c.Parts[0]
	p, err := pep508.Pin(c.Value, int(part.BodyPos))
	if err != nil {
		x.skip(c.Pos(), key, err.Error())
		return
	}
	pos := x.mod.File.Position(c.Pos())
	p.File, p.Line, p.Col, p.Key, p.Build = x.path, pos.Line, pos.Column, key, build
	switch {
	case cond != "" && p.Condition != "":
		p.Condition = "(" + cond + ") and (" + p.Condition + ")"
	case cond != "":
		p.Condition = cond
	}
	switch {
	case p.Skip != "":
	case len(c.Parts) > 1:
		p.Skip = "implicitly concatenated string literals"
	case part.Escapes || !x.holds(part, c.Value):
		p.Skip = "string with escape sequences"
	case x.self != "" && p.Package == x.self:
		p.Skip = "the project's own name: it requires itself for its extras"
	}
	x.pinAt[c] = len(x.out)
	x.out = append(x.out, p)
}

// skip records an entry that cannot be read, once for its place and
// reason; once the file's work runs out, once in all.
func (x *extractor) skip(pos pyast.Pos, key, why string) {
	k := fmt.Sprintf("%d\x00%s", pos, why)
	if why == tooLarge {
		k = why
	}
	if x.skipped[k] {
		return
	}
	x.skipped[k] = true
	p := x.mod.File.Position(pos)
	x.errs = append(x.errs, diag.Errorf(x.path, p.Line, p.Column, key, "%s", why))
}

func (x *extractor) line(pos pyast.Pos) int { return x.mod.File.Position(pos).Line }

// isNone reports whether e is the literal None.
func isNone(e pyast.Expr) bool {
	c, ok := e.(*pyast.Constant)
	return ok && c.Kind == pyast.ConstNone
}

// holds reports whether the body of the literal part is the text value, so
// that a span in value is the same span in the file.
func (x *extractor) holds(part pyast.StrPart, value string) bool {
	start, end := int(part.BodyPos), int(part.BodyEnd)
	return start >= 0 && start <= end && end <= len(x.data) && string(x.data[start:end]) == value
}

// funcs are the names a file calls setup() by.
type funcs struct {
	names   map[string]bool   // setup, or its alias, imported from a setup module
	modules map[string]string // a name bound by an import -> the module it is
}

// setupFuncs reads the imports of a file.
func setupFuncs(imports []pyast.Stmt) funcs {
	f := funcs{names: map[string]bool{}, modules: map[string]string{}}
	for _, st := range imports {
		switch st := st.(type) {
		case *pyast.Import:
			for _, a := range st.Names {
				if a.AsName != "" {
					f.modules[a.AsName] = a.Name
				} else {
					f.modules[topName(a.Name)] = topName(a.Name)
				}
			}
		case *pyast.ImportFrom:
			if st.Level > 0 {
				continue
			}
			for _, a := range st.Names {
				local := cmp.Or(a.AsName, a.Name)
				switch {
				case a.Name == "*" && setupModules[st.Module]:
					f.names["setup"] = true
				case a.Name == "setup" && setupModules[st.Module]:
					f.names[local] = true
				case a.Name != "*":
					f.modules[local] = st.Module + "." + a.Name
				}
			}
		}
	}
	return f
}

// isSetup reports whether c calls setup(): one imported from a setup
// module, that module's setup attribute, or any function named setup given
// a requirement keyword (a project's wrapper of setuptools').
func (f funcs) isSetup(c *pyast.Call) bool {
	switch fn := c.Func.(type) {
	case *pyast.Name:
		if f.names[fn.Id] {
			return true
		}
		if fn.Id != "setup" {
			return false
		}
	case *pyast.Attribute:
		if fn.Attr != "setup" {
			return false
		}
		if mod := dotted(fn.Value); mod != "" {
			top := topName(mod)
			if m, ok := f.modules[top]; ok {
				mod = m + mod[len(top):]
			}
			if setupModules[mod] {
				return true
			}
		}
	default:
		return false
	}
	for _, kw := range c.Keywords {
		if requirementKeyword(kw.Arg) {
			return true
		}
	}
	return false
}
