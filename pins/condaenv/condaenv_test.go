package condaenv_test

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
	"github.com/pinbot-dev/pinbot/pins/condaenv"
	"github.com/pinbot-dev/pinbot/pins/matchspec"
	"github.com/pinbot-dev/pinbot/versions"
	"github.com/pinbot-dev/pinbot/versions/conda"
	"github.com/pinbot-dev/pinbot/versions/pep440"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

var f = condaenv.Format{}

var corpusFiles = []string{
	"pymc-devs__pytensor__environment.yml",
	"pymc-devs__pymc__conda-envs__environment-alternative-backends.yml",
	"numba__numba__docs__environment.yml",
}

func TestMatch(t *testing.T) {
	tests := map[string]bool{
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
	}
	for path, want := range tests {
		if got := f.Match(path); got != want {
			t.Errorf("Match(%q) = %v, want %v", path, got, want)
		}
	}
}

// watched reports whether a package is one the corpus INDEX.md lists.
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

// TestCorpus checks the watched pins of the corpus environment files against
// the lines INDEX.md lists.
func TestCorpus(t *testing.T) {
	tests := map[string][]found{
		"pymc-devs__pytensor__environment.yml": {
			{24, "dependencies[13]", "numba>=0.57", false},
		},
		"pymc-devs__pymc__conda-envs__environment-alternative-backends.yml": {
			{14, "dependencies[6]", "numba", false},
			{24, "dependencies[12]", "pytensor>=3.2.2,<3.4", false},
			{49, "dependencies[26].pip[2]", "jax>=0.4.28", false},
			{50, "dependencies[26].pip[3]", "jaxlib>=0.4.28", false},
		},
		"numba__numba__docs__environment.yml": {
			{9, "dependencies[1]", "llvmlite=0.50", false},
		},
	}
	for _, name := range corpusFiles {
		t.Run(name, func(t *testing.T) {
			ps, err := f.Extract(name, corpus.Read(t, name))
			if err != nil {
				t.Fatal(err)
			}
			var got []found
			for _, p := range ps {
				if watched(p.Package) {
					got = append(got, found{p.Line, p.Key, p.Text, p.Skip != ""})
				}
			}
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
		ps, err := f.Extract(name, corpus.Read(t, name))
		if err != nil {
			t.Fatal(err)
		}
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

// newConstraint is a constraint to rewrite p with in property tests: a range,
// or a bare version where the spec has a build string after "=".
func newConstraint(p pins.Pin) string {
	if p.Scheme == "conda" {
		if sp, err := matchspec.Parse(p.Text); err == nil && sp.Build != "" {
			return "1.0"
		}
	}
	return ">=1.0,<=2.0"
}

// TestRewriteProperties rewrites every editable pin of every corpus file: only
// its span changes, the file extracts back to the new constraint, and a second
// identical rewrite is a no-op.
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
			newC := newConstraint(p)
			out, err := pins.Apply(f, name, data, []pins.Edit{{Pin: p, New: newC}})
			if err != nil {
				t.Fatalf("%s %s: %v", name, p.Key, err)
			}
			ins := newC
			if p.Constraint == "" {
				ins = p.Insert + newC
			}
			if want := string(data[:p.Span.Start]) + ins + string(data[p.Span.End:]); string(out) != want {
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
	ps, err := f.Extract("environment.yml", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
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
	tests := []struct {
		doc        string
		line, col  int
		key, inMsg string
	}{
		{"dependencies:\n  - numba\n - scipy\n", 2, 0, "", "not valid YAML"},
		{"dependencies: [numba\n", 1, 0, "", "not valid YAML"},
		{"{% set x = 1 %}\n", 1, 0, "", "not valid YAML"},
		{"dependencies:\n\t- numba\n", 2, 0, "", "not valid YAML"},
		{"- numba\n", 1, 1, "", "expected a mapping"},
		{"dependencies: numba\n", 1, 15, "dependencies", "expected a list"},
		{"dependencies:\n- [numba]\n", 2, 3, "dependencies[0]", "expected a requirement"},
		{"dependencies:\n- numba >=0.5 if x\n", 2, 3, "dependencies[0]", "conditional"},
		{"dependencies:\n- pip: numba\n", 2, 8, "dependencies[0].pip", "expected a list of pip requirements"},
		{"dependencies:\n- pip:\n  - numba ; \n", 3, 5, "dependencies[0].pip[0]", "invalid requirement"},
		{"dependencies: []\ndependencies: [numba]\n", 2, 1, "dependencies", "given twice"},
		{"channels: conda-forge\ndependencies: []\n", 1, 11, "channels", "expected a list of channels"},
	}
	for _, tt := range tests {
		ps, err := f.Extract("environment.yml", []byte(tt.doc))
		e, ok := diag.As(err)
		if !ok {
			t.Errorf("Extract(%q) = %v, want a diag.Error", tt.doc, err)
			continue
		}
		if e.File != "environment.yml" || e.Line != tt.line || (tt.col != 0 && e.Col != tt.col) || e.Key != tt.key || !strings.Contains(e.Error(), tt.inMsg) {
			t.Errorf("Extract(%q) error = %q (line %d col %d key %q)", tt.doc, e, e.Line, e.Col, e.Key)
		}
		if strings.Contains(tt.inMsg, "YAML") && ps != nil {
			t.Errorf("Extract(%q) returned pins with a parse error", tt.doc)
		}
	}
}

// TestGolden moves the caps of the corpus files' watched pins with the
// inclusive strategy and compares the rewritten files with testdata/golden.
func TestGolden(t *testing.T) {
	schemes := map[string]versions.Scheme{"conda": conda.Scheme{}, "pep440": pep440.Scheme{}}
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
				s := schemes[p.Scheme]
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
			out, err := pins.Apply(f, tt.file, data, edits)
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
	f.Add([]byte("channels: [conda-forge]\ndependencies:\n  - numba>=0.59,<=0.61.2  # c\n  - \"llvmlite 0.47.*\"\n  - pip:\n    - jax>=0.4\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		ps, err := condaenv.Format{}.Extract("environment.yml", data)
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
