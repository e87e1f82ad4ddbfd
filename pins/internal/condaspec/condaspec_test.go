package condaspec_test

import (
	"fmt"
	"testing"

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

func TestFirst(t *testing.T) {
	at := func(i int) pins.Place { return pins.Place{Line: i + 2, Col: 5, Key: fmt.Sprintf("channels[%d]", i)} }
	for _, tt := range []struct {
		in   []string
		want string
		at   pins.Place
	}{
		{nil, "conda", pins.Place{}},
		{[]string{"defaults"}, "conda", pins.Place{}},
		{[]string{"nodefaults", "conda-forge"}, "conda-forge", at(1)},
		{[]string{"defaults", "numba/label/dev", "conda-forge"}, "numba/label/dev", at(1)},
		{[]string{"numba", "conda-forge"}, "numba", at(0)},
	} {
		var chs []condaspec.Channel
		for i, name := range tt.in {
			chs = append(chs, condaspec.Channel{Name: name, At: at(i)})
		}
		if got, gotAt := condaspec.First(chs); got != tt.want || gotAt != tt.at {
			t.Errorf("First(%q) = %q at %+v, want %q at %+v", tt.in, got, gotAt, tt.want, tt.at)
		}
	}
}

// TestLocate: a pin that follows its file's channel is located at that
// channel's entry, one whose spec names its channel at itself, one that
// follows the configured channel nowhere.
func TestLocate(t *testing.T) {
	entry := pins.Place{Line: 2, Col: 5, Key: "channels[0]"}
	for _, tt := range []struct {
		text, source string
		at, want     pins.Place
	}{
		{"numba >=0.61.2", "numba", entry, entry},
		{"conda-forge::numba >=0.61.2", "numba", entry, pins.Place{Line: 9, Col: 5, Key: "dependencies[3]"}},
		{"numba >=0.61.2", condaspec.Default, pins.Place{}, pins.Place{}},
		{"conda-forge::numba", condaspec.Default, pins.Place{}, pins.Place{Line: 9, Col: 5, Key: "dependencies[3]"}},
	} {
		p, err := condaspec.Pin(tt.text, 0, tt.source)
		if err != nil {
			t.Fatal(err)
		}
		p.Line, p.Col, p.Key = 9, 5, "dependencies[3]"
		condaspec.Locate(&p, tt.source, tt.at)
		if p.SourceAt != tt.want {
			t.Errorf("%q following %s: SourceAt %+v, want %+v", tt.text, tt.source, p.SourceAt, tt.want)
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
		p, err := condaspec.Pin(tt.text, 10, "conda-forge")
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
	if _, err := condaspec.Pin("https://example.com/x-1.0-0.conda", 0, "conda"); !condaspec.IsFileOrURL(err) {
		t.Errorf("package file: %v", err)
	}
}
