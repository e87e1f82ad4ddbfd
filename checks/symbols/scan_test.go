package symbols_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pinbot-dev/pinbot/checks/symbols"
)

// tfWheels packs the TensorFlow fixtures into a 2.19 wheel (protobuf
// hidden) and a 2.20 wheel (protobuf exported), and the protobuf fixture
// into a protobuf wheel.
func tfWheels(t *testing.T) (tf219, tf220, pb string) {
	dir := t.TempDir()
	pywrap := readFixture(t, "tf220/_pywrap_tensorflow_internal.so")
	tf219 = writeWheel(t, dir, "tensorflow-2.19.0-cp311-cp311-manylinux_2_17_x86_64.whl", map[string][]byte{
		"tensorflow/libtensorflow_framework.so.2":          readFixture(t, "tf219/libtensorflow_framework.so.2"),
		"tensorflow/python/_pywrap_tensorflow_internal.so": pywrap,
		"tensorflow/__init__.py":                           []byte("# tf\n"),
	})
	tf220 = writeWheel(t, dir, "tensorflow-2.20.0-cp311-cp311-manylinux_2_17_x86_64.whl", map[string][]byte{
		"tensorflow/libtensorflow_framework.so.2":          readFixture(t, "tf220/libtensorflow_framework.so.2"),
		"tensorflow/python/_pywrap_tensorflow_internal.so": pywrap,
		"tensorflow/__init__.py":                           []byte("# tf\n"),
	})
	pb = writeWheel(t, dir, "protobuf-4.21.12-cp311-cp311-manylinux_2_17_x86_64.whl", map[string][]byte{
		"google/protobuf/pyext/_message.cpython-311-x86_64-linux-gnu.so": readFixture(t, "pb/_message.cpython-311-x86_64-linux-gnu.so"),
	})
	return tf219, tf220, pb
}

func presetOptions(t *testing.T, against ...string) symbols.Options {
	spec, err := symbols.Spec{Preset: "tensorflow-protobuf"}.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	return symbols.Options{Forbid: spec.Forbid, Against: against, TempDir: t.TempDir()}
}

const framework = "tensorflow/libtensorflow_framework.so"

