package probe

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// tri is a static answer: yes, no or cannot tell.
type tri int

const (
	maybe tri = iota
	yes
	no
)

// facts is what static reading can tell about an object.
type facts struct {
	typ      string // module-qualified type name ("builtins.int", "itertools.count"); "" if unknown
	callable tri
	iterator tri
	isModule tri
	isClass  tri
}

// Decorators that return the function itself, or a callable of unknown type.
var (
	transparentDecos = set("abstractmethod", "abc.abstractmethod", "override", "typing.override",
		"typing_extensions.override", "final", "typing.final", "typing_extensions.final")
	callableDecos = set("lru_cache", "functools.lru_cache", "cache", "functools.cache",
		"contextmanager", "contextlib.contextmanager", "asynccontextmanager", "contextlib.asynccontextmanager",
		"wraps", "functools.wraps")
	propertyDecos = set("property", "abc.abstractproperty", "abstractproperty")
	classDecos    = set("dataclass", "dataclasses.dataclass", "total_ordering", "functools.total_ordering",
		"final", "typing.final", "unique", "enum.unique", "runtime_checkable", "typing.runtime_checkable")
	itertoolsIterators = set("accumulate", "batched", "chain", "combinations", "combinations_with_replacement",
		"compress", "count", "cycle", "dropwhile", "filterfalse", "groupby", "islice", "pairwise",
		"permutations", "product", "repeat", "starmap", "takewhile", "zip_longest")
	builtinIterators = map[string]string{"iter": "", "map": "builtins.map", "filter": "builtins.filter",
		"zip": "builtins.zip", "enumerate": "builtins.enumerate", "reversed": ""}
)

