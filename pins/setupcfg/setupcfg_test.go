package setupcfg_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pinbot-dev/pinbot/internal/corpus"
	"github.com/pinbot-dev/pinbot/pins"
	"github.com/pinbot-dev/pinbot/pins/setupcfg"
)

var update = flag.Bool("update", false, "rewrite the golden files")

var f = setupcfg.Format{}

func describe(ps []pins.Pin) string {
	var b strings.Builder
	for _, p := range ps {
		fmt.Fprintf(&b, "%d:%d %s %s %q in %q", p.Line, p.Col, p.Key, p.Package, p.Constraint, p.Text)
		if p.Skip != "" {
			fmt.Fprintf(&b, " skip: %s", p.Skip)
		}
		b.WriteString("\n")
	}
	return b.String()
}

func TestMatch(t *testing.T) {
	if !f.Match("setup.cfg") || !f.Match("sub/setup.cfg") || f.Match("setup.py") || f.Match("setup.cfg.in") {
		t.Error("Match")
	}
}

// TestExtract compares the pins of each testdata file with its .pins golden.
func TestExtract(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.cfg")
	for _, path := range files {
		if strings.HasSuffix(path, "bad.cfg") {
			continue
		}
		t.Run(filepath.Base(path), func(t *testing.T) {
			data, _ := os.ReadFile(path)
			ps, err := f.Extract("setup.cfg", data)
			if err != nil {
				t.Fatal(err)
			}
			got := describe(ps)
			golden := strings.TrimSuffix(path, ".cfg") + ".pins"
			if *update {
				os.WriteFile(golden, []byte(got), 0o644)
			}
			want, _ := os.ReadFile(golden)
			if diff := cmp.Diff(string(want), got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			rewriteAll(t, data, ps)
		})
	}
}

func TestCorpus(t *testing.T) {
	data := corpus.Read(t, "librosa__librosa__setup.cfg")
	ps, err := f.Extract("setup.cfg", data)
	if err != nil {
		t.Fatal(err)
	}
	var numba []string
	for _, p := range ps {
		if p.Package == "numba" {
			numba = append(numba, fmt.Sprintf("%d %s %s", p.Line, p.Key, p.Text))
		}
	}
	want := []string{"67 options.install_requires[1] numba >= 0.51.0", "94 options.extras_require.docs[3] numba >= 0.51"}
	if diff := cmp.Diff(want, numba); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if len(ps) != 13+12+8+1 {
		t.Errorf("%d requirements, want 34", len(ps))
	}
	rewriteAll(t, data, ps)
}

func rewriteAll(t *testing.T, data []byte, ps []pins.Pin) {
	t.Helper()
	for _, p := range ps {
		if p.With(p.Constraint) != p.Text {
			t.Errorf("%s: With(constraint) = %q", p.Key, p.With(p.Constraint))
		}
		if p.Skip != "" {
			continue
		}
		const newC = ">= 1.0, <= 2.0"
		out, err := pins.Apply(f, "setup.cfg", data, []pins.Edit{{Pin: p, New: newC}})
		if err != nil {
			t.Errorf("%s: %v", p.Key, err)
			continue
		}
		if want := string(data[:p.Span.Start]) + p.Insert + newC + string(data[p.Span.End:]); string(out) != want {
			t.Errorf("%s: bytes outside the span changed", p.Key)
		}
		again, _ := f.Extract("setup.cfg", out)
		for _, q := range again {
			if q.Key == p.Key {
				if q.Constraint != newC {
					t.Errorf("%s: reparsed %q", p.Key, q.Constraint)
				}
				if out2, err := pins.Apply(f, "setup.cfg", out, []pins.Edit{{Pin: q, New: newC}}); err != nil || string(out2) != string(out) {
					t.Errorf("%s: second rewrite changed the file (%v)", p.Key, err)
				}
			}
		}
	}
}

func TestErrors(t *testing.T) {
	data, _ := os.ReadFile("testdata/bad.cfg")
	_, err := f.Extract("setup.cfg", data)
	want := "setup.cfg:1:1: key \"numba\" before any [section] header\n" +
		"setup.cfg:5:1: options: expected \"key = value\", a [section] header or an indented continuation, found \"not a key line\"\n"
	if err == nil || !strings.HasPrefix(err.Error()+"\n", want) {
		t.Errorf("errors:\n%v\nwant\n%s", err, want)
	}
}

func FuzzExtract(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.cfg")
	for _, p := range files {
		data, _ := os.ReadFile(p)
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ps, err := setupcfg.Format{}.Extract("setup.cfg", data)
		if err != nil {
			return
		}
		for _, p := range ps {
			if p.Skip == "" && (p.Span.Start < 0 || p.Span.End > len(data) || p.Span.Start > p.Span.End || string(data[p.Span.Start:p.Span.End]) != p.Constraint) {
				t.Fatalf("pin %+v: span does not hold its constraint", p)
			}
		}
	})
}
