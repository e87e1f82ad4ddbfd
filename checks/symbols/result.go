package symbols

import "slices"

// A Role says why a library was scanned.
type Role string

// The roles of scanned libraries.
const (
	// RoleTarget marks the libraries of the release under scan (the paths
	// given to Scan): forbid patterns apply to them, and every clash involves
	// at least one of them.
	RoleTarget Role = "target"
	// RoleAgainst marks the libraries of packages the target must coexist
	// with (Options.Against).
	RoleAgainst Role = "against"
	// RoleHost marks libraries of the host environment (Options.Host).
	RoleHost Role = "host"
)

// A Result is what one scan found. Its JSON keys are stable.
type Result struct {
	// Patterns are the forbid patterns applied, as given.
	Patterns []string `json:"patterns"`
	// Libraries are the shared objects found, in scan order: targets first,
	// then against, then host.
	Libraries []Library `json:"libraries"`
	// Forbidden lists, per target library, its exports (and imports) that
	// match a forbid pattern. Libraries with no match are left out.
	Forbidden []Forbidden `json:"forbidden"`
	// Clashes are the (name, version) pairs exported by a target library and
	// by at least one other library, sorted by name and version.
	Clashes []Clash `json:"clashes"`
	// Errors are inputs that could not be read at all: a missing path, a wheel
	// refused by a limit. Problems with one library are in Library.Error.
	Errors []InputError `json:"errors"`
	// Warnings are inputs that were read but yield nothing to scan: an
	// archive with no ELF shared object, a directory with none.
	Warnings []InputWarning `json:"warnings"`
	Stats    Stats          `json:"stats"`
}

// A Library is one shared object found by the scan.
type Library struct {
	// Path is the file, or "wheel.whl!member/path.so" inside a wheel.
	Path string `json:"path"`
	// Key identifies the library across releases: its path inside the wheel
	// or directory scanned, with version suffixes, Python ABI tags and
	// auditwheel hashes dropped ("tensorflow/libtensorflow_framework.so").
	Key  string `json:"key"`
	Role Role   `json:"role"`
	// Soname is DT_SONAME; Needed lists DT_NEEDED; Runpath lists DT_RUNPATH
	// and DT_RPATH entries.
	Soname  string   `json:"soname"`
	Needed  []string `json:"needed"`
	Runpath []string `json:"runpath"`
	// Symbolic reports FLAGS SYMBOLIC (DT_SYMBOLIC or DF_SYMBOLIC): the
	// library binds its own references to its own definitions.
	Symbolic bool `json:"symbolic"`
	// PythonExtension reports whether the library exports a PyInit_
	// function: CPython loads it RTLD_LOCAL by default.
	PythonExtension bool `json:"python_extension"`
	// VersionNodes are the symbol versions the library defines ("LLVM_14").
	VersionNodes []string `json:"version_nodes"`
	Machine      string   `json:"machine"`
	// Symbols counts .dynsym entries; Exported the exported definitions;
	// Undefined the undefined references.
	Symbols   int `json:"symbols"`
	Exported  int `json:"exported"`
	Undefined int `json:"undefined"`
	// Error says why the library could not be read (not an ELF file,
	// truncated, malformed); the other fields are then mostly empty.
	Error string `json:"error"`
}

// Forbidden is what one target library exports or imports that matches the
// forbid patterns.
type Forbidden struct {
	Library string `json:"library"` // Library.Path
	Key     string `json:"key"`     // Library.Key
	// Exports counts the exported definitions matching any pattern;
	// Imports the undefined references matching any pattern (they bind to
	// whichever library provides them, which is how sharing one runtime works).
	Exports  int            `json:"exports"`
	Imports  int            `json:"imports"`
	Patterns []PatternCount `json:"patterns"`
	// Examples are up to Options.Examples of the matching exports, demangled,
	// in mangled-name order with special names (vtables, guard variables)
	// last; ImportExamples the same for imports.
	Examples       []string `json:"examples"`
	ImportExamples []string `json:"import_examples"`
}

// A PatternCount is how many exports and imports of one library one pattern
// matches.
type PatternCount struct {
	Pattern string `json:"pattern"`
	Exports int    `json:"exports"`
	Imports int    `json:"imports"`
}

// A Body is the verdict on whether the copies of a clashing symbol have the
// same body.
type Body string

// The body verdicts.
const (
	BodySame      Body = "same"
	BodyDifferent Body = "different"
	BodyUnknown   Body = "unknown"
)

// An Exposure says when the copies of a clashing symbol can meet in one
// lookup scope, so that references meant for one bind to another.
type Exposure string

