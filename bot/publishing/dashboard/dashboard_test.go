package dashboard_test

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pinbot-dev/pinbot/bot/publishing/dashboard"
	"github.com/pinbot-dev/pinbot/bot/publishing/state"
	"github.com/pinbot-dev/pinbot/bot/report"
	"github.com/pinbot-dev/pinbot/internal/escape/inerttest"
)

var update = flag.Bool("update", false, "rewrite the golden files")

var (
	lastRun = time.Date(2026, 8, 14, 8, 17, 0, 0, time.UTC)
	thisRun = time.Date(2026, 8, 21, 8, 17, 0, 0, time.UTC)
)

// fixture is a run that opened numba's pull request, with a failing
// pre-release, held protobuf, errored tensorflow and current llvmlite,
// after a run where numba was current.
func fixture() *dashboard.Dashboard {
	rep := &report.Report{
		Packages: []report.Package{
			{Name: "llvmlite", Newest: "0.50.0", Status: "current", Sources: map[string]string{"pypi": "0.50.0"}, Admits: "0.50.0",
				Pins: []report.Pin{{File: "pyproject.toml", Line: 54, Before: "llvmlite<=0.50.0", After: "llvmlite<=0.50.0", Reason: "cap <=0.50.0 already admits the newest release"}}},
			{Name: "numba", Newest: "0.67.0", Status: "bump", Sources: map[string]string{"pypi": "0.67.0", "conda-forge": "0.67.0"}, Reason: "pypi has 0.67.0",
				Admits: "0.66.0", Behind: 1,
				Pins: []report.Pin{{File: "pyproject.toml", Line: 53, Before: "numba>=0.58,<=0.66.0", After: "numba>=0.58,<=0.67.0", Reason: "0.67.0 is newer than the cap <=0.66.0"}},
				HoldsBack: []report.HoldBack{{Package: "numpy", Constraint: "<2.5", RequiredBy: "numba 0.66.0", Newest: "2.5.1",
					Reason: "numba 0.66.0, the newest release the caps admit, holds numpy<2.5 while numpy 2.5.1 is out; numba 0.67.0 admits numpy<2.6"}},
				Checks: []report.Check{{Kind: "probe", Name: "FunctionIdentity._unique_ids is an iterator", OK: true, Baseline: "pass", Candidate: "pass",
					Detail: "ok: found _unique_ids = itertools.count(1)", Verdict: "ok"}},
				Prerelease: &report.Prerelease{Version: "0.68.0rc1", Source: "pypi", Baseline: "0.67.0", Verdict: "blocked",
					Reason: "fails probe FunctionIdentity._unique_ids is an iterator (attribute missing): the cap will hold when 0.68.0 ships",
					Checks: []report.Check{{Kind: "probe", Name: "FunctionIdentity._unique_ids is an iterator", Baseline: "pass", Candidate: "fail",
						Detail: "blocked: attribute missing", Verdict: "blocked"}}},
				Nightly: &report.Nightly{Version: "0.69.0.dev20261130", Source: "numba/label/dev", Baseline: "0.67.0", Verdict: "blocked",
					Reason:       "fails probe FunctionIdentity._unique_ids is an iterator (attribute missing)",
					FirstFailing: &report.NightlyBuild{Version: "0.69.0.dev20261124"}, LastPassing: &report.NightlyBuild{Version: "0.69.0.dev20261117"},
					Checks: []report.Check{{Kind: "probe", Name: "FunctionIdentity._unique_ids is an iterator", Baseline: "pass", Candidate: "fail",
						Detail: "blocked: attribute missing", Verdict: "blocked"}}}},
			{Name: "protobuf", Newest: "6.33.0", Status: "held", Sources: map[string]string{"pypi": "6.33.0"}, Admits: "5.29.3", Behind: 1,
				Hold: "requirements.txt:1 protobuf==5.29.3 shuts out 6.33.0: exact pin ==5.29.3",
				Pins: []report.Pin{{File: "requirements.txt", Line: 1, Before: "protobuf==5.29.3", After: "protobuf==5.29.3", Reason: "exact pin", Held: true, Fix: "cap: preserve"}}},
			{Name: "tensorflow", Status: "error", Error: "pypi: 503 Service Unavailable",
				Pins: []report.Pin{{File: "requirements.txt", Line: 2, Before: "tensorflow>=2.19", After: "tensorflow>=2.19"}}},
		},
		Warnings: []string{"requirements.txt:3:1: requirements[2]: invalid requirement (entry skipped; the file's other pins are read)"},
		Errors:   []string{"setup.cfg:3:1: not valid INI"},
	}
	last := state.Scope{}.Clone()
	last.Updated, last.SeenAt = lastRun, lastRun
	last.Seen = map[string]state.Seen{
		"llvmlite": {Status: "current", Target: "0.50.0"},
		"numba":    {Status: "current", Target: "0.66.0", NightlyVerdict: "ok"},
		"protobuf": {Status: "held", Target: "6.33.0"},
		"jax":      {Status: "current", Target: "0.7.1"},
	}
	return &dashboard.Dashboard{Repo: "pymc-devs/pytensor", Base: "main", RunURL: "https://github.com/pymc-devs/pytensor/actions/runs/42",
		Time: thisRun, Report: rep, Last: last,
		Pulls: map[string]dashboard.Pull{"numba": {Number: 12, URL: "https://github.com/pymc-devs/pytensor/pull/12", Action: "opened"}}}
}

