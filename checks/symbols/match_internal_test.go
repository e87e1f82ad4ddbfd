package symbols

import (
	"os"
	"testing"
)

// staticNames are mangled names of the shapes parseEntity handles: nested,
// const, std, special names, thunks, local names, templates, ABI tags.
var staticNames = []string{
	"_ZN6google8protobuf7Message8CopyFromERKS1_",
	"_ZNK6google8protobuf7Message11GetTypeNameB5cxx11Ev",
	"_ZTVN6google8protobuf7MessageE",
	"_ZTIN6google8protobuf7MessageE",
	"_ZTSN6google8protobuf7MessageE",
	"_ZThn8_N6google8protobuf7MessageD1Ev",
	"_ZTv0_n24_N6google8protobuf7MessageD1Ev",
	"_ZGVZN6google8protobuf3FooEvE3bar",
	"_ZZN6google8protobuf3FooEvE3bar",
	"_ZN6google8protobuf2io7Printer5PrintIJA5_cSsEEEvPKcDpRKT_",
	"_ZN6google8protobuf5Arena18CreateMaybeMessageIN4onnx14AttributeProtoEJEEEPT_PS1_DpOT0_",
	"_ZN6google8protobufC2Ev",
	"_ZN6googleC2Ev",
	"_ZN6google3fooEv",
	"_ZN6google8protobufIiE3fooEv",
	"_ZN4llvm3fooB5cxx11Ev",
	"_ZN4llvmB5cxx113fooEv",
	"_ZN4llvm6detail23provider_format_adapterImED1Ev",
	"_ZNSt6vectorISsSaISsEED1Ev",
	"_ZNSs4_Rep10_M_destroyERKSaIcE",
	"_ZSt4cout",
	"_ZStlsISt11char_traitsIcEERSt13basic_ostreamIcT_ES5_PKc",
	"_ZN4absl7debian36StatusD1Ev",
	"_ZN12_GLOBAL__N_13fooEv",
	"_ZL3foov",
	"_Z3fooi",
	"_Znwm",
	"_ZN4llvmplERKNS_5APIntES2_",
	"_ZN4llvm3cl3optIbLb0ENS0_6parserIbEEED0Ev",
	"_ZNK4llvm5Twine3strB5cxx11Ev",
	"_ZN4llvm4ThisIsNotValid",
}

var consistencyPatterns = []string{
	"google::protobuf::*", "google::*", "llvm::*", "llvm::cl::*", "absl::*", "std::*",
	"google::protobuf::Message::*", "llvm::foo::*", "onnx::*",
}

// TestPrefixMatchAgreesWithDemangling checks the fast structural matcher
// against matching the glob on demangled names, on every name it decides:
// the static names above, and a sample of Debian's libprotobuf and libgrpc
// when installed.
func TestPrefixMatchAgreesWithDemangling(t *testing.T) {
	names := append([]string(nil), staticNames...)
	for _, p := range []string{
		"/usr/lib/x86_64-linux-gnu/libprotobuf.so.32.0.12",
		"/usr/lib/x86_64-linux-gnu/libgrpc.so.29.0.0",
	} {
		f, err := os.Open(p)
		if err != nil {
			continue
		}
		st, _ := f.Stat()
		o, err := parseObject(f, st.Size())
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < len(o.syms); i += 3 {
			names = append(names, o.syms[i].name)
		}
	}
	pats := make([]*Pattern, len(consistencyPatterns))
	for i, text := range consistencyPatterns {
		p, err := CompilePattern(text)
		if err != nil {
			t.Fatal(err)
		}
		if p.prefix == nil {
			t.Fatalf("%s: expected a prefix pattern", text)
		}
		pats[i] = p
	}
	decided, bad := 0, 0
	for _, name := range names {
		if len(name) < 2 || name[:2] != "_Z" || demangleName(name) == name {
			continue // not mangled, or not valid
		}
		forms := demangledForms(name)
		for _, p := range pats {
			e := parseEntity(name, len(p.prefix)+1)
			if !e.ok {
				continue
			}
			decided++
			fast := e.hasPrefix(p.prefix)
			slow := false
			for _, f := range forms {
				slow = slow || p.re.MatchString(f)
			}
			if fast != slow {
				bad++
				if bad <= 10 {
					t.Errorf("%s on %s (%s): structural %v, demangled %v", p, name, demangleName(name), fast, slow)
				}
			}
		}
	}
	t.Logf("%d (pattern, name) pairs decided structurally, %d disagreements", decided, bad)
}
