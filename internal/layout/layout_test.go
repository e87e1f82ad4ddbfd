package layout_test

import (
	"errors"
	"go/build"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/pinbot-dev/pinbot"

// pkg is one package of the module: its path relative to the module root
// and the module packages it imports (tests excluded).
type pkg struct {
	rel     string
	imports []string
}

// packages reads every package of the module from its files (go/build:
// the import lines, nothing compiled), keyed by relative path.
func packages(t *testing.T) (root string, out map[string]pkg) {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	out = map[string]pkg{}
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		name := d.Name()
		if path != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata") {
			return filepath.SkipDir
		}
		bp, err := build.ImportDir(path, 0)
		var noGo *build.NoGoError
		if errors.As(err, &noGo) {
			return nil // a directory of directories, or of data
		}
		if err != nil {
			t.Errorf("%s: %v", path, err)
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		p := pkg{rel: filepath.ToSlash(rel)}
		for _, imp := range bp.Imports {
			if r, ok := strings.CutPrefix(imp, module+"/"); ok {
				p.imports = append(p.imports, r)
			}
		}
		out[p.rel] = p
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) < 20 {
		t.Fatalf("only %d packages found under %s", len(out), root)
	}
	return root, out
}

// deps returns every module package p imports, directly or not.
func deps(all map[string]pkg, p string) []string {
	seen := map[string]bool{}
	var walk func(string)
	walk = func(q string) {
		for _, imp := range all[q].imports {
			if !seen[imp] {
				seen[imp] = true
				walk(imp)
			}
		}
	}
	walk(p)
	out := make([]string, 0, len(seen))
	for d := range seen {
		out = append(out, d)
	}
	slices.Sort(out)
	return out
}

// under reports whether p is dir or inside it.
func under(p, dir string) bool { return p == dir || strings.HasPrefix(p, dir+"/") }

// TestRoomsImportOneWay: the verifier imports neither planning nor
// publishing, planning does not import publishing, and the shared report
// imports no room, directly or through another package.
func TestRoomsImportOneWay(t *testing.T) {
	_, all := packages(t)
	rules := []struct {
		from      string
		forbidden []string
	}{
		{"bot/verifying", []string{"bot/planning", "bot/publishing"}},
		{"bot/planning", []string{"bot/publishing"}},
		{"bot/report", []string{"bot/planning", "bot/verifying", "bot/publishing"}},
	}
	for _, r := range rules {
		n := 0
		for name := range all {
			if !under(name, r.from) {
				continue
			}
			n++
			for _, d := range deps(all, name) {
				for _, f := range r.forbidden {
					if under(d, f) {
						t.Errorf("%s imports %s (directly or through another package): %s must not import %s", name, d, r.from, f)
					}
				}
			}
		}
		if n == 0 {
			t.Errorf("no package under %s", r.from)
		}
	}
}

// rank orders the top-level packages as ARCHITECTURE.md's code map does: a
// package may import only packages of a higher rank (and internal/...),
// or its own tree.
var rank = map[string]int{
	"cmd": 0, "fleet": 1, "bot": 2, "config": 3, "checks": 4,
	"pins": 5, "sources": 5, "versions": 6, "web": 6,
}

func top(p string) string {
	t, _, _ := strings.Cut(p, "/")
	return t
}

// TestImportsRunDown: no package imports upward, and pins and sources
// never import each other.
func TestImportsRunDown(t *testing.T) {
	_, all := packages(t)
	for name, p := range all {
		from := top(name)
		rf, ok := rank[from]
		if !ok {
			continue // internal, bench: used by tests and tools anywhere
		}
		for _, imp := range p.imports {
			to := top(imp)
			rt, ok := rank[to]
			if !ok || to == from {
				continue
			}
			if rt <= rf {
				t.Errorf("%s imports %s: %s may import only packages below it (%v)", name, imp, from, below(rf))
			}
		}
	}
}

func below(r int) []string {
	var out []string
	for name, x := range rank {
		if x > r {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// codeRE finds the package paths ARCHITECTURE.md names in backticks.
var codeRE = regexp.MustCompile("`([a-z0-9_./]+)`")

// TestCodeMap: every package of the module has an entry in ARCHITECTURE.md's
// code map.
func TestCodeMap(t *testing.T) {
	root, all := packages(t)
	b, err := os.ReadFile(filepath.Join(root, "ARCHITECTURE.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	i := strings.Index(text, "\n## Code map\n")
	j := strings.Index(text, "\n## Invariants")
	if i < 0 || j < i {
		t.Fatal("ARCHITECTURE.md: no \"## Code map\" section followed by \"## Invariants\"")
	}
	named := map[string]bool{}
	for _, m := range codeRE.FindAllStringSubmatch(text[i:j], -1) {
		named[m[1]] = true
	}
	for name := range all {
		if !named[name] {
			t.Errorf("package %s has no entry in ARCHITECTURE.md's code map: add a line saying what it owns and what it must not do", name)
		}
	}
}
