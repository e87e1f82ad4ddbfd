package symbols_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/pinbot-dev/pinbot/checks/symbols"
	"github.com/pinbot-dev/pinbot/internal/elfgen"
)

// debianPackages are the Debian 12 packages whose shared objects the
// integration test and the benchmark scan (protobuf 3.21.12, gRPC 1.51.1,
// onnx 1.12.0, numba 0.56.4, llvmlite 0.39.1, LLVM 14): the seven the check
// is about and the libraries they pull in.
var debianPackages = []string{
	"libprotobuf32", "libprotobuf-lite32", "libprotoc32", "libgrpc++1.51", "libgrpc29", "libonnx1",
	"python3-protobuf", "python3-onnx", "python3-numba", "python3-llvmlite", "libllvm14",
}

var soFile = regexp.MustCompile(`\.so(\.[0-9.]+)?$`)

// debianFiles lists the regular shared objects of the packages (symbolic
// links skipped), from dpkg -L.
func debianFiles(pkgs ...string) []string {
	var files []string
	for _, p := range pkgs {
		out, err := exec.Command("dpkg", "-L", p).Output()
		if err != nil {
			continue
		}
		for _, f := range strings.Split(string(out), "\n") {
			if !soFile.MatchString(f) {
				continue
			}
			if st, err := os.Lstat(f); err == nil && st.Mode().IsRegular() {
				files = append(files, f)
			}
		}
	}
	slices.Sort(files)
	return slices.Compact(files)
}

// needDebian returns the files of pkgs, or skips the test when they are
// not installed, unless PINBOT_INTEGRATION=1, when it fails instead.
func needDebian(tb testing.TB, pkgs ...string) []string {
	tb.Helper()
	files := debianFiles(pkgs...)
	if len(files) == 0 {
		if os.Getenv("PINBOT_INTEGRATION") == "1" {
			tb.Fatalf("PINBOT_INTEGRATION=1 but the shared objects of %v are not installed (apt-get install -y %s)", pkgs, strings.Join(pkgs, " "))
		}
		tb.Skipf("shared objects of %v not installed", pkgs)
	}
	return files
}

