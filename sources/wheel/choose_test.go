package wheel_test

import (
	"strings"
	"testing"

	"github.com/pinbot-dev/pinbot/sources"
	"github.com/pinbot-dev/pinbot/sources/wheel"
)

func files(names ...string) []sources.File {
	out := make([]sources.File, len(names))
	for i, n := range names {
		out[i] = sources.File{Name: n}
	}
	return out
}

func target(t *testing.T, platform, python string) wheel.Target {
	t.Helper()
	p, err := wheel.ParsePlatform(platform)
	if err != nil {
		t.Fatal(err)
	}
	return wheel.Target{Python: python, Platform: p}
}

// TestChoose follows pip's tag priority (packaging.tags.sys_tags) for
// CPython on glibc x86-64: the most specific compatible tag wins, then the
// newest manylinux level, and a pure wheel only when no binary wheel fits.
func TestChoose(t *testing.T) {
	protobuf := []string{
		"protobuf-6.31.0-py3-none-any.whl",
		"protobuf-6.31.0-cp39-abi3-manylinux2014_x86_64.whl",
		"protobuf-6.31.0-cp39-abi3-manylinux2014_aarch64.whl",
		"protobuf-6.31.0-cp39-abi3-macosx_10_9_universal2.whl",
		"protobuf-6.31.0-cp310-abi3-win_amd64.whl",
		"protobuf-6.31.0-cp39-cp39-manylinux2014_x86_64.whl",
	}
	tests := []struct {
		name, platform, python string
		files                  []string
		want                   string // "" for none
		pure                   bool
	}{
		{"cp-specific beats abi3", "manylinux_2_36_x86_64", "3.11", []string{
			"x-1-cp39-abi3-manylinux_2_17_x86_64.whl", "x-1-cp311-cp311-manylinux_2_17_x86_64.whl", "x-1-py3-none-any.whl"},
			"x-1-cp311-cp311-manylinux_2_17_x86_64.whl", false},
		{"highest abi3 first", "manylinux_2_36_x86_64", "3.12", []string{
			"x-1-cp38-abi3-manylinux_2_17_x86_64.whl", "x-1-cp310-abi3-manylinux_2_17_x86_64.whl", "x-1-cp39-abi3-manylinux_2_28_x86_64.whl"},
			"x-1-cp310-abi3-manylinux_2_17_x86_64.whl", false},
		{"abi3 beats py3X-none", "manylinux_2_36_x86_64", "3.12", []string{
			"x-1-py312-none-manylinux_2_17_x86_64.whl", "x-1-cp37-abi3-manylinux_2_17_x86_64.whl"},
			"x-1-cp37-abi3-manylinux_2_17_x86_64.whl", false},
		{"py3X-none-PLAT beats pure", "manylinux_2_36_x86_64", "3.12", []string{
			"x-1-py3-none-any.whl", "x-1-py3-none-manylinux_2_17_x86_64.whl"},
			"x-1-py3-none-manylinux_2_17_x86_64.whl", false},
		{"pure order: py312 > py3 > py311", "manylinux_2_36_x86_64", "3.12", []string{
			"x-1-py311-none-any.whl", "x-1-py3-none-any.whl", "x-1-py312-none-any.whl"},
			"x-1-py312-none-any.whl", true},
		{"the abi3 wheel, not the pure one (protobuf on Linux)", "manylinux_2_36_x86_64", "3.12", protobuf,
			"protobuf-6.31.0-cp39-abi3-manylinux2014_x86_64.whl", false},
		{"cp39-cp39 for 3.9", "manylinux_x86_64", "3.9", protobuf,
			"protobuf-6.31.0-cp39-cp39-manylinux2014_x86_64.whl", false},
		{"abi3 for a newer Python only", "manylinux_x86_64", "3.8", protobuf,
			"protobuf-6.31.0-py3-none-any.whl", true},
		{"architecture respected", "manylinux_x86_64", "3.12", protobuf[2:3], "", false},
		{"aarch64", "linux-aarch64", "3.12", protobuf,
			"protobuf-6.31.0-cp39-abi3-manylinux2014_aarch64.whl", false},
		{"macOS arm64 takes universal2", "osx-arm64", "3.12", protobuf,
			"protobuf-6.31.0-cp39-abi3-macosx_10_9_universal2.whl", false},
		{"windows", "win-64", "3.12", protobuf, "protobuf-6.31.0-cp310-abi3-win_amd64.whl", false},
		{"glibc level respected", "manylinux_2_17_x86_64", "3.12", []string{
			"x-1-cp312-cp312-manylinux_2_28_x86_64.whl", "x-1-py3-none-any.whl"},
			"x-1-py3-none-any.whl", true},
		{"newest level that fits", "manylinux_2_28_x86_64", "3.12", []string{
			"x-1-cp312-cp312-manylinux_2_17_x86_64.whl", "x-1-cp312-cp312-manylinux_2_28_x86_64.whl", "x-1-cp312-cp312-manylinux_2_34_x86_64.whl"},
			"x-1-cp312-cp312-manylinux_2_28_x86_64.whl", false},
		{"legacy alias counts as its level", "manylinux2014_x86_64", "3.12", []string{
			"x-1-cp312-cp312-manylinux2010_x86_64.whl", "x-1-cp312-cp312-manylinux_2_24_x86_64.whl"},
			"x-1-cp312-cp312-manylinux2010_x86_64.whl", false},
		{"compressed tag set", "manylinux_2_17_x86_64", "3.12", []string{
			"x-1-cp312-cp312-manylinux_2_28_x86_64.manylinux2014_x86_64.whl"},
			"x-1-cp312-cp312-manylinux_2_28_x86_64.manylinux2014_x86_64.whl", false},
		{"musllinux is not glibc", "manylinux_x86_64", "3.12", []string{
			"x-1-cp312-cp312-musllinux_1_2_x86_64.whl"}, "", false},
		{"musllinux level", "musllinux_1_1_x86_64", "3.12", []string{
			"x-1-cp312-cp312-musllinux_1_2_x86_64.whl", "x-1-cp312-cp312-musllinux_1_1_x86_64.whl", "x-1-cp312-cp312-manylinux_2_17_x86_64.whl"},
			"x-1-cp312-cp312-musllinux_1_1_x86_64.whl", false},
		{"linux_ARCH last", "manylinux_x86_64", "3.12", []string{
			"x-1-cp312-cp312-linux_x86_64.whl", "x-1-cp312-cp312-manylinux1_x86_64.whl"},
			"x-1-cp312-cp312-manylinux1_x86_64.whl", false},
		{"free-threaded never", "manylinux_x86_64", "3.13", []string{
			"x-1-cp313-cp313t-manylinux_2_17_x86_64.whl"}, "", false},
		{"other minor's cp wheel never", "manylinux_x86_64", "3.12", []string{
			"x-1-cp311-cp311-manylinux_2_17_x86_64.whl", "x-1-cp313-cp313-manylinux_2_17_x86_64.whl"}, "", false},
		{"any Python: the newest CPython", "manylinux_x86_64", "", []string{
			"x-1-cp311-cp311-manylinux_2_17_x86_64.whl", "x-1-cp313-cp313-manylinux_2_17_x86_64.whl", "x-1-cp39-abi3-manylinux_2_17_x86_64.whl"},
			"x-1-cp313-cp313-manylinux_2_17_x86_64.whl", false},
		{"higher build tag wins a tie", "manylinux_x86_64", "3.12", []string{
			"x-1-1-cp312-cp312-manylinux_2_17_x86_64.whl", "x-1-10-cp312-cp312-manylinux_2_17_x86_64.whl", "x-1-cp312-cp312-manylinux_2_17_x86_64.whl"},
			"x-1-10-cp312-cp312-manylinux_2_17_x86_64.whl", false},
		{"noarch: pure only", "noarch", "3.12", []string{
			"x-1-cp312-cp312-manylinux_2_17_x86_64.whl", "x-1-py3-none-any.whl"}, "x-1-py3-none-any.whl", true},
		{"sdists and junk never", "manylinux_x86_64", "3.12", []string{
			"x-1.tar.gz", "x-1-cp312.whl", "x-1-cp312-cp312-manylinux_2_17_x86_64.zip"}, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := wheel.Choose(target(t, tt.platform, tt.python), files(tt.files...))
			got := ""
			if c.Found {
				got = c.File.Name
			}
			if got != tt.want || c.Found && c.Pure != tt.pure {
				t.Errorf("Choose = %q (pure %v), want %q (pure %v)", got, c.Pure, tt.want, tt.pure)
			}
		})
	}
}

