package pixi_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pinbot-dev/pinbot/internal/corpus"
	"github.com/pinbot-dev/pinbot/internal/pinstest"
	"github.com/pinbot-dev/pinbot/pins"
	"github.com/pinbot-dev/pinbot/pins/pixi"
	"github.com/pinbot-dev/pinbot/versions"
)

var f = pixi.Format{}

const sparse = "pydata__sparse__pixi.toml"

func TestMatch(t *testing.T) {
	pinstest.Match(t, f, map[string]bool{
		"pixi.toml": true, "sub/pixi.toml": true, "pyproject.toml": false, "pixi.lock": false, "pixi.toml.orig": false,
	})
}

// TestCorpus checks pydata/sparse's manifest against INDEX.md: the numba and
// finch-mlir pins are found, and none of the many other lines that mention
// numba (tasks, environments, activation) is a pin.
func TestCorpus(t *testing.T) {
	ps := pinstest.Extract(t, f, sparse, corpus.Read(t, sparse))
	got := pinstest.Rows(ps, func(p pins.Pin) bool { return p.Package == "numba" || strings.Contains(p.Package, "mlir") })
	for _, p := range ps {
		if !strings.Contains(p.Key, "dependencies.") {
			t.Errorf("line %d: %s is not in a dependency table", p.Line, p.Key)
		}
	}
	want := []string{
		`34 package.run-dependencies.numba: numba = ">=0.49"`,
		`228 feature.mlir.pypi-dependencies.finch-mlir: finch-mlir = ">=0.0.2"`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("watched pins (-want +got):\n%s", diff)
	}
	if len(ps) != 39 {
		t.Errorf("%d dependencies, want 39", len(ps))
	}
	for _, p := range ps {
		wantSrc, wantScheme := "conda-forge", "conda" // https://prefix.dev/conda-forge
		if strings.Contains(p.Key, "pypi-dependencies") {
			wantSrc, wantScheme = "pypi", "pep440"
		}
		if p.Source != wantSrc || p.Scheme != wantScheme {
			t.Errorf("%s: source %q scheme %q, want %q %q", p.Key, p.Source, p.Scheme, wantSrc, wantScheme)
		}
		if p.Key == "dependencies.sparse" && p.Skip != "path dependency, not a version pin" {
			t.Errorf("%s: skip %q", p.Key, p.Skip)
		}
	}
}

// TestRewriteProperties rewrites every editable dependency of the corpus
// manifest: only its span changes, it extracts back, a second rewrite is a
// no-op.
func TestRewriteProperties(t *testing.T) {
	pinstest.Rewrite(t, f, sparse, corpus.Read(t, sparse), pinstest.Constant(pinstest.Range))
}

func describe(ps []pins.Pin) []string {
	var out []string
	for _, p := range ps {
		out = append(out, fmt.Sprintf("%d:%d %s %s %q text=%q src=%s skip=%q", p.Line, p.Col, p.Key, p.Package, p.Constraint, p.Text, p.Source, p.Skip))
	}
	return out
}