// The exposures, from the most to the least exposed.
const (
	// ExposureLinked: one defining library needs another (DT_NEEDED, directly
	// or through scanned libraries), so they always share a lookup scope.
	ExposureLinked Exposure = "linked"
	// ExposureShared: not linked, but two or more definers are ordinary
	// shared libraries, which meet whenever one program or one dependency
	// tree loads both, or one is loaded RTLD_GLOBAL.
	ExposureShared Exposure = "shared"
	// ExposureGlobal: the definers are Python extensions (CPython loads them
	// RTLD_LOCAL) and at most one ordinary library, not linked: they meet
	// only when something is loaded RTLD_GLOBAL (TensorFlow 2.20 does).
	ExposureGlobal Exposure = "global"
	// ExposureSymbolic: every definer binds its own references (FLAGS
	// SYMBOLIC), so no definer's calls land in another copy.
	ExposureSymbolic Exposure = "symbolic"
)

// A Clash is one symbol exported by two or more libraries whose
// definitions a reference can bind to interchangeably: same name, and same
// version or no version on one side. Version is the clash's version ("" when
// no copy has one).
type Clash struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	// Demangled is the demangled name, for display. Scan sets it for
	// clashes with different bodies only, to save time (most clashes are
	// harmless); Result.Demangle sets the rest, and the renderers do.
	Demangled string `json:"demangled"`
	// Type is "func", "object", "tls" or "other".
	Type string `json:"type"`
	// Body says whether the copies have the same body; Reason says how that
	// was decided: "size", "bytes", "normalised", or why it could not be
	// ("tls", "too large", "unsupported machine", an error).
	Body     Body     `json:"body"`
	Reason   string   `json:"reason"`
	Exposure Exposure `json:"exposure"`
	Copies   []Copy   `json:"copies"`
}

// A Copy is one library's definition of a clashing symbol.
type Copy struct {
	Library string `json:"library"` // Library.Path
	Key     string `json:"key"`     // Library.Key
	Role    Role   `json:"role"`
	// Version is this copy's symbol version ("" for none).
	Version string `json:"version"`
	Size    uint64 `json:"size"`
	// Bind is GLOBAL, WEAK or UNIQUE.
	Bind string `json:"bind"`
	// Group numbers the distinct bodies from 1: copies with the same number
	// have the same body; 0 means unknown.
	Group int `json:"group"`
}

// An InputError is an input that could not be read.
type InputError struct {
	Path  string `json:"path"`
	Error string `json:"error"`
	// Role is the role of the input: a target, against or host path.
	Role Role `json:"role"`
}

// An InputWarning is an input that was read but gave nothing to scan.
type InputWarning struct {
	Path    string `json:"path"`
	Warning string `json:"warning"`
	Role    Role   `json:"role"`
}

// Stats are counts over the whole scan.
type Stats struct {
	Libraries int `json:"libraries"`
	Symbols   int `json:"symbols"`
	Exported  int `json:"exported"`
	Undefined int `json:"undefined"`
	// Clashes counts Clashes; Different those with different bodies.
	Clashes   int `json:"clashes"`
	Different int `json:"different"`
}

// ForbiddenExports returns the total number of forbidden exports.
func (r *Result) ForbiddenExports() int {
	n := 0
	for _, f := range r.Forbidden {
		n += f.Exports
	}
	return n
}

// Failed returns the libraries that could not be read.
func (r *Result) Failed() []Library {
	var out []Library
	for _, l := range r.Libraries {
		if l.Error != "" {
			out = append(out, l)
		}
	}
	return out
}

// Unreadable returns every input and library of any role that could not be
// read, as input errors.
func (r *Result) Unreadable() []InputError {
	out := slices.Clone(r.Errors)
	for _, l := range r.Libraries {
		if l.Error != "" {
			out = append(out, InputError{Path: l.Path, Error: l.Error, Role: l.Role})
		}
	}
	return out
}

// Targets counts the target libraries found, readable or not: zero means the
// release yields no ELF shared object to scan.
func (r *Result) Targets() int {
	n := 0
	for _, l := range r.Libraries {
		if l.Role == RoleTarget {
			n++
		}
	}
	return n
}

// Demangle fills in Clash.Demangled where Scan left it empty, using several
// goroutines.
func (r *Result) Demangle() {
	var names []string
	var which []int
	for i, c := range r.Clashes {
		if c.Demangled == "" {
			names = append(names, c.Name)
			which = append(which, i)
		}
	}
	for k, d := range demangleAll(names, 0) {
		r.Clashes[which[k]].Demangled = d
	}
}
