package symbols_test

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/pinbot-dev/pinbot/checks/symbols"
)

// fixtureDir holds the shared objects the tests compile, once per test
// binary; TestMain removes it.
var (
	fixtureDir  string
	fixtureOnce sync.Once
	fixtureErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if fixtureDir != "" {
		os.RemoveAll(fixtureDir)
	}
	os.Exit(code)
}

// A fixture is one shared object built from C++ source.
type fixture struct {
	name   string   // output file name
	source string   // C++ source
	flags  []string // extra g++ flags
	mapf   string   // version script contents, if any
	after  []string // fixtures that must be built first (for -l)
}

const pbHeader = `
namespace google { namespace protobuf {
class Message {
 public:
  Message();
  virtual ~Message();
  virtual int ByteSize() const;
  int Serialize(char* buf, int n) const;
};
int VerifyVersion(int v);
} }
`

// pbSource is a protobuf-like runtime; bytesize and version vary per copy.
func pbSource(bytesize, version int) string {
	return pbHeader + fmt.Sprintf(`
namespace google { namespace protobuf {
Message::Message() {}
Message::~Message() {}
int Message::ByteSize() const { return %d; }
int Message::Serialize(char* buf, int n) const { for (int i = 0; i < n; i++) buf[i] = char(i * 7); return n; }
int VerifyVersion(int v) { return v == %d ? 0 : -1; }
} }
`, bytesize, version)
}

var fixtures = []fixture{
	// TensorFlow 2.19 hides the protobuf it links in (version script local:).
	{name: "tf219/libtensorflow_framework.so.2", source: pbSource(42, 3021012) + tfSource,
		flags: []string{"-Wl,-soname,libtensorflow_framework.so.2"},
		mapf:  `{ global: extern "C++" { tensorflow::*; }; local: *; };`},
	// TensorFlow 2.20 exports it.
	{name: "tf220/libtensorflow_framework.so.2", source: pbSource(42, 3021012) + tfSource,
		flags: []string{"-Wl,-soname,libtensorflow_framework.so.2"}},
	{name: "tf220/_pywrap_tensorflow_internal.so", source: pywrapSource,
		flags: []string{"-Ltf220", "-l:libtensorflow_framework.so.2"},
		after: []string{"tf220/libtensorflow_framework.so.2"}},
	// The protobuf package's extension: same API, other bodies.
	{name: "pb/_message.cpython-311-x86_64-linux-gnu.so", source: pbSource(43, 3021099) +
		`extern "C" void* PyInit__message() { return 0; }`},

	// Bodies: one function body each way, two libraries.
	{name: "bodies/liba.so", source: bodiesSource(false), flags: []string{"-fno-toplevel-reorder"}},
	{name: "bodies/libb.so", source: bodiesSource(true), flags: []string{"-fno-toplevel-reorder"}},
	{name: "bodies/libdep.so", source: `extern "C" int clash_fn(int);
extern "C" int linked_fn(int x) { return clash_fn(x) - 11; }`,
		flags: []string{"-Lbodies", "-l:liba.so"}, after: []string{"bodies/liba.so"}},

	// Exactness of the fast paths (#16): constants read RIP-relative, GOT
	// reads, and a pointer table long enough to be searched in place.
	{name: "exact/liba.so", source: exactSource(false), flags: []string{"-fno-toplevel-reorder"}},
	{name: "exact/libb.so", source: exactSource(true), flags: []string{"-fno-toplevel-reorder"}},

	// Exposure: symbolic libraries, Python extensions, version nodes.
	{name: "expo/libsym1.so", source: `extern "C" int sym_fn(int x) { return x + 1; }`, flags: []string{"-Wl,-Bsymbolic"}},
	{name: "expo/libsym2.so", source: `extern "C" int sym_fn(int x) { return x + 2; }`, flags: []string{"-Wl,-Bsymbolic"}},
	{name: "expo/ext1.so", source: `extern "C" int ext_fn(int x) { return x * 3; }
extern "C" void* PyInit_ext1() { return 0; }`},
	{name: "expo/ext2.so", source: `extern "C" int ext_fn(int x) { return x * 5; }
extern "C" void* PyInit_ext2() { return 0; }`},
	{name: "vers/libv0.so", source: `extern "C" int ver_fn(int x) { return x + 10; }`},
	{name: "vers/libv1.so", source: `extern "C" int ver_fn(int x) { return x + 11; }`, mapf: `V1 { global: ver_fn; local: *; };`},
	{name: "vers/libv2.so", source: `extern "C" int ver_fn(int x) { return x + 12; }`, mapf: `V2 { global: ver_fn; local: *; };`},
}