func TestEdgeCases(t *testing.T) {
	doc := "[project]\r\n" +
		"channels = [{ channel = \"https://conda.anaconda.org/conda-forge/\", priority = 1 }, \"pytorch\"]\r\n" +
		"# numba = \"<0.1\"\r\n" +
		"[tasks]\r\nnumba = \"python -c 'import numba'\"\r\n" +
		"[dependencies]\r\n" +
		"numba = \">=0.59,<0.62\"   # comment \"x\"\r\n" +
		"llvmlite = { version = \"0.47.*\", channel = \"numba/label/dev\" }\r\n" +
		"numpy = \" 1.26.* *mkl \"\r\n" +
		"scipy = { channel = \"conda-forge\" }\r\n" +
		"\"jax\" = '*'\r\n" +
		"tbb = \"\\u003e=2021\"\r\n" +
		"[target.linux-64.host-dependencies]\r\nnumba = \"0.61.*\"\r\n" +
		"[feature.gpu.target.linux-64.build-dependencies]\r\nnumba = \"==0.61.0\"\r\n" +
		"[package.target.osx-arm64.run-dependencies]\r\nnumba = \"<1\"\r\n" +
		"[feature.test.dependencies.numba]\r\nversion = \">=0.50\"\r\nbuild = \"py312*\"\r\n" +
		"[pypi-dependencies]\r\n" +
		"Numba_X = \">=0.58\"\r\n" +
		"jax = { version = \"~=0.4\", extras = [\"cuda12\"] }\r\n" +
		"jaxlib = \"*\"\r\n" +
		"mine = { path = \".\", editable = true }\r\n" +
		"private = { version = \">=1\", index = \"https://example.com/simple\" }\r\n" +
		"[feature.docs.pypi-dependencies]\r\nsphinx = { git = \"https://github.com/sphinx-doc/sphinx\" }\r\n"
	ps := pinstest.Extract(t, f, "pixi.toml", []byte(doc))
	want := []string{
		`7:1 dependencies.numba numba ">=0.59,<0.62" text="numba = \">=0.59,<0.62\"" src=conda-forge skip=""`,
		`8:1 dependencies.llvmlite llvmlite "0.47.*" text="llvmlite = { version = \"0.47.*\", channel = \"numba/label/dev\" }" src=numba/label/dev skip=""`,
		`9:1 dependencies.numpy numpy "1.26.*" text="numpy = \" 1.26.* *mkl \"" src=conda-forge skip=""`,
		`10:1 dependencies.scipy scipy "" text="scipy = { channel = \"conda-forge\" }" src=conda-forge skip="table without a version key"`,
		`11:1 dependencies.jax jax "*" text="\"jax\" = '*'" src=conda-forge skip=""`,
		`12:1 dependencies.tbb tbb "" text="tbb = \"\\u003e=2021\"" src=conda-forge skip="string with escape sequences"`,
		`14:1 target.linux-64.host-dependencies.numba numba "0.61.*" text="numba = \"0.61.*\"" src=conda-forge skip=""`,
		`16:1 feature.gpu.target.linux-64.build-dependencies.numba numba "==0.61.0" text="numba = \"==0.61.0\"" src=conda-forge skip=""`,
		`18:1 package.target.osx-arm64.run-dependencies.numba numba "<1" text="numba = \"<1\"" src=conda-forge skip=""`,
		`20:1 feature.test.dependencies.numba numba ">=0.50" text="version = \">=0.50\"" src=conda-forge skip=""`,
		`23:1 pypi-dependencies.Numba_X numba-x ">=0.58" text="Numba_X = \">=0.58\"" src=pypi skip=""`,
		`24:1 pypi-dependencies.jax jax "~=0.4" text="jax = { version = \"~=0.4\", extras = [\"cuda12\"] }" src=pypi skip=""`,
		`25:1 pypi-dependencies.jaxlib jaxlib "*" text="jaxlib = \"*\"" src=pypi skip="any version (\"*\"): not a PEP 440 specifier, so pinbot does not edit it"`,
		`26:1 pypi-dependencies.mine mine "" text="mine = { path = \".\", editable = true }" src=pypi skip="path dependency, not a version pin"`,
		`27:1 pypi-dependencies.private private ">=1" text="private = { version = \">=1\", index = \"https://example.com/simple\" }" src=pypi skip="custom package index: its releases are not PyPI's"`,
		`29:1 feature.docs.pypi-dependencies.sphinx sphinx "" text="sphinx = { git = \"https://github.com/sphinx-doc/sphinx\" }" src=pypi skip="git dependency, not a version pin"`,
	}
	if diff := cmp.Diff(want, describe(ps)); diff != "" {
		t.Fatalf("(-want +got):\n%s", diff)
	}
	out, err := pins.Apply(f, "pixi.toml", []byte(doc), []pins.Edit{
		{Pin: ps[0], New: ">=0.59,<=0.67.0"}, {Pin: ps[1], New: "0.48.*"}, {Pin: ps[2], New: "1.27.*"}, {Pin: ps[4], New: "<=0.7"},
		{Pin: ps[9], New: ">=0.50,<=0.67.0"}, {Pin: ps[11], New: "~=0.5"},
	})
	if err != nil {
		t.Fatal(err)
	}
	wantDoc := strings.NewReplacer(`">=0.59,<0.62"`, `">=0.59,<=0.67.0"`, `"0.47.*"`, `"0.48.*"`, `" 1.26.* *mkl "`, `" 1.27.* *mkl "`,
		`'*'`, `'<=0.7'`, `">=0.50"`, `">=0.50,<=0.67.0"`, `"~=0.4"`, `"~=0.5"`).Replace(doc)
	if string(out) != wantDoc {
		t.Errorf("rewritten as\n%q\nwant\n%q", out, wantDoc)
	}
	for _, i := range []int{3, 5, 12, 13} {
		if _, err := pins.Apply(f, "pixi.toml", []byte(doc), []pins.Edit{{Pin: ps[i], New: "<=1"}}); err == nil {
			t.Errorf("editing skipped pin %s: want an error", ps[i].Key)
		}
	}
}

// TestChannelList: a conda dependency without a channel of its own carries
// the workspace's channels in pixi's priority order (a higher priority key
// first, then the order written), each once; one whose table names its
// channel follows that channel only.
func TestChannelList(t *testing.T) {
	doc := "[workspace]\nchannels = [\"conda-forge\", { channel = \"numba\", priority = 1 }, \"bioconda\", { channel = \"pytorch\", priority = 0x10 }, " +
		"{ priority = -1, channel = \"https://prefix.dev/conda-forge\" }]\n" +
		"[dependencies]\nnumba = \">=0.61\"\nllvmlite = { version = \">=0.44\", channel = \"numba\" }\n" +
		"[feature.test.pypi-dependencies]\npytest = \">=8\"\n"
	ps := pinstest.Extract(t, f, "pixi.toml", []byte(doc))
	at := func(col int, key string) pins.Place {
		return pins.Place{Line: 2, Col: col, Key: "workspace.channels[" + key}
	}
	list := []pins.Channel{{Name: "pytorch", At: at(89, "3].channel")}, {Name: "numba", At: at(40, "1].channel")},
		{Name: "conda-forge", At: at(13, "0]")}, {Name: "bioconda", At: at(65, "2]")}}
	want := []pins.Pin{
		{Package: "numba", Source: "pytorch", SourceAt: list[0].At, Channels: list},
		{Package: "llvmlite", Source: "numba", SourceAt: pins.Place{Line: 5, Col: 44, Key: "dependencies.llvmlite.channel"}},
		{Package: "pytest", Source: "pypi"},
	}
	var got []pins.Pin
	for _, p := range ps {
		got = append(got, pins.Pin{Package: p.Package, Source: p.Source, SourceAt: p.SourceAt, Channels: p.Channels})
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("pins (-want +got)\n%s", diff)
	}
	// The channels init lists stay in the order written.
	if got := pinstest.CheckChannels(t, f, "pixi.toml", []byte(doc)); !cmp.Equal(got, []string{"conda-forge", "numba", "bioconda", "pytorch"}) {
		t.Errorf("Channels = %q", got)
	}
}