// TestTensorFlowUpgrade is issue 7's story: TensorFlow 2.19 hides the
// protobuf it links in, 2.20 exports it, so moving the cap is blocked, and
// the exports clash with the protobuf package's.
func TestTensorFlowUpgrade(t *testing.T) {
	tf219, tf220, pb := tfWheels(t)
	base := scan(t, []string{tf219}, presetOptions(t, pb))
	cand := scan(t, []string{tf220}, presetOptions(t, pb))

	for _, r := range []*symbols.Result{base, cand} {
		if len(r.Errors) > 0 || len(r.Failed()) > 0 {
			t.Fatalf("errors: %v %v", r.Errors, r.Failed())
		}
		if got := len(r.Libraries); got != 3 {
			t.Fatalf("libraries = %d, want 3 (2 from tensorflow, 1 against): %+v", got, r.Libraries)
		}
	}
	lib := library(cand, "libtensorflow_framework.so.2")
	if lib.Key != framework || lib.Soname != "libtensorflow_framework.so.2" || lib.Role != symbols.RoleTarget || lib.PythonExtension {
		t.Errorf("framework library = %+v", *lib)
	}
	ext := library(cand, "_pywrap_tensorflow_internal.so")
	if !ext.PythonExtension || !slices.Contains(ext.Needed, "libtensorflow_framework.so.2") {
		t.Errorf("extension = %+v, want a Python extension needing the framework", *ext)
	}
	if pbLib := library(cand, "_message.cpython-311-x86_64-linux-gnu.so"); pbLib.Role != symbols.RoleAgainst || pbLib.Key != "google/protobuf/pyext/_message.so" {
		t.Errorf("protobuf library = %+v", *pbLib)
	}

	// 2.19 exports no protobuf symbol; 2.20 does, demangled in examples.
	for _, f := range base.Forbidden {
		if f.Exports > 0 {
			t.Errorf("2.19 forbidden exports in %s: %+v", f.Library, f)
		}
	}
	var got *symbols.Forbidden
	for i := range cand.Forbidden {
		if cand.Forbidden[i].Key == framework {
			got = &cand.Forbidden[i]
		}
	}
	if got == nil || got.Exports < 5 {
		t.Fatalf("2.20 forbidden = %+v, want the protobuf exports of %s", cand.Forbidden, framework)
	}
	if !slices.ContainsFunc(got.Examples, func(e string) bool { return strings.HasPrefix(e, "google::protobuf::") }) {
		t.Errorf("examples %q are not demangled protobuf names", got.Examples)
	}
	for _, pc := range got.Patterns {
		if (pc.Pattern == "google::protobuf::*" || pc.Pattern == "_ZN6google8protobuf") && pc.Exports == 0 {
			t.Errorf("pattern %s matched nothing", pc.Pattern)
		}
		if (pc.Pattern == "llvm::*" || pc.Pattern == "absl::*") && pc.Exports != 0 {
			t.Errorf("pattern %s matched %d", pc.Pattern, pc.Exports)
		}
	}

	// The exports clash with the protobuf package's extension.
	if c := clash(base, "_ZNK6google8protobuf7Message8ByteSizeEv", ""); c != nil {
		t.Errorf("2.19 clash on ByteSize: %+v", *c)
	}
	c := clash(cand, "_ZNK6google8protobuf7Message8ByteSizeEv", "")
	if c == nil {
		t.Fatalf("no clash on Message::ByteSize; clashes: %+v", cand.Clashes)
	}
	if c.Demangled != "google::protobuf::Message::ByteSize() const" || c.Body != symbols.BodyDifferent ||
		c.Exposure != symbols.ExposureGlobal || len(c.Copies) != 2 || c.Type != "func" {
		t.Errorf("ByteSize clash = %+v", *c)
	}
	if c := clash(cand, "_ZNK6google8protobuf7Message9SerializeEPci", ""); c == nil || c.Body != symbols.BodySame || c.Demangled != "" {
		t.Errorf("Serialize clash = %+v, want same bodies, not demangled yet", c)
	}
	var js bytes.Buffer
	if err := symbols.WriteJSON(&js, cand); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(js.String(), `"demangled": "google::protobuf::Message::Serialize(char*, int) const"`) {
		t.Errorf("JSON lacks the demangled name of a same-body clash")
	}
	if c := clash(cand, "_ZNK6google8protobuf7Message9SerializeEPci", ""); c.Demangled != "" {
		t.Errorf("WriteJSON changed its argument")
	}
	cand.Demangle()
	if c := clash(cand, "_ZNK6google8protobuf7Message9SerializeEPci", ""); c.Demangled != "google::protobuf::Message::Serialize(char*, int) const" {
		t.Errorf("after Demangle: %q", c.Demangled)
	}
	if c := clash(cand, "_ZTVN6google8protobuf7MessageE", ""); c == nil || c.Body != symbols.BodySame || c.Type != "object" {
		t.Errorf("vtable clash = %+v, want same (relocations normalised)", c)
	}

	v := symbols.Compare(base, cand)
	if v.OK {
		t.Fatalf("Compare(2.19, 2.20) OK; want blocked: %+v", v)
	}
	kinds := map[string]int{}
	for _, p := range v.New {
		kinds[p.Kind]++
	}
	if kinds["forbidden"] != 2 || kinds["clash"] == 0 {
		t.Errorf("new problems = %+v, want 2 forbidden (google::protobuf::*, _ZN6google8protobuf) and clashes", v.New)
	}
	if same := symbols.Compare(cand, cand); !same.OK || len(same.Existing) == 0 || len(same.New) != 0 {
		t.Errorf("Compare(2.20, 2.20) = %+v, want OK with warnings", same)
	}
	if back := symbols.Compare(cand, base); !back.OK || len(back.Fixed) == 0 {
		t.Errorf("Compare(2.20, 2.19) = %+v, want OK with fixed problems", back)
	}
	entry := symbols.Judge("tensorflow", &symbols.Side{Version: "2.19", Result: base}, symbols.Side{Version: "2.20", Result: cand}, symbols.Env{})
	if entry.Kind != "symbols" || entry.OK || entry.Verdict != "blocked" || !strings.Contains(entry.Detail, "new") || !strings.Contains(entry.Candidate, "forbidden export") {
		t.Errorf("Judge = %+v", entry)
	}
}

