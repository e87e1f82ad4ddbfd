package probe

import (
	"archive/zip"
	"cmp"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
)

// maxSourceSize is the largest .py file static mode reads from a wheel.
const maxSourceSize = 16 << 20

// maxHops bounds how many imports and aliases one look-up follows.
const maxHops = 24

// runStatic reads the baseline and candidate wheels and probes each spec and
// resolves each use in them.
func runStatic(opts Options, specs []Spec, uses []Use) (base, cand *sideSet, err error) {
	side := func(version string, wh Wheel) (*sideSet, error) {
		w, err := openWheel(opts, version, wh)
		if err != nil {
			return nil, err
		}
		sides := &sideSet{probes: make([]Side, len(specs)), uses: make([]UseSide, len(uses))}
		for i := range specs {
			st, detail := w.probe(&specs[i])
			sides.probes[i] = Side{Version: version, Status: st, Detail: detail}
		}
		for i := range uses {
			a := w.use(&uses[i])
			sides.uses[i] = a.finish(&uses[i], version)
		}
		return sides, nil
	}
	if opts.Baseline != "" {
		if base, err = side(opts.Baseline, opts.BaselineWheel); err != nil {
			return nil, nil, err
		}
	}
	cand, err = side(opts.Candidate, opts.CandidateWheel)
	return base, cand, err
}

// wheel is a wheel's Python modules, scanned on demand.
type wheel struct {
	name     string
	files    map[string]*zip.File // module → its .py file (a package → __init__.py)
	pkgs     map[string]bool      // packages, including namespace packages (no __init__.py)
	compiled map[string]string    // module → its .so/.pyd file
	parsed   map[string]*pyFile
	bad      map[string]string // module → why it cannot be read
	starMemo map[starKey]*starAnswer
}

func openWheel(opts Options, version string, wh Wheel) (*wheel, error) {
	if wh.isZero() {
		if opts.Index == "" || !isLocalDir(opts.Index) {
			return nil, fmt.Errorf("probe: static mode needs the %s %s wheel: pass it as a Wheel (downloaded and verified, as checks/artifact does) or give a local wheel directory as the index", opts.Package, version)
		}
		p, err := findWheel(strings.TrimPrefix(opts.Index, "file://"), opts.Package, version)
		if err != nil {
			return nil, err
		}
		wh.Path = p
	}
	if wh.Path != "" {
		f, err := os.Open(wh.Path)
		if err != nil {
			return nil, fmt.Errorf("probe: %w", err)
		}
		// The zip.File entries read through f lazily; it stays open for the
		// process's lifetime only as long as the wheel is referenced.
		fi, err := f.Stat()
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("probe: %w", err)
		}
		wh.R, wh.Size = f, fi.Size()
		if wh.Name == "" {
			wh.Name = filepath.Base(wh.Path)
		}
	}
	if wh.Name == "" {
		wh.Name = fmt.Sprintf("%s-%s wheel", opts.Package, version)
	}
	zr, err := zip.NewReader(wh.R, wh.Size)
	if err != nil {
		return nil, fmt.Errorf("probe: reading %s: %w", wh.Name, err)
	}
	return newWheel(wh.Name, zr), nil
}

