package symbols

import (
	"cmp"
	"context"
	"debug/elf"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/pinbot-dev/pinbot/checks/artifact/archive"
	"github.com/pinbot-dev/pinbot/internal/mmap"
)

// Options configure a scan.
type Options struct {
	// Forbid are the forbid patterns (see Pattern).
	Forbid []string
	// Against are wheels, shared objects or directories of packages the
	// targets must coexist with.
	Against []string
	// Host are shared objects or directories of the host environment.
	Host []string
	// Limits bound the cost of reading wheels.
	Limits Limits
	// TempDir receives the spool of archive members too large for memory
	// (unlinked as soon as made, closed before Scan returns); "" means
	// os.TempDir().
	TempDir string
	// Examples is how many demangled examples each Forbidden entry keeps
	// (default 5; negative means none).
	Examples int
	// SizeOnly skips the byte comparison of equal-size copies: their body
	// verdict is then unknown.
	SizeOnly bool
	// Workers is how many goroutines parse objects, compare bodies and
	// demangle names at once (default GOMAXPROCS).
	Workers int
}

// A source is one shared object to scan and how to open it.
type source struct {
	path string
	base string // the file name, as DT_NEEDED would name it
	key  string
	role Role
	size int64
	open func() (readerAt, error)

	mu   sync.Mutex
	kept io.ReaderAt // a large compressed zip member, once kept in the spool
}

// scanner holds the state of one Scan call.
type scanner struct {
	opts    Options
	lim     Limits
	sources []*source
	objs    []*object // parallel to sources; nil when parsing failed
	errs    []error   // parallel to sources
	inputs  []InputError
	warns   []InputWarning
	closers []interface{ Close() error }
	seen    map[string]bool // paths of sources, scanned once
	// files are the files added so far, by size: a file reached through
	// several names (a symbolic link, a path given twice) is one library.
	files map[int64][]os.FileInfo
	role  Role // the role of the input being added, for its errors
	// forbid is, per source, what its names matching the patterns are
	// (nil: none, or not a target).
	forbid []*Forbidden
	// opened are, per source, the objects kept open after parsing, for
	// their bodies; closed by cleanup.
	opened []*opened
}

func (s *scanner) inputError(p string, err error) {
	s.inputs = append(s.inputs, InputError{Path: p, Error: err.Error(), Role: s.role})
}

func (s *scanner) warn(p, msg string) {
	s.warns = append(s.warns, InputWarning{Path: p, Warning: msg, Role: s.role})
}

// sameFile reports whether the file st describes was added before, and
// records it otherwise.
func (s *scanner) sameFile(st os.FileInfo) bool {
	if s.files == nil {
		s.files = map[int64][]os.FileInfo{}
	}
	for _, prev := range s.files[st.Size()] {
		if os.SameFile(prev, st) {
			return true
		}
	}
	s.files[st.Size()] = append(s.files[st.Size()], st)
	return false
}

func (s *scanner) cleanup() {
	for _, op := range s.opened {
		if op != nil {
			op.r.Close()
		}
	}
	for _, c := range s.closers {
		c.Close()
	}
}

// Scan scans the shared objects at paths (archives: wheels, conda packages,
// tarballs, see checks/artifact/archive; shared objects; or directories
// walked for *.so and *.so.* regular files) as targets, with
// opts.Against and opts.Host as the environment. It returns an error only for
// bad options or a cancelled context; unreadable inputs and libraries are
// reported in the Result.
func Scan(ctx context.Context, paths []string, opts Options) (*Result, error) {
	pats := make([]*Pattern, 0, len(opts.Forbid))
	for i, text := range opts.Forbid {
		p, err := CompilePattern(text)
		if err != nil {
			return nil, fmt.Errorf("forbid[%d]: %w", i, err)
		}
		pats = append(pats, p)
	}
	if opts.Examples == 0 {
		opts.Examples = 5
	}
	if opts.TempDir == "" {
		opts.TempDir = os.TempDir()
	}
	s := &scanner{opts: opts, lim: opts.Limits.withDefaults(), seen: map[string]bool{}}
	defer s.cleanup()
	for _, in := range []struct {
		paths []string
		role  Role
	}{{paths, RoleTarget}, {opts.Against, RoleAgainst}, {opts.Host, RoleHost}} {
		s.role = in.role
		for _, p := range in.paths {
			s.addPath(p, in.role)
		}
	}
	if err := s.parseAll(ctx, pats); err != nil {
		return nil, err
	}
	r := &Result{Patterns: slices.Clone(opts.Forbid), Errors: s.inputs, Warnings: s.warns}
	s.libraries(r)
	for _, f := range s.forbid {
		if f != nil {
			r.Forbidden = append(r.Forbidden, *f)
		}
	}
	clashes, perLib := s.clashes()
	if err := s.judge(ctx, clashes, perLib); err != nil {
		return nil, err
	}
	s.report(r, clashes)
	return r, nil
}