// TestChooseRequiresPython skips, as pip does, wheels whose Requires-Python
// rules out the target's Python: here the cp312 wheel of a release that
// dropped 3.12 in metadata only, so pip falls back to the abi3 wheel built
// before; an unparsable specifier is ignored, and no target Python checks
// nothing.
func TestChooseRequiresPython(t *testing.T) {
	fs := files("x-1-cp312-cp312-manylinux_2_17_x86_64.whl", "x-1-cp39-abi3-manylinux_2_17_x86_64.whl")
	fs[0].RequiresPython = ">=3.13"
	fs[1].RequiresPython = ">=3.9"
	if c := wheel.Choose(target(t, "linux-64", "3.12"), fs); c.File.Name != fs[1].Name || c.Excluded != 1 {
		t.Errorf("Choose = %+v", c)
	}
	if c := wheel.Choose(target(t, "linux-64", "3.13"), fs); c.File.Name != fs[1].Name || c.Excluded != 0 {
		t.Errorf("3.13: Choose = %+v (abi3 outranks a cp312 wheel on 3.13)", c)
	}
	if c := wheel.Choose(target(t, "linux-64", ""), fs); c.File.Name != fs[0].Name {
		t.Errorf("any Python: Choose = %+v", c)
	}
	fs[0].RequiresPython = "~=3" // ~= needs two release components
	if c := wheel.Choose(target(t, "linux-64", "3.12"), fs); c.File.Name != fs[0].Name {
		t.Errorf("unparsable Requires-Python: Choose = %+v", c)
	}
	fs[0].RequiresPython, fs[1].RequiresPython = ">=3.13", ">=3.13"
	c := wheel.Choose(target(t, "linux-64", "3.12"), fs)
	if c.Found {
		t.Errorf("Choose = %+v, want none", c)
	}
	if got, want := c.Warning("1"), "1 has no wheel for manylinux x86_64 (any glibc), CPython 3.12: 2 wheels require Python >=3.13"; got != want {
		t.Errorf("Warning = %q, want %q", got, want)
	}
}

