package config_test

import (
	"strings"
	"testing"

	"github.com/pinbot-dev/pinbot/config"
)

const checked = "packages:\n  numba:\n    probes: [{preset: numba-unique-ids}]\n"

// TestNightlySources: early-warning takes, beside true and false, a
// mapping naming where the nightly builds are; each kind loads, the preset
// names its index, and the early warning is on.
func TestNightlySources(t *testing.T) {
	for doc, want := range map[string]config.Nightly{
		"    early-warning: {nightly: scientific-python}\n":                                             {Index: config.ScientificPythonNightlyIndex},
		"    early-warning:\n      nightly: {index: https://download.pytorch.org/whl/nightly/cpu/}\n":   {Index: "https://download.pytorch.org/whl/nightly/cpu"},
		"    early-warning: {nightly: {find-links: 'https://example.org/jax_nightly_releases.html'}}\n": {FindLinks: "https://example.org/jax_nightly_releases.html"},
		"    early-warning: {nightly: {project: tf-nightly}}\n":                                         {Project: "tf-nightly"},
		"    early-warning: {nightly: {channel: numba/label/dev}}\n":                                    {Channel: "numba/label/dev"},
	} {
		cfg, err := config.Parse("c.yml", []byte(checked+doc))
		if err != nil {
			t.Errorf("%q: %v", doc, err)
			continue
		}
		p := cfg.Packages["numba"]
		got, ok := p.NightlySource()
		if !ok || got != want || !p.EarlyWarns() {
			t.Errorf("%q: NightlySource = %+v, %v (early warning %v), want %+v", doc, got, ok, p.EarlyWarns(), want)
		}
	}
	for _, doc := range []string{"", "    early-warning: true\n", "    early-warning: {}\n"} {
		cfg, err := config.Parse("c.yml", []byte(checked+doc))
		if err != nil {
			t.Fatalf("%q: %v", doc, err)
		}
		if n, ok := cfg.Packages["numba"].NightlySource(); ok {
			t.Errorf("%q: a nightly source %+v", doc, n)
		}
		if !cfg.Packages["numba"].EarlyWarns() {
			t.Errorf("%q: the early warning is off", doc)
		}
	}
	cfg, err := config.Parse("c.yml", []byte(checked+"    early-warning: false\n"))
	if err != nil || cfg.Packages["numba"].EarlyWarns() {
		t.Errorf("early-warning: false: %v", err)
	}
}

// TestNightlyErrors: a nightly source that names no place, or two, or one
// that is not a place, is an error at the value.
func TestNightlyErrors(t *testing.T) {
	for doc, want := range map[string]string{
		checked + "    early-warning: {nightly: conda-forge-nightly}\n":               `c.yml:4:30: packages.numba.early-warning.nightly: unknown value "conda-forge-nightly" (expected one of: scientific-python)`,
		checked + "    early-warning: {nightly: {}}\n":                                `c.yml:4:30: packages.numba.early-warning.nightly: expected exactly one of index, find-links, project or channel, found 0`,
		checked + "    early-warning: {nightly: {project: tf-nightly, channel: a}}\n": `c.yml:4:30: packages.numba.early-warning.nightly: expected exactly one of index, find-links, project or channel, found 2`,
		checked + "    early-warning: {nightly: {index: ftp://x.org/simple}}\n":       `c.yml:4:38: packages.numba.early-warning.nightly.index: expected an http:// or https:// URL`,
		checked + "    early-warning: {nightly: {find-links: x.html}}\n":              `c.yml:4:43: packages.numba.early-warning.nightly.find-links: expected an http:// or https:// URL`,
		checked + "    early-warning: {nightly: {project: 'tf nightly'}}\n":           `c.yml:4:40: packages.numba.early-warning.nightly.project: "tf nightly" is not a project name`,
		checked + "    early-warning: {nightly: {channel: 'numba/label/'}}\n":         `c.yml:4:40: packages.numba.early-warning.nightly.channel: "numba/label/" is not a channel name`,
		checked + "    early-warning: {nightly: {wheel: x}}\n":                        `c.yml:4:31: packages.numba.early-warning.nightly.wheel: unknown key (known keys: index, find-links, project, channel)`,
		checked + "    early-warning: {nightlies: scientific-python}\n":               `c.yml:4:21: packages.numba.early-warning.nightlies: unknown key (known keys: nightly)`,
		// Usage checks (on unless usage: off) give a package checks.
		"packages:\n  numba:\n    usage: off\n    early-warning: {nightly: {project: numba-nightly}}\n": `c.yml:4:20: packages.numba.early-warning: the package has no probes or symbols to run against a nightly build, usage: off, and is in no group whose members' checks would install it`,
		"packages:\n  numba:\n    usage: off\n    early-warning: {}\n":                                  `c.yml:4:20: packages.numba.early-warning: the package has no probes or symbols to run against a pre-release, and usage: off`,
	} {
		if _, err := config.Parse("c.yml", []byte(doc)); err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%q:\nerr  %v\nwant %q", doc, err, want)
		}
	}
}

