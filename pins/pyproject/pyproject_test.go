package pyproject_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pinbot-dev/pinbot/internal/corpus"
	"github.com/pinbot-dev/pinbot/internal/pinstest"
	"github.com/pinbot-dev/pinbot/pins"
	"github.com/pinbot-dev/pinbot/pins/pyproject"
)

var f = pyproject.Format{}

type found struct {
	Line       int
	Key, Text  string
	Package    string
	Constraint string
}

func extract(t *testing.T, data []byte) []found {
	t.Helper()
	ps := pinstest.Extract(t, f, "pyproject.toml", data)
	var out []found
	for _, p := range ps {
		out = append(out, found{p.Line, p.Key, p.Text, p.Package, p.Constraint})
	}
	return out
}

// filter keeps the requirements of the named packages.
func filter(fs []found, names ...string) []found {
	var out []found
	for _, f := range fs {
		for _, n := range names {
			if f.Package == n {
				out = append(out, f)
			}
		}
	}
	return out
}

// TestCorpus checks the watched pins of the real pyproject files against the
// lines listed in the corpus INDEX.md.
func TestCorpus(t *testing.T) {
	watched := []string{"numba", "llvmlite", "jax", "jaxlib", "tensorflow", "protobuf", "mlir-python-bindings", "torch-mlir"}
	tests := []struct {
		file string
		want []found
	}{
		{"pymc-devs__pytensor__pyproject.toml", []found{
			{53, "project.dependencies[3]", "numba>=0.58,<=0.66.0", "numba", ">=0.58,<=0.66.0"},
			{80, "project.optional-dependencies.jax[0]", "jax", "jax", ""},
			{80, "project.optional-dependencies.jax[1]", "jaxlib", "jaxlib", ""},
			{81, "project.optional-dependencies.numba[0]", "numba>=0.58,<=0.66.0", "numba", ">=0.58,<=0.66.0"},
			{81, "project.optional-dependencies.numba[1]", "llvmlite", "llvmlite", ""},
		}},
		{"pymc-devs__pytensor@v3__pyproject.toml", []found{
			{53, "project.dependencies[3]", "numba>0.57,<1", "numba", ">0.57,<1"},
			{83, "project.optional-dependencies.jax[0]", "jax", "jax", ""},
			{83, "project.optional-dependencies.jax[1]", "jaxlib", "jaxlib", ""},
			{84, "project.optional-dependencies.numba[0]", "numba>=0.57", "numba", ">=0.57"},
			{84, "project.optional-dependencies.numba[1]", "llvmlite", "llvmlite", ""},
		}},
		{"llvm__lighthouse__pyproject.toml", []found{
			{6, "project.dependencies[0]", "mlir-python-bindings==20251209+cdb525d2e", "mlir-python-bindings", "==20251209+cdb525d2e"},
			{20, "project.optional-dependencies.ingress_torch_mlir[0]", "torch-mlir==20251122.639", "torch-mlir", "==20251122.639"},
		}},
		{"RToTheP__mlwrap__pyproject.toml", []found{
			{14, "tool.poetry.dependencies.numba.version", `numba = { version = "^0.56.0", optional = true }`, "numba", "^0.56.0"},
			{16, "tool.poetry.dependencies.tensorflow.version", `tensorflow = { version = "2.8.2", markers = "platform_machine == 'x86_64'", optional = true }`, "tensorflow", "2.8.2"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			got := filter(extract(t, corpus.Read(t, tt.file)), watched...)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("watched pins (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRewriteProperties rewrites every requirement of every corpus pyproject and
// checks that only its span changed, the new text parses back, and a second
// identical rewrite is a no-op.
func TestRewriteProperties(t *testing.T) {
	for _, name := range []string{"pymc-devs__pytensor__pyproject.toml", "pymc-devs__pytensor@v3__pyproject.toml", "llvm__lighthouse__pyproject.toml", "RToTheP__mlwrap__pyproject.toml"} {
		pinstest.Rewrite(t, f, name, corpus.Read(t, name), pinstest.Constant(pinstest.Range))
	}
}

func TestEdgeCases(t *testing.T) {
	doc := "[project]\r\n" +
		"dependencies = [\r\n" +
		"  'numba >= 0.51.0', # literal string\r\n" +
		"  \"numba[cuda]<0.60 ; python_version < '3.14'\",\r\n" +
		"  \"nu\\u006dba>=1\",\r\n" +
		"  \"\"\"numba>=2\"\"\",\r\n" +
		"  \"numba @ https://example.com/numba.whl\",\r\n" +
		"]\r\n" +
		"# dependencies = [\"numba<1\"]\r\n" +
		"[tool.other]\r\ndependencies = [\"numba<3\"]\r\n"
	ps := pinstest.Extract(t, f, "pyproject.toml", []byte(doc))
	var got []string
	for _, p := range ps {
		got = append(got, fmt.Sprintf("%d %s %q skip=%q", p.Line, p.Package, p.Constraint, p.Skip))
	}
	want := []string{
		`3 numba ">= 0.51.0" skip=""`,
		`4 numba "<0.60" skip=""`,
		`5 numba ">=1" skip="string with escape sequences"`,
		`6 numba ">=2" skip="multi-line string"`,
		`7 numba "" skip="direct URL requirement"`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("(-want +got):\n%s", diff)
	}
	out, err := pins.Apply(f, "pyproject.toml", []byte(doc), []pins.Edit{{Pin: ps[0], New: ">= 0.51.0,<=0.67.0"}, {Pin: ps[1], New: "<=0.67.0"}})
	if err != nil {
		t.Fatal(err)
	}
	wantDoc := strings.Replace(strings.Replace(doc, "'numba >= 0.51.0'", "'numba >= 0.51.0,<=0.67.0'", 1), "numba[cuda]<0.60", "numba[cuda]<=0.67.0", 1)
	if string(out) != wantDoc {
		t.Errorf("CRLF file rewritten as\n%q\nwant\n%q", out, wantDoc)
	}
	if _, err := pins.Apply(f, "pyproject.toml", []byte(doc), []pins.Edit{{Pin: ps[2], New: "<=2"}}); err == nil {
		t.Error("editing an escaped string: want an error")
	}
}

func TestErrors(t *testing.T) {
	pinstest.Errors(t, f, "pyproject.toml", []pinstest.ErrorCase{
		{Doc: "[project]\ndependencies = [\"numba\"\n", Line: 2, Col: 24, InMsg: "not valid TOML"},
		{Doc: "[project\n", Line: 1, InMsg: "not valid TOML"},
		{Doc: "[project]\ndependencies = \"numba\"\n", Line: 2, Col: 16, Key: "project.dependencies", InMsg: "expected an array"},
		{Doc: "[project]\ndependencies = [1]\n", Line: 2, Col: 17, Key: "project.dependencies[0]", InMsg: "expected a requirement string"},
		{Doc: "[project]\ndependencies = [\"numba ; \"]\n", Line: 2, Col: 17, Key: "project.dependencies[0]", InMsg: "invalid requirement"},
		{Doc: "a = 1\na = 2\n", Line: 2, Col: 1, InMsg: "not valid TOML"},
	})
}

func FuzzExtract(f *testing.F) {
	pinstest.Fuzz(f, pyproject.Format{}, "pyproject.toml", nil, []byte("[project]\ndependencies = [\"numba>=0.58,<=0.66.0\", 'x']\n[project.optional-dependencies]\na = [\"b<1\"]\n"))
}

// TestSections reads every table this format knows, and leaves alone the ones
// it does not (pixi, uv).
func TestSections(t *testing.T) {
	doc := `[build-system]
requires = ["setuptools>=68", "numba>=0.58"]

[dependency-groups]
dev = [
  "numba>=0.57,<0.60",  # comment
  {include-group = "test"},
]
test = ["pytest"]

[tool.poetry.dependencies]
python = ">=3.9,<3.11"
numba = "^0.56.0"
llvmlite = { version = "~0.39", optional = true }
numpy = [
  {version = "<2", python = "<3.13"},
  {version = ">=2", python = ">=3.13"},
]
mylib = { git = "https://github.com/x/mylib.git" }
esc = "\u005e1.0"

[tool.poetry.dev-dependencies]
black = "^22.1.0"

[tool.poetry.group.dev.dependencies]
pytest = "^7.1.3"

[tool.poetry.dependencies.jax]
version = "0.4.13"
optional = true

[tool.pixi.dependencies]
numba = ">=0.49"

[tool.uv.sources]
numba = { index = "x" }
`
	ps := pinstest.Extract(t, f, "pyproject.toml", []byte(doc))
	var got []string
	for _, p := range ps {
		line := fmt.Sprintf("%d %s %s %q %s", p.Line, p.Key, p.Package, p.Constraint, p.Scheme)
		if p.Skip != "" {
			line += " skip: " + p.Skip
		} else if !pinstest.SpanHolds([]byte(doc), p) {
			t.Errorf("%s: span %v does not hold its constraint %q", p.Key, p.Span, p.Constraint)
		}
		if p.With(p.Constraint) != p.Text {
			t.Errorf("%s: With(constraint) = %q, want the text %q", p.Key, p.With(p.Constraint), p.Text)
		}
		got = append(got, line)
	}
	want := []string{
		`2 build-system.requires[0] setuptools ">=68" pep440`,
		`2 build-system.requires[1] numba ">=0.58" pep440`,
		`6 dependency-groups.dev[0] numba ">=0.57,<0.60" pep440`,
		`9 dependency-groups.test[0] pytest "" pep440`,
		`13 tool.poetry.dependencies.numba numba "^0.56.0" poetry`,
		`14 tool.poetry.dependencies.llvmlite.version llvmlite "~0.39" poetry`,
		`16 tool.poetry.dependencies.numpy[0].version numpy "<2" poetry`,
		`17 tool.poetry.dependencies.numpy[1].version numpy ">=2" poetry`,
		`19 tool.poetry.dependencies.mylib.git mylib "" poetry skip: git dependency: no version to manage`,
		`20 tool.poetry.dependencies.esc esc "^1.0" poetry skip: string with escape sequences`,
		`23 tool.poetry.dev-dependencies.black black "^22.1.0" poetry`,
		`26 tool.poetry.group.dev.dependencies.pytest pytest "^7.1.3" poetry`,
		`29 tool.poetry.dependencies.jax.version jax "0.4.13" poetry`,
		`33 tool.pixi.dependencies.numba numba ">=0.49" conda`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("(-want +got):\n%s", diff)
	}
	// The Poetry pin shows its whole line and rewrites only the version.
	var numba pins.Pin
	for _, p := range ps {
		if p.Key == "tool.poetry.dependencies.llvmlite.version" {
			numba = p
		}
	}
	if numba.Text != `llvmlite = { version = "~0.39", optional = true }` || numba.With("~0.44") != `llvmlite = { version = "~0.44", optional = true }` {
		t.Errorf("poetry pin text %q → %q", numba.Text, numba.With("~0.44"))
	}
	out, err := pins.Apply(f, "pyproject.toml", []byte(doc), []pins.Edit{{Pin: numba, New: "~0.44"}})
	if err != nil || string(out) != strings.Replace(doc, `"~0.39"`, `"~0.44"`, 1) {
		t.Errorf("Apply: %v\n%s", err, out)
	}
}

// TestSelfReference: pytensor's "complete" extra requires pytensor[jax] and
// pytensor[numba]; a project requiring itself is reported, never capped.
func TestSelfReference(t *testing.T) {
	for _, doc := range []string{
		"[project]\nname = \"PyTensor\"\ndependencies = [\"numba>=0.58\"]\n[project.optional-dependencies]\ncomplete = [\"pytensor[jax]\", \"pytensor[numba]\"]\n",
		"[project.optional-dependencies]\ncomplete = [\"pytensor[jax]\"]\n[project]\nname = \"pytensor\"\n", // name after the extras
	} {
		ps, err := pyproject.Format{}.Extract("pyproject.toml", []byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range ps {
			if self := p.Package == "pytensor"; self != (p.Skip != "") {
				t.Errorf("%q: skip %q", p.Text, p.Skip)
			}
		}
	}
}

// toolTables has a requirement in every table a tool keeps pins in inside a
// pyproject.toml, besides [project].
const toolTables = `[project]
name = "demo"
dependencies = ["numpy>=1.26"]

[dependency-groups]
dev = ["pytest>=8", {include-group = "lint"}]
lint = ["ruff<0.7"]

[tool.uv]
constraint-dependencies = ["numba<=0.66.0"]
override-dependencies = ["llvmlite>=0.43,<0.48"]
dev-dependencies = ["hypothesis"]
build-constraint-dependencies = ["setuptools<80"]

[tool.uv.sources]
numba = { index = "numba-dev" }

[tool.poetry.group.test.dependencies]
numba = { version = "^0.59.0", markers = "python_version < '3.13'" }

[tool.pixi.workspace]
channels = ["https://prefix.dev/conda-forge"]
platforms = ["linux-64", "osx-arm64"]

[tool.pixi.dependencies]
numba = ">=0.59,<=0.66.0"
tbb = { version = "2021.*", channel = "intel" }

[tool.pixi.pypi-dependencies]
demo = { path = ".", editable = true }
jax = ">=0.4.28"

[tool.pixi.host-dependencies]
hatchling = "*"

[tool.pixi.feature.cuda.dependencies]
cuda-version = "12.*"

[tool.pixi.feature.cuda.target.linux-64.dependencies]
cupy = ">=13"

[tool.pixi.target.osx-arm64.pypi-dependencies]
jax-metal = "<0.2"

[tool.pixi.tasks]
test = "pytest -k numba"

[tool.pixi.environments]
cuda = ["cuda"]
`

// TestToolTables reads every table tools keep pins in inside a
// pyproject.toml: PEP 735 groups, uv's constraints, overrides and dev
// dependencies, Poetry groups, and pixi's manifest with its feature and
// target variants; tasks, environments and uv's sources are no pins. Every
// pin that is not skipped rewrites in place.
func TestToolTables(t *testing.T) {
	ps := pinstest.Rewrite(t, f, "pyproject.toml", []byte(toolTables), func(p pins.Pin) string {
		if p.Scheme == "poetry" {
			return "^1.0"
		}
		return pinstest.Range
	})
	var got []string
	for _, p := range ps {
		line := fmt.Sprintf("%d %s %s %q %s/%s", p.Line, p.Key, p.Package, p.Constraint, p.Scheme, p.Source)
		if p.Build {
			line += " build"
		}
		if p.Condition != "" {
			line += " if " + p.Condition
		}
		if p.Skip != "" {
			line += " skip: " + p.Skip
		}
		got = append(got, line)
	}
	want := []string{
		`3 project.dependencies[0] numpy ">=1.26" pep440/pypi`,
		`6 dependency-groups.dev[0] pytest ">=8" pep440/pypi`,
		`7 dependency-groups.lint[0] ruff "<0.7" pep440/pypi`,
		`10 tool.uv.constraint-dependencies[0] numba "<=0.66.0" pep440/pypi`,
		`11 tool.uv.override-dependencies[0] llvmlite ">=0.43,<0.48" pep440/pypi`,
		`12 tool.uv.dev-dependencies[0] hypothesis "" pep440/pypi`,
		`13 tool.uv.build-constraint-dependencies[0] setuptools "<80" pep440/pypi build`,
		`19 tool.poetry.group.test.dependencies.numba.version numba "^0.59.0" poetry/pypi`,
		`26 tool.pixi.dependencies.numba numba ">=0.59,<=0.66.0" conda/conda-forge`,
		`27 tool.pixi.dependencies.tbb tbb "2021.*" conda/intel`,
		`30 tool.pixi.pypi-dependencies.demo demo "" pep440/pypi skip: path dependency, not a version pin`,
		`31 tool.pixi.pypi-dependencies.jax jax ">=0.4.28" pep440/pypi`,
		`34 tool.pixi.host-dependencies.hatchling hatchling "*" conda/conda-forge build`,
		`37 tool.pixi.feature.cuda.dependencies.cuda-version cuda-version "12.*" conda/conda-forge if feature cuda`,
		`40 tool.pixi.feature.cuda.target.linux-64.dependencies.cupy cupy ">=13" conda/conda-forge if feature cuda, target linux-64`,
		`43 tool.pixi.target.osx-arm64.pypi-dependencies.jax-metal jax-metal "<0.2" pep440/pypi if target osx-arm64`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	// Only the pin's bytes change: the pixi numba cap moves in place.
	var numba pins.Pin
	for _, p := range ps {
		if p.Key == "tool.pixi.dependencies.numba" {
			numba = p
		}
	}
	out, err := pins.Apply(f, "pyproject.toml", []byte(toolTables), []pins.Edit{{Pin: numba, New: ">=0.59,<=0.67.0"}})
	if want := strings.Replace(toolTables, `numba = ">=0.59,<=0.66.0"`, `numba = ">=0.59,<=0.67.0"`, 1); err != nil || string(out) != want {
		t.Errorf("Apply: %v\n%s", err, out)
	}
}

// TestPixiCorpus reads pixi's examples of a manifest inside a pyproject:
// the conda and PyPI tables, features included, and none of the tasks.
func TestPixiCorpus(t *testing.T) {
	for name, want := range map[string][]string{
		"prefix-dev__pixi__examples__docker__pyproject.toml": {
			`2 build-system.requires[0]: flit_core>=3.2,<4`,
			`23 tool.pixi.dependencies.flask: flask = ">=3.0.2,<3.1"`,
			`24 tool.pixi.dependencies.gunicorn: gunicorn = ">=21.2.0,<21.3"`,
			`28 tool.pixi.feature.dev.pypi-dependencies.docker-project: docker-project = { path = ".", editable = true } (skipped)`,
			`31 tool.pixi.feature.test.dependencies.pytest: pytest = "*"`,
			`36 tool.pixi.feature.prod.host-dependencies.pip: pip = "*"`,
			`40 tool.pixi.feature.build.dependencies.build: build = "*"`,
			`41 tool.pixi.feature.build.dependencies.flit-core: flit-core = ">=3.2,<4"`,
		},
		"prefix-dev__pixi__examples__flask-hello-world-pyproject__pyproject.toml": {
			`2 project.dependencies[0]: flask==2.*`,
			`11 build-system.requires[0]: hatchling`,
			`18 tool.pixi.pypi-dependencies.flask-hello-world-pyproject: flask-hello-world-pyproject = { path = ".", editable = true } (skipped)`,
			`21 tool.pixi.dependencies.flask: flask = "2.*"`,
			`34 dependency-groups.test[0]: pytest>=8.3.3,<9`,
			`37 tool.pixi.host-dependencies.hatchling: hatchling = "*"`,
		},
	} {
		ps := pinstest.Rewrite(t, f, "pyproject.toml", corpus.Read(t, name), func(p pins.Pin) string {
			return pinstest.Range
		})
		if diff := cmp.Diff(want, pinstest.Rows(ps, func(pins.Pin) bool { return true })); diff != "" {
			t.Errorf("%s (-want +got):\n%s", name, diff)
		}
	}
}