// wheelName is a wheel's file name (PEP 427), compiled when first used: only
// a probe of a wheel directory needs it.
var wheelName = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^([^-]+)-([^-]+)(-\d[^-]*)?-([^-]+)-([^-]+)-([^-]+)\.whl$`)
})

// findWheel finds the wheel of pkg==version in a directory, preferring a pure one.
func findWheel(dir, pkg, version string) (string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", fmt.Errorf("probe: %w", err)
	}
	want := strings.ReplaceAll(normName(pkg), "-", "_")
	var found []string
	for _, e := range entries {
		m := wheelName().FindStringSubmatch(e.Name())
		if m == nil || strings.ReplaceAll(normName(m[1]), "-", "_") != want || m[2] != version {
			continue
		}
		found = append(found, e.Name())
	}
	if len(found) == 0 {
		return "", fmt.Errorf("probe: no wheel of %s %s in %s", pkg, version, dir)
	}
	sort.SliceStable(found, func(i, j int) bool {
		return strings.HasSuffix(found[i], "-none-any.whl") && !strings.HasSuffix(found[j], "-none-any.whl")
	})
	return filepath.Join(dir, found[0]), nil
}

func newWheel(name string, zr *zip.Reader) *wheel {
	w := &wheel{name: name, files: map[string]*zip.File{}, pkgs: map[string]bool{},
		compiled: map[string]string{}, parsed: map[string]*pyFile{}, bad: map[string]string{},
		starMemo: map[starKey]*starAnswer{}}
	for _, f := range zr.File {
		p := f.Name
		if first, rest, ok := strings.Cut(p, "/"); ok && strings.HasSuffix(first, ".data") {
			sub, rest2, _ := strings.Cut(rest, "/")
			if sub != "purelib" && sub != "platlib" {
				continue
			}
			p = rest2
		}
		dir, base := path.Split(p)
		var parts []string
		if dir != "" {
			parts = strings.Split(strings.TrimSuffix(dir, "/"), "/")
		}
		ok := true
		for _, seg := range parts {
			ok = ok && isIdentifier(seg)
		}
		if !ok {
			continue // *.dist-info, data directories, non-importable paths
		}
		var mod string
		switch {
		case strings.HasSuffix(base, ".py"):
			stem := strings.TrimSuffix(base, ".py")
			if !isIdentifier(stem) {
				continue
			}
			if stem == "__init__" {
				if len(parts) == 0 {
					continue
				}
				mod = strings.Join(parts, ".")
				w.pkgs[mod] = true
			} else {
				mod = strings.Join(append(parts, stem), ".")
			}
			w.files[mod] = f
		case strings.HasSuffix(base, ".so") || strings.HasSuffix(base, ".pyd"):
			stem, _, _ := strings.Cut(base, ".")
			if !isIdentifier(stem) {
				continue
			}
			mod = strings.Join(append(parts, stem), ".")
			w.compiled[mod] = f.Name
		default:
			continue
		}
		for i := 1; i <= len(parts); i++ {
			w.pkgs[strings.Join(parts[:i], ".")] = true
		}
	}
	return w
}

// isPackage reports whether mod is a package (not a plain module).
func (w *wheel) isPackage(mod string) bool {
	if f := w.files[mod]; f != nil {
		return strings.HasSuffix(f.Name, "__init__.py")
	}
	return w.pkgs[mod]
}

// sobj is what a dotted path statically refers to.
type sobj struct {
	kind   bindKind // 0 for a module
	module string   // the module itself, or the module the binding is in
	file   *pyFile  // nil for a namespace package
	b      *pyBinding
	owner  *pyScope // the scope the binding is in
	// outside is set for a name bound to something from another distribution
	// (import numpy; from math import inf; inf = math.inf): the dotted name
	// it refers to, which static mode does not read.
	outside string
	// unfollowed is set for a name bound by assignment to a value static
	// mode cannot follow (an attribute of a run-time value): why.
	unfollowed string
	// implicit is set for an attribute the import system sets on every
	// module (__name__, __file__, __spec__; __path__ on a package): it is
	// there, a value, whatever the source says.
	implicit bool
}

// implicitAttrs are the attributes the import system sets on every module
// loaded from a file of the wheel, and their values' types; a package also
// has __path__.
var implicitAttrs = map[string]string{
	"__name__": "str", "__file__": "str", "__doc__": "str or None", "__spec__": "ModuleSpec", "__loader__": "a loader",
	"__package__": "str", "__cached__": "str or None", "__builtins__": "dict", "__dict__": "dict",
}

// implicitMember returns the attribute name the import system sets on the
// module obj, when it is one.
func (w *wheel) implicitMember(obj *sobj, name string) (*sobj, bool) {
	if _, ok := implicitAttrs[name]; !ok && (name != "__path__" || !w.isPackage(obj.module)) {
		return nil, false
	}
	return &sobj{kind: bAssign, module: obj.module, file: obj.file, owner: obj.file.top, b: &pyBinding{kind: bAssign, name: name}, implicit: true}, true
}

// compiledModule is the phrase that marks an answer hidden in a compiled
// module of the wheel.
const compiledModule = "is a compiled module"

// outside reports whether module mod belongs to another distribution: its
// top-level package is not in the wheel.
func (w *wheel) outside(mod string) bool {
	top, _, _ := strings.Cut(mod, ".")
	_, _, _, ok := w.module(top)
	return !ok
}

func (o *sobj) describe() string {
	switch {
	case o.outside != "" && o.b.kind == bAssign:
		return fmt.Sprintf("%s = %s (%s line %d; %s is outside the wheel)", o.b.name, o.b.value, o.module, o.b.line, o.outside)
	case o.outside != "":
		return fmt.Sprintf("%s, imported from %s (%s line %d; outside the wheel)", o.b.name, o.outside, o.module, o.b.line)
	case o.implicit:
		typ := cmp.Or(implicitAttrs[o.b.name], "list")
		return fmt.Sprintf("%s.%s, which the import system sets on every module (%s)", o.module, o.b.name, typ)
	case o.unfollowed != "":
		return fmt.Sprintf("%s = %s (%s line %d; its value is not followed: %s)", o.b.name, clipText(squashSpaces(o.b.value), 60), o.module, o.b.line, clipText(o.unfollowed, 160))
	case o.kind == 0 && o.file == nil:
		return "namespace package " + o.module
	case o.kind == 0:
		return "module " + o.module
	case o.kind == bClass:
		return fmt.Sprintf("class %s (%s line %d)", o.b.name, o.module, o.b.line)
	case o.kind == bDef:
		return fmt.Sprintf("function %s (%s line %d)", o.b.name, o.module, o.b.line)
	case o.b.value != "":
		return fmt.Sprintf("%s = %s (%s line %d)", o.b.name, clipText(squashSpaces(o.b.value), 60), o.module, o.b.line)
	}
	return fmt.Sprintf("%s, bound at %s line %d", o.b.name, o.module, o.b.line)
}

// probe answers one spec from the wheel's source.
func (w *wheel) probe(s *Spec) (Status, string) {
	if s.Run != "" {
		return Unknown, "a run snippet needs Python; static mode only reads the wheel"
	}
	switch s.expectKind() {
	case ExpectAbsent:
		return w.absent(s.Path)
	case ExpectInstanceAttribute:
		return w.instanceAttribute(s.Path)
	}
	obj, st, why := w.resolve(s.Path, 0)
	if st != Pass {
		return st, why
	}
	notes := []string{"found " + obj.describe()}
	worst, reasons := Pass, []string(nil)
	add := func(st Status, msg string) {
		switch {
		case st == Fail:
			worst = Fail
		case st == Unknown && worst == Pass:
			worst = Unknown
		}
		if st != Pass {
			reasons = append(reasons, msg)
		} else if msg != "" {
			notes = append(notes, msg)
		}
	}
	add(w.checkExpect(obj, s.expectKind()))
	if s.SourceContains != "" {
		add(w.checkSource(obj, s.Path, s.SourceContains))
	}
	if s.Signature != "" {
		add(w.checkSignature(obj, s))
	}
	if worst != Pass {
		msg := strings.Join(reasons, "; ")
		if !strings.Contains(msg, obj.describe()) {
			msg += " (" + notes[0] + ")"
		}
		return worst, msg
	}
	return Pass, strings.Join(notes, "; ")
}

// module returns the module mod, or ok=false if the wheel has no such module.
func (w *wheel) module(mod string) (o *sobj, st Status, why string, ok bool) {
	if f, found := w.files[mod]; found {
		pf, reason := w.scan(mod, f)
		if pf == nil {
			return nil, Unknown, reason, true
		}
		return &sobj{module: mod, file: pf, owner: pf.top}, Pass, "", true
	}
	if w.pkgs[mod] {
		return &sobj{module: mod}, Pass, "", true
	}
	if file, found := w.compiled[mod]; found {
		return nil, Unknown, fmt.Sprintf("%s %s (%s) that cannot be read statically", mod, compiledModule, file), true
	}
	return nil, "", "", false
}

func (w *wheel) scan(mod string, f *zip.File) (*pyFile, string) {
	if pf := w.parsed[mod]; pf != nil {
		return pf, ""
	}
	if why := w.bad[mod]; why != "" {
		return nil, why
	}
	pf, why := func() (*pyFile, string) {
		if f.UncompressedSize64 > maxSourceSize {
			return nil, fmt.Sprintf("%s is too large to read (%d bytes)", f.Name, f.UncompressedSize64)
		}
		rc, err := f.Open()
		if err != nil {
			return nil, fmt.Sprintf("cannot read %s: %v", f.Name, err)
		}
		defer rc.Close()
		b, err := io.ReadAll(io.LimitReader(rc, maxSourceSize+1))
		if err != nil || len(b) > maxSourceSize {
			return nil, fmt.Sprintf("cannot read %s: %v", f.Name, err)
		}
		pf, err := scanPython(string(b))
		if err != nil {
			return nil, fmt.Sprintf("%s: %v", f.Name, err)
		}
		return pf, ""
	}()
	if pf == nil {
		w.bad[mod] = why
		return nil, why
	}
	w.parsed[mod] = pf
	return pf, ""
}

// resolve follows a dotted path through modules, classes, defs, assignments and
// imports.
func (w *wheel) resolve(dotted string, hops int) (*sobj, Status, string) {
	if hops > maxHops {
		return nil, Unknown, "too many imports and aliases to follow"
	}
	parts := strings.Split(dotted, ".")
	obj, st, why, ok := w.module(parts[0])
	if !ok {
		return nil, Unknown, fmt.Sprintf("module %s is not in %s (another distribution may provide it)", parts[0], w.name)
	}
	if st != Pass {
		return nil, st, why
	}
	for i := 1; i < len(parts); i++ {
		obj, st, why = w.member(obj, parts[i], i+1, hops)
		if st != Pass {
			return nil, st, why
		}
	}
	return obj, Pass, ""
}

// member looks up name (segment number seg of the path) in obj.
func (w *wheel) member(obj *sobj, name string, seg, hops int) (*sobj, Status, string) {
	if obj.unfollowed != "" {
		return nil, Unknown, fmt.Sprintf("%s; its attribute %s cannot be read statically", obj.describe(), name)
	}
	if obj.outside != "" {
		what := fmt.Sprintf("%s is %s, from another distribution", obj.b.name, obj.outside)
		if obj.b.name == obj.outside {
			what = obj.b.name + " is a module from another distribution"
		}
		return nil, Unknown, fmt.Sprintf("%s; its attribute %s is not in %s", what, name, w.name)
	}
	missing := func(format string, args ...any) string {
		return fmt.Sprintf("segment %d %q is missing: ", seg, name) + fmt.Sprintf(format, args...)
	}
	switch obj.kind {
	case 0:
		sub := obj.module + "." + name
		if obj.file != nil {
			if b, st, why, found := w.topBinding(obj, name, hops); found {
				_, _, _, isSub := w.module(sub)
				switch {
				case st == Pass:
					return w.bindingObj(obj, b, hops)
				case isSub && len(obj.file.top.names[name]) == 0:
					// Only a star import that may or may not export the name
					// stands against a submodule of the wheel: the submodule.
				default:
					return nil, st, why
				}
			}
		}
		if o, st, why, ok := w.module(sub); ok {
			return o, st, why
		}
		if obj.file == nil {
			return nil, Unknown, fmt.Sprintf("%s is a namespace package; another distribution may provide %s", obj.module, sub)
		}
		if o, ok := w.implicitMember(obj, name); ok {
			return o, Pass, ""
		}
		if why := moduleDynamic(obj.file, name); why != "" {
			return nil, Unknown, fmt.Sprintf("%s is not defined statically in module %s, which may make names at run time: %s", name, obj.module, why)
		}
		if line, ok := obj.file.top.deleted[name]; ok {
			return nil, Fail, missing("module %s deletes it at line %d", obj.module, line)
		}
		how := "no def, class, assignment or import"
		if len(obj.file.top.stars) > 0 {
			how += ", and no star import brings it in"
		}
		return nil, Fail, missing("module %s has no %s (%s) and no submodule %s", obj.module, name, how, name) +
			typeOnlyNote(obj.file.top, name)
	case bClass:
		return w.classMember(obj, name, seg, hops, map[*pyBinding]bool{})
	case bDef:
		if bs := obj.file.top.attrSets[obj.b.name][name]; len(bs) > 0 && !obj.b.inClass {
			b, st, why := pick(bs, obj.file.top, obj.b.name+"."+name, obj.module)
			if st != Pass {
				return nil, st, why
			}
			return w.bindingObj(&sobj{module: obj.module, file: obj.file, owner: obj.file.top}, b, hops)
		}
		return nil, Unknown, fmt.Sprintf("attributes of %s are set at run time, if at all", obj.describe())
	}
	return nil, Unknown, fmt.Sprintf("%s is a value computed at run time; its attribute %s cannot be read statically", obj.describe(), name)
}

// classMember looks name up in a class and its bases; seen holds the classes
// already searched, so a base listed twice or a cycle is searched once.
func (w *wheel) classMember(obj *sobj, name string, seg, hops int, seen map[*pyBinding]bool) (*sobj, Status, string) {
	seen[obj.b] = true
	body := obj.b.body
	bs := body.names[name]
	if obj.owner == obj.file.top { // "Cls.attr = v" after a module-level class
		bs = append(append([]*pyBinding(nil), bs...), obj.file.top.attrSets[obj.b.name][name]...)
	}
	if len(bs) > 0 {
		b, st, why := pick(bs, body, name, obj.module+"."+obj.b.name)
		if st != Pass {
			return nil, st, why
		}
		return w.bindingObj(&sobj{kind: bClass, module: obj.module, file: obj.file, b: obj.b, owner: body}, b, hops)
	}
	if strings.HasPrefix(name, "__") && strings.HasSuffix(name, "__") || name == "mro" {
		return nil, Unknown, fmt.Sprintf("%s is not in the body of %s; it may come from object or the metaclass", name, obj.describe())
	}
	var undecided []string
	if len(obj.b.decorators) > 0 {
		undecided = append(undecided, "class decorators may add attributes")
	}
	if len(body.dynamic) > 0 {
		undecided = append(undecided, body.dynamic[0])
	}
	if why := moduleDynamic(obj.file, ""); why != "" && !strings.HasPrefix(why, "from ") {
		undecided = append(undecided, why)
	}
	var basesSeen []string
	if obj.b.bases != "" && len(seen) < 64 {
		for _, sg := range splitTopLevel(obj.b.bases, ',') {
			base := strings.TrimSpace(obj.b.bases[sg[0]:sg[1]])
			switch {
			case base == "" || base == "object":
				continue
			case strings.HasPrefix(base, "metaclass") && strings.Contains(base, "="):
				undecided = append(undecided, "it has a metaclass")
				continue
			case strings.Contains(base, "=") || strings.HasPrefix(base, "*"):
				continue
			case !isDotted(base):
				undecided = append(undecided, fmt.Sprintf("base %s is computed at run time", base))
				continue
			}
			basesSeen = append(basesSeen, base)
			bo, st, why := w.lookupName(obj, strings.ReplaceAll(base, " ", ""), hops+1)
			if st == Pass && bo.outside != "" {
				st, why = Unknown, fmt.Sprintf("it is %s, from another distribution", bo.outside)
			}
			if st != Pass {
				if attrs, ok := knownBases[w.baseName(obj, base)]; ok {
					if slices.Contains(attrs, name) {
						undecided = append(undecided, fmt.Sprintf("base %s provides %s", base, name))
					}
					continue
				}
				undecided = append(undecided, fmt.Sprintf("base %s cannot be read: %s", base, why))
				continue
			}
			if bo.kind != bClass {
				undecided = append(undecided, fmt.Sprintf("base %s is %s", base, bo.describe()))
				continue
			}
			if seen[bo.b] {
				continue
			}
			r, st, why := w.classMember(bo, name, seg, hops+1, seen)
			switch st {
			case Pass:
				return r, Pass, ""
			case Unknown:
				undecided = append(undecided, why)
			}
		}
	}
	if len(undecided) > 0 {
		return nil, Unknown, fmt.Sprintf("%s is not in the body of %s, but %s", name, obj.describe(), strings.Join(undecided, "; "))
	}
	where := fmt.Sprintf("segment %d %q is missing: %s has no attribute %s in its body", seg, name, obj.describe(), name)
	if len(basesSeen) > 0 {
		where += " or its bases " + strings.Join(basesSeen, ", ")
	}
	return nil, Fail, where + typeOnlyNote(body, name)
}

// knownBases are base classes from outside a wheel whose class attributes (their
// own and their metaclass's, dunders aside) static mode knows.
var knownBases = map[string][]string{
	"abc.ABC": {"_abc_impl", "register", "_dump_registry", "_abc_registry_clear", "_abc_caches_clear"},
}

// baseName is the absolute name of a base class expression written in obj's
// module, when it comes from an import ("" otherwise).
func (w *wheel) baseName(obj *sobj, base string) string {
	head, rest, _ := strings.Cut(strings.ReplaceAll(base, " ", ""), ".")
	b, st, _, found := w.topBinding(&sobj{module: obj.module, file: obj.file, owner: obj.file.top}, head, 0)
	if !found || st != Pass {
		return ""
	}
	return importedName(b, rest)
}

// moduleDynamic says why names may appear in a module at run time ("" if nothing
// suggests they do). name, if not empty, is checked against global statements.
func moduleDynamic(f *pyFile, name string) string {
	var why []string
	if len(f.top.names["__getattr__"]) > 0 {
		why = append(why, fmt.Sprintf("module __getattr__ at line %d", f.top.names["__getattr__"][0].line))
	}
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

// typeOnlyNote says where sc binds name only under `if TYPE_CHECKING:` ("" if
// it does not): the name is missing at run time, but a reader of the source
// sees it.
func typeOnlyNote(sc *pyScope, name string) string {
	if sc.typeOnly == nil || len(sc.typeOnly.names[name]) == 0 {
		return ""
	}
	b := sc.typeOnly.names[name][0]
	return fmt.Sprintf("; it is bound at line %d only %s, which is false at run time", b.line, b.cond)
}

// pick chooses the binding in effect after the module or class body has run.
func pick(bs []*pyBinding, sc *pyScope, name, where string) (*pyBinding, Status, string) {
	last := -1
	for i, b := range bs {
		if b.cond == "" {
			last = i
		}
	}
	if last < 0 {
		return nil, Unknown, fmt.Sprintf("%s is bound in %s only conditionally (%s)", name, where, bs[0].cond)
	}
	if last+1 < len(bs) {
		b := bs[last+1]
		return nil, Unknown, fmt.Sprintf("%s in %s may be rebound at line %d (%s)", name, where, b.line, b.cond)
	}
	b := bs[last]
	if line, ok := sc.deleted[name]; ok && line > b.line {
		return nil, Unknown, fmt.Sprintf("%s in %s is deleted at line %d", name, where, line)
	}
	if b.kind == bAnnotated {
		return nil, Unknown, fmt.Sprintf("%s in %s is only annotated (line %d), not assigned", name, where, b.line)
	}
	return b, Pass, ""
}

// bindingObj follows a binding found in ctx (a module or class) to what it names.
func (w *wheel) bindingObj(ctx *sobj, b *pyBinding, hops int) (*sobj, Status, string) {
	owner := ctx.file.top
	if ctx.kind == bClass {
		owner = ctx.b.body
	}
	switch b.kind {
	case bDef, bClass, bOther:
		return &sobj{kind: b.kind, module: ctx.module, file: ctx.file, b: b, owner: owner}, Pass, ""
	case bImport:
		if w.outside(b.module) {
			return &sobj{kind: bOther, module: ctx.module, file: ctx.file, b: b, owner: owner, outside: b.module}, Pass, ""
		}
		o, st, why := w.resolve(b.module, hops+1)
		if st == Unknown {
			why = fmt.Sprintf("%s is module %s (import at %s line %d): %s", b.name, b.module, ctx.module, b.line, why)
		}
		return o, st, why
	case bFrom:
		abs, err := absModule(ctx.module, w.isPackage(ctx.module), b.module)
		if err != nil {
			return nil, Unknown, fmt.Sprintf("%s: %v", b.name, err)
		}
		if w.outside(abs) {
			return &sobj{kind: bOther, module: ctx.module, file: ctx.file, b: b, owner: owner, outside: abs + "." + b.attr}, Pass, ""
		}
		if abs == ctx.module { // "from . import sub" in a package's __init__.py
			if o, st, why, ok := w.module(abs + "." + b.attr); ok {
				return o, st, why
			}
		}
		o, st, why := w.resolve(abs+"."+b.attr, hops+1)
		if st != Pass && !strings.Contains(why, " is imported from ") {
			why = fmt.Sprintf("%s is imported from %s (%s line %d): %s", b.name, abs, ctx.module, b.line, why)
		}
		return o, st, why
	}
	if isDotted(b.valueMask) {
		scope := &sobj{kind: ctx.kind, module: ctx.module, file: ctx.file, b: ctx.b, owner: owner}
		value := strings.ReplaceAll(b.value, " ", "")
		o, st, why := w.lookupName(scope, value, hops+1)
		if st == Unknown {
			// inf = math.inf: the name is bound here; what it refers to is
			// another distribution's business.
			head, rest, _ := strings.Cut(value, ".")
			if ho, hst, _ := w.lookupName(scope, head, hops+1); hst == Pass && ho.outside != "" {
				if rest != "" {
					rest = "." + rest
				}
				return &sobj{kind: bAssign, module: ctx.module, file: ctx.file, b: b, owner: owner, outside: ho.outside + rest}, Pass, ""
			}
			// lower = registry.lower: the name is bound whatever the value;
			// only the wheel's compiled code hides whether the module imports.
			if !strings.Contains(why, compiledModule) {
				return &sobj{kind: bAssign, module: ctx.module, file: ctx.file, b: b, owner: owner, unfollowed: why}, Pass, ""
			}
		}
		if st != Pass {
			why = fmt.Sprintf("%s = %s (%s line %d): %s", b.name, b.value, ctx.module, b.line, why)
		}
		return o, st, why
	}
	return &sobj{kind: bAssign, module: ctx.module, file: ctx.file, b: b, owner: owner}, Pass, ""
}

// lookupName resolves a dotted name as code in ctx's body would: the class body
// (if any), then the module; builtins are not modelled.
func (w *wheel) lookupName(ctx *sobj, dotted string, hops int) (*sobj, Status, string) {
	if hops > maxHops {
		return nil, Unknown, "too many imports and aliases to follow"
	}
	head, rest, _ := strings.Cut(dotted, ".")
	scopes := []*sobj{{module: ctx.module, file: ctx.file, owner: ctx.file.top}}
	if ctx.kind == bClass && ctx.owner != ctx.file.top {
		scopes = append([]*sobj{ctx}, scopes...)
	}
	for _, sc := range scopes {
		var b *pyBinding
		var st Status
		var why string
		if sc.owner == ctx.file.top {
			var found bool
			if b, st, why, found = w.topBinding(sc, head, hops); !found {
				continue
			}
		} else {
			bs := sc.owner.names[head]
			if len(bs) == 0 {
				continue
			}
			b, st, why = pick(bs, sc.owner, head, ctx.module)
		}
		if st != Pass {
			return nil, st, why
		}
		o, st, why := w.bindingObj(sc, b, hops)
		if st != Pass {
			return nil, st, why
		}
		if rest == "" {
			return o, Pass, ""
		}
		for i, seg := range strings.Split(rest, ".") {
			if o, st, why = w.member(o, seg, i+2, hops); st != Pass {
				return nil, st, why
			}
		}
		return o, Pass, ""
	}
	return nil, Unknown, fmt.Sprintf("%s is not defined in %s (a builtin, or made at run time)", head, ctx.module)
}

// absModule resolves a possibly relative module name ("..core") used in cur.
func absModule(cur string, curIsPkg bool, rel string) (string, error) {
	dots := len(rel) - len(strings.TrimLeft(rel, "."))
	if dots == 0 {
		return rel, nil
	}
	base := cur
	if !curIsPkg {
		base = parentModule(base)
	}
	for i := 1; i < dots; i++ {
		base = parentModule(base)
	}
	if base == "" {
		return "", fmt.Errorf("relative import %s goes above the top-level package", rel)
	}
	if rest := rel[dots:]; rest != "" {
		return base + "." + rest, nil
	}
	return base, nil
}

func parentModule(m string) string {
	if i := strings.LastIndexByte(m, '.'); i >= 0 {
		return m[:i]
	}
	return ""
}
