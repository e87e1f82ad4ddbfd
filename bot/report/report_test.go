package report_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pinbot-dev/pinbot/bot/report"
	"github.com/pinbot-dev/pinbot/internal/escape/inerttest"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// fixture exercises every field the renderers show.
func fixture() *report.Report {
	return &report.Report{
		Packages: []report.Package{
			{
				Name: "numba", Newest: "0.67.0", Status: "bump", Sources: map[string]string{"pypi": "0.67.0"}, Reason: "pypi has 0.67.0", Group: "numba-stack",
				Pins: []report.Pin{
					{File: "pyproject.toml", Line: 53, Key: "project.dependencies[3]", Before: "numba>=0.58,<=0.66.0", After: "numba>=0.58,<=0.67.0", Reason: "0.67.0 is newer than the cap <=0.66.0"},
					{File: "pyproject.toml", Line: 81, Key: "project.optional-dependencies.numba[0]", Before: "numba>0.57,<1", After: "numba>0.57,<=0.67.0", Reason: "exclusive cap <1 becomes the tested-through <=0.67.0; this narrows the range", Narrows: true},
					{File: "pyproject.toml", Line: 90, Key: "project.dependencies[9]", Before: `nu\u006dba>=1`, After: `nu\u006dba>=1`, Reason: "not edited: string with escape sequences", Skip: "string with escape sequences"},
				},
				Checks: []report.Check{{Kind: "probe", Name: "numba.core.bytecode.FunctionIdentity._unique_ids", OK: true, Baseline: "pass", Candidate: "pass", Detail: "iterator"}},
				Drift: []report.Drift{
					{Lower: ">=0.58", Upper: "<=0.67.0", Pins: []string{"pyproject.toml:53", "pyproject.toml:81"}},
					{Lower: ">=0.57", Pins: []string{"requirements/base.txt:3"}},
					{Pins: []string{"requirements/base.txt:4"}, Marker: `python_version < "3.9"`},
				},
				HoldsBack: []report.HoldBack{{Package: "numpy", Constraint: "<2.5", RequiredBy: "numba 0.66.0", Newest: "2.5.1",
					Reason: "numba 0.66.0, the newest release the caps admit, holds numpy<2.5 while numpy 2.5.1 is out; numba 0.67.0 admits numpy<2.6"}},
				Prerelease: &report.Prerelease{Version: "0.68.0rc1", Source: "pypi", Baseline: "0.67.0", Verdict: "blocked",
					Reason: "fails probe numba-unique-ids (FunctionIdentity._unique_ids is an iterator: attribute missing): the cap will hold when 0.68.0 ships",
					Checks: []report.Check{{Kind: "probe", Name: "numba-unique-ids", Baseline: "pass", Candidate: "fail", Detail: "blocked: FunctionIdentity._unique_ids is missing", Verdict: "blocked"}}},
				Nightly: &report.Nightly{Version: "0.69.0.dev20261130", Uploaded: time.Date(2026, 11, 30, 3, 10, 0, 0, time.UTC), Source: "numba/label/dev", Baseline: "0.67.0",
					Verdict: "blocked", Reason: "fails probe numba-unique-ids (FunctionIdentity._unique_ids is missing)",
					Checks:       []report.Check{{Kind: "probe", Name: "numba-unique-ids", Baseline: "pass", Candidate: "fail", Detail: "blocked: FunctionIdentity._unique_ids is missing", Verdict: "blocked"}},
					FirstFailing: &report.NightlyBuild{Version: "0.69.0.dev20261124", Uploaded: time.Date(2026, 11, 24, 3, 10, 0, 0, time.UTC)},
					LastPassing:  &report.NightlyBuild{Version: "0.69.0.dev20261117"},
					Beside:       []string{"llvmlite 0.51.0.dev20261130 (nightly, from the same source)"},
					Skipped:      []report.PrereleaseSkip{{Version: "0.69.0.dev20261201", Source: "numba/label/dev", Reason: "0.69.0.dev20261201 has no numba/label/dev build for linux-64"}}},
				Solve: &report.Solve{Resolver: "pip 24.0", OK: true, Picked: map[string]string{"numba": "0.67.0", "llvmlite": "0.50.0", "numpy": "2.5.1"},
					Detail: "the project's requirements resolve with the new caps (3 distributions); pip 24.0 picks numba 0.67.0"},
			},
			{Name: "llvmlite", Newest: "0.50.0", Status: "bump", Sources: map[string]string{"pypi": "0.50.0"}, Reason: "pypi has 0.50.0", Group: "numba-stack",
				Pins: []report.Pin{{File: "requirements/base.txt", Line: 5, Key: "requirements[2]", Before: "llvmlite~=0.41.0", After: "llvmlite~=0.50.0",
					Reason: "~=0.41.0 becomes ~=0.50.0 to admit 0.50.0 (cap: preserve keeps the operator); this raises the lower bound", RaisesLower: true}},
				Solve: &report.Solve{Resolver: "uv", Detail: "the project's requirements do not resolve, with the new caps or without: No solution found when resolving dependencies: <script>"}},
			{Name: "protobuf", Newest: "6.33.0", Status: "current", Sources: map[string]string{"pypi": "6.33.0"}, Reason: "pypi has 6.33.0", HoldsBack: []report.HoldBack{},
				Pins: []report.Pin{{File: "requirements.txt", Line: 11, Key: "line 11", Before: "protobuf>=5.29.3,<=6.33.0", After: "protobuf>=5.29.3,<=6.33.0", Reason: "cap <=6.33.0 already admits the newest release"}}},
			{Name: "jax", Newest: "0.7.1", Status: "held", Sources: map[string]string{"pypi": "0.7.1"}, Reason: "pypi has 0.7.1",
				Hold: "pyproject.toml:12 jax = \"^0.6.0\" shuts out 0.7.1: ^0.6.0 caps below 0.7.1; the inclusive strategy does not rewrite it (cap: preserve does)",
				Pins: []report.Pin{{File: "pyproject.toml", Line: 12, Key: "tool.poetry.dependencies.jax", Before: `jax = "^0.6.0"`, After: `jax = "^0.6.0"`,
					Reason: "^0.6.0 caps below 0.7.1; the inclusive strategy does not rewrite it (cap: preserve does)", Held: true, Fix: "cap: preserve"}},
				Checks: []report.Check{
					{Kind: "symbols", Name: "tensorflow-protobuf", Baseline: "1 library", Candidate: "not scanned", Detail: "warning: candidate jax 0.7.1 has no wheel for manylinux_2_36_x86_64, CPython 3.12", Verdict: "warning"},
					{Kind: "probe", Name: "jax._src.core.Tracer", Baseline: "pass", Candidate: "fail", Detail: "blocked: missing", Verdict: "blocked"},
					{Kind: "probe", Name: "live-operations canary", Baseline: "fail", Candidate: "pass", OK: true, Detail: "upstream-fixed: passes", Verdict: "upstream-fixed"},
				}},
			{Name: "tensorflow", Status: "error", Error: "pypi: https://pypi.org/pypi/tensorflow/json: 404 Not Found",
				Pins: []report.Pin{{File: "pyproject.toml", Line: 60, Key: "project.dependencies[5]", Before: "tensorflow|x>=2", After: "tensorflow|x>=2"}}},
		},
		Errors:   []string{"setup.cfg:3:1: not valid INI"},
		Written:  []string{"pyproject.toml"},
		Includes: []report.Include{{File: "requirements/base.txt", Chain: []string{"requirements-dev.txt:1: -r requirements/base.txt"}}},
		Groups: []report.Group{{Name: "numba-stack", Packages: []string{"numba", "llvmlite"}, Status: "bump",
			Targets: map[string]string{"numba": "0.67.0", "llvmlite": "0.50.0"},
			Reason:  "consistent targets: llvmlite 0.50.0 (numba 0.67.0 requires llvmlite<0.51,>=0.50.0dev0)"}},
	}
}

