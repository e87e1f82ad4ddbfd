package rattler_test

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pinbot-dev/pinbot/internal/corpus"
	"github.com/pinbot-dev/pinbot/internal/diag"
	"github.com/pinbot-dev/pinbot/pins"
	"github.com/pinbot-dev/pinbot/pins/rattler"
	"github.com/pinbot-dev/pinbot/versions"
	"github.com/pinbot-dev/pinbot/versions/conda"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

var f = rattler.Format{}

const pymc = "conda-forge__pymc-feedstock__recipe__recipe.yaml"

func TestMatch(t *testing.T) {
	for path, want := range map[string]bool{
		"recipe/recipe.yaml": true, "recipe.yaml": true, "recipe/recipe.yml": true,
		"recipe/meta.yaml": false, "recipe/variants.yaml": false, "recipes.yaml": false,
	} {
		if got := f.Match(path); got != want {
			t.Errorf("Match(%q) = %v, want %v", path, got, want)
		}
	}
}

type found struct {
	Line      int
	Key, Text string
	Skip      bool
}

// TestCorpus checks the watched pins of pymc's v1 recipe against INDEX.md
// (line 5, the context version, is the recipe's own version, not a pin).
func TestCorpus(t *testing.T) {
	ps, err := f.Extract(pymc, corpus.Read(t, pymc))
	if err != nil {
		t.Fatal(err)
	}
	var got []found
	for _, p := range ps {
		if p.Package == "pytensor" || p.Package == "pytensor-base" || p.Package == "numba" {
			got = append(got, found{p.Line, p.Key, p.Text, p.Skip != ""})
		}
		if p.Line == 5 {
			t.Errorf("the context version was reported as %s", p.Key)
		}
	}
	want := []found{
		{40, "outputs[0].requirements.run[6]", "pytensor-base >=3.0.2,<3.1", false},
		{83, "outputs[1].requirements.run[1]", "pytensor", false},
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
	data := corpus.Read(t, pymc)
	ps, err := f.Extract(pymc, data)
	if err != nil {
		t.Fatal(err)
	}
	if out, err := pins.Apply(f, pymc, data, nil); err != nil || !bytes.Equal(out, data) {
		t.Fatalf("Apply with no edits changed the file (%v)", err)
	}
	for i, p := range ps {
		if p.Skip != "" {
			continue
		}
		const newC = ">=1.0,<=2.0"
		out, err := pins.Apply(f, pymc, data, []pins.Edit{{Pin: p, New: newC}})
		if err != nil {
			t.Fatalf("%s: %v", p.Key, err)
		}
		ins := newC
		if p.Constraint == "" {
			ins = p.Insert + newC
		}
		if want := string(data[:p.Span.Start]) + ins + string(data[p.Span.End:]); string(out) != want {
			t.Fatalf("%s: bytes outside the span changed", p.Key)
		}
		again, err := f.Extract(pymc, out)
		if err != nil {
			t.Fatal(err)
		}
		if q := again[i]; q.Key != p.Key || q.Constraint != newC {
			t.Fatalf("%s: reparsed %s %q, want %q", p.Key, q.Key, q.Constraint, newC)
		}
		out2, err := pins.Apply(f, pymc, out, []pins.Edit{{Pin: again[i], New: newC}})
		if err != nil || !bytes.Equal(out2, out) {
			t.Errorf("%s: second rewrite changed the file (%v)", p.Key, err)
		}
	}
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
	ps, err := f.Extract("recipe.yaml", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
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
	tests := []struct {
		doc        string
		line       int
		key, inMsg string
	}{
		{"requirements:\n  run:\n    - numba\n   - scipy\n", 1, "", "not valid YAML"}, // yaml.v3 names the enclosing mapping
		{"{% set x = 1 %}\n", 1, "", "not valid YAML"},
		{"- numba\n", 1, "", "expected a mapping"},
		{"requirements: [numba]\n", 1, "requirements", "expected a mapping of requirement lists"},
		{"requirements:\n  run: numba\n", 2, "requirements.run", "expected a list"},
		{"requirements:\n  run:\n    - {foo: bar}\n", 3, "requirements.run[0]", "if/then"},
		{"requirements:\n  run:\n    - numba >=1 if x\n", 3, "requirements.run[0]", "conditional"},
		{"outputs: {a: 1}\n", 1, "outputs", "expected a list of outputs"},
	}
	for _, tt := range tests {
		ps, err := f.Extract("recipe.yaml", []byte(tt.doc))
		e, ok := diag.As(err)
		if !ok {
			t.Errorf("Extract(%q) = %v, want a diag.Error", tt.doc, err)
			continue
		}
		if e.File != "recipe.yaml" || e.Line != tt.line || e.Key != tt.key || !strings.Contains(e.Error(), tt.inMsg) {
			t.Errorf("Extract(%q) error = %q (line %d key %q)", tt.doc, e, e.Line, e.Key)
		}
		if strings.Contains(tt.inMsg, "YAML") && ps != nil {
			t.Errorf("Extract(%q) returned pins with a parse error", tt.doc)
		}
	}
}

// TestGolden moves pytensor's caps in pymc's v1 recipe with the inclusive
// strategy (add-cap on) and compares with testdata/golden.
func TestGolden(t *testing.T) {
	data := corpus.Read(t, pymc)
	ps, err := f.Extract(pymc, data)
	if err != nil {
		t.Fatal(err)
	}
	s := conda.Scheme{}
	var edits []pins.Edit
	for _, p := range ps {
		if (p.Package != "pytensor" && p.Package != "pytensor-base") || p.Skip != "" {
			continue
		}
		c, err := s.ParseConstraint(p.Constraint)
		if err != nil {
			t.Fatal(err)
		}
		m, err := versions.NewUpper(s, c, "3.1.5", versions.Policy{Strategy: versions.Inclusive, AddCap: true})
		if err != nil {
			t.Fatal(err)
		}
		if m.Changed {
			edits = append(edits, pins.Edit{Pin: p, New: m.Text})
		}
	}
	out, err := pins.Apply(f, pymc, data, edits)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", "golden", pymc+".golden")
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, out, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(out)); diff != "" {
		t.Errorf("%s (-want +got):\n%s", path, diff)
	}
}

func FuzzExtract(f *testing.F) {
	f.Add([]byte("requirements:\n  host:\n    - numba >=0.59\n    - if: linux\n      then: [llvmlite 0.47.*]\n      else: \"x ${{ v }}\"\noutputs:\n  - requirements: {run: [a <1]}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		ps, err := rattler.Format{}.Extract("recipe.yaml", data)
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
