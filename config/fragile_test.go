package config

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pinbot-dev/pinbot/checks/probe"
	"github.com/pinbot-dev/pinbot/checks/symbols"
)

// TestFragile: the list is one list of normalised names, without
// repetition, holding the defaults and every package a ready-made check is
// made for.
func TestFragile(t *testing.T) {
	seen := map[string]bool{}
	for _, n := range Fragile {
		if Key(n) != n || seen[n] {
			t.Errorf("%q: not normalised, or listed twice", n)
		}
		seen[n] = true
	}
	for _, n := range DefaultPackages {
		if !IsFragile(n) {
			t.Errorf("default package %s is not on the fragile list", n)
		}
	}
	for _, name := range probe.PresetNames() {
		if p, _ := probe.LookupPreset(name); !IsFragile(Key(p.Package)) {
			t.Errorf("probe preset %s is made for %s, which is not on the fragile list", name, p.Package)
		}
	}
	for _, p := range symbols.Presets {
		if !IsFragile(Key(p.Package)) {
			t.Errorf("symbol preset %s is made for %s, which is not on the fragile list", p.Name, p.Package)
		}
	}
	if IsFragile("numpy") || IsFragile("requests") || slices.Contains(Fragile, "tf-nightly") {
		t.Error("numpy, requests or tf-nightly is on the fragile list")
	}
}

// TestFragileDocumented: docs/init.md names every package of the list, in
// a code span, so that the manual says what init watches.
func TestFragileDocumented(t *testing.T) {
	page, err := os.ReadFile(filepath.Join("..", "docs", "init.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range Fragile {
		if !strings.Contains(string(page), "`"+n+"`") {
			t.Errorf("docs/init.md does not name %s", n)
		}
	}
}
