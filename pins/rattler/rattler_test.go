package rattler_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pinbot-dev/pinbot/internal/corpus"
	"github.com/pinbot-dev/pinbot/internal/pinstest"
	"github.com/pinbot-dev/pinbot/pins"
	"github.com/pinbot-dev/pinbot/pins/rattler"
	"github.com/pinbot-dev/pinbot/versions"
)

var f = rattler.Format{}

const pymc = "conda-forge__pymc-feedstock__recipe__recipe.yaml"

func TestMatch(t *testing.T) {
	pinstest.Match(t, f, map[string]bool{
		"recipe/recipe.yaml": true, "recipe.yaml": true, "recipe/recipe.yml": true,
		"recipe/meta.yaml": false, "recipe/variants.yaml": false, "recipes.yaml": false,
	})
}

// TestCorpus checks the watched pins of pymc's v1 recipe against INDEX.md
// (line 5, the context version, is the recipe's own version, not a pin).
func TestCorpus(t *testing.T) {
	ps := pinstest.Extract(t, f, pymc, corpus.Read(t, pymc))
	got := pinstest.Rows(ps, func(p pins.Pin) bool {
		return p.Package == "pytensor" || p.Package == "pytensor-base" || p.Package == "numba"
	})
	for _, p := range ps {
		if p.Line == 5 {
			t.Errorf("the context version was reported as %s", p.Key)
		}
	}
	want := []string{
		"40 outputs[0].requirements.run[6]: pytensor-base >=3.0.2,<3.1",
		"83 outputs[1].requirements.run[1]: pytensor",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("watched pins (-want +got):\n%s", diff)
	}
	skips := map[string]string{}
	for _, p := range ps {
		if p.Skip != "" {
			skips[p.Key] = p.Package + " " + p.Constraint
		}
	}
	wantSkips := map[string]string{
		"outputs[0].requirements.host[0]":         "python ${{ python_min }}.*",
		"outputs[0].requirements.run[0]":          "python >=${{ python_min }}",
		"outputs[0].tests[1].requirements.run[0]": "python ${{ python_min }}.*",
		"outputs[1].requirements.run[0]":          `pymc-base ${{ pin_subpackage("pymc-base", exact=True) }}`,
		"outputs[1].tests[1].requirements.run[0]": "python ${{ python_min }}.*",
	}
	if diff := cmp.Diff(wantSkips, skips); diff != "" {
		t.Errorf("skipped pins (-want +got):\n%s", diff)
	}
}

// TestRewriteProperties rewrites every editable pin of the corpus recipe: only
// its span changes, it extracts back, a second rewrite is a no-op.
func TestRewriteProperties(t *testing.T) {
	pinstest.Rewrite(t, f, pymc, corpus.Read(t, pymc), pinstest.Constant(pinstest.Range))
}

