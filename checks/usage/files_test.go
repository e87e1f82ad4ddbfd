package usage_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pinbot-dev/pinbot/checks/usage"
	"github.com/pinbot-dev/pinbot/internal/repofs"
)

// repo writes files (path -> content; content "->target" makes a symbolic
// link) under a new directory and opens it as a repository.
func repo(t *testing.T, files map[string]string) *repofs.Root {
	t.Helper()
	root := t.TempDir()
	for p, data := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if target, ok := strings.CutPrefix(data, "->"); ok {
			if err := os.Symlink(filepath.FromSlash(target), full); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.WriteFile(full, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r, err := repofs.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

func findIn(t *testing.T, r *repofs.Root, opts usage.Options) (*usage.Result, []string, []string) {
	t.Helper()
	if opts.Packages == nil {
		opts.Packages = []usage.Package{{Name: "numba"}}
	}
	res, err := usage.Find(context.Background(), r.FS(), opts)
	if err != nil {
		t.Fatal(err)
	}
	var refs, warns []string
	for _, x := range res.Refs {
		refs = append(refs, x.File+":"+show(x))
	}
	for _, w := range res.Warnings {
		warns = append(warns, w.Error())
	}
	return res, refs, warns
}

// TestFindFiles reads the .py and .pyi files pin discovery's walk visits
// (tests included; virtual environments, vendored code, what .gitignore
// ignores, test fixtures skipped), a link to a file once, and a file that
// does not parse is a warning naming its place while the others are read.
func TestFindFiles(t *testing.T) {
	r := repo(t, map[string]string{
		".gitignore":                "build/\n",
		"pkg/__init__.py":           "",
		"pkg/core.py":               "import numba\n",
		"pkg/stub.pyi":              "from numba import njit\n",
		"pkg/link.py":               "->core.py",
		"tests/test_core.py":        "import numba.core\n",
		"pkg/bad.py":                "import numba\ndef f(:\n",
		"pkg/py2.py":                "print 'hello'\n",
		"notes.txt":                 "import numba\n",
		"env/pyvenv.cfg":            "home = /usr\n",
		"env/lib/site.py":           "import numba\n",
		".venv/lib/x.py":            "import numba\n",
		"vendor/v.py":               "import numba\n",
		"build/lib/pkg/core.py":     "import numba\n",
		"tests/testdata/fixture.py": "import numba\n",
		"node_modules/x/y.py":       "import numba\n",
	})
	res, refs, warns := findIn(t, r, usage.Options{})
	want := []string{
		"pkg/core.py:1:8 import numba",
		"pkg/stub.pyi:1:19 import numba.njit <numba>",
		"tests/test_core.py:1:14 import numba.core",
	}
	if diff := cmp.Diff(want, refs); diff != "" {
		t.Errorf("refs (-want +got):\n%s", diff)
	}
	wantWarns := []string{
		"pkg/bad.py:2:7: invalid syntax (file skipped; the others are read)",
		"pkg/py2.py:1:7: invalid syntax (file skipped; the others are read)",
	}
	if diff := cmp.Diff(wantWarns, warns); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
	if res.Files != 6 {
		t.Errorf("Files = %d, want 6 (__init__, core, stub, test, bad, py2; the link is core)", res.Files)
	}
}

// TestFindGlobs narrows the files read with the configuration's usage
// include and exclude globs.
func TestFindGlobs(t *testing.T) {
	r := repo(t, map[string]string{
		"src/a.py":        "import numba\n",
		"src/gen/b.py":    "import numba\n",
		"tests/test_a.py": "import numba\n",
		"docs/conf.py":    "import numba\n",
	})
	_, refs, _ := findIn(t, r, usage.Options{Include: []string{"src/**", "tests/"}, Exclude: []string{"src/gen/"}})
	want := []string{"src/a.py:1:8 import numba", "tests/test_a.py:1:8 import numba"}
	if diff := cmp.Diff(want, refs); diff != "" {
		t.Errorf("refs (-want +got):\n%s", diff)
	}
}

// TestFindOwnModule: a module the repository provides itself at a source
// root (the project is a fork of the package, or names a module so) is
// what its imports import: not listed, with a warning naming the file.
func TestFindOwnModule(t *testing.T) {
	r := repo(t, map[string]string{
		"src/numba/__init__.py":  "",
		"app.py":                 "import numba\nimport llvmlite\n",
		"pytensor/link/numba.py": "import llvmlite.binding\n", // not at a source root
	})
	_, refs, warns := findIn(t, r, usage.Options{Packages: []usage.Package{{Name: "numba"}, {Name: "llvmlite"}}})
	if diff := cmp.Diff([]string{"app.py:2:8 import llvmlite", "pytensor/link/numba.py:1:17 import llvmlite.binding"}, refs); diff != "" {
		t.Errorf("refs (-want +got):\n%s", diff)
	}
	want := []string{"src/numba/__init__.py: numba: the repository has its own module numba: its imports of numba are not numba's, and are not listed"}
	if diff := cmp.Diff(want, warns); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
}

// TestFindTooLarge: a file over repofs's limit is a warning, not a read.
func TestFindTooLarge(t *testing.T) {
	r := repo(t, map[string]string{
		"big.py":   "x = 1\n" + strings.Repeat("#", repofs.MaxFileSize),
		"small.py": "import numba\n",
	})
	_, refs, warns := findIn(t, r, usage.Options{})
	if len(refs) != 1 || len(warns) != 1 || !strings.HasPrefix(warns[0], "big.py: refused: larger than the 4 MiB limit") {
		t.Errorf("refs %q, warnings %q", refs, warns)
	}
}

// TestFindOrder sorts by package, then file, line and column, whatever the
// order the workers finish in, and says nothing for a package no file uses.
func TestFindOrder(t *testing.T) {
	files := map[string]string{}
	for _, name := range []string{"z.py", "a.py", "m/b.py", "m/a.py"} {
		files[name] = "import numba\nimport llvmlite\nnumba.njit\n"
	}
	r := repo(t, files)
	_, refs, _ := findIn(t, r, usage.Options{Packages: []usage.Package{{Name: "numba"}, {Name: "llvmlite"}, {Name: "scipy"}}, Workers: 3})
	var want []string
	for _, pkg := range []string{"llvmlite", "numba"} {
		for _, f := range []string{"a.py", "m/a.py", "m/b.py", "z.py"} {
			if pkg == "llvmlite" {
				want = append(want, f+":2:8 import llvmlite")
			} else {
				want = append(want, f+":1:8 import numba", f+":3:7 attribute numba.njit <numba>")
			}
		}
	}
	if diff := cmp.Diff(want, refs); diff != "" {
		t.Errorf("refs (-want +got):\n%s", diff)
	}
}

// TestFindCancelled: an ended context is an error, not a partial result.
func TestFindCancelled(t *testing.T) {
	r := repo(t, map[string]string{"a.py": "import numba\n"})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := usage.Find(ctx, r.FS(), usage.Options{Packages: []usage.Package{{Name: "numba"}}}); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

// TestModules: import names from the table, else the normalised name.
func TestModules(t *testing.T) {
	for name, want := range map[string][]string{
		"numba": {"numba"}, "scikit-learn": {"sklearn"}, "Scikit_Learn": {"sklearn"}, "protobuf": {"google.protobuf"},
		"typing-extensions": {"typing_extensions"}, "Typing.Extensions": {"typing_extensions"}, "tf-nightly": {"tensorflow"},
		"github.com/x/y": nil,
	} {
		if got := usage.Modules(name); !cmp.Equal(want, got) {
			t.Errorf("Modules(%q) = %q, want %q", name, got, want)
		}
	}
}
