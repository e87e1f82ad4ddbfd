package probe

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCanonAnnotation(t *testing.T) {
	same := [][]string{
		{"Optional[int]", "int | None", "None | int", "typing.Optional[int]", "Union[int, None]", "'int | None'", `"Optional[int]"`, "Union[None, int]", "int | type(None)", "Optional[int | None]", "int | NoneType"},
		{"List[int]", "list[int]", "typing.List[int]", "'list[int]'"},
		{"np.ndarray", "numpy.ndarray", "ndarray", "'np.ndarray'"},
		{"Dict[str, Optional[np.ndarray]]", "dict[str, numpy.ndarray | None]", "'dict[str, ndarray | None]'"},
		{"Callable[[int, str], None]", "typing.Callable[[int, str], None]", "collections.abc.Callable[[int, str], None]"},
		{"Literal['a', 'b']", `Literal["a", "b"]`, "typing.Literal['a', 'b']"},
		{"Tuple[int, ...]", "tuple[int, ...]"},
		{"Union[int, Union[str, bytes]]", "bytes | int | str", "int | (str | bytes)"},
		{"'Engine'", "Engine", "pkg.core.Engine"},
	}
	for _, group := range same {
		want := canonAnnotation(group[0])
		for _, a := range group[1:] {
			if got := canonAnnotation(a); got != want {
				t.Errorf("canonAnnotation(%q) = %q, but %q gives %q", a, got, group[0], want)
			}
		}
	}
	different := [][2]string{
		{"int", "str"}, {"Optional[int]", "int"}, {"List[int]", "List[str]"}, {"Literal['a']", "Literal['b']"},
		{"dict[str, int]", "dict[int, str]"}, {"Callable[[int], None]", "Callable[[str], None]"}, {"int", ""},
	}
	for _, d := range different {
		if canonAnnotation(d[0]) == canonAnnotation(d[1]) {
			t.Errorf("%q and %q compare equal (%q)", d[0], d[1], canonAnnotation(d[0]))
		}
	}
	for _, odd := range []string{"a +", "[[", "x if y else z", "'unterminated", "lambda: 1", "1 +* 2"} {
		_ = canonAnnotation(odd) // never panics; text it cannot parse is compared squashed
	}
}

func TestParseSignature(t *testing.T) {
	for _, tt := range []struct {
		in, want, err string
	}{
		{"(pyfunc)", "pyfunc:1", ""},
		{"()", "", ""},
		{"(a, /, b=1, *args, c: int, d: 'x, y' = (1, 2), **kw) -> Dict[str, int]", "a:0 b:1= args:2 c:3 d:3= kw:4", ""},
		{"(a, *, b)", "a:1 b:3", ""},
		{"(a, b=x == y, c=f(d=1))", "a:1 b:1= c:1=", ""},
		{"(a,)", "a:1", ""},
		{"pyfunc", "", "parenthesised"},
		{"(a, a)", "", "appears twice"},
		{"(**kw, a)", "", "after **kwargs"},
		{"(*, *)", "", "a second"},
		{"(/)", "", "must follow"},
		{"(*a=1)", "", "cannot have a default"},
		{"(1x)", "", "not a parameter name"},
		{"(a) junk", "", "expected"},
		{"(a, 'unterminated)", "", "parenthesised"},
		{"(a: )", "", "empty annotation"},
	} {
		sig, err := parseSignature(tt.in)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("parseSignature(%q) error %v, want %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("parseSignature(%q): %v", tt.in, err)
			continue
		}
		var got []string
		for _, p := range sig.Params {
			s := p.Name + ":" + string(rune('0'+p.Kind))
			if p.Default {
				s += "="
			}
			got = append(got, s)
		}
		if strings.Join(got, " ") != tt.want {
			t.Errorf("parseSignature(%q) = %s, want %s", tt.in, strings.Join(got, " "), tt.want)
		}
	}
}

