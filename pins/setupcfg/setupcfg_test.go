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

// TestInterpolationErrors checks the values configparser's interpolation
// refuses: each is a skipped entry naming its line, beside the file's other
// pins.
func TestInterpolationErrors(t *testing.T) {
	for _, tt := range []struct{ line, want string }{
		{"    %(nodask)s", `%(nodask)s refers to no option "nodask" of [options.extras_require] or [DEFAULT]`},
		{"    numba>=50%", `'%' must be followed by '%' or '('`},
		{"    numba>=%(min", `a reference is written %(name)s`},
		{"    %(loop)s", "nests deeper than 10 references"},
		{"    %(name)s>=1", `after configparser interpolation, "dask\nloop>=1"`},
	} {
		doc := "[options.extras_require]\ndask =\n    dask>=2022.1\nloop = %(loop)s\nname = dask\n    %(loop)s\ntesting =\n" + tt.line + "\n    numba<=0.66.0\n"
		if strings.Contains(tt.line, "name") {
			doc = strings.Replace(doc, "name = dask\n    %(loop)s", "name = dask\n    loop", 1)
		}
		ps, err := f.Extract("setup.cfg", []byte(doc))
		entries, ok := pins.SkippedEntries(err)
		if !ok {
			t.Errorf("%s: %v, want skipped entries", tt.line, err)
			continue
		}
		var got []string
		for _, e := range entries {
			got = append(got, e.Error())
		}
		found := false
		for _, e := range entries {
			found = found || e.Line == 8 && strings.Contains(e.Error(), tt.want)
		}
		if !found {
			t.Errorf("%s: skipped %q, want line 8 with %q", tt.line, got, tt.want)
		}
		if len(ps) == 0 || ps[len(ps)-1].Text != "numba<=0.66.0" || ps[len(ps)-1].Line != 9 {
			t.Errorf("%s: the other pins were not read: %s", tt.line, describe(ps))
		}
	}
}

// TestCorpusInterpolation reads xarray's setup.cfg, whose complete and docs
// extras gather the others with %(io)s ... and %(complete)s followed by more
// requirements: the gathering lines are no pins, every requirement is read
// once where it is written, and the file has no error.
func TestCorpusInterpolation(t *testing.T) {
	ps := pinstest.Rewrite(t, f, "setup.cfg", corpus.Read(t, "pydata__xarray__setup.cfg"), newC)
	var docs []string
	for _, p := range ps {
		if strings.Contains(p.Text, "%(") {
			t.Errorf("%d %s: an interpolated line read as a pin: %s", p.Line, p.Key, p.Text)
		}
		if strings.HasPrefix(p.Key, "options.extras_require.docs[") {
			docs = append(docs, fmt.Sprintf("%d %s %s", p.Line, p.Key, p.Text))
		}
	}
	want := []string{
		"123 options.extras_require.docs[0] sphinx-autosummary-accessors",
		"124 options.extras_require.docs[1] sphinx_rtd_theme",
		"125 options.extras_require.docs[2] ipython",
		"126 options.extras_require.docs[3] ipykernel",
		"127 options.extras_require.docs[4] jupyter-client",
		"128 options.extras_require.docs[5] nbsphinx",
		"129 options.extras_require.docs[6] scanpydoc",
	}
	if diff := cmp.Diff(want, docs); diff != "" {
		t.Errorf("docs extra (-want +got):\n%s", diff)
	}
	if len(ps) != 3+2+9+3+1+3+7 {
		t.Errorf("%d requirements, want 28", len(ps))
	}
}

func FuzzExtract(f *testing.F) {
	pinstest.Fuzz(f, setupcfg.Format{}, "setup.cfg", nil, pinstest.ReadFiles(f, "testdata/*.cfg")...)
}
