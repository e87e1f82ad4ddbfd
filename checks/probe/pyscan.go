package probe

// A small, careful scanner for the subset of Python that static probes need. Go
// has no Python parser; this one works on logical lines and indentation only:
//
//   - strings (all prefixes, triple quotes, f-strings with nested replacement
//     fields), comments, backslash continuations and open brackets are handled
//     when joining physical lines into logical lines;
//   - blocks come from indentation; def, async def and class headers (with
//     decorators) and if/try/for/while/with/match blocks are recognised;
//   - at module and class level it records simple assignments, annotated names,
//     imports (import a.b as c, from a import b as c, relative imports) and
//     deletions, noting the ones under if/try/for/while/match as conditional;
//     those under `if TYPE_CHECKING:` (typing's, false at run time) are kept
//     apart, since they never run, and that if's else always does;
//   - it notes what makes names appear at run time: from x import *, a module
//     __getattr__, setattr, globals(), exec, sys.modules[...], global statements.
//
// Anything else is skipped. The scanner never fails: a file it cannot read to the
// end (an unterminated string) is marked broken and the resolver answers unknown.

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
)

type bindKind int

const (
	bDef       bindKind = iota + 1 // def or async def
	bClass                         // class
	bAssign                        // NAME = value
	bAnnotated                     // NAME: T, with no value (binds nothing at run time)
	bImport                        // import a.b [as c]
	bFrom                          // from m import a [as c]
	bOther                         // for/with targets, unpacking, walrus, type aliases
)

// A pyBinding is one statement that binds a name in a module or class body.
type pyBinding struct {
	kind       bindKind
	name       string
	line       int    // line of the statement (the def/class header)
	start, end int    // physical lines, decorators and body included
	cond       string // why the statement may not run ("" when it always does)
	inClass    bool
	decorators []string
	params     string // def: the text between the parentheses
	paramsMask string // params with string contents masked
	returns    string // def: the return annotation
	bases      string // class: the text between the parentheses
	value      string // assignment: the right-hand side
	valueMask  string // value with string contents masked
	module     string // bImport, bFrom: the module, with leading dots if relative
	attr       string // bFrom: the imported name
	generator  bool   // def: its own body contains yield
	body       *pyScope
	// method: the class body a def (not a static or class method) is defined
	// in, and its first parameter, for self.attr assignments.
	classBody *pyScope
	selfName  string
}

// A pyScope is the namespace of a module or class body.
type pyScope struct {
	class    bool
	names    map[string][]*pyBinding
	attrSets map[string]map[string][]*pyBinding // module level "X.attr = v", by X then attr
	deleted  map[string]int
	dynamic  []string // reasons why names may appear at run time, with lines
	// stars are the star imports, in order (kind bFrom, attr "*").
	stars []*pyBinding
	// allOps are the statements that change __all__ in place, in order (attr
	// is "+=", "extend", "append", "remove" or "other"; value the operand).
	allOps []*pyBinding
	// selfAttrs are, in a class body, the lines where a method assigns self.NAME.
	selfAttrs map[string][]int
	// typeOnly holds the bindings made under `if TYPE_CHECKING:`, which do
	// not exist at run time: apart, so that look-ups miss them, and kept
	// for messages (nil when there are none).
	typeOnly *pyScope
}

func newScope(class bool) *pyScope {
	return &pyScope{class: class, names: map[string][]*pyBinding{}, attrSets: map[string]map[string][]*pyBinding{},
		deleted: map[string]int{}, selfAttrs: map[string][]int{}}
}

// A pyFile is what the scanner understood of one source file.
type pyFile struct {
	lines   []string
	top     *pyScope
	broken  string         // why the file could not be read to the end
	globals map[string]int // names declared global inside functions
}

// source returns physical lines start..end (1-based, inclusive).
func (f *pyFile) source(start, end int) string {
	if start < 1 {
		start = 1
	}
	if end > len(f.lines) {
		end = len(f.lines)
	}
	if start > end {
		return ""
	}
	return strings.Join(f.lines[start-1:end], "\n")
}

