package symbols

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// FuzzScanELF feeds arbitrary bytes to the ELF path: parsing the dynamic
// tables, then reading and normalising every exported body (relocations,
// PLT stubs, the unwind table, strings). Nothing may panic: debug/elf's
// panics are recovered by parseObject and bodyCtx.open, and the rest of the
// path must not panic at all, so it runs here without the recovery the scan
// adds around each body. The seed corpus (testdata/fuzz/FuzzScanELF) holds
// small shared objects built with gcc: plain, packed relative relocations
// (RELR), -Bsymbolic, truncated, and not ELF.
func FuzzScanELF(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		// Read with ReadAt, and in place as a mapped file is: the same.
		o, err := parseObject(bytes.NewReader(data), int64(len(data)))
		o2, err2 := parseObject(memReader{data}, int64(len(data)))
		if (err == nil) != (err2 == nil) || err == nil && (len(o.syms) != len(o2.syms) || len(o.exported) != len(o2.exported)) {
			t.Fatalf("ReadAt and in place differ: %v / %v", err, err2)
		}
		if err != nil {
			return
		}
		src := &source{path: "fuzz.so", size: int64(len(data)),
			open: func() (readerAt, error) { return memReader{data}, nil }}
		l, err := openBodies(o, src, nil)
		if err != nil {
			return
		}
		b := l.view()
		for i, si := range o.exported {
			if i == 64 {
				break
			}
			sym := &o.syms[si]
			if sym.size > 1<<16 {
				continue
			}
			raw, _, err := b.read(sym)
			if err != nil {
				continue
			}
			if _, err := b.normalise(sym, append([]byte(nil), raw...)); err != nil {
				continue
			}
		}
	})
}

// TestSeedCorpus checks what the scan makes of the committed seeds, so a
// broken seed is noticed.
func TestSeedCorpus(t *testing.T) {
	for _, tt := range []struct {
		seed    string
		wantErr bool
	}{
		{"tiny", false}, {"tiny-relr", false}, {"tiny-symbolic", false}, {"tiny-truncated", true}, {"not-elf", true},
	} {
		data := readSeed(t, tt.seed)
		o, err := parseObject(bytes.NewReader(data), int64(len(data)))
		if (err != nil) != tt.wantErr {
			t.Errorf("%s: err = %v, want error %v", tt.seed, err, tt.wantErr)
			continue
		}
		if err != nil {
			continue
		}
		if o.soname != "libtiny.so.1" || len(o.exported) < 5 || len(o.nodes) != 1 || o.nodes[0] != "V1" {
			t.Errorf("%s: soname %q, %d exports, nodes %q", tt.seed, o.soname, len(o.exported), o.nodes)
		}
		if o.symbolic != (tt.seed == "tiny-symbolic") {
			t.Errorf("%s: symbolic = %v", tt.seed, o.symbolic)
		}
	}
}

// readSeed decodes one seed of the corpus ("go test fuzz v1" and a []byte
// literal).
func readSeed(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "fuzz", "FuzzScanELF", name))
	if err != nil {
		t.Fatal(err)
	}
	_, lit, ok := strings.Cut(strings.TrimSpace(string(b)), "\n[]byte(")
	if !ok {
		t.Fatalf("%s: not a corpus file", name)
	}
	s, err := strconv.Unquote(strings.TrimSuffix(lit, ")"))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return []byte(s)
}

// TestRelocsInPlace checks that the relocation index and the unwind table
// read where they lie (a mapped object) are those read with ReadAt: the
// seeds with RELA and with packed relative relocations (RELR).
func TestRelocsInPlace(t *testing.T) {
	for _, seed := range []string{"tiny", "tiny-relr"} {
		data := readSeed(t, seed)
		load := func(r readerAt) (*libBodies, []rela) {
			o, err := parseObject(r, int64(len(data)))
			if err != nil {
				t.Fatal(err)
			}
			l, err := openBodies(o, &source{path: seed, size: int64(len(data)), open: func() (readerAt, error) { return r, nil }}, nil)
			if err != nil {
				t.Fatal(err)
			}
			l.relocsOnce.Do(l.loadRelocs)
			all := slices.Clone(l.relocs)
			for _, run := range l.runs {
				for k := range run.len() {
					all = append(all, run.at(k))
				}
			}
			slices.SortStableFunc(all, cmpRela)
			return l, all
		}
		inPlace, relocs := load(memReader{data})
		streamed, relocs2 := load(readerOnly{bytes.NewReader(data)})
		if len(relocs) == 0 || !slices.Equal(relocs, relocs2) {
			t.Errorf("%s: %d relocations in place, %d read: %v / %v", seed, len(relocs), len(relocs2), relocs, relocs2)
		}
		implicit := slices.ContainsFunc(relocs, func(r rela) bool { return r.implicit() })
		if implicit != (seed == "tiny-relr") {
			t.Errorf("%s: packed relative relocations found: %v", seed, implicit)
		}
		// Every function start the unwind table knows has the same bounds.
		found := 0
		for _, si := range inPlace.o.exported {
			v := inPlace.o.syms[si].value
			s1, n1, ok1 := inPlace.view().funcAt(v)
			s2, n2, ok2 := streamed.view().funcAt(v)
			if s1 != s2 || n1 != n2 || ok1 != ok2 {
				t.Errorf("%s: function at %#x: %#x+%d %v in place, %#x+%d %v read", seed, v, s1, n1, ok1, s2, n2, ok2)
			}
			if ok1 {
				found++
			}
		}
		if found == 0 {
			t.Errorf("%s: no function found in the unwind table", seed)
		}
	}
}

// readerOnly hides everything but ReadAt and Close: an object that is not
// mapped.
type readerOnly struct{ r *bytes.Reader }

func (r readerOnly) ReadAt(p []byte, off int64) (int, error) { return r.r.ReadAt(p, off) }
func (r readerOnly) Close() error                            { return nil }
