package config_test

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/pinbot-dev/pinbot/config"
	"github.com/pinbot-dev/pinbot/internal/diag"
)

// AliasBomb is the shape: pkgs packages whose probes alias one list
// of items probes, each path padded so that the file is about size bytes.
func aliasBomb(pkgs, items, size int) []byte {
	var b strings.Builder
	b.WriteString("packages:\n  p0:\n    probes: &l\n")
	pad := max(0, (size-pkgs*20)/items-40)
	for i := range items {
		fmt.Fprintf(&b, "      - {path: m.x%s%d, expect: exists}\n", strings.Repeat("x", pad), i)
	}
	for i := 1; i < pkgs; i++ {
		fmt.Fprintf(&b, "  p%d: {probes: *l}\n", i)
	}
	return []byte(b.String())
}

// allocated returns the bytes f allocates.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

func TestAliasBudget(t *testing.T) {
	data := aliasBomb(2000, 2000, 131<<10)
	if len(data) < 131_000 {
		t.Fatalf("the bomb is %d bytes, want at least 131 KB", len(data))
	}
	var err error
	bytes := allocated(func() { _, err = config.Parse(".pinbot.yml", data) })
	var de *diag.Error
	if !errors.As(err, &de) {
		t.Fatalf("Parse = %v, want a *diag.Error", err)
	}
	// Each alias adds the list: 1 sequence + 2,000 × (mapping + 4 scalars).
	// The tenth takes the count past MaxAliasNodes: p10, on line 3+2000+10.
	want := ".pinbot.yml:2013:17: packages.p10.probes: aliases expand the configuration past 100000 nodes (this one, *l, adds 10001)"
	if !strings.HasPrefix(err.Error(), want) {
		t.Errorf("error\n%v\nwant it to start\n%s", err, want)
	}
	if bytes > 100<<20 {
		t.Errorf("refusing a %d KB bomb allocated %d MB, want under 100 MB", len(data)>>10, bytes>>20)
	}
	t.Logf("a %d KB bomb refused with %.1f MB allocated", len(data)>>10, float64(bytes)/(1<<20))
}

func TestAliasBudgetShapes(t *testing.T) {
	for _, tc := range []struct {
		name, yaml, err string
	}{
		{"shared probes", sharedProbes(50, 20), ""},
		{"under the budget", string(aliasBomb(10, 2000, 0)), ""}, // 9 aliases add 90,009 nodes
		{"past the budget", string(aliasBomb(11, 2000, 0)), "c.yml:2013:17: packages.p10.probes: aliases expand the configuration past 100000 nodes"},
		{"nested laughs", `
packages:
  a:
    probes: &a [{path: a.b, expect: exists}, {path: a.c, expect: exists}]
    platforms: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]
    python: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]
    require: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]
    labels: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]
`, "c.yml:8:45: packages.a.labels[7]: aliases expand the configuration past 100000 nodes (this one, *d, adds 11111)"},
		{"itself", "packages: &a {x: {probes: *a}}\n", "c.yml:1:27: packages.x.probes: alias *a refers to a node that contains it"},
	} {
		_, err := config.Parse("c.yml", []byte(tc.yaml))
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.err != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.err)):
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.err)
		}
	}
}

// sharedProbes is what a real configuration does: one probe list shared by
// every package.
func sharedProbes(pkgs, probes int) string {
	var b strings.Builder
	b.WriteString("packages:\n  p0:\n    probes: &probes\n")
	for i := range probes {
		fmt.Fprintf(&b, "      - {path: numba.core.x%d, expect: exists}\n", i)
	}
	for i := 1; i < pkgs; i++ {
		fmt.Fprintf(&b, "  p%d: {probes: *probes}\n", i)
	}
	return b.String()
}

func TestSharedProbesDecode(t *testing.T) {
	cfg, err := config.Parse("c.yml", []byte(sharedProbes(50, 20)))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(cfg.Packages["p49"].Probes); n != 20 {
		t.Errorf("p49 has %d probes, want the 20 shared", n)
	}
}

// BenchmarkAliasBomb measures refusing the 131 KB bomb.
func BenchmarkAliasBomb(b *testing.B) {
	data := aliasBomb(2000, 2000, 131<<10)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := config.Parse(".pinbot.yml", data); err == nil {
			b.Fatal("the bomb was accepted")
		}
	}
}

// BenchmarkAliasUnderBudget measures decoding what the budget still admits:
// nine packages aliasing one 2,000-probe list (90,009 nodes added).
func BenchmarkAliasUnderBudget(b *testing.B) {
	data := aliasBomb(10, 2000, 0)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := config.Parse(".pinbot.yml", data); err != nil {
			b.Fatal(err)
		}
	}
}