// addPath adds the sources found at p.
func (s *scanner) addPath(p string, role Role) {
	st, err := os.Stat(p)
	if err != nil {
		s.inputError(p, err)
		return
	}
	switch {
	case st.IsDir():
		s.addDir(p, role)
	case s.sameFile(st):
		// The same file under another name, or given twice: one library.
	case archiveKind(p) != "":
		s.addArchive(p, archiveKind(p), role)
	default:
		s.addFile(p, filepath.Base(p), st.Size(), role)
	}
}

func (s *scanner) addFile(p, rel string, size int64, role Role) {
	if s.seen[p] {
		return // given twice, or inside a directory also given
	}
	s.seen[p] = true
	s.sources = append(s.sources, &source{
		path: p, base: filepath.Base(p), key: libraryKey(rel), role: role, size: size,
		open: func() (readerAt, error) { return openFile(p) },
	})
}

// openFile maps the file at p read-only, or opens it for ReadAt when it
// cannot be mapped (not a regular file).
func openFile(p string) (readerAt, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	m, err := mmap.File(f)
	if err != nil {
		return f, nil
	}
	f.Close()
	return m, nil
}

// addDir walks dir for regular files named like shared objects; symbolic
// links are skipped, so a library is scanned once however many names it has.
func (s *scanner) addDir(dir string, role Role) {
	first := len(s.sources)
	defer func() {
		if len(s.sources) == first {
			s.warn(dir, "the directory holds no shared object (*.so, *.so.*): nothing to scan")
		}
	}()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			s.inputError(p, err)
			return nil
		}
		if !d.Type().IsRegular() || !isSharedObject(p) {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			s.inputError(p, err)
			return nil
		}
		if s.sameFile(info) {
			return nil // also given by another name
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			rel = filepath.Base(p)
		}
		s.addFile(p, rel, info.Size(), role)
		return nil
	})
	if err != nil {
		s.inputError(dir, err)
	}
}

// archiveKind returns the kind of archive p is by its name, else by its
// first bytes; "" for a file that is no archive (a shared object).
func archiveKind(p string) archive.Kind {
	if k := archive.KindOf(p); k != "" {
		return k
	}
	f, err := os.Open(p)
	if err != nil {
		return ""
	}
	defer f.Close()
	head := make([]byte, archive.SniffLen)
	n, _ := f.ReadAt(head, 0)
	return archive.Sniff(head[:n])
}

// parseAll parses every source, a few at a time, largest first (so that a
// large library does not start last), and matches each target's names
// against the patterns as they are read, while they are in the cache:
// s.forbid.
func (s *scanner) parseAll(ctx context.Context, pats []*Pattern) error {
	s.objs = make([]*object, len(s.sources))
	s.errs = make([]error, len(s.sources))
	s.forbid = make([]*Forbidden, len(s.sources))
	s.opened = make([]*opened, len(s.sources))
	order := make([]int, len(s.sources))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(s.sources[b].size, s.sources[a].size) })
	workers := max(1, min(s.workers(), len(s.sources)))
	next := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			defer mmap.Guard()() // a file truncated under the mapping is an error, not a crash
			var m *matcher
			if len(pats) > 0 {
				m = newMatcher(pats)
			}
			for i := range next {
				src := s.sources[i]
				var f *forbidCount
				if m != nil && src.role == RoleTarget {
					f = s.newForbidCount(m)
				}
				s.objs[i], s.opened[i], s.errs[i] = s.parseSource(src, f.visitor())
				if s.objs[i] != nil && f != nil {
					s.forbid[i] = f.result(src)
				}
			}
		})
	}
	var err error
	for _, i := range order {
		if err = ctx.Err(); err != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	return err
}

