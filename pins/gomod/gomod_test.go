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
