package x86len

import (
	"bytes"
	"debug/elf"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"runtime"
	"sync"
	"testing"

	"golang.org/x/arch/x86/x86asm"
)

// check compares Decode with x86asm at the start of b: where Decode
// answers, x86asm must decode the same length and PC-relative field.
func check(t testing.TB, b []byte) (handled bool) {
	got, ok := Decode(b)
	if !ok {
		return false
	}
	want, err := x86asm.Decode(b, 64)
	if err != nil {
		t.Fatalf("% x: Decode says %+v, x86asm fails: %v", b[:min(len(b), 15)], got, err)
	}
	mem := false
	for _, a := range want.Args {
		if _, isMem := a.(x86asm.Mem); isMem {
			mem = true
		}
	}
	if got.Len != want.Len || got.PCRel != want.PCRel || (want.PCRel > 0 && got.PCRelOff != want.PCRelOff) ||
		got.LEA != (want.Op == x86asm.LEA) || (got.PCRel > 0 && got.Mem != mem) {
		t.Fatalf("% x (%v): Decode says %+v, x86asm len %d pcrel %d at %d mem %v", b[:want.Len], want, got, want.Len, want.PCRel, want.PCRelOff, mem)
	}
	if got.Mem {
		widthsMu.Lock()
		defer widthsMu.Unlock()
		if w, seen := widths[got.Key]; seen && w.n != want.MemBytes {
			t.Fatalf("key %#x: % x reads %d bytes, % x %d", got.Key, b[:want.Len], want.MemBytes, w.inst, w.n)
		} else if !seen {
			widths[got.Key] = width{want.MemBytes, append([]byte(nil), b[:want.Len]...)}
		}
	}
	return true
}

// widths are the memory operand widths seen per Key, which must not
// disagree (TestKeyDecidesWidth, and every check).
var (
	widthsMu sync.Mutex
	widths   = map[uint16]width{}
)

type width struct {
	n    int
	inst []byte
}

// TestKeyDecidesWidth checks that the instructions of one Key read as many
// bytes, over every opcode, prefix class, REX.W and ModRM.reg with a
// RIP-relative operand.
func TestKeyDecidesWidth(t *testing.T) {
	tail := []byte{0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb, 0xcc}
	n := 0
	for _, esc := range [][]byte{nil, {0x0f}} {
		for op := range 256 {
			for _, p := range [][]byte{nil, {0x66}, {0xf3}, {0xf2}} {
				for _, rex := range []byte{0, 0x40, 0x41, 0x44, 0x48, 0x4c} {
					for reg := range byte(8) {
						b := append([]byte{}, p...)
						if rex != 0 {
							b = append(b, rex)
						}
						b = append(b, esc...)
						b = append(b, byte(op), 0x05|reg<<3)
						if got, ok := Decode(append(b, tail...)); ok && got.Mem {
							check(t, append(b, tail...))
							n++
						}
					}
				}
			}
		}
	}
	if n == 0 {
		t.Fatal("no RIP-relative form decoded: nothing was checked")
	}
	t.Logf("%d RIP-relative forms, %d keys", n, len(widths))
}

func TestKnown(t *testing.T) {
	for _, tc := range []struct {
		hex  string
		want Inst
	}{
		{"e800000000", Inst{Len: 5, PCRel: 4, PCRelOff: 1}},
		{"488d0500000000", Inst{Len: 7, PCRel: 4, PCRelOff: 3, Mem: true, LEA: true}},
		{"7405", Inst{Len: 2, PCRel: 1, PCRelOff: 1}},
		{"0f8400000000", Inst{Len: 6, PCRel: 4, PCRelOff: 2}},
		{"48b80100000000000000", Inst{Len: 10}},
		{"66c705000000000100", Inst{Len: 9, PCRel: 4, PCRelOff: 3, Mem: true}},
		{"64488b042528000000", Inst{Len: 9}},
		{"662e0f1f840000000000", Inst{Len: 10}},
	} {
		b, _ := hex.DecodeString(tc.hex)
		got, ok := Decode(b)
		got.Key = 0 // checked by TestKeyDecidesWidth
		if !ok || got != tc.want {
			t.Errorf("%s: %+v %v, want %+v", tc.hex, got, ok, tc.want)
		}
		check(t, b)
	}
	for _, h := range []string{"c5f877", "d9ee", "0f01d0", "e8000000"} { // VEX, x87, system, truncated
		b, _ := hex.DecodeString(h)
		if got, ok := Decode(b); ok {
			t.Errorf("%s: %+v, want not handled", h, got)
		}
	}
}