// frame is an open block while scanning.
type frame struct {
	hdrIndent int
	scope     *pyScope   // where bindings go; nil inside a function body
	cond      string     // why this block may not run
	def       *pyBinding // innermost enclosing function, for yield
	owner     *pyBinding // def or class whose end this block extends
	// typeChecking: the last compound statement in this block was `if
	// TYPE_CHECKING:`, so an else that follows always runs.
	typeChecking bool
}

// The statement patterns of the Python scan, compiled when first used: only
// a probe reads Python, and every pinbot command paid for them at start.
var (
	reYield   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(^|[^\w.])yield\b`) })
	reDynamic = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(^|[^\w.])(setattr|exec|globals|vars|locals)\s*\(|__dict__|__setattr__|sys\s*\.\s*modules\s*\[`)
	})
	reWalrus  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(^|[^\w.])([A-Za-z_]\w*)\s*:=`) })
	reTypeDef = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^type\s+([A-Za-z_]\w*)\s*(\[[^=]*\])?\s*=`) })
)

// dynamicCode reports whether a statement may create names at run time
// (setattr, globals(), exec, __dict__, sys.modules[...]).
func dynamicCode(m string) bool {
	for _, s := range []string{"setattr", "exec", "globals", "vars", "locals", "__dict__", "modules"} {
		if strings.Contains(m, s) {
			return reDynamic().MatchString(m)
		}
	}
	return false
}

// isDotted reports whether s is dotted identifiers ("a.b.c"), spaces around the
// dots allowed.
func isDotted(s string) bool {
	for _, seg := range strings.Split(s, ".") {
		if !isIdentifier(strings.TrimSpace(seg)) {
			return false
		}
	}
	return true
}

// scanPython scans one file. It does not fail; panics are bugs and are returned
// as an "internal error" so one odd file cannot bring pinbot down.
func scanPython(src string) (f *pyFile, err error) {
	defer func() {
		if r := recover(); r != nil {
			f, err = nil, fmt.Errorf("internal error scanning Python: %v", r)
		}
	}()
	src = strings.ReplaceAll(strings.ReplaceAll(src, "\r\n", "\n"), "\r", "\n")
	f = &pyFile{lines: strings.Split(src, "\n"), top: newScope(false), globals: map[string]int{}}
	lines, broken := splitLogical(src)
	f.broken = broken
	stack := []*frame{{hdrIndent: -1, scope: f.top}}
	var decos []string
	decoStart := 0
	for _, L := range lines {
		for len(stack) > 1 && L.indent <= stack[len(stack)-1].hdrIndent {
			stack = stack[:len(stack)-1]
		}
		for _, fr := range stack {
			if fr.owner != nil && L.end > fr.owner.end {
				fr.owner.end = L.end
			}
		}
		cur := stack[len(stack)-1]
		off := len(L.mask) - len(strings.TrimLeft(L.mask, " \t\f"))
		m, t := L.mask[off:], L.text[off:]
		if cur.def != nil && strings.Contains(m, "yield") && reYield().MatchString(m) {
			cur.def.generator = true
		}
		if strings.HasPrefix(m, "@") {
			if len(decos) == 0 {
				decoStart = L.start
			}
			decos = append(decos, squashSpaces(t[1:]))
			continue
		}
		d, ds := decos, decoStart
		decos = nil
		if fr, inline, ok := header(f, cur, L, m, t, d, ds); ok {
			if inline >= 0 {
				simpleStatements(f, fr, L, m[inline:], t[inline:])
			} else {
				stack = append(stack, fr)
			}
			continue
		}
		simpleStatements(f, cur, L, m, t)
	}
	return f, nil
}

