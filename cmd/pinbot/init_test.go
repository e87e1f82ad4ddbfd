package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/pinbot-dev/pinbot/config"
)

// presetKeyRE matches the commented-out key lines of init's ready-made
// checks: what a user uncomments.
var presetKeyRE = regexp.MustCompile(`(?m)^    # (probes:|  - preset: .*|symbols:|  preset: .*)$`)

// TestInitPresets: init watches the well-known fragile packages the
// repository pins and writes their presets commented out; uncommented, the
// file loads and the presets are set.
func TestInitPresets(t *testing.T) {
	e := newEnv(t)
	e.file("pyproject.toml", []byte(`[project]
name = "demo"
dependencies = ["numba>=0.58,<=0.66.0", "tensorflow>=2.19,<=2.19.1", "mlir-python-bindings<=20251209", "requests"]
`))
	code, out, stderr := e.run("init", "--dir", e.dir)
	if code != 0 || !strings.Contains(out, "wrote "+filepath.Join(e.dir, ".pinbot.yml")+": 3 watched package(s)") {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	written := e.read(".pinbot.yml")
	for _, want := range []string{
		"  # mlir-python-bindings is pinned at pyproject.toml:3\n  mlir-python-bindings:\n",
		"    # probes:\n    #   - preset: numba-unique-ids\n",
		"    # symbols:\n    #   preset: tensorflow-protobuf\n",
		"    # probes:\n    #   - preset: mlir-live-operations\n",
	} {
		if !strings.Contains(written, want) {
			t.Errorf("init wrote no %q:\n%s", want, written)
		}
	}
	if strings.Contains(written, "requests") || strings.Contains(written, "  protobuf:") {
		t.Errorf("init watches requests, which is not fragile, or protobuf, which is not pinned:\n%s", written)
	}
	// As written, the presets are off.
	cfg, err := config.Parse(".pinbot.yml", []byte(written))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range cfg.Watched() {
		if cfg.Packages[name].HasChecks() {
			t.Errorf("%s has checks before they are uncommented", name)
		}
	}
	// Uncommented, they load and are on.
	on := presetKeyRE.ReplaceAllString(written, "    $1")
	cfg, err = config.Parse(".pinbot.yml", []byte(on))
	if err != nil {
		t.Fatalf("the uncommented file does not load: %v\n%s", err, on)
	}
	if p := cfg.Packages["numba"].Probes; len(p) != 1 || p[0].Preset != "numba-unique-ids" {
		t.Errorf("numba probes %+v", p)
	}
	if p := cfg.Packages["mlir-python-bindings"].Probes; len(p) != 1 || p[0].Preset != "mlir-live-operations" {
		t.Errorf("mlir-python-bindings probes %+v", p)
	}
	if s := cfg.Packages["tensorflow"].Symbols; s == nil || s.Preset != "tensorflow-protobuf" {
		t.Errorf("tensorflow symbols %+v", s)
	}

	// --package watches what it names, and offers the presets of those
	// that are pinned.
	code, _, stderr = e.run("init", "--dir", e.dir, "--force", "--package", "numba", "--package", "llvmlite")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	written = e.read(".pinbot.yml")
	if !strings.Contains(written, "#   - preset: numba-unique-ids") || strings.Contains(written, "tensorflow") || strings.Contains(written, "mlir") {
		t.Errorf("init --package numba --package llvmlite:\n%s", written)
	}
}

// TestInitOneFile: init never writes a second configuration file beside one
// under another name; --force replaces that one, and init says which.
func TestInitOneFile(t *testing.T) {
	e := newEnv(t)
	e.file("requirements.txt", []byte("numba<=0.66.0\n"))
	e.file(".github/pinbot.yaml", []byte("packages:\n  numba: {}\n"))
	code, out, stderr := e.run("init", "--dir", e.dir)
	if code != 2 || out != "" || !strings.Contains(stderr, ".github/pinbot.yaml exists; pinbot init does not replace it without --force") {
		t.Errorf("init beside .github/pinbot.yaml: exit %d\n%s\n%s", code, out, stderr)
	}
	if _, err := os.Stat(filepath.Join(e.dir, ".pinbot.yml")); err == nil {
		t.Error("init wrote .pinbot.yml beside .github/pinbot.yaml")
	}
	code, out, stderr = e.run("init", "--dir", e.dir, "--force")
	want := "wrote " + filepath.Join(e.dir, ".github", "pinbot.yaml") + ": "
	if code != 0 || !strings.HasPrefix(out, want) {
		t.Errorf("init --force: exit %d, stdout %q, want it to start %q\n%s", code, out, want, stderr)
	}
	if _, err := os.Stat(filepath.Join(e.dir, ".pinbot.yml")); err == nil {
		t.Error("init --force wrote .pinbot.yml beside .github/pinbot.yaml")
	}
	if got := e.read(".github/pinbot.yaml"); !strings.Contains(got, "written by \"pinbot init\"") {
		t.Errorf(".github/pinbot.yaml was not replaced:\n%s", got)
	}
}

// TestTwoConfigFiles: with two configuration files, loading warns, naming
// both and the one used; init --force replaces the one used and says the
// other is there.
func TestTwoConfigFiles(t *testing.T) {
	e := newEnv(t)
	e.file("requirements.txt", []byte("numba<=0.66.0\ntensorflow<=2.19.1\n"))
	e.file(".pinbot.yml", []byte("packages:\n  numba: {}\n"))
	e.file(".github/pinbot.yml", []byte("packages:\n  tensorflow: {}\n"))
	code, out, stderr := e.run("check", "--dir", e.dir, "--format", "json")
	if code != 0 || !strings.Contains(out, `"name": "numba"`) || strings.Contains(out, `"name": "tensorflow"`) {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	if !strings.Contains(stderr, "level=WARN") || !strings.Contains(stderr, "two configuration files: .pinbot.yml and .github/pinbot.yml; using .pinbot.yml") {
		t.Errorf("no warning naming both files and the one used:\n%s", stderr)
	}
	code, out, stderr = e.run("init", "--dir", e.dir)
	if code != 2 || !strings.Contains(stderr, ".pinbot.yml and .github/pinbot.yml exist") {
		t.Errorf("init: exit %d\n%s\n%s", code, out, stderr)
	}
	code, out, stderr = e.run("init", "--dir", e.dir, "--force")
	if code != 0 || !strings.HasPrefix(out, "wrote "+filepath.Join(e.dir, ".pinbot.yml")+": ") ||
		!strings.Contains(out, "note: .github/pinbot.yml also exists; pinbot reads .pinbot.yml only") {
		t.Errorf("init --force: exit %d\n%s\n%s", code, out, stderr)
	}
	if got := e.read(".github/pinbot.yml"); got != "packages:\n  tensorflow: {}\n" {
		t.Errorf("init --force changed the file it does not use:\n%s", got)
	}
	// One file: no warning.
	os.Remove(filepath.Join(e.dir, ".github", "pinbot.yml"))
	if _, _, stderr := e.run("check", "--dir", e.dir); strings.Contains(stderr, "configuration files") {
		t.Errorf("a warning with one file:\n%s", stderr)
	}
}

// TestInitLinks: init finds a pin file that is a link to a file inside the
// repository, whatever the target is called, and counts a file reached
// under two names once, under its first name.
func TestInitLinks(t *testing.T) {
	e := newEnv(t)
	e.file("deps/base.txt", []byte("numba<=0.66.0\n"))
	e.link("deps/base.txt", "requirements.txt")
	e.link("deps/base.txt", "requirements-copy.txt")
	code, out, stderr := e.run("init", "--dir", e.dir)
	if code != 0 || !strings.HasSuffix(out, ", 1 pin file(s) found\n") {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	if written := e.read(".pinbot.yml"); !strings.Contains(written, "#   - requirements-copy.txt ") || strings.Contains(written, " requirements.txt") {
		t.Errorf("init wrote:\n%s", written)
	}
}
