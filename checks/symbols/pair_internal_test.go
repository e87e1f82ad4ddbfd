package symbols

import (
	"cmp"
	"debug/elf"
	"math/rand/v2"
	"os"
	"slices"
	"testing"
)

// TestDecodeIgnoresDisplacements checks what the pairer's lockstep rests
// on: an instruction's length, PC-relative field and operand width do not
// depend on the field's value. Every instruction with a PC-relative field
// in libc's code is decoded again with the field overwritten.
func TestDecodeIgnoresDisplacements(t *testing.T) {
	const lib = "/lib/x86_64-linux-gnu/libc.so.6"
	f, err := elf.Open(lib)
	if err != nil {
		t.Skipf("%s: %v", lib, err)
	}
	defer f.Close()
	text := f.Section(".text")
	if text == nil || f.Machine != elf.EM_X86_64 {
		t.Skipf("%s has no x86-64 .text", lib)
	}
	code, err := text.Data()
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 16))
	fields := 0
	buf := make([]byte, 32)
	for off := 0; off < len(code); {
		n, pcrel, pcrelOff, load, ok := decodeX86(code[off:])
		if !ok {
			off++
			continue
		}
		if pcrel > 0 {
			fields++
			end := min(off+len(buf), len(code))
			m := copy(buf, code[off:end])
			for _, fill := range []func() byte{func() byte { return 0 }, func() byte { return 0xff }, func() byte { return byte(rng.Uint32()) }} {
				for i := range pcrel {
					buf[pcrelOff+i] = fill()
				}
				n2, pcrel2, pcrelOff2, load2, ok2 := decodeX86(buf[:m])
				if n2 != n || pcrel2 != pcrel || pcrelOff2 != pcrelOff || load2 != load || !ok2 {
					t.Fatalf("at %#x % x: decoded (%d %d %d %d) with the field % x, (%d %d %d %d %v) with % x",
						text.Addr+uint64(off), code[off:off+n], n, pcrel, pcrelOff, load,
						code[off+pcrelOff:off+pcrelOff+pcrel], n2, pcrel2, pcrelOff2, load2, ok2, buf[pcrelOff:pcrelOff+pcrel])
				}
			}
		}
		off += n
	}
	if fields < 10000 {
		t.Errorf("only %d PC-relative fields in %s", fields, lib)
	}
	t.Logf("%d PC-relative fields", fields)
}

// TestSortByValue checks the radix sort against a comparison sort, on
// values that differ in every 16-bit digit and on repeated values (stable).
func TestSortByValue(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 3))
	for _, n := range []int{0, 1, 2, 100, 5000} {
		a := make([]symAddr, n)
		for i := range a {
			switch i % 3 {
			case 0:
				a[i].value = rng.Uint64()
			case 1:
				a[i].value = rng.Uint64() & 0xffff_ffff
			default:
				a[i].value = uint64(rng.IntN(50)) << 20
			}
			a[i].sym = int32(i)
		}
		want := slices.Clone(a)
		slices.SortStableFunc(want, func(x, y symAddr) int { return cmp.Compare(x.value, y.value) })
		sortByValue(a)
		if !slices.Equal(a, want) {
			t.Errorf("n=%d: radix sort disagrees with a stable sort", n)
		}
	}
}

// TestPltSlotFast checks pltSlot's shortcut for jmp *disp32(%rip) against
// x86asm's decoding (pltJump) on every stub of the PLT sections of libc
// and libstdc++.
func TestPltSlotFast(t *testing.T) {
	fast := 0
	for _, lib := range []string{"/lib/x86_64-linux-gnu/libc.so.6", "/usr/lib/x86_64-linux-gnu/libstdc++.so.6"} {
		fast += pltSlotsAgree(t, lib)
	}
	if fast == 0 {
		t.Skip("no library with PLT stubs found")
	}
}

// pltSlotsAgree compares pltSlot with pltJump on every stub of lib and
// returns how many stubs took the shortcut.
func pltSlotsAgree(t *testing.T, lib string) int {
	src := &source{path: lib, open: func() (readerAt, error) { return openFile(lib) }}
	r, err := src.open()
	if err != nil {
		return 0
	}
	defer r.Close()
	st, err := os.Stat(lib)
	if err != nil {
		t.Fatal(err)
	}
	src.size = st.Size()
	o, err := parseObject(r, src.size)
	if err != nil {
		t.Fatal(err)
	}
	b, err := openBodies(o, src, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.close()
	fast := 0
	for _, sec := range b.f.Sections {
		if sec.Name != ".plt" && sec.Name != ".plt.sec" && sec.Name != ".plt.got" {
			continue
		}
		for off := uint64(0); off < sec.Size; off += 8 {
			addr := sec.Addr + off
			got, gotOK := b.pltSlot(sec, addr)
			code, err := sectionBytes(b.r, b.size, sec, off, min(16, sec.Size-off))
			if err != nil {
				t.Fatal(err)
			}
			want, wantOK := pltJump(code, addr)
			if got != want || gotOK != wantOK {
				t.Errorf("%s+%#x: slot %#x %v, x86asm %#x %v", sec.Name, off, got, gotOK, want, wantOK)
			}
			if code[0] == 0xff && code[1] == 0x25 {
				fast++
			}
		}
	}
	if fast == 0 {
		t.Errorf("%s: no stub starts with jmp *disp32(%%rip)", lib)
	}
	return fast
}
