package condaenv_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pinbot-dev/pinbot/internal/corpus"
	"github.com/pinbot-dev/pinbot/internal/pinstest"
	"github.com/pinbot-dev/pinbot/pins"
	"github.com/pinbot-dev/pinbot/pins/condaenv"
	"github.com/pinbot-dev/pinbot/versions"
)

var f = condaenv.Format{}

var corpusFiles = []string{
	"pymc-devs__pytensor__environment.yml",
	"pymc-devs__pymc__conda-envs__environment-alternative-backends.yml",
	"numba__numba__docs__environment.yml",
}

func TestMatch(t *testing.T) {
	pinstest.Match(t, f, map[string]bool{
		"environment.yml":      true,
		"environment.yaml":     true,
		"docs/environment.yml": true,
		"conda-envs/environment-alternative-backends.yml":  true,
		"conda-envs/windows.yml":                           true,
		"ci/environment-py312.yml":                         true,
		"ci/environment_dev.yaml":                          true,
		"binder/test.environment.yml":                      true,
		"envs/docs-environment.yml":                        true,
		"Environment.yml":                                  true,
		".github/workflows/environment.yml":                false,
		".github/workflows/test.yml":                       false,
		".github/conda-envs/test.yml":                      false,
		".ci_support/environment.yaml":                     false,
		"environment.txt":                                  false,
		"environments.yml":                                 false,
		"myenvironment.yml":                                false,
		"recipe/meta.yaml":                                 false,
		"pyproject.toml":                                   false,
		"conda-envs/README.md":                             false,
		"requirements/environment-alternative-backends.in": false,
	})
}

