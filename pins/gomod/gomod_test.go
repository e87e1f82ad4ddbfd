package gomod_test

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/pinbot-dev/pinbot/internal/pinstest"
	"github.com/pinbot-dev/pinbot/pins"
	"github.com/pinbot-dev/pinbot/pins/gomod"
)

var f = gomod.Format{}

func TestMatch(t *testing.T) {
	pinstest.Match(t, f, map[string]bool{"go.mod": true, "tools/go.mod": true, "go.sum": false, "x/testdata/go.mod": false, "go.mod.bak": false})
}

// TestExtract compares the pins of each testdata file with its .pins golden
// and rewrites every pin to a new version (pinstest.NewConstraint).
func TestExtract(t *testing.T) {
	pinstest.Testdata(t, "testdata/*.gomod", func(t *testing.T, data []byte, golden string) {
		var b strings.Builder
		for _, p := range pinstest.Rewrite(t, f, "go.mod", data, nil) {
			fmt.Fprintf(&b, "%d:%d %s %s %q in %q %s %s", p.Line, p.Col, p.Key, p.Package, p.Constraint, p.Text, p.Source, p.Scheme)
			if p.Skip != "" {
				fmt.Fprintf(&b, " skip: %s", p.Skip)
			}
			b.WriteString("\n")
		}
		pinstest.Golden(t, golden, []byte(b.String()))
	})
}

func TestErrors(t *testing.T) {
	data, _ := os.ReadFile("testdata/bad.gomod")
	_, err := f.Extract("go.mod", data)
	want := "go.mod:6:2: usage: require module/path v1.2.3\ngo.mod:9:1: unknown directive: bogus"
	if err == nil || err.Error() != want {
		t.Errorf("got  %v\nwant %s", err, want)
	}

	// The go command refuses the file, but a bad line hides no other
	// requirement: it is skipped, and the rest read as they are.
	doc := "module example.com/m\n\nrequire (\n\tgolang.org/x/mod\n\tgolang.org/x/text v0.3.8\n)\n\nrequire github.com/google/go-cmp v0.6.0 v0.7.0\n"
	ps, err := f.Extract("go.mod", []byte(doc))
	entries, ok := pins.SkippedEntries(err)
	if !ok || len(entries) != 2 || entries[0].Line != 4 || entries[1].Line != 8 {
		t.Fatalf("skipped %v (%v), want lines 4 and 8", entries, err)
	}
	if len(ps) != 1 || ps[0].Package != "golang.org/x/text" || ps[0].Line != 5 || ps[0].Constraint != "v0.3.8" {
		t.Errorf("pins %+v, want golang.org/x/text v0.3.8 on line 5", ps)
	}
	out, err := pins.Apply(f, "go.mod", []byte(doc), []pins.Edit{{Pin: ps[0], New: "v0.30.0"}})
	if want := strings.Replace(doc, "v0.3.8", "v0.30.0", 1); err != nil || string(out) != want {
		t.Errorf("Apply: %v\n%s", err, out)
	}

	// A line that opens a block is the file's structure: the file is refused.
	if ps, err := f.Extract("go.mod", []byte("module m\nrequire ( x\n")); err == nil || ps != nil {
		t.Errorf("broken block: %v, %v", ps, err)
	} else if _, ok := pins.SkippedEntries(err); ok {
		t.Errorf("broken block skipped as an entry: %v", err)
	}
}

func FuzzExtract(f *testing.F) {
	// A replaced requirement is skipped, but its span holds its version too.
	pinstest.Fuzz(f, gomod.Format{}, "go.mod", func(t *testing.T, data []byte, ps []pins.Pin) {
		for _, p := range ps {
			if !pinstest.SpanHolds(data, p) {
				t.Fatalf("pin %+v: span does not hold its constraint", p)
			}
		}
	}, pinstest.ReadFiles(f, "testdata/*.gomod")...)
}
