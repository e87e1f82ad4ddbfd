package pep508_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pinbot-dev/pinbot/pins"
	"github.com/pinbot-dev/pinbot/pins/pep508"
)

func TestParse(t *testing.T) {
	tests := []struct {
		in         string
		name, spec string
		extras     []string
		marker     string
		url        string
	}{
		{in: "numba>=0.58,<=0.66.0", name: "numba", spec: ">=0.58,<=0.66.0"},
		{in: "numba", name: "numba"},
		{in: "  numba >= 0.51.0", name: "numba", spec: ">= 0.51.0"},
		{in: "tensorflow[and-cuda] ~=2.16 ; sys_platform == 'linux'", name: "tensorflow", extras: []string{"and-cuda"}, spec: "~=2.16", marker: "sys_platform == 'linux'"},
		{in: "numba>=0.58; python_version<'3.14'", name: "numba", spec: ">=0.58", marker: "python_version<'3.14'"},
		{in: "tensorflow==2.15.1; python_version < '3.12' and (sys_platform != 'darwin' or platform_machine != 'arm64')", name: "tensorflow", spec: "==2.15.1",
			marker: "python_version < '3.12' and (sys_platform != 'darwin' or platform_machine != 'arm64')"},
		{in: "jaxlib==0.4.22+cuda12.cudnn89", name: "jaxlib", spec: "==0.4.22+cuda12.cudnn89"},
		{in: "numba (>=0.58, <1)", name: "numba", spec: ">=0.58, <1"},
		{in: "pkg[a, b]>=1", name: "pkg", extras: []string{"a", "b"}, spec: ">=1"},
		{in: "numba @ https://example.com/numba.whl ; os_name == 'nt'", name: "numba", url: "https://example.com/numba.whl", marker: "os_name == 'nt'"},
		{in: "Ruamel.YAML_x>=1", name: "Ruamel.YAML_x", spec: ">=1"},
	}
	for _, tt := range tests {
		r, err := pep508.Parse(tt.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", tt.in, err)
			continue
		}
		if r.Name != tt.name || r.Specifier != tt.spec || !slices.Equal(r.Extras, tt.extras) || r.Marker != tt.marker || r.URL != tt.url {
			t.Errorf("Parse(%q) = %+v", tt.in, r)
		}
		if got := tt.in[r.SpecStart:r.SpecEnd]; got != tt.spec {
			t.Errorf("Parse(%q): span holds %q, want %q", tt.in, got, tt.spec)
		}
	}
}

func TestParseInsertionPoint(t *testing.T) {
	for in, want := range map[string]int{"numba": 5, "numba ; os_name=='nt'": 5, "numba[x]": 8, "  numba  ": 7} {
		r, err := pep508.Parse(in)
		if err != nil || r.SpecStart != want || r.SpecEnd != want {
			t.Errorf("Parse(%q) span = %d-%d, %v; want empty at %d", in, r.SpecStart, r.SpecEnd, err, want)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for _, in := range []string{"", ">=1.0", "-numba", "numba[", "numba (>=1", "numba >=1)", "numba ;", "numba @", "numba foo", "numba[a b]", "numba; (a"} {
		if r, err := pep508.Parse(in); err == nil {
			t.Errorf("Parse(%q) = %+v, want an error", in, r)
		}
	}
}

func TestNormalize(t *testing.T) {
	for in, want := range map[string]string{"Ruamel.YAML": "ruamel-yaml", "numba": "numba", "numba_cuda": "numba-cuda", "A__b.-c": "a-b-c"} {
		if got := pep508.Normalize(in); got != want {
			t.Errorf("Normalize(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"numba>=0.58,<=0.66.0", "tensorflow[and-cuda] ~=2.16 ; sys_platform == 'linux'", "numba (>=1)", "x @ http://a ; b", "numba"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		r, err := pep508.Parse(in)
		if err != nil {
			return
		}
		if r.SpecStart > r.SpecEnd || r.SpecEnd > len(in) || in[r.SpecStart:r.SpecEnd] != r.Specifier {
			t.Fatalf("Parse(%q): span %d-%d does not hold %q", in, r.SpecStart, r.SpecEnd, r.Specifier)
		}
	})
}

// TestPin checks the pin of a requirement that starts at file offset 100.
func TestPin(t *testing.T) {
	tests := []struct {
		text string
		want pins.Pin
	}{
		{"Numba_X >=0.58 ; python_version < '3.14'", pins.Pin{Package: "numba-x", Text: "Numba_X >=0.58 ; python_version < '3.14'", TextStart: 100,
			Constraint: ">=0.58", Span: pins.Span{Start: 108, End: 114}, Source: "pypi", Scheme: "pep440", Condition: "python_version < '3.14'"}},
		{"jax[cuda]", pins.Pin{Package: "jax", Text: "jax[cuda]", TextStart: 100, Span: pins.Span{Start: 109, End: 109}, Source: "pypi", Scheme: "pep440"}},
		{"numba @ https://example.com/numba.whl", pins.Pin{Package: "numba", Text: "numba @ https://example.com/numba.whl", TextStart: 100,
			Span: pins.Span{Start: 105, End: 105}, Source: "pypi", Scheme: "pep440", Skip: "direct URL requirement"}},
	}
	for _, tt := range tests {
		got, err := pep508.Pin(tt.text, 100)
		if err != nil {
			t.Fatalf("Pin(%q): %v", tt.text, err)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("Pin(%q) (-want +got):\n%s", tt.text, diff)
		}
	}
	var e *pep508.Error
	if _, err := pep508.Pin("numba ; ", 0); !errors.As(err, &e) {
		t.Errorf("Pin of a bad requirement: %v, want a *pep508.Error", err)
	}
	if got := pep508.Named("Tensorflow.IO"); !cmp.Equal(got, pins.Pin{Package: "tensorflow-io", Source: "pypi", Scheme: "pep440"}) {
		t.Errorf("Named = %+v", got)
	}
}
