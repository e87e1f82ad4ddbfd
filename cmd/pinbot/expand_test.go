package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/pinbot-dev/pinbot/bot/report"
	"github.com/pinbot-dev/pinbot/internal/corpus"
	"github.com/pinbot-dev/pinbot/internal/fakes"
)

// An expandPin is a pin of an expandRepo: the requirement as written, where,
// and what it becomes under each cap strategy. A pin with keeps is left as
// written under inclusive and exclusive, with keeps in the reason (held if
// held is set), and under preserve too unless preserve is set.
type expandPin struct {
	pkg, file, before    string
	inclusive, exclusive string
	preserve             string
	keeps                string
	held                 bool
}

// An expandRepo is a repository shaped like real ones: corpus files
// (internal/corpus, byte for byte) and testdata/expand (see its README),
// at paths like theirs.
type expandRepo struct {
	name   string
	tree   string            // under testdata/expand, copied to the root
	corpus map[string]string // repository path -> corpus file
	setup  func(e *env)
	config string
	pins   []expandPin
}

var expandRepos = []expandRepo{
	{
		name: "poetry",
		tree: "poetry",
		corpus: map[string]string{
			"mlwrap/pyproject.toml": "RToTheP__mlwrap__pyproject.toml",
		},
		setup: func(e *env) {
			e.pypi.Add("matplotlib", fakes.Release{Version: "3.10.7"}, fakes.Release{Version: "4.0.0"})
			e.pypi.Add("formulaic", fakes.Release{Version: "1.2.0"}, fakes.Release{Version: "1.2.1"})
			e.pypi.Add("pandas", fakes.Release{Version: "1.5.3"}, fakes.Release{Version: "2.3.3"})
			e.pypi.Add("scipy", fakes.Release{Version: "1.0.0"}, fakes.Release{Version: "1.16.2"})
		},
		config: "packages:\n  matplotlib: {}\n  formulaic: {}\n  pandas: {}\n  scipy: {}\n  numba: {}\n",
		pins: []expandPin{
			{pkg: "matplotlib", file: "pyfixest/pyproject.toml", before: `matplotlib = "^3.7"`,
				inclusive: `matplotlib = ">=3.7,<=4.0.0"`, exclusive: `matplotlib = ">=3.7,<4.1"`, preserve: `matplotlib = "^4.0"`},
			{pkg: "formulaic", file: "pyfixest/pyproject.toml", before: `formulaic = "^0.6.0"`,
				inclusive: `formulaic = ">=0.6.0,<=1.2.1"`, exclusive: `formulaic = ">=0.6.0,<1.2.2"`, preserve: `formulaic = "^1.2.1"`},
			{pkg: "pandas", file: "pyfixest/pyproject.toml", before: `pandas="^1.4"`,
				inclusive: `pandas=">=1.4,<=2.3.3"`, exclusive: `pandas=">=1.4,<2.4"`, preserve: `pandas="^2.3"`},
			// Poetry's bare version is an exact pin, not a range: not expanded
			{pkg: "pandas", file: "mlwrap/pyproject.toml", before: `pandas = "1.3"`, keeps: "exact pin 1.3", held: true, preserve: `pandas = "2.3.3"`},
			{pkg: "scipy", file: "pyfixest/pyproject.toml", before: `scipy = "^1.0.0"`, keeps: "^1.0.0 already admits 1.16.2"},
			{pkg: "numba", file: "mlwrap/pyproject.toml", before: `numba = { version = "^0.56.0", optional = true }`,
				inclusive: `numba = { version = ">=0.56.0,<=0.67.0", optional = true }`,
				exclusive: `numba = { version = ">=0.56.0,<0.67.1", optional = true }`,
				preserve:  `numba = { version = "^0.67.0", optional = true }`},
		},
	},
	{
		name: "requirements",
		tree: "requirements",
		corpus: map[string]string{
			"jax/build/requirements.in":       "jax-ml__jax__build__requirements.in",
			"jax/build/test-requirements.txt": "jax-ml__jax__build__test-requirements.txt",
		},
		setup: func(e *env) {
			e.pypi.Add("jax", fakes.Release{Version: "0.4.38"}, fakes.Release{Version: "0.8.0"})
			e.pypi.Add("easydict", fakes.Release{Version: "1.11"}, fakes.Release{Version: "1.13"})
			e.pypi.Add("nvidia-cudnn-cu12", fakes.Release{Version: "8.9.7.29"}, fakes.Release{Version: "9.1.0.70"})
			e.pypi.Add("flax", fakes.Release{Version: "0.8.5"}, fakes.Release{Version: "0.12.0"})
			e.pypi.Add("h5py", fakes.Release{Version: "3.10.0"})
			e.pypi.Add("numpy", fakes.Release{Version: "2.0.2"}, fakes.Release{Version: "2.3.4"})
		},
		config: "packages:\n  jax: {}\n  easydict: {}\n  nvidia-cudnn-cu12: {}\n  flax: {}\n  h5py: {}\n  numpy: {}\n",
		pins: []expandPin{
			// two-part ~= (as jax~=0.9) with a marker: cuDNN 9 is the release
			// the file's own comment is about
			{pkg: "nvidia-cudnn-cu12", file: "tensorrt-llm/examples/gemma/requirements.txt", before: `nvidia-cudnn-cu12~=8.9; platform_machine == "x86_64"`,
				inclusive: `nvidia-cudnn-cu12>=8.9,<=9.1.0.70; platform_machine == "x86_64"`,
				exclusive: `nvidia-cudnn-cu12>=8.9,<9.2; platform_machine == "x86_64"`,
				preserve:  `nvidia-cudnn-cu12~=9.1; platform_machine == "x86_64"`},
			// a two-part ~= admits the next minor releases: left alone
			{pkg: "easydict", file: "tensorrt-llm/examples/gemma/requirements.txt", before: "easydict~=1.11", keeps: "~=1.11 already admits 1.13"},
			{pkg: "easydict", file: "tensorrt-llm@0.9.0.dev2024031900/examples/gemma/requirements.txt", before: "easydict~=1.11", keeps: "already admits"},
			// three-part ~= with a marker; the commented-out jax line stays
			{pkg: "jax", file: "tensorrt-llm/examples/gemma/requirements.txt", before: `jax~=0.4.19; platform_system == "Windows"`,
				inclusive: `jax>=0.4.19,<=0.8.0; platform_system == "Windows"`, exclusive: `jax>=0.4.19,<0.8.1; platform_system == "Windows"`,
				preserve: `jax~=0.8.0; platform_system == "Windows"`},
			// extras and a marker kept
			{pkg: "jax", file: "tensorrt-llm@0.9.0.dev2024031900/examples/gemma/requirements.txt", before: `jax[cuda12_pip]~=0.4.19; platform_system != "Windows"`,
				inclusive: `jax[cuda12_pip]>=0.4.19,<=0.8.0; platform_system != "Windows"`, exclusive: `jax[cuda12_pip]>=0.4.19,<0.8.1; platform_system != "Windows"`,
				preserve: `jax[cuda12_pip]~=0.8.0; platform_system != "Windows"`},
			{pkg: "jax", file: "tensorrt-llm@0.9.0.dev2024031900/examples/gemma/requirements.txt", before: `jax~=0.4.19; platform_system == "Windows"`,
				inclusive: `jax>=0.4.19,<=0.8.0; platform_system == "Windows"`, exclusive: `jax>=0.4.19,<0.8.1; platform_system == "Windows"`,
				preserve: `jax~=0.8.0; platform_system == "Windows"`},
			{pkg: "flax", file: "tensorrt-llm/examples/gemma/requirements.txt", before: "flax~=0.8.0",
				inclusive: "flax>=0.8.0,<=0.12.0", exclusive: "flax>=0.8.0,<0.12.1", preserve: "flax~=0.12.0"},
			{pkg: "flax", file: "tensorrt-llm@0.9.0.dev2024031900/examples/gemma/requirements.txt", before: "flax~=0.8.0",
				inclusive: "flax>=0.8.0,<=0.12.0", exclusive: "flax>=0.8.0,<0.12.1", preserve: "flax~=0.12.0"},
			{pkg: "h5py", file: "tensorrt-llm/examples/gemma/requirements.txt", before: "h5py~=3.10.0", keeps: "~=3.10.0 already admits 3.10.0"},
			{pkg: "h5py", file: "tensorrt-llm@0.9.0.dev2024031900/examples/gemma/requirements.txt", before: "h5py~=3.10.0", keeps: "already admits"},
			// a pip-compile input, marker-split
			{pkg: "numpy", file: "jax/build/requirements.in", before: `numpy~=2.0.0; python_version<="3.12"`,
				inclusive: `numpy>=2.0.0,<=2.3.4; python_version<="3.12"`, exclusive: `numpy>=2.0.0,<2.3.5; python_version<="3.12"`,
				preserve: `numpy~=2.3.4; python_version<="3.12"`},
			{pkg: "numpy", file: "jax/build/requirements.in", before: `numpy~=2.1.0; python_version>="3.13"`,
				inclusive: `numpy>=2.1.0,<=2.3.4; python_version>="3.13"`, exclusive: `numpy>=2.1.0,<2.3.5; python_version>="3.13"`,
				preserve: `numpy~=2.3.4; python_version>="3.13"`},
		},
	},
	{
		name: "conda",
		corpus: map[string]string{
			"numba-feedstock/recipe/meta.yaml": "conda-forge__numba-feedstock__recipe__meta.yaml",
			"numba/docs/environment.yml":       "numba__numba__docs__environment.yml",
		},
		setup: func(e *env) {
			c := fakes.NewConda(e.t)
			e.vars["PINBOT_CONDA_URL"] = c.URL
			c.Add("conda-forge", "llvmlite", fakes.CondaFile{Version: "0.47.0"}, fakes.CondaFile{Version: "0.50.0"}, fakes.CondaFile{Version: "0.51.0"})
			// numba's docs environment installs llvmlite from numba's dev label.
			c.Add("numba", "llvmlite", fakes.CondaFile{Version: "0.50.0", Labels: []string{"dev"}}, fakes.CondaFile{Version: "0.51.0", Labels: []string{"dev"}})
		},
		config: "sources:\n  conda: {channels: [conda-forge, numba/label/dev]}\npackages:\n  llvmlite: {}\n",
		pins: []expandPin{
			// a prefix match in a conda-build recipe (host), beside a templated pin_compatible
			{pkg: "llvmlite", file: "numba-feedstock/recipe/meta.yaml", before: "llvmlite 0.47.*",
				inclusive: "llvmlite >=0.47,<=0.51.0", exclusive: "llvmlite >=0.47,<0.52", preserve: "llvmlite 0.51.*"},
			// conda's fuzzy =
			{pkg: "llvmlite", file: "numba/docs/environment.yml", before: "llvmlite=0.50",
				inclusive: "llvmlite>=0.50,<=0.51.0", exclusive: "llvmlite>=0.50,<0.52", preserve: "llvmlite=0.51"},
		},
	},
}