// TestDebianProtobuf checks the scanner on Debian 12's protobuf: the Python
// extension _message exports google::protobuf symbols, and it and
// libprotobuf.so.32 both define MapIterator's destructors, 51 and 59 bytes.
func TestDebianProtobuf(t *testing.T) {
	ext := needDebian(t, "python3-protobuf")
	lib := needDebian(t, "libprotobuf32")
	var message string
	for _, f := range ext {
		if strings.Contains(f, "/_message.") {
			message = f
		}
	}
	if message == "" {
		t.Fatalf("no _message extension among %q", ext)
	}
	r, err := symbols.Scan(context.Background(), []string{message}, symbols.Options{
		Forbid:  []string{"google::protobuf::*", "_ZN6google8protobuf"},
		Against: lib,
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Errors)+len(r.Failed()) > 0 {
		t.Fatalf("errors: %+v %+v", r.Errors, r.Failed())
	}
	l := r.Libraries[0]
	if !l.PythonExtension || !slices.Contains(l.Needed, "libprotobuf.so.32") || l.Role != symbols.RoleTarget {
		t.Errorf("_message = %+v, want a Python extension needing libprotobuf.so.32", l)
	}
	if len(r.Forbidden) != 1 {
		t.Fatalf("forbidden = %+v, want _message", r.Forbidden)
	}
	f := r.Forbidden[0]
	// Debian 12's protobuf 3.21.12: 232 names start _ZN6google8protobuf;
	// the glob also counts _ZNK..., vtables and typeinfo.
	glob, prefix := f.Patterns[0], f.Patterns[1]
	if prefix.Exports < 200 || glob.Exports < prefix.Exports || glob.Imports == 0 {
		t.Errorf("patterns = %+v, want about 232 exports by prefix, more by glob, and imports", f.Patterns)
	}
	t.Logf("patterns: %+v", f.Patterns)
	if len(f.Examples) == 0 || !strings.HasPrefix(f.Examples[0], "google::protobuf::") {
		t.Errorf("examples = %q", f.Examples)
	}
	for _, name := range []string{"_ZN6google8protobuf11MapIteratorD1Ev", "_ZN6google8protobuf11MapIteratorD2Ev"} {
		c := clash(r, name, "")
		if c == nil {
			t.Errorf("no clash on %s", name)
			continue
		}
		var sizes []uint64
		for _, cp := range c.Copies {
			sizes = append(sizes, cp.Size)
		}
		if c.Demangled != "google::protobuf::MapIterator::~MapIterator()" || !slices.Equal(sizes, []uint64{51, 59}) ||
			c.Body != symbols.BodyDifferent || c.Reason != "size" || c.Exposure != symbols.ExposureLinked {
			t.Errorf("%s: %+v (sizes %v)", name, *c, sizes)
		}
	}
	// MutableMessageValue: 555 bytes in both, the same code once normalised
	// (only the build directory in __FILE__ differs).
	if c := clash(r, "_ZN6google8protobuf11MapValueRef19MutableMessageValueEv", ""); c == nil || c.Body != symbols.BodySame || c.Reason != "normalised" {
		t.Errorf("MutableMessageValue = %+v, want the same body once normalised", c)
	}
}

// TestDebianCounts checks the counts over the 35 shared objects against the
// ones measured with readelf, pyelftools and debug/elf: 8,562 names defined
// twice or more, 91 with different sizes, 95 with different bodies.
func TestDebianCounts(t *testing.T) {
	files := needDebian(t, debianPackages...)
	if len(files) != 35 {
		t.Skipf("%d shared objects, not Debian 12's 35: the counts differ", len(files))
	}
	r, err := symbols.Scan(context.Background(), files, symbols.Options{})
	if err != nil {
		t.Fatal(err)
	}
	bySize := 0
	for _, c := range r.Clashes {
		if c.Reason == "size" && c.Body == symbols.BodyDifferent {
			bySize++
		}
	}
	if r.Stats.Symbols != 85004 || r.Stats.Clashes != 8562 || bySize != 91 || r.Stats.Different != 95 {
		t.Errorf("symbols %d, clashes %d, %d by size, %d different; want 85004, 8562, 91, 95",
			r.Stats.Symbols, r.Stats.Clashes, bySize, r.Stats.Different)
	}
}

// TestPairerChangesNoVerdict scans the 35 shared objects with and without
// the pairer (copies compared in lockstep before they are hashed): every
// clash keeps its body, reason and groups.
func TestPairerChangesNoVerdict(t *testing.T) {
	files := needDebian(t, debianPackages...)
	scan := func(pairing bool) *symbols.Result {
		defer symbols.SetPairing(pairing)()
		r, err := symbols.Scan(context.Background(), files, symbols.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	with, without := scan(true), scan(false)
	if len(with.Clashes) != len(without.Clashes) {
		t.Fatalf("%d clashes with the pairer, %d without", len(with.Clashes), len(without.Clashes))
	}
	groups := func(c symbols.Clash) []int {
		var g []int
		for _, cp := range c.Copies {
			g = append(g, cp.Group)
		}
		return g
	}
	normalised := 0
	for i, c := range with.Clashes {
		w := without.Clashes[i]
		if c.Name != w.Name || c.Version != w.Version || c.Body != w.Body || c.Reason != w.Reason || !slices.Equal(groups(c), groups(w)) {
			t.Errorf("%s: %s by %q %v with the pairer, %s by %q %v without",
				c.Name, c.Body, c.Reason, groups(c), w.Body, w.Reason, groups(w))
		}
		if c.Reason == "normalised" {
			normalised++
		}
	}
	if normalised < 1000 {
		t.Errorf("only %d clashes decided by normalised bytes", normalised)
	}
}

// BenchmarkScanDebian scans the 35 shared objects of the Debian packages
// with the tensorflow-protobuf preset: forbid patterns, duplicates across
// libraries, and sizes ("size-only") or sizes and bytes ("bodies").
func BenchmarkScanDebian(b *testing.B) {
	files := debianFiles(debianPackages...)
	if len(files) == 0 {
		b.Skip("Debian packages not installed")
	}
	spec, err := symbols.Spec{Preset: "tensorflow-protobuf"}.Resolve()
	if err != nil {
		b.Fatal(err)
	}
	for _, bodies := range []bool{false, true} {
		name := "size-only"
		if bodies {
			name = "bodies"
		}
		b.Run(name, func(b *testing.B) {
			var syms int
			for b.Loop() {
				r, err := symbols.Scan(context.Background(), files, symbols.Options{Forbid: spec.Forbid, SizeOnly: !bodies})
				if err != nil {
					b.Fatal(err)
				}
				syms = r.Stats.Symbols
			}
			b.ReportMetric(float64(syms)*float64(b.N)/b.Elapsed().Seconds(), "symbols/s")
		})
	}
}

// BenchmarkScanLarge scans a generated library against another laid out
// differently (internal/elfgen: 50,000 functions, every one a clash, one in
// 100 with another constant), bodies compared, once as small files and once
// grown to 1 GiB by a bulk section. The files are read where they lie, so
// the two cost the same time and allocations: nothing scales with the
// bulk of the file.
func BenchmarkScanLarge(b *testing.B) {
	for _, size := range []int64{0, 1 << 30} {
		b.Run(fmt.Sprintf("size=%dMiB", size>>20), func(b *testing.B) {
			dir := b.TempDir()
			a, other := filepath.Join(dir, "liba.so"), filepath.Join(dir, "libb.so")
			if err := elfgen.Write(a, elfgen.Spec{Functions: 50000, Size: size}); err != nil {
				b.Fatal(err)
			}
			if err := elfgen.Write(other, elfgen.Spec{Functions: 50000, Size: size, Shift: 64, Differ: 100}); err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				r, err := symbols.Scan(context.Background(), []string{a}, symbols.Options{Against: []string{other}})
				if err != nil {
					b.Fatal(err)
				}
				if r.Stats.Clashes != 50000 || r.Stats.Different != 500 || len(r.Failed()) > 0 {
					b.Fatalf("%d clashes, %d different, failed %+v; want 50000 and 500", r.Stats.Clashes, r.Stats.Different, r.Failed())
				}
			}
		})
	}
}
