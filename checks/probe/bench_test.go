package probe

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"testing"
)

// The benchmarks compare a probe run that must create its environment (a venv and
// an install of numba 0.67.0 from the test wheel directory) with one that reuses
// it from the cache. Run them with
//
//	go test ./checks/probe -run '^$' -bench 'BenchmarkProbe(Cold|Warm)' -benchtime 5x
//
// (PINBOT_PYTHON=/usr/bin/python3 to pick the interpreter). The interpreter is
// resolved to its real executable first, as CI passes one: through a pyenv shim
// every run pays about 150 ms more for "pyenv exec", cached or not.

var benchPy = sync.OnceValues(func() (string, error) {
	out, err := exec.Command(testPythonPath(), "-c", "import sys; print(sys.executable)").Output()
	return strings.TrimSpace(string(out)), err
})

func benchOpts(b *testing.B, cache string) Options {
	testPython(b) // skip or fail without python3
	py, err := benchPy()
	if err != nil {
		b.Fatal(err)
	}
	return Options{
		Package: "numba", Candidate: "0.67.0", Specs: []Spec{{Preset: "numba-unique-ids"}},
		Index: getFixtures(b).dir, Python: py, CacheDir: cache, TempDir: b.TempDir(),
	}
}

func benchRun(b *testing.B, opts Options) {
	rep, err := Run(context.Background(), opts)
	if err != nil {
		b.Fatal(err)
	}
	if rep.Verdict != OK {
		b.Fatalf("verdict %s:\n%s", rep.Verdict, rep.Markdown())
	}
}

func BenchmarkProbeCold(b *testing.B) {
	for i := 0; i < b.N; i++ {
		benchRun(b, benchOpts(b, b.TempDir())) // an empty cache every time
	}
}

func BenchmarkProbeWarm(b *testing.B) {
	opts := benchOpts(b, b.TempDir())
	benchRun(b, opts) // fill the cache
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		benchRun(b, opts)
	}
}

// BenchmarkProbeWarmIndex is BenchmarkProbeWarm against an HTTP index: each
// run revalidates the index pages of the resolution (here a server without
// validators, so the pages are read and their digests compared).
func BenchmarkProbeWarmIndex(b *testing.B) {
	opts := benchOpts(b, b.TempDir())
	opts.Index = getFixtures(b).indexURL
	benchRun(b, opts)
	// The second run resolves once more to take the validators of the
	// pages the first resolution found new; from the third on, runs are
	// warm as a weekly run over an unchanged index is.
	benchRun(b, opts)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		benchRun(b, opts)
	}
}

// BenchmarkResolveInstaller is the resolution step when something changed:
// pip install --dry-run --report for numba 0.67.0 from the wheel directory.
func BenchmarkResolveInstaller(b *testing.B) {
	opts := benchOpts(b, b.TempDir())
	if err := checkOptions(&opts); err != nil {
		b.Fatal(err)
	}
	py, err := queryPython(context.Background(), &opts)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := runResolver(context.Background(), &opts, py, "0.67.0", nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkResolveRevalidate is the resolution step of a warm run against an
// HTTP index: one conditional request per distribution of the resolution.
func BenchmarkResolveRevalidate(b *testing.B) {
	opts := benchOpts(b, b.TempDir())
	opts.Index = getFixtures(b).indexURL
	if err := checkOptions(&opts); err != nil {
		b.Fatal(err)
	}
	py, err := queryPython(context.Background(), &opts)
	if err != nil {
		b.Fatal(err)
	}
	// Twice: the first resolution finds every page new and keeps no
	// validator fetched after pip read it; the second takes them all first.
	for range 2 {
		if _, err := resolve(context.Background(), &opts, py, "0.67.0"); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if cachedResolution(context.Background(), &opts, py, "0.67.0") == nil {
			b.Fatal("the resolution was not reused")
		}
	}
}

// benchUseWheels are usebench 1.0 and 1.1: 40 modules of 25 functions and 5
// classes each, for the 2,000 uses of BenchmarkUsesWarm.
func benchUseWheels() []testWheel {
	var mod strings.Builder
	for f := 0; f < 25; f++ {
		fmt.Fprintf(&mod, "def f%02d(a, b=1, *, c=None):\n    return a\n\n\n", f)
	}
	for c := 0; c < 5; c++ {
		fmt.Fprintf(&mod, "class C%02d:\n    KIND = %d\n\n    def __init__(self, value):\n        self.value = value\n\n    def run(self, n):\n        return n\n\n\n", c, c)
	}
	files := map[string]string{}
	for m := 0; m < 40; m++ {
		files[fmt.Sprintf("usebench/m%02d.py", m)] = mod.String()
	}
	out := []testWheel{}
	for _, v := range []string{"1.0", "1.1"} {
		fs := map[string]string{"usebench/__init__.py": fmt.Sprintf("__version__ = %q\n", v)}
		for p, s := range files {
			fs[p] = s
		}
		out = append(out, testWheel{"usebench", v, fs})
	}
	return out
}

// benchUses are 2,000 distinct uses of usebench, 50 per module: calls of
// its functions with a keyword, constructor calls, method calls through
// instances, instance and class attributes, patch targets.
func benchUses() []Use {
	var uses []Use
	for m := 0; m < 40; m++ {
		mod := fmt.Sprintf("usebench.m%02d", m)
		for f := 0; f < 25; f++ {
			uses = append(uses, Use{Module: mod, Attrs: []string{fmt.Sprintf("f%02d", f)}, Call: &UseCall{Positional: 1, Keywords: []string{"c"}}})
		}
		for c := 0; c < 5; c++ {
			cls := fmt.Sprintf("C%02d", c)
			uses = append(uses,
				Use{Module: mod, Attrs: []string{cls}, Import: true, Call: &UseCall{Positional: 1}},
				Use{Module: mod, Attrs: []string{cls, "run"}, Instance: true, Call: &UseCall{Positional: 1, Bound: true}},
				Use{Module: mod, Attrs: []string{cls, "value"}, Instance: true},
				Use{Module: mod, Attrs: []string{cls, "KIND"}},
				Use{Target: mod + "." + cls + ".run", Assign: true})
		}
	}
	return uses
}

// BenchmarkUsesWarm is a warm dynamic run (environments cached) of
// usebench 1.0 against 1.1 with one probe, without uses and with 2,000:
// the difference is what checking the uses adds. Run it with
//
//	go test ./checks/probe -run '^$' -bench BenchmarkUsesWarm -benchtime 5x
func BenchmarkUsesWarm(b *testing.B) {
	for _, n := range []int{0, 2000} {
		b.Run(fmt.Sprintf("uses=%d", n), func(b *testing.B) {
			opts := benchOpts(b, b.TempDir())
			opts.Package, opts.Baseline, opts.Candidate = "usebench", "1.0", "1.1"
			opts.Specs = []Spec{{Path: "usebench.m00.f00", Expect: "callable"}}
			opts.Uses = benchUses()[:n]
			run := func() {
				rep, err := Run(context.Background(), opts)
				if err != nil {
					b.Fatal(err)
				}
				if rep.Verdict != OK || len(rep.Uses) != n {
					b.Fatalf("verdict %s, %d uses:\n%s", rep.Verdict, len(rep.Uses), rep.Markdown())
				}
			}
			run() // fill the cache
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				run()
			}
		})
	}
}
