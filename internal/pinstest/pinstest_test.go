package pinstest_test

import (
	"bytes"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/pinbot-dev/pinbot/internal/diag"
	"github.com/pinbot-dev/pinbot/internal/pinstest"
	"github.com/pinbot-dev/pinbot/pins"
)

// lines is a toy format: one "name constraint" per line. With short set, it
// reports each constraint without its last byte, which its span still holds:
// the bug Rewrite and CheckExtract must catch.
type lines struct{ short bool }

func (lines) Name() string      { return "lines" }
func (lines) Match(string) bool { return true }

func (l lines) Extract(path string, data []byte) ([]pins.Pin, error) {
	var out []pins.Pin
	var skipped diag.List // lines starting with "!"
	off := 0
	for i, line := range bytes.SplitAfter(data, []byte("\n")) {
		text := strings.TrimRight(string(line), "\n")
		name, c, ok := strings.Cut(text, " ")
		switch {
		case text == "":
		case strings.HasPrefix(text, "!"):
			skipped = append(skipped, diag.Errorf(path, i+1, 1, fmt.Sprintf("[%d]", i), "not read"))
		case !ok:
			return nil, diag.Errorf(path, i+1, 1, "", "expected a name and a constraint")
		default:
			start, end := off+len(name)+1, off+len(text)
			if l.short && len(c) > 0 {
				c = c[:len(c)-1]
			}
			out = append(out, pins.Pin{File: path, Line: i + 1, Col: 1, Key: fmt.Sprintf("[%d]", i), Package: name,
				Text: text, TextStart: off, Constraint: c, Span: pins.Span{Start: start, End: end}})
		}
		off += len(line)
	}
	return out, pins.Skip(skipped)
}

// recorder is a testing.TB that records failures instead of failing.
type recorder struct {
	testing.TB
	failures []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.failures = append(r.failures, fmt.Sprintf(format, args...))
}
func (r *recorder) Fatalf(format string, args ...any) {
	r.Errorf(format, args...)
	runtime.Goexit()
}
func (r *recorder) Fatal(args ...any) { r.Fatalf("%s", fmt.Sprint(args...)) }

// record runs fn with a recorder and returns the failures it recorded.
func record(t *testing.T, fn func(tb testing.TB)) []string {
	r := &recorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn(r)
	}()
	<-done
	return r.failures
}

const doc = "numba >=0.58,<=0.66.0\nllvmlite <0.48\n"

func TestRewrite(t *testing.T) {
	if got := record(t, func(tb testing.TB) { pinstest.Rewrite(tb, lines{}, "x", []byte(doc), nil) }); got != nil {
		t.Errorf("a sound format: failures %q", got)
	}
	got := record(t, func(tb testing.TB) { pinstest.Rewrite(tb, lines{short: true}, "x", []byte(doc), nil) })
	if len(got) == 0 {
		t.Error("a format whose constraints miss a byte passed")
	}
}

// TestRewritePartial: a file with a skipped entry fails Rewrite, and passes
// RewritePartial, which returns the entry.
func TestRewritePartial(t *testing.T) {
	partial := doc + "!unread\n"
	if got := record(t, func(tb testing.TB) { pinstest.Rewrite(tb, lines{}, "x", []byte(partial), nil) }); len(got) == 0 {
		t.Error("Rewrite passed a file with a skipped entry")
	}
	var skipped diag.List
	if got := record(t, func(tb testing.TB) {
		_, skipped = pinstest.RewritePartial(tb, lines{}, "x", []byte(partial), nil)
	}); got != nil {
		t.Errorf("RewritePartial: failures %q", got)
	}
	if len(skipped) != 1 || skipped[0].Line != 3 {
		t.Errorf("skipped %v, want line 3", skipped)
	}
	if got := record(t, func(tb testing.TB) { pinstest.RewritePartial(tb, lines{short: true}, "x", []byte(partial), nil) }); len(got) == 0 {
		t.Error("RewritePartial passed a format whose constraints miss a byte")
	}
}

func TestCheckExtract(t *testing.T) {
	if got := record(t, func(tb testing.TB) { pinstest.CheckExtract(tb, lines{}, "x", []byte("numba\n")) }); got != nil {
		t.Errorf("a diag.Error: failures %q", got)
	}
	got := record(t, func(tb testing.TB) { pinstest.CheckExtract(tb, lines{short: true}, "x", []byte(doc)) })
	if len(got) != 1 || !strings.Contains(got[0], "span does not hold its constraint") {
		t.Errorf("a span off the constraint: failures %q", got)
	}
}

func TestErrors(t *testing.T) {
	cases := []pinstest.ErrorCase{{Doc: "numba >=1\nbad\n", Line: 2, Col: 1, InMsg: "expected a name"}}
	if got := record(t, func(tb testing.TB) { pinstest.Errors(tb, lines{}, "x", cases) }); got != nil {
		t.Errorf("failures %q", got)
	}
	cases[0].Line = 1
	if got := record(t, func(tb testing.TB) { pinstest.Errors(tb, lines{}, "x", cases) }); len(got) != 1 {
		t.Errorf("a wrong line: failures %q", got)
	}
}

func TestRows(t *testing.T) {
	ps, _ := lines{}.Extract("x", []byte(doc))
	ps[1].Skip = "templated"
	got := pinstest.Rows(ps, func(pins.Pin) bool { return true })
	want := []string{"1 [0]: numba >=0.58,<=0.66.0", "2 [1]: llvmlite <0.48 (skipped)"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("Rows = %q, want %q", got, want)
	}
}

func TestNewConstraint(t *testing.T) {
	for _, tt := range []struct {
		p    pins.Pin
		want string
	}{
		{pins.Pin{Scheme: "pep440", Constraint: ">=1"}, pinstest.Range},
		{pins.Pin{Scheme: "semver", Constraint: "v2.0.0+incompatible"}, "v2.99.0+incompatible"},
		{pins.Pin{Scheme: "conda", Text: "numba=0.61.0=py312h*", Constraint: "0.61.0"}, "1.0"},
		{pins.Pin{Scheme: "conda", Text: "numba >=0.61", Constraint: ">=0.61"}, pinstest.Range},
	} {
		if got := pinstest.NewConstraint(tt.p); got != tt.want {
			t.Errorf("NewConstraint(%+v) = %q, want %q", tt.p, got, tt.want)
		}
	}
}

func TestWatched(t *testing.T) {
	for pkg, want := range map[string]bool{
		"numba": true, "tensorflow-macos": true, "libtensorflow_cc": true, "finch-mlir": true, "pytensor-base": true,
		"tensorflow-probability": false, "numpy": false, "tensorboard": false,
	} {
		if got := pinstest.Watched(pkg); got != want {
			t.Errorf("Watched(%q) = %v, want %v", pkg, got, want)
		}
	}
}
