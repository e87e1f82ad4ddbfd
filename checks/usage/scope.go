package usage

import "slices"

// A target is one thing a name may stand for.
type target struct {
	// qual is the dotted name of what an import reached
	// ("numba.core.bytecode.FunctionIdentity", "unittest.mock.patch");
	// "" for the other kinds below.
	qual string
	// module is the module the code imported to reach qual: the module of
	// an import, the module of a from-import.
	module string
	// inst: the name is an instance of qual, made by calling it.
	inst bool
	// self is set for the first parameter of a method of a class that
	// subclasses a package class: self or cls.
	self *classInfo
	// owner is set for the first parameter of any method of a class the
	// file defines (self, cls): its attributes are the class's (attrs).
	owner *classInfo
	// local is set for a class the file defines.
	local *classInfo
}

// A binding is what a name may stand for at a point of the code: any of
// its targets (a compatibility shim binds a name to one of two imports).
// A nil binding is a name bound to something the analysis does not follow
// (a number, a call's result, a parameter).
type binding []target

// maxTargets bounds a binding: past it, what else a name may be is not
// followed.
const maxTargets = 4

// union returns the targets of a and b, each once, a's first.
func union(a, b binding) binding {
	if len(b) == 0 {
		return a
	}
	if len(a) == 0 {
		return b
	}
	out := slices.Clone(a)
	for _, t := range b {
		if !slices.Contains(out, t) && len(out) < maxTargets {
			out = append(out, t)
		}
	}
	return out
}

// A scopeKind is the kind of code a scope's names are bound in.
type scopeKind uint8

const (
	moduleScope scopeKind = iota
	functionScope
	classScope
)

// A scope holds the names one module, function, lambda, comprehension or
// class body binds, as they stand at the point the walk has reached. A
// name is the scope's own from the point where the scope binds it: until
// then it is looked up outside (what Python does, except for code that
// uses a local before binding it, which fails there anyway).
type scope struct {
	kind scopeKind
	// parent is the enclosing scope; code in a function does not see
	// the class bodies around it, as in Python.
	parent *scope
	// state holds the names bound so far: a nil binding is a name bound
	// to something not followed.
	state map[string]binding
	// globals and nonlocals are the names the scope declares so, bound
	// in the module scope or an enclosing function's.
	globals, nonlocals map[string]bool
	// method is the class a method's scope belongs to, for super();
	// class is the class a class body's scope defines.
	method, class *classInfo
	// comp marks a comprehension's scope, which := sees through.
	comp bool
	// stars, in the module scope, is set once the file star-imports a
	// watched module: then every name a function binds may hide one.
	stars bool
	// log records, while a branch of an if, a try or a loop is walked,
	// the bindings it replaced, so that the walk can undo them, walk the
	// next branch from the same point, and merge what each branch left.
	log []change
	// marks counts the branches being walked.
	marks int
}

// A change is one binding a branch replaced: what the name was before.
type change struct {
	name string
	old  binding
	had  bool
}

func newScope(kind scopeKind, parent *scope) *scope {
	return &scope{kind: kind, parent: parent}
}

// module returns the module scope sc lies in.
func (sc *scope) module() *scope {
	for sc.parent != nil {
		sc = sc.parent
	}
	return sc
}

// lookup returns what name stands for in sc, and whether anything binds
// it (else it is a builtin).
func (sc *scope) lookup(name string) (binding, bool) {
	return sc.lookupFrom(name, true)
}

// lookupFrom is lookup starting at sc, seeing sc's names when it is a
// class body only if first (the code is in that body).
func (sc *scope) lookupFrom(name string, first bool) (binding, bool) {
	for s := sc; s != nil; s = s.parent {
		if s.kind == classScope && !first {
			continue // a class body's names are not seen by the functions in it
		}
		first = false
		if s.globals[name] {
			b, ok := s.module().state[name]
			return b, ok
		}
		if b, ok := s.state[name]; ok {
			return b, true
		}
	}
	return nil, false
}

// builtin reports whether name is Python's builtin of that name in sc:
// nothing binds it.
func (sc *scope) builtin(name string) bool {
	_, bound := sc.lookup(name)
	return !bound
}

