package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pinbot-dev/pinbot/internal/fakes"
)

// condaEnv is a repository whose environment.yml pins tensorflow from
// conda-forge, a fake anaconda.org serving real conda packages and a fake
// PyPI whose tensorflow wheels hide google::protobuf (so a check that read
// them would pass). On conda-forge tensorflow is a metapackage pinning
// tensorflow-base exactly; tensorflow-base 2.17.0 hides the symbols in its
// Python 3.12 build (a classic .tar.bz2; its 3.11 build exports them),
// 2.18.0 exports them. libprotobuf 5.28.3 exports them too.
type condaEnv struct {
	*env
	conda *fakes.Conda
}

func newCondaEnv(t *testing.T) *condaEnv {
	t.Helper()
	return newCondaEnvOn(t, "conda-forge")
}

// newCondaEnvOn is newCondaEnv with the conda packages, and the environment
// file's channel, on channel.
func newCondaEnvOn(t *testing.T, channel string) *condaEnv {
	t.Helper()
	hidden, exported := tfLibrary(t, true), tfLibrary(t, false)
	e := &condaEnv{env: newEnv(t), conda: fakes.NewConda(t)}
	e.vars["PINBOT_CACHE_DIR"] = t.TempDir()
	e.vars["PINBOT_CONDA_URL"] = e.conda.URL
	py := func(minor string) []string {
		return []string{"python >=3." + minor + ",<3." + map[string]string{"11": "12", "12": "13"}[minor] + ".0a0", "python_abi 3." + minor + ".* *_cp3" + minor}
	}
	base := func(version, minor string, lib []byte, tarBz2 bool) fakes.CondaFile {
		return fakes.CondaFile{Version: version, Build: "cpu_py3" + minor + "h1a2b3c4_0", Depends: append(py(minor), "libgcc >=13", "libprotobuf >=5.28.3,<5.28.4.0a0"),
			TarBz2: tarBz2,
			Members: []fakes.ArchiveMember{
				{Name: "lib/libtensorflow_framework.so.2", Data: lib},
				{Name: "lib/libtensorflow_framework.so", Symlink: "libtensorflow_framework.so.2"},
				{Name: "lib/python3." + minor + "/site-packages/tensorflow/__init__.py", Data: []byte("__version__ = '" + version + "'\n")},
			}}
	}
	meta := func(version, minor string) fakes.CondaFile {
		return fakes.CondaFile{Version: version, Build: "cpu_py3" + minor + "h1a2b3c4_0", Members: []fakes.ArchiveMember{},
			Depends: append(py(minor), "tensorflow-base "+version+" cpu_py3"+minor+"h1a2b3c4_0", "tensorflow-estimator >=2.15")}
	}
	e.conda.Add(channel, "tensorflow-base", base("2.17.0", "11", exported, false), base("2.17.0", "12", hidden, true), base("2.18.0", "12", exported, false))
	e.conda.Add(channel, "libprotobuf", fakes.CondaFile{Version: "5.28.3", Build: "h6128344_0", Depends: []string{"libgcc >=13"},
		Members: []fakes.ArchiveMember{{Name: "lib/libprotobuf.so.28.3.0", Data: exported}}})
	e.conda.Add(channel, "tensorflow", meta("2.17.0", "11"), meta("2.17.0", "12"), meta("2.18.0", "12"))
	tags := "cp312-cp312-manylinux_2_17_x86_64"
	tf := func(version string) fakes.Release {
		fn, data := fakes.Wheel("tensorflow", version, tags, map[string][]byte{"tensorflow/libtensorflow_framework.so.2": hidden})
		return fakes.Release{Version: version, Artifacts: map[string][]byte{fn: data}}
	}
	e.pypi.Add("tensorflow", tf("2.17.0"), tf("2.18.0"))
	e.file("environment.yml", []byte("name: tf\nchannels:\n  - "+channel+"\ndependencies:\n  - python 3.12.*\n  - tensorflow >=2.16,<=2.17.0\n"))
	return e
}

const condaSymbols = "packages:\n  tensorflow:\n    symbols:\n      forbid: [\"google::protobuf::*\"]\n      conda: {subdir: linux-64, python: \"3.12\"}\n"

