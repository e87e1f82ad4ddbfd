package pins_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pinbot-dev/pinbot/internal/repofs"
	"github.com/pinbot-dev/pinbot/pins"
	"github.com/pinbot-dev/pinbot/pins/all"
	"github.com/pinbot-dev/pinbot/pins/pyproject"
)

func TestDiscover(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, ".gitignore"), []byte("/build/\n"), 0o644)
	for _, p := range []string{
		"pyproject.toml", "sub/pkg/pyproject.toml", "tools/build/pyproject.toml", // a build directory git tracks
		".git/pyproject.toml", "node_modules/x/pyproject.toml", "build/pyproject.toml", "dist/pyproject.toml",
		"testdata/pyproject.toml", "pkg/testdata/fixture/pyproject.toml",
		"env/pyvenv.cfg", "env/lib/pyproject.toml", // a virtual environment under any name
	} {
		full := filepath.Join(root, filepath.FromSlash(p))
		os.MkdirAll(filepath.Dir(full), 0o755)
		os.WriteFile(full, nil, 0o644)
	}
	os.Symlink(filepath.Join(root, "pyproject.toml"), filepath.Join(root, "sub", "link.toml"))
	found, err := pins.Discover(root, []pins.Format{pyproject.Format{}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range found {
		got = append(got, f.Path)
	}
	if want := []string{"pyproject.toml", "sub/pkg/pyproject.toml", "tools/build/pyproject.toml"}; !slices.Equal(got, want) {
		t.Errorf("Discover = %v, want %v", got, want)
	}
	if _, err := pins.Discover(filepath.Join(root, "missing"), nil); err == nil {
		t.Error("a missing root: want an error")
	}
}

// writeTree writes files (slash-separated path → contents) under root.
func writeTree(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for p, data := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// paths lists the files found, each with its format.
func paths(found []pins.Found) []string {
	var out []string
	for _, f := range found {
		out = append(out, f.Path+" "+f.Format.Name())
	}
	return out
}

const condaEnv = "name: tests\nchannels: [conda-forge]\ndependencies:\n  - numba=0.53\n  - pip:\n    - jax\n"

// TestDiscoverByContent finds conda environment files by their content
// under any name, and leaves alone YAML files that only look alike.
func TestDiscoverByContent(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		"ci/requirements/min-all-deps.yml": condaEnv,
		"binder/env.yaml":                  "dependencies:\n- numba\nname: binder\n",
		"conda-envs/environment-dev.yml":   condaEnv, // by name, as before
		"docs/mkdocs.yml":                  "site_name: x\nnav: []\n",
		"chart/Chart.yaml":                 "name: x\ndependencies:\n  - name: redis\n    version: 1.2.3\n",
		".github/workflows/ci.yml":         "name: ci\ndependencies:\n  - numba\n", // never a pin file
		"no-name.yml":                      "dependencies:\n  - numba\n",           // neither channels nor name
		"deps-map.yml":                     "name: x\ndependencies:\n  numba: 1\n", // not a list
		"big.yml":                          "name: x\ndependencies:\n  - numba\n" + strings.Repeat("#\n", pins.SniffLimit/2),
		"notes.txt":                        condaEnv,
	})
	found, err := pins.Discover(root, all.Formats())
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"binder/env.yaml condaenv", "ci/requirements/min-all-deps.yml condaenv", "conda-envs/environment-dev.yml condaenv"}
	if diff := cmp.Diff(want, paths(found)); diff != "" {
		t.Errorf("Discover (-want +got):\n%s", diff)
	}
	// A file named in the configuration is told by its content too.
	for path, want := range map[string]string{"ci/requirements/min-all-deps.yml": "condaenv", "docs/mkdocs.yml": "", "notes.txt": ""} {
		data, _ := os.ReadFile(filepath.Join(root, filepath.FromSlash(path)))
		got := ""
		if f := pins.Detect(all.Formats(), path, data); f != nil {
			got = f.Name()
		}
		if got != want {
			t.Errorf("Detect(%s) = %q, want %q", path, got, want)
		}
	}
}

