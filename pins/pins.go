// Package pins finds the version pins in the files projects keep them in and
// rewrites them byte-exactly.
//
// Each file format is a Format in its own package (pins/pyproject, ...), listed in
// pins/all. A Format only reads: it reports every requirement with the byte span of
// its version constraint (and, for a requirement whose --hash options must change
// with its version, their span too). Apply is the one writer: it checks that each
// span still holds the expected text, splices from the last span to the first,
// parses the result again and requires that exactly the intended pins changed.
package pins

import (
	"cmp"
	"fmt"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/pinbot-dev/pinbot/internal/diag"
)

// A Format finds the pins in one kind of file. Implementations never write and are
// safe for concurrent use.
type Format interface {
	// Name is the format's identifier: "pyproject", "requirements", ...
	Name() string
	// Match reports whether a file with this slash-separated path, relative to the
	// repository root, is of this format. It looks at the path only.
	Match(path string) bool
	// Extract returns every requirement in data, watched or not, in file order.
	// path is used in errors and in Pin.File. A file that does not parse gives a
	// *diag.Error (or a diag.List) naming the place, and no pins. An entry that
	// cannot be read (a requirement that does not parse, a value of the wrong
	// type) never hides the others: Extract returns the other pins with a
	// *Skipped error naming each such entry (see Skip).
	Extract(path string, data []byte) ([]Pin, error)
}

// A CommentAligner is a Format whose trailing comments carry meaning and are
// aligned in columns (conda-build selectors). Apply keeps such a comment in its
// column after an edit by resizing the spaces before it; for other formats
// only the bytes of the edited spans change.
type CommentAligner interface {
	Format
	AlignsComments()
}

// A ChannelNamer is a Format whose files name the conda channels their
// conda pins come from apart from any one pin: an environment file's
// channels list, a pixi workspace's channels. Channels returns them in the
// file's order, each as a Pin.Source names it (a channel's URL on
// anaconda.org or prefix.dev is its name), without "defaults" and
// "nodefaults"; a file that does not parse gives its error. The channel a
// pin names itself ("conda-forge::numba", a pixi table's channel key) is
// its Source.
type ChannelNamer interface {
	Format
	Channels(path string, data []byte) ([]string, error)
}

// A Place is where something is written in a pin's file: its 1-based line
// and byte column, and the key that names it ("channels[0]").
type Place struct {
	Line, Col int
	Key       string
}

// A Channel is a conda channel a file names, as a Pin.Source names it
// ("conda-forge", "numba/label/dev"), and where the file names it.
type Channel struct {
	Name string
	At   Place
}

// A Span is a half-open byte range [Start, End) in a file.
type Span struct{ Start, End int }

// A Pin is one requirement of one package in one file.
type Pin struct {
	File string // slash-separated, relative to the repository root
	Line int    // 1-based line of the requirement
	Col  int    // 1-based byte column of the requirement
	// Key locates the requirement in the file's structure, such as
	// "project.optional-dependencies.numba[0]".
	Key string
	// Package is the normalised package name (PEP 503 for Python packages).
	Package string
	// Text is the whole requirement as written, such as "numba>=0.58,<=0.66.0".
	Text string
	// Constraint is the version constraint as written ("" when there is none),
	// and Span its place in the file. With no constraint the span is empty and
	// marks where one would be inserted.
	Constraint string
	Span       Span
	// TextStart is the file offset of Text, so the requirement can be shown with
	// a new constraint in place.
	TextStart int
	// Insert is put before a constraint that is inserted where there was none
	// (a space for conda specs such as "numba <=0.67.0").
	Insert string
	// Source names the release source that governs this pin ("pypi", "conda",
	// "goproxy") and Scheme its version scheme ("pep440", "conda", "semver").
	Source string
	Scheme string
	// SourceAt is where the file names the pin's Source when it names it
	// apart from the pin: the channels entry whose channel an environment
	// file's or a pixi manifest's conda pins follow, or a pixi dependency's
	// channel key. It is the pin's own place for a spec that names its
	// channel ("conda-forge::numba"), and the zero Place for a source that
	// is implied (pypi, goproxy, the configured conda channel). A failure to
	// ask the source is reported there.
	SourceAt Place
	// Channels is, for a conda pin that follows its file's channel list (an
	// environment file's channels, a pixi workspace's), that list in order
	// of priority, each channel once, "defaults" and "nodefaults" passed
	// over; Source and SourceAt are its first entry. Conda takes a package
	// from the first channel of the list that has it, so the planner asks
	// them in turn and sets Source and SourceAt to the channel that governs
	// the pin. It is nil for a pin that names its channel itself
	// ("conda-forge::numba", a pixi table's channel), which follows that
	// channel only, and for every other pin. A file's pins share the slice:
	// it is never modified.
	Channels []Channel
	// Condition is when the requirement applies, as written: a PEP 508
	// environment marker, a conda-build selector, a rattler-build if: (its
	// else branch is "not (...)"); "" when it always applies. Pins under
	// different conditions are split on purpose and never compared for drift.
	Condition string
	// Build marks a requirement of building the project rather than of
	// running it (pyproject's build-system.requires, a recipe's build and
	// host sections): drift compares it only with other build requirements.
	Build bool
	// Skip says why pinbot must not edit this pin (templated, escaped, ...);
	// such pins are reported and never touched.
	Skip string
	// Hashes is the span of the pin's hash options when a new version needs
	// new ones in the same edit (an == requirement in pip's hash-checking
	// mode with its own --hash options), and HashText the bytes it holds;
	// HashText is "" for every other pin. Apply refuses an Edit that changes
	// such a pin's constraint without replacing its hashes (Edit.Extra).
	Hashes   Span
	HashText string
}

