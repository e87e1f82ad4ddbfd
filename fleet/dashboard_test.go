package fleet_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pinbot-dev/pinbot/bot/report"
	"github.com/pinbot-dev/pinbot/fleet"
	"github.com/pinbot-dev/pinbot/internal/escape/inerttest"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func pkg(name, status, newest, admits string, behind int) report.Package {
	return report.Package{Name: name, Status: status, Newest: newest, Admits: admits, Behind: behind, Reason: "pypi has " + newest}
}

// fixture is a fleet of five repositories: numba bumped, blocked, held, in
// error and current; protobuf current everywhere it is pinned.
func fixture() []fleet.Report {
	blocked := pkg("numba", "blocked", "0.67.0", "0.65.0", 2)
	blocked.Reason = "pypi has 0.67.0; checks failed on 0.67.0 and on every release tried after 0.65.0: caps left as they are"
	blocked.Checks = []report.Check{
		{Kind: "probe", Name: "numba-unique-ids", Verdict: "blocked", Detail: "FunctionIdentity._unique_ids: missing <b>@lab/core</b> | `x`"},
		{Kind: "probe", Name: "other", Verdict: "ok"},
	}
	blocked.Nightly = &report.Nightly{Version: "0.69.0.dev20261130", Source: "numba/label/dev", Verdict: "blocked",
		Reason: "fails probe numba-unique-ids (FunctionIdentity._unique_ids is missing)", FirstFailing: &report.NightlyBuild{Version: "0.69.0.dev20261124"},
		LastPassing: &report.NightlyBuild{Version: "0.69.0.dev20261117"}}
	held := pkg("numba", "held", "0.67.0", "0.66.0", 1)
	held.Reason = "the project's constraints cannot be resolved with 0.67.0"
	failed := pkg("numba", "error", "", "", 0)
	failed.Error = "pypi: 503 Service Unavailable"
	current := pkg("numba", "current", "0.66.0", "0.66.0", 0)
	current.Nightly = &report.Nightly{Version: "0.69.0.dev20261130", Source: "numba/label/dev", Verdict: "ok", Reason: "passes every check against 0.66.0",
		LastPassing: &report.NightlyBuild{Version: "0.69.0.dev20261130"}}
	return []fleet.Report{
		{File: "a.json", Repository: "lab/svc_a", Packages: []report.Package{pkg("numba", "bump", "0.67.0", "0.66.0", 1), pkg("protobuf", "current", "6.33.0", "6.33.0", 0)},
			Pulls: []fleet.Pull{{Package: "numba", Action: "opened", Number: 12, URL: "https://github.com/lab/svc_a/pull/12"}}, APIRequests: 20},
		{File: "b.json", Repository: "lab/b", Packages: []report.Package{blocked},
			Pulls: []fleet.Pull{{Package: "numba", Action: "updated", Number: 3, URL: "javascript:alert(1)", Draft: true}}, APIRequests: 9},
		{File: "c.json", Repository: "lab/c", Packages: []report.Package{held, pkg("protobuf", "current", "6.33.0", "6.33.0", 0)}},
		{File: "d.json", Repository: "lab/d", Packages: []report.Package{failed}, Errors: []string{"requirements.txt:3: -r missing.txt: no such file"}},
		{File: "e.json", Repository: "lab/e", Packages: []report.Package{current}},
	}
}

func TestDashboardGolden(t *testing.T) {
	d, warnings := fleet.Summarize(fixture())
	if len(warnings) != 0 {
		t.Errorf("warnings %q", warnings)
	}
	var b strings.Builder
	if err := d.Markdown(&b); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", "dashboard.md")
	if *update {
		os.MkdirAll("testdata", 0o755)
		os.WriteFile(path, []byte(b.String()), 0o644)
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), b.String()); diff != "" {
		t.Errorf("dashboard (-want +got):\n%s", diff)
	}
	// Rendered as GitHub would: no tag, mention or link but the pull
	// requests' (and not the one to a script).
	inerttest.Markdown(t, b.String(), "https://github.com/lab/svc_a/pull/12")
	if fleet.StateOf(b.String()) != d.State() {
		t.Errorf("the dashboard records state %q, not %q", fleet.StateOf(b.String()), d.State())
	}
}

// TestDashboardCounts: the newest release is the highest any repository
// targets; counts and the Slack lines follow the statuses.
func TestDashboardCounts(t *testing.T) {
	d, _ := fleet.Summarize(fixture())
	if len(d.Packages) != 2 || d.Packages[0].Name != "numba" || d.Packages[0].Newest != "0.67.0" {
		t.Fatalf("packages %+v", d.Packages)
	}
	if got := d.Packages[0].Counts(false); got != "1 bumped, 1 blocked, 1 held, 1 in error" {
		t.Errorf("counts %q", got)
	}
	s := d.SlackSummary("https://github.com/lab/.github/issues/1", "")
	if s.Fleet != "lab" || s.Repositories != 5 || len(s.Lines) != 3 || !s.Lines[0].Alert || s.Lines[1].Alert ||
		s.Lines[1].Text != "protobuf 6.33.0: 2 current" || s.Lines[2].Text != "1 error tied to no package" {
		t.Errorf("slack %+v", s)
	}
	if d.APIRequests != 29 {
		t.Errorf("api requests %d", d.APIRequests)
	}
}