// TestDiscoverGitignore skips what the repository's .gitignore files and
// .git/info/exclude ignore: patterns apply below their file's directory,
// negations re-include, and an ignored directory is not entered.
func TestDiscoverGitignore(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		".gitignore":                     "# build output\n/out/\n*.bak.txt\nrequirements-local.txt\n!keep/requirements-local.txt\n",
		".git/info/exclude":              "scratch/\n",
		"requirements.txt":               "numba\n",
		"requirements-local.txt":         "numba\n",
		"keep/requirements-local.txt":    "numba\n",
		"out/recipe/meta.yaml":           "requirements:\n  run:\n    - numba\n",
		"sub/out/requirements.txt":       "numba\n", // /out/ is anchored to the root
		"sub/.gitignore":                 "generated/\n",
		"sub/generated/requirements.txt": "numba\n",
		"generated/requirements.txt":     "numba\n", // sub's pattern is sub's only
		"old.bak.txt":                    "numba\n",
		"scratch/requirements.txt":       "numba\n",
	})
	found, err := pins.Discover(root, all.Formats())
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"generated/requirements.txt requirements", "keep/requirements-local.txt requirements",
		"requirements.txt requirements", "sub/out/requirements.txt requirements",
	}
	if diff := cmp.Diff(want, paths(found)); diff != "" {
		t.Errorf("Discover (-want +got):\n%s", diff)
	}
}

// TestSelection narrows discovery with include and exclude globs.
func TestSelection(t *testing.T) {
	found := []pins.Found{
		{Path: "pyproject.toml"}, {Path: "docs/requirements.txt"}, {Path: "ci/requirements/min.yml"},
		{Path: "examples/a/pyproject.toml"}, {Path: "examples/b/environment.yml"},
	}
	for _, tt := range []struct {
		sel  pins.Selection
		want []string
	}{
		{pins.Selection{}, []string{"pyproject.toml", "docs/requirements.txt", "ci/requirements/min.yml", "examples/a/pyproject.toml", "examples/b/environment.yml"}},
		{pins.Selection{Exclude: []string{"examples/"}}, []string{"pyproject.toml", "docs/requirements.txt", "ci/requirements/min.yml"}},
		{pins.Selection{Include: []string{"**/pyproject.toml", "ci/**"}}, []string{"pyproject.toml", "ci/requirements/min.yml", "examples/a/pyproject.toml"}},
		{pins.Selection{Include: []string{"**/*.{yml,toml}"}, Exclude: []string{"examples/*/pyproject.toml"}}, []string{"pyproject.toml", "ci/requirements/min.yml", "examples/b/environment.yml"}},
	} {
		var got []string
		for _, f := range tt.sel.Apply(found) {
			got = append(got, f.Path)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%+v: %v, want %v", tt.sel, got, tt.want)
		}
	}
	for g, ok := range map[string]bool{"ci/**": true, "examples/": true, "[": false, "/abs/*.txt": false, "../x": false, "": false, "a/../../b": false} {
		if err := pins.CheckGlob(g); (err == nil) != ok {
			t.Errorf("CheckGlob(%q) = %v", g, err)
		}
	}
}