func TestErrors(t *testing.T) {
	pinstest.Errors(t, f, "pixi.toml", []pinstest.ErrorCase{
		{Doc: "[dependencies]\nnumba = \">=1\"\nnumba = \"<2\"\n", Line: 3, Col: 1, InMsg: "not valid TOML"},
		{Doc: "[dependencies\n", Line: 1, InMsg: "not valid TOML"},
		{Doc: "[dependencies]\nnumba = 1\n", Line: 2, Col: 9, Key: "dependencies.numba", InMsg: "expected a version string"},
		{Doc: "[dependencies]\nnumba = \">= 1 if x\"\n", Line: 2, Col: 9, Key: "dependencies.numba", InMsg: "invalid conda version spec"},
		{Doc: "[dependencies]\nnumba = { version = [\"1\"] }\n", Line: 2, Col: 22, Key: "dependencies.numba", InMsg: "expected a version string"},
		{Doc: "[pypi-dependencies]\nnumba = \"1.0 ; python_version < '3'\"\n", Line: 2, Col: 9, Key: "pypi-dependencies.numba", InMsg: "invalid PyPI version specifier"},
	})
}

// TestGolden moves numba's and finch-mlir's caps in sparse's manifest with the
// inclusive strategy and compares with testdata/golden.
func TestGolden(t *testing.T) {
	targets := map[string]string{"numba": "0.67.0", "finch-mlir": "0.1.3"}
	out := pinstest.Capped(t, f, sparse, corpus.Read(t, sparse), targets, versions.Policy{Strategy: versions.Inclusive, AddCap: true})
	pinstest.Golden(t, filepath.Join("testdata", "golden", sparse+".golden"), out)
}

func FuzzExtract(f *testing.F) {
	pinstest.Fuzz(f, pixi.Format{}, "pixi.toml", nil, []byte("[workspace]\nchannels = [\"conda-forge\"]\n[dependencies]\nnumba = \">=0.49\"\nx = { version = \"1.*\", channel = \"c\" }\n[feature.a.pypi-dependencies]\ny = \"*\"\n"),
		[]byte("[workspace]\nchannels = [\"conda-forge\", { channel = \"numba\", priority = 1_0 }, { priority = -1, channel = \"defaults\" }, \"numba\"]\n[dependencies]\nnumba = \">=0.61\"\n"))
}

// TestBuildStrings skips conda dependencies whose build string names one
// build of the pinned version, written after the version (after a space or
// an "=") or as the table's build key: no other version has that build, so
// the pin is left as written with the reason. A glob build stays and the
// version moves.
func TestBuildStrings(t *testing.T) {
	doc := `[dependencies]
numba = "0.66.0 py312h6b8c7a1_0"
llvmlite = { version = "0.48.0", build = "py312h1b0c2a6_0" }
numpy = { version = "1.26.*", build = "py312*" }
tbb = "=2021.13.0=hceb3a55_1"
scipy = "1.14.* *mkl"
`
	ps := pinstest.Rewrite(t, f, "pixi.toml", []byte(doc), pinstest.Constant("1.0"))
	var got []string
	for _, p := range ps {
		got = append(got, fmt.Sprintf("%s %q → %q skip=%q", p.Package, p.Constraint, p.With("9.9"), p.Skip))
	}
	want := []string{
		`numba "0.66.0" → "numba = \"9.9 py312h6b8c7a1_0\"" skip="the build string py312h6b8c7a1_0 names one build of 0.66.0, which another version does not have: left as written"`,
		`llvmlite "0.48.0" → "llvmlite = { version = \"9.9\", build = \"py312h1b0c2a6_0\" }" skip="the build string py312h1b0c2a6_0 names one build of 0.48.0, which another version does not have: left as written"`,
		`numpy "1.26.*" → "numpy = { version = \"9.9\", build = \"py312*\" }" skip=""`,
		`tbb "2021.13.0" → "tbb = \"=9.9=hceb3a55_1\"" skip="the build string hceb3a55_1 names one build of 2021.13.0, which another version does not have: left as written"`,
		`scipy "1.14.*" → "scipy = \"9.9 *mkl\"" skip=""`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