// wheelRequests returns the wheels the fake PyPI served.
func wheelRequests(e *condaEnv) []string {
	var out []string
	for _, r := range e.pypi.Requests() {
		if strings.Contains(r, ".whl") {
			out = append(out, r)
		}
	}
	return out
}

func (e *condaEnv) check(t *testing.T, cfg string, wantCode int) checksReport {
	t.Helper()
	e.file(".pinbot.yml", []byte(cfg))
	code, out, stderr := e.run("check", "--dir", e.dir, "--format", "json")
	if code != wantCode {
		t.Fatalf("exit %d, want %d\n%s\n%s", code, wantCode, out, stderr)
	}
	var rep checksReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Packages) != 1 {
		t.Fatalf("packages %+v", rep.Packages)
	}
	return rep
}

// TestCheckCondaSymbols: tensorflow's moving pin is a conda pin, so the scan
// reads conda-forge's packages (sha256 verified) for linux-64 and Python
// 3.12, follows the metapackage to tensorflow-base, and blocks the move to
// 2.18.0, which starts exporting google::protobuf; the detail names what was
// read. PyPI's wheels, which hide the symbols, are not read.
func TestCheckCondaSymbols(t *testing.T) {
	e := newCondaEnv(t)
	rep := e.check(t, condaSymbols, exitCheck)
	p := rep.Packages[0]
	if p.Status != "blocked" || len(p.Checks) != 1 {
		t.Fatalf("package %+v", p)
	}
	c := p.Checks[0]
	for _, want := range []string{
		"read tensorflow-2.18.0-cpu_py312h1a2b3c4_0.conda → tensorflow-base-2.18.0-cpu_py312h1a2b3c4_0.conda",
		"(baseline tensorflow-2.17.0-cpu_py312h1a2b3c4_0.conda → tensorflow-base-2.17.0-cpu_py312h1a2b3c4_0.tar.bz2)",
		"conda packages from conda-forge for linux-64, Python 3.12",
		"is a metapackage: read what it pins exactly",
	} {
		if !strings.Contains(c.Detail, want) {
			t.Errorf("detail lacks %q:\n%s", want, c.Detail)
		}
	}
	if c.Verdict != "blocked" || c.OK {
		t.Errorf("check %+v", c)
	}
	if whl := wheelRequests(e); len(whl) > 0 {
		t.Errorf("wheels downloaded: %q", whl)
	}
	// With the newest Python (no python configured) 3.12 is still the
	// candidate's only build, and the baseline is read for it.
	rep = e.check(t, strings.Replace(condaSymbols, ", python: \"3.12\"", "", 1), exitCheck)
	if c := rep.Packages[0].Checks[0]; c.Verdict != "blocked" || !strings.Contains(c.Detail, "the newest Python built for") {
		t.Errorf("default Python: %+v", c)
	}
}

// TestCheckCondaFileChannel: the environment file's channel is one no
// configuration lists; planning asks it, and so do the checks, which read
// its packages and follow the metapackage to tensorflow-base there. When
// the file's first channel does not have tensorflow, the next, which has
// it, governs the pin, and the checks read its packages.
func TestCheckCondaFileChannel(t *testing.T) {
	e := newCondaEnvOn(t, "tf-builds")
	p := e.check(t, condaSymbols, exitCheck).Packages[0]
	if p.Status != "blocked" || len(p.Checks) != 1 {
		t.Fatalf("package %+v", p)
	}
	for _, want := range []string{
		"read tensorflow-2.18.0-cpu_py312h1a2b3c4_0.conda → tensorflow-base-2.18.0-cpu_py312h1a2b3c4_0.conda",
		"conda packages from tf-builds for linux-64, Python 3.12",
	} {
		if !strings.Contains(p.Checks[0].Detail, want) {
			t.Errorf("detail lacks %q:\n%s", want, p.Checks[0].Detail)
		}
	}
	// An against package is read from the same channel.
	cfg := strings.Replace(condaSymbols, "      conda:", "      against: [libprotobuf]\n      conda:", 1)
	c := e.check(t, cfg, exitCheck).Packages[0].Checks[0]
	if !strings.Contains(c.Detail, "against libprotobuf 5.28.3 (libprotobuf-5.28.3-h6128344_0.conda from tf-builds)") {
		t.Errorf("against: %+v", c)
	}

	e.file("environment.yml", []byte("name: tf\nchannels:\n  - numba\n  - tf-builds\ndependencies:\n  - python 3.12.*\n  - tensorflow >=2.16,<=2.17.0\n"))
	p = e.check(t, condaSymbols, exitCheck).Packages[0]
	if p.Status != "blocked" || len(p.Checks) != 1 || !strings.Contains(p.Checks[0].Detail, "conda packages from tf-builds for linux-64, Python 3.12") {
		t.Errorf("the next channel: %+v", p)
	}
}