func set(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

// decoName is a decorator without its call arguments and spaces.
func decoName(d string) string {
	if i := strings.IndexByte(d, '('); i >= 0 {
		d = d[:i]
	}
	return strings.ReplaceAll(d, " ", "")
}

func isPropertyDeco(d string) bool {
	n := decoName(d)
	return propertyDecos[n] || n == "cached_property" || n == "functools.cached_property" ||
		strings.HasSuffix(n, ".setter") || strings.HasSuffix(n, ".getter") || strings.HasSuffix(n, ".deleter")
}

func (w *wheel) facts(o *sobj) facts {
	switch {
	case o.implicit:
		return facts{callable: no, iterator: no, isModule: no, isClass: no}
	case o.outside != "" || o.unfollowed != "":
		return facts{}
	}
	switch o.kind {
	case 0:
		return facts{typ: "builtins.module", callable: no, iterator: no, isModule: yes, isClass: no}
	case bClass:
		f := facts{typ: "builtins.type", callable: yes, iterator: no, isModule: no, isClass: yes}
		for _, d := range o.b.decorators {
			if !classDecos[decoName(d)] {
				return facts{}
			}
		}
		if strings.Contains(o.b.bases, "metaclass") {
			f.typ, f.iterator, f.callable = "", maybe, maybe
		}
		return f
	case bDef:
		f := facts{typ: "builtins.function", callable: yes, iterator: no, isModule: no, isClass: no}
		for _, d := range o.b.decorators {
			n := decoName(d)
			switch {
			case n == "classmethod":
				f.typ = "builtins.method"
			case n == "staticmethod" || transparentDecos[n]:
			case callableDecos[n]:
				f.typ = ""
			case isPropertyDeco(d):
				f.typ, f.callable = "builtins.property", no
				if strings.Contains(n, "cached_property") {
					f.typ = "functools.cached_property"
				}
			default:
				return facts{}
			}
		}
		return f
	case bAssign:
		return w.valueFacts(o)
	}
	return facts{}
}

// The value patterns of valueFacts, compiled when first used: only a static
// probe needs them, and every pinbot command paid for them at start.
var (
	reNumber = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^-?(0[xXoObB][0-9a-fA-F_]+|[0-9][0-9_]*\.?[0-9_]*([eE][-+]?[0-9_]+)?|\.[0-9][0-9_]*([eE][-+]?[0-9_]+)?)([jJ])?$`)
	})
	reStrs = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(\s*([rRbBuUfFtT]{0,3})("""[x\n]*"""|'''[x\n]*'''|"x*"|'x*'))+\s*$`)
	})
	reCall = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^([A-Za-z_][\w.]*)\s*\(`) })
)

// valueFacts classifies the right-hand side of an assignment.
func (w *wheel) valueFacts(o *sobj) facts {
	v := strings.TrimSpace(o.b.valueMask)
	lit := func(typ string) facts {
		return facts{typ: typ, callable: no, iterator: no, isModule: no, isClass: no}
	}
	switch {
	case v == "None":
		return lit("builtins.NoneType")
	case v == "True" || v == "False":
		return lit("builtins.bool")
	case reNumber().MatchString(v):
		switch {
		case strings.ContainsAny(v, "jJ"):
			return lit("builtins.complex")
		case !strings.HasPrefix(strings.TrimPrefix(v, "-"), "0x") && strings.ContainsAny(v, ".eE") && !strings.ContainsAny(v, "xX"):
			return lit("builtins.float")
		}
		return lit("builtins.int")
	case reStrs().MatchString(v):
		if m := reStrs().FindStringSubmatch(v); m != nil && strings.ContainsAny(m[2], "bB") {
			return lit("builtins.bytes")
		}
		return lit("builtins.str")
	case strings.HasPrefix(v, "lambda") && (len(v) == 6 || !isIdentByte(v[6])):
		return facts{typ: "builtins.function", callable: yes, iterator: no, isModule: no, isClass: no}
	case v != "" && strings.IndexByte("[{(", v[0]) >= 0 && matchBracket(v, 0) == len(v)-1:
		inner := v[1 : len(v)-1]
		comp := strings.Contains(" "+inner+" ", " for ")
		switch v[0] {
		case '[':
			return lit("builtins.list")
		case '{':
			if strings.TrimSpace(inner) == "" || topLevelIndex(inner, ':') >= 0 {
				return lit("builtins.dict")
			}
			return lit("builtins.set")
		case '(':
			if comp {
				return facts{typ: "builtins.generator", callable: no, iterator: yes, isModule: no, isClass: no}
			}
			if strings.TrimSpace(inner) == "" || topLevelIndex(inner, ',') >= 0 {
				return lit("builtins.tuple")
			}
		}
		return facts{}
	}
	m := reCall().FindStringSubmatch(v)
	if m == nil || matchBracket(v, len(m[0])-1) != len(v)-1 {
		return facts{}
	}
	return w.callFacts(o, m[1])
}

// callFacts classifies "callee(...)": a known iterator maker or a generator function.
func (w *wheel) callFacts(o *sobj, callee string) facts {
	iter := func(typ string) facts {
		return facts{typ: typ, callable: no, iterator: yes, isModule: no, isClass: no}
	}
	head, rest, _ := strings.Cut(callee, ".")
	var b *pyBinding
	if o.owner != nil && o.owner != o.file.top && len(o.owner.names[head]) > 0 {
		var st Status
		if b, st, _ = pick(o.owner.names[head], o.owner, head, o.module); st != Pass {
			return facts{}
		}
	} else {
		top := &sobj{module: o.module, file: o.file, owner: o.file.top}
		bb, st, _, found := w.topBinding(top, head, 0)
		if found && st != Pass {
			return facts{}
		}
		if !found {
			// Not bound in the class or module: a builtin, unless the module
			// may make names at run time.
			if why := moduleDynamic(o.file, head); why != "" || rest != "" {
				return facts{}
			}
			if typ, ok := builtinIterators[head]; ok {
				return iter(typ)
			}
			return facts{}
		}
		b = bb
	}
	if b.kind == bDef {
		if rest == "" && b.generator && len(b.decorators) == 0 {
			return iter("builtins.generator")
		}
		return facts{}
	}
	full := importedName(b, rest)
	if mod, fn, ok := strings.Cut(full, "."); ok && mod == "itertools" && itertoolsIterators[fn] {
		return iter("itertools." + fn)
	}
	return facts{}
}

// checkExpect decides an expect kind statically.
func (w *wheel) checkExpect(o *sobj, kind string) (Status, string) {
	if kind == ExpectExists {
		return Pass, ""
	}
	f := w.facts(o)
	var t tri
	var want string
	switch {
	case kind == ExpectModule:
		t, want = f.isModule, "a module"
	case kind == ExpectClass:
		t, want = f.isClass, "a class"
	case kind == ExpectCallable:
		t, want = f.callable, "a callable"
	case kind == ExpectIterator:
		t, want = f.iterator, "an iterator"
	case strings.HasPrefix(kind, ExpectTypeOf):
		name := strings.TrimPrefix(kind, ExpectTypeOf)
		want = "an instance of " + name
		switch {
		case f.typ == "":
			t = maybe
		case typeMatches(f.typ, name):
			t = yes
		default:
			t = no
		}
	}
	switch t {
	case yes:
		return Pass, ""
	case no:
		found := o.describe()
		if f.typ != "" && o.kind != 0 {
			found += ", of type " + strings.TrimPrefix(f.typ, "builtins.")
		}
		return Fail, fmt.Sprintf("expected %s, found %s", want, found)
	}
	return Unknown, fmt.Sprintf("cannot tell statically whether %s is %s", o.describe(), want)
}

// typeMatches reports whether an object of type typ is an instance of a class named
// name (by short or module-qualified name), for the builtin types static mode knows.
func typeMatches(typ, name string) bool {
	mro := []string{typ}
	if typ == "builtins.bool" {
		mro = append(mro, "builtins.int")
	}
	mro = append(mro, "builtins.object")
	for _, t := range mro {
		short := t[strings.LastIndexByte(t, '.')+1:]
		if name == t || name == short {
			return true
		}
	}
	return false
}

// checkSource decides source-contains from the text of a def, class or module.
func (w *wheel) checkSource(o *sobj, dotted, text string) (Status, string) {
	var src, where string
	switch o.kind {
	case 0:
		if o.file == nil {
			return Unknown, "a namespace package has no source"
		}
		src, where = strings.Join(o.file.lines, "\n"), o.module
	case bDef, bClass:
		src, where = o.file.source(o.b.start, o.b.end), fmt.Sprintf("%s lines %d-%d", o.module, o.b.start, o.b.end)
	default:
		return Unknown, fmt.Sprintf("%s has no source of its own", o.describe())
	}
	if strings.Contains(src, text) {
		return Pass, fmt.Sprintf("source contains %q", text)
	}
	return Fail, fmt.Sprintf("source of %s (%s) no longer contains %q", dotted, where, text)
}

// checkSignature compares the parameters of a def (or of a class's
// __init__, less self) with the expected signature, as the dynamic probe does
// with inspect.signature (compareSignature decides for both).
func (w *wheel) checkSignature(o *sobj, s *Spec) (Status, string) {
	got, st, why := w.callableSignature(o)
	if st != Pass {
		return st, why
	}
	return checkSignatureOf(s, got)
}

// callableSignature returns the signature inspect.signature reports for what
// o names, when the wheel's source decides it: a def's parameters (less cls
// for a classmethod), a class's __init__'s less self.
func (w *wheel) callableSignature(o *sobj) (signature, Status, string) {
	def, dropFirst := o, false
	if o.kind == bClass {
		init, why := w.classInit(o)
		switch {
		case init == nil && why == "":
			return signature{Text: "()"}, Pass, "" // object.__init__: no arguments
		case init == nil:
			return signature{}, Unknown, why
		}
		def, dropFirst = init, true
	}
	if def.kind != bDef {
		return signature{}, Unknown, fmt.Sprintf("the signature of %s cannot be read statically", o.describe())
	}
	for _, d := range def.b.decorators {
		switch n := decoName(d); {
		case n == "classmethod" && !dropFirst:
			dropFirst = true
		case n == "staticmethod" || transparentDecos[n]:
		default:
			return signature{}, Unknown, fmt.Sprintf("decorator @%s may change the signature of %s", d, def.b.name)
		}
	}
	params, err := parseParams(def.b.params, def.b.paramsMask)
	if err != nil {
		return signature{}, Unknown, fmt.Sprintf("cannot read the parameters of %s: %v", def.describe(), err)
	}
	text := splitParams(def.b.params, def.b.paramsMask)
	if dropFirst {
		if len(params) == 0 || params[0].Kind == varPositional || params[0].Kind == varKeyword || params[0].Kind == keywordOnly {
			return signature{}, Unknown, fmt.Sprintf("%s takes no first parameter to bind", def.describe())
		}
		params, text = params[1:], text[1:]
		if len(text) > 0 && text[0] == "/" {
			text = text[1:]
		}
	}
	got := signature{Params: params, Returns: squashSpaces(def.b.returns), Text: "(" + strings.Join(text, ", ") + ")"}
	if got.Returns != "" {
		got.Text += " -> " + got.Returns
	}
	return got, Pass, ""
}

// classInit returns the __init__ that inspect.signature reports for a class,
// when the wheel's source decides it: the class's own, unconditional
// __init__, else that of its base (one base at a time, up to object's, for
// which it returns nil and no reason), with no __new__ on the way, no
// metaclass or class decorator, and bases that are classes of the wheel (or
// object) with no metaclass either.
func (w *wheel) classInit(o *sobj) (*sobj, string) {
	cannot := func(why string) (*sobj, string) {
		return nil, fmt.Sprintf("the signature of %s cannot be read statically: %s", o.describe(), why)
	}
	if why := w.plainBases(o, 0); why != "" {
		return cannot(why)
	}
	c := o
	for depth := 0; ; depth++ {
		if len(c.b.decorators) > 0 {
			return cannot("class decorators may make __init__")
		}
		body := c.b.body
		if len(body.names["__new__"]) > 0 {
			if c == o {
				return cannot("it defines __new__")
			}
			return cannot(fmt.Sprintf("its base %s defines __new__", c.b.name))
		}
		if len(body.dynamic) > 0 {
			return cannot(body.dynamic[0])
		}
		if bs := body.names["__init__"]; len(bs) > 0 {
			b, st, why := pick(bs, body, "__init__", c.module+"."+c.b.name)
			if st != Pass {
				return cannot(why)
			}
			return &sobj{kind: b.kind, module: c.module, file: c.file, b: b, owner: body}, ""
		}
		var bases []string
		for _, sg := range splitTopLevel(c.b.bases, ',') {
			if base := strings.TrimSpace(c.b.bases[sg[0]:sg[1]]); base != "" && base != "object" {
				bases = append(bases, base)
			}
		}
		switch {
		case len(bases) == 0:
			return nil, "" // object.__init__
		case len(bases) > 1 || depth > 16:
			return cannot("__init__ is inherited through several bases")
		}
		bo, st, why := w.lookupName(c, strings.ReplaceAll(bases[0], " ", ""), 0)
		if st != Pass || bo.kind != bClass {
			return cannot("__init__ is inherited from " + bases[0] + ": " + why)
		}
		c = bo
	}
}

// plainBases says why a class's bases may change how it is called ("" when
// they are object or classes of the wheel without metaclasses).
func (w *wheel) plainBases(o *sobj, depth int) string {
	if depth > 16 {
		return "too many base classes to follow"
	}
	if o.b.bases == "" {
		return ""
	}
	for _, sg := range splitTopLevel(o.b.bases, ',') {
		base := strings.TrimSpace(o.b.bases[sg[0]:sg[1]])
		switch {
		case base == "" || base == "object":
			continue
		case strings.Contains(base, "="):
			return "it has a metaclass or class keywords (" + base + ")"
		case !isDotted(base):
			return fmt.Sprintf("base %s is computed at run time", base)
		}
		bo, st, why := w.lookupName(o, strings.ReplaceAll(base, " ", ""), 0)
		switch {
		case st != Pass:
			return fmt.Sprintf("base %s cannot be read: %s", base, why)
		case bo.kind != bClass:
			return fmt.Sprintf("base %s is %s", base, bo.describe())
		case len(bo.b.decorators) > 0:
			return fmt.Sprintf("base %s has class decorators", base)
		}
		if why := w.plainBases(bo, depth+1); why != "" {
			return why
		}
	}
	return ""
}

func squash(s string) string { return strings.Join(strings.Fields(s), "") }

func splitParams(text, mask string) []string {
	var out []string
	for _, sg := range splitTopLevel(mask, ',') {
		if p := squashSpaces(text[sg[0]:sg[1]]); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// importedName is the absolute dotted name that b (an import) followed by rest
// stands for: "it" + "count" after "import itertools as it" is "itertools.count".
// It is "" for other bindings and relative imports.
func importedName(b *pyBinding, rest string) string {
	var full string
	switch {
	case b.kind == bImport:
		full = b.module
	case b.kind == bFrom && !strings.HasPrefix(b.module, "."):
		full = b.module + "." + b.attr
	default:
		return ""
	}
	if rest != "" {
		full += "." + rest
	}
	return full
}
