package symbols

import (
	"cmp"
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
	got := fmt.Sprint(appendDups(nil, run, nameOf))
	if want := "[{a [{0 0} {2 0} {5 0}]} {b [{1 0} {4 0}]}]"; got != want {
		t.Errorf("appendDups = %s, want %s", got, want)
	}
	if got := fmt.Sprint(appendDups(nil, run[2:4], nameOf)); got != "[]" {
		t.Errorf("two names colliding = %s, want no duplicate", got)
	}
}