// TestGroups: a group has a row of its own, with its one status, its
// targets and its pull request, which its members' rows show too.
func TestGroups(t *testing.T) {
	d := fixture()
	for i := range d.Report.Packages {
		if p := &d.Report.Packages[i]; p.Name == "numba" || p.Name == "llvmlite" {
			p.Group = "numba-stack"
		}
	}
	d.Report.Groups = []report.Group{{Name: "numba-stack", Packages: []string{"numba", "llvmlite"}, Status: "bump",
		Targets: map[string]string{"numba": "0.67.0", "llvmlite": "0.50.0"}, Reason: "consistent targets: llvmlite 0.50.0 (numba 0.67.0 requires llvmlite<0.51)"}}
	d.Pulls = map[string]dashboard.Pull{"numba-stack": {Number: 14, URL: "https://github.com/pymc-devs/pytensor/pull/14", Action: "opened"}}
	var b strings.Builder
	if err := d.Markdown(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"## Groups\n\n| Group | Status | Targets | Pull request | Why |\n|---|---|---|---|---|\n" +
			"| `numba-stack` | ⬆️ bump | numba 0.67.0, llvmlite 0.50.0 | [#14](https://github.com/pymc-devs/pytensor/pull/14) | consistent targets: llvmlite 0.50.0 (numba 0.67.0 requires llvmlite&lt;0.51) |\n",
		"| numba | ⬆️ bump | 0.66.0 (1 behind) | 0.67.0 | [#14](https://github.com/pymc-devs/pytensor/pull/14) |",
		"### numba: bump\n\nPull request: [#14](https://github.com/pymc-devs/pytensor/pull/14)\n",
		"**What the caps cost:** they hold back 1 package.",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("dashboard lacks %q:\n%s", want, out)
		}
	}
	if strings.Count(out, "[#14]") != 5 { // the group row; both members' rows and sections
		t.Errorf("group pull request shown %d times", strings.Count(out, "[#14]"))
	}
}

func TestGolden(t *testing.T) {
	var b strings.Builder
	if err := fixture().Markdown(&b); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", "dashboard.md")
	if *update {
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), b.String()); diff != "" {
		t.Errorf("dashboard.md (-want +got):\n%s", diff)
	}
	inerttest.Markdown(t, b.String(), "https://github.com/pymc-devs/pytensor/")
}