// set binds name in sc (or where sc declares it global or nonlocal).
func (sc *scope) set(name string, b binding) {
	s := sc
	switch {
	case sc.globals[name]:
		s = sc.module()
	case sc.nonlocals[name]:
		for p := sc.parent; p != nil; p = p.parent {
			if _, ok := p.state[name]; ok && p.kind == functionScope {
				s = p
				break
			}
		}
	}
	if b == nil && s.kind == functionScope && !s.shadows(name) {
		return
	}
	if s.marks > 0 {
		old, had := s.state[name]
		s.log = append(s.log, change{name: name, old: old, had: had})
	}
	if s.state == nil {
		s.state = map[string]binding{}
	}
	s.state[name] = b
}

// shadows reports whether binding name, in the function scope s, to
// something not followed hides anything: a binding outside, a builtin the
// analysis reads (setattr, super), or a name a star import may bind. A
// function's names need no entry otherwise, which spares a map per scope:
// the code around a function body has bound its names by the time the
// body is walked, so what is outside is known.
func (s *scope) shadows(name string) bool {
	if _, ok := s.state[name]; ok || s.module().stars {
		return true
	}
	if b, bound := s.parent.lookupFrom(name, false); len(b) > 0 || !bound && pyBuiltins[name] {
		return true
	}
	return false
}

// declare records a global or nonlocal statement.
func (sc *scope) declare(names []string, global bool) {
	m := &sc.nonlocals
	if global {
		m = &sc.globals
	}
	if *m == nil {
		*m = map[string]bool{}
	}
	for _, n := range names {
		(*m)[n] = true
	}
}

// A mark is where a compound statement's branches start in sc's log.
type mark int

// mark starts recording the bindings the branches of a statement make.
func (sc *scope) mark() mark {
	sc.marks++
	return mark(len(sc.log))
}

// A branchEnd is what one branch left: the final binding of each name it
// bound, once each (absent: the branch did not bind it). A nil branchEnd
// is a branch that binds nothing (an if without an else, a loop that does
// not run). Most branches bind a few names: a list serves them, with an
// index once it is long.
type branchEnd struct {
	entries []endEntry
	index   map[string]int
}

type endEntry struct {
	name string
	b    binding
	had  bool
}

// shortEnd is the most entries a branchEnd looks through without an index.
const shortEnd = 16

// find returns what the branch left name, and whether it bound it.
func (e *branchEnd) find(name string) (endEntry, bool) {
	if e.index != nil {
		i, ok := e.index[name]
		if !ok {
			return endEntry{}, false
		}
		return e.entries[i], true
	}
	for _, x := range e.entries {
		if x.name == name {
			return x, true
		}
	}
	return endEntry{}, false
}

// add records name's final binding, unless the branch's end has it.
func (e *branchEnd) add(name string, b binding, had bool) {
	if _, ok := e.find(name); ok {
		return
	}
	e.entries = append(e.entries, endEntry{name, b, had})
	switch {
	case e.index != nil:
		e.index[name] = len(e.entries) - 1
	case len(e.entries) > shortEnd:
		e.index = make(map[string]int, 2*len(e.entries))
		for i, x := range e.entries {
			e.index[x.name] = i
		}
	}
}

// end returns what the branch walked since m left, and undoes it, so that
// the next branch starts from the same point.
func (sc *scope) end(m mark) *branchEnd {
	if len(sc.log) == int(m) {
		return nil
	}
	out := &branchEnd{}
	for _, c := range sc.log[m:] {
		b, had := sc.state[c.name]
		out.add(c.name, b, had)
	}
	for i := len(sc.log) - 1; i >= int(m); i-- {
		c := sc.log[i]
		if c.had {
			sc.state[c.name] = c.old
		} else {
			delete(sc.state, c.name)
		}
	}
	sc.log = sc.log[:m]
	return out
}

// merge ends the statement marked m: each name a branch bound may be what
// any branch left it (or what it was before, for a branch that did not
// bind it).
func (sc *scope) merge(m mark, ends []*branchEnd) {
	sc.marks--
	var names branchEnd // each name once, in the order the branches bound them
	for _, e := range ends {
		if e != nil {
			for _, x := range e.entries {
				names.add(x.name, nil, false)
			}
		}
	}
	for _, n := range names.entries {
		var b binding
		had := false
		before, hadBefore := sc.state[n.name]
		for _, e := range ends {
			v := endEntry{b: before, had: hadBefore}
			if e != nil {
				if x, ok := e.find(n.name); ok {
					v = x
				}
			}
			b = union(b, v.b)
			had = had || v.had
		}
		if had {
			sc.set(n.name, b)
		}
	}
}
