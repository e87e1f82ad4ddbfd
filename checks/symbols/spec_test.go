package symbols_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/pinbot-dev/pinbot/checks/symbols"
	"github.com/pinbot-dev/pinbot/internal/pep503"
	"github.com/pinbot-dev/pinbot/sources/wheel"
)

func TestSpecValidate(t *testing.T) {
	tests := []struct {
		name string
		spec symbols.Spec
		want string // substring of the error; "" for none
	}{
		{"empty", symbols.Spec{}, ""},
		{"preset", symbols.Spec{Preset: "tensorflow-protobuf"}, ""},
		{"globs and prefixes", symbols.Spec{Forbid: []string{"google::protobuf::*", "_ZN6google8protobuf", "descriptor_table_*", "[gG]oogle::*"}}, ""},
		{"unknown preset", symbols.Spec{Preset: "tf"}, `preset: unknown preset "tf" (expected one of: tensorflow-protobuf)`},
		{"empty pattern", symbols.Spec{Forbid: []string{"llvm::*", ""}}, "forbid[1]: empty pattern (expected a demangled glob"},
		{"blank pattern", symbols.Spec{Forbid: []string{"  "}}, "forbid[0]: empty pattern"},
		{"spaces around", symbols.Spec{Forbid: []string{" llvm::*"}}, "leading or trailing spaces"},
		{"unterminated class", symbols.Spec{Forbid: []string{"google::[protobuf::*"}}, `forbid[0]: bad glob "google::[protobuf::*": unterminated [`},
		{"empty class", symbols.Spec{Forbid: []string{"a[]"}}, "empty []"},
		{"trailing backslash", symbols.Spec{Forbid: []string{`llvm\`}}, `trailing \`},
		{"matches everything", symbols.Spec{Forbid: []string{"*"}}, "matches every symbol"},
		{"empty against", symbols.Spec{Against: []string{"protobuf", ""}}, "against[1]: empty entry (expected a package name or a path)"},
		{"empty host", symbols.Spec{Host: []string{""}}, "host[0]: empty entry"},
		{"bad platform", symbols.Spec{Wheel: symbols.WheelSpec{Platform: "Linux x86"}}, "wheel.platform: bad platform"},
		{"bad python", symbols.Spec{Wheel: symbols.WheelSpec{Python: "Python 3"}}, "wheel.python: bad Python"},
		{"good tags", symbols.Spec{Wheel: symbols.WheelSpec{Platform: "manylinux_2_17_x86_64", Python: "cp311"}}, ""},
		{"the issue's family and version", symbols.Spec{Wheel: symbols.WheelSpec{Platform: "manylinux_x86_64", Python: "3.12"}}, ""},
		{"a conda platform", symbols.Spec{Wheel: symbols.WheelSpec{Platform: "linux-64"}}, ""},
		{"conda target", symbols.Spec{Conda: symbols.CondaSpec{Subdir: "linux-64", Python: "3.11"}, Artifact: "conda"}, ""},
		{"conda python tag", symbols.Spec{Conda: symbols.CondaSpec{Subdir: "osx-arm64", Python: "cp312"}, Artifact: "wheel"}, ""},
		{"bad conda subdir", symbols.Spec{Conda: symbols.CondaSpec{Subdir: "Linux 64"}}, `conda.subdir: "Linux 64" is not a conda platform`},
		{"bad conda python", symbols.Spec{Conda: symbols.CondaSpec{Python: "three"}}, "conda.python: bad Python"},
		{"bad artifact", symbols.Spec{Artifact: "sdist"}, `artifact: expected wheel or conda, found "sdist"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.spec.Validate()
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("Validate() = %v, want nil", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("Validate() = %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

func TestSpecResolve(t *testing.T) {
	got, err := symbols.Spec{
		Preset: "tensorflow-protobuf",
		Forbid: []string{"llvm::*", "onnx::*"},
		Host:   []string{"/usr/lib/x86_64-linux-gnu/libprotobuf.so.32"},
	}.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	wantForbid := []string{"google::protobuf::*", "_ZN6google8protobuf", "absl::*", "llvm::*", "onnx::*"}
	if !slices.Equal(got.Forbid, wantForbid) || !slices.Equal(got.Against, []string{"protobuf"}) || got.Preset != "" || len(got.Host) != 1 {
		t.Errorf("Resolve() = %+v", got)
	}
	again, err := got.Resolve()
	if err != nil || !slices.Equal(again.Forbid, got.Forbid) || !slices.Equal(again.Against, got.Against) {
		t.Errorf("resolving twice changed %+v into %+v (%v)", got, again, err)
	}
	if _, err := (symbols.Spec{Preset: "nope"}).Resolve(); err == nil {
		t.Error("Resolve accepted an unknown preset")
	}
	for name, p := range symbols.Presets {
		if p.Name != name || len(p.Forbid) == 0 || p.Description == "" || p.Package == "" || p.Package != pep503.Normalize(p.Package) {
			t.Errorf("preset %s = %+v", name, p)
		}
		for _, f := range p.Forbid {
			if _, err := symbols.CompilePattern(f); err != nil {
				t.Errorf("preset %s: %v", name, err)
			}
		}
	}
}

// TestWheelSpecTarget: the configured platform and Python replace the
// defaults (this machine's, the probe interpreter's) one by one; the choice
// among wheels is sources/wheel.Choose's.
func TestWheelSpecTarget(t *testing.T) {
	def := wheel.Target{Python: "3.11", Platform: wheel.Platform{Family: "manylinux", Arch: "x86_64", Major: 2, Minor: 36}}
	tests := []struct {
		spec symbols.WheelSpec
		want string
	}{
		{symbols.WheelSpec{}, "manylinux_2_36_x86_64, CPython 3.11"},
		{symbols.WheelSpec{Python: "cp312"}, "manylinux_2_36_x86_64, CPython 3.12"},
		{symbols.WheelSpec{Platform: "manylinux_x86_64", Python: "3.12"}, "manylinux x86_64 (any glibc), CPython 3.12"},
		{symbols.WheelSpec{Platform: "osx-arm64"}, "macosx arm64 (any macOS), CPython 3.11"},
		{symbols.WheelSpec{Platform: "manylinux2014_aarch64"}, "manylinux_2_17_aarch64, CPython 3.11"},
	}
	for _, tt := range tests {
		got, err := tt.spec.Target(def)
		if err != nil || got.String() != tt.want {
			t.Errorf("%+v.Target = %v, %v; want %s", tt.spec, got, err, tt.want)
		}
	}
	for _, bad := range []symbols.WheelSpec{{Platform: "Linux x86"}, {Python: "3"}, {Python: "pp310"}} {
		if err := bad.Validate(); err == nil {
			t.Errorf("%+v.Validate() succeeded", bad)
		}
		if _, err := bad.Target(def); err == nil {
			t.Errorf("%+v.Target succeeded", bad)
		}
	}
}

func TestPatternMatch(t *testing.T) {
	tests := []struct {
		pattern string
		name    string
		want    bool
	}{
		{"google::protobuf::*", "_ZN6google8protobuf7Message8CopyFromERKS1_", true},
		{"google::protobuf::*", "_ZNK6google8protobuf7Message11GetTypeNameB5cxx11Ev", true},
		{"google::protobuf::*", "_ZTVN6google8protobuf7MessageE", true},                                    // vtable for
		{"google::protobuf::*", "_ZThn8_N6google8protobuf7MessageD1Ev", true},                              // thunk
		{"google::protobuf::*", "_ZN6google8protobuf2io7Printer5PrintIJA5_cSsEEEvPKcDpRKT_", true},         // return type first
		{"google::protobuf::*", "_ZNSt6vectorIPN6google8protobuf7MessageESaIS3_EED1Ev", false},             // template argument
		{"*google::protobuf::*", "_ZNSt6vectorIPN6google8protobuf7MessageESaIS3_EED1Ev", true},             // anywhere
		{"google::protobuf::*", "_ZN6google5proto3fooEv", false},                                           //
		{"google::protobuf::*", "descriptor_table_google_2fprotobuf_2fany_2eproto", false},                 // C name
		{"descriptor_table_*", "descriptor_table_google_2fprotobuf_2fany_2eproto", true},                   //
		{"descriptor_table_*", "_ZN4onnx16descriptor_table_E", false},                                      //
		{"_ZN6google8protobuf", "_ZN6google8protobuf7Message8CopyFromERKS1_", true},                        // mangled prefix
		{"_ZN6google8protobuf", "_ZNK6google8protobuf7Message11GetTypeNameB5cxx11Ev", false},               // _ZNK is not _ZN
		{"_ZN6google8protobuf*Message*", "_ZN6google8protobuf7Message8CopyFromERKS1_", true},               // mangled glob
		{"llvm::*", "_ZN4llvm11raw_ostream5writeEPKcm", true},                                              //
		{"llvm::*", "_ZSt18uninitialized_copyIN4llvm11bf_iteratorIPNS0_4LoopEEEPS3_ET0_T_S6_S5_", false},   // std:: entity
		{"std::*", "_ZStlsISt11char_traitsIcEERSt13basic_ostreamIcT_ES5_PKc", true},                        // std::operator<<
		{"std::*", "_ZNSs4_Rep10_M_destroyERKSaIcE", true},                                                 // std::string
		{"absl::*", "_ZN4absl7debian36StatusD1Ev", true},                                                   //
		{"google::protobuf::Message::*", "_ZN6google8protobuf7Message8CopyFromERKS1_", true},               //
		{"google::protobuf::Message::*", "_ZN6google8protobuf11MessageLite8CopyFromERKS1_", false},         //
		{"google::protobuf::Message::ByteSize() const", "_ZNK6google8protobuf7Message8ByteSizeEv", true},   // exact, with parameters
		{"google::protobuf::Message::ByteSize() const", "_ZNK6google8protobuf7Message9ByteSize2Ev", false}, //
		{"google::protobuf::*::ByteSize*", "_ZNK6google8protobuf7Message8ByteSizeEv", true},                // general glob
		{"typeinfo for google::*", "_ZTIN6google8protobuf7MessageE", true},                                 // special prefix kept
		{"PyInit_?", "PyInit_x", true},                                                                               //
		{"PyInit_?", "PyInit_xy", false},                                                                             //
		{"[!P]yInit_*", "PyInit_x", false},                                                                           // class
		{"llvm::*", "_ZN4llvm4ThisIsNotValid", true},                                                                 // decided on structure
		{"google::protobuf::*", "_ZN6google8protobuf", false},                                                        // no entity after the prefix
		{"google::protobuf::*", "_ZZN6google8protobuf3FooEvE3bar", true},                                             // local static
		{"google::protobuf::Foo::*", "_ZZN6google8protobuf3FooEvE3bar", false},                                       // Foo() is a function
		{"google::protobuf::*", "_ZGVZN6google8protobuf3FooEvE3bar", true},                                           // guard variable
		{"google::protobuf::*", "_ZN6google8protobufL3fooEv", true},                                                  // internal linkage
		{"google::*", "_ZN6googleC2Ev", true},                                                                        // constructor
		{"google::protobuf::*", "_ZN6google8protobufIiE3fooEv", false},                                               // google::protobuf<int>
		{"google::protobuf::*", "_Z3fooPN6google8protobuf7MessageE", false},                                          // parameter only
		{"*(google::protobuf::Message*)", "_Z3fooPN6google8protobuf7MessageE", true},                                 //
		{"foo", "_Z3fooPN6google8protobuf7MessageE", true},                                                           // name without parameters
		{"foo(*)", "_Z3fooPN6google8protobuf7MessageE", true},                                                        //
		{"bar", "_Z3fooPN6google8protobuf7MessageE", false},                                                          //
		{"onnx::*", "_ZN6google8protobuf5Arena18CreateMaybeMessageIN4onnx14AttributeProtoEJEEEPT_PS1_DpOT0_", false}, // onnx only in the return type
	}
	for _, tt := range tests {
		p, err := symbols.CompilePattern(tt.pattern)
		if err != nil {
			t.Fatalf("CompilePattern(%q): %v", tt.pattern, err)
		}
		if got := p.Match(tt.name); got != tt.want {
			t.Errorf("%q.Match(%s) = %v, want %v", tt.pattern, tt.name, got, tt.want)
		}
		if p.String() != tt.pattern {
			t.Errorf("String() = %q", p.String())
		}
	}
}
