// Package pinstest holds the checks that every pins.Format's tests make: the
// rewrite properties of pins.Apply (Rewrite, and RewritePartial for a file
// with entries the format skips), the invariants Extract keeps on
// any input (CheckExtract, Fuzz), errors that name their place (Errors),
// golden files refreshed with "go test -update" (Golden, Testdata, Capped),
// and the corpus's watched pins as table rows (Watched, Rows).
//
// It is imported by tests only. A test package that imports it gets the
// -update flag from it and must not define its own.
package pinstest

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/mod/semver"

	"github.com/pinbot-dev/pinbot/internal/diag"
	"github.com/pinbot-dev/pinbot/pins"
	"github.com/pinbot-dev/pinbot/pins/matchspec"
	"github.com/pinbot-dev/pinbot/versions"
	"github.com/pinbot-dev/pinbot/versions/all"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// Range is the constraint Rewrite gives a pin by default.
const Range = ">=1.0,<=2.0"

// NewConstraint returns a constraint that pin p can be rewritten to in
// Rewrite: Range, except a version for a Go module ("v1.99.0" for a v1.x.y
// requirement, the +build suffix kept) and a bare version for a conda spec with
// a build string ("numba=0.61.0=py312h*" takes "1.0", as a range cannot go
// before a build string).
func NewConstraint(p pins.Pin) string {
	switch p.Scheme {
	case "semver":
		return semver.Major(p.Constraint) + ".99.0" + semver.Build(p.Constraint)
	case "conda":
		if sp, err := matchspec.Parse(p.Text); err == nil && sp.Build != "" {
			return "1.0"
		}
	}
	return Range
}

// Constant returns a newC for Rewrite that gives every pin the constraint c.
func Constant(c string) func(pins.Pin) string {
	return func(pins.Pin) string { return c }
}

// Extract returns the pins f reads in data, the file at path, and fails the
// test when f refuses the file.
func Extract(t testing.TB, f pins.Format, path string, data []byte) []pins.Pin {
	t.Helper()
	ps, err := pins.Extract(f, path, data)
	if err != nil {
		t.Fatal(err)
	}
	return ps
}

// Match checks f.Match against want (path → whether f reads it).
func Match(t testing.TB, f pins.Format, want map[string]bool) {
	t.Helper()
	for path, w := range want {
		if got := f.Match(path); got != w {
			t.Errorf("Match(%q) = %v, want %v", path, got, w)
		}
	}
}

// Rewrite checks the rewrite properties of format f on data, the file at
// path:
//
//   - Apply with no edits returns data unchanged;
//   - every pin gives back its Text from p.With(p.Constraint);
//   - rewriting one pin that is not skipped to newC(p) (NewConstraint when
//     newC is nil) changes only the bytes of its span, except that, for a
//     pins.CommentAligner, the spaces before a comment that follows it may
//     change too;
//   - the result extracts to the same pins, the rewritten one, at the same
//     index and key, now with the new constraint;
//   - applying the same edit to the result changes nothing.
//
// It returns the pins of data.
func Rewrite(t testing.TB, f pins.Format, path string, data []byte, newC func(pins.Pin) string) []pins.Pin {
	t.Helper()
	ps, _ := rewrite(t, f, path, data, newC, false)
	return ps
}

// RewritePartial is Rewrite for a file some of whose entries f skips (a
// *pins.Skipped beside the pins): it checks the same properties, and that
// the rewritten file skips the same entries; it returns the pins and the
// entries skipped.
func RewritePartial(t testing.TB, f pins.Format, path string, data []byte, newC func(pins.Pin) string) ([]pins.Pin, diag.List) {
	t.Helper()
	return rewrite(t, f, path, data, newC, true)
}

// readFile returns the pins f reads in data, and with partial the entries it
// skips; it fails the test when f refuses the file, or without partial when
// it skips an entry.
func readFile(t testing.TB, f pins.Format, path string, data []byte, partial bool) ([]pins.Pin, diag.List) {
	t.Helper()
	if !partial {
		return Extract(t, f, path, data), nil
	}
	ps, skipped, err := pins.ReadFile(f, path, data)
	if err != nil {
		t.Fatal(err)
	}
	return ps, skipped
}