// TestCheckCondaArtifactOverride: symbols.artifact: wheel reads PyPI's wheels
// for conda pins (they hide the symbols: the bump goes ahead); artifact:
// conda reads conda packages for a PyPI pin.
func TestCheckCondaArtifactOverride(t *testing.T) {
	e := newCondaEnv(t)
	wheelCfg := strings.Replace(condaSymbols, "      conda:", "      artifact: wheel\n      wheel: {platform: manylinux_x86_64, python: \"3.12\"}\n      conda:", 1)
	rep := e.check(t, wheelCfg, 0)
	if p := rep.Packages[0]; p.Status != "bump" || p.Checks[0].Verdict != "ok" || !strings.Contains(p.Checks[0].Detail, "read tensorflow-2.18.0-cp312-cp312-manylinux_2_17_x86_64.whl") {
		t.Errorf("artifact: wheel: %+v", p)
	}
	e.file("environment.yml", []byte("name: tf\ndependencies:\n  - pip\n"))
	e.file("requirements.txt", []byte("tensorflow>=2.16,<=2.17.0\n"))
	rep = e.check(t, strings.Replace(condaSymbols, "      conda:", "      artifact: conda\n      conda:", 1), exitCheck)
	if p := rep.Packages[0]; p.Status != "blocked" || !strings.Contains(p.Checks[0].Detail, "tensorflow-base-2.18.0-cpu_py312h1a2b3c4_0.conda") {
		t.Errorf("artifact: conda for a PyPI pin: %+v", p)
	}
}

// TestCheckCondaPinFiles: conda pins in a recipe and in pixi's conda
// dependencies are checked against conda packages as environment files are
// (the recipe's pins name no channel: the first configured one governs);
// a package whose moving pins include a PyPI pin is checked against PyPI's
// wheels, which hide the symbols here, so its bump goes ahead.
func TestCheckCondaPinFiles(t *testing.T) {
	t.Parallel() // slow (environments, subprocesses): overlaps the other tests
	const tfPin = "tensorflow >=2.16,<=2.17.0"
	tests := []struct {
		name   string
		files  map[string]string
		status string
		read   string // in the check's detail
	}{
		{"recipe", map[string]string{"recipe/meta.yaml": "package:\n  name: server\nrequirements:\n  run:\n    - " + tfPin + "\n"},
			"blocked", "read tensorflow-2.18.0-cpu_py312h1a2b3c4_0.conda → tensorflow-base-2.18.0-cpu_py312h1a2b3c4_0.conda"},
		{"rattler recipe", map[string]string{"recipe/recipe.yaml": "schema_version: 1\npackage:\n  name: server\nrequirements:\n  run:\n    - " + tfPin + "\n"},
			"blocked", "read tensorflow-2.18.0-cpu_py312h1a2b3c4_0.conda → tensorflow-base-2.18.0-cpu_py312h1a2b3c4_0.conda"},
		{"pixi", map[string]string{"pixi.toml": "[workspace]\nchannels = [\"conda-forge\"]\nplatforms = [\"linux-64\"]\n\n[dependencies]\ntensorflow = \">=2.16,<=2.17.0\"\n"},
			"blocked", "read tensorflow-2.18.0-cpu_py312h1a2b3c4_0.conda → tensorflow-base-2.18.0-cpu_py312h1a2b3c4_0.conda"},
		{"conda and PyPI pins", map[string]string{
			"environment.yml":  "channels: [conda-forge]\ndependencies:\n  - " + tfPin + "\n",
			"requirements.txt": "tensorflow>=2.16,<=2.17.0\n",
		}, "bump", "read tensorflow-2.18.0-cp312-cp312-manylinux_2_17_x86_64.whl"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newCondaEnv(t)
			if err := os.Remove(filepath.Join(e.dir, "environment.yml")); err != nil {
				t.Fatal(err)
			}
			for name, data := range tt.files {
				e.file(name, []byte(data))
			}
			code := exitCheck
			if tt.status == "bump" {
				code = 0
			}
			cfg := strings.Replace(condaSymbols, "      conda:", "      wheel: {platform: manylinux_x86_64, python: \"3.12\"}\n      conda:", 1)
			p := e.check(t, cfg, code).Packages[0]
			if p.Status != tt.status || len(p.Checks) != 1 || !strings.Contains(p.Checks[0].Detail, tt.read) {
				t.Errorf("package %+v, want %s reading %q", p, tt.status, tt.read)
			}
		})
	}
}

