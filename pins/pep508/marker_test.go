package pep508_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/pinbot-dev/pinbot/pins/pep508"
)

// dotted compares dotted numbers ("3.12" < "3.13"), enough for the tests;
// callers pass PEP 440.
func dotted(have, op, spec string) (bool, bool) {
	parse := func(s string) ([]int, bool) {
		var out []int
		for _, p := range strings.Split(s, ".") {
			n, err := strconv.Atoi(p)
			if err != nil {
				return nil, false
			}
			out = append(out, n)
		}
		return out, true
	}
	a, ok1 := parse(have)
	b, ok2 := parse(spec)
	if !ok1 || !ok2 {
		return false, false
	}
	c := 0
	for i := 0; i < max(len(a), len(b)) && c == 0; i++ {
		x, y := 0, 0
		if i < len(a) {
			x = a[i]
		}
		if i < len(b) {
			y = b[i]
		}
		switch {
		case x < y:
			c = -1
		case x > y:
			c = 1
		}
	}
	switch op {
	case "<":
		return c < 0, true
	case "<=":
		return c <= 0, true
	case ">":
		return c > 0, true
	case ">=":
		return c >= 0, true
	case "==":
		return c == 0, true
	case "!=":
		return c != 0, true
	}
	return false, false
}

func TestMarkerEval(t *testing.T) {
	py312 := pep508.Env{Values: map[string]string{"python_version": "3.12", "python_full_version": "3.12.4", "extra": "", "implementation_name": "cpython"}, Version: dotted}
	unknownPy := pep508.Env{Values: map[string]string{"extra": ""}, Version: dotted}
	tests := []struct {
		marker     string
		env        pep508.Env
		want       pep508.Truth
		wantParseE string
	}{
		{marker: `python_version < "3.13"`, env: py312, want: pep508.True},
		{marker: `python_version >= '3.13'`, env: py312, want: pep508.False},
		{marker: `"3.13" > python_version`, env: py312, want: pep508.True},
		{marker: `python_version < "3.13"`, env: unknownPy, want: pep508.Unknown},
		{marker: `extra == "cuda"`, env: py312, want: pep508.False},
		{marker: `extra == "cuda"`, env: unknownPy, want: pep508.False},
		{marker: `python_version < "3.13" and extra == "cuda"`, env: unknownPy, want: pep508.False},
		{marker: `python_version < "3.13" or extra == "cuda"`, env: unknownPy, want: pep508.Unknown},
		{marker: `python_version < "3.13" or python_version >= "3.13"`, env: py312, want: pep508.True},
		{marker: `(sys_platform == "linux" or python_version < "3.13") and implementation_name == "cpython"`, env: py312, want: pep508.True},
		{marker: `sys_platform == "win32" and python_version < "3.13"`, env: py312, want: pep508.Unknown},
		{marker: `platform_machine in "x86_64 aarch64"`, env: pep508.Env{Values: map[string]string{"platform_machine": "aarch64"}}, want: pep508.True},
		{marker: `platform_machine not in "x86_64 aarch64"`, env: pep508.Env{Values: map[string]string{"platform_machine": "aarch64"}}, want: pep508.False},
		{marker: `os.name == "posix"`, env: pep508.Env{Values: map[string]string{"os_name": "posix"}}, want: pep508.True},
		{marker: `platform_release >= "5.x"`, env: pep508.Env{Values: map[string]string{"platform_release": "6.1-generic"}, Version: dotted}, want: pep508.Unknown},
		{marker: `python_version < "3.13`, wantParseE: "unterminated"},
		{marker: `python_versio < "3.13"`, wantParseE: "unknown marker variable"},
		{marker: `python_version <> "3.13"`, wantParseE: "expected a marker variable"},
		{marker: `python_version "3.13"`, wantParseE: "comparison operator"},
		{marker: `(python_version < "3.13"`, wantParseE: "expected ')'"},
		{marker: `python_version < "3.13" andextra == ""`, wantParseE: "unexpected"},
		{marker: strings.Repeat("(", 40) + `extra == ""` + strings.Repeat(")", 40), wantParseE: "nested too deeply"},
	}
	for _, tt := range tests {
		m, err := pep508.ParseMarker(tt.marker)
		if tt.wantParseE != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantParseE) {
				t.Errorf("%s: error %v, want %q", tt.marker, err, tt.wantParseE)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tt.marker, err)
			continue
		}
		if got := m.Eval(tt.env); got != tt.want {
			t.Errorf("%s in %v: %s, want %s", tt.marker, tt.env.Values, got, tt.want)
		}
	}
}

func TestMarkerVariables(t *testing.T) {
	m, err := pep508.ParseMarker(`python_version < "3.13" and (extra == "x" or sys.platform == "linux" or python_version > "3")`)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(m.Variables(), " "); got != "python_version extra sys_platform" {
		t.Errorf("variables %q", got)
	}
	if (pep508.Marker{}).Eval(pep508.Env{}) != pep508.True {
		t.Error("no marker is not true")
	}
}

func FuzzParseMarker(f *testing.F) {
	for _, s := range []string{`python_version < "3.13" and extra == 'cuda'`, `(os_name == "nt" or sys_platform in "linux darwin") and platform_machine != "arm64"`, `"3" <= python_full_version`} {
		f.Add(s)
	}
	env := pep508.Env{Values: map[string]string{"python_version": "3.12", "extra": "", "sys_platform": "linux"}, Version: dotted}
	f.Fuzz(func(t *testing.T, s string) {
		m, err := pep508.ParseMarker(s)
		if err != nil {
			return
		}
		if v := m.Eval(env); v != pep508.True && v != pep508.False && v != pep508.Unknown {
			t.Errorf("truth %d", v)
		}
		// Knowing less never turns a decided value into its opposite.
		if full, none := m.Eval(env), m.Eval(pep508.Env{Version: dotted}); none != pep508.Unknown && none != full {
			t.Errorf("%q: %s with nothing known, %s with more", s, none, full)
		}
	})
}