// With returns the requirement text with its constraint replaced by c.
func (p Pin) With(c string) string {
	start, end := p.Span.Start-p.TextStart, p.Span.End-p.TextStart
	if start < 0 || end > len(p.Text) || start > end {
		return p.Text
	}
	if p.Constraint == "" && c != "" {
		c = p.Insert + c
	}
	return p.Text[:start] + c + p.Text[end:]
}

// An Edit replaces the constraint of one pin.
type Edit struct {
	Pin Pin
	New string // the new constraint text
	// Extra are other spans of the same pin that change with it, spliced in
	// with the constraint: today only the pin's hash options (Span equal to
	// Pin.Hashes, Old to Pin.HashText), which Apply checks are read back as
	// New.
	Extra []Replace
}

// A Replace is one more span of a pin that an Edit rewrites: Old is what the
// span must hold, New what replaces it.
type Replace struct {
	Span     Span
	Old, New string
}

// A splice is one replacement Apply makes: a constraint or an Extra span
// (extra: hash options, after which no comment is realigned).
type splice struct {
	span  Span
	repl  string
	edit  Edit
	extra bool
}

// Apply returns data with edits applied. It verifies that every span holds the
// pin's constraint (and every Extra span its Old text), splices the edits in,
// extracts the result again with f, and checks that exactly the edited pins
// changed, each to its new constraint and hash options; entries of the file
// that Extract skips (see Skipped) must be skipped alike before and after. For a CommentAligner,
// a comment aligned after an edited constraint keeps its column where the
// spaces before it allow. On any failure it returns an error and no data.
func Apply(f Format, path string, data []byte, edits []Edit) (out []byte, err error) {
	if len(edits) == 0 {
		return data, nil
	}
	sorted := slices.Clone(edits)
	slices.SortFunc(sorted, func(a, b Edit) int { return cmp.Compare(a.Pin.Span.Start, b.Pin.Span.Start) })
	// Two pins can share one span (a recipe variable used twice): one edit serves both.
	sorted = slices.CompactFunc(sorted, func(a, b Edit) bool {
		return a.Pin.Span == b.Pin.Span && a.New == b.New && slices.Equal(a.Extra, b.Extra)
	})
	var splices []splice
	for _, e := range sorted {
		if err := verifyEdit(path, data, e); err != nil {
			return nil, err
		}
		repl := e.New
		if e.Pin.Constraint == "" && e.New != "" {
			repl = e.Pin.Insert + e.New
		}
		splices = append(splices, splice{span: e.Pin.Span, repl: repl, edit: e})
		for _, r := range e.Extra {
			splices = append(splices, splice{span: r.Span, repl: r.New, edit: e, extra: true})
		}
	}
	slices.SortStableFunc(splices, func(a, b splice) int { return cmp.Compare(a.span.Start, b.span.Start) })
	for i := 1; i < len(splices); i++ {
		if splices[i-1].span.End > splices[i].span.Start {
			return nil, editErr(path, splices[i].edit.Pin, "overlaps another edit")
		}
	}
	before, skipped, err := ReadFile(f, path, data)
	if err != nil {
		return nil, err
	}
	_, keepCols := f.(CommentAligner)
	out = make([]byte, 0, len(data)+64)
	last := 0
	for _, s := range splices {
		out = append(out, data[last:s.span.Start]...)
		out = append(out, s.repl...)
		last = s.span.End
		// Keep an aligned trailing comment in its column by resizing the
		// spaces before it, leaving at least two (numba-feedstock aligns its
		// "# [selector]"s, which are semantics, not decoration).
		if n := countSpaces(data[last:]); keepCols && !s.extra && n > 0 && last+n < len(data) && data[last+n] == '#' {
			delta := len(s.repl) - (s.span.End - s.span.Start)
			out = append(out, strings.Repeat(" ", max(n-delta, min(n, 2)))...)
			last += n
		}
	}
	out = append(out, data[last:]...)

	after, skippedAfter, err := ReadFile(f, path, out)
	if err != nil {
		return nil, fmt.Errorf("%s: the rewritten file does not parse (nothing written): %w", path, err)
	}
	if err := sameSkips(path, skipped, skippedAfter); err != nil {
		return nil, err
	}
	if err := confirm(path, before, after, sorted); err != nil {
		return nil, err
	}
	return out, nil
}