func rewrite(t testing.TB, f pins.Format, path string, data []byte, newC func(pins.Pin) string, partial bool) ([]pins.Pin, diag.List) {
	t.Helper()
	if newC == nil {
		newC = NewConstraint
	}
	ps, skipped := readFile(t, f, path, data, partial)
	if out, err := pins.Apply(f, path, data, nil); err != nil || !bytes.Equal(out, data) {
		t.Errorf("%s: Apply with no edits changed the file (%v)", path, err)
	}
	_, aligns := f.(pins.CommentAligner)
	for i, p := range ps {
		if got := p.With(p.Constraint); got != p.Text {
			t.Errorf("%s %s: With(its constraint) = %q, want its text %q", path, p.Key, got, p.Text)
		}
		if p.Skip != "" {
			continue
		}
		c := newC(p)
		out, err := pins.Apply(f, path, data, []pins.Edit{{Pin: p, New: c}})
		if err != nil {
			t.Errorf("%s %s: %v", path, p.Key, err)
			continue
		}
		ins := c
		if p.Constraint == "" {
			ins = p.Insert + c
		}
		head, tail := string(data[:p.Span.Start])+ins, string(data[p.Span.End:])
		same := string(out) == head+tail
		if !same && aligns {
			same = strings.HasPrefix(string(out), head) && sameBeforeComment(string(out[len(head):]), tail)
		}
		if !same {
			t.Errorf("%s %s: bytes outside the span changed", path, p.Key)
			continue
		}
		again, skippedAgain, err := pins.ReadFile(f, path, out)
		if err == nil && !partial && len(skippedAgain) > 0 {
			err = skippedAgain
		}
		if err != nil {
			t.Errorf("%s %s: the rewritten file: %v", path, p.Key, err)
			continue
		}
		if skippedAgain.Error() != skipped.Error() {
			t.Errorf("%s %s: the rewritten file skips other entries:\n%v\nwas\n%v", path, p.Key, skippedAgain, skipped)
		}
		if i >= len(again) || again[i].Key != p.Key || again[i].Constraint != c {
			t.Errorf("%s %s: the rewritten file does not read back with %q in its place", path, p.Key, c)
			continue
		}
		if out2, err := pins.Apply(f, path, out, []pins.Edit{{Pin: again[i], New: c}}); err != nil || !bytes.Equal(out2, out) {
			t.Errorf("%s %s: second rewrite changed the file (%v)", path, p.Key, err)
		}
	}
	return ps, skipped
}

// sameBeforeComment reports whether a and b are equal once the runs of spaces
// before a leading "#" are ignored, a keeping at least two (or all of b's).
func sameBeforeComment(a, b string) bool {
	ta, tb := strings.TrimLeft(a, " "), strings.TrimLeft(b, " ")
	if strings.HasPrefix(tb, "#") && len(a)-len(ta) >= min(len(b)-len(tb), 2) {
		return ta == tb
	}
	return a == b
}

// SpanHolds reports whether p's span lies in data and holds its constraint.
func SpanHolds(data []byte, p pins.Pin) bool {
	s := p.Span
	return s.Start >= 0 && s.End <= len(data) && s.Start <= s.End && string(data[s.Start:s.End]) == p.Constraint
}

// CheckExtract runs f.Extract on data, the file at path, and checks what any
// input must give, for fuzz targets: no panic, an error that holds a
// *diag.Error, no pins beside an error about the whole file, a file and line
// for every entry skipped (pins.Skipped), for every pin that is not skipped
// a span that holds its constraint (SpanHolds), and for every pin, skipped or
// not, a span that lies in its Text and holds its constraint there, so that
// With (the report's "after") says what the pin says, a SourceAt inside
// the file for every conda pin that follows a channel the file names, and
// for a pin that follows its file's channel list (Channels) a list of
// distinct channels, each written inside the file, whose first is its
// Source and SourceAt. It returns the pins, or nil after an error about the
// whole file.
func CheckExtract(t testing.TB, f pins.Format, path string, data []byte) []pins.Pin {
	t.Helper()
	ps, err := f.Extract(path, data)
	entries, partial := pins.SkippedEntries(err)
	if err != nil {
		if _, ok := diag.As(err); !ok {
			t.Fatalf("error %v is not a diag.Error", err)
		}
		if !partial {
			if ps != nil {
				t.Fatalf("pins returned with an error about the whole file: %v", err)
			}
			return nil
		}
		for _, e := range entries {
			if e.File != path || e.Line < 1 {
				t.Fatalf("skipped entry %v does not name its file and line", e)
			}
		}
	}
	lines := bytes.Count(data, []byte("\n")) + 1
	for _, p := range ps {
		if p.Skip == "" && !SpanHolds(data, p) {
			t.Fatalf("pin %+v: span does not hold its constraint", p)
		}
		if s, e := p.Span.Start-p.TextStart, p.Span.End-p.TextStart; s < 0 || e > len(p.Text) || s > e || p.Text[s:e] != p.Constraint {
			t.Fatalf("pin %+v: span does not hold its constraint in its text", p)
		}
		if at := p.SourceAt; at != (pins.Place{}) && (at.Line < 1 || at.Line > lines || at.Col < 1 || at.Key == "") ||
			p.Scheme == "conda" && p.Source != "conda" && at.Line == 0 {
			t.Fatalf("pin %+v: SourceAt %+v is not where the file names its source", p, at)
		}
		checkChannels(t, p, lines)
	}
	return ps
}

