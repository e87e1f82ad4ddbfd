package main

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pinbot-dev/pinbot/config"
	"github.com/pinbot-dev/pinbot/internal/fakes"
)

// copyTree copies the fixture directory src into the test repository. A
// fixture go.mod is kept as go.mod.txt, so that the go command does not take
// its directory for another module (and leave it out of this one), and is
// copied as go.mod.
func (e *env) copyTree(src string) []string {
	var files []string
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if filepath.Base(rel) == "go.mod.txt" {
			rel = strings.TrimSuffix(rel, ".txt")
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		e.file(filepath.ToSlash(rel), b)
		files = append(files, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		e.t.Fatal(err)
	}
	slices.Sort(files)
	return files
}

// strategyConfig watches packages with one cap strategy.
func strategyConfig(strategy string, packages []string) string {
	var b strings.Builder
	b.WriteString("packages:\n")
	for _, n := range packages {
		b.WriteString("  " + n + ":\n    cap: " + strategy + "\n")
	}
	return b.String()
}

// pythonPackages are the packages the Python and conda fixtures pin.
var pythonPackages = []string{"numba", "llvmlite", "tensorflow", "protobuf"}

// formatFixtures are the repositories of TestFormatsWrite, one per pin-file
// format (testdata/formats/NAME), and the packages each watches.
var formatFixtures = []struct {
	name     string
	packages []string
}{
	{"pep621", pythonPackages},
	{"poetry", pythonPackages},
	{"requirements", pythonPackages},
	{"setupcfg", pythonPackages},
	{"setuppy", pythonPackages},     // setup.py: names, an if, computed and escaped entries, a requirements file read at run time
	{"condaenv", pythonPackages},    // environment.yml, with a pip: list
	{"condarecipe", pythonPackages}, // recipe/meta.yaml: selectors, a {% set %} variable
	{"rattler", pythonPackages},     // recipe/recipe.yaml: if/then/else, ${{ }}
	{"pixi", pythonPackages},        // pixi.toml: conda and PyPI tables
	{"gomod", []string{"github.com/Masterminds/semver/v3", "github.com/google/go-cmp", "golang.org/x/mod", "golang.org/x/text"}},
}

// formatsEnv is sourcesEnv with the fixtures' conda packages on the fake
// conda-forge (numba as on PyPI, up to 0.67.0) and their Go modules on a fake
// module proxy.
func formatsEnv(t *testing.T) *env {
	e, c := sourcesEnv(t)
	c.Add("conda-forge", "llvmlite", fakes.CondaFile{Version: "0.48.0"}, fakes.CondaFile{Version: "0.49.0"})
	c.Add("conda-forge", "protobuf", fakes.CondaFile{Version: "5.29.3"}, fakes.CondaFile{Version: "6.33.0"})
	c.Add("conda-forge", "tensorflow", fakes.CondaFile{Version: "2.19.1"}, fakes.CondaFile{Version: "2.20.0"})
	proxy := fakes.NewGoProxy(t)
	for path, vs := range map[string][]string{
		"github.com/Masterminds/semver/v3": {"v3.4.0", "v3.5.0", "v3.6.0-rc.1"},
		"github.com/google/go-cmp":         {"v0.6.0", "v0.7.0"},
		"golang.org/x/mod":                 {"v0.20.0", "v0.29.0"},
		"golang.org/x/text":                {"v0.3.0", "v0.3.8", "v0.30.0"},
	} {
		var gvs []fakes.GoVersion
		for _, v := range vs {
			gvs = append(gvs, fakes.GoVersion{Version: v})
		}
		proxy.Add(path, gvs...)
	}
	e.vars["GOPROXY"] = proxy.URL
	return e
}

// TestFormatsWrite runs `pinbot check --write` with each cap strategy on a
// small repository per pin-file format and compares the report and every
// rewritten file with testdata/formats/NAME.STRATEGY.golden. A second run
// writes nothing.
func TestFormatsWrite(t *testing.T) {
	for _, fx := range formatFixtures {
		for _, strategy := range []string{"inclusive", "exclusive", "preserve"} {
			t.Run(fx.name+"/"+strategy, func(t *testing.T) {
				e := formatsEnv(t)
				files := e.copyTree(filepath.Join("testdata", "formats", fx.name))
				before := map[string]string{}
				for _, f := range files {
					before[f] = e.read(f)
				}
				e.file(".pinbot.yml", []byte(strategyConfig(strategy, fx.packages)))
				code, out, stderr := e.run("check", "--dir", e.dir, "--write")
				if code != 0 {
					t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
				}
				var b strings.Builder
				b.WriteString(out)
				after := map[string]string{}
				for _, f := range files {
					if after[f] = e.read(f); after[f] != before[f] {
						b.WriteString("\n--- " + f + "\n" + after[f])
					}
				}
				golden(t, filepath.Join("formats", fx.name+"."+strategy+".golden"), b.String())

				code, out, _ = e.run("check", "--dir", e.dir, "--write", "--format", "json")
				if code != 0 || !strings.Contains(out, `"written": []`) {
					t.Errorf("second --write: exit %d\n%s", code, out)
				}
				for _, f := range files {
					if e.read(f) != after[f] {
						t.Errorf("second --write changed %s", f)
					}
				}
			})
		}
	}
}

// TestFormatsUnify plans a package capped differently in a pyproject and a
// requirements file: the drift is reported, and unify brings both to one range.
func TestFormatsUnify(t *testing.T) {
	e := newEnv(t)
	e.file("pyproject.toml", []byte("[project]\nname = \"demo\"\ndependencies = [\"numba>=0.58,<=0.66.0\"]\n"))
	e.file("requirements.txt", []byte("numba>=0.57\n"))
	e.file(".pinbot.yml", []byte("packages:\n  numba: {}\n"))
	code, out, _ := e.run("check", "--dir", e.dir)
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	golden(t, "formats/drift.text.golden", out)
	_, md, _ := e.run("check", "--dir", e.dir, "--format", "markdown")
	golden(t, "formats/drift.markdown.golden", md)
	_, js, _ := e.run("check", "--dir", e.dir, "--format", "json")
	golden(t, "formats/drift.json.golden", js)

	e.file(".pinbot.yml", []byte("packages:\n  numba:\n    unify: true\n"))
	code, out, stderr := e.run("check", "--dir", e.dir, "--write")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	golden(t, "formats/unify.text.golden", out)
	if got := e.read("requirements.txt"); got != "numba>=0.58,<=0.67.0\n" {
		t.Errorf("requirements.txt = %q", got)
	}
	if code, out, _ := e.run("check", "--dir", e.dir, "--format", "json"); code != 0 || !strings.Contains(out, `"drift": []`) || strings.Contains(out, `"status": "bump"`) {
		t.Errorf("after unify: exit %d\n%s", code, out)
	}
}

// TestFormatsYanked caps at a release PyPI yanked: reported by default,
// lowered with yanked: follow.
func TestFormatsYanked(t *testing.T) {
	e := newEnv(t)
	e.pypi.Add("numba", append(fakes.NumbaReleases(), fakes.Release{Version: "0.67.1", Yanked: true, YankedReason: "broken wheels"})...)
	e.file("requirements.txt", []byte("numba>=0.58,<=0.67.1\n"))
	e.file(".pinbot.yml", []byte("packages:\n  numba: {}\n"))
	code, out, _ := e.run("check", "--dir", e.dir, "--write", "--format", "json")
	if code != 0 || !strings.Contains(out, `"yanked": true`) || !strings.Contains(out, "was yanked") || e.read("requirements.txt") != "numba>=0.58,<=0.67.1\n" {
		t.Errorf("yanked: report: exit %d\n%s", code, out)
	}
	e.file(".pinbot.yml", []byte("packages:\n  numba:\n    yanked: follow\n"))
	code, out, _ = e.run("check", "--dir", e.dir, "--write")
	if code != 0 || e.read("requirements.txt") != "numba>=0.58,<=0.67.0\n" || !strings.Contains(out, "lowered to <=0.67.0") {
		t.Errorf("yanked: follow: exit %d\n%s\n%q", code, out, e.read("requirements.txt"))
	}
}

// TestFormatsBadInput checks that bad pin files give a message with file:line
// and leave every file untouched.
func TestFormatsBadInput(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		code  int
		want  []string // in stdout or stderr
	}{
		{"pyproject.toml that does not parse", map[string]string{"pyproject.toml": "[project\ndependencies = [\"numba>=0.58,<=0.66.0\"]\n"},
			1, []string{"pyproject.toml:1:", "not valid TOML"}},
		{"environment file that does not parse", map[string]string{"environment.yml": "dependencies:\n  - numba>=0.58\n - [\n"},
			1, []string{"environment.yml:", "not valid YAML"}},
		{"templated version", map[string]string{"requirements.txt": "numba>=${NUMBA_MIN},<=0.66.0\n"},
			0, []string{"not edited: uses an environment variable reference"}},
		{"escaped string", map[string]string{"pyproject.toml": "[project]\ndependencies = [\"nu\\u006dba>=0.58,<=0.66.0\"]\n"},
			0, []string{"not edited: string with escape sequences"}},
		{"pin only inside a comment", map[string]string{
			"requirements.txt": "# numba<=0.66.0\nllvmlite  # numba<=0.66.0\n",
			"pyproject.toml":   "[project]\n# dependencies = [\"numba<=0.66.0\"]\ndependencies = []\n",
			"setup.cfg":        "[options]\ninstall_requires =\n    # numba<=0.66.0\n    ; numba<=0.66.0\n"},
			0, []string{"no pins of watched packages found"}},
		{"include cycle", map[string]string{
			"requirements.txt":      "-r requirements/dev.txt\nnumba>=0.58,<=0.66.0\n",
			"requirements/dev.txt":  "-r ../requirements.txt\n-c loop.txt\n",
			"requirements/loop.txt": "-c dev.txt\n"},
			1, []string{"requirements.txt:1:1: -r: include cycle: requirements/dev.txt:1: -r ../requirements.txt → requirements.txt:1: -r requirements/dev.txt",
				"requirements/loop.txt:1:1: -c: include cycle:"}},
		{"missing include", map[string]string{"requirements.txt": "numba\n-r base-reqs.txt\n"},
			1, []string{"requirements.txt:2:1: -r: -r base-reqs.txt: no such file base-reqs.txt"}},
		{"hash-locked", map[string]string{"requirements.txt": "numba==0.58.1 \\\n    --hash=sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\n"},
			0, []string{"not edited: hash-locked: line 1 pins files by --hash"}},
		{"pip-compile lock", map[string]string{"requirements.txt": "#\n# This file is autogenerated by pip-compile with Python 3.12\n#\nnumba==0.58.1\n    # via -r requirements.in\n"},
			0, []string{"not edited: lock file (autogenerated by pip-compile)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			for name, data := range tt.files {
				e.file(name, []byte(data))
			}
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			done := make(chan struct{})
			var code int
			var out, stderr string
			go func() {
				defer close(done)
				code, out, stderr = e.run("check", "--dir", e.dir, "--write")
			}()
			select {
			case <-done:
			case <-ctx.Done():
				t.Fatal("check did not finish: a hang")
			}
			if code != tt.code {
				t.Errorf("exit %d, want %d\n%s\n%s", code, tt.code, out, stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(out+stderr, w) {
					t.Errorf("output lacks %q:\n%s\n%s", w, out, stderr)
				}
			}
			for name, data := range tt.files {
				if e.read(name) != data {
					t.Errorf("%s was written", name)
				}
			}
		})
	}
}

