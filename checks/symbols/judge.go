package symbols

import (
	"bytes"
	"cmp"
	"context"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/pinbot-dev/pinbot/internal/mmap"
)

// A task is one copy of a clashing symbol whose bytes are compared.
type task struct {
	c         *clash
	k         int  // the copy, an index into c.refs
	normalise bool // the raw bytes did not decide
	norm      string
	err       string
}

// judge decides, for every clash (planned: perLib are the copies whose
// bytes are read, by library), whether its copies have the same body, in
// stages, each run only where the previous one could not decide: sizes;
// raw bytes; bytes normalised for layout (see the package comment), shown
// alike in lockstep or hashed. Libraries are opened in parallel; classes
// are compared in parallel, a run of classes per worker (compareAll): each
// library's tables are loaded once, by the first worker that needs them,
// and every worker keeps caches of its own.
func (s *scanner) judge(ctx context.Context, clashes []*clash, perLib [][]*task) error {
	libs := make([]*libBodies, len(s.objs))
	defer func() {
		for _, b := range libs {
			if b != nil {
				b.close()
			}
		}
	}()
	if err := s.openAll(ctx, perLib, libs); err != nil {
		return err
	}
	if err := s.compareAll(ctx, clashes, libs); err != nil {
		return err
	}
	s.inRanges(len(clashes), func(lo, hi int) {
		for _, c := range clashes[lo:hi] {
			s.verdict(c)
		}
	})
	return nil
}

// bytesNorm is the hash of copies whose raw bytes are equal (and nothing
// relocates them): equal hashes, not computed. It equals no other hash.
const bytesNorm = "bytes"

// alikeNorm stands for the normalised hash of copies shown alike by a
// pairer: equal hashes, not computed. It is shorter than a hash, so it
// equals none.
const alikeNorm = "alike"

// A normJob is classes to compare whose copies lie in one set of
// libraries, and so share their targets: one worker's caches serve a run
// of them.
type normJob struct {
	libs    []int // sorted
	classes [][]*task
}

// normChunk is the most classes a worker takes at once: fewer than the
// largest set (libgrpc's with libgrpc_unsecure, 4,282 classes on Debian),
// so that every worker shares in it, and enough that a worker's caches
// serve many classes and few pages are read again after a chunk's are
// released.
const normChunk = 512

// releaseChunks is how many chunks of a library are compared between two
// releases of its pages. Releasing after every chunk re-faults the tables
// read in place (relocation runs, unwind table) and the pages around them
// for every chunk, and unmapping costs a walk of the whole mapping: every
// fourth chunk cost 6 % less CPU time on Debian's libraries for 1.3 MB more
// peak RSS (after every chunk: the least RSS; never: 7 % less CPU, 8 MB
// more).
const releaseChunks = 4

