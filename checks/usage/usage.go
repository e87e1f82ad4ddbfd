// Package usage finds every place a repository's Python code uses a name of
// a watched package: its imports, the attribute chains rooted at what they
// bind (aliases followed within a module), the methods of instances the
// code makes of the package's classes and of its own subclasses of them,
// and its monkeypatches (assignments, setattr and friends, mock.patch and
// monkeypatch targets), each with its place, whether it is private, and
// whether the code guards it (a try that catches ImportError or
// AttributeError, an if that tests the package).
//
// It reads the code, never runs it: files are parsed by internal/pyast and
// analysed scope by scope (module, functions, class bodies), with no
// network and no Python. The README says what it finds and what it cannot
// see.
package usage

import (
	"cmp"
	"context"
	"fmt"
	"io/fs"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/pinbot-dev/pinbot/internal/diag"
	"github.com/pinbot-dev/pinbot/internal/repofs"
	"github.com/pinbot-dev/pinbot/pins"
)

// A Ref is one place where the repository's code uses a name of a watched
// package.
type Ref struct {
	// Package is the watched package's key ("numba", "scikit-learn").
	Package string
	// Name is the dotted name used:
	// "numba.core.bytecode.FunctionIdentity._unique_ids".
	Name string
	// Module is the module the code imports to reach Name
	// ("numba.core.bytecode"): Name is Module or starts with Module+".".
	// It is "" for a string target (mock.patch("a.b.C.d")), resolved as
	// mock resolves it.
	Module string
	// Kind says what the code does with it.
	Kind Kind
	// Call is the call site's shape, set when the code calls the name.
	Call *CallShape
	// Private reports whether a segment after the package's top module
	// starts with "_" (dunders aside), or the name lies in a private
	// namespace (tensorflow.python, jax._src, torch._C).
	Private bool
	// Guarded reports whether the code is ready for the name to be
	// missing: it sits in a try whose handlers catch ImportError,
	// ModuleNotFoundError, AttributeError or broader, or under a test of
	// its package (if, elif, while, a conditional expression, and/or), or
	// it is a hasattr or a getattr with a default.
	Guarded bool
	// File is slash-separated, relative to the repository root.
	File string
	// Line is 1-based; Col is the 1-based byte column of the name's last
	// segment as written (where `._unique_ids` names it, or where the
	// string literal naming it starts when its text cannot be pointed at).
	Line, Col int
}

// A Kind is what the code does with a name.
type Kind string

// The kinds of references.
const (
	// Import: import numba.core.bytecode; from numba.core import types
	// (Name numba.core.types).
	Import Kind = "import"
	// Attribute: read, bc.FunctionIdentity._unique_ids, or named
	// by getattr or hasattr.
	Attribute Kind = "attribute"
	// Call: called, numba.njit(cache=True), or used as a decorator.
	Call Kind = "call"
	// Assign: replaced, FunctionIdentity._unique_ids = it; setattr(mod,
	// "x", v); mock.patch and monkeypatch targets.
	Assign Kind = "assign"
	// Delete: del pkg.mod.x; delattr(mod, "x").
	Delete Kind = "delete"
	// Subclass: self.x, cls.x or super().x in a subclass of a package
	// class, for an x the subclass does not define; Name is Base.x.
	Subclass Kind = "subclass"
	// Instance: an attribute of an instance the code made by calling a
	// package class: ctx = Context(); ctx.x is Context.x.
	Instance Kind = "instance"
	// Base: a base of a class the code defines, class Scaler(BaseEstimator)
	// or class X(numba.Foo): the name must stay a class.
	Base Kind = "base"
)

// A CallShape is the shape of a call site: what the callee must accept.
// (The design's Call; Call is the Kind.)
type CallShape struct {
	Positional int      // positional arguments passed, *args not counted
	Keywords   []string // keyword names passed, in order, **kwargs not counted
	Star       bool     // the call passes *args: Positional is a minimum
	DoubleStar bool     // the call passes **kwargs: Keywords is a minimum
	Bound      bool     // called through an instance, self or cls: the first parameter is bound
}

// A Package is a watched package whose references Find looks for.
type Package struct {
	Name string // the package's key, as Ref.Package gives it
	// Modules are the top-level modules it installs ("sklearn",
	// "google.protobuf"); nil: Modules(Name).
	Modules []string
}

// Options say what Find looks for, and where.
type Options struct {
	Packages []Package
	// Include and Exclude narrow the files read, as pins.Selection does
	// (the configuration's usage: {include, exclude}).
	Include, Exclude []string
	// Workers is how many files are parsed at once (default 2).
	Workers int
}

// A Result is what Find found.
type Result struct {
	// Refs are sorted by package, file, line, column, then name and kind.
	Refs []Ref
	// Warnings name the files that could not be read or parsed (each
	// skipped; the others are read), and the packages whose modules the
	// repository provides itself.
	Warnings diag.List
	// Files counts the Python files read, parsed or not.
	Files int
}