func TestGolden(t *testing.T) {
	for name, render := range map[string]func(io.Writer, *report.Report) error{
		"report.txt":  report.Text,
		"report.md":   report.Markdown,
		"report.json": report.JSON,
	} {
		t.Run(name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := render(&buf, fixture()); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("testdata", name)
			if *update {
				if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(want), buf.String()); diff != "" {
				t.Errorf("%s (-want +got):\n%s", name, diff)
			}
		})
	}
}

// TestJSONContract checks the keys users' scripts read, and that empty lists
// are [] rather than null.
func TestJSONContract(t *testing.T) {
	var buf bytes.Buffer
	r := &report.Report{Packages: []report.Package{{Name: "numba", Status: "current"}}}
	if err := report.JSON(&buf, r); err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	pkg := doc["packages"].([]any)[0].(map[string]any)
	for _, k := range []string{"name", "newest", "status", "sources", "pins", "checks", "error", "drift", "hold"} {
		if _, ok := pkg[k]; !ok {
			t.Errorf("package key %q missing", k)
		}
	}
	for _, k := range []string{"prerelease", "prerelease_skipped", "nightly", "nightly_unseen"} {
		if _, ok := pkg[k]; ok {
			t.Errorf("%s = %v, want it absent when no pre-release was checked or held back", k, pkg[k])
		}
	}
	buf.Reset()
	r.Packages[0].Prerelease = &report.Prerelease{Version: "0.68.0rc1", Source: "pypi", Verdict: "ok"}
	if err := report.JSON(&buf, r); err != nil {
		t.Fatal(err)
	}
	var withPre struct {
		Packages []struct {
			Prerelease map[string]any `json:"prerelease"`
		} `json:"packages"`
	}
	if err := json.Unmarshal(buf.Bytes(), &withPre); err != nil {
		t.Fatal(err)
	}
	pre := withPre.Packages[0].Prerelease
	for _, k := range []string{"version", "source", "baseline", "verdict", "reason", "checks"} {
		if _, ok := pre[k]; !ok {
			t.Errorf("prerelease key %q missing: %v", k, pre)
		}
	}
	if _, ok := pre["checks"].([]any); !ok {
		t.Errorf("prerelease checks = %v, want []", pre["checks"])
	}
	buf.Reset()
	r.Packages[0].Nightly = &report.Nightly{Version: "0.69.0.dev20261130", Source: "numba/label/dev", Verdict: "ok", LastPassing: &report.NightlyBuild{Version: "0.69.0.dev20261130"}}
	if err := report.JSON(&buf, r); err != nil {
		t.Fatal(err)
	}
	var withNightly struct {
		Packages []struct {
			Nightly map[string]any `json:"nightly"`
		} `json:"packages"`
	}
	if err := json.Unmarshal(buf.Bytes(), &withNightly); err != nil {
		t.Fatal(err)
	}
	n := withNightly.Packages[0].Nightly
	for _, k := range []string{"version", "source", "baseline", "verdict", "reason", "checks", "first_failing", "last_passing"} {
		if _, ok := n[k]; !ok {
			t.Errorf("nightly key %q missing: %v", k, n)
		}
	}
	if _, ok := n["checks"].([]any); !ok || n["first_failing"] != nil || n["last_passing"].(map[string]any)["version"] != "0.69.0.dev20261130" {
		t.Errorf("nightly = %v, want checks [], first_failing null, last_passing the build", n)
	}
	for _, k := range []string{"uploaded", "distribution", "beside", "skipped"} {
		if _, ok := n[k]; ok {
			t.Errorf("nightly %s = %v, want it absent when unknown or empty", k, n[k])
		}
	}
	if _, ok := pkg["pins"].([]any); !ok {
		t.Errorf("pins = %v, want []", pkg["pins"])
	}
	if _, ok := pkg["sources"].(map[string]any); !ok {
		t.Errorf("sources = %v, want {}", pkg["sources"])
	}
	for _, k := range []string{"errors", "written"} {
		if _, ok := doc[k].([]any); !ok {
			t.Errorf("%s = %v, want []", k, doc[k])
		}
	}

	// A usage check always carries uses and broken ([] when none breaks);
	// other checks never do. Text from outside keeps its < and >.
	buf.Reset()
	r.Packages[0].Checks = []report.Check{
		{Kind: "usage", Name: "references", OK: true, Verdict: "ok", Detail: "all 0 references resolve at <=1"},
		{Kind: "probe", Name: "numba.njit", OK: true, Verdict: "ok"},
		{Kind: "usage", Name: "references", Uses: 3, Verdict: "blocked", Broken: []report.Reference{{Name: "numba.x", Kind: "call"}}},
	}
	r.Packages[0].Prerelease.Checks = r.Packages[0].Checks[:1]
	if err := report.JSON(&buf, r); err != nil {
		t.Fatal(err)
	}
	var withChecks struct {
		Packages []struct {
			Checks     []map[string]any `json:"checks"`
			Prerelease struct {
				Checks []map[string]any `json:"checks"`
			} `json:"prerelease"`
		} `json:"packages"`
	}
	if err := json.Unmarshal(buf.Bytes(), &withChecks); err != nil {
		t.Fatal(err)
	}
	cs := withChecks.Packages[0].Checks
	if b, ok := cs[0]["broken"].([]any); !ok || len(b) != 0 || cs[0]["uses"] != 0.0 {
		t.Errorf("an ok usage check: uses %v, broken %v, want 0 and []", cs[0]["uses"], cs[0]["broken"])
	}
	if b, ok := cs[2]["broken"].([]any); !ok || len(b) != 1 || cs[2]["uses"] != 3.0 {
		t.Errorf("a blocked usage check: uses %v, broken %v", cs[2]["uses"], cs[2]["broken"])
	}
	for _, k := range []string{"uses", "broken"} {
		if _, ok := cs[1][k]; ok {
			t.Errorf("a probe check has %s = %v, want it absent", k, cs[1][k])
		}
	}
	if pc := withChecks.Packages[0].Prerelease.Checks; len(pc) != 1 || pc[0]["broken"] == nil {
		t.Errorf("the early warning's usage check %v, want broken []", pc)
	}
	for _, k := range []string{"kind", "name", "ok", "baseline", "candidate", "detail", "verdict"} {
		if _, ok := cs[0][k]; !ok {
			t.Errorf("usage check key %q missing: %v", k, cs[0])
		}
	}
	if !strings.Contains(buf.String(), `"detail": "all 0 references resolve at <=1"`) {
		t.Errorf("the detail is escaped:\n%s", buf.String())
	}
	var back report.Report
	if err := json.Unmarshal(buf.Bytes(), &back); err != nil || back.Packages[0].Checks[2].Uses != 3 || len(back.Packages[0].Checks[2].Broken) != 1 {
		t.Errorf("read back: %v %+v", err, back.Packages[0].Checks)
	}
}