// compareAll decides every class with copies to read: by their raw
// bytes where they are equal and nothing relocates them, else normalised:
// each copy is compared with the first in lockstep (pairer), and a class
// not shown alike is hashed copy by copy. Workers take runs (chunks) of at
// most normChunk classes of one set of libraries, the costliest first; each
// has its own view (bodyCtx) of every library it meets.
func (s *scanner) compareAll(ctx context.Context, clashes []*clash, libs []*libBodies) error {
	byLibs := map[string]*normJob{} // by the set's libraries, as uvarints
	var jobs []*normJob
	var set []int
	var key []byte
	for _, c := range clashes {
		for _, class := range c.classes() {
			ts := c.tasksOf(class)
			if ts == nil || slices.ContainsFunc(ts, func(t *task) bool { return t.err != "" }) {
				continue
			}
			set = set[:0]
			for _, t := range ts {
				set = append(set, int(t.c.refs[t.k].lib))
			}
			slices.Sort(set)
			set = slices.Compact(set)
			key = key[:0]
			for _, l := range set {
				key = binary.AppendUvarint(key, uint64(l))
			}
			j := byLibs[string(key)]
			if j == nil {
				j = &normJob{libs: slices.Clone(set)}
				byLibs[string(key)] = j
				jobs = append(jobs, j)
			}
			j.classes = append(j.classes, ts)
		}
	}
	// A library whose tables cost more than a chunk of classes (libLLVM:
	// 45,000 symbols and 390,000 relocations) has them loaded before any
	// chunk, by one worker while the others start on chunks: loaded on
	// first use, they held up the chunk that first needed them, at no
	// predictable point (on Debian's libraries, two classes of libLLVM's
	// compared last, while the other worker was idle), and any other
	// worker that needed them meanwhile. The price is loading them for a
	// library whose classes all turn out to have equal raw bytes.
	counted := make([]bool, len(libs))
	var preload []*libBodies
	for _, j := range jobs {
		for _, l := range j.libs {
			if !counted[l] && libs[l].tableCost() >= normChunk {
				preload = append(preload, libs[l])
			}
			counted[l] = true
		}
	}
	slices.SortStableFunc(preload, func(a, b *libBodies) int { return cmp.Compare(b.tableCost(), a.tableCost()) })
	// Chunks run longest first (so that no long one starts last), by an
	// estimate in classes: the first chunk of the largest set holding a
	// library also loads its tables, when they were not loaded first.
	// (The chunks of smaller sets that need them come later, when they are
	// loaded, rather than wait for them.)
	slices.SortStableFunc(jobs, func(a, b *normJob) int { return cmp.Compare(len(b.classes), len(a.classes)) })
	var chunks []normJob
	var cost []int
	clear(counted)
	for _, b := range preload {
		counted[slices.Index(libs, b)] = true
	}
	for _, j := range jobs {
		tables := 0
		for _, l := range j.libs {
			if !counted[l] {
				counted[l] = true
				tables += libs[l].tableCost()
			}
		}
		for len(j.classes) > 0 {
			n := min(len(j.classes), normChunk)
			chunks = append(chunks, normJob{libs: j.libs, classes: j.classes[:n]})
			cost = append(cost, n+tables)
			j.classes = j.classes[n:]
			tables = 0
		}
	}
	order := make([]int, len(chunks))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(cost[b], cost[a]) })
	// A library's tables are dropped once its last chunk is done.
	pending := make([]atomic.Int32, len(s.objs))
	for _, c := range chunks {
		for _, l := range c.libs {
			pending[l].Add(1)
		}
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range max(1, min(s.workers(), len(chunks))) {
		wg.Go(func() {
			defer mmap.Guard()()
			var p pairer
			views := make([]*bodyCtx, len(libs))
			view := func(lib int32) *bodyCtx {
				if views[lib] == nil {
					views[lib] = libs[lib].view()
				}
				return views[lib]
			}
			for ctx.Err() == nil {
				k := int(next.Add(1) - 1)
				if k < len(preload) {
					preload[k].loadTables()
					continue
				}
				k -= len(preload)
				if k >= len(chunks) {
					return
				}
				i := order[k]
				for l, v := range views {
					if v != nil && pending[l].Load() == 0 {
						views[l] = nil // done: its caches can go
						p.forget(v)
					}
				}
				for _, ts := range chunks[i].classes {
					if !s.sameBytes(ts, view) && !slices.ContainsFunc(ts, func(t *task) bool { return t.err != "" }) {
						for _, t := range ts {
							t.normalise = true
						}
						s.normaliseClass(&p, ts, view)
					}
				}
				// Pages read are released after every releaseChunks
				// chunks of a library, not only after its last: the
				// bodies of one chunk are rarely those of the next, and
				// the two largest libraries would otherwise stay resident
				// almost to the end (14 MB of the peak on Debian's
				// libraries). Pages read again are served from the page
				// cache.
				for _, l := range chunks[i].libs {
					if left := pending[l].Add(-1); left == 0 {
						libs[l].done()
					} else if left%releaseChunks == 0 {
						libs[l].release(0, libs[l].size)
					}
				}
			}
		})
	}
	wg.Wait()
	return ctx.Err()
}

// pairing enables the pairer; tests turn it off to check that it
// changes no verdict.
var pairing = true

