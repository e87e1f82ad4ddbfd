package pyast

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"
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
// testdata/syntax (every construct of Python 3.11, written for this test)
// and $PYAST_CORPUS (a list like PATH), else the standard library and
// Debian's dist-packages.
func corpusDirs() []string {
	if v := os.Getenv("PYAST_CORPUS"); v != "" {
		return append([]string{"testdata/syntax"}, filepath.SplitList(v)...)
	}
	return []string{"testdata/syntax", "/usr/lib/python3.11", "/usr/lib/python3/dist-packages"}
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

// A pyResult is what testdata/dump.py said of one source.
type pyResult struct {
	kind string // SKIP, ERROR, HASH, or DUMP with the full text
	text string
}

// cpython returns what testdata/dump.py says of each source, the hash of
// its tree's dump (with hash) or the dump itself, running python in two
// processes. Hashes are cached in one file in the user's cache directory,
// keyed by the source, the python and dump.py (PYAST_NOCACHE=1 turns it
// off), so that a test run asks python only about what changed.
func cpython(t testing.TB, py string, srcs [][]byte, hash bool) []pyResult {
	t.Helper()
	results := make([]pyResult, len(srcs))
	var cacheFile string
	var salt []byte
	cache := map[string]string{}
	if hash && os.Getenv("PYAST_NOCACHE") != "1" {
		if dir, err := os.UserCacheDir(); err == nil {
			cacheFile = filepath.Join(dir, "pinbot", "pyast-cpython.json")
		}
		version, err := exec.Command(py, "-c", "import sys; print(sys.executable, sys.version)").Output()
		script, err2 := os.ReadFile("testdata/dump.py")
		if err != nil || err2 != nil {
			cacheFile = ""
		}
		salt = append(version, script...)
		if data, err := os.ReadFile(cacheFile); err == nil {
			json.Unmarshal(data, &cache)
		}
	}
	key := func(src []byte) string {
		h := sha256.New()
		h.Write(salt)
		h.Write(src)
		return hex.EncodeToString(h.Sum(nil)[:16])
	}
	var todo []int
	for i, src := range srcs {
		if v, ok := cache[key(src)]; ok && cacheFile != "" {
			kind, text, _ := strings.Cut(v, " ")
			results[i] = pyResult{kind, text}
			continue
		}
		todo = append(todo, i)
	}
	const workers = 2
	var wg sync.WaitGroup
	errs := make([]error, workers)
	for w := 0; w < workers && w < len(todo); w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			var in bytes.Buffer
			for k := w; k < len(todo); k += workers {
				fmt.Fprintf(&in, "SOURCE %d %d\n", todo[k], len(srcs[todo[k]]))
				in.Write(srcs[todo[k]])
			}
			args := []string{"testdata/dump.py", "--sources"}
			if hash {
				args = append(args, "--hash")
			}
			cmd := exec.Command(py, args...)
			cmd.Stdin = &in
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				errs[w] = fmt.Errorf("%s: %v\n%s", py, err, stderr.String())
				return
			}
			for name, r := range parseDump(out) {
				i, _ := strconv.Atoi(name)
				results[i] = r
			}
		}(w)
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if cacheFile != "" && len(todo) > 0 {
		for _, i := range todo {
			if r := results[i]; r.kind != "" {
				cache[key(srcs[i])] = r.kind + " " + r.text
			}
		}
		if data, err := json.Marshal(cache); err == nil && os.MkdirAll(filepath.Dir(cacheFile), 0o755) == nil {
			tmp := cacheFile + ".tmp"
			if os.WriteFile(tmp, data, 0o644) == nil {
				os.Rename(tmp, cacheFile)
			}
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
	srcs := make([][]byte, len(files))
	for i, path := range files {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		srcs[i] = src
	}
	results := cpython(t, py, srcs, true)
	var compared, rejected, skipped int
	var bad []int
	for i, path := range files {
		r, src := results[i], srcs[i]
		if r.kind == "" {
			t.Errorf("%s: no result from %s", path, py)
			continue
		}
		if r.kind == "SKIP" {
			skipped++
			continue
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
				bad = append(bad, i)
			}
			if err := checkSpans(mod, len(src)); err != nil {
				t.Errorf("%s: %v", path, err)
			}
		}
	}
	t.Logf("%d files compared with %s (%d rejected by both), %d skipped (not UTF-8), %d trees differ",
		compared, py, rejected, skipped, len(bad))
	if len(bad) == 0 {
		return
	}
	for k, i := range bad {
		if k == 10 {
			t.Errorf("and %d more files", len(bad)-k)
			break
		}
		mod, _ := Parse(files[i], srcs[i])
		full := cpython(t, py, srcs[i:i+1], false)
		t.Errorf("%s: trees differ (-CPython +pyast):\n%s", files[i], lineDiff(full[0].text, dumpCPython(mod, srcs[i])))
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

// mutationSnippets are inserted into corpus code to break it, or to make
// valid code out of broken code: tokens, prefixes of tokens, layout.
var mutationSnippets = []string{
	":", "(", ")", "[", "]", "{", "}", ",", ";", "=", "==", "*", "**", ".", "...", "@", "->", ":=",
	"\\", "\\\n", "\n", " ", "\t", "    ", "\n    ", "#", "'", "\"", "'''", "f\"", "f'{", "rb'", "u'",
	"lambda", "lambda:", "if", "else", "elif", "for", "in", "not", "is", "and", "or", "yield", "await",
	"async", "def", "class", "return", "del", "global", "nonlocal", "import", "from", "as", "with",
	"try:", "except", "finally", "raise", "assert", "pass", "match", "case", "type", "_", "print",
	"0x", "1_", "0777", "1e", "1j", "0b2", ".5", "1.", "x", "x, y", "*a", "**k", "!r", "!=", "<>",
	"\x0c", "\r", "\r\n", "é", "\u00a0", "\\N{DASH}", "\\x4", "\\u12",
}

// mutate applies one random edit to src.
func mutate(rng *rand.Rand, src []byte) []byte {
	if len(src) == 0 {
		return []byte(mutationSnippets[rng.IntN(len(mutationSnippets))])
	}
	i := rng.IntN(len(src))
	var out []byte
	switch rng.IntN(5) {
	case 0: // delete a few bytes
		j := min(len(src), i+1+rng.IntN(4))
		out = append(append(out, src[:i]...), src[j:]...)
	case 1, 2: // insert a snippet
		s := mutationSnippets[rng.IntN(len(mutationSnippets))]
		out = append(append(append(out, src[:i]...), s...), src[i:]...)
	case 3: // duplicate a run
		j := min(len(src), i+1+rng.IntN(12))
		out = append(append(append(out, src[:j]...), src[i:j]...), src[j:]...)
	default: // swap two runs
		j := min(len(src), i+1+rng.IntN(8))
		k := min(len(src), j+rng.IntN(8))
		out = append(append(append(append(out, src[:i]...), src[j:k]...), src[i:j]...), src[k:]...)
	}
	return out
}

// TestCPythonMutants compares verdicts on broken code, which the corpus
// lacks: windows of a few lines of corpus files with bytes deleted,
// duplicated, swapped or inserted. Both parsers must reject the same
// mutants, and build the same tree of those they accept, except where
// Python 3.12+ syntax (PEP 701 f-strings, PEP 695 type parameters), which
// 3.11 rejects, is what makes a mutant valid.
func TestCPythonMutants(t *testing.T) {
	py := testPython(t)
	var dirs []string
	for _, d := range corpusDirs() {
		if _, err := os.Stat(d); err == nil {
			dirs = append(dirs, d)
		}
	}
	files := corpusFiles(t, dirs)
	syntax := corpusFiles(t, []string{"testdata/syntax"})
	n := 6000
	if testing.Short() {
		n = 1000
	}
	seed := uint64(7)
	if v, err := strconv.ParseUint(os.Getenv("PYAST_SEED"), 10, 64); err == nil {
		seed = v
	}
	rng := rand.New(rand.NewPCG(seed, 11))
	var srcs [][]byte
	for len(srcs) < n {
		path := files[rng.IntN(len(files))]
		if rng.IntN(3) == 0 {
			path = syntax[rng.IntN(len(syntax))]
		}
		data, err := os.ReadFile(path)
		if err != nil || bytes.IndexByte(data, 0) >= 0 {
			continue
		}
		lines := bytes.SplitAfter(data, []byte("\n"))
		from := rng.IntN(len(lines))
		to := min(len(lines), from+1+rng.IntN(12))
		src := dedent(lines[from:to])
		for k := 1 + rng.IntN(2); k > 0; k-- {
			src = mutate(rng, src)
		}
		srcs = append(srcs, src)
	}
	results := cpython(t, py, srcs, true)
	var accepted, rejected, inconclusive, invalidUTF8, failed int
	for i, src := range srcs {
		r := results[i]
		if r.kind == "SKIP" || r.kind == "" {
			continue
		}
		mod, err := Parse("mutant.py", src)
		switch {
		case r.kind == "ERROR" && err != nil:
			rejected++
		case r.kind == "ERROR" && newSyntax(mod, src, r.text):
			inconclusive++
			t.Logf("mutant %d: CPython 3.11 rejects (%s), valid since 3.12:\n%s", i, r.text, quoteSrc(src))
		case r.kind == "ERROR" && !utf8.Valid(src) && strings.Contains(r.text, "can't decode"):
			// pyast reads invalid UTF-8 in strings and comments, by design.
			invalidUTF8++
		case r.kind == "ERROR":
			failed++
			t.Errorf("mutant %d: CPython rejects (%s), pyast accepts:\n%s", i, r.text, quoteSrc(src))
		case err != nil:
			failed++
			t.Errorf("mutant %d: CPython accepts, pyast rejects: %v:\n%s", i, err, quoteSrc(src))
		default:
			sum := sha256.Sum256([]byte(dumpCPython(mod, src)))
			if hex.EncodeToString(sum[:]) != r.text {
				failed++
				full := cpython(t, py, [][]byte{src}, false)
				t.Errorf("mutant %d: trees differ (-CPython +pyast):\n%s\n%s", i, quoteSrc(src), lineDiff(full[0].text, dumpCPython(mod, src)))
			} else {
				accepted++
			}
		}
		if failed >= 20 {
			t.Fatal("too many failures")
		}
	}
	t.Logf("%d mutants: %d accepted by both with the same tree, %d rejected by both, %d accepted as Python 3.12+ syntax, %d with invalid UTF-8 accepted",
		len(srcs), accepted, rejected, inconclusive, invalidUTF8)
}

// newSyntax reports whether a source CPython 3.11 rejected may be valid
// only since 3.12: 3.11 complained about a string or f-string on a line an
// f-string spans (which 3.12 may nest quotes in, or split over lines), or
// the source has type parameters.
func newSyntax(mod *Module, src []byte, verdict string) bool {
	var line int
	fmt.Sscan(verdict, &line)
	found := false
	Inspect(mod, func(n Node) bool {
		switch n := n.(type) {
		case *JoinedStr:
			from, to := mod.File.Position(n.Pos()).Line, mod.File.Position(n.End()).Line
			found = found || line >= from && line <= to && strings.Contains(verdict, "string")
		case *TypeAlias:
			found = true
		case *FunctionDef:
			found = found || n.TypeParams != nil
		case *ClassDef:
			found = found || n.TypeParams != nil
		}
		return !found
	})
	return found
}

func quoteSrc(src []byte) string {
	return strconv.Quote(string(src))
}

// dedent joins lines less the indentation of the first, so that a window
// cut from inside a block starts a valid module more often.
func dedent(lines [][]byte) []byte {
	first := lines[0]
	indent := first[:len(first)-len(bytes.TrimLeft(first, " \t"))]
	var out []byte
	for _, l := range lines {
		out = append(out, bytes.TrimPrefix(l, indent)...)
	}
	return out
}