// header recognises a compound statement. It returns the frame of its body and,
// when the body is on the same line, the offset where it starts (else -1).
func header(f *pyFile, cur *frame, L logLine, m, t string, decos []string, decoStart int) (*frame, int, bool) {
	kw, rest := firstWord(m)
	async := false
	if kw == "async" {
		async = true
		kw, _ = firstWord(strings.TrimLeft(rest, " \t"))
	}
	switch kw {
	case "def", "class", "if", "elif", "else", "try", "except", "finally", "for", "while", "with", "match", "case":
	default:
		return nil, 0, false
	}
	colon := headerColon(m)
	if colon < 0 {
		return nil, 0, false
	}
	if kw == "match" || kw == "case" {
		// "match = 1", "match: int = 1", "match.x": a name, not the soft keyword.
		subject := strings.TrimSpace(m[len(kw):colon])
		if subject == "" || strings.IndexByte("=.:,)]}", subject[0]) >= 0 || topLevelIndex(m[:colon], '=') >= 0 {
			return nil, 0, false
		}
	}
	fr := &frame{hdrIndent: L.indent, scope: cur.scope, cond: cur.cond, def: cur.def}
	switch kw {
	case "def", "class":
		b := &pyBinding{line: L.start, start: L.start, end: L.end, cond: cur.cond, decorators: decos}
		if len(decos) > 0 {
			b.start = decoStart
		}
		if cur.scope != nil {
			b.inClass = cur.scope.class
		}
		hdr := strings.TrimLeft(m, " \t")
		if async {
			hdr = strings.TrimLeft(hdr[len("async"):], " \t")
		}
		base := len(m) - len(hdr) + len(kw)
		name, after := firstWord(strings.TrimLeft(m[base:colon], " \t"))
		if !isIdentifier(name) {
			return nil, 0, false
		}
		b.name = name
		p := colon - len(after) // offset of what follows the name
		if kw == "def" {
			b.kind = bDef
			b.params, b.paramsMask, b.returns = defParts(m[p:colon], t[p:colon])
			fr.def, fr.scope = b, nil
			if cur.scope != nil && cur.scope.class && !hasDecorator(decos, "staticmethod", "classmethod") {
				if ps, err := parseParams(b.params, b.paramsMask); err == nil && len(ps) > 0 &&
					(ps[0].Kind == positionalOnly || ps[0].Kind == positionalOrKeyword) {
					b.classBody, b.selfName = cur.scope, ps[0].Name
				}
			}
		} else {
			b.kind = bClass
			b.bases = classBases(m[p:colon], t[p:colon])
			b.body = newScope(true)
			fr.def, fr.scope, fr.cond = nil, b.body, ""
		}
		fr.owner = b
		bind(cur.scope, b)
	case "with", "finally":
		if kw == "with" {
			bindWithTargets(cur, L, m[:colon], t[:colon])
		}
	default:
		fr.cond = fmt.Sprintf("inside %s at line %d", kw, L.start)
		if cur.cond != "" {
			fr.cond = cur.cond
		}
		// `if TYPE_CHECKING:` (or elif) never runs; the else of the if always does.
		never := (kw == "if" || kw == "elif") && typeChecking(f, m[len(kw):colon])
		switch {
		case never && cur.scope != nil:
			fr.scope, fr.cond = cur.scope.typeOnlyScope(), fmt.Sprintf("under %s TYPE_CHECKING at line %d", kw, L.start)
		case kw == "else" && cur.typeChecking:
			fr.cond = cur.cond
		}
		cur.typeChecking = never && kw == "if"
		if kw == "for" {
			bindForTargets(fr, L, m[:colon], t[:colon])
		}
		if cur.scope != nil && dynamicCode(m[:colon]) {
			cur.scope.dynamic = append(cur.scope.dynamic, fmt.Sprintf("run-time names at line %d", L.start))
		}
	}
	rest = strings.TrimSpace(m[colon+1:])
	if rest == "" {
		return fr, -1, true
	}
	return fr, len(m) - len(strings.TrimLeft(m[colon+1:], " \t")), true
}

// headerColon is the offset of the colon ending a compound statement's header.
func headerColon(m string) int {
	depth, lambdas := 0, 0
	for i := 0; i < len(m); i++ {
		switch c := m[i]; c {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
		case 'l':
			if depth == 0 && strings.HasPrefix(m[i:], "lambda") && (i == 0 || !isIdentByte(m[i-1])) &&
				(i+6 >= len(m) || !isIdentByte(m[i+6])) {
				lambdas++
				i += 5
			}
		case ':':
			if depth != 0 || (i+1 < len(m) && m[i+1] == '=') {
				continue
			}
			if lambdas > 0 {
				lambdas--
				continue
			}
			return i
		}
	}
	return -1
}

