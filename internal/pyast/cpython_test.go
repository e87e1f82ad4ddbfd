package pyast

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
)

// testPython returns the python3 to compare with: $PINBOT_PYTHON, else
// python3 on PATH. Tests skip without one, but fail when
// PINBOT_INTEGRATION=1 (CI must run them).
func testPython(t testing.TB) string {
	t.Helper()
	p := os.Getenv("PINBOT_PYTHON")
	if p == "" {
		p, _ = exec.LookPath("python3")
	}
	if p == "" {
		if os.Getenv("PINBOT_INTEGRATION") == "1" {
			t.Fatal("PINBOT_INTEGRATION=1 but python3 is not on PATH")
		}
		t.Skip("python3 not on PATH")
	}
	return p
}

// corpusDirs are the directories of Python files compared with CPython:
// $PYAST_CORPUS (a list like PATH), else the standard library and Debian's
// dist-packages.
func corpusDirs() []string {
	if v := os.Getenv("PYAST_CORPUS"); v != "" {
		return filepath.SplitList(v)
	}
	return []string{"/usr/lib/python3.11", "/usr/lib/python3/dist-packages"}
}

// corpusFiles lists every .py file under dirs, sorted.
func corpusFiles(t testing.TB, dirs []string) []string {
	var files []string
	for _, dir := range dirs {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if d.Type().IsRegular() && strings.HasSuffix(path, ".py") {
				files = append(files, path)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	sort.Strings(files)
	return files
}

// A pyResult is what testdata/dump.py said of one file.
type pyResult struct {
	kind string // SKIP, ERROR, HASH, or DUMP with the full text
	text string
}

// runDump runs testdata/dump.py over files in workers processes and returns
// its verdict on each.
func runDump(t testing.TB, py string, files []string, hash bool, workers int) map[string]pyResult {
	t.Helper()
	results := map[string]pyResult{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	errs := make([]error, workers)
	for w := 0; w < workers; w++ {
		var part []string
		for i := w; i < len(files); i += workers {
			part = append(part, files[i])
		}
		wg.Add(1)
		go func(w int, part []string) {
			defer wg.Done()
			args := []string{"testdata/dump.py"}
			if hash {
				args = append(args, "--hash")
			}
			cmd := exec.Command(py, args...)
			cmd.Stdin = strings.NewReader(strings.Join(part, "\n") + "\n")
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				errs[w] = fmt.Errorf("%s: %v\n%s", py, err, stderr.String())
				return
			}
			parsed := parseDump(out)
			mu.Lock()
			for k, v := range parsed {
				results[k] = v
			}
			mu.Unlock()
		}(w, part)
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	return results
}

func parseDump(out []byte) map[string]pyResult {
	res := map[string]pyResult{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<30)
	var file string
	var body strings.Builder
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "FILE "):
			file = line[5:]
			body.Reset()
		case line == "END":
			text := body.String()
			r := pyResult{kind: "DUMP", text: text}
			for _, k := range []string{"SKIP", "ERROR", "HASH"} {
				if strings.HasPrefix(text, k+" ") {
					r = pyResult{kind: k, text: strings.TrimSpace(text[len(k)+1:])}
				}
			}
			res[file] = r
		default:
			body.WriteString(line)
			body.WriteByte('\n')
		}
	}
	return res
}

// TestCPython parses every Python file of a real corpus with both pyast and
// CPython's ast module and requires the same verdict (accepted or
// rejected) and, when accepted, the same tree: node kinds, positions and
// key fields in the canonical form of dump_test.go and testdata/dump.py.
func TestCPython(t *testing.T) {
	py := testPython(t)
	var dirs []string
	for _, d := range corpusDirs() {
		if _, err := os.Stat(d); err == nil {
			dirs = append(dirs, d)
		}
	}
	if len(dirs) == 0 {
		t.Skipf("none of %v exists", corpusDirs())
	}
	files := corpusFiles(t, dirs)
	if testing.Short() {
		var some []string
		for i := 0; i < len(files); i += 10 {
			some = append(some, files[i])
		}
		files = some
	}
	results := runDump(t, py, files, true, 2)
	var compared, rejected, skipped int
	var bad []string
	for _, path := range files {
		r, ok := results[path]
		if !ok {
			t.Errorf("%s: no result from %s", path, py)
			continue
		}
		if r.kind == "SKIP" {
			skipped++
			continue
		}
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		mod, err := Parse(path, src)
		compared++
		switch {
		case r.kind == "ERROR" && err == nil:
			t.Errorf("%s: CPython rejects (%s), pyast accepts", path, r.text)
		case r.kind == "ERROR":
			rejected++
		case err != nil:
			t.Errorf("CPython accepts, pyast rejects: %v", err)
		default:
			sum := sha256.Sum256([]byte(dumpCPython(mod, src)))
			if hex.EncodeToString(sum[:]) != r.text {
				bad = append(bad, path)
			}
		}
	}
	t.Logf("%d files compared with %s (%d rejected by both), %d skipped (not UTF-8), %d trees differ",
		compared, py, rejected, skipped, len(bad))
	if len(bad) == 0 {
		return
	}
	show := bad
	if len(show) > 10 {
		show = show[:10]
	}
	full := runDump(t, py, show, false, 1)
	for _, path := range show {
		src, _ := os.ReadFile(path)
		mod, _ := Parse(path, src)
		t.Errorf("%s: trees differ (-CPython +pyast):\n%s", path, lineDiff(full[path].text, dumpCPython(mod, src)))
	}
	if len(bad) > len(show) {
		t.Errorf("and %d more files: %s", len(bad)-len(show), strings.Join(bad[len(show):], " "))
	}
}

// lineDiff shows the first lines where want and got differ, with context.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	i := 0
	for i < len(w) && i < len(g) && w[i] == g[i] {
		i++
	}
	from := i - 3
	if from < 0 {
		from = 0
	}
	var sb strings.Builder
	for k := from; k < i; k++ {
		fmt.Fprintf(&sb, "  %s\n", w[k])
	}
	for k := i; k < i+6 && k < len(w); k++ {
		fmt.Fprintf(&sb, "- %s\n", w[k])
	}
	for k := i; k < i+6 && k < len(g); k++ {
		fmt.Fprintf(&sb, "+ %s\n", g[k])
	}
	return sb.String()
}