// checkChannels checks what Pin.Channels promises of an extracted pin (see
// CheckExtract); lines is the file's line count.
func checkChannels(t testing.TB, p pins.Pin, lines int) {
	t.Helper()
	if len(p.Channels) == 0 {
		return
	}
	if p.Scheme != "conda" || p.Channels[0].Name != p.Source || p.Channels[0].At != p.SourceAt {
		t.Fatalf("pin %+v: its first channel is not its Source and SourceAt", p)
	}
	seen := map[string]bool{}
	for _, ch := range p.Channels {
		if at := ch.At; seen[ch.Name] || ch.Name == "" || at.Line < 1 || at.Line > lines || at.Col < 1 || at.Key == "" {
			t.Fatalf("pin %+v: channel %+v is repeated or not where the file names it", p, ch)
		}
		seen[ch.Name] = true
	}
}

// Fuzz is a fuzz target for f: it adds the seeds to the corpus and runs
// CheckExtract on each input as the file at path (and CheckChannels, for a
// pins.ChannelNamer), then check, when it is not nil, on the pins.
func Fuzz(ft *testing.F, f pins.Format, path string, check func(t *testing.T, data []byte, ps []pins.Pin), seeds ...[]byte) {
	for _, s := range seeds {
		ft.Add(s)
	}
	ft.Fuzz(func(t *testing.T, data []byte) {
		ps := CheckExtract(t, f, path, data)
		if cn, ok := f.(pins.ChannelNamer); ok {
			CheckChannels(t, cn, path, data)
		}
		if check != nil {
			check(t, data, ps)
		}
	})
}

// CheckChannels reads the channels of data, the file at path, and checks
// what pins.ChannelNamer promises: an error is a diag.Error and comes with
// no channels; each channel is named once, and none is empty, "defaults"
// or "nodefaults".
func CheckChannels(t testing.TB, f pins.ChannelNamer, path string, data []byte) []string {
	t.Helper()
	chs, err := f.Channels(path, data)
	if err != nil {
		if _, ok := diag.As(err); !ok {
			t.Fatalf("channels: error %v is not a diag.Error", err)
		}
		if chs != nil {
			t.Fatalf("channels %q returned with an error: %v", chs, err)
		}
		return nil
	}
	seen := map[string]bool{}
	for _, ch := range chs {
		if ch == "" || ch == "defaults" || ch == "nodefaults" || seen[ch] {
			t.Fatalf("channels %q: %q is no channel, or named twice", chs, ch)
		}
		seen[ch] = true
	}
	return chs
}

// ReadFiles returns the contents of the files that pattern (a filepath.Glob
// pattern such as "testdata/*.cfg") matches, in lexical order.
func ReadFiles(t testing.TB, pattern string) [][]byte {
	t.Helper()
	var out [][]byte
	for _, name := range glob(t, pattern) {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, data)
	}
	return out
}

// Testdata runs fn in a subtest named by the file for each file that pattern
// matches but those named bad.* (inputs that must be refused), with the
// file's contents and the path of its golden ".pins" file: the file's with
// its extension replaced.
func Testdata(t *testing.T, pattern string, fn func(t *testing.T, data []byte, golden string)) {
	t.Helper()
	for _, name := range glob(t, pattern) {
		base := filepath.Base(name)
		if strings.HasPrefix(base, "bad.") {
			continue
		}
		t.Run(base, func(t *testing.T) {
			data, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			fn(t, data, strings.TrimSuffix(name, filepath.Ext(name))+".pins")
		})
	}
}

func glob(t testing.TB, pattern string) []string {
	t.Helper()
	names, err := filepath.Glob(pattern)
	if err != nil || len(names) == 0 {
		t.Fatalf("no files match %s (%v)", pattern, err)
	}
	return names
}

// An ErrorCase is an input that Extract must refuse, and the place its first
// error must name.
type ErrorCase struct {
	Doc   string
	Line  int
	Col   int // 0: any column
	Key   string
	InMsg string // a part of the message
}