const tfSource = `
namespace tensorflow {
int RunSession(int x) { google::protobuf::Message m; return m.ByteSize() + google::protobuf::VerifyVersion(x); }
}
`

const pywrapSource = `
namespace tensorflow { int RunSession(int x); }
extern "C" void* PyInit__pywrap_tensorflow_internal() { return (void*)(long)tensorflow::RunSession(1); }
`

// bodiesSource returns one library of the bodies pair. The second copy
// changes constants (equal sizes, different bodies), a local callee, one
// function's size, and the layout (padding between functions), but not the
// bodies meant to be the same.
func bodiesSource(second bool) string {
	k := 0
	pad := ""
	if second {
		k = 1
		pad = `
extern "C" int pad_fn(int x) {
  volatile int s = 0;
  for (int i = 0; i < x; i++) { s += i * 3; s ^= i << 2; s -= i / 5; s += i % 7; }
  return s;
}
static const char pad_str[] = "padding that moves the strings below";
extern "C" const char* pad_str_fn() { return pad_str; }
`
	}
	sized := "x + 1"
	if second {
		sized = "x * 2 + 1 + (x >> 3) + (x / 7)"
	}
	return fmt.Sprintf(`
static int __attribute__((noinline)) helper(int x) { return x * x + 1; }
static int __attribute__((noinline)) helper2(int x) { return x * x + %d; }
%s
extern "C" int same_fn(int x) { return helper(x) + 2; }
extern "C" int deep_fn(int x) { return helper2(x) + 3; }
extern "C" int clash_fn(int x) { return x * 3 + %d; }
extern "C" int identical_fn(int x) { return x ^ 0x5a5a; }
extern "C" int sized_fn(int x) { return %s; }
extern "C" const int ctable[4] = {1, 2, 3, 4};
extern "C" const char* names_tab[] = {"alpha", "beta"};
extern "C" int linked_fn(int x) { return x - %d; }
extern "C" int (*const fn_tab_same[])(int) = {helper, same_fn};
extern "C" int (*const fn_tab_diff[])(int) = {helper2, same_fn};
`, 2+k, pad, 7+2*k, sized, 10+k)
}

// exactSource returns one library of the exact pair. The second moves
// everything (padding before it), so no body is equal byte for byte, and
// changes what the *_diff symbols read or point to, keeping their sizes.
func exactSource(second bool) string {
	pad, k, g := "", "1.25", "gvar_a"
	if second {
		pad = `extern "C" int pad_fn(int x) { volatile int s = 0; for (int i = 0; i < x; i++) s += i * 7; return s; }
static const char pad_str[] = "padding that moves the data below";
extern "C" const char* pad_str_fn() { return pad_str; }
`
		k, g = "1.75", "gvar_b"
	}
	var tab strings.Builder
	for i := range 1200 {
		fmt.Fprintf(&tab, "\"s%d\", ", i)
	}
	last := `"tail"`
	if second {
		last = `"tall"`
	}
	return pad + fmt.Sprintf(`
extern "C" { int gvar_a = 1; int gvar_b = 2; }
extern "C" double const_same(double x) { return x * 1.0625 + 3.5; }
extern "C" double const_diff(double x) { return x * %s + 3.5; }
extern "C" long long_same(long x) { static const long k[2] = {0x1234567887654321, 7}; return x ^ k[x & 1]; }
extern "C" int got_same(int x) { return gvar_a + x; }
extern "C" int got_diff(int x) { return %s + x; }
extern "C" const char* big_same[] = {%s"end"};
extern "C" const char* big_diff[] = {%s%s};
extern "C" int* const ptr_same[] = {&gvar_a, &gvar_b};
extern "C" int* const ptr_diff[] = {&gvar_a, &%s};
`, k, g, tab.String(), tab.String(), last, g)
}