// TestNightlyOverDefaults: a repository's nightly source replaces the
// fleet defaults' early-warning: true, and a repository's
// early-warning: false turns the defaults' nightly off.
func TestNightlyOverDefaults(t *testing.T) {
	defaults := []byte(checked + "    early-warning: true\n")
	cfg, err := config.ParseWithDefaults("d.yml", defaults, ".pinbot.yml", []byte("packages:\n  numba:\n    early-warning: {nightly: {channel: numba/label/dev}}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if n, ok := cfg.Packages["numba"].NightlySource(); !ok || n.Channel != "numba/label/dev" {
		t.Errorf("nightly over the defaults: %+v %v", n, ok)
	}
	// The probes the defaults give count for the repository's
	// early-warning: true too.
	if _, err := config.ParseWithDefaults("d.yml", []byte(checked), ".pinbot.yml", []byte("packages:\n  numba:\n    early-warning: true\n")); err != nil {
		t.Errorf("early-warning: true over the defaults' probes: %v", err)
	}
	defaults = []byte(checked + "    early-warning: {nightly: scientific-python}\n")
	cfg, err = config.ParseWithDefaults("d.yml", defaults, ".pinbot.yml", []byte("packages:\n  numba:\n    early-warning: false\n"))
	if err != nil {
		t.Fatal(err)
	}
	if n, ok := cfg.Packages["numba"].NightlySource(); ok || cfg.Packages["numba"].EarlyWarns() {
		t.Errorf("early-warning: false over a nightly: %+v %v", n, ok)
	}
}

// TestNightlyGroupMember: a group's member without checks may name its
// nightly source: the other members' checks install its builds beside
// theirs. It runs no early warning of its own.
func TestNightlyGroupMember(t *testing.T) {
	doc := checked + "    early-warning: {nightly: {index: 'https://idx.example/simple'}}\n  llvmlite:\n    early-warning: {nightly: {index: 'https://idx.example/simple'}}\n" +
		"groups:\n  numba-stack: [numba, llvmlite]\n"
	cfg, err := config.Parse("c.yml", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	l := cfg.Packages["llvmlite"]
	if n, ok := l.NightlySource(); !ok || n.Index != "https://idx.example/simple" || l.EarlyWarns() {
		t.Errorf("llvmlite: %+v %v, early warning %v", n, ok, l.EarlyWarns())
	}
}

// TestNightlyUsageChecks: with usage checks on (the default), a package
// without probes may ask for an early warning, nightly or not: the names its
// code uses are its checks.
func TestNightlyUsageChecks(t *testing.T) {
	for _, doc := range []string{
		"packages:\n  numba:\n    early-warning: {nightly: scientific-python}\n",
		"packages:\n  numba:\n    early-warning: true\n",
	} {
		cfg, err := config.Parse("c.yml", []byte(doc))
		if err != nil || !cfg.Packages["numba"].EarlyWarningOn() || cfg.Packages["numba"].EarlyWarns() {
			t.Errorf("%q: %v (early warning on %v, with probes %v)", doc, err, cfg.Packages["numba"].EarlyWarningOn(), cfg.Packages["numba"].EarlyWarns())
		}
	}
}