// TestCheckCondaAgainst: an against package of a conda check is read from
// the same channel, for the same target, at the version the project
// installs (its newest, unpinned), and the detail names the file; its
// library is scanned with the candidate's (libprotobuf here is built from
// the same source, so both of its exports clash).
func TestCheckCondaAgainst(t *testing.T) {
	e := newCondaEnv(t)
	cfg := strings.Replace(condaSymbols, "      conda:", "      against: [libprotobuf]\n      conda:", 1)
	c := e.check(t, cfg, exitCheck).Packages[0].Checks[0]
	if c.Verdict != "blocked" || !strings.Contains(c.Detail, "against libprotobuf 5.28.3 (libprotobuf-5.28.3-h6128344_0.conda from conda-forge)") ||
		!strings.Contains(c.Candidate, "2 clashes") {
		t.Errorf("check %+v", c)
	}
}

// TestCheckCondaWarnings: the check never passes what it cannot see: a
// Python the channel has no build for, a metapackage whose libraries are in
// no exact pin, a package whose download does not match the sha256 the
// channel publishes (an error).
func TestCheckCondaWarnings(t *testing.T) {
	t.Parallel() // slow (environments, subprocesses): overlaps the other tests
	t.Run("no build for the Python", func(t *testing.T) {
		e := newCondaEnv(t)
		rep := e.check(t, strings.Replace(condaSymbols, `"3.12"`, `"3.10"`, 1), 0)
		c := rep.Packages[0].Checks[0]
		if c.Verdict != "warning" || !strings.Contains(c.Detail, "tensorflow 2.18.0 has no linux-64 build for Python 3.10 (builds for Python 3.12)") {
			t.Errorf("check %+v", c)
		}
	})
	t.Run("nothing pinned exactly", func(t *testing.T) {
		e := newCondaEnv(t)
		e.conda.Add("conda-forge", "tensorflow",
			fakes.CondaFile{Version: "2.17.0", Build: "cpu_py312h1a2b3c4_0", Members: []fakes.ArchiveMember{}, Depends: []string{"tensorflow-base >=2.17"}},
			fakes.CondaFile{Version: "2.18.0", Build: "cpu_py312h1a2b3c4_0", Members: []fakes.ArchiveMember{}, Depends: []string{"tensorflow-base >=2.18"}})
		rep := e.check(t, condaSymbols, 0)
		c := rep.Packages[0].Checks[0]
		if c.Verdict != "warning" || !strings.Contains(c.Detail, "yields no ELF shared object (tensorflow-2.18.0-cpu_py312h1a2b3c4_0.conda)") {
			t.Errorf("check %+v", c)
		}
	})
	t.Run("digest mismatch", func(t *testing.T) {
		e := newCondaEnv(t)
		path := "/download/conda-forge/tensorflow/2.18.0/linux-64/tensorflow-2.18.0-cpu_py312h1a2b3c4_0.conda"
		e.conda.Fail(path, fakes.Fault{Body: "tampered"}, fakes.Fault{Body: "tampered again"})
		e.file(".pinbot.yml", []byte(condaSymbols))
		code, out, stderr := e.run("check", "--dir", e.dir, "--format", "json")
		if code != exitFailure || !strings.Contains(out, "sha256 digest mismatch") {
			t.Errorf("exit %d\n%s\n%s", code, out, stderr)
		}
	})
}

// condaNumbaPackage serves numba as conda packages whose site-packages hold
// numba/core/bytecode.py; 0.68.0 drops _unique_ids.
func condaNumbaPackage(version string, drop bool) fakes.CondaFile {
	sp := "lib/python3.12/site-packages/"
	return fakes.CondaFile{Version: version, Build: "py312h6e6e5ba_0", Members: []fakes.ArchiveMember{
		{Name: sp + "numba/__init__.py"},
		{Name: sp + "numba/core/__init__.py"},
		{Name: sp + "numba/core/bytecode.py", Data: numbaBytecode(drop)},
		{Name: sp + "numba/_helperlib.cpython-312-x86_64-linux-gnu.so", Data: []byte("\x7fELF")},
	}}
}