// hostileReport puts h in every string a renderer shows.
func hostileReport(h string) *report.Report {
	return &report.Report{
		Packages: []report.Package{{
			Name: h, Newest: h, Status: h, Sources: map[string]string{h: h}, Reason: h, Error: h,
			Pins: []report.Pin{{File: h, Line: 1, Key: h, Before: h, After: h + "x", Reason: h}},
			Checks: []report.Check{{Kind: h, Name: h, Baseline: h, Candidate: h, Detail: h, Environment: &report.Environment{
				Python: h, Candidate: []report.Distribution{{Name: h, Version: h}}, Baseline: []report.Distribution{{Name: h, Version: h}},
				Changes: []report.Change{{Name: h, From: h, To: h}, {Name: h, To: h}}, Constraints: []string{h}}},
				{Kind: "usage", Name: h, Baseline: h, Candidate: h, Detail: h, Verdict: "blocked", Uses: 2, Broken: []report.Reference{
					{Name: h, Kind: h, File: h, Line: 1, Col: 1, Baseline: h, Candidate: h, Verdict: "blocked", Detail: h},
					{Name: h, Kind: "call", File: h, Line: 2, Col: 3, Private: true, Guarded: true, Baseline: h, Candidate: h, Verdict: "warning", Detail: h}}}},
			Drift: []report.Drift{{Lower: h, Upper: h, Marker: h, Pins: []string{h}}},
			Prerelease: &report.Prerelease{Version: h, Source: h, Baseline: h, Verdict: h, Reason: h,
				Checks: []report.Check{{Kind: h, Name: h, Baseline: h, Candidate: h, Detail: h}}},
			PrereleaseSkipped: []report.PrereleaseSkip{{Version: h, Source: h, Reason: h}},
			Nightly: &report.Nightly{Version: h, Source: h, Distribution: h, Baseline: h, Verdict: "blocked", Reason: h,
				Checks: []report.Check{{Kind: h, Name: h, Baseline: h, Candidate: h, Detail: h}}, FirstFailing: &report.NightlyBuild{Version: h},
				LastPassing: &report.NightlyBuild{Version: h}, Beside: []string{h}, Skipped: []report.PrereleaseSkip{{Version: h, Source: h, Reason: h}}},
		}},
		Errors:   []string{h},
		Written:  []string{h},
		Includes: []report.Include{{File: h, Chain: []string{h}}},
	}
}