func TestChanges(t *testing.T) {
	d := fixture()
	want := []string{
		"numba: current → bump (target 0.67.0)",
		"numba: pull request #12",
		"numba: early warning on 0.68.0rc1: blocked",
		"numba: nightly 0.69.0.dev20261130: blocked (was ok)",
		"tensorflow: newly watched: error",
		"jax: no longer reported (not watched, or no pin found)",
	}
	if diff := cmp.Diff(want, d.Changes()); diff != "" {
		t.Errorf("changes (-want +got):\n%s", diff)
	}
	// What this run saw is the next run's past: then nothing changed.
	next := d.Last
	next.Seen, next.SeenAt = d.Seen(), thisRun
	d.Last = next
	if c := d.Changes(); len(c) != 0 {
		t.Errorf("unchanged: %q", c)
	}
	var b strings.Builder
	d.Markdown(&b)
	if !strings.Contains(b.String(), "Nothing changed since the run of 2026-08-21 08:17 UTC.") {
		t.Errorf("no change:\n%s", b.String())
	}
	// A pre-release gone, a target moved, no nightly build newer than the
	// target.
	d.Report.Packages[1].Prerelease = nil
	d.Report.Packages[1].Nightly = nil
	d.Report.Packages[2].Newest = "6.34.0"
	want = []string{"numba: no pre-release newer than the target any more", "numba: no nightly build checked in this run (was blocked)", "protobuf: target 6.33.0 → 6.34.0"}
	if diff := cmp.Diff(want, d.Changes()); diff != "" {
		t.Errorf("changes (-want +got):\n%s", diff)
	}
	// The newer pre-release held back by the package's gates: not gone, and
	// the overview says it is not checked.
	d.Report.Packages[1].PrereleaseSkipped = []report.PrereleaseSkip{{Version: "0.68.0rc2", Source: "pypi", Reason: "0.68.0rc2 is 2 hours old, min-age 3d"}}
	want[0] = "numba: no pre-release newer than the target passes the package's gates"
	if diff := cmp.Diff(want, d.Changes()); diff != "" {
		t.Errorf("changes (-want +got):\n%s", diff)
	}
	b.Reset()
	d.Markdown(&b)
	if !strings.Contains(b.String(), "| ⏸️ 0.68.0rc2 not checked (gates) |") ||
		!strings.Contains(b.String(), "**Early warning:** numba 0.68.0rc2 (pypi) not checked (the package's gates): 0.68.0rc2 is 2 hours old, min-age 3d") {
		t.Errorf("a pre-release held back:\n%s", b.String())
	}
	// No earlier run recorded.
	d.Last = state.Scope{}.Clone()
	if c := d.Changes(); c != nil {
		t.Errorf("first run: %q", c)
	}
}

// TestNightlyUndecided: a week the nightly source does not answer, the
// overview shows the nightly the runs remember, as it showed it, the
// changes say nothing of it and what the next run compares with stays the
// last verdict decided; so does a week the checks cannot decide.
func TestNightlyUndecided(t *testing.T) {
	d := fixture()
	numba := &d.Report.Packages[1]
	d.Last.Seen["numba"] = state.Seen{Status: "bump", Target: "0.67.0", Pull: 12, Prerelease: "0.68.0rc1", PrereleaseVerdict: "blocked", NightlyVerdict: "blocked"}
	d.Last.Nightlies["numba"] = state.Nightly{Version: "0.69.0.dev20261130", Source: "numba/label/dev", Judged: "blocked", Verdict: "blocked",
		FirstFailing: &state.Build{Version: "0.69.0.dev20261124"}, LastPassing: &state.Build{Version: "0.69.0.dev20261117"}}
	overview := func() string {
		var b strings.Builder
		d.Markdown(&b)
		for _, l := range strings.Split(b.String(), "\n") {
			if strings.HasPrefix(l, "| numba |") {
				return l
			}
		}
		return ""
	}
	changes := func() []string { // numba's
		var out []string
		for _, c := range d.Changes() {
			if strings.HasPrefix(c, "numba: ") {
				out = append(out, c)
			}
		}
		return out
	}
	const cell = "❌ 0.68.0rc1 blocked; ❌ nightly 0.69.0.dev20261130 blocked since 0.69.0.dev20261124 |"
	if l := overview(); !strings.HasSuffix(l, cell) {
		t.Fatalf("checked: %q", l)
	}
	numba.Nightly = nil
	numba.NightlyUnseen = &report.NightlyUnseen{Source: "numba/label/dev", Reason: "the nightly source numba/label/dev did not answer (503)"}
	if l, c := overview(), changes(); !strings.HasSuffix(l, cell) || len(c) != 0 || d.Seen()["numba"].NightlyVerdict != "blocked" {
		t.Errorf("the source down: overview %q, changes %q, seen %+v", l, c, d.Seen()["numba"])
	}
	// What is remembered of another source is not shown.
	numba.NightlyUnseen.Source = "https://idx/simple"
	if l := overview(); strings.Contains(l, "nightly") {
		t.Errorf("another source down: overview %q", l)
	}
	// The checks could not decide: shown as it is, no change.
	numba.NightlyUnseen = nil
	numba.Nightly = &report.Nightly{Version: "0.69.0.dev20261207", Source: "numba/label/dev", Verdict: "warning", Reason: "no wheel to read"}
	if l, c := overview(), changes(); !strings.HasSuffix(l, "⚠️ nightly 0.69.0.dev20261207 warning |") || len(c) != 0 || d.Seen()["numba"].NightlyVerdict != "blocked" {
		t.Errorf("undecided: overview %q, changes %q, seen %+v", l, c, d.Seen()["numba"])
	}
	// With nothing decided before, a warning is what was seen.
	d.Last.Seen["numba"] = state.Seen{Status: "bump", Target: "0.67.0", Pull: 12, Prerelease: "0.68.0rc1", PrereleaseVerdict: "blocked"}
	if c := changes(); len(c) != 1 || c[0] != "numba: nightly 0.69.0.dev20261207: warning (was none checked)" || d.Seen()["numba"].NightlyVerdict != "warning" {
		t.Errorf("a first warning: changes %q", c)
	}
}