// normaliseClass decides one class: alike in lockstep, else hashed.
func (s *scanner) normaliseClass(p *pairer, ts []*task, view func(lib int32) *bodyCtx) {
	first := ts[0].c.refs[ts[0].k]
	alike := pairing
	for _, t := range ts[1:] {
		if !alike {
			break
		}
		r := t.c.refs[t.k]
		alike = p.alike(view(first.lib), &s.objs[first.lib].syms[first.sym], view(r.lib), &s.objs[r.lib].syms[r.sym])
	}
	for _, t := range ts {
		if alike {
			t.norm = alikeNorm
		} else {
			view(t.c.refs[t.k].lib).normaliseTask(t)
		}
	}
}

// plan decides what sizes alone decide and queues the copies whose bytes
// must be read.
func (s *scanner) plan(c *clash, perLib [][]*task, sl *slabs) {
	n := len(c.refs)
	c.hashes = carve(&sl.hashes, n)
	c.tasks = carve(&sl.taskPtrs, n)
	tls := false
	for _, r := range c.refs {
		tls = tls || s.objs[r.lib].syms[r.sym].typ() == elf.STT_TLS
	}
	c.sizes = carve(&sl.sizes, n)
	for j, r := range c.refs {
		c.sizes[j] = s.objs[r.lib].syms[r.sym].size
	}
	for _, class := range c.classes() {
		size := c.sizes[class[0]]
		switch {
		case len(class) == 1:
			c.hashes[class[0]] = "size"
		case tls:
			c.note = "tls"
		case s.opts.SizeOnly:
			c.note = "size only"
		case size == 0:
			for _, k := range class {
				c.hashes[k] = "empty"
			}
		case size > uint64(s.lim.MaxBody):
			c.note = "too large"
		default:
			for _, k := range class {
				t := &carve(&sl.tasks, 1)[0]
				t.c, t.k = c, k
				c.tasks[k] = t
				perLib[c.refs[k].lib] = append(perLib[c.refs[k].lib], t)
			}
		}
	}
}

// slabs are the blocks plan carves a clash's per-copy state from: a scan
// plans every copy of thousands of clashes, and a block is one allocation
// where each slice and task was one. (A block lives as long as any clash
// carved from it: all of them live until the scan's end.)
type slabs struct {
	hashes   []string
	taskPtrs []*task
	sizes    []uint64
	tasks    []task
}

// carve returns the next n elements of *slab, zeroed, with a new block
// when too few are left.
func carve[T any](slab *[]T, n int) []T {
	if len(*slab) < n {
		*slab = make([]T, max(n, 512))
	}
	out := (*slab)[:n:n]
	*slab = (*slab)[n:]
	return out
}

// classes groups the copies of c by size, in copy order (computed once).
func (c *clash) classes() [][]int {
	if c.byClass != nil {
		return c.byClass
	}
	var out [][]int
	defer func() { c.byClass = out }()
	if len(c.sizes) > 0 && !slices.ContainsFunc(c.sizes, func(size uint64) bool { return size != c.sizes[0] }) {
		all := make([]int, len(c.sizes)) // one class, the usual case
		for j := range all {
			all[j] = j
		}
		out = [][]int{all}
		return out
	}
	for j, size := range c.sizes {
		i := slices.IndexFunc(out, func(class []int) bool { return c.sizes[class[0]] == size })
		if i < 0 {
			out = append(out, []int{j})
		} else {
			out[i] = append(out[i], j)
		}
	}
	return out
}

// tasksOf returns the tasks of a size class, or nil if it has none.
func (c *clash) tasksOf(class []int) []*task {
	if c.tasks[class[0]] == nil {
		return nil
	}
	ts := make([]*task, len(class))
	for i, k := range class {
		ts[i] = c.tasks[k]
	}
	return ts
}

