package fleet

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/pinbot-dev/pinbot/bot/publishing/slack"
	"github.com/pinbot-dev/pinbot/bot/publishing/upstream"
	"github.com/pinbot-dev/pinbot/bot/report"
	"github.com/pinbot-dev/pinbot/config"
	"github.com/pinbot-dev/pinbot/internal/errw"
	esc "github.com/pinbot-dev/pinbot/internal/escape"
	"github.com/pinbot-dev/pinbot/versions"
	"github.com/pinbot-dev/pinbot/versions/conda"
	"github.com/pinbot-dev/pinbot/versions/pep440"
	"github.com/pinbot-dev/pinbot/versions/semver"
)

// The statuses of the report contract, in the order the dashboard shows
// them, with the words it uses; a status a newer pinbot adds is shown after
// them, as written.
var (
	statusOrder = []string{"bump", "blocked", "held", "error", "current"}
	statusWord  = map[string]string{"bump": "bumped", "blocked": "blocked", "held": "held", "error": "in error", "current": "current"}
)

// MaxChartBars bounds the repositories one chart shows, most lagging first,
// and MaxCurrentNames the current ones a package's section names.
const (
	MaxChartBars    = 40
	MaxCurrentNames = 200
)

// A Dashboard is the fleet's state: for each package, the newest release any
// repository targets and where each repository stands.
type Dashboard struct {
	// Owners are the repositories' owners, sorted.
	Owners       []string
	Repositories int
	Packages     []Package
	// Problems are the repositories' errors tied to no package.
	Problems    []Problem
	APIRequests int
	// Server is the GitHub web origin whose pull requests the dashboard
	// links: https://github.com when empty, https://HOST for GitHub
	// Enterprise Server.
	Server string
}

// A Package is one package across the fleet.
type Package struct {
	Name string
	// Newest is the newest release any repository targets.
	Newest string
	// ByStatus holds the repositories by status (bump, blocked, held, error,
	// current, or any other a report names), sorted by repository.
	ByStatus map[string][]Entry
}

// An Entry is one repository's state for one package.
type Entry struct {
	Repository string
	// Target is the release the repository's caps move to (its newest).
	Target string
	// Admits and Behind are how far its caps lag (report.Package).
	Admits string
	Behind int
	// Why says why a package is blocked, held or in error.
	Why string
	// Pull is the package's pull request in the repository, if any.
	Pull *Pull
	// Nightly is what the package's checks say of its newest nightly build
	// in the repository, with since when (nil: none checked).
	Nightly *report.Nightly
}

// A Problem is an error of one repository tied to no package.
type Problem struct{ Repository, Text string }

// Summarize builds the dashboard from the reports. A repository reported
// twice (in any case: GitHub's names are case-insensitive) keeps its first
// report, with a warning.
func Summarize(reports []Report) (*Dashboard, []string) {
	d := &Dashboard{}
	var warnings []string
	seen := map[string]string{}
	owners := map[string]bool{}
	pkgs := map[string]*Package{}
	for _, r := range reports {
		id := strings.ToLower(r.Repository)
		if first, dup := seen[id]; dup {
			warnings = append(warnings, fmt.Sprintf("%s: skipped: %s is reported in %s already", r.File, r.Repository, first))
			continue
		}
		seen[id] = r.File
		owner, _, _ := strings.Cut(r.Repository, "/")
		owners[owner] = true
		d.Repositories++
		d.APIRequests += r.APIRequests
		for _, e := range r.Errors {
			d.Problems = append(d.Problems, Problem{Repository: r.Repository, Text: e})
		}
		for _, p := range r.Packages {
			key := config.Key(p.Name)
			fp := pkgs[key]
			if fp == nil {
				fp = &Package{Name: key, ByStatus: map[string][]Entry{}}
				pkgs[key] = fp
			}
			if p.Newest != "" && (fp.Newest == "" || compareVersions(key, p.Newest, fp.Newest) > 0) {
				fp.Newest = p.Newest
			}
			e := Entry{Repository: r.Repository, Target: p.Newest, Admits: p.Admits, Behind: p.Behind, Why: why(p), Nightly: p.Nightly}
			for i, pr := range r.Pulls {
				if config.Key(pr.Package) == key {
					e.Pull = &r.Pulls[i]
				}
			}
			fp.ByStatus[p.Status] = append(fp.ByStatus[p.Status], e)
		}
	}
	d.Owners = slices.Sorted(maps.Keys(owners))
	for _, name := range slices.Sorted(maps.Keys(pkgs)) {
		p := pkgs[name]
		for s := range p.ByStatus {
			slices.SortFunc(p.ByStatus[s], func(a, b Entry) int { return strings.Compare(a.Repository, b.Repository) })
		}
		d.Packages = append(d.Packages, *p)
	}
	slices.SortStableFunc(d.Problems, func(a, b Problem) int { return strings.Compare(a.Repository, b.Repository) })
	return d, warnings
}