// TestCorpus checks the watched pins of the corpus environment files against
// the lines INDEX.md lists.
func TestCorpus(t *testing.T) {
	tests := map[string][]string{
		"pymc-devs__pytensor__environment.yml": {
			"24 dependencies[13]: numba>=0.57",
		},
		"pymc-devs__pymc__conda-envs__environment-alternative-backends.yml": {
			"14 dependencies[6]: numba",
			"24 dependencies[12]: pytensor>=3.2.2,<3.4",
			"49 dependencies[26].pip[2]: jax>=0.4.28",
			"50 dependencies[26].pip[3]: jaxlib>=0.4.28",
		},
		"numba__numba__docs__environment.yml": {
			"9 dependencies[1]: llvmlite=0.50",
		},
	}
	for _, name := range corpusFiles {
		t.Run(name, func(t *testing.T) {
			ps := pinstest.Extract(t, f, name, corpus.Read(t, name))
			got := pinstest.Rows(ps, func(p pins.Pin) bool { return pinstest.Watched(p.Package) })
			if diff := cmp.Diff(tests[name], got); diff != "" {
				t.Errorf("watched pins (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSources(t *testing.T) {
	for name, want := range map[string]string{
		"pymc-devs__pytensor__environment.yml":                              "conda-forge",
		"pymc-devs__pymc__conda-envs__environment-alternative-backends.yml": "conda-forge",
		"numba__numba__docs__environment.yml":                               "numba/label/dev",
	} {
		ps := pinstest.Extract(t, f, name, corpus.Read(t, name))
		for _, p := range ps {
			wantSrc, wantScheme := want, "conda"
			if strings.Contains(p.Key, ".pip[") {
				wantSrc, wantScheme = "pypi", "pep440"
			}
			if p.Source != wantSrc || p.Scheme != wantScheme {
				t.Errorf("%s %s: source %q scheme %q, want %q %q", name, p.Key, p.Source, p.Scheme, wantSrc, wantScheme)
			}
		}
	}
}

// TestRewriteProperties rewrites every editable pin of every corpus file: only
// its span changes, the file extracts back to the new constraint, and a second
// identical rewrite is a no-op. A spec with a build string takes a bare
// version.
func TestRewriteProperties(t *testing.T) {
	for _, name := range corpusFiles {
		pinstest.Rewrite(t, f, name, corpus.Read(t, name), nil)
	}
}

func describe(ps []pins.Pin) []string {
	var out []string
	for _, p := range ps {
		out = append(out, fmt.Sprintf("%d:%d %s %s %q src=%s skip=%q", p.Line, p.Col, p.Key, p.Package, p.Constraint, p.Source, p.Skip))
	}
	return out
}

func TestEdgeCases(t *testing.T) {
	doc := "# - numba<0.1 is only a comment\r\n" +
		"name: edge\r\n" +
		"channels: [defaults, 'conda-forge/label/rc', conda-forge]\r\n" +
		"dependencies:\r\n" +
		"  - numba>=0.59,<=0.61.2   # trailing comment kept\r\n" +
		"  - \"numba >=0.59\"\r\n" +
		"  - 'numba 0.61.*'\r\n" +
		"  - numba=0.61\r\n" +
		"  - conda-forge::numba\r\n" +
		"  - numba/label/dev::llvmlite >=0.50.0dev0\r\n" +
		"  - \"nu\\x6dba>=1\"\r\n" +
		"  - 'numba >=0.59 # it''s'\r\n" +
		"  - >-\r\n" +
		"    numba>=2\r\n" +
		"  - numba ^0\\.6.*$\r\n" +
		"  - &n !!str numba<3\r\n" +
		"  - *n\r\n" +
		"  - https://conda.anaconda.org/conda-forge/noarch/x-1.0-0.conda\r\n" +
		"  - pip:\r\n" +
		"        - numba>=0.58 ; python_version < '3.14'   # pip marker\r\n" +
		"        - -r requirements.txt\r\n" +
		"        - --extra-index-url https://example.com\r\n" +
		"        - git+https://github.com/numba/numba\r\n" +
		"        - numba @ https://example.com/numba.whl\r\n" +
		"        - Numba_X\r\n"
	ps := pinstest.Extract(t, f, "environment.yml", []byte(doc))
	want := []string{
		`5:5 dependencies[0] numba ">=0.59,<=0.61.2" src=conda-forge/label/rc skip=""`,
		`6:5 dependencies[1] numba ">=0.59" src=conda-forge/label/rc skip=""`,
		`7:5 dependencies[2] numba "0.61.*" src=conda-forge/label/rc skip=""`,
		`8:5 dependencies[3] numba "=0.61" src=conda-forge/label/rc skip=""`,
		`9:5 dependencies[4] numba "" src=conda-forge skip=""`,
		`10:5 dependencies[5] llvmlite ">=0.50.0dev0" src=numba/label/dev skip=""`,
		`11:5 dependencies[6] numba ">=1" src=conda-forge/label/rc skip="quoted scalar with escapes"`,
		`12:5 dependencies[7] numba ">=0.59" src=conda-forge/label/rc skip="quoted scalar with escapes"`,
		`13:5 dependencies[8] numba ">=2" src=conda-forge/label/rc skip="block scalar (| or >)"`,
		`15:5 dependencies[9] numba "^0\\.6.*$" src=conda-forge/label/rc skip="regular-expression version"`,
		`16:14 dependencies[10] numba "<3" src=conda-forge/label/rc skip="YAML anchor: an alias may repeat the value"`,
		`17:5 dependencies[11] numba "<3" src=conda-forge/label/rc skip="YAML alias"`,
		`20:11 dependencies[13].pip[0] numba ">=0.58" src=pypi skip=""`,
		`24:11 dependencies[13].pip[4] numba "" src=pypi skip="direct URL requirement"`,
		`25:11 dependencies[13].pip[5] numba-x "" src=pypi skip=""`,
	}
	if diff := cmp.Diff(want, describe(ps)); diff != "" {
		t.Fatalf("(-want +got):\n%s", diff)
	}
	edits := []pins.Edit{
		{Pin: ps[0], New: ">=0.59,<=0.67.0"},
		{Pin: ps[1], New: ">=0.59,<=0.67.0"},
		{Pin: ps[4], New: "<=0.67.0"},
		{Pin: ps[12], New: ">=0.58,<=0.67.0"},
		{Pin: ps[14], New: "<=0.67.0"},
	}
	out, err := pins.Apply(f, "environment.yml", []byte(doc), edits)
	if err != nil {
		t.Fatal(err)
	}
	wantDoc := doc
	for _, r := range [][2]string{
		{"numba>=0.59,<=0.61.2   #", "numba>=0.59,<=0.67.0   #"},
		{`"numba >=0.59"`, `"numba >=0.59,<=0.67.0"`},
		{"conda-forge::numba\r\n", "conda-forge::numba <=0.67.0\r\n"},
		{"numba>=0.58 ;", "numba>=0.58,<=0.67.0 ;"},
		{"Numba_X\r\n", "Numba_X<=0.67.0\r\n"},
	} {
		wantDoc = strings.Replace(wantDoc, r[0], r[1], 1)
	}
	if string(out) != wantDoc {
		t.Errorf("CRLF file rewritten as\n%q\nwant\n%q", out, wantDoc)
	}
	for _, i := range []int{6, 7, 8, 9, 10, 11} {
		if _, err := pins.Apply(f, "environment.yml", []byte(doc), []pins.Edit{{Pin: ps[i], New: "<=1"}}); err == nil {
			t.Errorf("editing skipped pin %s (%s): want an error", ps[i].Key, ps[i].Skip)
		}
	}
}

// TestChannelList: a conda pin that names no channel carries its file's
// channel list, in order, each channel once, as conda asks them (stumpy's
// numba, then conda-forge); a spec that names its channel follows that
// channel only; pip pins have none.
func TestChannelList(t *testing.T) {
	doc := "channels:\n  - numba\n  - defaults\n  - https://conda.anaconda.org/conda-forge/\n  - numba\ndependencies:\n" +
		"  - numba>=0.61.2\n  - conda-forge::numpy>=1.24\n  - pip:\n    - scipy>=1.10\n"
	ps := pinstest.Extract(t, f, "environment.yml", []byte(doc))
	list := []pins.Channel{{Name: "numba", At: pins.Place{Line: 2, Col: 5, Key: "channels[0]"}},
		{Name: "conda-forge", At: pins.Place{Line: 4, Col: 5, Key: "channels[2]"}}}
	want := []pins.Pin{
		{Package: "numba", Source: "numba", SourceAt: list[0].At, Channels: list},
		{Package: "numpy", Source: "conda-forge", SourceAt: pins.Place{Line: 8, Col: 5, Key: "dependencies[1]"}},
		{Package: "scipy", Source: "pypi"},
	}
	var got []pins.Pin
	for _, p := range ps {
		got = append(got, pins.Pin{Package: p.Package, Source: p.Source, SourceAt: p.SourceAt, Channels: p.Channels})
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("pins (-want +got)\n%s", diff)
	}
}

func TestNoChannels(t *testing.T) {
	for _, doc := range []string{
		"dependencies:\n- numba\n",
		"channels:\n- defaults\n- nodefaults\ndependencies:\n- numba\n",
		"channels: []\ndependencies:\n- numba\n",
	} {
		ps, err := f.Extract("environment.yml", []byte(doc))
		if err != nil || len(ps) != 1 || ps[0].Source != "conda" {
			t.Errorf("Extract(%q) = %v, %v; want one pin with source conda", doc, describe(ps), err)
		}
	}
	for _, doc := range []string{"", "# nothing\n", "name: x\n", "dependencies:\n", "dependencies: []\n"} {
		ps, err := f.Extract("environment.yml", []byte(doc))
		if err != nil || len(ps) != 0 {
			t.Errorf("Extract(%q) = %v, %v; want nothing", doc, describe(ps), err)
		}
	}
}

func TestErrors(t *testing.T) {
	pinstest.Errors(t, f, "environment.yml", []pinstest.ErrorCase{
		{Doc: "dependencies:\n  - numba\n - scipy\n", Line: 2, InMsg: "not valid YAML"},
		{Doc: "dependencies: [numba\n", Line: 1, InMsg: "not valid YAML"},
		{Doc: "{% set x = 1 %}\n", Line: 1, InMsg: "not valid YAML"},
		{Doc: "dependencies:\n\t- numba\n", Line: 2, InMsg: "not valid YAML"},
		{Doc: "- numba\n", Line: 1, Col: 1, InMsg: "expected a mapping"},
		{Doc: "dependencies: numba\n", Line: 1, Col: 15, Key: "dependencies", InMsg: "expected a list"},
		{Doc: "dependencies:\n- [numba]\n", Line: 2, Col: 3, Key: "dependencies[0]", InMsg: "expected a requirement"},
		{Doc: "dependencies:\n- numba >=0.5 if x\n", Line: 2, Col: 3, Key: "dependencies[0]", InMsg: "conditional"},
		{Doc: "dependencies:\n- pip: numba\n", Line: 2, Col: 8, Key: "dependencies[0].pip", InMsg: "expected a list of pip requirements"},
		{Doc: "dependencies:\n- pip:\n  - numba ; \n", Line: 3, Col: 5, Key: "dependencies[0].pip[0]", InMsg: "invalid requirement"},
		{Doc: "dependencies: []\ndependencies: [numba]\n", Line: 2, Col: 1, Key: "", InMsg: `key "dependencies" given twice`},
		{Doc: "channels: conda-forge\ndependencies: []\n", Line: 1, Col: 11, Key: "channels", InMsg: "expected a list of channels"},
	})
}

// TestGolden moves the caps of the corpus files' watched pins with the
// inclusive strategy and compares the rewritten files with testdata/golden.
func TestGolden(t *testing.T) {
	tests := []struct {
		file   string
		target map[string]string // package -> newest release
	}{
		{"pymc-devs__pytensor__environment.yml", map[string]string{"numba": "0.67.0"}},
		{"pymc-devs__pymc__conda-envs__environment-alternative-backends.yml", map[string]string{"numba": "0.67.0", "pytensor": "3.5.1", "jax": "0.7.2", "jaxlib": "0.7.2"}},
		{"numba__numba__docs__environment.yml", map[string]string{"llvmlite": "0.51.0"}},
	}
	policy := versions.Policy{Strategy: versions.Inclusive, AddCap: true}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			out := pinstest.Capped(t, f, tt.file, corpus.Read(t, tt.file), tt.target, policy)
			pinstest.Golden(t, filepath.Join("testdata", "golden", tt.file+".golden"), out)
		})
	}
}

func FuzzExtract(f *testing.F) {
	pinstest.Fuzz(f, condaenv.Format{}, "environment.yml", nil, []byte("channels: [conda-forge]\ndependencies:\n  - numba>=0.59,<=0.61.2  # c\n  - \"llvmlite 0.47.*\"\n  - pip:\n    - jax>=0.4\n"))
}

// exported is an environment file written by conda env export: exact pins
// with the build string of each version.
const exported = `name: demo
channels:
  - conda-forge
dependencies:
  - setuptools=58.0.4=py37hecd8cb5_0
  - numba 0.66.0 py312h6b8c7a1_0  # exact, space form
  - llvmlite >=0.43,<=0.48.0 py312h1b0c2a6_0
  - numpy 1.26.* py312*
  - "tbb==2021.13.0=hceb3a55_1"
  - libblas[version='3.9.0', build=20_linux64_openblas]
  - python=3.12
`

// TestBuildStrings skips conda pins whose build string names one build of
// the pinned version, in every spelling (after "=" or a space, after "==",
// after a range, in brackets): no other version has that build, so the pin
// is left as written with the reason. A glob build string (a variant of any
// version) stays and the version moves, as does a pin with no build string.
func TestBuildStrings(t *testing.T) {
	data := []byte(exported)
	ps := pinstest.Rewrite(t, f, "environment.yml", data, pinstest.Constant("<=1.0"))
	var got []string
	for _, p := range ps {
		row := fmt.Sprintf("%d %s %q → %q", p.Line, p.Package, p.Constraint, p.With("<=9.9"))
		if p.Skip != "" {
			row += " skip: " + p.Skip
		}
		got = append(got, row)
	}
	want := []string{
		`5 setuptools "58.0.4" → "setuptools=<=9.9=py37hecd8cb5_0" skip: the build string py37hecd8cb5_0 names one build of 58.0.4, which another version does not have: left as written`,
		`6 numba "0.66.0" → "numba <=9.9 py312h6b8c7a1_0" skip: the build string py312h6b8c7a1_0 names one build of 0.66.0, which another version does not have: left as written`,
		`7 llvmlite ">=0.43,<=0.48.0" → "llvmlite <=9.9 py312h1b0c2a6_0" skip: the build string py312h1b0c2a6_0 names one build of >=0.43,<=0.48.0, which another version does not have: left as written`,
		`8 numpy "1.26.*" → "numpy <=9.9 py312*"`,
		`9 tbb "==2021.13.0" → "tbb<=9.9=hceb3a55_1" skip: the build string hceb3a55_1 names one build of ==2021.13.0, which another version does not have: left as written`,
		`10 libblas "3.9.0" → "libblas[version='<=9.9', build=20_linux64_openblas]" skip: the build string 20_linux64_openblas names one build of 3.9.0, which another version does not have: left as written`,
		`11 python "=3.12" → "python<=9.9"`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	for _, p := range ps {
		if p.Skip != "" {
			if _, err := pins.Apply(f, "environment.yml", data, []pins.Edit{{Pin: p, New: "<=1.0"}}); err == nil {
				t.Errorf("%s: Apply edited a pin naming one build", p.Key)
			}
		}
	}
}

// TestSniff tells environment files by their content, and refuses YAML
// files that only look alike.
func TestSniff(t *testing.T) {
	for doc, want := range map[string]bool{
		"name: x\ndependencies:\n  - numba\n":                                  true,
		"channels: [conda-forge]\ndependencies: [numba, {pip: [jax]}]\n":       true,
		"dependencies:\n- numba\nname: x  # after\n":                           true,
		"dependencies:\n  - numba\n":                                           false, // neither channels nor name
		"name: x\ndependencies:\n  numba: 1\n":                                 false, // not a list
		"name: x\ndependencies:\n  - name: redis\n    version: 1.2.3\n":        false, // Helm's Chart.yaml
		"name: x\ndependencies:\n  - {pip: [jax], conda: [numba]}\n":           false,
		"name: ci\non: push\njobs: {}\n":                                       false,
		"  name: x\n  dependencies:\n    - numba\n":                            false, // not at the top
		"name: x\ndependencies:\n  - numba\n  - [\n":                           false, // not YAML
		"- name: x\n  dependencies: [numba]\n":                                 false,
		"name: x\ndependencies:\n  - numba\n---\nname: y\ndependencies: [y]\n": true,
	} {
		if got := f.Sniff([]byte(doc)); got != want {
			t.Errorf("Sniff(%q) = %v, want %v", doc, got, want)
		}
	}
	for path, want := range map[string]bool{
		"ci/requirements/min-all-deps.yml": true, "binder/env.YAML": true, "x.yml.txt": false,
		".github/workflows/ci.yml": false, "recipe/.ci_support/linux.yaml": false, "pixi.toml": false,
	} {
		if got := f.MaySniff(path); got != want {
			t.Errorf("MaySniff(%q) = %v, want %v", path, got, want)
		}
	}
}