// Errors extracts each case's Doc as the file at path with f and checks the
// first *diag.Error it gives: its file, line, column, key and message. An
// error without a key is about the whole file (it does not parse, or its top
// level is of the wrong kind): Extract must then return no pins. An error
// with a key is about one entry, which Extract skips: it must come as a
// *pins.Skipped beside the file's other pins.
func Errors(t testing.TB, f pins.Format, path string, cases []ErrorCase) {
	t.Helper()
	for _, tt := range cases {
		ps, err := f.Extract(path, []byte(tt.Doc))
		e, ok := diag.As(err)
		if !ok {
			t.Errorf("Extract(%q) = %v, want a diag.Error", tt.Doc, err)
			continue
		}
		if e.File != path || e.Line != tt.Line || (tt.Col != 0 && e.Col != tt.Col) || e.Key != tt.Key || !strings.Contains(e.Error(), tt.InMsg) {
			t.Errorf("Extract(%q) error = %q (line %d col %d key %q), want line %d col %d key %q with %q",
				tt.Doc, e, e.Line, e.Col, e.Key, tt.Line, tt.Col, tt.Key, tt.InMsg)
		}
		_, partial := pins.SkippedEntries(err)
		switch {
		case tt.Key == "" && (ps != nil || partial):
			t.Errorf("Extract(%q) returned pins with an error about the whole file", tt.Doc)
		case tt.Key != "" && !partial:
			t.Errorf("Extract(%q): an error about one entry (%s) must skip it (pins.Skipped), not the file: %v", tt.Doc, tt.Key, err)
		}
	}
}

// Golden compares got with the golden file at path, printing a diff
// (-want +got) on a mismatch. With -update it first writes got there,
// creating the directory.
func Golden(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s (-want +got):\n%s", path, diff)
	}
}

// Capped moves the caps of the pins of the packages in targets (package →
// newest release) in data, the file at path, as versions.NewUpper does with
// policy, each in the scheme its pin names, and returns the file rewritten by
// pins.Apply. Skipped pins are left alone.
func Capped(t testing.TB, f pins.Format, path string, data []byte, targets map[string]string, policy versions.Policy) []byte {
	t.Helper()
	return capped(t, f, path, data, targets, policy, false)
}

// CappedPartial is Capped for a file some of whose entries f skips (a
// *pins.Skipped beside the pins).
func CappedPartial(t testing.TB, f pins.Format, path string, data []byte, targets map[string]string, policy versions.Policy) []byte {
	t.Helper()
	return capped(t, f, path, data, targets, policy, true)
}

func capped(t testing.TB, f pins.Format, path string, data []byte, targets map[string]string, policy versions.Policy, partial bool) []byte {
	t.Helper()
	ps, _ := readFile(t, f, path, data, partial)
	schemes := all.Schemes()
	var edits []pins.Edit
	for _, p := range ps {
		target, ok := targets[p.Package]
		if !ok || p.Skip != "" {
			continue
		}
		s, ok := schemes[p.Scheme]
		if !ok {
			t.Fatalf("%s: no version scheme %q", p.Key, p.Scheme)
		}
		c, err := s.ParseConstraint(p.Constraint)
		if err != nil {
			t.Fatalf("%s: %v", p.Key, err)
		}
		m, err := versions.NewUpper(s, c, target, policy)
		if err != nil {
			t.Fatalf("%s: %v", p.Key, err)
		}
		if m.Changed {
			edits = append(edits, pins.Edit{Pin: p, New: m.Text})
		}
	}
	out, err := pins.Apply(f, path, data, edits)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// tensorflows are the TensorFlow distributions: the project under its
// platform names, and the packages released with it in lockstep.
var tensorflows = map[string]bool{
	"tensorflow": true, "tensorflow-cpu": true, "tensorflow-gpu": true, "tensorflow-macos": true,
	"tensorflow-aarch64": true, "tensorflow-intel": true, "tensorflow-base": true,
	"tensorflow-estimator": true, "tensorflow-io-gcs-filesystem": true,
}

// Watched reports whether pkg is one of the packages whose pins the corpus
// INDEX.md lists: numba, llvmlite, jax, jaxlib, protobuf, libprotobuf,
// TensorFlow (its distributions and the conda libtensorflow* libraries, not
// the projects built on it such as tensorflow-probability), the MLIR bindings
// (mlir, mlir-python-bindings, finch-mlir, torch-mlir) and pytensor
// (pytensor-base), through which pymc caps numba.
func Watched(pkg string) bool {
	switch pkg {
	case "numba", "llvmlite", "jax", "jaxlib", "protobuf", "libprotobuf", "pytensor", "pytensor-base",
		"mlir", "mlir-python-bindings", "finch-mlir", "torch-mlir":
		return true
	}
	return tensorflows[pkg] || strings.HasPrefix(pkg, "libtensorflow")
}

// Rows describes the pins that keep selects, one row each, as
// "LINE KEY: TEXT", with " (skipped)" after a pin pinbot does not edit.
func Rows(ps []pins.Pin, keep func(pins.Pin) bool) []string {
	var out []string
	for _, p := range ps {
		if !keep(p) {
			continue
		}
		row := fmt.Sprintf("%d %s: %s", p.Line, p.Key, p.Text)
		if p.Skip != "" {
			row += " (skipped)"
		}
		out = append(out, row)
	}
	return out
}