// TestBody: the body carries the state the run leaves in its first
// line, and Recorded reads it back; a body without one, or with one that
// does not read, has none.
func TestBody(t *testing.T) {
	d := fixture()
	next := d.Last
	next.Warned = map[string]string{"numba": "0.68.0rc1"}
	next.Seen, next.SeenAt, next.Updated = d.Seen(), thisRun, thisRun
	body := d.Body(next)
	if !strings.HasPrefix(body, "<!-- pinbot:state ") || strings.Count(body, "pinbot:state") != 1 {
		t.Fatalf("body:\n%.300s", body)
	}
	got, ok := dashboard.Recorded("<!-- pinbot:issue dashboard/main -->\n" + body)
	if !ok {
		t.Fatal("Recorded found no state")
	}
	if diff := cmp.Diff(next.Clone(), got); diff != "" {
		t.Errorf("recorded (-want +got):\n%s", diff)
	}
	for _, bad := range []string{"", "no state here", "<!-- pinbot:state !!! -->", "<!-- pinbot:state bm90IGpzb24 -->", "x <!-- pinbot:state e30 -->"} {
		if _, ok := dashboard.Recorded(bad); ok {
			t.Errorf("Recorded(%q) found a state", bad)
		}
	}
}

// TestSame: two runs' bodies are the same when they differ only in what
// changes with the clock alone (the state's times, the run the dashboard is
// as of, what changed since the run before, what the run did to a pull
// request), and differ when anything the dashboard shows or records does,
// a reminder's time included.
func TestSame(t *testing.T) {
	const marker = "<!-- pinbot:issue dashboard/main -->\n"
	d := fixture()
	next := d.Last
	next.Seen, next.SeenAt, next.Updated = d.Seen(), thisRun, thisRun
	next.Alerted = map[string]state.Alert{"held:protobuf": {Release: "6.33.0", Verdict: "held: protobuf==5.29.3", At: lastRun}}
	found := marker + d.Body(next)

	// The next run, a week on, from another workflow run: it saw the same.
	later := thisRun.Add(7 * 24 * time.Hour)
	again := func() (*dashboard.Dashboard, state.Scope) {
		d := fixture()
		d.Time, d.RunURL = later, "https://github.com/pymc-devs/pytensor/actions/runs/43"
		d.Last = next
		d.Pulls["numba"] = dashboard.Pull{Number: 12, URL: "https://github.com/pymc-devs/pytensor/pull/12", Action: "unchanged"}
		n := next.Clone()
		n.Updated, n.SeenAt = later, later
		return d, n
	}
	d2, n2 := again()
	if want := marker + d2.Body(n2); !dashboard.Same(found, want) || found == want {
		t.Errorf("the same dashboard a week on is not Same:\n%s\n---\n%s", found, want)
	}
	d2.RunURL = ""
	if !dashboard.Same(found, marker+d2.Body(n2)) {
		t.Errorf("without a workflow run link, not Same")
	}

	for name, change := range map[string]func(*dashboard.Dashboard, *state.Scope){
		"a check's detail": func(d *dashboard.Dashboard, _ *state.Scope) {
			d.Report.Packages[1].Checks[0].Detail = "ok: found it elsewhere"
		},
		"a pull request a draft": func(d *dashboard.Dashboard, _ *state.Scope) {
			d.Pulls["numba"] = dashboard.Pull{Number: 12, Draft: true}
		},
		"a branch left alone": func(d *dashboard.Dashboard, _ *state.Scope) {
			d.Pulls["numba"] = dashboard.Pull{Number: 12, Action: "conflict"}
		},
		"another target seen": func(_ *dashboard.Dashboard, n *state.Scope) {
			n.Seen["protobuf"] = state.Seen{Status: "held", Target: "6.34.0"}
		},
		"a reminder sent": func(_ *dashboard.Dashboard, n *state.Scope) {
			n.Alerted["held:protobuf"] = state.Alert{Release: "6.33.0", Verdict: "held: protobuf==5.29.3", At: later}
		},
		"a pre-release announced": func(_ *dashboard.Dashboard, n *state.Scope) { n.Warned["numba"] = "0.68.0rc2" },
		"a warning": func(d *dashboard.Dashboard, _ *state.Scope) {
			d.Report.Warnings = append(d.Report.Warnings, "setup.cfg: skipped")
		},
	} {
		d, n := again()
		change(d, &n)
		if dashboard.Same(found, marker+d.Body(n)) {
			t.Errorf("%s: Same", name)
		}
	}
	// A person's edit, and a body that is not the dashboard's, are not Same.
	for _, other := range []string{strings.Replace(found, "| numba |", "| numba (see #3) |", 1), strings.Replace(found, "## Changes", "## Notes", 1),
		marker + "hello", strings.Replace(found, "pinbot:state ", "pinbot:state x", 1)} {
		if dashboard.Same(other, marker+d2.Body(n2)) {
			t.Errorf("Same as an edited body:\n%.400s", other)
		}
	}
}