// TestDashboardState: the state does not depend on the order of the
// reports, changes with a repository's status or the newest release, and a
// repository reported twice counts once.
func TestDashboardState(t *testing.T) {
	a, _ := fleet.Summarize(fixture())
	rev := fixture()
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	b, _ := fleet.Summarize(rev)
	if a.State() != b.State() {
		t.Error("the state depends on the order of the reports")
	}
	changed := fixture()
	changed[4].Packages[0].Status = "bump"
	c, _ := fleet.Summarize(changed)
	if c.State() == a.State() {
		t.Error("a repository's new status did not change the state")
	}
	dup := append(fixture(), fleet.Report{File: "z.json", Repository: "lab/b"})
	e, warnings := fleet.Summarize(dup)
	if e.State() != a.State() || len(warnings) != 1 || !strings.Contains(warnings[0], "z.json: skipped: lab/b is reported in b.json already") {
		t.Errorf("duplicate: %q", warnings)
	}
}

// TestChartCap: a chart shows the 40 most lagging repositories and says how
// many more lag.
func TestChartCap(t *testing.T) {
	var rs []fleet.Report
	for i := range 45 {
		rs = append(rs, fleet.Report{Repository: fmt.Sprintf("lab/r%02d", i), Packages: []report.Package{pkg("numba", "bump", "0.67.0", "0.60.0", i%7+1)}})
	}
	d, _ := fleet.Summarize(rs)
	var b strings.Builder
	d.Markdown(&b)
	md := b.String()
	if !strings.Contains(md, "…and 5 more lagging repositories.") || !strings.Contains(md, `x-axis ["r06", "r13", "r20"`) {
		t.Errorf("chart:\n%s", md[strings.Index(md, "```mermaid"):])
	}
}

// TestDashboardInert: reasons, errors and check details from the reports
// render as text, whatever they hold.
func TestDashboardInert(t *testing.T) {
	for _, h := range inerttest.Hostile {
		blocked := pkg("numba", "blocked", "0.67.0", "0.66.0", 1)
		blocked.Reason = h
		blocked.Checks = []report.Check{{Kind: "probe", Name: h, Verdict: "blocked", Detail: h}}
		held := pkg("numba", "held", "0.67.0", "0.66.0", 1)
		held.Hold = h
		failed := pkg("numba", "error", "", "", 0)
		failed.Error = h
		failed.Nightly = &report.Nightly{Version: "1.dev1", Source: h, Verdict: "blocked", Reason: h}
		d, _ := fleet.Summarize([]fleet.Report{
			{Repository: "lab/a", Packages: []report.Package{blocked}, Errors: []string{h}},
			{Repository: "lab/b", Packages: []report.Package{held}},
			{Repository: "lab/c", Packages: []report.Package{failed}},
		})
		var b strings.Builder
		if err := d.Markdown(&b); err != nil {
			t.Fatal(err)
		}
		inerttest.Markdown(t, b.String())
	}
}

