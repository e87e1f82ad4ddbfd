package probe

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pinbot-dev/pinbot/internal/pep503"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata")

func TestSpecValidate(t *testing.T) {
	tests := []struct {
		spec    Spec
		wantErr string // "" for valid
	}{
		{Spec{Path: "numba.core.bytecode.FunctionIdentity._unique_ids", Expect: "iterator"}, ""},
		{Spec{Path: "numba"}, ""},
		{Spec{Path: "a.b", Expect: "type:itertools.count"}, ""},
		{Spec{Path: "a.b", Expect: "callable", SourceContains: "next(", Signature: "(pyfunc) -> int"}, ""},
		{Spec{Run: "import x", Expect: "fail", Name: "bug"}, ""},
		{Spec{Preset: "numba-unique-ids"}, ""},
		{Spec{Preset: "mlir-live-operations"}, ""},
		{Spec{Path: "numba..core"}, "empty segment"},
		{Spec{Path: "numba/core"}, `"numba/core" is not a Python identifier`},
		{Spec{Path: "a.1b"}, `"1b" is not a Python identifier`},
		{Spec{Path: "a.class"}, `"class" is not a Python identifier`},
		{Spec{Path: "a b"}, "not a Python identifier"},
		{Spec{Path: "a", Expect: "iterable"}, `unknown kind "iterable"`},
		{Spec{Path: "a", Expect: "type:"}, "type name"},
		{Spec{Path: "a", Expect: "fail"}, "applies to a run snippet"},
		{Spec{Run: "x = 1"}, "needs expect: pass or expect: fail"},
		{Spec{Run: "x = 1", Expect: "callable"}, "expects pass or fail"},
		{Spec{Run: "  \n", Expect: "pass"}, "snippet is empty"},
		{Spec{Run: "x", Expect: "pass", SourceContains: "y"}, "apply to a path"},
		{Spec{Path: "a", Run: "x", Expect: "pass"}, "not both"},
		{Spec{}, "needs path"},
		{Spec{Name: "only a name"}, "needs path"},
		{Spec{Path: "a", Expect: "iterator", SourceContains: "x"}, "source-contains needs"},
		{Spec{Path: "a", Expect: "module", Signature: "(x)"}, "signature needs"},
		{Spec{Path: "a", Signature: "pyfunc"}, "parenthesised"},
		{Spec{Preset: "nope"}, `unknown preset "nope"`},
		{Spec{Preset: "numba-unique-ids", Path: "x"}, "stands alone"},
	}
	for _, tt := range tests {
		err := tt.spec.Validate()
		switch {
		case tt.wantErr == "" && err != nil:
			t.Errorf("%+v: unexpected error %v", tt.spec, err)
		case tt.wantErr != "" && err == nil:
			t.Errorf("%+v: no error, want %q", tt.spec, tt.wantErr)
		case tt.wantErr != "" && !strings.Contains(err.Error(), tt.wantErr):
			t.Errorf("%+v: error %q, want it to contain %q", tt.spec, err, tt.wantErr)
		}
	}
}

func TestExpandPresets(t *testing.T) {
	in := []Spec{{Path: "a"}, {Preset: "numba-unique-ids"}, {Preset: "mlir-live-operations"}}
	out, err := Expand(in)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 1+3+8 || out[0].Path != "a" || out[1].Path != "numba.core.bytecode.FunctionIdentity._unique_ids" {
		t.Fatalf("Expand = %+v", out)
	}
	for i, s := range out {
		if s.Preset != "" {
			t.Errorf("out[%d] still a preset", i)
		}
		if err := s.Validate(); err != nil {
			t.Errorf("preset probe %d invalid: %v", i, err)
		}
	}
	if in[1].Preset != "numba-unique-ids" {
		t.Error("Expand modified its input")
	}
	if _, err := Expand([]Spec{{Path: "ok"}, {Path: "bad path"}}); err == nil || !strings.HasPrefix(err.Error(), "probes[1]: path:") {
		t.Errorf("Expand error = %v", err)
	}
	p, ok := LookupPreset("numba-unique-ids")
	if !ok || p.Doc == "" || len(p.Specs) != 3 || !strings.Contains(p.Specs[2].Run, "_StubIds") {
		t.Errorf("LookupPreset = %+v, %v", p, ok)
	}
	if got := strings.Join(PresetNames(), ","); got != "mlir-live-operations,numba-unique-ids" {
		t.Errorf("PresetNames = %s", got)
	}
	// pinbot init offers a preset for the package it names: a PEP 503
	// name, whose import name the probes look up.
	for _, name := range PresetNames() {
		p, _ := LookupPreset(name)
		if p.Package == "" || p.Package != pep503.Normalize(p.Package) {
			t.Errorf("preset %s: package %q", name, p.Package)
		}
	}
}

func TestDisplayName(t *testing.T) {
	for _, tt := range []struct {
		s    Spec
		want string
	}{
		{Spec{Name: "n", Path: "p"}, "n"},
		{Spec{Path: "p.q"}, "p.q"},
		{Spec{Run: "\nimport numba\nx = 1"}, "run: import numba"},
	} {
		if got := tt.s.DisplayName(); got != tt.want {
			t.Errorf("%+v: %q, want %q", tt.s, got, tt.want)
		}
	}
}