// TestCheckCondaProbes: static probes read the Python files of the conda
// packages' site-packages; dynamic probes install the index's pip wheels of
// the same versions and say so; with no wheel of the candidate on the index
// they read the conda packages statically and say why.
func TestCheckCondaProbes(t *testing.T) {
	t.Parallel() // slow (environments, subprocesses): overlaps the other tests
	setup := func(t *testing.T, onPyPI bool) *condaEnv {
		e := &condaEnv{env: newEnv(t), conda: fakes.NewConda(t)}
		e.vars["PINBOT_CACHE_DIR"] = t.TempDir()
		e.vars["PINBOT_CONDA_URL"] = e.conda.URL
		e.conda.Add("conda-forge", "numba", condaNumbaPackage("0.67.0", false), condaNumbaPackage("0.68.0", true))
		if onPyPI {
			e.pypi.Add("numba", numbaRelease("0.67.0", false), numbaRelease("0.68.0", true))
		} else {
			e.pypi.Add("numba", numbaRelease("0.67.0", false))
		}
		e.file("environment.yml", []byte("channels: [conda-forge]\ndependencies:\n  - numba >=0.60,<=0.67.0\n"))
		e.file(".pinbot.yml", []byte("packages:\n  numba:\n    probes:\n      - path: numba.core.bytecode.FunctionIdentity._unique_ids\n        expect: iterator\n"))
		return e
	}
	probeCheck := func(t *testing.T, e *condaEnv, flags ...string) struct {
		Kind, Name, Baseline, Candidate, Detail, Verdict string
		OK                                               bool
	} {
		t.Helper()
		code, out, stderr := e.run(append([]string{"check", "--dir", e.dir, "--format", "json"}, flags...)...)
		if code != exitCheck {
			t.Fatalf("exit %d, want 3\n%s\n%s", code, out, stderr)
		}
		var rep checksReport
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatal(err)
		}
		p := rep.Packages[0]
		if p.Status != "blocked" || len(p.Checks) == 0 {
			t.Fatalf("package %+v", p)
		}
		return p.Checks[0]
	}
	t.Run("static", func(t *testing.T) {
		e := setup(t, true)
		c := probeCheck(t, e, "--static")
		if c.Verdict != "blocked" || !strings.Contains(c.Detail, "_unique_ids") ||
			!strings.Contains(c.Detail, "read statically (--static); read numba-0.68.0-py312h6e6e5ba_0.conda (baseline numba-0.67.0-py312h6e6e5ba_0.conda)") {
			t.Errorf("check %+v", c)
		}
		if whl := wheelRequests(e); len(whl) > 0 {
			t.Errorf("static probes of conda packages downloaded wheels: %q", whl)
		}
	})
	t.Run("no wheel on the index", func(t *testing.T) {
		e := setup(t, false)
		c := probeCheck(t, e, "--python", "/nonexistent/python3")
		if c.Verdict != "blocked" || !strings.Contains(c.Detail, "the index has no release numba 0.68.0, so the probes read the conda package statically") {
			t.Errorf("check %+v", c)
		}
		if whl := wheelRequests(e); len(whl) > 0 {
			t.Errorf("wheels downloaded: %q", whl)
		}
	})
	t.Run("dynamic with pip wheels", func(t *testing.T) {
		py, err := exec.LookPath("python3")
		if err != nil {
			if os.Getenv("PINBOT_INTEGRATION") != "" {
				t.Fatal("python3 is not installed")
			}
			t.Skip("python3 is not installed")
		}
		e := setup(t, true)
		c := probeCheck(t, e, "--python", py)
		if c.Verdict != "blocked" || !strings.Contains(c.Detail, "probes ran on numba 0.68.0 installed from the index's pip wheels") {
			t.Errorf("check %+v", c)
		}
		if whl := wheelRequests(e); !slices.ContainsFunc(whl, func(r string) bool { return strings.Contains(r, "numba-0.68.0-") }) {
			t.Errorf("the candidate's wheel was not downloaded: %q", whl)
		}
	})
}