// TestDashboardBody: the body starts with its hidden records, which
// are read from there only; it leaves out the run's request count; and a
// body too long for the limit shows the same number of first rows in each
// table, as many as fit, and says how many it left out.
func TestDashboardBody(t *testing.T) {
	d, _ := fleet.Summarize(fixture())
	body := d.Body("0123456789abcdef", 1<<20)
	if !strings.HasPrefix(body, fleet.NotifiedLine("0123456789abcdef")+"\n<!-- pinbot:fleet-state "+d.State()+" -->\n# pinbot: the fleet of lab\n") ||
		strings.Contains(body, "API request") {
		t.Errorf("body:\n%s", body)
	}
	if fleet.NotifiedOf(body) != "0123456789abcdef" || fleet.StateOf(body) != d.State() {
		t.Errorf("records %q %q", fleet.NotifiedOf(body), fleet.StateOf(body))
	}
	// Behind the marker line, with GitHub's line ends, too.
	crlf := strings.ReplaceAll("<!-- pinbot:issue fleet-dashboard -->\n"+body, "\n", "\r\n")
	if fleet.NotifiedOf(crlf) != "0123456789abcdef" || fleet.StateOf(crlf) != d.State() {
		t.Errorf("records behind the marker: %q %q", fleet.NotifiedOf(crlf), fleet.StateOf(crlf))
	}
	// Anywhere else, a record is text.
	for _, b := range []string{
		"# title\n" + fleet.NotifiedLine("0123456789abcdef") + "\n",
		"<!-- pinbot:fleet-notified 0123456789ABCDEF -->\n",
		"<!-- pinbot:fleet-notified 0123456789abcdef --> and more\n",
		"<!-- a comment -->\n" + fleet.NotifiedLine("0123456789abcdef") + "\n",
	} {
		if got := fleet.NotifiedOf(b); got != "" {
			t.Errorf("%q: read %q as the record", b, got)
		}
	}
	if !strings.Contains(body, "| lab/c | held |") || fleet.NotifiedOf(d.Body("", 1<<20)) != "" {
		t.Errorf("body without a notified record:\n%s", d.Body("", 1<<20))
	}

	var rs []fleet.Report
	for i := range 30 {
		rs = append(rs, fleet.Report{Repository: fmt.Sprintf("lab/r%02d", i), Packages: []report.Package{pkg("numba", "blocked", "0.67.0", "0.66.0", 1),
			pkg("protobuf", "current", "6.33.0", "6.33.0", 0)}, Errors: []string{"an error " + strings.Repeat("x", 100)}})
	}
	rs = append(rs, fleet.Report{Repository: "lab/s", Packages: []report.Package{pkg("protobuf", "bump", "6.33.0", "6.32.0", 1)}})
	d, _ = fleet.Summarize(rs)
	full := d.Body("0123456789abcdef", 1<<20)
	for _, max := range []int{len(full), len(full) - 1, len(full) / 2, 3000, 100} {
		b := d.Body("0123456789abcdef", max)
		if fleet.NotifiedOf(b) != "0123456789abcdef" || fleet.StateOf(b) != d.State() {
			t.Errorf("max %d: the records are lost", max)
		}
		numba := strings.Count(b, " | blocked | ")
		errs := strings.Count(b, "| `an error")
		protobuf, _, _ := strings.Cut(b[strings.Index(b, "## protobuf"):], "## Errors")
		cur := strings.Count(protobuf, "lab/r")
		switch {
		case max == len(full):
			if b != full || numba != 30 || errs != 30 || strings.Contains(b, "left out") {
				t.Errorf("max %d: cut a body that fits", max)
			}
		case max == 100:
			// Too short for any row: SyncIssue cuts the rest.
			if numba != 0 || errs != 0 || cur != 0 || strings.Contains(b, "| lab/s | bumped |") || !strings.Contains(b, "…and 1 more row,") {
				t.Errorf("max %d: %d, %d and %d rows", max, numba, errs, cur)
			}
		default:
			if len(b) > max || numba != errs || cur != numba || numba == 30 ||
				!strings.Contains(b, fmt.Sprintf("…and %d more rows, left out to fit GitHub's limit", 30-numba)) {
				t.Errorf("max %d: %d bytes, %d, %d and %d rows:\n%s", max, len(b), numba, errs, cur, b)
			}
		}
	}
}

// TestDashboardNoRecordFromReports: a report's text that holds a hidden
// record is shown without "<!--".
func TestDashboardNoRecordFromReports(t *testing.T) {
	held := pkg("numba", "held", "0.67.0", "0.66.0", 1)
	held.Hold = "wait " + fleet.NotifiedLine("0123456789abcdef")
	d, _ := fleet.Summarize([]fleet.Report{{Repository: "lab/a", Packages: []report.Package{held}, Errors: []string{"<!-- pinbot:fleet-state 0123456789abcdef -->"}}})
	body := d.Body("", 1<<20)
	if strings.Count(body, "<!--") != 1 || !strings.Contains(body, "wait <!-\u200b- pinbot:fleet-notified") || fleet.StateOf(body) != d.State() {
		t.Errorf("body:\n%s", body)
	}
}

// FuzzRecords: reading an issue body's hidden records (anyone who may edit
// the issue writes it) never panics, and a record read is a state written
// in one of the body's first lines.
func FuzzRecords(f *testing.F) {
	f.Add("<!-- pinbot:issue fleet-dashboard -->\n<!-- pinbot:fleet-notified 0123456789abcdef -->\n<!-- pinbot:fleet-state fedcba9876543210 -->\n# t\n")
	f.Add("<!-- pinbot:fleet-state 0123456789abcdef -->\r\n# t\r\n")
	f.Add("# t\n<!-- pinbot:fleet-notified 0123456789abcdef -->\n")
	f.Fuzz(func(t *testing.T, body string) {
		for _, got := range []string{fleet.NotifiedOf(body), fleet.StateOf(body)} {
			if got == "" {
				continue
			}
			head, _, _ := strings.Cut(body, "# ")
			if len(got) != 16 || !strings.Contains(head, " "+got+" -->") {
				t.Fatalf("read %q from %q", got, body)
			}
		}
	})
}