// openAll opens the libraries that have tasks, a few at once; the tasks
// of a library that cannot be opened fail.
func (s *scanner) openAll(ctx context.Context, perLib [][]*task, libs []*libBodies) error {
	next := make(chan int)
	var wg sync.WaitGroup
	for range max(1, min(s.workers(), len(perLib))) {
		wg.Go(func() {
			defer mmap.Guard()() // headers read from a mapped wheel: truncated under it is an error
			for lib := range next {
				b, err := openBodies(s.objs[lib], s.sources[lib], s.opened[lib])
				libs[lib] = b
				if err != nil {
					for _, t := range perLib[lib] {
						t.err = err.Error()
					}
				}
			}
		})
	}
	var err error
	for lib, tasks := range perLib {
		if len(tasks) == 0 {
			continue
		}
		if err = ctx.Err(); err != nil {
			break
		}
		next <- lib
	}
	close(next)
	wg.Wait()
	return err
}

// sameBytes reads the copies of a class and reports whether their raw
// bytes are equal, none in a section dynamic relocations write to: then
// they are one body. A copy that cannot be read fails its task.
func (s *scanner) sameBytes(ts []*task, view func(lib int32) *bodyCtx) bool {
	var first []byte
	same := true
	for i, t := range ts {
		func() {
			defer recoverTask(t)
			r := t.c.refs[t.k]
			b := view(r.lib)
			raw, sec, err := b.read(&b.o.syms[r.sym])
			if err != nil {
				t.err = err.Error()
				return
			}
			if i == 0 {
				first = raw
			}
			relocated := sec != nil && (sec.Flags&elf.SHF_WRITE != 0 || b.o.textrel)
			same = same && !relocated && bytes.Equal(raw, first)
		}()
		same = same && t.err == ""
	}
	return same
}

// normaliseTask reads a task's bytes again and hashes them normalised.
func (b *bodyCtx) normaliseTask(t *task) {
	defer recoverTask(t)
	sym := &b.o.syms[t.c.refs[t.k].sym]
	raw, _, err := b.read(sym)
	if err == nil {
		// Normalising clears fields: it works on a copy.
		b.scratch = append(b.scratch[:0], raw...)
		t.norm, err = b.normalise(sym, b.scratch)
	}
	if err != nil {
		t.err = err.Error()
	}
}

func recoverTask(t *task) {
	if p := recover(); p != nil {
		t.err = fmt.Sprintf("internal error: %v", p)
	}
}

// verdict sets c's body verdict, reason and body groups from its tasks.
func (s *scanner) verdict(c *clash) {
	reason := c.note
	byBytes, normalised := false, false
	for _, class := range c.classes() {
		if c.tasks[class[0]] == nil {
			continue
		}
		if i := slices.IndexFunc(class, func(k int) bool { return c.tasks[k].err != "" }); i >= 0 {
			reason = c.tasks[class[i]].err
			continue
		}
		for _, k := range class {
			t := c.tasks[k]
			if t.normalise {
				c.hashes[t.k] = t.norm
				normalised = true
			} else {
				c.hashes[t.k] = bytesNorm
				byBytes = true
			}
		}
	}
	if reason == "" {
		switch {
		case normalised:
			reason = "normalised"
		case byBytes:
			reason = "bytes"
		default:
			reason = "size"
		}
	}
	// Number the distinct bodies (size and hash) in copy order: the
	// group of copy j is 1 + the first copy with its body, among those
	// numbered so far (a clash has a few copies: no map needed).
	n := len(c.refs)
	c.groups = make([]int, n)
	distinct := 0
	known := true
	for j := range n {
		if c.hashes[j] == "" {
			known = false
			continue
		}
		for i := range j {
			if c.groups[i] != 0 && c.sizes[i] == c.sizes[j] && c.hashes[i] == c.hashes[j] {
				c.groups[j] = c.groups[i]
				break
			}
		}
		if c.groups[j] == 0 {
			distinct++
			c.groups[j] = distinct
		}
	}
	switch {
	case len(c.classes()) > 1:
		c.body, c.reason = BodyDifferent, "size"
	case known && distinct == 1:
		c.body, c.reason = BodySame, reason
	case known:
		c.body, c.reason = BodyDifferent, reason
	default:
		c.body, c.reason = BodyUnknown, reason
	}
}
