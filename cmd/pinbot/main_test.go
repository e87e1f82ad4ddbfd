package main

import (
	"bytes"
	"context"
	"flag"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pinbot-dev/pinbot/internal/corpus"
	"github.com/pinbot-dev/pinbot/internal/fakes"
	"github.com/pinbot-dev/pinbot/web"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// env is a test environment: a repository directory, a fake PyPI and the
// variables the command sees.
type env struct {
	t    *testing.T
	dir  string
	pypi *fakes.PyPI
	vars map[string]string
	// setup, when set, changes the Factory of each run (a terminal forced
	// or denied, say).
	setup func(*Factory)
	// routes send requests for a real service's URL prefix to a fake's
	// (nightly_test.go): for what pinbot knows by its URL, a preset's index.
	routes map[string]string
}

func newEnv(t *testing.T) *env {
	e := &env{t: t, dir: t.TempDir(), pypi: fakes.NewPyPI(t)}
	e.pypi.Add("numba", fakes.NumbaReleases()...)
	e.pypi.Add("llvmlite", fakes.Release{Version: "0.48.0"}, fakes.Release{Version: "0.49.0"})
	e.pypi.Add("tensorflow", fakes.Release{Version: "2.19.1"}, fakes.Release{Version: "2.20.0"}, fakes.Release{Version: "2.21.0rc0"})
	e.pypi.Add("protobuf", fakes.Release{Version: "5.29.3"}, fakes.Release{Version: "6.33.0"})
	e.vars = map[string]string{"PINBOT_PYPI_URL": e.pypi.URL}
	return e
}

// file writes a file into the repository.
func (e *env) file(name string, data []byte) string {
	p := filepath.Join(e.dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		e.t.Fatal(err)
	}
	return p
}

func (e *env) read(name string) string {
	b, err := os.ReadFile(filepath.Join(e.dir, filepath.FromSlash(name)))
	if err != nil {
		e.t.Fatal(err)
	}
	return string(b)
}

// run runs pinbot with args and returns the exit code, stdout and stderr.
func (e *env) run(args ...string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	f := newFactory(&stdout, &stderr, func(k string) string { return e.vars[k] })
	f.HTTPClient = func() *http.Client {
		p := web.DefaultPolicy
		p.BaseDelay, p.MaxDelay, p.Timeout = time.Millisecond, 5*time.Millisecond, 5*time.Second
		return &http.Client{Transport: web.NewTransport(e.router(), p, web.UserAgent("test"), f.Log)}
	}
	if e.setup != nil {
		e.setup(f)
	}
	code := run(context.Background(), args, f)
	return code, stdout.String(), stderr.String()
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s (-want +got):\n%s", name, diff)
	}
}

// TestCheckCorpus plans the real pyproject files against a fake PyPI where
// numba 0.67.0 is the newest final release.
func TestCheckCorpus(t *testing.T) {
	tests := []struct {
		corpus, golden, config string
	}{
		{"pymc-devs__pytensor__pyproject.toml", "pytensor-main.json", ""},
		{"pymc-devs__pytensor@v3__pyproject.toml", "pytensor-v3.json", ""},
		{"RToTheP__mlwrap__pyproject.toml", "mlwrap.json", ""},
		{"llvm__lighthouse__pyproject.toml", "lighthouse.json", "packages:\n  mlir-python-bindings:\n  torch-mlir:\n"},
	}
	for _, tt := range tests {
		t.Run(tt.golden, func(t *testing.T) {
			e := newEnv(t)
			e.pypi.Add("mlir-python-bindings", fakes.Release{Version: "20251209+cdb525d2e"}, fakes.Release{Version: "20260301+abc1234"})
			e.pypi.Add("torch-mlir", fakes.Release{Version: "20251122.639"}, fakes.Release{Version: "20260220.700"})
			orig := corpus.Read(t, tt.corpus)
			e.file("pyproject.toml", orig)
			if tt.config != "" {
				e.file(".pinbot.yml", []byte(tt.config))
			}
			code, out, stderr := e.run("check", "--dir", e.dir, "--format", "json")
			if code != 0 {
				t.Fatalf("exit %d\n%s", code, stderr)
			}
			golden(t, tt.golden, out)
			if e.read("pyproject.toml") != string(orig) {
				t.Error("check without --write changed the file")
			}
		})
	}
}