// TestBodies compares two libraries defining the same functions and data
// with the same or different bodies, at different addresses.
func TestBodies(t *testing.T) {
	dir := buildFixtures(t)
	r := scan(t, []string{filepath.Join(dir, "bodies/liba.so"), filepath.Join(dir, "bodies/libb.so")}, symbols.Options{})
	tests := []struct {
		name   string
		body   symbols.Body
		reason string
	}{
		{"clash_fn", symbols.BodyDifferent, "normalised"},    // equal size, other constant
		{"same_fn", symbols.BodySame, "normalised"},          // calls a local function at another distance
		{"deep_fn", symbols.BodyDifferent, "normalised"},     // the local callee differs
		{"identical_fn", symbols.BodySame, "bytes"},          // position-independent bytes
		{"sized_fn", symbols.BodyDifferent, "size"},          // other size
		{"ctable", symbols.BodySame, "bytes"},                // read-only data
		{"names_tab", symbols.BodySame, "normalised"},        // pointers to equal strings elsewhere
		{"linked_fn", symbols.BodyDifferent, "normalised"},   // equal size, other constant
		{"fn_tab_same", symbols.BodySame, "normalised"},      // pointers to equal local functions
		{"fn_tab_diff", symbols.BodyDifferent, "normalised"}, // a pointer to a local function that differs
		{"_ZN4llvm3fooEv", symbols.Body(""), ""},             // absent
		{"PyInit_x_absent_on_purpose", symbols.Body(""), ""}, // absent
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := clash(r, tt.name, "")
			if tt.body == "" {
				if c != nil {
					t.Fatalf("unexpected clash %+v", *c)
				}
				return
			}
			if c == nil {
				t.Fatalf("no clash on %s", tt.name)
			}
			if c.Body != tt.body || c.Reason != tt.reason {
				t.Errorf("body %s by %q, want %s by %q", c.Body, c.Reason, tt.body, tt.reason)
			}
			groups := []int{c.Copies[0].Group, c.Copies[1].Group}
			want := []int{1, 1}
			if tt.body == symbols.BodyDifferent {
				want = []int{1, 2}
			}
			if !slices.Equal(groups, want) {
				t.Errorf("groups %v, want %v", groups, want)
			}
		})
	}
	// Sizes only: equal sizes are unknown.
	r = scan(t, []string{filepath.Join(dir, "bodies/liba.so"), filepath.Join(dir, "bodies/libb.so")}, symbols.Options{SizeOnly: true})
	if c := clash(r, "clash_fn", ""); c == nil || c.Body != symbols.BodyUnknown {
		t.Errorf("size only: clash_fn = %+v, want unknown", c)
	}
	if c := clash(r, "sized_fn", ""); c == nil || c.Body != symbols.BodyDifferent {
		t.Errorf("size only: sized_fn = %+v, want different", c)
	}
}

// TestBodiesExact guards the body comparison's exactness on the paths made
// fast (#16): x86-64 instructions measured by x86len, operand widths
// learnt once, relocations searched in place in a mapped file. Every body
// is moved, so none is equal byte for byte: equal bodies are the same once
// normalised, and a changed constant, GOT slot or string pointer is a
// different body.
func TestBodiesExact(t *testing.T) {
	dir := buildFixtures(t)
	a, b := filepath.Join(dir, "exact/liba.so"), filepath.Join(dir, "exact/libb.so")
	for _, order := range [][]string{{a, b}, {b, a}} {
		r := scan(t, order, symbols.Options{})
		for _, tt := range []struct {
			name string
			body symbols.Body
		}{
			{"const_same", symbols.BodySame},      // a constant read RIP-relative, equal
			{"const_diff", symbols.BodyDifferent}, // the constant differs
			{"long_same", symbols.BodySame},       // a table read RIP-relative
			{"got_same", symbols.BodySame},        // a global read through the GOT
			{"got_diff", symbols.BodyDifferent},   // another global
			{"big_same", symbols.BodySame},        // 1,201 relative relocations to equal strings
			{"big_diff", symbols.BodyDifferent},   // the last string differs
			{"ptr_same", symbols.BodySame},        // addresses of the same globals
			{"ptr_diff", symbols.BodyDifferent},   // the address of another global
		} {
			c := clash(r, tt.name, "")
			if c == nil {
				t.Errorf("no clash on %s", tt.name)
				continue
			}
			if c.Body != tt.body || c.Reason != "normalised" {
				t.Errorf("%s: body %s by %q, want %s by normalised", tt.name, c.Body, c.Reason, tt.body)
			}
		}
	}
}

// TestExposure checks when clashing copies can meet.
func TestExposure(t *testing.T) {
	dir := buildFixtures(t)
	p := func(name string) string { return filepath.Join(dir, name) }
	tests := []struct {
		name  string
		paths []string
		sym   string
		want  symbols.Exposure
	}{
		{"plain libraries", []string{p("bodies/liba.so"), p("bodies/libb.so")}, "clash_fn", symbols.ExposureShared},
		{"DT_NEEDED", []string{p("bodies/libdep.so"), p("bodies/liba.so")}, "linked_fn", symbols.ExposureLinked},
		{"both symbolic", []string{p("expo/libsym1.so"), p("expo/libsym2.so")}, "sym_fn", symbols.ExposureSymbolic},
		{"one symbolic", []string{p("expo/libsym1.so"), p("vers/libv0.so"), p("bodies/liba.so")}, "sym_fn", ""},
		{"python extensions", []string{p("expo/ext1.so"), p("expo/ext2.so")}, "ext_fn", symbols.ExposureGlobal},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := scan(t, tt.paths, symbols.Options{})
			c := clash(r, tt.sym, "")
			if tt.want == "" {
				if c != nil {
					t.Fatalf("unexpected clash %+v", *c)
				}
				return
			}
			if c == nil {
				t.Fatalf("no clash on %s: %+v", tt.sym, r.Clashes)
			}
			if c.Exposure != tt.want {
				t.Errorf("exposure %s, want %s", c.Exposure, tt.want)
			}
		})
	}
	r := scan(t, []string{p("expo/libsym1.so"), p("expo/ext1.so")}, symbols.Options{})
	if l := library(r, "libsym1.so"); l == nil || !l.Symbolic || l.PythonExtension {
		t.Errorf("libsym1 = %+v, want symbolic", l)
	}
	if l := library(r, "ext1.so"); l == nil || l.Symbolic || !l.PythonExtension {
		t.Errorf("ext1 = %+v, want a Python extension", l)
	}
}

