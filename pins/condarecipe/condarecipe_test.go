package condarecipe_test

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pinbot-dev/pinbot/internal/corpus"
	"github.com/pinbot-dev/pinbot/internal/diag"
	"github.com/pinbot-dev/pinbot/pins"
	"github.com/pinbot-dev/pinbot/pins/condarecipe"
	"github.com/pinbot-dev/pinbot/versions"
	"github.com/pinbot-dev/pinbot/versions/conda"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

var f = condarecipe.Format{}

var corpusFiles = []string{
	"conda-forge__numba-feedstock__recipe__meta.yaml",
	"conda-forge__numba-feedstock@rc__recipe__meta.yaml",
	"conda-forge__pymc-feedstock@12f344b__recipe__meta.yaml",
	"conda-forge__tensorflow-feedstock__recipe__meta.yaml",
	"numba__numba__buildscripts__condarecipe.local__meta.yaml",
}

func TestMatch(t *testing.T) {
	for path, want := range map[string]bool{
		"recipe/meta.yaml": true, "meta.yaml": true, "buildscripts/condarecipe.local/meta.yml": true,
		"recipe/recipe.yaml": false, "recipe/conda_build_config.yaml": false, "meta.yaml.bak": false,
	} {
		if got := f.Match(path); got != want {
			t.Errorf("Match(%q) = %v, want %v", path, got, want)
		}
	}
}

func watched(pkg string) bool {
	switch pkg {
	case "numba", "llvmlite", "protobuf", "libprotobuf", "jax", "jaxlib", "mlir", "finch-mlir", "torch-mlir", "pytensor", "pytensor-base":
		return true
	}
	return strings.HasPrefix(pkg, "tensorflow") || strings.HasPrefix(pkg, "libtensorflow")
}

type found struct {
	Line      int
	Key, Text string
	Skip      bool
}

