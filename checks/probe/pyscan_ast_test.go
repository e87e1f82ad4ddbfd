package probe

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

// TestScanAgreesWithAST compares the scanner with Python's own parser on real
// code: the test interpreter's standard library (top-level modules and asyncio)
// and Debian's numba when installed. For every file, the names bound at module
// level and in each top-level class, and the line spans of defs, classes and
// methods, must be the same. (Run by hand over the standard library and all of
// dist-packages and site-packages here, 15,020 files, they were.)
func TestScanAgreesWithAST(t *testing.T) {
	t.Parallel() // slow (environments, subprocesses): overlaps the other tests
	py := testPython(t)
	stdlib, err := exec.Command(py, "-c", "import sysconfig; print(sysconfig.get_paths()['stdlib'])").Output()
	if err != nil {
		t.Fatal(err)
	}
	dirs := []string{strings.TrimSpace(string(stdlib)), filepath.Join(strings.TrimSpace(string(stdlib)), "asyncio")}
	for _, d := range []string{"/usr/lib/python3/dist-packages/numba/core", "/usr/lib/python3/dist-packages/numba/np"} {
		if _, err := os.Stat(d); err == nil {
			dirs = append(dirs, d)
		}
	}
	out := filepath.Join(t.TempDir(), "ast.json")
	cmd := exec.Command(py, append([]string{filepath.Join("testdata", "astnames.py"), out}, dirs...)...)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("astnames.py: %v\n%s", err, b)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	type scope struct {
		Names []string
		Spans map[string][2]int
	}
	var files map[string]struct {
		scope
		Classes map[string]scope
	}
	if err := json.Unmarshal(b, &files); err != nil {
		t.Fatal(err)
	}
	if len(files) < 100 {
		t.Fatalf("only %d files parsed", len(files))
	}
	var diffs []string
	compare := func(where string, want scope, sc *pyScope) {
		// The dump lists the names under if TYPE_CHECKING too, which the
		// scanner keeps apart (they do not exist at run time).
		names := map[string][]*pyBinding{}
		for _, s := range []*pyScope{sc, sc.typeOnly} {
			if s != nil {
				for n, bs := range s.names {
					names[n] = append(names[n], bs...)
				}
			}
		}
		var got []string
		for n, bs := range names {
			if len(bs) == 1 && bs[0].kind == bOther && !slices.Contains(want.Names, n) {
				continue // walrus targets, which the dump does not list
			}
			got = append(got, n)
		}
		sort.Strings(got)
		if !slices.Equal(got, want.Names) {
			diffs = append(diffs, fmt.Sprintf("%s: names\n got %q\nwant %q", where, got, want.Names))
		}
		for name, span := range want.Spans {
			var last *pyBinding
			for _, b := range names[name] {
				if (b.kind == bDef || b.kind == bClass) && (last == nil || b.line > last.line) {
					last = b
				}
			}
			if last == nil || last.line != span[0] || last.end != span[1] {
				diffs = append(diffs, fmt.Sprintf("%s.%s: span %v, want %v", where, name, last, span))
			}
		}
	}
	for p, want := range files {
		src, _ := os.ReadFile(p)
		f, err := scanPython(string(src))
		if err != nil || f.broken != "" {
			diffs = append(diffs, fmt.Sprintf("%s: %v %s", p, err, f.broken))
			continue
		}
		compare(p, want.scope, f.top)
		for cls, cw := range want.Classes {
			var last *pyBinding // the last class statement of that name
			for _, b := range f.top.names[cls] {
				if b.kind == bClass && b.cond == "" {
					last = b
				}
			}
			if last == nil {
				diffs = append(diffs, fmt.Sprintf("%s: class %s not found", p, cls))
				continue
			}
			compare(p+":"+cls, cw, last.body)
		}
	}
	for i, d := range diffs {
		if i == 20 {
			t.Errorf("... and %d more", len(diffs)-20)
			break
		}
		t.Error(d)
	}
	t.Logf("%d files compared", len(files))
}
