package config_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pinbot-dev/pinbot/checks/symbols"
	"github.com/pinbot-dev/pinbot/config"
	"github.com/pinbot-dev/pinbot/internal/diag"
	"github.com/pinbot-dev/pinbot/versions"
)

func TestParse(t *testing.T) {
	cfg, err := config.Parse(".pinbot.yml", []byte(`
# pinbot configuration
sources:
  pypi:
    url: https://pypi.internal.example/
packages:
  Numba:
    cap: inclusive
    prereleases: true
    add-cap: false
  llvmlite:           # defaults
files: [pyproject.toml, requirements/base.txt]
`))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Sources.PyPI.URL != "https://pypi.internal.example/" {
		t.Errorf("pypi url %q", cfg.Sources.PyPI.URL)
	}
	if diff := cmp.Diff([]string{"llvmlite", "numba"}, cfg.Watched()); diff != "" {
		t.Errorf("watched (-want +got):\n%s", diff)
	}
	n := cfg.Packages["numba"]
	if !n.Prereleases || n.Policy() != (versions.Policy{Strategy: versions.Inclusive, AddCap: false}) {
		t.Errorf("numba = %+v policy %+v", n, n.Policy())
	}
	if p := cfg.Packages["llvmlite"].Policy(); p != (versions.Policy{Strategy: versions.Inclusive, AddCap: true}) {
		t.Errorf("llvmlite policy %+v", p)
	}
	if diff := cmp.Diff([]string{"pyproject.toml", "requirements/base.txt"}, cfg.Files); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
}