func TestCheckWrite(t *testing.T) {
	e := newEnv(t)
	orig := string(corpus.Read(t, "pymc-devs__pytensor__pyproject.toml"))
	e.file("pyproject.toml", []byte(orig))
	code, out, stderr := e.run("check", "--dir", e.dir, "--write")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	want := strings.Replace(orig, `    "numba>=0.58,<=0.66.0",`, `    "numba>=0.58,<=0.67.0",`, 1)
	want = strings.Replace(want, `numba = ["numba>=0.58,<=0.66.0", "llvmlite"]`, `numba = ["numba>=0.58,<=0.67.0", "llvmlite"]`, 1)
	if got := e.read("pyproject.toml"); got != want {
		t.Errorf("rewritten file differs:\n%s", cmp.Diff(want, got))
	}
	if !strings.Contains(out, "wrote pyproject.toml") {
		t.Errorf("report does not say what it wrote:\n%s", out)
	}
	// A second --write changes nothing.
	code, out, _ = e.run("check", "--dir", e.dir, "--write", "--format", "json")
	if code != 0 || e.read("pyproject.toml") != want || !strings.Contains(out, `"written": []`) || !strings.Contains(out, `"status": "current"`) {
		t.Errorf("second --write: exit %d\n%s", code, out)
	}
}

func TestCheckFormats(t *testing.T) {
	e := newEnv(t)
	e.file("pyproject.toml", corpus.Read(t, "pymc-devs__pytensor__pyproject.toml"))
	for _, format := range []string{"text", "markdown"} {
		code, out, stderr := e.run("check", "--dir", e.dir, "--format", format)
		if code != 0 {
			t.Fatalf("exit %d\n%s", code, stderr)
		}
		golden(t, "pytensor-main."+format, out)
		if strings.Contains(out, "level=") {
			t.Errorf("%s: logs on stdout", format)
		}
	}
}

// TestReadmeTour: the README's five-minute tour shows the text report
// TestCheckFormats checks, byte for byte, so that the tour stays the output
// of a real run.
func TestReadmeTour(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "\n## A five-minute tour\n")
	if !ok {
		t.Fatal("README: no A five-minute tour section")
	}
	_, block, ok := strings.Cut(section, "\n```\n")
	block, _, closed := strings.Cut(block, "```\n")
	if !ok || !closed {
		t.Fatal("README: no plain code block in the tour")
	}
	want, err := os.ReadFile(filepath.Join("testdata", "pytensor-main.text"))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), block); diff != "" {
		t.Errorf("the README's tour is not testdata/pytensor-main.text (-want +got):\n%s", diff)
	}
}