// parseSource parses the object src holds. A mapped file stays open,
// its pages released, for its bodies to be read without opening and
// parsing it again (op); other readers (an archive member decompressed into
// memory, say) are closed, so that they hold no memory meanwhile.
func (s *scanner) parseSource(src *source, visit nameVisitor) (o *object, op *opened, err error) {
	r, err := src.open()
	if err != nil {
		return nil, nil, err
	}
	size := src.size
	switch f := r.(type) {
	case *os.File:
		if st, err := f.Stat(); err == nil {
			size = st.Size()
		}
	case *mmap.Map:
		size = f.Len()
	}
	o, f, err := parseELF(r, size, visit)
	if m, ok := r.(*mmap.Map); ok && err == nil {
		m.Release(0, size)
		return o, &opened{r: m, f: f, size: size}, nil
	}
	r.Close()
	return o, nil, err
}

// An opened is a parsed object kept open: its reader and headers.
type opened struct {
	r    readerAt
	f    *elf.File
	size int64
}

// libraries fills r.Libraries and r.Stats from the parsed objects.
func (s *scanner) libraries(r *Result) {
	r.Libraries = make([]Library, len(s.sources))
	for i, src := range s.sources {
		l := Library{Path: src.path, Key: src.key, Role: src.role}
		if err := s.errs[i]; err != nil {
			l.Error = err.Error()
		} else if o := s.objs[i]; o != nil {
			l.Soname, l.Needed, l.Runpath = o.soname, o.needed, o.runpath
			l.Symbolic, l.PythonExtension = o.symbolic, o.pyext
			l.VersionNodes = o.nodes
			l.Machine = machineName(o.machine)
			l.Symbols = max(len(o.syms)-1, 0)
			l.Exported, l.Undefined = len(o.exported), len(o.imports)
			r.Stats.Symbols += l.Symbols
			r.Stats.Exported += l.Exported
			r.Stats.Undefined += l.Undefined
			r.Stats.Libraries++
		}
		r.Libraries[i] = l
	}
}

func machineName(m elf.Machine) string {
	return strings.ToLower(strings.TrimPrefix(m.String(), "EM_"))
}

// A forbidCount matches the names of one target library against the
// forbid patterns, as they are read (nameVisitor), and counts the hits.
type forbidCount struct {
	m        *matcher
	hits     []bool
	counts   []PatternCount
	exp, imp *topN
}

func (s *scanner) newForbidCount(m *matcher) *forbidCount {
	f := &forbidCount{
		m: m, hits: make([]bool, len(m.pats)), counts: make([]PatternCount, len(m.pats)),
		exp: newTopN(s.opts.Examples), imp: newTopN(s.opts.Examples),
	}
	for j, p := range m.pats {
		f.counts[j].Pattern = p.text
	}
	return f
}

// visitor returns f.visit, or nil for a nil f: nothing to match.
func (f *forbidCount) visitor() nameVisitor {
	if f == nil {
		return nil
	}
	return f.visit
}

func (f *forbidCount) visit(name string, export bool) {
	if !f.m.match(name, f.hits) {
		return
	}
	if export {
		f.exp.add(name)
	} else {
		f.imp.add(name)
	}
	for j, h := range f.hits {
		switch {
		case !h:
		case export:
			f.counts[j].Exports++
		default:
			f.counts[j].Imports++
		}
	}
}

// result is what f found in the library src holds; nil when no name
// matched. The counts and examples do not depend on the order names were
// shown in (topN keeps the first names in exampleOrder).
func (f *forbidCount) result(src *source) *Forbidden {
	if f.exp.count == 0 && f.imp.count == 0 {
		return nil
	}
	return &Forbidden{
		Library: src.path, Key: src.key,
		Exports: f.exp.count, Imports: f.imp.count, Patterns: f.counts,
		Examples: f.exp.demangled(), ImportExamples: f.imp.demangled(),
	}
}

// exampleOrder orders example names: functions and objects before special
// names (vtables, typeinfo, thunks, guard variables: _ZT..., _ZG...), then
// by bytes.
func exampleOrder(a, b string) int {
	special := func(s string) bool { return strings.HasPrefix(s, "_ZT") || strings.HasPrefix(s, "_ZG") }
	switch sa, sb := special(a), special(b); {
	case sa && !sb:
		return 1
	case sb && !sa:
		return -1
	}
	return strings.Compare(a, b)
}

// A topN counts names and keeps the first n in exampleOrder, for examples.
type topN struct {
	n     int
	count int
	names []string // sorted, distinct
}

func newTopN(n int) *topN { return &topN{n: max(n, 0)} }