func TestChooseSkipsYanked(t *testing.T) {
	fs := files("x-1-cp312-cp312-manylinux_2_17_x86_64.whl", "x-1-cp39-abi3-manylinux_2_17_x86_64.whl")
	fs[0].Yanked = true
	c := wheel.Choose(target(t, "linux-64", "3.12"), fs)
	if c.File.Name != fs[1].Name || c.Binary != 1 {
		t.Errorf("Choose = %+v", c)
	}
}

// TestChoiceWarning: a release with binary wheels but none for the target
// says so, whether pip would fall back to its pure wheel or find nothing;
// a pure-only release and a fitting binary wheel say nothing.
func TestChoiceWarning(t *testing.T) {
	tg := target(t, "manylinux_2_36_x86_64", "3.12")
	tests := []struct {
		files []string
		want  string
	}{
		{[]string{"x-1-cp312-cp312-manylinux_2_17_x86_64.whl"}, ""},
		{[]string{"x-1-py3-none-any.whl"}, ""},
		{[]string{"x-1-cp312-cp312-win_amd64.whl", "x-1-cp312-cp312-macosx_11_0_arm64.whl", "x-1-py3-none-any.whl"},
			"1 has 2 binary wheels, none for manylinux_2_36_x86_64, CPython 3.12; pip would install the pure wheel x-1-py3-none-any.whl"},
		{[]string{"x-1-cp312-cp312-win_amd64.whl"}, "1 has 1 binary wheel, none for manylinux_2_36_x86_64, CPython 3.12, and no pure wheel"},
		{[]string{"x-1.tar.gz"}, "1 has no wheel"},
	}
	for _, tt := range tests {
		if got := wheel.Choose(tg, files(tt.files...)).Warning("1"); got != tt.want {
			t.Errorf("%v: Warning = %q, want %q", tt.files, got, tt.want)
		}
	}
}

