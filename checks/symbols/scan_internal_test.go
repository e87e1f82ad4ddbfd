package symbols

import (
	"cmp"
	"debug/elf"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestGroupByHash checks the clash index's grouping: equal hashes end up
// neighbours, in their first order, whatever bits they share (hashes equal
// in their low 24 bits but not above, and a few full collisions).
func TestGroupByHash(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	keys := []uint64{0, 1, 1 << 24, 1<<24 | 1, 5 << 40, 5<<40 | 1<<24, ^uint64(0), 0xff}
	for _, n := range []int{0, 1, 2, 100, 5000} {
		a := make([]hashedRef, n)
		for i := range a {
			a[i] = hashedRef{keys[rng.IntN(len(keys))], ref{0, int32(i)}}
		}
		want := slices.Clone(a)
		slices.SortStableFunc(want, func(x, y hashedRef) int { return cmp.Compare(x.h, y.h) })
		groupByHash(a)
		// Runs of one hash, in order: compare run by run.
		got := map[uint64][]int32{}
		for i, e := range a {
			if i == 0 || a[i-1].h != e.h {
				if _, seen := got[e.h]; seen {
					t.Fatalf("n=%d: hash %#x in two runs", n, e.h)
				}
			}
			got[e.h] = append(got[e.h], e.r.sym)
		}
		for _, e := range want {
			if len(got[e.h]) == 0 || got[e.h][0] != e.r.sym {
				t.Fatalf("n=%d: hash %#x: order %v, want %d next", n, e.h, got[e.h], e.r.sym)
			}
			got[e.h] = got[e.h][1:]
		}
	}
}

// TestAppendDups checks that names sharing a hash are grouped by name: a
// collision is two names, not one clash.
func TestAppendDups(t *testing.T) {
	names := []string{"a", "b", "a", "c", "b", "a"}
	run := make([]hashedRef, len(names))
	for i := range run {
		run[i] = hashedRef{7, ref{int32(i), 0}}
	}
	nameOf := func(r ref) string { return names[r.lib] }
	got := fmt.Sprint(appendDups(nil, run, nameOf, new([]ref)))
	if want := "[{a [{0 0} {2 0} {5 0}]} {b [{1 0} {4 0}]}]"; got != want {
		t.Errorf("appendDups = %s, want %s", got, want)
	}
	if got := fmt.Sprint(appendDups(nil, run[2:4], nameOf, new([]ref))); got != "[]" {
		t.Errorf("two names colliding = %s, want no duplicate", got)
	}
}

// TestSymbolAtAliases checks which name symbolAt gives an address held by
// aliases: the first in byte order of those holding it, whatever the
// table order.
func TestSymbolAtAliases(t *testing.T) {
	sym := func(name string, value, size uint64) symbol {
		return symbol{name: name, value: value, size: size, shndx: 1, info: byte(elf.STB_GLOBAL)<<4 | byte(elf.STT_FUNC)}
	}
	o := &object{syms: []symbol{{}, sym("zeta", 0x100, 0x40), sym("beta", 0x100, 0x10), sym("alpha", 0x100, 0x8), sym("next", 0x140, 4)}}
	b := &libBodies{o: o}
	for _, tt := range []struct {
		addr uint64
		want string
		off  uint64
	}{
		{0x100, "alpha", 0}, {0x107, "alpha", 7}, {0x108, "beta", 8}, {0x110, "zeta", 0x10}, {0x13f, "zeta", 0x3f},
		{0x140, "next", 0}, {0x144, "", 0}, {0xff, "", 0},
	} {
		name, off, ok := b.symbolAt(tt.addr)
		if name != tt.want || off != tt.off || ok != (tt.want != "") {
			t.Errorf("symbolAt(%#x) = %q+%d %v, want %q+%d", tt.addr, name, off, ok, tt.want, tt.off)
		}
	}
}