// verifyEdit checks that e's spans hold what e expects and that e may be
// made: the pin is editable, every Extra span is the pin's hash options, and
// a pin with hash options gets new ones when its constraint changes.
func verifyEdit(path string, data []byte, e Edit) error {
	sp := e.Pin.Span
	if sp.Start < 0 || sp.End > len(data) || sp.Start > sp.End {
		return editErr(path, e.Pin, "span %d-%d is outside the file", sp.Start, sp.End)
	}
	if got := string(data[sp.Start:sp.End]); got != e.Pin.Constraint {
		return editErr(path, e.Pin, "expected %q at byte %d, found %q", e.Pin.Constraint, sp.Start, got)
	}
	if e.Pin.Skip != "" {
		return editErr(path, e.Pin, "pin is not editable: %s", e.Pin.Skip)
	}
	hashes := false
	for _, r := range e.Extra {
		sp := r.Span
		switch {
		case e.Pin.HashText == "" || sp != e.Pin.Hashes || r.Old != e.Pin.HashText:
			return editErr(path, e.Pin, "extra span %d-%d (%q) is not the pin's hash options", sp.Start, sp.End, r.Old)
		case hashes:
			return editErr(path, e.Pin, "the pin's hash options are replaced twice")
		case sp.Start < 0 || sp.End > len(data) || sp.Start > sp.End:
			return editErr(path, e.Pin, "span %d-%d is outside the file", sp.Start, sp.End)
		}
		if got := string(data[sp.Start:sp.End]); got != r.Old {
			return editErr(path, e.Pin, "expected %q at byte %d, found %q", r.Old, sp.Start, got)
		}
		hashes = true
	}
	if e.Pin.HashText != "" && e.New != e.Pin.Constraint && !hashes {
		return editErr(path, e.Pin, "a new version needs new hashes: the edit must replace the pin's hash options %q", e.Pin.HashText)
	}
	return nil
}

// confirm checks that after differs from before exactly in the edited pins.
func confirm(path string, before, after []Pin, edits []Edit) error {
	if len(before) != len(after) {
		return fmt.Errorf("%s: rewrite changed the number of requirements from %d to %d (nothing written)", path, len(before), len(after))
	}
	want := make(map[int]Edit, len(edits)) // Span.Start of an edited pin -> its edit
	for _, e := range edits {
		want[e.Pin.Span.Start] = e
	}
	for i, b := range before {
		a := after[i]
		e, edited := want[b.Span.Start]
		newHashes := b.HashText
		for _, r := range e.Extra {
			newHashes = r.New
		}
		switch {
		case a.Package != b.Package || a.Key != b.Key:
			return editErr(path, b, "rewrite moved requirement %q to %q (nothing written)", b.Text, a.Text)
		case edited && a.Constraint != e.New:
			return editErr(path, b, "rewrite produced constraint %q, want %q (nothing written)", a.Constraint, e.New)
		case !edited && a.Constraint != b.Constraint:
			return editErr(path, b, "rewrite changed an unedited requirement %q to %q (nothing written)", b.Text, a.Text)
		case a.HashText != newHashes:
			return editErr(path, b, "rewrite produced hash options %q, want %q (nothing written)", a.HashText, newHashes)
		}
	}
	return nil
}

func countSpaces(b []byte) int {
	n := 0
	for n < len(b) && b[n] == ' ' {
		n++
	}
	return n
}

// safeExtract runs f.Extract and turns a panic into an internal error, because a
// bug in one format must not take down a run over many files.
func safeExtract(f Format, path string, data []byte) (pins []Pin, err error) {
	defer func() {
		if r := recover(); r != nil {
			pins, err = nil, fmt.Errorf("%s: internal error in the %s format: %v\n%s", path, f.Name(), r, debug.Stack())
		}
	}()
	return f.Extract(path, data)
}

// Extract runs f.Extract, turning a panic in the format into an error.
func Extract(f Format, path string, data []byte) ([]Pin, error) { return safeExtract(f, path, data) }

func editErr(path string, p Pin, format string, args ...any) error {
	return diag.Errorf(path, p.Line, p.Col, p.Key, format, args...)
}