func TestEdgeCases(t *testing.T) {
	doc := "schema_version: 1\r\n" +
		"context:\r\n  numba_min: \"0.59\"\r\n" +
		"# requirements: {run: [numba <0.1]}\r\n" +
		"requirements:\r\n" +
		"  build:\r\n" +
		"    - ${{ compiler('c') }}\r\n" +
		"  host:\r\n" +
		"    - numba >=0.59,<0.62   # comment\r\n" +
		"    - if: linux\r\n" +
		"      then:\r\n" +
		"        - llvmlite 0.47.*\r\n" +
		"        - \"numba >=${{ numba_min }}\"\r\n" +
		"      else: numba <0.70\r\n" +
		"    - if: osx\r\n" +
		"      then: 'numba 0.61.*'\r\n" +
		"  run:\r\n" +
		"    - \"numba\\x20>=1\"\r\n" +
		"    - conda-forge::numba\r\n" +
		"  run_exports:\r\n" +
		"    weak:\r\n" +
		"      - numba >=2\r\n" +
		"  ignore_run_exports:\r\n" +
		"    by_name:\r\n" +
		"      - numba\r\n" +
		"cache:\r\n" +
		"  requirements:\r\n" +
		"    build:\r\n" +
		"      - numba <4\r\n" +
		"outputs:\r\n" +
		"  - package: {name: a}\r\n" +
		"    requirements:\r\n" +
		"      run_constraints:\r\n" +
		"        - numba <5\r\n" +
		"  - if: win\r\n" +
		"    then:\r\n" +
		"      package: {name: b}\r\n" +
		"      requirements: {run: [numba <6]}\r\n" +
		"tests:\r\n" +
		"  - script: [numba -s]\r\n" +
		"    requirements:\r\n" +
		"      run:\r\n" +
		"        - numba <7\r\n"
	ps := pinstest.Extract(t, f, "recipe.yaml", []byte(doc))
	var got []string
	for _, p := range ps {
		got = append(got, fmt.Sprintf("%d %s %s %q skip=%q", p.Line, p.Key, p.Package, p.Constraint, p.Skip))
	}
	want := []string{
		`7 requirements.build[0] c_compiler "${{ compiler('c') }}" skip="templated: no version until the recipe is rendered"`,
		`9 requirements.host[0] numba ">=0.59,<0.62" skip=""`,
		`12 requirements.host[1].then[0] llvmlite "0.47.*" skip=""`,
		`13 requirements.host[1].then[1] numba ">=${{ numba_min }}" skip="templated: no version until the recipe is rendered"`,
		`14 requirements.host[1].else numba "<0.70" skip=""`,
		`16 requirements.host[2].then numba "0.61.*" skip=""`,
		`18 requirements.run[0] numba ">=1" skip="quoted scalar with escapes"`,
		`19 requirements.run[1] numba "" skip=""`,
		`22 requirements.run_exports.weak[0] numba ">=2" skip=""`,
		`29 cache.requirements.build[0] numba "<4" skip=""`,
		`34 outputs[0].requirements.run_constraints[0] numba "<5" skip=""`,
		`38 outputs[1].then.requirements.run[0] numba "<6" skip=""`,
		`43 tests[0].requirements.run[0] numba "<7" skip=""`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("(-want +got):\n%s", diff)
	}
	out, err := pins.Apply(f, "recipe.yaml", []byte(doc), []pins.Edit{
		{Pin: ps[1], New: ">=0.59,<=0.67.0"}, {Pin: ps[5], New: "0.67.*"}, {Pin: ps[7], New: "<=0.67.0"}, {Pin: ps[11], New: "<=0.67.0"},
	})
	if err != nil {
		t.Fatal(err)
	}
	wantDoc := strings.NewReplacer("numba >=0.59,<0.62   #", "numba >=0.59,<=0.67.0   #", "'numba 0.61.*'", "'numba 0.67.*'",
		"conda-forge::numba\r", "conda-forge::numba <=0.67.0\r", "[numba <6]", "[numba <=0.67.0]").Replace(doc)
	if string(out) != wantDoc {
		t.Errorf("rewritten as\n%q\nwant\n%q", out, wantDoc)
	}
	for _, i := range []int{0, 3, 6} {
		if _, err := pins.Apply(f, "recipe.yaml", []byte(doc), []pins.Edit{{Pin: ps[i], New: "<=1"}}); err == nil {
			t.Errorf("editing skipped pin %s: want an error", ps[i].Key)
		}
	}
}

func TestErrors(t *testing.T) {
	pinstest.Errors(t, f, "recipe.yaml", []pinstest.ErrorCase{
		{Doc: "requirements:\n  run:\n    - numba\n   - scipy\n", Line: 1, InMsg: "not valid YAML"}, // yaml.v3 names the enclosing mapping
		{Doc: "{% set x = 1 %}\n", Line: 1, InMsg: "not valid YAML"},
		{Doc: "- numba\n", Line: 1, InMsg: "expected a mapping"},
		{Doc: "requirements: [numba]\n", Line: 1, Key: "requirements", InMsg: "expected a mapping of requirement lists"},
		{Doc: "requirements:\n  run: numba\n", Line: 2, Key: "requirements.run", InMsg: "expected a list"},
		{Doc: "requirements:\n  run:\n    - {foo: bar}\n", Line: 3, Key: "requirements.run[0]", InMsg: "if/then"},
		{Doc: "requirements:\n  run:\n    - numba >=1 if x\n", Line: 3, Key: "requirements.run[0]", InMsg: "conditional"},
		{Doc: "outputs: {a: 1}\n", Line: 1, Key: "outputs", InMsg: "expected a list of outputs"},
	})
}

// TestGolden moves pytensor's caps in pymc's v1 recipe with the inclusive
// strategy (add-cap on) and compares with testdata/golden.
func TestGolden(t *testing.T) {
	targets := map[string]string{"pytensor": "3.1.5", "pytensor-base": "3.1.5"}
	out := pinstest.Capped(t, f, pymc, corpus.Read(t, pymc), targets, versions.Policy{Strategy: versions.Inclusive, AddCap: true})
	pinstest.Golden(t, filepath.Join("testdata", "golden", pymc+".golden"), out)
}

func FuzzExtract(f *testing.F) {
	pinstest.Fuzz(f, rattler.Format{}, "recipe.yaml", nil, []byte("requirements:\n  host:\n    - numba >=0.59\n    - if: linux\n      then: [llvmlite 0.47.*]\n      else: \"x ${{ v }}\"\noutputs:\n  - requirements: {run: [a <1]}\n"))
}
