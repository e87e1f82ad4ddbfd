package condarecipe_test

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pinbot-dev/pinbot/internal/corpus"
	"github.com/pinbot-dev/pinbot/internal/pinstest"
	"github.com/pinbot-dev/pinbot/pins"
	"github.com/pinbot-dev/pinbot/pins/condarecipe"
	"github.com/pinbot-dev/pinbot/versions"
)

var f = condarecipe.Format{}

var corpusFiles = []string{
	"conda-forge__numba-feedstock__recipe__meta.yaml",
	"conda-forge__numba-feedstock@rc__recipe__meta.yaml",
	"conda-forge__pymc-feedstock@12f344b__recipe__meta.yaml",
	"conda-forge__tensorflow-feedstock__recipe__meta.yaml",
	"numba__numba__buildscripts__condarecipe.local__meta.yaml",
}

func TestMatch(t *testing.T) {
	pinstest.Match(t, f, map[string]bool{
		"recipe/meta.yaml": true, "meta.yaml": true, "buildscripts/condarecipe.local/meta.yml": true,
		"recipe/recipe.yaml": false, "recipe/conda_build_config.yaml": false, "meta.yaml.bak": false,
	})
}

// TestCorpus checks the pins INDEX.md lists for the corpus recipes besides
// those of watched packages (numpy in numba's, tensorboard in tensorflow's;
// pins/all's TestCorpus lists the watched ones, as this format reads them),
// and that no recipe's own version (line 1 or 2) is reported as a pin.
func TestCorpus(t *testing.T) {
	others := map[string]struct {
		pkg  string
		want []string // pinstest.Rows
	}{
		"conda-forge__numba-feedstock__recipe__meta.yaml": {"numpy", []string{
			"28 requirements.build[2]: numpy >=1.24,<2.5",
			"43 requirements.host[6]: numpy",
			"50 requirements.run[2]: numpy >=1.22.3,<2.5",
			"74 test.requires[4]: numpy !=1.26.0",
		}},
		"conda-forge__tensorflow-feedstock__recipe__meta.yaml": {"tensorboard", []string{
			"322 outputs[1].requirements.host[51]: tensorboard >=2.19,<2.20",
			"345 outputs[1].requirements.run[17]: tensorboard >=2.19,<2.20",
		}},
	}
	for _, name := range corpusFiles {
		t.Run(name, func(t *testing.T) {
			ps := pinstest.Extract(t, f, name, corpus.Read(t, name))
			o := others[name]
			if diff := cmp.Diff(o.want, pinstest.Rows(ps, func(p pins.Pin) bool { return p.Package == o.pkg })); diff != "" {
				t.Errorf("%s pins (-want +got):\n%s", o.pkg, diff)
			}
			for _, p := range ps {
				if p.Line <= 2 {
					t.Errorf("%s: line %d (the recipe's own version) reported as a pin", p.Key, p.Line)
				}
			}
		})
	}
}

// TestSkipReasons checks why the corpus's templated items are not edited.
func TestSkipReasons(t *testing.T) {
	reasons := map[string]string{}
	for _, name := range corpusFiles {
		ps := pinstest.Extract(t, f, name, corpus.Read(t, name))
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
// only its span changes (and the padding before an aligned selector), the
// recipe extracts back to the new constraint, and a second identical rewrite
// is a no-op.
func TestRewriteProperties(t *testing.T) {
	for _, name := range corpusFiles {
		pinstest.Rewrite(t, f, name, corpus.Read(t, name), pinstest.Constant(pinstest.Range))
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
	ps := pinstest.Extract(t, f, name, data)
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
	ps := pinstest.Extract(t, f, "meta.yaml", []byte(doc))
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
	ps := pinstest.Extract(t, f, "meta.yaml", []byte(doc))
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
	pinstest.Errors(t, f, "meta.yaml", []pinstest.ErrorCase{
		{Doc: "{% set x = \"1\"\nrequirements:\n", Line: 1, Col: 1, InMsg: "unclosed Jinja tag"},
		{Doc: "requirements:\n  run:\n    - numba {{ x\n", Line: 3, Col: 13, InMsg: "unclosed Jinja tag"},
		{Doc: "requirements:\n  run:\n    - numba >=1 if x\n", Line: 3, Col: 7, Key: "requirements.run[0]", InMsg: "conditional"},
		{Doc: "requirements:\n  run:\n    - ns:numba\n", Line: 3, Col: 7, Key: "requirements.run[0]", InMsg: "single ':'"},
	})
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
	policy := versions.Policy{Strategy: versions.Inclusive}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			out := pinstest.Capped(t, f, tt.file, corpus.Read(t, tt.file), tt.target, policy)
			pinstest.Golden(t, filepath.Join("testdata", "golden", tt.file+".golden"), out)
		})
	}
}

func FuzzExtract(f *testing.F) {
	pinstest.Fuzz(f, condarecipe.Format{}, "meta.yaml", nil, []byte("{% set v = \"0.47.*\" %}\nrequirements:\n  host:\n    - llvmlite {{ v }}\n    - numpy >=1.24,<2.5   # [osx]\noutputs:\n  - name: x\n    requirements:\n      - {{ pin_compatible('x') }}\n"))
}

// TestBuildStrings skips recipe items whose build string names one build of
// the pinned version, whether the version is written out or is a {% set %}
// variable (whose definition would otherwise move under the build string),
// and names the other item when a variable is shared; a glob build stays and
// the version moves.
func TestBuildStrings(t *testing.T) {
	doc := "{% set lv = \"0.48.0\" %}\n{% set nv = \"1.26.*\" %}\nrequirements:\n  host:\n    - llvmlite {{ lv }}\n  run:\n" +
		"    - numba 0.66.0 py312h6b8c7a1_0      # [linux]\n" +
		"    - llvmlite {{ lv }} py312h1b0c2a6_0\n" +
		"    - numpy {{ nv }} py312*\n"
	ps := pinstest.Rewrite(t, condarecipe.Format{}, "meta.yaml", []byte(doc), pinstest.Constant("1.0"))
	var got []string
	for _, p := range ps {
		got = append(got, fmt.Sprintf("%d %s %q skip=%q", p.Line, p.Package, p.Constraint, p.Skip))
	}
	want := []string{
		`5 llvmlite "{{ lv }}" skip="{{ lv }} is also used on line 8, where the build string py312h1b0c2a6_0 names one build of 0.48.0, which another version does not have: left as written"`,
		`7 numba "0.66.0" skip="the build string py312h6b8c7a1_0 names one build of 0.66.0, which another version does not have: left as written"`,
		`8 llvmlite "{{ lv }}" skip="the build string py312h1b0c2a6_0 names one build of 0.48.0, which another version does not have: left as written"`,
		`9 numpy "1.26.*" skip=""`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