// TestRenderHostile renders reports whose every string is what an attacker
// would choose: the text holds no control character but pinbot's own line
// breaks, and the Markdown, rendered as GitHub would, nothing but text.
func TestRenderHostile(t *testing.T) {
	for _, h := range inerttest.Hostile {
		r := hostileReport(h)
		var text, md bytes.Buffer
		if err := report.Text(&text, r); err != nil {
			t.Fatal(err)
		}
		inerttest.Text(t, text.String())
		if err := report.Markdown(&md, r); err != nil {
			t.Fatal(err)
		}
		inerttest.Markdown(t, md.String())
	}
}

// envFixture is a package whose dynamic probe blocks because a dependency
// moved, with its environment.
func envFixture() *report.Report {
	env := &report.Environment{
		Python:      "3.11.7 (/usr/bin/python3.11)",
		Candidate:   []report.Distribution{{Name: "numba", Version: "0.63.0b1"}, {Name: "numpy", Version: "2.5.2"}},
		Baseline:    []report.Distribution{{Name: "numba", Version: "0.62.0"}, {Name: "numpy", Version: "2.4.6"}},
		Changes:     []report.Change{{Name: "numpy", From: "2.4.6", To: "2.5.2"}, {Name: "llvmlite", To: "0.46.0"}},
		Constraints: []string{"llvmlite<0.47 (pyproject.toml:5)"},
	}
	return &report.Report{Packages: []report.Package{{
		Name: "numba", Newest: "0.63.0b1", Status: "blocked", Sources: map[string]string{"pypi": "0.63.0b1"},
		Reason: "pypi has 0.63.0b1; checks failed on 0.63.0b1",
		Pins:   []report.Pin{{File: "pyproject.toml", Line: 4, Before: "numba<=0.62.0", After: "numba<=0.62.0", Reason: "not moved: checks failed on 0.63.0b1"}},
		Checks: []report.Check{{Kind: "probe", Name: "numba.np.arrayobj imports", Baseline: "pass", Candidate: "fail", Verdict: "blocked",
			Detail:      "blocked: importing numba.np.arrayobj raised AttributeError; numba 0.63.0b1 fails with numpy 2.5.2 (new since the last run); numba declares numpy>=1.22 with no cap; the last run passed with numpy 2.4.6",
			Environment: env}},
	}}}
}