// why is what the dashboard says about a package that needs a look: the
// reason and the checks that blocked it, why it is held, or the error.
func why(p report.Package) string {
	switch p.Status {
	case "bump", "current":
		return ""
	case "error":
		return p.Error
	case "held":
		return cmp.Or(p.Hold, p.Reason)
	}
	var failed []string
	for _, c := range p.Checks {
		if c.Verdict == "blocked" {
			failed = append(failed, c.Kind+" "+c.Name+": "+c.Detail)
		}
	}
	if len(failed) > 0 {
		return p.Reason + "; " + strings.Join(failed, "; ")
	}
	return p.Reason
}

// compareVersions orders two releases of one package: Go module paths by Go's
// semver, others by PEP 440, else conda's ordering, else as strings.
func compareVersions(pkg, a, b string) int {
	var schemes []versions.Scheme
	if strings.Contains(pkg, "/") {
		schemes = append(schemes, semver.Scheme{})
	}
	schemes = append(schemes, pep440.Scheme{}, conda.Scheme{})
	for _, s := range schemes {
		if s.Valid(a) && s.Valid(b) {
			return s.Compare(a, b)
		}
	}
	return strings.Compare(a, b)
}

// Counts returns how many repositories have each status, in the dashboard's
// order: "37 bumped, 3 blocked, 2 held".
func (p Package) Counts(withCurrent bool) string {
	var parts []string
	for _, s := range p.statuses() {
		if n := len(p.ByStatus[s]); n > 0 && (withCurrent || s != "current") {
			parts = append(parts, fmt.Sprintf("%d %s", n, word(s)))
		}
	}
	if len(parts) == 0 {
		return fmt.Sprintf("%d current", len(p.ByStatus["current"]))
	}
	return strings.Join(parts, ", ")
}

// statuses returns the package's statuses in the dashboard's order.
func (p Package) statuses() []string {
	var out []string
	for _, s := range statusOrder {
		if len(p.ByStatus[s]) > 0 {
			out = append(out, s)
		}
	}
	for _, s := range slices.Sorted(maps.Keys(p.ByStatus)) {
		if !slices.Contains(statusOrder, s) {
			out = append(out, s)
		}
	}
	return out
}

func word(status string) string { return cmp.Or(statusWord[status], status) }