// defParts splits "name[T](params) -> ret" after the name into params (text and
// mask) and ret.
func defParts(m, t string) (params, paramsMask, returns string) {
	i := skipSpaces(m, 0)
	if i < len(m) && m[i] == '[' {
		if i = matchBracket(m, i); i < 0 {
			return "", "", ""
		}
		i = skipSpaces(m, i+1)
	}
	if i >= len(m) || m[i] != '(' {
		return "", "", ""
	}
	j := matchBracket(m, i)
	if j < 0 {
		return "", "", ""
	}
	params, paramsMask = t[i+1:j], m[i+1:j]
	if k := strings.Index(m[j:], "->"); k >= 0 {
		returns = strings.TrimSpace(t[j+k+2:])
	}
	return params, paramsMask, returns
}

func classBases(m, t string) string {
	i := skipSpaces(m, 0)
	if i < len(m) && m[i] == '[' {
		if i = matchBracket(m, i); i < 0 {
			return ""
		}
		i = skipSpaces(m, i+1)
	}
	if i >= len(m) || m[i] != '(' {
		return ""
	}
	j := matchBracket(m, i)
	if j < 0 {
		return ""
	}
	return strings.TrimSpace(t[i+1 : j])
}

// matchBracket returns the offset of the bracket closing the one at i, or -1.
func matchBracket(m string, i int) int {
	depth := 0
	for j := i; j < len(m); j++ {
		switch m[j] {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
			if depth == 0 {
				return j
			}
		}
	}
	return -1
}

func skipSpaces(s string, i int) int {
	for i >= 0 && i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\f') {
		i++
	}
	return i
}

// simpleStatements handles the ';'-separated simple statements of a line.
func simpleStatements(f *pyFile, fr *frame, L logLine, m, t string) {
	for _, seg := range splitTopLevel(m, ';') {
		sm := strings.TrimSpace(m[seg[0]:seg[1]])
		lead := seg[0] + len(m[seg[0]:seg[1]]) - len(strings.TrimLeft(m[seg[0]:seg[1]], " \t\n\f"))
		st := strings.TrimSpace(t[lead : lead+len(sm)])
		if sm != "" {
			statement(f, fr, L, sm, st)
		}
	}
}