// TestAgreeOnCode walks the code of real objects (this test binary, the C
// library and any listed in PINBOT_X86LEN_FILES) with x86asm and checks
// Decode at every instruction, and at every byte of the first 64 KiB.
func TestAgreeOnCode(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skip("needs x86-64 objects")
	}
	files := []string{"/lib/x86_64-linux-gnu/libc.so.6", "/usr/lib/x86_64-linux-gnu/libstdc++.so.6"}
	if exe, err := os.Executable(); err == nil {
		files = append(files, exe)
	}
	if extra := os.Getenv("PINBOT_X86LEN_FILES"); extra != "" {
		files = append(files, splitList(extra)...)
	}
	checked := 0
	for _, f := range files {
		ef, err := elf.Open(f)
		if err != nil {
			continue
		}
		sec := ef.Section(".text")
		if sec == nil || ef.Machine != elf.EM_X86_64 {
			ef.Close()
			continue
		}
		code, err := sec.Data()
		ef.Close()
		if err != nil {
			t.Fatal(err)
		}
		handled, total := 0, 0
		for off := 0; off < len(code); {
			inst, err := x86asm.Decode(code[off:], 64)
			if check(t, code[off:]) {
				handled++
			}
			total++
			if err != nil || inst.Len == 0 {
				off++
				continue
			}
			off += inst.Len
		}
		for off := 0; off < min(len(code), 64<<10); off++ {
			check(t, code[off:])
		}
		t.Logf("%s: %d of %d instructions measured without x86asm", f, handled, total)
		checked++
	}
	if checked == 0 {
		t.Skip("no x86-64 object to read")
	}
}

func splitList(s string) []string {
	var out []string
	start := 0
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] == ':' {
			if i > start {
				out = append(out, s[start:i])
			}
			start = i + 1
		}
	}
	return out
}

// FuzzAgree checks Decode against x86asm on any bytes.
func FuzzAgree(f *testing.F) {
	for _, h := range []string{"e800000000", "488d0500000000", "66c705000000000100", "f30f1efa", "f0480fb10d00000000",
		"c4e27d18c0", "660f3a0fc108", "4c8b15000000004d", "f7050000000001000000"} {
		b, _ := hex.DecodeString(h)
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		check(t, b)
	})
}

var update = flag.Bool("update", false, "rewrite table.go from x86asm")

// TestTable derives twoValid from x86asm: an opcode of the 0F map is valid
// with a prefix class and form (register or memory) when x86asm decodes
// every ModRM.reg, with and without REX.W, under several addressing forms,
// to the length Decode computes. With -update it rewrites table.go.
func TestTable(t *testing.T) {
	var table [2][256]uint64
	prefixes := [][]byte{nil, {0x66}, {0xf3}, {0xf2}}
	tail := []byte{0x24, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb, 0xcc}
	saved := twoValid
	for w := range twoValid {
		for i := range twoValid[w] {
			twoValid[w][i] = ^uint64(0)
		}
	}
	for op := range 256 {
		if two[op] == fUnknown {
			continue
		}
		for class, p := range prefixes {
			for form, modrms := range [][]byte{{0xc1, 0xc7, 0xf8}, {0x01, 0x05, 0x44, 0x84, 0x04, 0x0c}} {
				for reg := range byte(8) {
					for w, rexes := range [][]byte{{0, 0x41}, {0x48, 0x4c}} {
						good := true
						for _, rex := range rexes {
							for _, modrm := range modrms {
								b := append([]byte{}, p...)
								if rex != 0 {
									b = append(b, rex)
								}
								b = append(b, 0x0f, byte(op), modrm&^0x38|reg<<3)
								b = append(b, tail...)
								want, err := x86asm.Decode(b, 64)
								got, ok := Decode(b)
								if !ok || err != nil || want.Len != got.Len || want.PCRel != got.PCRel || want.PCRelOff != got.PCRelOff {
									good = false
								}
							}
						}
						if good {
							table[w][op] |= 1 << ((class*2+form)*8 + int(reg))
						}
					}
				}
			}
		}
	}
	twoValid = saved
	if table == twoValid {
		return
	}
	var src bytes.Buffer
	src.WriteString("// Code generated by go test -run TestTable -update; DO NOT EDIT.\n\npackage x86len\n\n")
	src.WriteString("// twoValid has, per 0F-map opcode, bit (class*2+form)*8+reg set when\n// x86asm accepts it with that prefix class, form (0 register, 1 memory)\n// and ModRM.reg; the first table without REX.W, the second with it.\nvar twoValid = [2][256]uint64{")
	for _, t := range table {
		src.WriteString("\n\t{")
		for i, v := range t {
			if i%4 == 0 {
				src.WriteString("\n\t\t")
			} else {
				src.WriteString(" ")
			}
			fmt.Fprintf(&src, "0x%016x,", v)
		}
		src.WriteString("\n\t},")
	}
	src.WriteString("\n}\n")
	if *update {
		if err := os.WriteFile("table.go", src.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("table.go is out of date with x86asm: go test -run TestTable -update")
}