// buildFixtures compiles the fixtures into a temporary directory, or skips
// the test if g++ is missing.
func buildFixtures(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("g++"); err != nil {
		t.Skip("g++ not found; the fixtures need it")
	}
	fixtureOnce.Do(func() {
		fixtureDir, fixtureErr = os.MkdirTemp("", "pinbot-symbols-fixtures-")
		if fixtureErr != nil {
			return
		}
		// Build in dependency order, independent ones in parallel.
		built := map[string]bool{}
		for len(built) < len(fixtures) {
			var batch []fixture
			for _, f := range fixtures {
				if built[f.name] {
					continue
				}
				ready := true
				for _, dep := range f.after {
					ready = ready && built[dep]
				}
				if ready {
					batch = append(batch, f)
				}
			}
			errs := make([]error, len(batch))
			var wg sync.WaitGroup
			sem := make(chan struct{}, 2)
			for i, f := range batch {
				wg.Go(func() {
					sem <- struct{}{}
					defer func() { <-sem }()
					errs[i] = compile(fixtureDir, f)
				})
			}
			wg.Wait()
			for i, f := range batch {
				if errs[i] != nil {
					fixtureErr = errs[i]
					return
				}
				built[f.name] = true
			}
		}
	})
	if fixtureErr != nil {
		t.Fatalf("building fixtures: %v", fixtureErr)
	}
	return fixtureDir
}

func compile(dir string, f fixture) error {
	out := filepath.Join(dir, f.name)
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return err
	}
	src := out + ".cc"
	if err := os.WriteFile(src, []byte(f.source), 0o644); err != nil {
		return err
	}
	defer os.Remove(src)
	args := []string{"-O2", "-fPIC", "-shared", "-o", out, src}
	if f.mapf != "" {
		m := out + ".map"
		if err := os.WriteFile(m, []byte(f.mapf), 0o644); err != nil {
			return err
		}
		defer os.Remove(m)
		args = append(args, "-Wl,--version-script="+m)
	}
	args = append(args, f.flags...)
	cmd := exec.Command("g++", args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("g++ %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return nil
}

// readFixture returns a fixture's bytes.
func readFixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(buildFixtures(t), name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// writeWheel writes a wheel (a zip with a dist-info directory) holding
// members, and returns its path.
func writeWheel(t *testing.T, dir, filename string, members map[string][]byte) string {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	dist := strings.Join(strings.Split(filename, "-")[:2], "-") + ".dist-info/"
	all := map[string][]byte{
		dist + "METADATA": []byte("Metadata-Version: 2.1\nName: x\nVersion: 0\n"),
		dist + "WHEEL":    []byte("Wheel-Version: 1.0\nRoot-Is-Purelib: false\n"),
		dist + "RECORD":   nil,
	}
	for name, data := range members {
		all[name] = data
	}
	names := make([]string, 0, len(all))
	for name := range all {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Deflate})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(all[name]); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, filename)
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// scan runs Scan and fails the test on an error.
func scan(t *testing.T, paths []string, opts symbols.Options) *symbols.Result {
	t.Helper()
	r, err := symbols.Scan(context.Background(), paths, opts)
	if err != nil {
		t.Fatalf("Scan: %v", err)
	}
	return r
}

// clash returns the clash of a name and version, or nil.
func clash(r *symbols.Result, name, version string) *symbols.Clash {
	for i := range r.Clashes {
		if r.Clashes[i].Name == name && r.Clashes[i].Version == version {
			return &r.Clashes[i]
		}
	}
	return nil
}

// library returns the library whose path ends with suffix, or nil.
func library(r *symbols.Result, suffix string) *symbols.Library {
	for i := range r.Libraries {
		if strings.HasSuffix(r.Libraries[i].Path, suffix) {
			return &r.Libraries[i]
		}
	}
	return nil
}
