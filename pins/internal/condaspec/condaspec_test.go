package condaspec_test

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pinbot-dev/pinbot/pins"
	"github.com/pinbot-dev/pinbot/pins/internal/condaspec"
)

func TestSource(t *testing.T) {
	for in, want := range map[string]string{
		"conda-forge":                                 "conda-forge",
		" conda-forge/ ":                              "conda-forge",
		"conda-forge/linux-64":                        "conda-forge",
		"conda-forge/label/rc":                        "conda-forge/label/rc",
		"numba/label/dev":                             "numba/label/dev",
		"https://conda.anaconda.org/conda-forge/":     "conda-forge",
		"https://conda.anaconda.org/t/tk-123/private": "private",
		"https://prefix.dev/conda-forge":              "conda-forge",
		"https://repo.prefix.dev/my-channel/noarch":   "my-channel",
		"https://user:secret@example.com/channel/":    "https://example.com/channel",
		"file:///opt/channel":                         "file:///opt/channel",
		"":                                            "conda",
	} {
		if got := condaspec.Source(in); got != want {
			t.Errorf("Source(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestList: a file's channel list in order, each channel once, as pins
// name them; defaults, nodefaults and entries that name no channel are
// passed over. First is its first, else Default.
func TestList(t *testing.T) {
	at := func(i int) pins.Place { return pins.Place{Line: i + 2, Col: 5, Key: fmt.Sprintf("channels[%d]", i)} }
	ch := func(name string, i int) pins.Channel { return pins.Channel{Name: name, At: at(i)} }
	for _, tt := range []struct {
		in   []string
		want []pins.Channel
	}{
		{nil, nil},
		{[]string{"defaults"}, nil},
		{[]string{"nodefaults", "conda-forge"}, []pins.Channel{ch("conda-forge", 1)}},
		{[]string{"defaults", "numba/label/dev", "conda-forge"}, []pins.Channel{ch("numba/label/dev", 1), ch("conda-forge", 2)}},
		{[]string{"numba", "conda-forge"}, []pins.Channel{ch("numba", 0), ch("conda-forge", 1)}},
		{[]string{"https://prefix.dev/", "https://prefix.dev/conda-forge", " ", "conda-forge/linux-64", "numba"},
			[]pins.Channel{ch("conda-forge", 1), ch("numba", 4)}},
	} {
		var chs []condaspec.Channel
		for i, name := range tt.in {
			chs = append(chs, condaspec.Channel{Name: name, At: at(i)})
		}
		got := condaspec.List(chs)
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("List(%q) (-want +got):\n%s", tt.in, diff)
		}
		first := "conda"
		if len(tt.want) > 0 {
			first = tt.want[0].Name
		}
		if f := condaspec.First(got); f != first {
			t.Errorf("First(%q) = %q, want %q", tt.in, f, first)
		}
	}
}

// TestLocate: a pin that follows its file's channel list is located at the
// list's first entry and carries the list; one whose spec names its channel
// follows that channel only, located at itself; one that follows the
// configured channels nowhere.
func TestLocate(t *testing.T) {
	list := []pins.Channel{{Name: "numba", At: pins.Place{Line: 2, Col: 5, Key: "channels[0]"}},
		{Name: "conda-forge", At: pins.Place{Line: 3, Col: 5, Key: "channels[1]"}}}
	own := pins.Place{Line: 9, Col: 5, Key: "dependencies[3]"}
	for _, tt := range []struct {
		text     string
		list     []pins.Channel
		source   string
		want     pins.Place
		channels []pins.Channel
	}{
		{"numba >=0.61.2", list, "numba", list[0].At, list},
		{"numba::numba >=0.61.2", list, "numba", own, nil},
		{"conda-forge::numba >=0.61.2", list, "conda-forge", own, nil},
		{"numba >=0.61.2", nil, condaspec.Default, pins.Place{}, nil},
		{"conda-forge::numba", nil, "conda-forge", own, nil},
	} {
		p, err := condaspec.Pin(tt.text, 0, tt.list)
		if err != nil {
			t.Fatal(err)
		}
		p.Line, p.Col, p.Key = own.Line, own.Col, own.Key
		condaspec.Locate(&p)
		if p.Source != tt.source || p.SourceAt != tt.want || !cmp.Equal(p.Channels, tt.channels) {
			t.Errorf("%q in a file with channels %v: Source %s at %+v, Channels %v; want %s at %+v, %v",
				tt.text, tt.list, p.Source, p.SourceAt, p.Channels, tt.source, tt.want, tt.channels)
		}
	}
}

func TestPin(t *testing.T) {
	for _, tt := range []struct {
		text, pkg, constraint, skip string
	}{
		{"numba >=0.59,<0.62", "numba", ">=0.59,<0.62", ""},
		{"Numba", "numba", "", ""},
		{"{{ compiler('c') }}", "c_compiler", "{{ compiler('c') }}", "templated: no version until the recipe is rendered"},
		{"${{ pin_subpackage(\"pymc-base\", exact=True) }}", "pymc-base", "${{ pin_subpackage(\"pymc-base\", exact=True) }}", "templated: no version until the recipe is rendered"},
		{"python >=${{ python_min }}", "python", ">=${{ python_min }}", "templated: no version until the recipe is rendered"},
		{"libtensorflow_framework {{ version }}", "libtensorflow_framework", "{{ version }}", "templated: no version until the recipe is rendered"},
		{"cross-python_{{ target_platform }}", "cross-python_{{ target_platform }}", "cross-python_{{ target_platform }}", "templated: no version until the recipe is rendered"},
		{"numba ^0\\.6.*$", "numba", "^0\\.6.*$", "regular-expression version"},
		// A build string naming one build: every spelling is skipped.
		{"setuptools=58.0.4=py37hecd8cb5_0", "setuptools", "58.0.4", "the build string py37hecd8cb5_0 names one build of 58.0.4, which another version does not have: left as written"},
		{"numba==0.66.0=py312h6b8c7a1_0", "numba", "==0.66.0", "the build string py312h6b8c7a1_0 names one build of ==0.66.0, which another version does not have: left as written"},
		{"numba 0.66.0 py312h6b8c7a1_0", "numba", "0.66.0", "the build string py312h6b8c7a1_0 names one build of 0.66.0, which another version does not have: left as written"},
		{"numba 0.66.0=mkl", "numba", "0.66.0", "the build string mkl names one build of 0.66.0, which another version does not have: left as written"},
		{"numba[build=py312h6b8c7a1_0]", "numba", "", "the build string py312h6b8c7a1_0 names one build of the version, which another version does not have: left as written"},
		// A glob build string, or none, moves.
		{"numba 0.66.* py312*", "numba", "0.66.*", ""},
		{"libblas=*=*mkl", "libblas", "*", ""},
		{"numba=0.66", "numba", "=0.66", ""},
		{"numba==0.66.0", "numba", "==0.66.0", ""},
	} {
		p, err := condaspec.Pin(tt.text, 10, []pins.Channel{{Name: "conda-forge"}})
		if err != nil {
			t.Errorf("Pin(%q): %v", tt.text, err)
			continue
		}
		if p.Package != tt.pkg || p.Constraint != tt.constraint || p.Skip != tt.skip || p.Scheme != "conda" {
			t.Errorf("Pin(%q) = %+v", tt.text, p)
		}
		if got := tt.text[p.Span.Start-10 : p.Span.End-10]; got != p.Constraint {
			t.Errorf("Pin(%q): span holds %q", tt.text, got)
		}
	}
	if _, err := condaspec.Pin("https://example.com/x-1.0-0.conda", 0, nil); !condaspec.IsFileOrURL(err) {
		t.Errorf("package file: %v", err)
	}
}
