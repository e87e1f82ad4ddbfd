package config_test

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pinbot-dev/pinbot/config"
	"github.com/pinbot-dev/pinbot/versions"
)

// fleetDefaults is an example of a fleet's defaults.
const fleetDefaults = `sources:
  pypi: {url: "https://pypi.internal.example"}
packages:
  Numba:
    cap: inclusive
    min-age: 3d
    probes: [{preset: numba-unique-ids}]
  tensorflow: {}
pull-requests:
  labels: [dependencies]
  reviewers: [platform-team]
`

// TestDefaultsMerge: the repository's file overrides the defaults key by
// key: nested mappings merge, other values replace, package names match in
// their normalised form, empty values keep the default.
func TestDefaultsMerge(t *testing.T) {
	cfg, err := config.ParseWithDefaults("fleet.yml", []byte(fleetDefaults), ".pinbot.yml", []byte(`packages:
  numba: {cap: exclusive}   # keeps min-age and the probe
  llvmlite:                 # watched with pinbot's defaults
  tensorflow:               # empty: the fleet's settings
pull-requests:
  labels: [deps, numba]     # a list replaces the fleet's
files: [pyproject.toml]
`))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.File != ".pinbot.yml" || cfg.Sources.PyPI.URL != "https://pypi.internal.example" {
		t.Errorf("file %q, pypi %q", cfg.File, cfg.Sources.PyPI.URL)
	}
	if diff := cmp.Diff([]string{"llvmlite", "numba", "tensorflow"}, cfg.Watched()); diff != "" {
		t.Errorf("watched (-want +got):\n%s", diff)
	}
	n := cfg.Packages["numba"]
	if n.Policy().Strategy != versions.Exclusive || time.Duration(n.MinAge) != 72*time.Hour || len(n.Probes) != 1 {
		t.Errorf("numba %+v", n)
	}
	if diff := cmp.Diff([]string{"deps", "numba"}, cfg.PullRequests.Labels); diff != "" {
		t.Errorf("labels (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"platform-team"}, cfg.PullRequests.Reviewers); diff != "" {
		t.Errorf("reviewers (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"pyproject.toml"}, cfg.Files); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
}

// TestDefaultsAlone: a repository with no configuration is guarded with the
// defaults alone; with neither naming packages, pinbot's default list.
func TestDefaultsAlone(t *testing.T) {
	cfg, err := config.ParseWithDefaults("fleet.yml", []byte(fleetDefaults), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"numba", "tensorflow"}, cfg.Watched()); diff != "" {
		t.Errorf("watched (-want +got):\n%s", diff)
	}
	cfg, err = config.ParseWithDefaults("fleet.yml", []byte("notify: {on: [error]}\n"), ".pinbot.yml", []byte("# nothing\n"))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(slices.Sorted(slices.Values(config.DefaultPackages)), cfg.Watched()); diff != "" {
		t.Errorf("watched (-want +got):\n%s", diff)
	}
}

// TestDefaultsErrors: each file is checked alone first, so an error names
// the file it is in.
func TestDefaultsErrors(t *testing.T) {
	for _, tt := range []struct{ defaults, repo, want string }{
		{"packages:\n  numba: {cpa: inclusive}\n", "", "fleet.yml:2:11: packages.numba.cpa: unknown key"},
		{"packages: {numba: {}}\n", "packages:\n  numba: {cap: sideways}\n", ".pinbot.yml:2:16: packages.numba.cap: unknown cap strategy"},
		{"packages: [numba\n", "", "fleet.yml:1: not valid YAML"},
		{"packages:\n  Numba: {}\n  numba: {}\n", "", "fleet.yml: packages.numba: names the same package as another entry"},
	} {
		_, err := config.ParseWithDefaults("fleet.yml", []byte(tt.defaults), ".pinbot.yml", []byte(tt.repo))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q over %q: error %v, want %q", tt.repo, tt.defaults, err, tt.want)
		}
	}
}

// TestLoadWithDefaults reads the files, and says which flag a missing
// defaults file came from.
func TestLoadWithDefaults(t *testing.T) {
	dir := t.TempDir()
	def := filepath.Join(dir, "fleet.yml")
	repo := filepath.Join(dir, ".pinbot.yml")
	os.WriteFile(def, []byte(fleetDefaults), 0o644)
	os.WriteFile(repo, []byte("packages: {protobuf: {}}\n"), 0o644)
	cfg, err := config.LoadWithDefaults(def, repo)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"numba", "protobuf", "tensorflow"}, cfg.Watched()); diff != "" {
		t.Errorf("watched (-want +got):\n%s", diff)
	}
	if _, err := config.LoadWithDefaults(filepath.Join(dir, "missing.yml"), ""); err == nil || !strings.HasPrefix(err.Error(), "--defaults: ") {
		t.Errorf("missing defaults: %v", err)
	}
}

func FuzzMerge(f *testing.F) {
	f.Add([]byte(fleetDefaults), []byte("packages: {numba: {cap: exclusive}}\n"))
	f.Add([]byte("packages: &a {numba: *a}\n"), []byte("packages: {numba: ~}\n"))
	f.Add([]byte("github: {app: {id: 1}}\n"), []byte("github: {app: {installation-id: 2}, base: main}\n"))
	f.Fuzz(func(t *testing.T, defaults, repo []byte) {
		config.ParseWithDefaults("d.yml", defaults, "r.yml", repo) // must not panic
	})
}

// TestManualFleetDefaults merges the manual's example (docs/fleet.md, Fleet
// defaults) and checks what the manual says of the result.
func TestManualFleetDefaults(t *testing.T) {
	page, err := os.ReadFile(filepath.Join("..", "docs", "fleet.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(page), "\n## Fleet defaults\n")
	if !ok {
		t.Fatal("docs/fleet.md: no Fleet defaults section")
	}
	blocks := regexp.MustCompile("(?s)```yaml\n(.*?)```").FindAllStringSubmatch(section, 2)
	if len(blocks) != 2 {
		t.Fatalf("docs/fleet.md: %d yaml blocks in Fleet defaults, want the defaults and a repository's file", len(blocks))
	}
	cfg, err := config.ParseWithDefaults("pinbot-fleet.yml", []byte(blocks[0][1]), ".pinbot.yml", []byte(blocks[1][1]))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"llvmlite", "numba", "tensorflow"}, cfg.Watched()); diff != "" {
		t.Errorf("watched (-want +got):\n%s", diff)
	}
	n := cfg.Packages["numba"]
	if n.Policy().Strategy != versions.Exclusive || time.Duration(n.MinAge) != 72*time.Hour || len(n.Probes) != 1 || n.Probes[0].Preset != "numba-unique-ids" {
		t.Errorf("numba %+v", n)
	}
	if !slices.Equal(cfg.PullRequests.Labels, []string{"deps"}) || !slices.Equal(cfg.PullRequests.Reviewers, []string{"my-org/platform"}) {
		t.Errorf("pull-requests %+v", cfg.PullRequests)
	}
}