// TestFilesForms reads both forms of the files key: a list of files, and
// a mapping of include and exclude globs.
func TestFilesForms(t *testing.T) {
	cfg, err := config.Parse(".pinbot.yml", []byte("files:\n  include: ['**/pyproject.toml', ci/**]\n  exclude: examples/\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := config.FileGlobs{Include: []string{"**/pyproject.toml", "ci/**"}, Exclude: []string{"examples/"}}
	if diff := cmp.Diff(want, cfg.FileGlobs); diff != "" || len(cfg.Files) != 0 {
		t.Errorf("globs (-want +got):\n%s\nfiles %v", diff, cfg.Files)
	}
	cfg, err = config.Parse(".pinbot.yml", []byte("files: [pyproject.toml]\n"))
	if err != nil || !slices.Equal(cfg.Files, []string{"pyproject.toml"}) || len(cfg.FileGlobs.Include)+len(cfg.FileGlobs.Exclude) != 0 {
		t.Errorf("list form: %+v, %v", cfg, err)
	}
}

func TestDefaults(t *testing.T) {
	for _, doc := range []string{"", "# nothing\n", "sources: {pypi: {}}\n"} {
		cfg, err := config.Parse("c.yml", []byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]string{"numba", "protobuf", "tensorflow"}, cfg.Watched()); diff != "" {
			t.Errorf("%q: watched (-want +got):\n%s", doc, diff)
		}
		if cfg.Sources.PyPI.URL != config.DefaultPyPIURL || len(cfg.Files) != 0 {
			t.Errorf("%q: %+v", doc, cfg)
		}
	}
}

func TestErrors(t *testing.T) {
	tests := []struct {
		doc       string
		line, col int
		key, msg  string
	}{
		{"packagez: {}\n", 1, 1, "packagez", "unknown key"},
		{"packages:\n  numba:\n    cap: sideways\n", 3, 10, "packages.numba.cap", `unknown cap strategy "sideways"`},
		{"packages:\n  numba:\n    prereleases: yes please\n", 3, 18, "packages.numba.prereleases", "expected true or false"},
		{"packages:\n  numba:\n    capp: inclusive\n", 3, 5, "packages.numba.capp", "unknown key"},
		{"packages: [numba]\n", 1, 11, "packages", "expected a mapping"},
		{"packages:\n  numba: 3\n", 2, 10, "packages.numba", "expected a mapping"},
		{"sources:\n  pypi:\n    url: ftp://x\n", 3, 10, "sources.pypi.url", "expected an http:// or https:// URL"},
		{"files: {a: b}\n", 1, 9, "files.a", "unknown key (known keys: include, exclude)"},
		{"files: {include: ['[']}\n", 1, 19, "files.include[0]", `"[": not a valid glob`},
		{"files: {exclude: [/etc/*]}\n", 1, 19, "files.exclude[0]", "expected a pattern relative to the repository root"},
		{"packages:\n  numba: {}\n  numba: {}\n", 3, 3, "packages.numba", "duplicate key"},
		{"packages:\n  numba: {}\n  Numba: {}\n", 0, 0, "packages.numba", "same package"},
		{"packages:\n  numba: {cap: [a]}\n", 2, 16, "packages.numba.cap", "expected a string"},
		{"a: b: c\n", 1, 0, "", "not valid YAML"},
		{"packages:\n  numba: {}\nfiles: [\n", 3, 0, "", "not valid YAML"},
		{"files: [../outside.txt]\n", 1, 9, "files[0]", "inside the repository"},
	}
	for _, tt := range tests {
		_, err := config.Parse(".pinbot.yml", []byte(tt.doc))
		e, ok := diag.As(err)
		if !ok {
			t.Errorf("Parse(%q) = %v, want a diag.Error", tt.doc, err)
			continue
		}
		if e.File != ".pinbot.yml" || e.Line != tt.line || e.Col != tt.col || e.Key != tt.key || !strings.Contains(e.Err.Error(), tt.msg) {
			t.Errorf("Parse(%q) = %q (line %d col %d key %q), want %d:%d %s: %s", tt.doc, e, e.Line, e.Col, e.Key, tt.line, tt.col, tt.key, tt.msg)
		}
	}
}

func TestFind(t *testing.T) {
	dir := t.TempDir()
	if p, err := config.Find(dir); p != "" || err != nil {
		t.Fatalf("Find(empty) = %q, %v", p, err)
	}
	os.MkdirAll(filepath.Join(dir, ".github"), 0o755)
	os.WriteFile(filepath.Join(dir, ".github", "pinbot.yml"), nil, 0o644)
	if p, _ := config.Find(dir); p != filepath.Join(dir, ".github", "pinbot.yml") {
		t.Errorf("Find = %q, want .github/pinbot.yml", p)
	}
	os.WriteFile(filepath.Join(dir, ".pinbot.yml"), nil, 0o644)
	if p, _ := config.Find(dir); p != filepath.Join(dir, ".pinbot.yml") {
		t.Errorf("Find = %q, want .pinbot.yml first", p)
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte("packages:\n  numba:\n    cap: inclusive\nfiles: [a]\n"))
	f.Add([]byte("sources: {pypi: {url: 'https://x'}}\n"))
	f.Add([]byte("&a [*a]\n"))
	f.Add([]byte("packages:\n  a:\n    probes: &a [{path: a.b, expect: exists}]\n    platforms: &b [*a, *a, *a]\n    python: [*b, *b, *b]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		config.Parse("f.yml", data) // must not panic
	})
}

func TestPackageKeys(t *testing.T) {
	cfg, err := config.Parse("c.yml", []byte(`
sources:
  pypi: {url: "https://pypi.org", api: simple}
  conda: {channels: [conda-forge, numba, numba/label/dev], labels: [main, rc], repodata-url: "https://prefix.dev"}
  goproxy: {url: "https://proxy.golang.org"}
packages:
  numba:
    yanked: follow
    unify: true
    require: [pypi, conda-forge]
    platforms: [linux-64, osx-arm64]
    python: ["3.12", "3.13"]
    min-age: 3d
`))
	if err != nil {
		t.Fatal(err)
	}
	n := cfg.Packages["numba"]
	if n.Yanked != "follow" || !n.Unify || len(n.Require) != 2 || len(n.Platforms) != 2 || len(n.Python) != 2 || time.Duration(n.MinAge) != 72*time.Hour {
		t.Errorf("numba = %+v", n)
	}
	if cfg.Sources.PyPI.API != "simple" || len(cfg.Sources.Conda.Channels) != 3 || cfg.Sources.Conda.RepodataURL != "https://prefix.dev" {
		t.Errorf("sources = %+v", cfg.Sources)
	}
	for doc, msg := range map[string]string{
		"packages: {numba: {min-age: soon}}":           "expected a duration",
		"packages: {numba: {platforms: [linux]}}":      "not a conda platform",
		"packages: {numba: {python: [py3]}}":           "not a Python version",
		"packages: {numba: {yanked: always}}":          `yanked: unknown value "always"`,
		"sources: {pypi: {api: xmlrpc}}":               `api: unknown value "xmlrpc"`,
		"packages: {numba: {require: ['pypi conda']}}": "not a source name",
	} {
		if _, err := config.Parse("c.yml", []byte(doc)); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%s: err = %v, want %q", doc, err, msg)
		}
	}
}

func TestKey(t *testing.T) {
	for in, want := range map[string]string{
		"Numba": "numba", "typing_extensions": "typing-extensions", "Ruamel.YAML": "ruamel-yaml",
		"golang.org/x/mod": "golang.org/x/mod", "github.com/Masterminds/semver/v3": "github.com/Masterminds/semver/v3",
	} {
		if got := config.Key(in); got != want {
			t.Errorf("Key(%q) = %q, want %q", in, got, want)
		}
	}
	cfg, err := config.Parse("c.yml", []byte("packages:\n  golang.org/x/mod: {}\n  Numba: {}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"golang.org/x/mod", "numba"}, cfg.Watched()); diff != "" {
		t.Errorf("watched (-want +got):\n%s", diff)
	}
}

func TestChecksKeys(t *testing.T) {
	cfg, err := config.Parse("c.yml", []byte(`
packages:
  numba:
    probes:
      - preset: numba-unique-ids
      - path: numba.core.bytecode.FunctionIdentity._unique_ids
        expect: iterator
    probe-environment: {constraints: none}
  llvmlite:
    probes: [{path: llvmlite.binding}]
  tensorflow:
    symbols:
      preset: tensorflow-protobuf
      host: ["build/lib/*.so"]
      wheel: {platform: manylinux_x86_64, python: "3.12"}
      conda: {subdir: linux-64, python: "3.11"}
      artifact: conda
`))
	if err != nil {
		t.Fatal(err)
	}
	if n := cfg.Packages["numba"]; len(n.Probes) != 2 || !n.HasChecks() || n.Probes[1].Expect != "iterator" {
		t.Errorf("numba = %+v", n)
	}
	if cfg.Packages["numba"].ProjectConstraints() || !cfg.Packages["llvmlite"].ProjectConstraints() || !(*config.Package)(nil).ProjectConstraints() {
		t.Error("probe-environment.constraints: none turns project constraints off; the default keeps them")
	}
	if tf := cfg.Packages["tensorflow"]; tf.Symbols == nil || tf.Symbols.Preset != "tensorflow-protobuf" || tf.Symbols.Wheel.Python != "3.12" ||
		tf.Symbols.Conda != (symbols.CondaSpec{Subdir: "linux-64", Python: "3.11"}) || tf.Symbols.Artifact != "conda" {
		t.Errorf("tensorflow = %+v", tf)
	}
	for doc, want := range map[string]string{
		"packages:\n  numba:\n    probes:\n      - path: not a path\n        expect: exists\n": "c.yml:4:15: packages.numba.probes[0].path: \"not a path\" is not dotted identifiers",
		"packages:\n  numba:\n    probes:\n      - path: a.b\n        expect: sideways\n":      "c.yml:5:17: packages.numba.probes[0].expect: unknown kind \"sideways\"",
		"packages:\n  numba:\n    probes:\n      - run: print(1)\n":                            "c.yml:4:9: packages.numba.probes[0]",
		"packages:\n  numba:\n    probes:\n      - preset: nope\n":                             "c.yml:4:17: packages.numba.probes[0].preset: unknown preset \"nope\"",
		"packages:\n  tf:\n    symbols:\n      forbid: ['google::[']\n":                        "c.yml:4:16: packages.tf.symbols.forbid[0]: bad glob",
		"packages:\n  tf:\n    symbols:\n      preset: nope\n":                                 "c.yml:4:15: packages.tf.symbols.preset: unknown preset \"nope\"",
		"packages:\n  tf:\n    symbols:\n      forbid: [a]\n      extra: 1\n":                  "c.yml:5:7: packages.tf.symbols.extra: unknown key",
		"packages:\n  numba:\n    probe-environment:\n      constraints: pinned\n":             "c.yml:4:20: packages.numba.probe-environment.constraints: unknown value \"pinned\" (expected one of: project, none)",
		"packages:\n  tf:\n    symbols:\n      artifact: sdist\n":                              "c.yml:4:17: packages.tf.symbols.artifact: expected wheel or conda",
		"packages:\n  tf:\n    symbols:\n      conda: {subdir: linux64}\n":                     "c.yml:4:23: packages.tf.symbols.conda.subdir: \"linux64\" is not a conda platform",
	} {
		if _, err := config.Parse("c.yml", []byte(doc)); err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%q: err = %v, want prefix %q", doc, err, want)
		}
	}
}