// TestVersions: definitions clash when versions are equal or one side has
// none; different versions do not clash.
func TestVersions(t *testing.T) {
	dir := buildFixtures(t)
	p := func(name string) string { return filepath.Join(dir, name) }
	r := scan(t, []string{p("vers/libv1.so"), p("vers/libv2.so")}, symbols.Options{})
	if len(r.Clashes) != 0 {
		t.Errorf("V1 and V2 clash: %+v", r.Clashes)
	}
	if l := library(r, "libv1.so"); !slices.Equal(l.VersionNodes, []string{"V1"}) {
		t.Errorf("version nodes = %q, want [V1]", l.VersionNodes)
	}
	r = scan(t, []string{p("vers/libv0.so"), p("vers/libv1.so"), p("vers/libv2.so")}, symbols.Options{})
	var got []string
	for _, c := range r.Clashes {
		var vs []string
		for _, cp := range c.Copies {
			vs = append(vs, cp.Version)
		}
		got = append(got, c.Name+"@"+c.Version+" "+strings.Join(vs, ","))
	}
	want := []string{"ver_fn@V1 ,V1", "ver_fn@V2 ,V2"}
	if !slices.Equal(got, want) {
		t.Errorf("clashes = %q, want %q", got, want)
	}
}

// TestAgainstOnly: libraries given only as against or host never clash with
// each other, and forbid patterns apply to targets only.
func TestAgainstOnly(t *testing.T) {
	dir := buildFixtures(t)
	p := func(name string) string { return filepath.Join(dir, name) }
	r := scan(t, []string{p("vers/libv0.so")}, symbols.Options{
		Forbid:  []string{"clash_fn", "ver_*"},
		Against: []string{p("bodies/liba.so")},
		Host:    []string{p("bodies/libb.so")},
	})
	if len(r.Clashes) != 0 {
		t.Errorf("clashes between against and host: %+v", r.Clashes)
	}
	if len(r.Forbidden) != 1 || r.Forbidden[0].Exports != 1 || r.Forbidden[0].Examples[0] != "ver_fn" {
		t.Errorf("forbidden = %+v, want ver_fn in the target only", r.Forbidden)
	}
	if l := library(r, "libb.so"); l == nil || l.Role != symbols.RoleHost {
		t.Errorf("host library = %+v", l)
	}
}

// TestDirectoryWalk: a directory is walked for *.so* regular files, and a
// file given twice is scanned once.
func TestDirectoryWalk(t *testing.T) {
	dir := buildFixtures(t)
	r := scan(t, []string{filepath.Join(dir, "vers"), filepath.Join(dir, "vers/libv1.so")}, symbols.Options{})
	var keys []string
	for _, l := range r.Libraries {
		keys = append(keys, l.Key)
	}
	if want := []string{"libv0.so", "libv1.so", "libv2.so"}; !slices.Equal(keys, want) {
		t.Errorf("keys = %q, want %q", keys, want)
	}
}

func TestDirectoryWalkSkipsSymlinks(t *testing.T) {
	dir := t.TempDir()
	lib := filepath.Join(dir, "libv0.so.1.2")
	if err := os.WriteFile(lib, readFixture(t, "vers/libv0.so"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("libv0.so.1.2", filepath.Join(dir, "libv0.so.1")); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := scan(t, []string{dir}, symbols.Options{})
	if len(r.Libraries) != 1 || r.Libraries[0].Path != lib || r.Libraries[0].Key != "libv0.so" {
		t.Errorf("libraries = %+v, want only %s", r.Libraries, lib)
	}
}

func TestScanErrors(t *testing.T) {
	if _, err := symbols.Scan(context.Background(), nil, symbols.Options{Forbid: []string{"google::[x"}}); err == nil ||
		!strings.Contains(err.Error(), "forbid[0]: bad glob") {
		t.Errorf("bad pattern: err = %v", err)
	}
	dir := buildFixtures(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := symbols.Scan(ctx, []string{filepath.Join(dir, "bodies")}, symbols.Options{}); err != context.Canceled {
		t.Errorf("cancelled: err = %v, want context.Canceled", err)
	}
}