func TestJudge(t *testing.T) {
	side := func(v string, s Status) *Side { return &Side{Version: v, Status: s, Detail: "d-" + string(s)} }
	canary := Spec{Run: "x", Expect: "fail"}
	look := Spec{Path: "a"}
	tests := []struct {
		spec       Spec
		base, cand *Side
		want       Verdict
		detail     string
	}{
		{look, side("1", Pass), side("2", Pass), OK, "d-pass"},
		{look, side("1", Pass), side("2", Fail), Blocked, "passes at 1, fails at 2: d-fail"},
		{look, side("1", Fail), side("2", Fail), Warning, "already broken at 1: d-fail"},
		{look, side("1", Fail), side("2", Pass), OK, "fixed at 2"},
		{look, side("1", Unknown), side("2", Fail), Blocked, "undecided at 1"},
		{look, side("1", Pass), side("2", Unknown), Warning, "undecided at 2: d-unknown"},
		{look, nil, side("2", Fail), Blocked, "fails at 2"},
		{look, nil, side("2", Pass), OK, ""},
		{canary, side("1", Pass), side("2", Pass), OK, ""},
		{canary, side("1", Pass), side("2", Fail), UpstreamFixed, "the canary passes at 2: upstream fixed, the workaround can go"},
		{canary, side("1", Fail), side("2", Fail), UpstreamFixed, "already passed at 1"},
		{canary, side("1", Pass), side("2", Unknown), Warning, "undecided"},
	}
	for i, tt := range tests {
		r := Result{Spec: tt.spec, Baseline: tt.base, Candidate: *tt.cand}
		v, d := judge(&r)
		if v != tt.want || !strings.Contains(d, tt.detail) {
			t.Errorf("%d: judge = %s %q, want %s containing %q", i, v, d, tt.want, tt.detail)
		}
	}
	if v := overall([]Result{{Verdict: OK}, {Verdict: UpstreamFixed}}, nil); v != UpstreamFixed {
		t.Errorf("overall = %s", v)
	}
	if v := overall([]Result{{Verdict: Blocked}, {Verdict: Warning}, {Verdict: UpstreamFixed}}, nil); v != Blocked {
		t.Errorf("overall = %s", v)
	}
	if v := overall([]Result{{Verdict: UpstreamFixed}, {Verdict: Warning}}, nil); v != Warning {
		t.Errorf("overall = %s", v)
	}
}

func fixtureReport() *Report {
	return &Report{
		Package: "numba", Baseline: "0.67.0", Candidate: "0.68.0", Mode: ModeDynamic, Python: "3.11.7",
		Notes: []string{"output of the probe process at 0.68.0 beyond 1048576 bytes was discarded"},
		Results: []Result{
			{Name: "FunctionIdentity._unique_ids is an iterator", Verdict: Blocked,
				Baseline:  &Side{Version: "0.67.0", Status: Pass},
				Candidate: Side{Version: "0.68.0", Status: Fail},
				Detail:    "passes at 0.67.0, fails at 0.68.0: segment 5 '_unique_ids' is missing"},
			{Name: "canary | with pipe", Verdict: UpstreamFixed, Spec: Spec{Run: "x", Expect: "fail"},
				Baseline:  &Side{Version: "0.67.0", Status: Pass},
				Candidate: Side{Version: "0.68.0", Status: Fail},
				Detail:    "the canary passes at 0.68.0:\nupstream fixed <b>*now*</b>"},
			{Name: "numba.core", Verdict: Warning,
				Baseline:  &Side{Version: "0.67.0", Status: Pass},
				Candidate: Side{Version: "0.68.0", Status: Unknown},
				Detail:    "undecided at 0.68.0: timed out\x1b[31m"},
		},
		Verdict: Blocked,
	}
}

func TestMarkdownGolden(t *testing.T) {
	got := fixtureReport().Markdown()
	nobase := fixtureReport()
	nobase.Baseline = ""
	for i := range nobase.Results {
		nobase.Results[i].Baseline = nil
	}
	got += "\n---\n\n" + nobase.Markdown()
	golden := filepath.Join("testdata", "report.md.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("Markdown() differs from %s (run go test -update after checking):\n%s", golden, got)
	}
}

func TestChecks(t *testing.T) {
	cs := fixtureReport().Checks()
	want := []CheckEntry{
		{"probe", "FunctionIdentity._unique_ids is an iterator", false, "pass", "fail", "blocked: passes at 0.67.0, fails at 0.68.0: segment 5 '_unique_ids' is missing"},
		{"probe", "canary | with pipe", true, "pass", "fail", "upstream-fixed: the canary passes at 0.68.0:\nupstream fixed <b>*now*</b>"},
		{"probe", "numba.core", false, "pass", "unknown", "warning: undecided at 0.68.0: timed out\uFFFD[31m"},
	}
	if len(cs) != len(want) {
		t.Fatalf("Checks = %+v", cs)
	}
	for i := range want {
		if cs[i] != want[i] {
			t.Errorf("check %d:\n got %+v\nwant %+v", i, cs[i], want[i])
		}
	}
}