func TestCheckBadInput(t *testing.T) {
	t.Run("pyproject that is not TOML", func(t *testing.T) {
		e := newEnv(t)
		bad := "[project]\ndependencies = [\n  \"numba>=0.58,<=0.66.0\"\n  \"llvmlite\",\n]\n"
		e.file("pyproject.toml", []byte(bad))
		code, out, stderr := e.run("check", "--dir", e.dir, "--write", "--format", "json")
		if code != 1 {
			t.Errorf("exit %d, want 1", code)
		}
		if !strings.Contains(stderr, "pyproject.toml:4:3: not valid TOML") || !strings.Contains(out, "pyproject.toml:4:3") {
			t.Errorf("error does not name file:line:col\nstdout %s\nstderr %s", out, stderr)
		}
		if e.read("pyproject.toml") != bad {
			t.Error("the file was written")
		}
	})
	t.Run("unknown config key", func(t *testing.T) {
		e := newEnv(t)
		e.file("pyproject.toml", corpus.Read(t, "pymc-devs__pytensor__pyproject.toml"))
		e.file(".pinbot.yml", []byte("packages:\n  numba:\n    cpa: inclusive\n"))
		code, out, stderr := e.run("check", "--dir", e.dir)
		if code != 2 || out != "" || !strings.Contains(stderr, ".pinbot.yml:3:5: packages.numba.cpa: unknown key") {
			t.Errorf("exit %d\nstdout %s\nstderr %s", code, out, stderr)
		}
	})
	t.Run("bad flags", func(t *testing.T) {
		e := newEnv(t)
		for _, args := range [][]string{{"check", "--format", "xml"}, {"check", "--dir", "/no/such/dir"}, {"check", "extra"}, {"frobnicate"}, {"check", "--log-format", "yaml"}} {
			if code, _, stderr := e.run(args...); code != 2 || stderr == "" {
				t.Errorf("%v: exit %d, stderr %q; want 2 with a message", args, code, stderr)
			}
		}
	})
	t.Run("configured file missing", func(t *testing.T) {
		e := newEnv(t)
		e.file(".github/pinbot.yml", []byte("files: [pyproject.toml]\n"))
		if code, _, stderr := e.run("check", "--dir", e.dir); code != 2 || !strings.Contains(stderr, "pyproject.toml") {
			t.Errorf("exit %d, stderr %q", code, stderr)
		}
	})
}

func TestCheckSourceFaults(t *testing.T) {
	const doc = "[project]\ndependencies = [\"numba>=0.58,<=0.66.0\", \"tensorflow>=2.19,<=2.19.1\", \"protobuf>=5.29.3,<6\"]\n"
	t.Run("404 for one package", func(t *testing.T) {
		e := newEnv(t)
		e.pypi.Remove("tensorflow") // PyPI answers 404
		e.file("pyproject.toml", []byte(doc))
		code, out, stderr := e.run("check", "--dir", e.dir, "--format", "json")
		if code != 1 {
			t.Errorf("exit %d, want 1", code)
		}
		for _, want := range []string{`"name": "tensorflow"`, `"status": "error"`, "404 Not Found", `"name": "numba"`, `"status": "bump"`, `"name": "protobuf"`} {
			if !strings.Contains(out, want) {
				t.Errorf("report lacks %s:\n%s", want, out)
			}
		}
		if !strings.Contains(stderr, "tensorflow: pypi:") {
			t.Errorf("stderr does not name the failed package: %s", stderr)
		}
	})
	t.Run("500 then 200", func(t *testing.T) {
		e := newEnv(t)
		e.pypi.Fail("/pypi/numba/json", fakes.Fault{Status: 500, Body: "<html>Internal Server Error</html>"})
		e.file("pyproject.toml", []byte(doc))
		code, out, stderr := e.run("check", "--dir", e.dir, "--format", "json", "--package", "numba")
		if code != 0 || !strings.Contains(out, `"after": "numba>=0.58,<=0.67.0"`) || strings.Contains(out, "tensorflow") {
			t.Errorf("exit %d\n%s\n%s", code, out, stderr)
		}
		if !strings.Contains(stderr, "retrying request") {
			t.Errorf("the retry was not logged: %s", stderr)
		}
	})
}

func TestCheckPackageFilter(t *testing.T) {
	e := newEnv(t)
	e.file("pyproject.toml", corpus.Read(t, "pymc-devs__pytensor__pyproject.toml"))
	// llvmlite is not watched by default; --package watches it for this run.
	code, out, _ := e.run("check", "--dir", e.dir, "--format", "json", "--package", "llvmlite")
	if code != 0 || !strings.Contains(out, `"after": "llvmlite<=0.49.0"`) || strings.Contains(out, `"name": "numba"`) {
		t.Errorf("exit %d\n%s", code, out)
	}
}