// TestEnvironmentGolden: text and Markdown say once per package what differs
// between the probe environments and which constraints applied; JSON carries
// the whole environment in each probe check.
func TestEnvironmentGolden(t *testing.T) {
	for name, render := range map[string]func(io.Writer, *report.Report) error{
		"environment.txt":  report.Text,
		"environment.md":   report.Markdown,
		"environment.json": report.JSON,
	} {
		var buf bytes.Buffer
		if err := render(&buf, envFixture()); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join("testdata", name)
		if *update {
			os.WriteFile(path, buf.Bytes(), 0o644)
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(string(want), buf.String()); diff != "" {
			t.Errorf("%s (-want +got):\n%s", name, diff)
		}
	}
}

// TestSummary: the first line counts every package by status, the four
// named ones always and any other when present, so the counts add up to the
// packages; errors outside packages and warnings follow.
func TestSummary(t *testing.T) {
	pkgs := func(statuses ...string) []report.Package {
		var ps []report.Package
		for _, s := range statuses {
			ps = append(ps, report.Package{Name: "p", Status: s})
		}
		return ps
	}
	tests := []struct {
		r    *report.Report
		want string
	}{
		{&report.Report{Packages: pkgs("bump", "blocked", "bump")}, "3 packages: 2 bump, 1 blocked, 0 held, 0 current"},
		{&report.Report{Packages: pkgs("current")}, "1 package: 0 bump, 0 blocked, 0 held, 1 current"},
		{&report.Report{}, "0 packages: 0 bump, 0 blocked, 0 held, 0 current"},
		{&report.Report{Packages: pkgs("error", "held", "error"), Errors: []string{"a", "b"}, Warnings: []string{"w"}},
			"3 packages: 0 bump, 0 blocked, 1 held, 0 current, 2 error; 2 file errors; 1 warning"},
		{&report.Report{Packages: pkgs("odd\x1b[2J")}, "1 package: 0 bump, 0 blocked, 0 held, 0 current, 1 odd\\x1b[2J"},
	}
	for _, tt := range tests {
		if got := report.Summary(tt.r); got != tt.want {
			t.Errorf("Summary = %q, want %q", got, tt.want)
		}
	}
}

// TestTextColor: with Color, statuses and check marks carry ANSI colours and
// the rest is the plain text; without, no escape at all; a status from
// outside gets no colour and stays escaped.
func TestTextColor(t *testing.T) {
	var plain, color bytes.Buffer
	if err := report.Text(&plain, fixture()); err != nil {
		t.Fatal(err)
	}
	if err := report.TextWith(&color, fixture(), report.TextOptions{Color: true}); err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(plain.Bytes(), []byte("\x1b")) {
		t.Errorf("colour without Color:\n%s", plain.String())
	}
	for _, want := range []string{"numba: \x1b[32mbump\x1b[0m", "jax: \x1b[33mheld\x1b[0m", "tensorflow: \x1b[1;31merror\x1b[0m", "protobuf: \x1b[2mcurrent\x1b[0m",
		": \x1b[32mok\x1b[0m (baseline pass", ": \x1b[31mFAIL\x1b[0m (baseline pass", "\x1b[1;31merror:\x1b[0m setup.cfg:3:1"} {
		if !strings.Contains(color.String(), want) {
			t.Errorf("coloured text lacks %q:\n%s", want, color.String())
		}
	}
	stripped := regexp.MustCompile("\x1b\\[[0-9;]*m").ReplaceAllString(color.String(), "")
	if diff := cmp.Diff(plain.String(), stripped); diff != "" {
		t.Errorf("the coloured text, colours stripped, differs from the plain (-plain +stripped):\n%s", diff)
	}
	var hostile bytes.Buffer
	if err := report.TextWith(&hostile, hostileReport("bump\x1b[2J"), report.TextOptions{Color: true}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(hostile.String(), "\x1b[2J") {
		t.Errorf("a status from outside reached the terminal unescaped:\n%q", hostile.String())
	}
}