func TestMarker(t *testing.T) {
	for base, want := range map[string]string{
		"main":                   "dashboard/main",
		"v2.x":                   "dashboard/v2.x",
		"Release/2026 Q1":        "dashboard/release/2026-q1",
		"feature/é":              "dashboard/feature/--",
		strings.Repeat("a", 100): "dashboard/" + strings.Repeat("a", 80),
	} {
		if got := dashboard.Marker(base); got != want {
			t.Errorf("Marker(%q) = %q, want %q", base, got, want)
		}
	}
}

// TestHostile renders a dashboard whose every string from outside is what
// an attacker would choose: nothing but text, and only pinbot's own links.
func TestHostile(t *testing.T) {
	for _, h := range inerttest.Hostile {
		rep := &report.Report{
			Packages: []report.Package{{Name: h, Newest: h, Status: h, Admits: h, Sources: map[string]string{h: h}, Reason: h, Error: h, Hold: h,
				Pins:       []report.Pin{{File: h, Line: 1, Before: h, After: h + "x", Reason: h}},
				Checks:     []report.Check{{Kind: h, Name: h, Baseline: h, Candidate: h, Detail: h}},
				Prerelease: &report.Prerelease{Version: h, Source: h, Verdict: h, Reason: h, Checks: []report.Check{{Kind: h, Name: h, Detail: h}}},
				Nightly: &report.Nightly{Version: h, Source: h, Verdict: "blocked", Reason: h, Checks: []report.Check{{Kind: h, Name: h, Detail: h}},
					FirstFailing: &report.NightlyBuild{Version: h}, LastPassing: &report.NightlyBuild{Version: h}, Beside: []string{h}}}},
			Warnings: []string{h}, Errors: []string{h},
		}
		last := state.Scope{}.Clone()
		last.SeenAt = lastRun
		last.Seen = map[string]state.Seen{h + "y": {Status: h}}
		d := &dashboard.Dashboard{Repo: h, Base: h, RunURL: h, Time: thisRun, Report: rep, Last: last,
			Pulls: map[string]dashboard.Pull{h: {Number: 1, URL: "https://github.com/o/r/pull/1", Action: h}}}
		var b strings.Builder
		if err := d.Markdown(&b); err != nil {
			t.Fatal(err)
		}
		inerttest.Markdown(t, b.String(), "https://github.com/o/r/pull/1")
		// A pull request URL that is not a plain link is shown as text.
		d.Pulls[h] = dashboard.Pull{Number: 1, URL: "javascript:alert(1)"}
		b.Reset()
		d.Markdown(&b)
		inerttest.Markdown(t, b.String())
	}
}

