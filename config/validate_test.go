package config_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/pinbot-dev/pinbot/config"
)

// TestRequireSources: require names sources the configuration sets up;
// anything else is an error at the entry, before any lookup.
func TestRequireSources(t *testing.T) {
	for doc, want := range map[string]string{
		"packages:\n  numba:\n    require: [pypi, pypy]\n":                                                `c.yml:3:21: packages.numba.require[1]: unknown source "pypy" (expected one of: pypi, goproxy, conda, conda-forge;`,
		"packages:\n  Numba:\n    require: bioconda\n":                                                    `c.yml:3:14: packages.Numba.require[0]: unknown source "bioconda"`,
		"sources:\n  conda:\n    channels: [bioconda]\npackages:\n  numba:\n    require: [conda-forge]\n": `c.yml:6:15: packages.numba.require[0]: unknown source "conda-forge" (expected one of: pypi, goproxy, conda, bioconda;`,
	} {
		if _, err := config.Parse("c.yml", []byte(doc)); err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%q: err = %v, want prefix %q", doc, err, want)
		}
	}
	for _, doc := range []string{
		"packages:\n  numba:\n    require: [pypi, conda-forge, conda, goproxy]\n",
		"sources:\n  conda:\n    channels: [conda-forge, numba/label/dev]\npackages:\n  numba:\n    require: [pypi, numba/label/dev]\n",
	} {
		if _, err := config.Parse("c.yml", []byte(doc)); err != nil {
			t.Errorf("%q: %v", doc, err)
		}
	}
	// A repository's file may require a channel its fleet's defaults list.
	defaults := []byte("sources:\n  conda:\n    channels: [conda-forge, bioconda]\n")
	cfg, err := config.ParseWithDefaults("defaults.yml", defaults, ".pinbot.yml", []byte("packages:\n  numba:\n    require: [bioconda]\n"))
	if err != nil || cfg.Packages["numba"].Require[0] != "bioconda" {
		t.Errorf("require over the defaults: %+v, %v", cfg, err)
	}
	_, err = config.ParseWithDefaults("defaults.yml", defaults, ".pinbot.yml", []byte("packages:\n  numba:\n    require: [biocondaa]\n"))
	if err == nil || !strings.Contains(err.Error(), `packages.numba.require[0]: unknown source "biocondaa"`) {
		t.Errorf("a bad require over the defaults: %v", err)
	}
}

// TestImpossiblePlatforms: conda subdirs and wheel platforms that no
// channel or index can have are errors at the value.
func TestImpossiblePlatforms(t *testing.T) {
	for doc, want := range map[string]string{
		"packages:\n  numba:\n    platforms: [linux-64, linux-65]\n":                       `c.yml:3:27: packages.numba.platforms[1]: "linux-65" is not a conda platform (expected one of: noarch, linux-32, linux-64,`,
		"packages:\n  numba:\n    platforms: [macos-arm64]\n":                              `c.yml:3:17: packages.numba.platforms[0]: "macos-arm64" is not a conda platform`,
		"packages:\n  tf:\n    symbols:\n      wheel: {platform: manylinux_2_17_x86_65}\n": `c.yml:4:25: packages.tf.symbols.wheel.platform: platform "manylinux_2_17_x86_65" cannot exist: "x86_65" is not a Linux architecture`,
		"packages:\n  tf:\n    symbols:\n      wheel: {platform: macosx_11_0_aarch64}\n":   `c.yml:4:25: packages.tf.symbols.wheel.platform: platform "macosx_11_0_aarch64" cannot exist`,
		"packages:\n  tf:\n    symbols:\n      wheel: {platform: solaris-64}\n":            `c.yml:4:25: packages.tf.symbols.wheel.platform: bad platform "solaris-64"`,
		"packages:\n  tf:\n    symbols:\n      conda: {subdir: osx-aarch64}\n":             `c.yml:4:23: packages.tf.symbols.conda.subdir: "osx-aarch64" is not a conda platform`,
		"packages:\n  numba:\n    python: [\"3.12\", py313]\n":                             `c.yml:3:22: packages.numba.python[1]: "py313" is not a Python version`,
		"sources:\n  conda:\n    channels: [conda-forge, \"bad channel\"]\n":               `c.yml:3:29: sources.conda.channels[1]: "bad channel" is not a channel name`,
		"sources:\n  conda:\n    repodata-url: ftp://prefix.dev\n":                         `c.yml:3:19: sources.conda.repodata-url: expected an http:// or https:// URL`,
	} {
		if _, err := config.Parse("c.yml", []byte(doc)); err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%q: err = %v, want prefix %q", doc, err, want)
		}
	}
}

// TestUsage reads usage: {include, exclude} (globs, checked where they are
// written) and packages.NAME.usage: auto | off, and merges them over a
// fleet's defaults key by key.
func TestUsage(t *testing.T) {
	cfg, err := config.Parse("c.yml", []byte("usage:\n  include: [src/, tests/**]\n  exclude: docs/\npackages:\n  numba: {usage: off}\n  llvmlite: {usage: auto}\n  scipy: {}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.Usage; !slices.Equal(got.Include, []string{"src/", "tests/**"}) || !slices.Equal(got.Exclude, []string{"docs/"}) {
		t.Errorf("usage = %+v", got)
	}
	for name, on := range map[string]bool{"numba": false, "llvmlite": true, "scipy": true, "unwatched": true} {
		if got := cfg.Packages[name].UsageOn(); got != on {
			t.Errorf("%s: UsageOn = %v, want %v", name, got, on)
		}
	}
	for doc, want := range map[string]string{
		"usage:\n  include: [src/, /abs]\n":       `c.yml:2:19: usage.include[1]: "/abs": expected a pattern relative to the repository root`,
		"usage:\n  exclude: [\"a/[b\"]\n":         `c.yml:2:13: usage.exclude[0]: "a/[b": not a valid glob`,
		"usage:\n  files: [a]\n":                  `c.yml:2:3: usage.files: unknown key (known keys: include, exclude)`,
		"usage: [src/]\n":                         `c.yml:1:8: usage: expected a mapping, found a list`,
		"packages:\n  numba:\n    usage: false\n": `c.yml:3:12: packages.numba.usage: unknown value "false" (expected one of: auto, off)`,
	} {
		if _, err := config.Parse("c.yml", []byte(doc)); err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%q: err = %v, want prefix %q", doc, err, want)
		}
	}
	merged, err := config.ParseWithDefaults("d.yml", []byte("usage:\n  exclude: [docs/]\npackages:\n  numba: {usage: off}\n"),
		".pinbot.yml", []byte("usage:\n  include: [src/]\npackages:\n  numba: {cap: exclusive}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if merged.Usage.Include[0] != "src/" || merged.Usage.Exclude[0] != "docs/" || merged.Packages["numba"].UsageOn() {
		t.Errorf("merged usage %+v, numba %+v", merged.Usage, merged.Packages["numba"])
	}
}