// TestCorpus checks the watched pins of the corpus recipes (and the other pins
// INDEX.md lists for them: numpy, tensorboard) against the listed lines.
func TestCorpus(t *testing.T) {
	tests := []struct {
		file  string
		extra []string
		want  []found
	}{
		{"conda-forge__numba-feedstock__recipe__meta.yaml", []string{"numpy"}, []found{
			{28, "requirements.build[2]", "numpy >=1.24,<2.5", false},
			{40, "requirements.host[3]", "llvmlite 0.47.*", false},
			{43, "requirements.host[6]", "numpy", false},
			{48, "requirements.run[1]", "{{ pin_compatible('llvmlite', max_pin='x.x') }}", true},
			{50, "requirements.run[2]", "numpy >=1.22.3,<2.5", false},
			{74, "test.requires[4]", "numpy !=1.26.0", false},
		}},
		{"conda-forge__numba-feedstock@rc__recipe__meta.yaml", nil, []found{
			{40, "requirements.host[3]", "llvmlite 0.46.*", false},
			{46, "requirements.run[1]", "{{ pin_compatible('llvmlite', max_pin='x.x') }}", true},
		}},
		{"conda-forge__pymc-feedstock@12f344b__recipe__meta.yaml", nil, []found{
			{35, "outputs[0].requirements.run[6]", "pytensor-base >=2.35.0,<2.36", false},
			{71, "outputs[1].requirements.run[1]", "pytensor", false},
		}},
		{"conda-forge__tensorflow-feedstock__recipe__meta.yaml", []string{"tensorboard"}, []found{
			{118, "requirements.build[24]", "libprotobuf", false},
			{176, "requirements.host[37]", "libprotobuf", false},
			{194, "outputs[0].build.run_exports[0]", "libtensorflow_framework {{ version }}", true},
			{215, "outputs[0].requirements.host[7]", "libprotobuf", false},
			{296, "outputs[1].requirements.host[29]", "libprotobuf", false},
			{314, "outputs[1].requirements.host[44]", "protobuf >=5.28", false},
			{322, "outputs[1].requirements.host[51]", "tensorboard >=2.19,<2.20", false},
			{324, "outputs[1].requirements.host[53]", `{{ pin_subpackage("libtensorflow_framework", exact=True) }}`, true},
			{325, "outputs[1].requirements.host[54]", `{{ pin_subpackage("libtensorflow_cc", exact=True) }}`, true},
			{337, "outputs[1].requirements.run[10]", "protobuf >=5.26", false},
			{345, "outputs[1].requirements.run[17]", "tensorboard >=2.19,<2.20", false},
			{351, "outputs[1].requirements.run[21]", `{{ pin_subpackage("libtensorflow_framework", exact=True) }}`, true},
			{352, "outputs[1].requirements.run[22]", `{{ pin_subpackage("libtensorflow_cc", exact=True) }}`, true},
			{381, "outputs[2].requirements.run[1]", "{{ pin_subpackage('tensorflow-base', exact=True) }}", true},
			{382, "outputs[2].requirements.run[2]", "{{ pin_subpackage('tensorflow-estimator', exact=True) }}", true},
			{433, "outputs[3].requirements.build[12]", "{{ pin_subpackage('tensorflow-base') }}", true},
			{444, "outputs[3].requirements.host[6]", "{{ pin_subpackage('tensorflow-base', exact=True) }}", true},
			{450, "outputs[3].requirements.run[1]", "{{ pin_subpackage('tensorflow-base', exact=True) }}", true},
			{465, "outputs[4].build.run_exports[0]", "libtensorflow {{ version }}", true},
			{486, "outputs[4].requirements.host[7]", "libprotobuf", false},
			{491, "outputs[4].requirements.host[12]", `{{ pin_subpackage("libtensorflow_framework", exact=True) }}`, true},
			{495, "outputs[4].requirements.run[1]", `{{ pin_subpackage("libtensorflow_framework", exact=True) }}`, true},
			{514, "outputs[5].build.run_exports[0]", "libtensorflow_cc {{ version }}", true},
			{537, "outputs[5].requirements.host[8]", "libprotobuf", false},
			{542, "outputs[5].requirements.host[13]", `{{ pin_subpackage("libtensorflow_framework", exact=True) }}`, true},
			{547, "outputs[5].requirements.run[2]", `{{ pin_subpackage("libtensorflow_framework", exact=True) }}`, true},
			{564, "outputs[6].requirements.run[0]", "tensorflow {{ version }} cpu*_{{ PKG_BUILDNUM }}", true},
			{575, "outputs[7].requirements.run[0]", "tensorflow {{ version }} cuda{{ cuda_compiler_version | replace('.', '') }}*_{{ PKG_BUILDNUM }}", true},
			{593, "outputs[8].requirements.run[0]", `{{ pin_subpackage("tensorflow", exact=True) }}`, true},
			{611, "outputs[9].requirements.run[0]", `{{ pin_subpackage("tensorflow", exact=True) }}`, true},
			{629, "outputs[10].requirements.run[0]", `{{ pin_subpackage("tensorflow", exact=True) }}`, true},
		}},
		{"numba__numba__buildscripts__condarecipe.local__meta.yaml", nil, []found{
			{37, "requirements.host[3]", "llvmlite >=0.50.0dev0,<0.50", false},
			{45, "requirements.run[2]", "llvmlite >=0.50.0dev0,<0.50", false},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			ps, err := f.Extract(tt.file, corpus.Read(t, tt.file))
			if err != nil {
				t.Fatal(err)
			}
			var got []found
			for _, p := range ps {
				if watched(p.Package) || slices.Contains(tt.extra, p.Package) {
					got = append(got, found{p.Line, p.Key, p.Text, p.Skip != ""})
				}
				if p.Line <= 2 {
					t.Errorf("%s: line %d (the recipe's own version) reported as a pin", p.Key, p.Line)
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("watched pins (-want +got):\n%s", diff)
			}
		})
	}
}

// TestSkipReasons checks why the corpus's templated items are not edited.
func TestSkipReasons(t *testing.T) {
	reasons := map[string]string{}
	for _, name := range corpusFiles {
		ps, err := f.Extract(name, corpus.Read(t, name))
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range ps {
			if p.Skip != "" {
				reasons[p.Text] = p.Skip
			}
		}
	}
	for text, want := range map[string]string{
		"{{ pin_compatible('llvmlite', max_pin='x.x') }}": "templated: no version until conda-build renders the recipe",
		"{{ compiler('c') }}":                             "templated: no version until conda-build renders the recipe",
		"libtensorflow_framework {{ version }}":           "{{ version }} is the recipe's own version, not a pin",
		"python {{ python_min }}":                         "templated: {{ python_min }} is only part of the version on line 28; edit its definition by hand",
		"ml_dtypes >={{ ml_dtypes_version }},<1.0":        "templated: {{ ml_dtypes_version }} is only part of the version on line 183; edit its definition by hand",
		"x86_64-microarch-level  {{ microarch_level }}":   "templated: {{ microarch_level }} is not set once, to a string, outside any block",
		"cuda-version {{ cuda_compiler_version }}":        "templated: {{ cuda_compiler_version }} is not set in the recipe (a variant or build variable)",
	} {
		if reasons[text] != want {
			t.Errorf("%s: skip %q, want %q", text, reasons[text], want)
		}
	}
}

// TestRewriteProperties rewrites every editable pin of every corpus recipe:
// only its span changes, the recipe extracts back to the new constraint, and a
// second identical rewrite is a no-op.
func TestRewriteProperties(t *testing.T) {
	for _, name := range corpusFiles {
		data := corpus.Read(t, name)
		ps, err := f.Extract(name, data)
		if err != nil {
			t.Fatal(err)
		}
		if out, err := pins.Apply(f, name, data, nil); err != nil || !bytes.Equal(out, data) {
			t.Fatalf("%s: Apply with no edits changed the file (%v)", name, err)
		}
		for i, p := range ps {
			if p.Skip != "" {
				continue
			}
			const newC = ">=1.0,<=2.0"
			out, err := pins.Apply(f, name, data, []pins.Edit{{Pin: p, New: newC}})
			if err != nil {
				t.Fatalf("%s %s: %v", name, p.Key, err)
			}
			ins := newC
			if p.Constraint == "" {
				ins = p.Insert + newC
			}
			// Outside the span only the padding before an aligned selector may change.
			head, tail := string(data[:p.Span.Start])+ins, string(data[p.Span.End:])
			if !strings.HasPrefix(string(out), head) || !sameBeforeComment(string(out[len(head):]), tail) {
				t.Fatalf("%s %s: bytes outside the span changed", name, p.Key)
			}
			again, err := f.Extract(name, out)
			if err != nil {
				t.Fatal(err)
			}
			if q := again[i]; q.Key != p.Key || q.Constraint != newC {
				t.Fatalf("%s %s: reparsed %s %q, want %q", name, p.Key, q.Key, q.Constraint, newC)
			}
			out2, err := pins.Apply(f, name, out, []pins.Edit{{Pin: again[i], New: newC}})
			if err != nil || !bytes.Equal(out2, out) {
				t.Errorf("%s %s: second rewrite changed the file (%v)", name, p.Key, err)
			}
		}
	}
}

func pinAt(t *testing.T, ps []pins.Pin, line int) pins.Pin {
	t.Helper()
	for _, p := range ps {
		if p.Line == line {
			return p
		}
	}
	t.Fatalf("no pin on line %d", line)
	return pins.Pin{}
}

// TestSelectorColumn rewrites numba-feedstock line 28, whose selector comment
// is aligned with its neighbours: Apply keeps the "#" in its column.
func TestSelectorColumn(t *testing.T) {
	const name = "conda-forge__numba-feedstock__recipe__meta.yaml"
	data := corpus.Read(t, name)
	ps, err := f.Extract(name, data)
	if err != nil {
		t.Fatal(err)
	}
	p := pinAt(t, ps, 28)
	line := func(b []byte, n int) string { return strings.Split(string(b), "\n")[n-1] }
	tests := []struct{ newC, want string }{
		{">=1.24,<=2.6.0", "    - numpy >=1.24,<=2.6.0                   # [build_platform != target_platform]"},
		{"<3", "    - numpy <3                               # [build_platform != target_platform]"},
		{">=1.24,<=2.6.0,!=2.5.1,!=2.5.2,!=2.5.3", "    - numpy >=1.24,<=2.6.0,!=2.5.1,!=2.5.2,!=2.5.3  # [build_platform != target_platform]"},
	}
	for _, tt := range tests {
		out, err := pins.Apply(condarecipe.Format{}, name, data, []pins.Edit{{Pin: p, New: tt.newC}})
		if err != nil {
			t.Fatal(err)
		}
		if got := line(out, 28); got != tt.want {
			t.Errorf("line 28 rewritten as\n%q\nwant\n%q", got, tt.want)
		}
		if tt.newC == ">=1.24,<=2.6.0" && strings.Index(line(out, 28), "#") != strings.Index(line(data, 28), "#") {
			t.Error("the selector moved")
		}
		// Only line 28 changed.
		a, b := strings.Split(string(data), "\n"), strings.Split(string(out), "\n")
		a[27], b[27] = "", ""
		if !slices.Equal(a, b) {
			t.Error("lines other than 28 changed")
		}
	}
	// Several edits on one file, a line with a two-space comment and one without.
	edits := []pins.Edit{{Pin: p, New: ">=1.24,<=2.6.0"}, {Pin: pinAt(t, ps, 50), New: ">=1.22.3,<=2.6.0"}, {Pin: pinAt(t, ps, 74), New: "!=1.26.0,<=2.6.0"}}
	out, err := pins.Apply(condarecipe.Format{}, name, data, edits)
	if err != nil {
		t.Fatal(err)
	}
	for n, want := range map[int]string{
		28: "    - numpy >=1.24,<=2.6.0                   # [build_platform != target_platform]",
		50: "    - numpy >=1.22.3,<=2.6.0",
		74: "    - numpy !=1.26.0,<=2.6.0  # [linux and x86_64]",
	} {
		if got := line(out, n); got != want {
			t.Errorf("line %d = %q, want %q", n, got, want)
		}
	}
}

// TestVariable rewrites a pin whose version is a {% set %} variable: the
// definition changes, once for both uses.
func TestVariable(t *testing.T) {
	doc := "{% set version = \"1.0\" %}\n" +
		"{% set llvmlite_version = \"0.47.*\" %}\n" +
		"package:\n  name: numba\n  version: {{ version }}\n" +
		"requirements:\n  host:\n    - llvmlite {{ llvmlite_version }}\n" +
		"  run:\n    - llvmlite   {{llvmlite_version}}   # [linux]\n"
	ps, err := f.Extract("meta.yaml", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`8:7 requirements.host[0] llvmlite "0.47.*" [53 59] text="{% set llvmlite_version = \"0.47.*\" %}" skip=""`,
		`10:7 requirements.run[0] llvmlite "0.47.*" [53 59] text="{% set llvmlite_version = \"0.47.*\" %}" skip=""`,
	}
	if diff := cmp.Diff(want, describe(ps)); diff != "" {
		t.Fatalf("(-want +got):\n%s", diff)
	}
	wantDoc := strings.Replace(doc, `"0.47.*"`, `">=0.47,<=0.48.0"`, 1)
	// One edit, or the same edit for both uses.
	for _, edits := range [][]pins.Edit{
		{{Pin: ps[0], New: ">=0.47,<=0.48.0"}},
		{{Pin: ps[0], New: ">=0.47,<=0.48.0"}, {Pin: ps[1], New: ">=0.47,<=0.48.0"}},
	} {
		out, err := pins.Apply(f, "meta.yaml", []byte(doc), edits)
		if err != nil {
			t.Fatal(err)
		}
		if string(out) != wantDoc {
			t.Errorf("rewritten as\n%s\nwant\n%s", out, wantDoc)
		}
	}
	if _, err := pins.Apply(f, "meta.yaml", []byte(doc), []pins.Edit{{Pin: ps[0], New: "0.48.*"}, {Pin: ps[1], New: "0.49.*"}}); err == nil {
		t.Error("two different edits of one definition: want an error")
	}
	// With pins.Pin.With, the report shows the definition changing.
	if got := ps[1].With("0.48.*"); got != `{% set llvmlite_version = "0.48.*" %}` {
		t.Errorf("With = %q", got)
	}
}

func describe(ps []pins.Pin) []string {
	var out []string
	for _, p := range ps {
		out = append(out, fmt.Sprintf("%d:%d %s %s %q [%d %d] text=%q skip=%q", p.Line, p.Col, p.Key, p.Package, p.Constraint, p.Span.Start, p.Span.End, p.Text, p.Skip))
	}
	return out
}

// TestVariableSkips lists the variables that are not rewritten at their
// definition.
func TestVariableSkips(t *testing.T) {
	tests := []struct{ doc, skip string }{
		{"{% set v = \"1.2\" %}\nrequirements:\n  run:\n    - numba >={{ v }}\n", "only part of the version"},
		{"{% set v = \"1.2\" %}\nrequirements:\n  run:\n    - numba {{ v }}.*\n", "only part of the version"},
		{"{% set v = \"1.2\" %}\nrequirements:\n  run:\n    - numba {{ v }}\n    - llvmlite {{ v }}\n", "also used on line 5"},
		{"{% set v = \"1.2\" %}\nsource:\n  url: x-{{ v }}.tgz\nrequirements:\n  run:\n    - numba {{ v }}\n", "also used on line 3"},
		{"{% set v = \"1.2\" %}\n{% set v = \"1.3\" %}\nrequirements:\n  run:\n    - numba {{ v }}\n", "not set once"},
		{"{% if x %}\n{% set v = \"1.2\" %}\n{% endif %}\nrequirements:\n  run:\n    - numba {{ v }}\n", "not set once"},
		{"{% set v = x ~ \"1\" %}\nrequirements:\n  run:\n    - numba {{ v }}\n", "not set once"},
		{"{% set v = \"1.\\\"2\" %}\nrequirements:\n  run:\n    - numba {{ v }}\n", "not set once"},
		{"requirements:\n  run:\n    - numba {{ v }}\n", "not set in the recipe"},
		{"requirements:\n  run:\n    - numba {{ v }}\n{% set v = \"1.2\" %}\n", "used before it is set"},
		{"{% set v = \"1.2\" %}\npackage:\n  version: {{ v }}\nrequirements:\n  run:\n    - numba {{ v }}\n", "the recipe's own version"},
		{"requirements:\n  run:\n    - numba {{ v|default('1') }}\n", "templated"},
		{"requirements:\n  run:\n    - {{ pin_compatible('numba') }}\n", "templated"},
		{"requirements:\n  run:\n    - numba ${{ v }}\n", "templated"},
		{"requirements:\n  run:\n    - \"numba >=1\\t\"\n", "quoted item with escapes"},
		{"requirements:\n  run:\n    - numba ^0\\.6.*$\n", "regular-expression version"},
	}
	for _, tt := range tests {
		ps, err := f.Extract("meta.yaml", []byte(tt.doc))
		if err != nil {
			t.Errorf("%q: %v", tt.doc, err)
			continue
		}
		if len(ps) == 0 || ps[0].Package != "numba" || !strings.Contains(ps[0].Skip, tt.skip) {
			t.Errorf("%q: pins %v, want numba skipped with %q", tt.doc, describe(ps), tt.skip)
		}
	}
}

func TestStructure(t *testing.T) {
	doc := "{% set name = \"x\" %}\r\n" +
		"# requirements:\r\n#   run:\r\n#     - numba <0.1\r\n" +
		"requirements:   # [linux]\r\n" +
		"  build:\r\n" +
		"  - numba >=0.59,<0.62  # [osx]  numba<0.1\r\n" +
		"  {% if foo %}\r\n" +
		"  - 'llvmlite 0.47.*'\r\n" +
		"  {% endif %}\r\n" +
		"  {#\r\n  - numba <0.2\r\n  #}\r\n" +
		"  host:\r\n" +
		"    - conda-forge::numba\r\n" +
		"    - numba=0.61.0=py312h*\r\n" +
		"about:\r\n" +
		"  description: |\r\n" +
		"    requirements:\r\n" +
		"      run:\r\n" +
		"        - numba <0.3\r\n" +
		"  summary: >\r\n    - numba <0.4\r\n" +
		"outputs:\r\n" +
		"- name: a\r\n" +
		"  requirements:\r\n" +
		"    - numba\r\n" +
		"  test:\r\n" +
		"    requires:\r\n" +
		"      - numba >=1\r\n" +
		"- name: b\r\n" +
		"  build:\r\n" +
		"    run_exports:\r\n" +
		"      strong:\r\n" +
		"        - numba >=2\r\n" +
		"  requirements:\r\n" +
		"    run_constrained:\r\n" +
		"      - numba <3\r\n" +
		"test:\r\n" +
		"  commands:\r\n" +
		"    - numba -s\r\n"
	ps, err := f.Extract("meta.yaml", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range ps {
		got = append(got, fmt.Sprintf("%d %s %s %q src=%s", p.Line, p.Key, p.Package, p.Constraint, p.Source))
	}
	want := []string{
		`7 requirements.build[0] numba ">=0.59,<0.62" src=conda`,
		`9 requirements.build[1] llvmlite "0.47.*" src=conda`,
		`15 requirements.host[0] numba "" src=conda-forge`,
		`16 requirements.host[1] numba "0.61.0" src=conda`,
		`27 outputs[0].requirements[0] numba "" src=conda`,
		`30 outputs[0].test.requires[0] numba ">=1" src=conda`,
		`35 outputs[1].build.run_exports.strong[0] numba ">=2" src=conda`,
		`38 outputs[1].requirements.run_constrained[0] numba "<3" src=conda`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("(-want +got):\n%s", diff)
	}
	// CRLF kept, comments kept.
	out, err := pins.Apply(f, "meta.yaml", []byte(doc), []pins.Edit{{Pin: ps[0], New: ">=0.59,<=0.67.0"}, {Pin: ps[1], New: "0.48.*"}, {Pin: ps[2], New: "<=0.67.0"}})
	if err != nil {
		t.Fatal(err)
	}
	wantDoc := strings.NewReplacer("numba >=0.59,<0.62  #", "numba >=0.59,<=0.67.0  #", "'llvmlite 0.47.*'", "'llvmlite 0.48.*'", "conda-forge::numba\r", "conda-forge::numba <=0.67.0\r").Replace(doc)
	if string(out) != wantDoc {
		t.Errorf("rewritten as\n%q\nwant\n%q", out, wantDoc)
	}
}

func TestErrors(t *testing.T) {
	tests := []struct {
		doc        string
		line, col  int
		key, inMsg string
	}{
		{"{% set x = \"1\"\nrequirements:\n", 1, 1, "", "unclosed Jinja tag"},
		{"requirements:\n  run:\n    - numba {{ x\n", 3, 13, "", "unclosed Jinja tag"},
		{"requirements:\n  run:\n    - numba >=1 if x\n", 3, 7, "requirements.run[0]", "conditional"},
		{"requirements:\n  run:\n    - ns:numba\n", 3, 7, "requirements.run[0]", "single ':'"},
	}
	for _, tt := range tests {
		_, err := f.Extract("meta.yaml", []byte(tt.doc))
		e, ok := diag.As(err)
		if !ok {
			t.Errorf("Extract(%q) = %v, want a diag.Error", tt.doc, err)
			continue
		}
		if e.File != "meta.yaml" || e.Line != tt.line || e.Col != tt.col || e.Key != tt.key || !strings.Contains(e.Error(), tt.inMsg) {
			t.Errorf("Extract(%q) error = %q (line %d col %d key %q)", tt.doc, e, e.Line, e.Col, e.Key)
		}
	}
}

// TestGolden moves the caps of the corpus recipes with the inclusive strategy
// and compares the rewritten files with testdata/golden. add-cap is off: a
// feedstock leaves host and run names unversioned on purpose (their versions
// come from the variant files).
func TestGolden(t *testing.T) {
	tests := []struct {
		file   string
		target map[string]string
	}{
		{"conda-forge__numba-feedstock__recipe__meta.yaml", map[string]string{"numpy": "2.6.0", "llvmlite": "0.48.0"}},
		{"numba__numba__buildscripts__condarecipe.local__meta.yaml", map[string]string{"llvmlite": "0.51.0"}},
		{"conda-forge__pymc-feedstock@12f344b__recipe__meta.yaml", map[string]string{"pytensor-base": "2.36.1", "pytensor": "2.36.1"}},
		{"conda-forge__tensorflow-feedstock__recipe__meta.yaml", map[string]string{"protobuf": "6.31.1", "libprotobuf": "6.31.1", "tensorboard": "2.20.0"}},
	}
	s := conda.Scheme{}
	policy := versions.Policy{Strategy: versions.Inclusive}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			data := corpus.Read(t, tt.file)
			ps, err := f.Extract(tt.file, data)
			if err != nil {
				t.Fatal(err)
			}
			var edits []pins.Edit
			for _, p := range ps {
				target, ok := tt.target[p.Package]
				if !ok || p.Skip != "" {
					continue
				}
				c, err := s.ParseConstraint(p.Constraint)
				if err != nil {
					t.Fatalf("%s: %v", p.Key, err)
				}
				m, err := versions.NewUpper(s, c, target, policy)
				if err != nil {
					t.Fatalf("%s: %v", p.Key, err)
				}
				if m.Changed {
					edits = append(edits, pins.Edit{Pin: p, New: m.Text})
				}
			}
			out, err := pins.Apply(condarecipe.Format{}, tt.file, data, edits)
			if err != nil {
				t.Fatal(err)
			}
			golden(t, tt.file, out)
		})
	}
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name+".golden")
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s (-want +got):\n%s", path, diff)
	}
}