// TestCheckExpandsOneClauseRanges runs `pinbot check --write` with cap:
// inclusive and exclusive on repositories shaped like real ones (corpus files
// and testdata/expand): every range written as one clause (Poetry ^, PEP 440
// ~=, conda .* and =) that shuts the newest release out is rewritten into its
// own lower bound and the strategy's cap, in the file's syntax, saying the
// operator was expanded, without raises_lower or narrows; one that admits
// the newest release is left alone. Every other byte of every file (markers,
// extras, comments, other pins) stays, the files read back, and a second run
// writes nothing. With cap: preserve the operators are kept, as before.
func TestCheckExpandsOneClauseRanges(t *testing.T) {
	for _, repo := range expandRepos {
		for _, strategy := range []string{"inclusive", "exclusive", "preserve"} {
			t.Run(repo.name+"/"+strategy, func(t *testing.T) {
				e := newEnv(t)
				if repo.tree != "" {
					e.copyTree(filepath.Join("testdata", "expand", repo.tree))
				}
				for path, name := range repo.corpus {
					e.file(path, corpus.Read(t, name))
				}
				repo.setup(e)
				config := strings.ReplaceAll(repo.config, ": {}", ": {cap: "+strategy+"}")
				e.file(".pinbot.yml", []byte(config))
				files := map[string]string{}
				for _, p := range repo.pins {
					files[p.file] = e.read(p.file)
				}

				code, out, stderr := e.run("check", "--dir", e.dir, "--write", "--format", "json")
				if code != 0 {
					t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
				}
				rep := decodeReport(t, out)
				want := map[string][]string{} // file -> its lines after the run
				for f, data := range files {
					want[f] = strings.Split(data, "\n")
				}
				for _, wp := range repo.pins {
					after := map[string]string{"inclusive": wp.inclusive, "exclusive": wp.exclusive, "preserve": wp.preserve}[strategy]
					pin, ok := findPin(rep[wp.pkg], wp.file, wp.before)
					if !ok {
						t.Errorf("%s: no pin %s %q in\n%s", wp.pkg, wp.file, wp.before, out)
						continue
					}
					switch {
					case wp.keeps != "" && (strategy != "preserve" || after == ""):
						if pin.After != pin.Before || pin.Held != (wp.held && strategy != "preserve") ||
							strategy != "preserve" && !strings.Contains(pin.Reason, wp.keeps) {
							t.Errorf("%s:%d: %+v, want it left alone (%q)", pin.File, pin.Line, pin, wp.keeps)
						}
						continue
					case pin.After != after:
						t.Errorf("%s:%d: %q became %q, want %q (%s)", pin.File, pin.Line, pin.Before, pin.After, after, pin.Reason)
					case strategy == "preserve":
						if !pin.RaisesLower || !strings.Contains(pin.Reason, "raises the lower bound") {
							t.Errorf("%s:%d: preserve: %+v, want raises_lower", pin.File, pin.Line, pin)
						}
					default:
						if pin.RaisesLower || pin.Narrows || pin.Held ||
							!strings.Contains(pin.Reason, " was expanded into ") || !strings.Contains(pin.Reason, "to keep the lower bound (cap: "+strategy+")") {
							t.Errorf("%s:%d: %+v, want an expansion that keeps the lower bound", pin.File, pin.Line, pin)
						}
					}
					if p := rep[wp.pkg]; p.Status != "bump" {
						t.Errorf("%s: status %s, want bump", wp.pkg, p.Status)
					}
					lines := want[wp.file]
					if pin.Line < 1 || pin.Line > len(lines) || !strings.Contains(lines[pin.Line-1], wp.before) {
						t.Errorf("%s:%d does not hold %q", wp.file, pin.Line, wp.before)
						continue
					}
					lines[pin.Line-1] = strings.Replace(lines[pin.Line-1], wp.before, after, 1)
				}
				for f, lines := range want {
					if got := e.read(f); got != strings.Join(lines, "\n") {
						t.Errorf("%s after --write:\n%s\nwant:\n%s", f, got, strings.Join(lines, "\n"))
					}
				}

				code, out, _ = e.run("check", "--dir", e.dir, "--write", "--format", "json")
				if code != 0 || !strings.Contains(out, `"written": []`) {
					t.Errorf("second --write: exit %d\n%s", code, out)
				}
				for f, lines := range want {
					if e.read(f) != strings.Join(lines, "\n") {
						t.Errorf("second --write changed %s", f)
					}
				}
			})
		}
	}
}

// findPin returns the pin of p in file whose requirement was before.
func findPin(p report.Package, file, before string) (report.Pin, bool) {
	for _, pin := range p.Pins {
		if pin.File == file && pin.Before == before {
			return pin, true
		}
	}
	return report.Pin{}, false
}