// The sigpkg wheels in testdata/sigpkg/VERSION are one package at four
// releases: 1.1 only respells 1.0's annotations (Optional[X] as X | None,
// string annotations under from __future__ import annotations, qualified
// names) and changes default values; 1.2 changes one annotation for real; 2.0
// changes what callers see: a renamed parameter, one made keyword-only, one
// without its default, an instance attribute gone, a new module that must stay
// absent. cmd/pinbot's tests serve the same files.

// sigWheels builds the sigpkg wheels into dir.
func sigWheels(t *testing.T, dir string) {
	t.Helper()
	for _, v := range []string{"1.0", "1.1", "1.2", "2.0"} {
		root := filepath.Join("testdata", "sigpkg", v)
		files := map[string]string{}
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			b, err := os.ReadFile(p)
			rel, _ := filepath.Rel(root, p)
			files[filepath.ToSlash(rel)] = string(b)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		buildWheel(t, dir, "sigpkg", v, files)
	}
}

var sigSpecs = []Spec{
	{Path: "sigpkg.Engine", Signature: "(size, name: Optional[str] = None)"},
	{Path: "sigpkg.Engine.run", Expect: "callable", Signature: "(self, x: Optional[int] = None, *, flag: bool = False) -> Optional[str]"},
	{Path: "sigpkg.compute", Signature: "(a, b: numbers.Number = 1, *args, **kw) -> Optional[float]"},
	{Name: "run with annotations", Path: "sigpkg.Engine.run", Signature: "(self, x: Optional[int] = None, *, flag: bool = False) -> Optional[str]", SignatureAnnotations: true},
	{Path: "sigpkg.Engine.size", Expect: "instance-attribute"},
	{Path: "sigpkg.Engine._cache", Expect: "instance-attribute"},
	{Path: "sigpkg.newthing", Expect: "absent"},
}

// TestSignatureModesAgree runs the same probes over the same wheels
// dynamically and statically: both give the same verdict for every probe.
func TestSignatureModesAgree(t *testing.T) {
	t.Parallel() // slow (environments, subprocesses): overlaps the other tests
	dir := t.TempDir()
	sigWheels(t, dir)
	want := map[string][]Verdict{
		"1.1": {OK, OK, OK, OK, OK, OK, OK},
		"1.2": {OK, OK, OK, Blocked, OK, OK, OK},
		"2.0": {Blocked, Blocked, Blocked, Blocked, Blocked, OK, Blocked},
	}
	details := map[string][]string{
		"1.2": {3: "x is annotated Optional[str], expected Optional[int]"},
		"2.0": {
			0: "name is keyword-only, expected positional-or-keyword",
			1: "parameter x is gone; parameter value is new; flag is positional-or-keyword, expected keyword-only",
			2: "b has no default any more",
			4: "assigns self.size",
			6: "sigpkg.newthing exists: found module sigpkg.newthing",
		},
	}
	modes := map[string]Options{"static": {Static: true}}
	if py := testPythonPath(); py != "" {
		modes["dynamic"] = Options{Python: py, CacheDir: t.TempDir()}
	} else {
		testPython(t) // fails under PINBOT_INTEGRATION=1
	}
	for mode, base := range modes {
		for cand, verdicts := range want {
			opts := base
			opts.Package, opts.Baseline, opts.Candidate, opts.Index, opts.Specs = "sigpkg", "1.0", cand, dir, sigSpecs
			opts.TempDir = t.TempDir()
			rep, err := Run(context.Background(), opts)
			if err != nil {
				t.Fatalf("%s %s: %v", mode, cand, err)
			}
			for i, r := range rep.Results {
				if r.Baseline == nil || r.Baseline.Status != Pass {
					t.Errorf("%s 1.0 %s: baseline %+v", mode, r.Name, r.Baseline)
				}
				if r.Verdict != verdicts[i] {
					t.Errorf("%s 1.0 → %s %s: verdict %s, want %s (%s)", mode, cand, r.Name, r.Verdict, verdicts[i], r.Detail)
				}
				if d := details[cand]; i < len(d) && d[i] != "" && !strings.Contains(r.Detail, d[i]) {
					t.Errorf("%s 1.0 → %s %s: detail %q lacks %q", mode, cand, r.Name, r.Detail, d[i])
				}
			}
		}
	}
}
