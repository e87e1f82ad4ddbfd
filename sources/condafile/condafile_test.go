package condafile_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pinbot-dev/pinbot/sources"
	"github.com/pinbot-dev/pinbot/sources/condafile"
)

func file(name, subdir string, number int, depends ...string) sources.File {
	stem := strings.TrimSuffix(name, ".conda")
	build := stem[strings.LastIndexByte(stem, '-')+1:]
	return sources.File{Name: name, Subdir: subdir, Kind: sources.KindConda, Build: build, BuildNumber: number, Depends: depends}
}

func TestPythonOf(t *testing.T) {
	for _, tt := range []struct {
		f    sources.File
		py   string
		tied bool
	}{
		{file("numba-0.61.0-py312h6e6e5ba_0.conda", "linux-64", 0, "python >=3.12,<3.13.0a0", "python_abi 3.12.* *_cp312"), "3.12", true},
		{file("x-1-h0_0.conda", "linux-64", 0, "python >=3.11,<3.12.0a0"), "3.11", true},
		{file("x-1-h0_0.conda", "linux-64", 0, "python 3.10.*"), "3.10", true},
		{file("x-1-h0_0.conda", "linux-64", 0, "python_abi 3.13.* *_cp313t", "python >=3.13,<3.14.0a0"), "3.13t", true},
		{file("x-1-cpu_py39h0_0.conda", "linux-64", 0), "3.9", true},
		{file("x-1-pyhd8ed1ab_0.conda", "noarch", 0, "python >=3.9"), "", false},
		{file("libprotobuf-5.28.3-h6128344_0.conda", "linux-64", 0, "libgcc >=13", "libzlib >=1.3.1,<2.0a0"), "", false},
		{file("x-1-h0_0.conda", "linux-64", 0, "python >=3.9,<3.13"), "", false}, // a range of Pythons is no one build
	} {
		py, tied := condafile.PythonOf(tt.f)
		if py != tt.py || tied != tt.tied {
			t.Errorf("PythonOf(%s %q) = %q, %v; want %q, %v", tt.f.Name, tt.f.Depends, py, tied, tt.py, tt.tied)
		}
	}
}

// tensorflow on conda-forge: CPU and CUDA builds for three Pythons, a
// respin, .conda and .tar.bz2 copies, a broken build, other subdirs.
func tensorflowFiles() []sources.File {
	py := func(minor string) []string {
		n, _ := strconv.Atoi(minor)
		return []string{fmt.Sprintf("python >=3.%d,<3.%d.0a0", n, n+1), "python_abi 3." + minor + ".* *_cp3" + minor}
	}
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	fs := []sources.File{
		file("tensorflow-2.18.0-cpu_py311h1_0.conda", "linux-64", 0, py("11")...),
		file("tensorflow-2.18.0-cpu_py312h1_0.conda", "linux-64", 0, py("12")...),
		file("tensorflow-2.18.0-cpu_py312h1_1.conda", "linux-64", 1, py("12")...),
		file("tensorflow-2.18.0-cuda126py312h1_201.conda", "linux-64", 201, append(py("12"), "__cuda")...),
		file("tensorflow-2.18.0-cpu_py313h1_0.conda", "linux-64", 0, py("13")...),
		file("tensorflow-2.18.0-cpu_py313h1_3.conda", "linux-64", 3, py("13")...),
		file("tensorflow-2.18.0-cpu_py312h1_0.conda", "osx-arm64", 0, py("12")...),
	}
	fs[5].Yanked = true // the respin was pulled
	bz2 := fs[2]
	bz2.Name = "tensorflow-2.18.0-cpu_py312h1_1.tar.bz2"
	bz2.Time = now
	fs = append(fs, bz2)
	return fs
}

func TestChoose(t *testing.T) {
	files := tensorflowFiles()
	for _, tt := range []struct {
		target  condafile.Target
		want    string
		python  string
		warning string
	}{
		// The newest Python with a good build is 3.13 (its respin _3 is broken).
		{condafile.Target{}, "tensorflow-2.18.0-cpu_py313h1_0.conda", "3.13", ""},
		// The highest CPU build number, .conda before .tar.bz2; the CUDA
		// build needs a GPU driver.
		{condafile.Target{Python: "3.12"}, "tensorflow-2.18.0-cpu_py312h1_1.conda", "3.12", ""},
		{condafile.Target{Subdir: "osx-arm64", Python: "3.12"}, "tensorflow-2.18.0-cpu_py312h1_0.conda", "3.12", ""},
		{condafile.Target{Python: "3.10"}, "", "", "tensorflow 2.18.0 has no linux-64 build for Python 3.10 (builds for Python 3.11, 3.12, 3.13)"},
		{condafile.Target{Subdir: "win-64"}, "", "", "tensorflow 2.18.0 has no conda package for win-64 (only for linux-64, osx-arm64)"},
	} {
		c := condafile.Choose(tt.target, files)
		if c.File.Name != tt.want || c.Found != (tt.want != "") || c.Python != tt.python || c.Warning("tensorflow 2.18.0") != tt.warning {
			t.Errorf("Choose(%s) = %s %q, warning %q; want %s %q, %q", tt.target, c.File.Name, c.Python, c.Warning("tensorflow 2.18.0"), tt.want, tt.python, tt.warning)
		}
	}
	// With only CUDA builds for the Python, the CUDA build is read.
	cudaOnly := []sources.File{files[3]}
	if c := condafile.Choose(condafile.Target{Python: "3.12"}, cudaOnly); c.File.Name != files[3].Name {
		t.Errorf("CUDA only: %+v", c)
	}
	// noarch serves any subdir that has no file of its own.
	noarch := []sources.File{file("numpy-stubs-1.0-pyhd8ed1ab_0.conda", "noarch", 0, "python >=3.9")}
	if c := condafile.Choose(condafile.Target{Subdir: "linux-aarch64", Python: "3.11"}, noarch); !c.Found || c.Python != "" ||
		c.Describe() != "numpy-stubs-1.0-pyhd8ed1ab_0.conda (noarch, build 0)" {
		t.Errorf("noarch: %+v %q", c, c.Describe())
	}
	if c := condafile.Choose(condafile.Target{}, nil); c.Found || c.Warning("x 1") != "x 1 has no conda package file" {
		t.Errorf("no files: %+v", c)
	}
	if got := condafile.Choose(condafile.Target{Python: "3.12"}, files).Describe(); got != "tensorflow-2.18.0-cpu_py312h1_1.conda (linux-64, Python 3.12, build 1)" {
		t.Errorf("Describe = %q", got)
	}
}