// TestDiscoverLinks finds a link under its own name when it leads to a
// regular file inside the repository, whatever the target is called, and
// reads its content through it (a conda environment told by content); it
// skips links that lead out, nowhere, in a loop, into .git, or that
// .gitignore ignores, and does not enter a linked directory. Once keeps a
// file reached under several names under its own name, else under its first
// link.
func TestDiscoverLinks(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	writeTree(t, outside, map[string]string{"requirements.txt": "numba\n"})
	writeTree(t, root, map[string]string{
		".gitignore":           "requirements-local.txt\n",
		".git/config":          "[core]\n",
		"deps/base.txt":        "numba\n",
		"deps/env.txt":         condaEnv,
		"lib/requirements.txt": "numba\n",
		"requirements-dev.txt": "numba\n",
	})
	for name, target := range map[string]string{
		"requirements.txt":        "deps/base.txt",    // the case: the target's name is no pin file name
		"ci/requirements-ci.txt":  "../deps/base.txt", // the same file under a third name
		"abs-requirements.txt":    filepath.Join(root, "deps", "base.txt"),
		"constraints.txt":         "requirements-dev.txt", // a file found under its own name too
		"env/link.yml":            "../deps/env.txt",      // told by the content behind it
		"out-requirements.txt":    filepath.Join(outside, "requirements.txt"),
		"up-requirements.txt":     "../" + filepath.Base(outside) + "/requirements.txt",
		"gone-requirements.txt":   "deps/missing.txt",
		"loop-requirements.txt":   "loop-requirements.txt",
		"git-requirements.txt":    ".git/config",
		"requirements-local.txt":  "deps/base.txt", // ignored by .gitignore
		"linked":                  "lib",           // a directory: not entered
		"dir-requirements.txt":    "lib",
		"deps/requirements-x.txt": "../requirements.txt", // a link to a link
	} {
		full := filepath.Join(root, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(full), 0o755)
		if err := os.Symlink(filepath.FromSlash(target), full); err != nil {
			t.Fatal(err)
		}
	}
	found, err := pins.Discover(root, all.Formats())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range found {
		got = append(got, f.Path+" "+f.Format.Name()+" -> "+f.Target)
	}
	want := []string{
		"abs-requirements.txt requirements -> deps/base.txt",
		"ci/requirements-ci.txt requirements -> deps/base.txt",
		"constraints.txt requirements -> requirements-dev.txt",
		"deps/requirements-x.txt requirements -> deps/base.txt",
		"env/link.yml condaenv -> deps/env.txt",
		"lib/requirements.txt requirements -> ",
		"requirements-dev.txt requirements -> ",
		"requirements.txt requirements -> deps/base.txt",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Discover (-want +got):\n%s", diff)
	}
	got = nil
	for _, f := range pins.Once(found) {
		got = append(got, f.Path)
	}
	if want := []string{"abs-requirements.txt", "env/link.yml", "lib/requirements.txt", "requirements-dev.txt"}; !slices.Equal(got, want) {
		t.Errorf("Once = %v, want %v", got, want)
	}
}

// TestWalk visits every file a repository's own sources are in, whatever
// its name (the usage checks read its .py files), in lexical order, with
// the skip rules of discovery, and a link under its own name with its
// target.
func TestWalk(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		".gitignore":          "build/\n",
		"pkg/core.py":         "import numba\n",
		"pkg/README":          "",
		"requirements.txt":    "numba\n",
		"build/lib/core.py":   "",
		"env/pyvenv.cfg":      "",
		"env/lib/site.py":     "",
		"vendor/v.py":         "",
		"tests/testdata/x.py": "",
		"__pycache__/c.pyc":   "",
	})
	if err := os.Symlink("core.py", filepath.Join(root, "pkg", "alias.py")); err != nil {
		t.Fatal(err)
	}
	repo, err := repofs.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	defer repo.Close()
	var got []string
	if err := pins.Walk(repo.FS(), func(p, target string) { got = append(got, p+" -> "+target) }); err != nil {
		t.Fatal(err)
	}
	want := []string{".gitignore -> ", "pkg/README -> ", "pkg/alias.py -> pkg/core.py", "pkg/core.py -> ", "requirements.txt -> "}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Walk (-want +got):\n%s", diff)
	}
}

// TestWalkBuildOutput: setuptools' output in a build directory (build/lib,
// build/lib.<platform>, build/bdist.<platform>, at the root or under a
// subproject) is skipped with no .gitignore, and links into it are not
// visited; the rest of build/ is the project's own.
func TestWalkBuildOutput(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		"build/lib/pkg/core.py":                          "",
		"build/lib.linux-x86_64-cpython-312/pkg/core.py": "",
		"build/bdist.linux-x86_64/wheel/pkg/core.py":     "",
		"sub/build/lib/pkg/core.py":                      "",
		"build/requirements.txt":                         "numba\n",
		"build/scripts/make.py":                          "",
		"build/library/keep.py":                          "",
		"lib/pkg/core.py":                                "",
		"tools/lib.x/keep.py":                            "",
	})
	if err := os.Symlink("build/lib/pkg/core.py", filepath.Join(root, "copy.py")); err != nil {
		t.Fatal(err)
	}
	repo, err := repofs.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	defer repo.Close()
	var got []string
	if err := pins.Walk(repo.FS(), func(p, target string) { got = append(got, p+" -> "+target) }); err != nil {
		t.Fatal(err)
	}
	want := []string{"build/library/keep.py -> ", "build/requirements.txt -> ", "build/scripts/make.py -> ", "lib/pkg/core.py -> ", "tools/lib.x/keep.py -> "}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Walk (-want +got):\n%s", diff)
	}
}
