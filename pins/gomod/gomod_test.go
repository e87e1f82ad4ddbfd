package gomod_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/mod/semver"

	"github.com/pinbot-dev/pinbot/pins"
	"github.com/pinbot-dev/pinbot/pins/gomod"
)

var update = flag.Bool("update", false, "rewrite the golden files")

var f = gomod.Format{}

func TestMatch(t *testing.T) {
	for p, want := range map[string]bool{"go.mod": true, "tools/go.mod": true, "go.sum": false, "x/testdata/go.mod": false, "go.mod.bak": false} {
		if f.Match(p) != want {
			t.Errorf("Match(%q) = %v", p, !want)
		}
	}
}

// TestExtract compares the pins of each testdata file with its .pins golden
// and rewrites every pin.
func TestExtract(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.gomod")
	for _, path := range files {
		if strings.HasSuffix(path, "bad.gomod") {
			continue
		}
		t.Run(filepath.Base(path), func(t *testing.T) {
			data, _ := os.ReadFile(path)
			ps, err := f.Extract("go.mod", data)
			if err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			for _, p := range ps {
				fmt.Fprintf(&b, "%d:%d %s %s %q in %q %s %s", p.Line, p.Col, p.Key, p.Package, p.Constraint, p.Text, p.Source, p.Scheme)
				if p.Skip != "" {
					fmt.Fprintf(&b, " skip: %s", p.Skip)
				}
				b.WriteString("\n")
			}
			golden := strings.TrimSuffix(path, ".gomod") + ".pins"
			if *update {
				os.WriteFile(golden, []byte(b.String()), 0o644)
			}
			want, _ := os.ReadFile(golden)
			if diff := cmp.Diff(string(want), b.String()); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			for _, p := range ps {
				if p.With(p.Constraint) != p.Text {
					t.Errorf("%s: With(constraint) = %q", p.Key, p.With(p.Constraint))
				}
				if p.Skip != "" {
					continue
				}
				newV := semver.Major(p.Constraint) + ".99.0" + semver.Build(p.Constraint)
				out, err := pins.Apply(f, "go.mod", data, []pins.Edit{{Pin: p, New: newV}})
				if err != nil {
					t.Errorf("%s: %v", p.Key, err)
					continue
				}
				if want := string(data[:p.Span.Start]) + newV + string(data[p.Span.End:]); string(out) != want {
					t.Errorf("%s: bytes outside the span changed", p.Key)
				}
				again, _ := f.Extract("go.mod", out)
				for _, q := range again {
					if q.Key == p.Key {
						if q.Constraint != newV {
							t.Errorf("%s: reparsed %q", p.Key, q.Constraint)
						}
						if out2, err := pins.Apply(f, "go.mod", out, []pins.Edit{{Pin: q, New: newV}}); err != nil || string(out2) != string(out) {
							t.Errorf("%s: second rewrite changed the file (%v)", p.Key, err)
						}
					}
				}
			}
		})
	}
}

func TestErrors(t *testing.T) {
	data, _ := os.ReadFile("testdata/bad.gomod")
	_, err := f.Extract("go.mod", data)
	want := "go.mod:6:2: usage: require module/path v1.2.3\ngo.mod:9:1: unknown directive: bogus"
	if err == nil || err.Error() != want {
		t.Errorf("got  %v\nwant %s", err, want)
	}
}

func FuzzExtract(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.gomod")
	for _, p := range files {
		data, _ := os.ReadFile(p)
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ps, err := gomod.Format{}.Extract("go.mod", data)
		if err != nil {
			return
		}
		for _, p := range ps {
			if p.Span.Start < 0 || p.Span.End > len(data) || p.Span.Start > p.Span.End || string(data[p.Span.Start:p.Span.End]) != p.Constraint {
				t.Fatalf("pin %+v: span does not hold its constraint", p)
			}
		}
	})
}