func statement(f *pyFile, fr *frame, L logLine, m, t string) {
	kw, rest := firstWord(m)
	if kw == "global" && fr.def != nil {
		for _, name := range strings.Split(rest, ",") {
			if name = strings.TrimSpace(name); isIdentifier(name) {
				f.globals[name] = L.start
			}
		}
		return
	}
	sc := fr.scope
	if sc == nil {
		// Inside a function nothing is bound at import time; a method's
		// self.attr assignments are noted for instance-attribute probes.
		if fr.def != nil && fr.def.classBody != nil {
			for _, attr := range selfAssigned(m, fr.def.selfName) {
				fr.def.classBody.selfAttrs[attr] = append(fr.def.classBody.selfAttrs[attr], L.start)
			}
		}
		return
	}
	newB := func(kind bindKind, name string) *pyBinding {
		return &pyBinding{kind: kind, name: name, line: L.start, start: L.start, end: L.end, cond: fr.cond, inClass: sc.class}
	}
	if dynamicCode(m) && kw != "__all__" { // computing __all__ from globals() binds nothing
		sc.dynamic = append(sc.dynamic, fmt.Sprintf("names set at run time (line %d: %s)", L.start, clipText(squashSpaces(t), 60)))
	}
	if strings.Contains(m, ":=") {
		for _, w := range reWalrus().FindAllStringSubmatch(m, -1) {
			bind(sc, newB(bOther, w[2]))
		}
	}
	if kw == "__all__" && !sc.class {
		allOp(sc, newB, m, t)
	}
	switch kw {
	case "import":
		for _, item := range strings.Split(squashSpaces(rest), ",") {
			mod, alias, _ := strings.Cut(strings.TrimSpace(item), " as ")
			mod, alias = strings.ReplaceAll(mod, " ", ""), strings.TrimSpace(alias)
			if !isDotted(mod) || (alias != "" && !isIdentifier(alias)) {
				continue
			}
			b := newB(bImport, alias)
			b.module = mod
			if alias == "" {
				b.name, _, _ = strings.Cut(mod, ".")
				b.module = b.name
			}
			bind(sc, b)
		}
	case "from":
		mod, names, ok := cutImport(squashSpaces(t[len("from"):]))
		if !ok {
			return
		}
		mod = strings.ReplaceAll(mod, " ", "")
		if mod == "__future__" {
			return
		}
		names = strings.Trim(strings.TrimSpace(names), "()")
		for _, item := range strings.Split(names, ",") {
			name, alias, _ := strings.Cut(strings.TrimSpace(item), " as ")
			name, alias = strings.TrimSpace(name), strings.TrimSpace(alias)
			if name == "*" {
				b := newB(bFrom, "*")
				b.module, b.attr = mod, "*"
				sc.stars = append(sc.stars, b)
				continue
			}
			if alias == "" {
				alias = name
			}
			if isIdentifier(name) && isIdentifier(alias) {
				b := newB(bFrom, alias)
				b.module, b.attr = mod, name
				bind(sc, b)
			}
		}
	case "del":
		for _, name := range strings.Split(rest, ",") {
			if name = strings.TrimSpace(name); isIdentifier(name) {
				sc.deleted[name] = L.start
			}
		}
	case "pass", "return", "raise", "assert", "break", "continue", "yield", "await", "nonlocal", "global":
	default:
		if kw != "type" {
		} else if mt := reTypeDef().FindStringSubmatch(m); mt != nil {
			b := newB(bOther, mt[1])
			b.value = strings.TrimSpace(t[len(mt[0]):])
			bind(sc, b)
			return
		}
		assignment(sc, newB, m, t)
	}
}

// cutImport splits "MODULE import NAMES" at the import keyword, which may touch a
// dot ("from .import x") or a parenthesis ("from m import(a)").
func cutImport(s string) (mod, names string, ok bool) {
	for i := 0; i+6 <= len(s); i++ {
		if !strings.HasPrefix(s[i:], "import") {
			continue
		}
		before := i == 0 || s[i-1] == ' ' || s[i-1] == '.'
		after := i+6 == len(s) || s[i+6] == ' ' || s[i+6] == '('
		if before && after && i > 0 {
			return strings.TrimSpace(s[:i]), strings.TrimSpace(s[i+6:]), true
		}
	}
	return "", "", false
}

// assignment binds the targets of "a = b = value" and "a: T = value" statements.
func assignment(sc *pyScope, newB func(bindKind, string) *pyBinding, m, t string) {
	var eqs []int
	depth := 0
scan:
	for i := 0; i < len(m); i++ {
		switch c := m[i]; c {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
		case 'l':
			if depth == 0 && strings.HasPrefix(m[i:], "lambda") && (i == 0 || !isIdentByte(m[i-1])) &&
				(i+6 >= len(m) || !isIdentByte(m[i+6])) {
				break scan
			}
		case '=':
			if depth != 0 {
				continue
			}
			if i+1 < len(m) && m[i+1] == '=' {
				i++
				continue
			}
			if i > 0 && strings.IndexByte("<>!:", m[i-1]) >= 0 {
				continue
			}
			if i > 0 && strings.IndexByte("+-*/%&|^@", m[i-1]) >= 0 {
				return // augmented assignment: binds nothing new
			}
			eqs = append(eqs, i)
		}
	}
	if len(eqs) == 0 {
		if c := topLevelIndex(m, ':'); c > 0 && isIdentifier(strings.TrimSpace(m[:c])) {
			bind(sc, newB(bAnnotated, strings.TrimSpace(m[:c])))
		}
		return
	}
	last := eqs[len(eqs)-1]
	value, valueMask := strings.TrimSpace(t[last+1:]), strings.TrimSpace(m[last+1:])
	prev := 0
	for k, eq := range eqs {
		tm := strings.TrimSpace(m[prev:eq])
		if k == 0 {
			if c := topLevelIndex(tm, ':'); c >= 0 {
				tm = strings.TrimSpace(tm[:c]) // annotated assignment
			}
		}
		bindTarget(sc, newB, tm, value, valueMask, true)
		prev = eq + 1
	}
}