func FuzzExtract(f *testing.F) {
	f.Add([]byte("{% set v = \"0.47.*\" %}\nrequirements:\n  host:\n    - llvmlite {{ v }}\n    - numpy >=1.24,<2.5   # [osx]\noutputs:\n  - name: x\n    requirements:\n      - {{ pin_compatible('x') }}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		ps, err := condarecipe.Format{}.Extract("meta.yaml", data)
		if err != nil {
			if _, ok := diag.As(err); !ok {
				t.Fatalf("error %v is not a diag.Error", err)
			}
			return
		}
		for _, p := range ps {
			if p.Skip != "" {
				continue
			}
			if p.Span.Start < 0 || p.Span.End > len(data) || p.Span.Start > p.Span.End || string(data[p.Span.Start:p.Span.End]) != p.Constraint {
				t.Fatalf("pin %+v: span does not hold its constraint", p)
			}
		}
	})
}

// sameBeforeComment reports whether a and b are equal once the runs of spaces
// before a leading "#" are ignored.
func sameBeforeComment(a, b string) bool {
	ta, tb := strings.TrimLeft(a, " "), strings.TrimLeft(b, " ")
	if strings.HasPrefix(tb, "#") && len(a)-len(ta) >= min(len(b)-len(tb), 2) {
		return ta == tb
	}
	return a == b
}