// State returns a fingerprint of what the fleet looks like: each package's
// newest release and every repository's status for it. It changes when
// anything the Slack summary reports changes, and only then.
func (d *Dashboard) State() string {
	h := sha256.New()
	for _, p := range d.Packages {
		fmt.Fprintf(h, "%s %s\n", p.Name, p.Newest)
		for _, s := range p.statuses() {
			for _, e := range p.ByStatus[s] {
				fmt.Fprintf(h, "  %s %s %s\n", e.Repository, s, e.Target)
			}
		}
	}
	for _, pr := range d.Problems {
		fmt.Fprintf(h, "! %s %s\n", pr.Repository, pr.Text)
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// The dashboard's hidden records are lines at the very start of the issue's
// body, before its title: what Slack was last told (NotifiedLine), then the
// fleet's state (the Markdown's first line). They are read from there only:
// nothing from a report comes before the title, and no report text in the
// body holds "<!--" (codeCell), so no report can forge one; and a body cut to
// GitHub's limit loses its end, never its start.

// stateLine is the hidden line of the dashboard that records its State.
func stateLine(state string) string { return "<!-- pinbot:fleet-state " + state + " -->" }

// StateOf returns the State a dashboard's Markdown (or issue body) records,
// or "".
func StateOf(markdown string) string { return record(markdown, "fleet-state") }

// NotifiedLine is the hidden line by which the dashboard issue records the
// state Slack was last told of.
func NotifiedLine(state string) string { return "<!-- pinbot:fleet-notified " + state + " -->" }

// NotifiedOf returns the state an issue body says Slack was told of, or "".
func NotifiedOf(body string) string { return record(body, "fleet-notified") }

// record returns the state the hidden record kind holds among the hidden
// lines ("<!-- pinbot:... -->") body starts with, or "".
func record(body, kind string) string {
	for line := range strings.Lines(body) {
		line = strings.TrimRight(line, "\r\n")
		rest, ok := strings.CutPrefix(line, "<!-- pinbot:")
		if !ok || !strings.HasSuffix(rest, " -->") {
			return ""
		}
		if v, ok := strings.CutPrefix(strings.TrimSuffix(rest, " -->"), kind+" "); ok {
			if isState(v) {
				return v
			}
			return ""
		}
	}
	return ""
}

// isState reports whether s is a State: 16 lower-case hex digits.
func isState(s string) bool {
	if len(s) != 16 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// Title is the dashboard's heading and the issue's title.
func (d *Dashboard) Title() string {
	if len(d.Owners) == 1 {
		return "pinbot: the fleet of " + d.Owners[0]
	}
	return "pinbot: the fleet"
}

// Markdown writes the dashboard: its hidden state line, then per package
// the newest release, the counts, a table of the repositories that need a
// look (bumped, blocked, held, in error) with their pull requests and why,
// the current ones named in a line, and a Mermaid chart of how far each
// lagging repository's caps are behind. Text from the reports is escaped
// (internal/escape), so it cannot form links, mentions, HTML or Mermaid
// syntax; names are validated by Parse.
func (d *Dashboard) Markdown(w io.Writer) error {
	return d.render(w, view{rows: -1, requests: true})
}

// Body returns the dashboard issue's body: the hidden record that Slack was
// told of the state notified (none for ""), then the dashboard without the
// run's count of GitHub requests, which changes from run to run when
// nothing else does and would rewrite the issue for nothing. When that is
// longer than max bytes, each table shows as many of its first rows as fit
// (the same number for every table) and says how many it left out; the
// records come first, where no cut reaches them.
func (d *Dashboard) Body(notified string, max int) string {
	head := ""
	if notified != "" {
		head = NotifiedLine(notified) + "\n"
	}
	body := func(rows int) string {
		var b strings.Builder
		b.WriteString(head)
		d.render(&b, view{rows: rows}) // a strings.Builder does not fail
		return b.String()
	}
	if full := body(-1); len(full) <= max {
		return full
	}
	// The most rows that fit: a body grows with its rows. With none that
	// fits, SyncIssue cuts the body's end.
	lo, hi := 0, d.longest()-1
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if len(body(mid)) <= max {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return body(lo)
}

// longest returns the most rows of any of the dashboard's tables and lists
// of current repositories.
func (d *Dashboard) longest() int {
	n := len(d.Problems)
	for _, p := range d.Packages {
		n = max(n, p.rows(), min(len(p.ByStatus["current"]), MaxCurrentNames))
	}
	return n
}

// rows returns how many rows the package's longest table has: a row for
// each repository but the current ones, or one for each repository with a
// nightly checked.
func (p Package) rows() int {
	n := 0
	for s, es := range p.ByStatus {
		if s != "current" {
			n += len(es)
		}
	}
	return max(n, len(p.nightlyEntries()))
}

// A view is how much of the dashboard a rendering shows.
type view struct {
	// rows is the most rows each table shows and the most repositories
	// each list of current ones names (at most MaxCurrentNames); < 0 for
	// all of them.
	rows int
	// requests shows the reports' count of GitHub requests.
	requests bool
}

// shown returns how many of n rows v shows.
func (v view) shown(n int) int {
	if v.rows >= 0 {
		return min(n, v.rows)
	}
	return n
}

// leftOut says, after a table, how many of its rows a view left out.
func leftOut(ew *errw.Writer, n int) {
	if n > 0 {
		ew.Printf("\n…and %s, left out to fit GitHub's limit on an issue's length (the workflow run's log and step summary show them all).\n",
			count(n, "more row", "more rows"))
	}
}

func (d *Dashboard) render(w io.Writer, v view) error {
	ew := errw.New(w)
	ew.Printf("%s\n# %s\n\n", stateLine(d.State()), d.Title())
	ew.Printf("%s, %s", count(d.Repositories, "repository", "repositories"), count(len(d.Packages), "package", "packages"))
	if v.requests {
		ew.Printf(", %s", count(d.APIRequests, "GitHub API request", "GitHub API requests"))
	}
	ew.Printf(".\n")
	if len(d.Packages) == 0 {
		ew.Printf("\nNo report found pins of a watched package.\n")
	}
	single := len(d.Owners) == 1
	for _, p := range d.Packages {
		ew.Printf("\n## %s %s\n\n**%s**\n", mdName(p.Name), orDash(p.Newest), p.Counts(true))
		var rows []Entry
		var rowStatus []string
		for _, s := range p.statuses() {
			if s == "current" {
				continue
			}
			for _, e := range p.ByStatus[s] {
				rows, rowStatus = append(rows, e), append(rowStatus, s)
			}
		}
		if len(rows) > 0 {
			shown := v.shown(len(rows))
			ew.Printf("\n| repository | status | caps admit | behind | pull request | why |\n|---|---|---|---|---|---|\n")
			for i, e := range rows[:shown] {
				ew.Printf("| %s | %s | %s | %d | %s | %s |\n", mdName(e.Repository), word(rowStatus[i]), orDash(e.Admits), e.Behind, d.pullCell(e), codeCell(e.Why))
			}
			leftOut(ew, len(rows)-shown)
		}
		if cur := p.ByStatus["current"]; len(cur) > 0 {
			shown := min(v.shown(len(cur)), MaxCurrentNames)
			var names []string
			for _, e := range cur[:shown] {
				names = append(names, mdName(e.Repository))
			}
			if shown < len(cur) {
				names = append(names, fmt.Sprintf("…and %d more", len(cur)-shown))
			}
			ew.Printf("\nCurrent: %s.\n", strings.Join(names, ", "))
		}
		nightlies(ew, p, v)
		chart(ew, p, single)
	}
	if len(d.Problems) > 0 {
		shown := v.shown(len(d.Problems))
		ew.Printf("\n## Errors\n\n| repository | error |\n|---|---|\n")
		for _, pr := range d.Problems[:shown] {
			ew.Printf("| %s | %s |\n", mdName(pr.Repository), codeCell(pr.Text))
		}
		leftOut(ew, len(d.Problems)-shown)
	}
	return ew.Err
}

// nightlyOrder puts the nightlies that want a look first.
var nightlyOrder = map[string]int{"blocked": 0, "warning": 1, "ok": 2}

// nightlyEntries are the package's repositories with a nightly checked,
// blocked first, then undecided, then passing, each by repository.
func (p Package) nightlyEntries() []Entry {
	var out []Entry
	for _, s := range p.statuses() {
		for _, e := range p.ByStatus[s] {
			if e.Nightly != nil {
				out = append(out, e)
			}
		}
	}
	slices.SortStableFunc(out, func(a, b Entry) int {
		rank := func(e Entry) int {
			if r, ok := nightlyOrder[e.Nightly.Verdict]; ok {
				return r
			}
			return len(nightlyOrder)
		}
		return cmp.Or(cmp.Compare(rank(a), rank(b)), strings.Compare(a.Repository, b.Repository))
	})
	return out
}

// nightlies writes the table of the package's nightly builds across the
// fleet: each repository's build, its verdict and since when it holds.
func nightlies(ew *errw.Writer, p Package, v view) {
	es := p.nightlyEntries()
	if len(es) == 0 {
		return
	}
	shown := v.shown(len(es))
	ew.Printf("\nNightly builds:\n\n| repository | nightly | verdict | first failing | last passing | why |\n|---|---|---|---|---|---|\n")
	for _, e := range es[:shown] {
		n := e.Nightly
		build := func(b *report.NightlyBuild) string {
			if b == nil {
				return "–"
			}
			return codeCell(b.Version)
		}
		why := ""
		if n.Verdict != "ok" {
			why = n.Reason
		}
		ew.Printf("| %s | %s | %s | %s | %s | %s |\n", mdName(e.Repository), codeCell(n.Version+" ("+n.Source+")"), codeCell(n.Verdict),
			build(n.FirstFailing), build(n.LastPassing), codeCell(why))
	}
	leftOut(ew, len(es)-shown)
}

// chart writes the Mermaid bar chart of the package's lagging repositories,
// most lagging first.
func chart(ew *errw.Writer, p Package, short bool) {
	var lag []Entry
	for _, s := range p.statuses() {
		for _, e := range p.ByStatus[s] {
			if e.Behind > 0 {
				lag = append(lag, e)
			}
		}
	}
	if len(lag) == 0 {
		ew.Printf("\nEvery repository's caps admit %s.\n", orDash(p.Newest))
		return
	}
	slices.SortStableFunc(lag, func(a, b Entry) int {
		return cmp.Or(cmp.Compare(b.Behind, a.Behind), strings.Compare(a.Repository, b.Repository))
	})
	more := 0
	if len(lag) > MaxChartBars {
		lag, more = lag[:MaxChartBars], len(lag)-MaxChartBars
	}
	var labels, bars []string
	top := 0
	for _, e := range lag {
		name := e.Repository
		if short {
			_, name, _ = strings.Cut(name, "/")
		}
		labels = append(labels, `"`+name+`"`)
		bars = append(bars, fmt.Sprint(e.Behind))
		top = max(top, e.Behind)
	}
	ew.Printf("\nHow far the caps lag %s (releases behind):\n\n```mermaid\nxychart-beta\n    title \"%s: releases behind %s\"\n", orDash(p.Newest), p.Name, orDash(p.Newest))
	ew.Printf("    x-axis [%s]\n    y-axis \"releases behind\" 0 --> %d\n    bar [%s]\n```\n", strings.Join(labels, ", "), top, strings.Join(bars, ", "))
	if more > 0 {
		ew.Printf("\n…and %d more lagging repositories.\n", more)
	}
}

// pullCell shows an entry's pull request: its number, linked only when the
// report's URL is the repository's own pull request of that number on the
// dashboard's GitHub host. The URL is the report's word: a link to another
// repository, another host or a script would be the dashboard's.
func (d *Dashboard) pullCell(e Entry) string {
	p := e.Pull
	if p == nil || p.Number <= 0 {
		return ""
	}
	text := fmt.Sprintf("#%d", p.Number)
	if p.Draft {
		text += " (draft)"
	}
	if p.Action == "conflict" || p.Action == "closed-respected" {
		text += " " + p.Action
	}
	own := strings.TrimRight(cmp.Or(d.Server, "https://github.com"), "/") + "/" + e.Repository + "/pull/" + strconv.Itoa(p.Number)
	if u, ok := upstream.SafeURL(own); ok && strings.EqualFold(p.URL, own) {
		return "[" + text + "](" + u + ")"
	}
	return esc.Markdown(text)
}

// codeCell puts free text in a table cell as a code span (escape.Code): no
// Markdown, HTML, mention or autolink inside it. It is cut to 300
// characters.
func codeCell(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if s == "" {
		return ""
	}
	if r := []rune(s); len(r) > 300 {
		s = string(r[:299]) + "…"
	}
	// A zero-width space breaks every "<!--": hidden lines are pinbot's
	// records, and no report's text may look like one.
	return strings.ReplaceAll(esc.Code(s), "<!--", "<!-\u200b-")
}

func orDash(s string) string { return cmp.Or(s, "–") }

// count says "1 package", "2 packages".
func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// mdName shows a (validated) repository or package name as text
// (escape.Markdown).
func mdName(s string) string { return esc.Markdown(s) }

// SlackSummary is the fleet's message: a line per package, "numba 0.67.0: 37
// bumped, 3 blocked, 2 held", an alert when a repository is blocked or in
// error.
func (d *Dashboard) SlackSummary(issueURL, runURL string) slack.FleetSummary {
	s := slack.FleetSummary{Fleet: strings.Join(d.Owners, ", "), Repositories: d.Repositories, URL: issueURL, RunURL: runURL}
	for _, p := range d.Packages {
		s.Lines = append(s.Lines, slack.FleetLine{Text: fmt.Sprintf("%s %s: %s", p.Name, orDash(p.Newest), p.Counts(false)),
			Alert: len(p.ByStatus["blocked"])+len(p.ByStatus["error"]) > 0})
	}
	if len(d.Problems) > 0 {
		s.Lines = append(s.Lines, slack.FleetLine{Text: count(len(d.Problems), "error", "errors") + " tied to no package", Alert: true})
	}
	return s
}