func bindTarget(sc *pyScope, newB func(bindKind, string) *pyBinding, target, value, valueMask string, whole bool) {
	target = strings.TrimSpace(target)
	switch {
	case isIdentifier(target):
		kind := bAssign
		if !whole {
			kind, value, valueMask = bOther, "", ""
		}
		b := newB(kind, target)
		b.value, b.valueMask = value, valueMask
		bind(sc, b)
	case isDotted(target) && !sc.class:
		obj, attr, _ := strings.Cut(strings.ReplaceAll(target, " ", ""), ".")
		if strings.Contains(attr, ".") || !whole {
			return
		}
		b := newB(bAssign, attr)
		b.value, b.valueMask = value, valueMask
		if sc.attrSets[obj] == nil {
			sc.attrSets[obj] = map[string][]*pyBinding{}
		}
		sc.attrSets[obj][attr] = append(sc.attrSets[obj][attr], b)
	case strings.HasPrefix(target, "*"):
		bindTarget(sc, newB, target[1:], "", "", false)
	case len(target) > 1 && (target[0] == '(' || target[0] == '[') && matchBracket(target, 0) == len(target)-1:
		bindTarget(sc, newB, target[1:len(target)-1], "", "", false)
	case topLevelIndex(target, ',') >= 0:
		for _, seg := range splitTopLevel(target, ',') {
			bindTarget(sc, newB, target[seg[0]:seg[1]], "", "", false)
		}
	}
}

// allOp records a statement that changes __all__ in place (__all__ += [...],
// __all__.extend([...]), ...); plain and annotated assignments are bindings.
func allOp(sc *pyScope, newB func(bindKind, string) *pyBinding, m, t string) {
	rest := strings.TrimSpace(m[len("__all__"):])
	restT := strings.TrimSpace(t[len("__all__"):])
	if rest == "" || rest[0] == '=' && !strings.HasPrefix(rest, "==") || rest[0] == ':' {
		return
	}
	b := newB(bOther, "__all__")
	b.attr = "other"
	switch {
	case strings.HasPrefix(rest, "+="):
		b.attr, b.value, b.valueMask = "+=", strings.TrimSpace(restT[2:]), strings.TrimSpace(rest[2:])
	case rest[0] == '.':
		meth, args := firstWord(strings.TrimSpace(rest[1:]))
		args = strings.TrimSpace(args)
		argsT := strings.TrimSpace(restT[len(restT)-len(args):])
		if (meth == "extend" || meth == "append" || meth == "remove") && strings.HasPrefix(args, "(") && matchBracket(args, 0) == len(args)-1 {
			b.attr, b.value, b.valueMask = meth, strings.TrimSpace(argsT[1:len(argsT)-1]), strings.TrimSpace(args[1:len(args)-1])
		}
	}
	sc.allOps = append(sc.allOps, b)
}

// hasDecorator reports whether one of decos is one of names (called or not).
func hasDecorator(decos []string, names ...string) bool {
	for _, d := range decos {
		for _, n := range names {
			if decoName(d) == n {
				return true
			}
		}
	}
	return false
}