func (t *topN) add(name string) {
	t.count++
	if t.n == 0 || len(t.names) == t.n && exampleOrder(name, t.names[t.n-1]) >= 0 {
		return
	}
	i, found := slices.BinarySearchFunc(t.names, name, exampleOrder)
	if found {
		return
	}
	t.names = slices.Insert(t.names, i, name)
	if len(t.names) > t.n {
		t.names = t.names[:t.n]
	}
}

// demangled returns the kept names demangled, without repeats (a
// constructor's C1 and C2 copies demangle alike).
func (t *topN) demangled() []string {
	out := make([]string, 0, len(t.names))
	for _, name := range t.names {
		if d := demangleName(name); !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	return out
}

// A ref is symbol sym of object lib.
type ref struct{ lib, sym int32 }

// A clash is a symbol defined by several objects, while it is being judged.
type clash struct {
	name    string
	version string
	refs    []ref
	body    Body
	reason  string
	groups  []int
	// While judging: sizes and body hashes ("" unknown) per copy, tasks
	// for the copies whose bytes are read, and why a class is unknown.
	sizes   []uint64
	byClass [][]int // copy indices by size
	hashes  []string
	tasks   []*task
	note    string
}

// clashes indexes every exported definition by mangled name and returns the
// (name, version) pairs defined by two or more objects, one of them a
// target. Definitions of one name clash when their versions are equal or one
// is unversioned: the dynamic linker binds a versioned reference only to its
// version, or to an unversioned definition, and an unversioned reference to
// the default version of any. Each clash is planned (plan): perLib are the
// copies whose bytes are read, by library.
func (s *scanner) clashes() (out []*clash, perLib [][]*task) {
	total := 0
	for _, o := range s.objs {
		if o != nil {
			total += len(o.exported)
		}
	}
	// Every export by the hash of its name (computed while parsing), in
	// table order, split by hash into one part per worker: a name's
	// exports are all in one part, whose clashes a worker finds. The
	// parts' clashes, each sorted by name, are then merged.
	parts := make([][]hashedRef, max(1, min(s.workers(), 16)))
	for i := range parts {
		parts[i] = make([]hashedRef, 0, total/len(parts)+total/8)
	}
	for li, o := range s.objs {
		if o == nil {
			continue
		}
		for k, si := range o.exported {
			h := o.hashes[k]
			p := int(h >> 32 % uint64(len(parts)))
			parts[p] = append(parts[p], hashedRef{h, ref{int32(li), si}})
		}
		o.hashes = nil
	}
	found := make([][]*clash, len(parts))
	tasks := make([][][]*task, len(parts))
	var wg sync.WaitGroup
	for i, part := range parts {
		wg.Go(func() {
			// Each part's clashes are planned (plan) there too.
			tasks[i] = make([][]*task, len(s.objs))
			found[i] = s.clashesIn(part)
			var sl slabs
			for _, c := range found[i] {
				s.plan(c, tasks[i], &sl)
			}
		})
	}
	wg.Wait()
	perLib = make([][]*task, len(s.objs))
	for _, t := range tasks {
		for lib, ts := range t {
			perLib[lib] = append(perLib[lib], ts...)
		}
	}
	out = make([]*clash, 0, len(found[0])*len(found))
	for {
		// The part whose next clash comes first by name.
		next := -1
		for i, f := range found {
			if len(f) > 0 && (next < 0 || f[0].name < found[next][0].name) {
				next = i
			}
		}
		if next < 0 {
			return out, perLib
		}
		out = append(out, found[next][0])
		found[next] = found[next][1:]
	}
}

// clashesIn returns the clashes of the exports in all, sorted by name and
// version. all holds every export of the names it holds: grouped, equal
// hashes are neighbours, in table order; within a group names are
// compared, so a collision only costs a comparison.
func (s *scanner) clashesIn(all []hashedRef) []*clash {
	groupByHash(all)
	var dups []dupName
	var refSlab []ref // refs and sets are carved from blocks: one allocation for hundreds
	var clashSlab []clash
	nameOf := func(r ref) string { return s.objs[r.lib].syms[r.sym].name }
	for i := 0; i < len(all); {
		j := i + 1
		for j < len(all) && all[j].h == all[i].h {
			j++
		}
		if j-i > 1 {
			dups = appendDups(dups, all[i:j], nameOf, &refSlab)
		}
		i = j
	}
	slices.SortFunc(dups, func(a, b dupName) int { return strings.Compare(a.name, b.name) })
	out := make([]*clash, 0, len(dups))
	var vbuf [4]string
	for _, d := range dups {
		name, refs := d.name, d.refs
		versions := vbuf[:0]
		for _, r := range refs {
			if v := s.objs[r.lib].version(r.sym); v != "" && !slices.Contains(versions, v) {
				versions = append(versions, v)
			}
		}
		if len(versions) == 0 {
			versions = append(versions, "")
		}
		slices.Sort(versions)
		for _, v := range versions {
			set := carve(&refSlab, len(refs))[:0]
			for _, r := range refs {
				rv := s.objs[r.lib].version(r.sym)
				if rv != v && rv != "" {
					continue
				}
				if i := slices.IndexFunc(set, func(x ref) bool { return x.lib == r.lib }); i >= 0 {
					if rv != "" {
						set[i] = r // a library's versioned definition wins
					}
					continue
				}
				set = append(set, r)
			}
			if len(set) >= 2 && slices.ContainsFunc(set, func(r ref) bool { return s.sources[r.lib].role == RoleTarget }) {
				c := &carve(&clashSlab, 1)[0]
				c.name, c.version, c.refs = name, v, set
				out = append(out, c)
			}
		}
	}
	return out
}

// A hashedRef is an export and the hash of its name.
type hashedRef struct {
	h uint64
	r ref
}

// A dupName is a name exported more than once, and where, in table order.
type dupName struct {
	name string
	refs []ref
}

// appendDups appends to dups the names exported more than once among run
// (one hash), each with its exports in run order.
func appendDups(dups []dupName, run []hashedRef, nameOf func(ref) string, slab *[]ref) []dupName {
	first := nameOf(run[0].r)
	if !slices.ContainsFunc(run[1:], func(e hashedRef) bool { return nameOf(e.r) != first }) {
		refs := carve(slab, len(run))
		for k, e := range run {
			refs[k] = e.r
		}
		return append(dups, dupName{first, refs})
	}
	// A collision: group by name.
	done := make([]bool, len(run))
	for i := range run {
		if done[i] {
			continue
		}
		name := nameOf(run[i].r)
		refs := []ref{run[i].r}
		for j := i + 1; j < len(run); j++ {
			if !done[j] && nameOf(run[j].r) == name {
				done[j] = true
				refs = append(refs, run[j].r)
			}
		}
		if len(refs) > 1 {
			dups = append(dups, dupName{name, refs})
		}
	}
	return dups
}

// groupByHash orders a so that equal hashes are neighbours, keeping the
// order of entries with one hash: a stable radix sort on the low 24 bits
// (three passes), then a stable insertion sort of each run of equal low
// bits on the whole hash (runs are short: hashes are uniform).
func groupByHash(a []hashedRef) {
	if len(a) < 2 {
		return
	}
	tmp := make([]hashedRef, len(a))
	var count [256]int
	for shift := 0; shift < 24; shift += 8 {
		clear(count[:])
		for _, e := range a {
			count[e.h>>shift&0xff]++
		}
		pos := 0
		for d, c := range count {
			count[d] = pos
			pos += c
		}
		for _, e := range a {
			d := e.h >> shift & 0xff
			tmp[count[d]] = e
			count[d]++
		}
		copy(a, tmp)
	}
	const low = 1<<24 - 1
	for i := 0; i < len(a); {
		j := i + 1
		for j < len(a) && a[j].h&low == a[i].h&low {
			j++
		}
		for k := i + 1; k < j; k++ {
			for m := k; m > i && a[m-1].h > a[m].h; m-- {
				a[m-1], a[m] = a[m], a[m-1]
			}
		}
		i = j
	}
}

// report turns the judged clashes into r.Clashes.
//
// Only the names of clashes with different bodies, the ones that can be
// problems, are demangled here: on Debian's 35 libraries that is 95 names of
// 8,562, and demangling all would double the scan's time. Result.Demangle
// does the rest when they are printed.
func (s *scanner) report(r *Result, clashes []*clash) {
	var names []string
	var which []int
	for i, c := range clashes {
		if c.body == BodyDifferent {
			names = append(names, c.name)
			which = append(which, i)
		}
	}
	demangled := make([]string, len(clashes))
	for k, d := range demangleAll(names, s.workers()) {
		demangled[which[k]] = d
	}
	r.Clashes = make([]Clash, len(clashes))
	s.inRanges(len(clashes), func(lo, hi int) {
		reach := newReach(s)
		for i := lo; i < hi; i++ {
			r.Clashes[i] = s.reportClash(clashes[i], demangled[i], reach)
		}
	})
	for _, c := range r.Clashes {
		if c.Body == BodyDifferent {
			r.Stats.Different++
		}
	}
	r.Stats.Clashes = len(r.Clashes)
}

// inRanges calls f on consecutive ranges of [0, n) that cover it, one per
// worker, in parallel.
func (s *scanner) inRanges(n int, f func(lo, hi int)) {
	w := max(1, min(s.workers(), n))
	var wg sync.WaitGroup
	for k := range w {
		wg.Go(func() { f(n*k/w, n*(k+1)/w) })
	}
	wg.Wait()
}

// reportClash is the Clash reported for c.
func (s *scanner) reportClash(c *clash, demangled string, reach *reach) Clash {
	out := Clash{
		Name: c.name, Version: c.version, Demangled: demangled,
		Body: c.body, Reason: c.reason, Exposure: reach.exposure(c.refs),
		Copies: make([]Copy, len(c.refs)),
	}
	first := &s.objs[c.refs[0].lib].syms[c.refs[0].sym]
	out.Type = typeName(first.typ())
	for j, rf := range c.refs {
		sym := &s.objs[rf.lib].syms[rf.sym]
		src := s.sources[rf.lib]
		out.Copies[j] = Copy{
			Library: src.path, Key: src.key, Role: src.role,
			Version: s.objs[rf.lib].version(rf.sym),
			Size:    sym.size, Bind: bindName(sym.bind()),
		}
		if j < len(c.groups) {
			out.Copies[j].Group = c.groups[j]
		}
	}
	return out
}

func typeName(t elf.SymType) string {
	switch t {
	case elf.STT_FUNC, elf.STT_GNU_IFUNC:
		return "func"
	case elf.STT_OBJECT:
		return "object"
	case elf.STT_TLS:
		return "tls"
	}
	return "other"
}

func bindName(b elf.SymBind) string {
	switch b {
	case elf.STB_GLOBAL:
		return "GLOBAL"
	case elf.STB_WEAK:
		return "WEAK"
	case stbGNUUnique:
		return "UNIQUE"
	}
	return b.String()
}

// reach answers which objects can reach which through DT_NEEDED, among the
// scanned objects.
type reach struct {
	s      *scanner
	byName map[string][]int
	memo   map[int][]bool
}

func newReach(s *scanner) *reach {
	r := &reach{s: s, byName: map[string][]int{}, memo: map[int][]bool{}}
	for i, o := range s.objs {
		if o == nil {
			continue
		}
		name := o.soname
		if name == "" {
			name = s.sources[i].base
		}
		r.byName[name] = append(r.byName[name], i)
	}
	return r
}

// from returns the objects reachable from object i through DT_NEEDED.
func (r *reach) from(i int) []bool {
	if seen, ok := r.memo[i]; ok {
		return seen
	}
	seen := make([]bool, len(r.s.objs))
	queue := []int{i}
	seen[i] = true
	for len(queue) > 0 {
		o := r.s.objs[queue[0]]
		queue = queue[1:]
		for _, n := range o.needed {
			for _, j := range r.byName[n] {
				if !seen[j] {
					seen[j] = true
					queue = append(queue, j)
				}
			}
		}
	}
	r.memo[i] = seen
	return seen
}

// exposure classifies when the copies in refs can meet.
func (r *reach) exposure(refs []ref) Exposure {
	allSymbolic, plain := true, 0
	for _, a := range refs {
		o := r.s.objs[a.lib]
		allSymbolic = allSymbolic && o.symbolic
		if !o.pyext {
			plain++
		}
	}
	if allSymbolic {
		return ExposureSymbolic
	}
	for _, a := range refs {
		seen := r.from(int(a.lib))
		for _, b := range refs {
			if a.lib != b.lib && seen[b.lib] {
				return ExposureLinked
			}
		}
	}
	if plain >= 2 {
		return ExposureShared
	}
	return ExposureGlobal
}

// workers is the number of goroutines that work at once.
func (s *scanner) workers() int {
	if s.opts.Workers > 0 {
		return s.opts.Workers
	}
	return runtime.GOMAXPROCS(0)
}
