package setupcfg_test

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pinbot-dev/pinbot/internal/corpus"
	"github.com/pinbot-dev/pinbot/internal/pinstest"
	"github.com/pinbot-dev/pinbot/pins"
	"github.com/pinbot-dev/pinbot/pins/setupcfg"
)

// newC is the constraint the rewrite properties give each pin, spaced as
// setup.cfg files often are.
var newC = pinstest.Constant(">= 1.0, <= 2.0")

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

// TestExtract compares the pins of each testdata file with its .pins golden
// and checks the rewrite properties of each pin.
func TestExtract(t *testing.T) {
	pinstest.Testdata(t, "testdata/*.cfg", func(t *testing.T, data []byte, golden string) {
		pinstest.Golden(t, golden, []byte(describe(pinstest.Rewrite(t, f, "setup.cfg", data, newC))))
	})
}

func TestCorpus(t *testing.T) {
	ps := pinstest.Rewrite(t, f, "setup.cfg", corpus.Read(t, "librosa__librosa__setup.cfg"), newC)
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
	pinstest.Fuzz(f, setupcfg.Format{}, "setup.cfg", nil, pinstest.ReadFiles(f, "testdata/*.cfg")...)
}