// TestLinks: the dashboard writes links by upstream.SafeURL's rule, as pull
// requests and Slack do: a URL with credentials is never written (shown as
// text), and characters that would end a Markdown link are percent-encoded.
func TestLinks(t *testing.T) {
	for _, tt := range []struct{ url, want, not string }{
		{"https://github.com/o/r/pull/1", "[#1](https://github.com/o/r/pull/1)", ""},
		{"https://x-access-token:ghs_secret@github.com/o/r/pull/1", "| #&#8203;1 |", "ghs_secret"},
		{"https://github.com/o/r/pull/1)[x](https://evil.example", "[#1](https://github.com/o/r/pull/1%29%5Bx%5D%28https://evil.example)", "](https://evil"},
	} {
		d := fixture()
		d.Pulls = map[string]dashboard.Pull{"numba": {Number: 1, URL: tt.url, Action: "opened"}}
		var b strings.Builder
		if err := d.Markdown(&b); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), tt.want) || tt.not != "" && strings.Contains(b.String(), tt.not) {
			t.Errorf("URL %q: the dashboard has no %q, or has %q:\n%s", tt.url, tt.want, tt.not, b.String())
		}
	}
}

// FuzzSame: whatever an issue's body holds, comparing it never panics, a
// body is Same as itself, and Same is symmetric.
func FuzzSame(f *testing.F) {
	// Small seeds: the engine minimizes what it finds, which takes long on
	// a whole fixture's body.
	last := state.Scope{}.Clone()
	last.Updated, last.SeenAt, last.Seen = lastRun, lastRun, map[string]state.Seen{"numba": {Status: "current"}}
	d := &dashboard.Dashboard{Repo: "o/r", Base: "main", RunURL: "https://github.com/o/r/actions/runs/1", Time: thisRun, Report: &report.Report{}, Last: last}
	f.Add(d.Body(last), d.Body(last.Undated()))
	f.Add("<!-- pinbot:state e30 -->\nx As of the run of 2026-08-21 08:17 UTC.\n\n## Changes\n\n- a\n", "<!-- pinbot:state e30 -->\nx\n")
	f.Add("\n## Changes\n\n## Changes\n", "\n## Changes\n")
	f.Fuzz(func(t *testing.T, a, b string) {
		if !dashboard.Same(a, a) {
			t.Errorf("not Same as itself: %q", a)
		}
		if dashboard.Same(a, b) != dashboard.Same(b, a) {
			t.Errorf("Same(%q, %q) is not Same(%q, %q)", a, b, b, a)
		}
	})
}

// FuzzRecorded: whatever an issue's body holds, reading its state never
// panics, and a state that reads survives Encode and Recorded again.
func FuzzRecorded(f *testing.F) {
	d := fixture()
	f.Add(d.Body(d.Last))
	f.Add("<!-- pinbot:state e30 -->")
	f.Add("<!-- pinbot:state eyJzZWVuIjp7IngiOnsic3RhdHVzIjoxfX19 -->")
	f.Fuzz(func(t *testing.T, body string) {
		sc, ok := dashboard.Recorded(body)
		if !ok {
			return
		}
		again, ok := dashboard.Recorded("<!-- pinbot:state " + state.Encode(sc) + " -->")
		if !ok {
			t.Fatalf("a state that read once does not read again: %+v", sc)
		}
		if diff := cmp.Diff(sc, again); diff != "" {
			t.Errorf("round trip (-first +second):\n%s", diff)
		}
	})
}