// MaxRefsPerFile bounds the references one file contributes, so that a
// hostile file of a million `numba.x` lines costs a bounded result; past
// it the file's other references are left out, with a warning.
const MaxRefsPerFile = 20_000

// Find reads the Python files (.py and .pyi) of the repository fsys (its
// root "."; a repository's repofs.Root.FS, which confines and bounds every
// read), found by the walk pin discovery uses (pins.Walk) and narrowed by
// opts' globs, and returns every reference they make to opts' packages.
// A file that cannot be read or parsed is a warning; the others are read.
// Only an unreadable root, or ctx ended, is an error.
func Find(ctx context.Context, fsys fs.FS, opts Options) (*Result, error) {
	var files []pins.Found
	all := map[string]bool{}
	err := pins.Walk(fsys, func(p, target string) {
		if strings.HasSuffix(p, ".py") || strings.HasSuffix(p, ".pyi") {
			files = append(files, pins.Found{Path: p, Target: target})
			all[p] = true
		}
	})
	if err != nil {
		return nil, err
	}
	res := &Result{}
	an := newAnalyzer(opts.Packages, all, res)
	files = pins.Once(pins.Selection{Include: opts.Include, Exclude: opts.Exclude}.Apply(files))
	if len(an.pkgs) == 0 {
		return res, nil
	}
	res.Files = len(files)
	out := make([]fileResult, len(files))
	workers := cmp.Or(opts.Workers, 2)
	workers = max(1, min(workers, runtime.GOMAXPROCS(0), len(files)))
	next := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				out[i] = an.file(fsys, files[i].Path)
			}
		}()
	}
	for i := range files {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	n := 0
	for _, r := range out {
		n += len(r.refs)
	}
	res.Refs = make([]Ref, 0, n)
	for _, r := range out {
		res.Refs = append(res.Refs, r.refs...)
		if r.warning != nil {
			res.Warnings = append(res.Warnings, r.warning)
		}
	}
	sortRefs(res.Refs)
	res.Refs = slices.CompactFunc(res.Refs, sameRef)
	return res, nil
}

// A fileResult is what one file gave: its references, or why it gave
// none (or not all).
type fileResult struct {
	refs    []Ref
	warning *diag.Error
}

// file reads and analyses one file. It never panics: a bug in the analysis
// of a hostile file is a warning naming the file.
func (an *analyzer) file(fsys fs.FS, name string) (fr fileResult) {
	defer func() {
		if r := recover(); r != nil {
			fr = fileResult{warning: diag.Errorf(name, 0, 0, "", "internal error reading the file's references: %v (file skipped; the others are read)", r)}
		}
	}()
	src, err := fs.ReadFile(fsys, name)
	if err == nil && len(src) > repofs.MaxFileSize {
		err = repofs.ErrTooLarge
	}
	if err != nil {
		return fileResult{warning: diag.Errorf(name, 0, 0, "", "%v (file skipped; the others are read)", trimPath(err, name))}
	}
	refs, warn := an.source(name, src)
	return fileResult{refs: refs, warning: warn}
}

// trimPath drops the file's name from the front of an error that starts
// with it, since the warning names the file already.
func trimPath(err error, name string) string {
	s := err.Error()
	if rest, ok := strings.CutPrefix(s, name+": "); ok {
		return rest
	}
	if rest, ok := strings.CutPrefix(s, "open "+name+": "); ok {
		return rest
	}
	return s
}

// sortRefs orders refs by package, file, line, column, then name and kind.
func sortRefs(refs []Ref) {
	slices.SortStableFunc(refs, func(a, b Ref) int {
		return cmp.Or(
			strings.Compare(a.Package, b.Package),
			strings.Compare(a.File, b.File),
			cmp.Compare(a.Line, b.Line),
			cmp.Compare(a.Col, b.Col),
			strings.Compare(a.Name, b.Name),
			strings.Compare(string(a.Kind), string(b.Kind)),
			strings.Compare(a.Module, b.Module),
		)
	})
}

// sameRef reports whether a and b say the same thing of the same place.
func sameRef(a, b Ref) bool {
	return a.Package == b.Package && a.File == b.File && a.Line == b.Line && a.Col == b.Col &&
		a.Name == b.Name && a.Kind == b.Kind && a.Module == b.Module && a.Guarded == b.Guarded &&
		sameCall(a.Call, b.Call)
}

func sameCall(a, b *CallShape) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Positional == b.Positional && slices.Equal(a.Keywords, b.Keywords) &&
		a.Star == b.Star && a.DoubleStar == b.DoubleStar && a.Bound == b.Bound
}

// String returns "file:line:col kind name", for tests and logs.
func (r Ref) String() string {
	return fmt.Sprintf("%s:%d:%d %s %s", r.File, r.Line, r.Col, r.Kind, r.Name)
}