func TestExactPins(t *testing.T) {
	got := condafile.ExactPins([]string{
		"tensorflow-base 2.18.0 cpu_py312h1a2b3c4_1",
		"tensorflow-estimator ==2.15.0",
		"libtensorflow_cc==2.18.0",
		"keras 3.6.0",
		"python >=3.12,<3.13.0a0",
		"python_abi 3.12.* *_cp312",
		"libgcc >=13",
		"numpy",
		"__cuda",
		"__glibc 2.17",
		"pytorch 2.5.1 cuda*",
		"bad 1.0 [x",
		"conda-forge::x 1.0",
	})
	want := []condafile.Pin{
		{Name: "tensorflow-base", Version: "2.18.0", Build: "cpu_py312h1a2b3c4_1"},
		{Name: "tensorflow-estimator", Version: "2.15.0"},
		{Name: "libtensorflow_cc", Version: "2.18.0"},
		{Name: "keras", Version: "3.6.0"},
		{Name: "pytorch", Version: "2.5.1", Build: "cuda*"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ExactPins (-want +got):\n%s", diff)
	}
	p := want[4]
	if !p.Matches("2.5.1", sources.File{Build: "cuda126_h1_0"}) || p.Matches("2.5.1", sources.File{Build: "cpu_h1_0"}) || p.Matches("2.5.0", sources.File{Build: "cuda126_h1_0"}) {
		t.Error("Pin.Matches")
	}
	if want[0].String() != "tensorflow-base 2.18.0 cpu_py312h1a2b3c4_1" || want[1].String() != "tensorflow-estimator 2.15.0" {
		t.Errorf("String: %q %q", want[0].String(), want[1].String())
	}
}

// FuzzExactPins: any run requirements and build strings, as a channel may
// list them, never panic; every pin is a plain name and version that the
// requirement it came from spells, and Choose picks one of the files given,
// for the subdir asked or noarch, never a yanked one.
func FuzzExactPins(f *testing.F) {
	f.Add("tensorflow-base 2.18.0 cpu_py312h1a2b3c4_0\npython_abi 3.12.* *_cp312\n__glibc >=2.17", "cpu_py312h1a2b3c4_0", "3.12")
	f.Add("libprotobuf==5.28.3\npython >=3.11,<3.12.0a0\nx 1.0 [", "py311h0_0", "")
	f.Add("numba 0.61.*\ncuda-version >=12\n__cuda", "cuda120py313h0_1", "3.13t")
	f.Fuzz(func(t *testing.T, depends, build, python string) {
		deps := strings.Split(depends, "\n")
		for _, p := range condafile.ExactPins(deps) {
			if p.Name == "" || p.Version == "" || strings.ContainsAny(p.Name+p.Version, " *<>=,|") {
				t.Errorf("pin %+v from %q", p, deps)
			}
			if !strings.Contains(strings.ToLower(depends), p.Name) || !strings.Contains(depends, p.Version) {
				t.Errorf("pin %+v is not in %q", p, deps)
			}
			_ = p.Matches(p.Version, sources.File{Build: build})
		}
		files := []sources.File{
			{Name: "x-1-" + build + ".conda", Subdir: "linux-64", Build: build, Depends: deps},
			{Name: "x-1-" + build + ".tar.bz2", Subdir: "noarch", Build: build, Depends: deps},
			{Name: "x-1-" + build + "_y.conda", Subdir: "linux-64", Build: build + "_y", Depends: deps, Yanked: true},
		}
		c := condafile.Choose(condafile.Target{Python: python}, files)
		_, _ = c.Describe(), c.Warning("x 1")
		if c.Found && (c.File.Yanked || c.File.Subdir != "linux-64") {
			t.Errorf("chose %+v", c.File)
		}
		_, _ = condafile.PythonOf(files[0])
	})
}
