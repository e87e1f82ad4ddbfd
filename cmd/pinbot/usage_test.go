package main

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// usageSources is where the realistic Python sources of usageRepo are:
// the finder's own test data, which its fuzz target also starts from.
const usageSources = "../../checks/usage/testdata"

// usageRepo writes a repository whose Python code uses watched packages in
// each way pinbot usage finds: pytensor's numba cache monkeypatch, MLIR's
// tests of Context's live operations (through a star import), a
// scikit-learn estimator calling its base's _validate_data, compatibility
// shims, mock.patch and monkeypatch targets; a file that does not parse, a
// package whose usage is off, and a directory the configuration excludes.
func usageRepo(t *testing.T) string {
	dir := t.TempDir()
	files := map[string]string{
		"pytensor/link/numba/cache.py": "@pytensor_cache.py",
		"tests/mlir/test_context.py":   "@mlir_context_lifecycle.py",
		"skl/estimator.py":             "@sklearn_estimator.py",
		"pkg/compat.py":                "@compat.py",
		"tests/test_patch.py":          "@tests_patch.py",
		"pkg/broken.py":                "import numba\n\ndef broken(:\n    pass\n",
		"pkg/tf.py":                    "import tensorflow as tf\ntf.compat.v1.Session()\n",
		"docs/conf.py":                 "import numba\nnumba.this_is_excluded\n",
		".pinbot.yml":                  "packages:\n  numba: {}\n  scikit-learn: {}\n  mlir-python-bindings: {}\n  tensorflow: {usage: off}\nusage:\n  exclude: [docs/]\n",
	}
	for name, data := range files {
		if src, ok := strings.CutPrefix(data, "@"); ok {
			b, err := os.ReadFile(filepath.Join(usageSources, src))
			if err != nil {
				t.Fatal(err)
			}
			data = string(b)
		}
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestUsage lists the references of usageRepo, as text and as JSON.
func TestUsage(t *testing.T) {
	e := newEnv(t)
	repo := usageRepo(t)
	for format, name := range map[string]string{"text": "usage.text", "json": "usage.json"} {
		code, out, stderr := e.run("usage", "--dir", repo, "--format", format)
		if code != 0 || stderr != "" {
			t.Fatalf("%s: exit %d\n%s", format, code, stderr)
		}
		golden(t, name, out)
	}
	// The JSON is the text's: every package, reference and warning.
	_, out, _ := e.run("usage", "--dir", repo, "--format", "json")
	var rep struct {
		Schema   int
		Files    int
		Warnings []string
		Packages []struct {
			Name, Usage string
			References  []struct {
				Name, Kind, File string
				Line, Col        int
				Private, Guarded bool
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	_, text, _ := e.run("usage", "--dir", repo)
	n := 0
	for _, p := range rep.Packages {
		for _, r := range p.References {
			line := "  " + r.File + ":" + strconv.Itoa(r.Line) + ":" + strconv.Itoa(r.Col) + "  " + r.Kind + "  " + r.Name
			if r.Private {
				line += "  private"
			}
			if r.Guarded {
				line += "  guarded"
			}
			if !strings.Contains(text, line+"\n") {
				t.Errorf("the text has no %q", line)
			}
			n++
		}
	}
	if rep.Schema != 1 || rep.Files != 7 || len(rep.Warnings) != 1 || n == 0 {
		t.Errorf("schema %d, %d files, warnings %q, %d references", rep.Schema, rep.Files, rep.Warnings, n)
	}
}

// TestUsagePytensorCache: the real shape of pytensor's
// pytensor/link/numba/cache.py, with no configuration (numba is watched by
// default): its module-level replacement of
// numba.core.bytecode.FunctionIdentity._unique_ids is an assignment to a
// private name, not guarded.
func TestUsagePytensorCache(t *testing.T) {
	e := newEnv(t)
	src, err := os.ReadFile(filepath.Join(usageSources, "pytensor_cache.py"))
	if err != nil {
		t.Fatal(err)
	}
	e.file("pytensor/link/numba/cache.py", src)
	code, out, stderr := e.run("usage", "--dir", e.dir)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	want := `numba: 6 references in 1 file
  pytensor/link/numba/cache.py:14:33  import  numba.core.bytecode.FunctionIdentity
  pytensor/link/numba/cache.py:15:32  import  numba.core.caching.CacheImpl
  pytensor/link/numba/cache.py:15:43  import  numba.core.caching._CacheLocator  private
  pytensor/link/numba/cache.py:41:18  assign  numba.core.bytecode.FunctionIdentity._unique_ids  private
  pytensor/link/numba/cache.py:44:29  base  numba.core.caching._CacheLocator  private
  pytensor/link/numba/cache.py:70:28  call  numba.core.caching.CacheImpl._locator_classes.insert  private

protobuf: no references (modules google.protobuf)

tensorflow: no references (modules tensorflow)

1 Python file read
`
	if diff := cmp.Diff(want, out); diff != "" {
		t.Errorf("usage (-want +got):\n%s", diff)
	}
}

// TestUsagePackage: --package lists only the packages it names, a package
// the configuration does not watch but a pin file pins included; a name
// neither watched nor pinned is a usage error, as for pinbot check.
func TestUsagePackage(t *testing.T) {
	e := newEnv(t)
	e.file("pyproject.toml", []byte("[project]\nname = \"x\"\ndependencies = [\"llvmlite<=0.48\"]\n"))
	e.file("x/jit.py", []byte("import llvmlite.binding as llvm\nllvm.initialize()\nimport numba\n"))
	code, out, stderr := e.run("usage", "--dir", e.dir, "--package", "LLVMLite")
	want := "llvmlite: 2 references in 1 file\n  x/jit.py:1:17  import  llvmlite.binding\n  x/jit.py:2:6  call  llvmlite.binding.initialize\n\n1 Python file read\n"
	if code != 0 || out != want {
		t.Errorf("exit %d\n%s\n%s", code, out, stderr)
	}
	code, out, stderr = e.run("usage", "--dir", e.dir, "--package", "numba", "--package", "nunba")
	if code != 2 || out != "" || !strings.Contains(stderr, "--package nunba: neither watched nor pinned in any pin file (watched packages: numba, protobuf, tensorflow)") {
		t.Errorf("an unknown package: exit %d\n%s\n%s", code, out, stderr)
	}
}

// TestUsageErrors: bad flags and configurations exit 2, naming the
// problem, and print nothing on stdout.
func TestUsageErrors(t *testing.T) {
	e := newEnv(t)
	bad := e.file("bad.yml", []byte("usage:\n  include: [/abs]\n"))
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"usage", "--format", "markdown"}, `--format: expected text or json, found "markdown"`},
		{[]string{"usage", "--package", " "}, "--package: empty name"},
		{[]string{"usage", "--dir", filepath.Join(e.dir, "missing")}, "is not a directory"},
		{[]string{"usage", "extra"}, `unknown command "extra"`},
		{[]string{"usage", "--config", bad}, `bad.yml:2:13: usage.include[0]: "/abs": expected a pattern relative to the repository root`},
	} {
		args := tt.args
		if !slices.Contains(args, "--dir") {
			args = append(slices.Clip(args), "--dir", e.dir)
		}
		code, out, stderr := e.run(args...)
		if code != 2 || out != "" || !strings.Contains(stderr, tt.want) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want 2 and %q", tt.args, code, out, stderr, tt.want)
		}
	}
}

// TestUsageOffline: pinbot usage asks no server and runs no Python: no
// HTTP client is made, and the python on PATH, which would leave a mark,
// is never started.
func TestUsageOffline(t *testing.T) {
	bin := t.TempDir()
	mark := filepath.Join(t.TempDir(), "ran")
	for _, name := range []string{"python", "python3", "uv", "pip"} {
		script := "#!/bin/sh\necho \"$0 $*\" >> " + mark + "\n"
		if err := os.WriteFile(filepath.Join(bin, name), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	repo := usageRepo(t)
	t.Setenv("PATH", bin)
	e := newEnv(t)
	e.vars = map[string]string{"PATH": bin}
	e.setup = func(f *Factory) {
		f.HTTPClient = func() *http.Client {
			t.Error("pinbot usage made an HTTP client")
			return &http.Client{Transport: failTransport{}}
		}
	}
	for _, args := range [][]string{
		{"usage", "--dir", repo},
		{"usage", "--dir", repo, "--format", "json", "--package", "numba"},
	} {
		if code, _, stderr := e.run(args...); code != 0 {
			t.Errorf("%q: exit %d\n%s", args, code, stderr)
		}
	}
	if b, err := os.ReadFile(mark); err == nil {
		t.Errorf("pinbot usage ran %s", b)
	}
}

// failTransport answers no request.
type failTransport struct{}

func (failTransport) RoundTrip(*http.Request) (*http.Response, error) {
	return nil, http.ErrNotSupported
}

// TestUsageDoc runs the example of docs/usage.md and the README's: their
// Python files and configuration make a repository, and pinbot usage prints
// the page's output block, byte for byte.
func TestUsageDoc(t *testing.T) {
	t.Run("docs", func(t *testing.T) { usageExample(t, "docs/usage.md", "An example") })
	t.Run("README", func(t *testing.T) { usageExample(t, "README.md", "Guard without configuration") })
}

// usageExample runs the example in the section heading of the page at
// name (a path from the module root).
func usageExample(t *testing.T, name, heading string) {
	page, err := os.ReadFile(filepath.Join("..", "..", filepath.FromSlash(name)))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(page), "\n## "+heading+"\n")
	section, _, _ = strings.Cut(section, "\n## ")
	if !ok {
		t.Fatalf("%s: no %s section", name, heading)
	}
	e := newEnv(t)
	var want string
	files := 0
	for rest := section; ; {
		_, block, found := strings.Cut(rest, "\n```")
		if !found {
			break
		}
		lang, body, _ := strings.Cut(block, "\n")
		body, after, closed := strings.Cut(body, "```\n")
		if !closed {
			t.Fatalf("%s: an unclosed code block", name)
		}
		rest = after
		switch lang {
		case "python":
			name, src, _ := strings.Cut(body, "\n")
			e.file(strings.TrimPrefix(name, "# "), []byte(src))
			files++
		case "yaml":
			e.file(".pinbot.yml", []byte(body))
		case "":
			want = body
		}
	}
	if files == 0 || want == "" {
		t.Fatalf("%s: %d Python files, output %q", name, files, want)
	}
	code, out, stderr := e.run("usage", "--dir", e.dir)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if diff := cmp.Diff(want, out); diff != "" {
		t.Errorf("%s's example is not what pinbot usage prints (-want +got):\n%s", name, diff)
	}
}

// usageJSON runs pinbot usage --format json over e's repository and
// returns each reference of the package pkg as "file:line:col kind name"
// with " guarded" when it is.
func usageJSON(t *testing.T, e *env, pkg string) []string {
	t.Helper()
	code, out, stderr := e.run("usage", "--dir", e.dir, "--format", "json", "--package", pkg)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	var rep struct {
		Packages []struct {
			Name       string
			References []struct {
				Name, Kind, File string
				Line, Col        int
				Guarded          bool
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range rep.Packages {
		for _, r := range p.References {
			s := r.File + ":" + strconv.Itoa(r.Line) + ":" + strconv.Itoa(r.Col) + " " + r.Kind + " " + r.Name
			if r.Guarded {
				s += " guarded"
			}
			got = append(got, s)
		}
	}
	return got
}

// TestUsageSelfInstance: a unittest class that stores MLIR's Context on
// self in setUp and calls its private method in a test: the call is the
// class's attribute, an instance reference.
func TestUsageSelfInstance(t *testing.T) {
	e := newEnv(t)
	e.file(".pinbot.yml", []byte("packages:\n  mlir-python-bindings: {}\n"))
	e.file("tests/test_live.py", []byte("import unittest\nfrom mlir.ir import Context\n\n\nclass LiveTest(unittest.TestCase):\n"+
		"    def setUp(self):\n        self.ctx = Context()\n\n    def test_live(self):\n        self.assertEqual(self.ctx._get_live_operation_count(), 0)\n"))
	want := []string{"tests/test_live.py:2:21 import mlir.ir.Context", "tests/test_live.py:7:20 call mlir.ir.Context",
		"tests/test_live.py:10:35 instance mlir.ir.Context._get_live_operation_count"}
	if diff := cmp.Diff(want, usageJSON(t, e, "mlir-python-bindings")); diff != "" {
		t.Errorf("references (-want +got):\n%s", diff)
	}
}

// TestUsageEarlyExit: a test module that skips itself on an old numba
// and a function that returns early without numba.prange: what follows
// each is guarded.
func TestUsageEarlyExit(t *testing.T) {
	e := newEnv(t)
	e.file("tests/test_prange.py", []byte("import numba\nimport pytest\n\n"+
		"if tuple(map(int, numba.__version__.split(\".\")[:2])) < (0, 59):\n    pytest.skip(\"needs numba 0.59\", allow_module_level=True)\n\n\n"+
		"def total(x):\n    if not hasattr(numba, \"prange\"):\n        return sum(x)\n    return sum(x[i] for i in numba.prange(len(x)))\n\n\n"+
		"def test_njit():\n    numba.njit(total)\n"))
	want := []string{"tests/test_prange.py:1:8 import numba", "tests/test_prange.py:4:25 attribute numba.__version__",
		"tests/test_prange.py:9:28 attribute numba.prange guarded", "tests/test_prange.py:11:36 call numba.prange guarded",
		"tests/test_prange.py:15:11 call numba.njit guarded"}
	if diff := cmp.Diff(want, usageJSON(t, e, "numba")); diff != "" {
		t.Errorf("references (-want +got):\n%s", diff)
	}
}