// TestFormatsCRLF rewrites requirements and setup.cfg files with CRLF line
// endings: only the version changes, every "\r\n" stays.
func TestFormatsCRLF(t *testing.T) {
	e := newEnv(t)
	e.file("requirements.txt", []byte("numba>=0.58,<=0.66.0\r\n# comment\r\nllvmlite\r\n"))
	e.file("setup.cfg", []byte("[options]\r\ninstall_requires =\r\n    numba >= 0.51.0\r\n"))
	e.file(".pinbot.yml", []byte("packages:\n  numba: {}\n  llvmlite: {}\n"))
	if code, out, stderr := e.run("check", "--dir", e.dir, "--write"); code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	if got := e.read("requirements.txt"); got != "numba>=0.58,<=0.67.0\r\n# comment\r\nllvmlite<=0.49.0\r\n" {
		t.Errorf("requirements.txt = %q", got)
	}
	if got := e.read("setup.cfg"); got != "[options]\r\ninstall_requires =\r\n    numba >= 0.51.0, <= 0.67.0\r\n" {
		t.Errorf("setup.cfg = %q", got)
	}
}

func TestInit(t *testing.T) {
	e := newEnv(t)
	e.copyTree(filepath.Join("testdata", "formats", "requirements"))
	e.file("pyproject.toml", []byte("[project]\nname = \"demo\"\ndependencies = [\"numba>=0.58,<=0.66.0\", \"protobuf\"]\n"))
	e.file("bad/setup.cfg", []byte("[options]\ninstall_requires =\n    numba[x\n"))
	code, out, stderr := e.run("init", "--dir", e.dir)
	if code != 0 || !strings.Contains(out, "4 watched package(s), 5 pin file(s) found") {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	written := e.read(".pinbot.yml")
	golden(t, "init.golden", written)
	cfg, err := config.Parse(".pinbot.yml", []byte(written))
	if err != nil || len(cfg.Packages) != 4 || cfg.Packages["numba"].Policy().Strategy != "inclusive" {
		t.Errorf("the written configuration: %+v, %v", cfg, err)
	}

	// It refuses to replace a configuration, unless --force.
	if code, _, stderr := e.run("init", "--dir", e.dir, "--package", "numba"); code != 2 || !strings.Contains(stderr, ".pinbot.yml exists") {
		t.Errorf("second init: exit %d, %s", code, stderr)
	}
	if e.read(".pinbot.yml") != written {
		t.Error("second init replaced the file")
	}
	code, _, stderr = e.run("init", "--dir", e.dir, "--force", "--package", "Numba", "--package", "llvmlite")
	if code != 0 {
		t.Fatalf("init --force: exit %d, %s", code, stderr)
	}
	got := e.read(".pinbot.yml")
	if !strings.Contains(got, "  # numba is pinned at constraints.txt:1, pyproject.toml:3, requirements/base.txt:1, requirements.txt:5\n  numba:\n") ||
		!strings.Contains(got, "  # llvmlite is pinned at requirements/base.txt:3\n  llvmlite:\n") || strings.Contains(got, "protobuf:") {
		t.Errorf("init --package:\n%s", got)
	}
	// check reads what init wrote.
	if code, out, stderr := e.run("check", "--dir", e.dir, "--format", "json"); !strings.Contains(out, `"name": "llvmlite"`) || strings.Contains(out, `"name": "protobuf"`) {
		t.Errorf("check after init: exit %d\n%s\n%s", code, out, stderr)
	}
	if code, _, _ := e.run("init", "--dir", "/no/such/dir"); code != 2 {
		t.Errorf("init --dir missing: exit %d", code)
	}
}

// TestFormatsIncludes follows a -c include to a file discovery would not find
// (its name is no requirements file's) and rewrites its pin there.
func TestFormatsIncludes(t *testing.T) {
	e := newEnv(t)
	e.file("requirements.txt", []byte("-c ci/pins.pip\nnumba\n"))
	e.file("ci/pins.pip", []byte("numba<=0.66.0  # tested through\n"))
	e.file(".pinbot.yml", []byte("packages:\n  numba:\n    add-cap: false\n"))
	code, out, stderr := e.run("check", "--dir", e.dir, "--write", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	if got := e.read("ci/pins.pip"); got != "numba<=0.67.0  # tested through\n" {
		t.Errorf("ci/pins.pip = %q", got)
	}
	for _, want := range []string{`"file": "ci/pins.pip"`, `"requirements.txt:1: -c ci/pins.pip"`, `"written": [` + "\n    \"ci/pins.pip\""} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %s:\n%s", want, out)
		}
	}
}
