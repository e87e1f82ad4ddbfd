package wheel_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pinbot-dev/pinbot/sources"
	"github.com/pinbot-dev/pinbot/sources/wheel"
)

func TestParse(t *testing.T) {
	n, err := wheel.Parse("numba-0.67.0-cp312-cp312-manylinux2014_x86_64.manylinux_2_17_x86_64.whl")
	if err != nil {
		t.Fatal(err)
	}
	want := wheel.Name{Distribution: "numba", Version: "0.67.0", Tags: []sources.Tag{
		{Python: "cp312", ABI: "cp312", Platform: "manylinux2014_x86_64"},
		{Python: "cp312", ABI: "cp312", Platform: "manylinux_2_17_x86_64"},
	}}
	if diff := cmp.Diff(want, n); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
	n, err = wheel.Parse("six-1.16.0-1-py2.py3-none-any.whl")
	if err != nil || n.Build != "1" || len(n.Tags) != 2 || n.Tags[1].String() != "py3-none-any" {
		t.Errorf("build tag and compressed python tags: %+v, %v", n, err)
	}
	for _, bad := range []string{"numba-0.67.0.tar.gz", "numba-0.67.0-cp312-manylinux2014_x86_64.whl", "numba-0.67.0-x-cp312-cp312-any.whl", "-0.1-py3-none-any.whl", "a-1-py3..py2-none-any.whl"} {
		if _, err := wheel.Parse(bad); err == nil {
			t.Errorf("Parse(%q) succeeded", bad)
		}
	}
}

func TestServes(t *testing.T) {
	tests := []struct {
		tag    string // python-abi-platform
		subdir string
		py     string
		want   bool
	}{
		{"cp312-cp312-manylinux_2_17_x86_64", "linux-64", "3.12", true},
		{"cp312-cp312-manylinux2014_x86_64", "linux-64", "", true},
		{"cp312-cp312-manylinux1_x86_64", "linux-64", "3.11", false},
		{"cp312-cp312-musllinux_1_2_x86_64", "linux-64", "3.12", false},
		{"cp312-cp312-manylinux_2_17_aarch64", "linux-64", "3.12", false},
		{"cp312-cp312-manylinux_2_17_aarch64", "linux-aarch64", "3.12", true},
		{"cp312-cp312-macosx_11_0_arm64", "osx-arm64", "3.12", true},
		{"cp312-cp312-macosx_10_15_x86_64", "osx-arm64", "3.12", false},
		{"cp312-cp312-macosx_10_15_universal2", "osx-arm64", "3.12", true},
		{"cp312-cp312-macosx_10_15_universal2", "osx-64", "3.12", true},
		{"cp312-cp312-win_amd64", "win-64", "3.12", true},
		{"cp312-cp312-win32", "win-64", "3.12", false},
		{"py3-none-any", "osx-arm64", "3.13", true},
		{"py3-none-any", "noarch", "", true},
		{"cp312-cp312-manylinux_2_17_x86_64", "noarch", "", false},
		{"cp39-abi3-manylinux_2_17_x86_64", "linux-64", "3.12", true},
		{"cp313-abi3-manylinux_2_17_x86_64", "linux-64", "3.12", false},
		{"cp313-cp313t-manylinux_2_17_x86_64", "linux-64", "3.13", false},
		{"pp310-pypy310_pp73-manylinux_2_17_x86_64", "linux-64", "", false},
		{"cp312-cp312-manylinux_2_17_x86_64", "emscripten-wasm32", "", false},
	}
	for _, tt := range tests {
		p := strings.SplitN(tt.tag, "-", 3)
		tag := sources.Tag{Python: p[0], ABI: p[1], Platform: p[2]}
		if got := wheel.Serves(tag, tt.subdir, tt.py); got != tt.want {
			t.Errorf("Serves(%s, %q, %q) = %v, want %v", tt.tag, tt.subdir, tt.py, got, tt.want)
		}
	}
	if !wheel.KnownSubdir("osx-arm64") || !wheel.KnownSubdir("noarch") || wheel.KnownSubdir("emscripten-wasm32") {
		t.Error("KnownSubdir")
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"numba-0.67.0-cp312-cp312-manylinux2014_x86_64.manylinux_2_17_x86_64.whl", "six-1.16.0-1-py2.py3-none-any.whl", "x.whl", "a-b-c-d-e-f-g.whl"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := wheel.Parse(s)
		if err != nil {
			return
		}
		if len(n.Tags) == 0 || n.Distribution == "" || n.Version == "" {
			t.Errorf("Parse(%q) = %+v", s, n)
		}
		for _, tag := range n.Tags {
			if !strings.Contains(s, tag.Python) || !strings.Contains(s, tag.Platform) {
				t.Errorf("tag %v not in %q", tag, s)
			}
		}
	})
}