func TestParsePlatform(t *testing.T) {
	for in, want := range map[string]string{
		"manylinux_2_17_x86_64":    "manylinux_2_17_x86_64",
		"manylinux2014_x86_64":     "manylinux_2_17_x86_64",
		"manylinux1_i686":          "manylinux_2_5_i686",
		"manylinux_x86_64":         "manylinux x86_64 (any glibc)",
		"linux-64":                 "manylinux x86_64 (any glibc)",
		"musllinux_1_2_aarch64":    "musllinux_1_2_aarch64",
		"macosx_arm64":             "macosx arm64 (any macOS)",
		"osx-arm64":                "macosx arm64 (any macOS)",
		"macosx_11_0_arm64":        "macosx_11_0_arm64",
		"win_amd64":                "win_amd64",
		"win-32":                   "win32",
		"linux_x86_64":             "linux_x86_64",
		"emscripten_3_1_58_wasm32": "emscripten_3_1_58_wasm32",
	} {
		p, err := wheel.ParsePlatform(in)
		if err != nil || p.String() != want {
			t.Errorf("ParsePlatform(%q) = %v, %v; want %s", in, p, err, want)
		}
	}
	for _, bad := range []string{"", "Linux x86", "manylinux_2_17_x86_64!", "plan9_amd64", "linux64"} {
		if _, err := wheel.ParsePlatform(bad); err == nil || !strings.Contains(err.Error(), "expected") {
			t.Errorf("ParsePlatform(%q) = %v", bad, err)
		}
	}
	// Spelt like tags, but no wheel can carry them.
	for bad, why := range map[string]string{
		"manylinux_2_17_x86_65":   `"x86_65" is not a Linux architecture`,
		"manylinux_x86":           `"x86" is not a Linux architecture`,
		"manylinux2014_arm64":     `"arm64" is not a Linux architecture`,
		"manylinux_3_1_x86_64":    "there is no glibc 3",
		"musllinux_2_0_aarch64":   "there is no musl 2",
		"macosx_11_0_aarch64":     `"aarch64" is not a macOS architecture`,
		"macosx_9_0_x86_64":       "there is no macOS 9",
		"linux_amd64":             `"amd64" is not a Linux architecture`,
		"macosx_14_0_universal3":  `"universal3" is not a macOS architecture`,
		"musllinux_1_2_i386":      `"i386" is not a Linux architecture`,
		"manylinux_2_28_riscv128": `"riscv128" is not a Linux architecture`,
	} {
		if _, err := wheel.ParsePlatform(bad); err == nil || !strings.Contains(err.Error(), "cannot exist: ") || !strings.Contains(err.Error(), why) {
			t.Errorf("ParsePlatform(%q) = %v, want %s", bad, err, why)
		}
	}
	for _, ok := range []string{"ios_13_0_arm64_iphoneos", "android_21_arm64_v8a", "pyodide_2024_0_wasm32", "freebsd_14_0_amd64",
		"manylinux_2_39_riscv64", "macosx_10_9_universal2", "musllinux_1_1_ppc64le", "linux_armv7l", "win_arm64"} {
		if _, err := wheel.ParsePlatform(ok); err != nil {
			t.Errorf("ParsePlatform(%q): %v", ok, err)
		}
	}
	for in, want := range map[string]string{"3.12": "3.12", "cp39": "3.9", "cp313": "3.13"} {
		if got, err := wheel.ParsePython(in); err != nil || got != want {
			t.Errorf("ParsePython(%q) = %q, %v", in, got, err)
		}
	}
	for _, bad := range []string{"3", "py3", "cp2", "3.12.1", "pp310"} {
		if _, err := wheel.ParsePython(bad); err == nil {
			t.Errorf("ParsePython(%q) succeeded", bad)
		}
	}
}

func TestNativePlatform(t *testing.T) {
	tests := []struct{ goos, goarch, libc, want string }{
		{"linux", "amd64", "glibc 2.36", "manylinux_2_36_x86_64"},
		{"linux", "amd64", "", "manylinux x86_64 (any glibc)"},
		{"linux", "arm64", "musl 1.2.4", "musllinux_1_2_aarch64"},
		{"darwin", "arm64", "", "macosx arm64 (any macOS)"},
		{"windows", "amd64", "", "win_amd64"},
	}
	for _, tt := range tests {
		p, ok := wheel.NativePlatform(tt.goos, tt.goarch, tt.libc)
		if !ok || p.String() != tt.want {
			t.Errorf("NativePlatform(%s, %s, %q) = %v, %v; want %s", tt.goos, tt.goarch, tt.libc, p, ok, tt.want)
		}
	}
	if _, ok := wheel.NativePlatform("plan9", "amd64", ""); ok {
		t.Error("plan9 has a wheel platform")
	}
}

// FuzzChoose: any file names and platform never panic, and the choice is one
// of the files, installable on the target.
func FuzzChoose(f *testing.F) {
	f.Add("x-1-cp312-cp312-manylinux_2_17_x86_64.whl\nx-1-py3-none-any.whl", "manylinux_2_28_x86_64", "3.12")
	f.Add("x-1-cp39-abi3-macosx_10_9_universal2.whl\nx-1-1-cp312-cp312-win_amd64.whl", "osx-arm64", "cp312")
	f.Add("x-1-cp37-cp37m-manylinux1_x86_64.whl", "linux_x86_64", "")
	f.Fuzz(func(t *testing.T, names, platform, python string) {
		p, err := wheel.ParsePlatform(platform)
		if err != nil {
			return
		}
		if python != "" {
			if python, err = wheel.ParsePython(python); err != nil {
				return
			}
		}
		fs := files(strings.Split(names, "\n")...)
		c := wheel.Choose(wheel.Target{Python: python, Platform: p}, fs)
		_ = c.Warning("1")
		if !c.Found {
			return
		}
		if _, err := wheel.Parse(c.File.Name); err != nil || !strings.Contains(names, c.File.Name) {
			t.Errorf("chose %q from %q: %v", c.File.Name, names, err)
		}
		if c.Binary > c.Wheels {
			t.Errorf("%d binary of %d wheels", c.Binary, c.Wheels)
		}
	})
}