// selfAssigned returns the attributes a statement assigns on self (self.x = v,
// self.x: T = v, a, self.y = v, self.x += 1); an annotation with no value
// assigns nothing.
func selfAssigned(m, self string) []string {
	if !strings.Contains(m, self) || !strings.Contains(m, "=") {
		return nil
	}
	var targets []string
	depth, prev := 0, 0
	for i := 0; i < len(m); i++ {
		switch c := m[i]; c {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
		case 'l':
			if depth == 0 && strings.HasPrefix(m[i:], "lambda") && (i == 0 || !isIdentByte(m[i-1])) &&
				(i+6 >= len(m) || !isIdentByte(m[i+6])) {
				i = len(m)
			}
		case '=':
			if depth != 0 {
				continue
			}
			if i+1 < len(m) && m[i+1] == '=' {
				i++
				continue
			}
			if i > 0 && strings.IndexByte("<>!:", m[i-1]) >= 0 && !(i > 1 && (m[i-2] == '<' || m[i-2] == '>')) {
				continue
			}
			t := strings.TrimSpace(m[prev:i])
			if aug := strings.TrimRight(t, "+-*/%&|^@<>"); aug != t {
				return matchSelf([]string{aug}, self) // augmented: one target, nothing after
			}
			targets = append(targets, t)
			prev = i + 1
		}
	}
	if len(targets) > 0 {
		if c := topLevelIndex(targets[0], ':'); c >= 0 {
			targets[0] = targets[0][:c] // self.x: T = v
		}
	}
	return matchSelf(targets, self)
}

// matchSelf returns the NAME of each target (or element of a target tuple)
// written self.NAME.
func matchSelf(targets []string, self string) []string {
	var out []string
	var walk func(t string)
	walk = func(t string) {
		t = strings.TrimSpace(t)
		switch {
		case strings.HasPrefix(t, "*"):
			walk(t[1:])
		case len(t) > 1 && (t[0] == '(' || t[0] == '[') && matchBracket(t, 0) == len(t)-1:
			walk(t[1 : len(t)-1])
		case topLevelIndex(t, ',') >= 0:
			for _, sg := range splitTopLevel(t, ',') {
				walk(t[sg[0]:sg[1]])
			}
		default:
			obj, attr, ok := strings.Cut(strings.ReplaceAll(t, " ", ""), ".")
			if ok && obj == self && isIdentifier(attr) {
				out = append(out, attr)
			}
		}
	}
	for _, t := range targets {
		walk(t)
	}
	return out
}

func bindForTargets(fr *frame, L logLine, m, t string) {
	if fr.scope == nil {
		return
	}
	_, rest := firstWord(m)
	i := strings.Index(rest, " in ")
	if i < 0 {
		return
	}
	newB := func(kind bindKind, name string) *pyBinding {
		return &pyBinding{kind: kind, name: name, line: L.start, start: L.start, end: L.end, cond: fr.cond, inClass: fr.scope.class}
	}
	bindTarget(fr.scope, newB, rest[:i], "", "", false)
}

func bindWithTargets(cur *frame, L logLine, m, t string) {
	if cur.scope == nil {
		return
	}
	newB := func(kind bindKind, name string) *pyBinding {
		return &pyBinding{kind: kind, name: name, line: L.start, start: L.start, end: L.end, cond: cur.cond, inClass: cur.scope.class}
	}
	for _, seg := range splitTopLevel(m, ',') {
		if _, target, ok := strings.Cut(m[seg[0]:seg[1]], " as "); ok {
			bindTarget(cur.scope, newB, target, "", "", false)
		}
	}
}

func bind(sc *pyScope, b *pyBinding) {
	if sc == nil || !isIdentifier(b.name) {
		return
	}
	sc.names[b.name] = append(sc.names[b.name], b)
}

// splitTopLevel splits m at sep outside brackets, returning [start, end) pairs.
func splitTopLevel(m string, sep byte) [][2]int {
	var out [][2]int
	depth, prev := 0, 0
	for i := 0; i < len(m); i++ {
		switch m[i] {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
		case sep:
			if depth == 0 {
				out = append(out, [2]int{prev, i})
				prev = i + 1
			}
		}
	}
	return append(out, [2]int{prev, len(m)})
}

// topLevelIndex is the first offset of c outside brackets (":=" excluded for ':').
func topLevelIndex(m string, c byte) int {
	depth := 0
	for i := 0; i < len(m); i++ {
		switch m[i] {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
		case c:
			if depth == 0 && !(c == ':' && i+1 < len(m) && m[i+1] == '=') {
				return i
			}
		}
	}
	return -1
}

func firstWord(s string) (word, rest string) {
	i := 0
	for i < len(s) && isIdentByte(s[i]) {
		i++
	}
	return s[:i], s[i:]
}

func squashSpaces(s string) string { return strings.Join(strings.Fields(s), " ") }

func clipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
