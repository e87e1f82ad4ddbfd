package elfgen

import (
	"debug/elf"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/arch/x86/x86asm"
)

func TestWrite(t *testing.T) {
	p := filepath.Join(t.TempDir(), "lib.so")
	if err := Write(p, Spec{Functions: 100, Size: 64 << 20, Shift: 32}); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if st.Size() < 64<<20-4096 || st.Size() > 64<<20+4096 {
		t.Errorf("size %d, want about 64 MiB", st.Size())
	}
	f, err := elf.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	syms, err := f.DynamicSymbols()
	if err != nil || len(syms) != 100 || syms[7].Name != "elfgen_fn_0000007" || syms[7].Size != FuncSize {
		t.Fatalf("symbols: %v, %d, %+v", err, len(syms), syms[:min(len(syms), 8)])
	}
	text := f.Section(".text")
	code, err := text.Data()
	if err != nil {
		t.Fatal(err)
	}
	// Function 7 calls function 8 and reads constant 7.
	c := code[7*FuncSize:]
	call, err := x86asm.Decode(c[4:], 64)
	if err != nil || call.Op != x86asm.CALL {
		t.Fatalf("second instruction %v %v", call, err)
	}
	target := syms[7].Value + 4 + uint64(call.Len) + uint64(int64(call.Args[0].(x86asm.Rel)))
	if target != syms[8].Value {
		t.Errorf("call to %#x, want %#x", target, syms[8].Value)
	}
	if soname, _ := f.DynString(elf.DT_SONAME); len(soname) != 1 || soname[0] != "libelfgen.so" {
		t.Errorf("soname %q", soname)
	}
}
