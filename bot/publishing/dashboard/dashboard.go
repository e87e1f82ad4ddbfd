// Package dashboard renders a repository's pin dashboard: the one GitHub
// issue pinbot run keeps up to date in place (found again by its hidden
// marker through bot/publishing/github's SyncIssue, and rewritten only
// when it would say something new: Same), whose Markdown also goes to the
// Actions step summary. It lists every watched package: each pin
// (file:line and constraint), the target per source, the status, each
// check's verdict with its evidence, the pull request, the early warning,
// and what changed since the last run.
//
// A package's own section is report.PackageMarkdown, the Markdown report's,
// so that whatever the report shows of a package (its checks, its early
// warning, what its cap holds back) the dashboard shows too, decided in one
// place. This package adds what only a run knows: the pull requests, the
// overview and the changes, computed from what the last run saw
// (bot/publishing/state), which the issue itself also carries in a hidden line for
// runs that keep no cache.
//
// It belongs to bot/publishing; of bot it imports only bot/report and its
// siblings bot/publishing/state and bot/publishing/upstream.
package dashboard

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/pinbot-dev/pinbot/bot/publishing/state"
	"github.com/pinbot-dev/pinbot/bot/publishing/upstream"
	"github.com/pinbot-dev/pinbot/bot/report"
	"github.com/pinbot-dev/pinbot/internal/errw"
	esc "github.com/pinbot-dev/pinbot/internal/escape"
)

// A Pull is a package's pull request, as the run left it.
type Pull struct {
	Number int
	URL    string
	Draft  bool
	// Action is what the run did to it (opened, updated, unchanged,
	// conflict, closed-respected); the dashboard shows the lasting ones
	// (lasting).
	Action string
}

// lasting are the pull request actions the dashboard shows: what stays so
// until a person acts (pinbot leaves the branch, or the closed pull
// request, alone). What one run did (opened, updated, unchanged) is that
// run's news, which the changes and the Slack message carry; shown here,
// it would change the dashboard on every run.
var lasting = map[string]bool{"conflict": true, "closed-respected": true}

// A Dashboard is everything one repository's dashboard shows.
type Dashboard struct {
	// Repo ("owner/name") and Base name what the dashboard is of.
	Repo, Base string
	// RunURL links the workflow run, if any.
	RunURL string
	// Time is when the run ran.
	Time   time.Time
	Report *report.Report
	// Pulls are the packages' pull requests, by package name.
	Pulls map[string]Pull
	// Last is what the last run saw (its SeenAt is zero when no run is
	// recorded).
	Last state.Scope
}

// Marker returns the issue marker of base's dashboard: one dashboard per
// repository and base branch. Branch names are folded to the marker's
// alphabet (lower case; other characters become '-').
func Marker(base string) string {
	b := []byte(strings.ToLower(base))
	for i, c := range b {
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '.' || c == '_' || c == '/' || c == '-') {
			b[i] = '-'
		}
	}
	if len(b) > 80 {
		b = b[:80]
	}
	return "dashboard/" + strings.Trim(string(b), "/")
}

// Seen returns what the dashboard shows of each package, to remember for
// the next run's changes.
func (d *Dashboard) Seen() map[string]state.Seen {
	out := map[string]state.Seen{}
	for _, p := range d.Report.Packages {
		s := state.Seen{Status: p.Status, Target: p.Newest, Pull: d.Pulls[p.Name].Number}
		if pr := p.Prerelease; pr != nil {
			s.Prerelease, s.PrereleaseVerdict = pr.Version, pr.Verdict
		}
		switch n := p.Nightly; {
		case n != nil && n.Verdict != "warning":
			s.NightlyVerdict = n.Verdict
		case n != nil || p.NightlyUnseen != nil:
			// Undecided (the checks could not tell, or the source did not
			// answer): the last run's verdict stands, so that the next
			// verdict decided is compared with the last one decided.
			s.NightlyVerdict = d.Last.Seen[p.Name].NightlyVerdict
			if s.NightlyVerdict == "" && n != nil {
				s.NightlyVerdict = n.Verdict
			}
		}
		out[p.Name] = s
	}
	return out
}

// Changes says what changed since the last run, one line per change, in
// package order; nil when nothing did (or no run is recorded).
func (d *Dashboard) Changes() []string {
	if d.Last.SeenAt.IsZero() {
		return nil
	}
	now := d.Seen()
	gated := map[string]bool{} // packages whose pre-releases the gates hold back
	nightlies := map[string]*report.Nightly{}
	for _, p := range d.Report.Packages {
		gated[p.Name] = len(p.PrereleaseSkipped) > 0
		nightlies[p.Name] = p.Nightly
	}
	var out []string
	for _, name := range slices.Sorted(maps.Keys(now)) {
		n, ok := d.Last.Seen[name]
		s := now[name]
		if !ok {
			out = append(out, fmt.Sprintf("%s: newly watched: %s%s", name, s.Status, target(s.Target)))
			continue
		}
		if n.Status != s.Status {
			out = append(out, fmt.Sprintf("%s: %s → %s%s", name, n.Status, s.Status, target(s.Target)))
		} else if n.Target != s.Target {
			out = append(out, fmt.Sprintf("%s: target %s → %s", name, cmp.Or(n.Target, "none"), cmp.Or(s.Target, "none")))
		}
		if s.Pull != 0 && s.Pull != n.Pull {
			out = append(out, fmt.Sprintf("%s: pull request #%d", name, s.Pull))
		}
		switch {
		case s.Prerelease != "" && (s.Prerelease != n.Prerelease || s.PrereleaseVerdict != n.PrereleaseVerdict):
			out = append(out, fmt.Sprintf("%s: early warning on %s: %s", name, s.Prerelease, s.PrereleaseVerdict))
		case s.Prerelease == "" && n.Prerelease != "" && gated[name]:
			out = append(out, fmt.Sprintf("%s: no pre-release newer than the target passes the package's gates", name))
		case s.Prerelease == "" && n.Prerelease != "":
			out = append(out, fmt.Sprintf("%s: no pre-release newer than the target any more", name))
		}
		if s.NightlyVerdict != n.NightlyVerdict {
			out = append(out, name+": "+nightlyChange(nightlies[name], cmp.Or(n.NightlyVerdict, "none checked")))
		}
	}
	for _, name := range slices.Sorted(maps.Keys(d.Last.Seen)) {
		if _, ok := now[name]; !ok {
			out = append(out, name+": no longer reported (not watched, or no pin found)")
		}
	}
	return out
}

func target(t string) string {
	if t == "" {
		return ""
	}
	return " (target " + t + ")"
}

// stateLine is the hidden line of the body that carries the state
// the run leaves (state.Encode), first in the body so that cutting a long
// body to GitHub's limit never cuts it.
func stateLine(sc state.Scope) string { return "<!-- pinbot:state " + state.Encode(sc) + " -->" }

// stateRE finds stateLine in a body, compiled when first used: only a run
// that keeps a dashboard needs it.
var stateRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^<!-- pinbot:state ([A-Za-z0-9+/]*) -->$`) })

// Recorded returns the state a dashboard issue's body carries; ok is false
// when it carries none that reads. The body is anyone's with write access
// to the issue: a state that does not read is no state.
func Recorded(body string) (sc state.Scope, ok bool) {
	m := stateRE().FindStringSubmatch(body)
	if m == nil {
		return state.Scope{}, false
	}
	sc, err := state.Decode(m[1])
	return sc, err == nil
}

// Body returns the body: the hidden state line with next, the state
// this run leaves, then the Markdown.
func (d *Dashboard) Body(next state.Scope) string {
	var b strings.Builder
	b.WriteString(stateLine(next) + "\n")
	d.Markdown(&b) // a strings.Builder does not fail
	return b.String()
}

// Same reports whether two bodies of the dashboard issue (the one found, and
// the one this run would write) say the same but for what changes with the
// clock alone: the times in the hidden state (state.Scope.Undated), the run
// the dashboard is as of (the header's time and workflow run link), and the
// changes section. That section says what changed since the run before,
// from what each run saw (the state's Seen, which is compared): when that is
// the same, all it could add is that nothing changed since a later run. So a
// run that finds nothing new leaves the issue as it is (github.Issue.Same),
// and one with something new to say, a reminder's time included, rewrites
// it. Bodies are anyone's with write access: what does not read as the
// dashboard's is compared as it is.
func Same(found, want string) bool { return undated(found) == undated(want) }

// asOfRE finds the header's time and workflow run link (header), compiled
// when first used: only a run that keeps a dashboard needs it.
var asOfRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?m) As of the run of \d{4}-\d\d-\d\d \d\d:\d\d UTC(?: \(\[workflow run\]\([^()\s]*\)\))?\.$`)
})

// changesHeading opens the changes section (changes).
const changesHeading = "\n## Changes\n"

// undated is body without what changes with the clock alone (Same).
func undated(body string) string {
	if m := stateRE().FindStringSubmatchIndex(body); m != nil {
		if sc, err := state.Decode(body[m[2]:m[3]]); err == nil {
			body = body[:m[0]] + stateLine(sc.Undated()) + body[m[1]:]
		}
	}
	body = asOfRE().ReplaceAllString(body, "")
	if i := strings.Index(body, changesHeading); i >= 0 {
		end := len(body)
		if j := strings.Index(body[i+len(changesHeading):], "\n## "); j >= 0 {
			end = i + len(changesHeading) + j
		}
		body = body[:i] + body[end:]
	}
	return body
}

// sections are the dashboard's parts, in order. A new part (groups, say) is
// one more function here.
var sections = []func(*errw.Writer, *Dashboard){header, overview, groups, changes, packages, problems}

// Markdown writes the dashboard. Text from the report is escaped
// (internal/escape): names and pins are code spans or plain text, and
// nothing can form a link, a mention or HTML; the only links are the pull
// requests' and the workflow run's, each a plain http(s) URL.
func (d *Dashboard) Markdown(w io.Writer) error {
	ew := errw.New(w)
	for _, s := range sections {
		s(ew, d)
	}
	return ew.Err
}

func header(ew *errw.Writer, d *Dashboard) {
	ew.Printf("pinbot keeps this issue up to date from `pinbot run` of %s (base branch %s): a run that finds something new rewrites it, "+
		"one that finds nothing new leaves it as it is, so write in comments, not here.", esc.Code(d.Repo), esc.Code(d.Base))
	if !d.Time.IsZero() {
		// Same ignores this: asOfRE must match it.
		ew.Printf(" As of the run of %s", d.Time.UTC().Format("2006-01-02 15:04 UTC"))
		if l := link("workflow run", d.RunURL); l != "" {
			ew.Printf(" (%s)", l)
		}
		ew.Printf(".")
	}
	ew.Printf("\n")
}

func overview(ew *errw.Writer, d *Dashboard) {
	ew.Printf("\n## Overview\n\n")
	if len(d.Report.Packages) == 0 {
		ew.Printf("No pins of watched packages found.\n")
		return
	}
	ew.Printf("| Package | Status | Caps admit | Target | Pull request | Early warning |\n|---|---|---|---|---|---|\n")
	for _, p := range d.Report.Packages {
		admits := esc.Markdown(cmp.Or(p.Admits, "–"))
		if p.Behind > 0 {
			admits += fmt.Sprintf(" (%d behind)", p.Behind)
		}
		ew.Printf("| %s | %s | %s | %s | %s | %s |\n", esc.Markdown(p.Name), statusCell(p.Status), admits,
			esc.Markdown(cmp.Or(p.Newest, "–")), pullCell(d.pull(p)), warningCell(p, d.remembered(p)))
	}
}

// pull returns a package's pull request: its own, or its group's, which
// carries every member's caps.
func (d *Dashboard) pull(p report.Package) Pull {
	if pr, ok := d.Pulls[p.Name]; ok || p.Group == "" {
		return pr
	}
	return d.Pulls[p.Group]
}

// groups lists the packages that move together, each group with its one
// status, its consistent targets and its pull request.
func groups(ew *errw.Writer, d *Dashboard) {
	if len(d.Report.Groups) == 0 {
		return
	}
	ew.Printf("\n## Groups\n\n| Group | Status | Targets | Pull request | Why |\n|---|---|---|---|---|\n")
	for _, g := range d.Report.Groups {
		var targets []string
		for _, m := range g.Packages {
			targets = append(targets, esc.Markdown(m+" "+cmp.Or(g.Targets[m], "–")))
		}
		ew.Printf("| %s | %s | %s | %s | %s |\n", esc.Code(g.Name), statusCell(g.Status), strings.Join(targets, ", "),
			pullCell(d.Pulls[g.Name]), esc.Markdown(oneLine(g.Reason)))
	}
}

// statusCell marks the statuses that want a look.
func statusCell(s string) string {
	mark := map[string]string{"bump": "⬆️ ", "blocked": "❌ ", "held": "⏸️ ", "error": "⚠️ ", "current": "✅ "}[s]
	return mark + esc.Markdown(s)
}

// remembered is the nightly the runs remember of p when its nightly source
// did not answer in this run (report.Package.NightlyUnseen): the last build
// judged there, with its verdict and window, as the overview showed it
// then; nil when p has a nightly in this run, or none is remembered of that
// source. Last is anyone's with write access to the issue: it is rendered
// as any outside text is (report.NightlyCell escapes it).
func (d *Dashboard) remembered(p report.Package) *report.Nightly {
	if p.Nightly != nil || p.NightlyUnseen == nil {
		return nil
	}
	m, ok := d.Last.Nightlies[p.Name]
	if !ok || m.Source != p.NightlyUnseen.Source || m.Version == "" {
		return nil
	}
	n := &report.Nightly{Version: m.Version, Uploaded: m.Uploaded, Source: m.Source, Verdict: cmp.Or(m.Judged, m.Verdict, "warning"),
		LastPassing: m.LastPassing}
	if n.Verdict == "blocked" {
		n.FirstFailing = m.FirstFailing
	}
	return n
}

// warningCell shows the early warning's verdict, or, when the package's
// gates held back every pre-release newer than the target, the newest of
// them as not checked; then the nightly's (report.NightlyCell), or, when
// its source did not answer, the one remembered (Dashboard.remembered).
func warningCell(p report.Package, remembered *report.Nightly) string {
	var cells []string
	switch pr := p.Prerelease; {
	case pr != nil:
		mark := map[string]string{"ok": "✅", "blocked": "❌", "warning": "⚠️"}[pr.Verdict]
		cells = append(cells, strings.TrimSpace(mark+" "+esc.Markdown(pr.Version+" "+pr.Verdict)))
	case len(p.PrereleaseSkipped) > 0:
		cells = append(cells, "⏸️ "+esc.Markdown(p.PrereleaseSkipped[0].Version+" not checked (gates)"))
	}
	if n := cmp.Or(p.Nightly, remembered); n != nil {
		cells = append(cells, report.NightlyCell(n))
	}
	return strings.Join(cells, "; ")
}

// nightlyChange says how a package's nightly verdict changed since the
// last run (was): "nightly 0.69.0.dev20261130: blocked (was ok)".
func nightlyChange(n *report.Nightly, was string) string {
	if n == nil {
		return "no nightly build checked in this run (was " + was + ")"
	}
	return "nightly " + n.Version + ": " + n.Verdict + " (was " + was + ")"
}

func changes(ew *errw.Writer, d *Dashboard) {
	ew.Printf("%s\n", changesHeading) // Same ignores the section: from it to the next heading
	if d.Last.SeenAt.IsZero() {
		ew.Printf("No earlier run is recorded: changes are shown from the next run on.\n")
		return
	}
	cs := d.Changes()
	if len(cs) == 0 {
		ew.Printf("Nothing changed since the run of %s.\n", d.Last.SeenAt.UTC().Format("2006-01-02 15:04 UTC"))
		return
	}
	ew.Printf("Since the run of %s:\n\n", d.Last.SeenAt.UTC().Format("2006-01-02 15:04 UTC"))
	for _, c := range cs {
		ew.Printf("- %s\n", esc.Markdown(c))
	}
}

func packages(ew *errw.Writer, d *Dashboard) {
	if len(d.Report.Packages) == 0 {
		return
	}
	ew.Printf("\n## Packages\n")
	for _, p := range d.Report.Packages {
		ew.Printf("\n### %s: %s\n\n", esc.Markdown(p.Name), esc.Markdown(p.Status))
		if pr := d.pull(p); pr.Number > 0 {
			ew.Printf("Pull request: %s", pullCell(pr))
			if lasting[pr.Action] {
				ew.Printf(" (%s)", esc.Markdown(pr.Action))
			}
			ew.Printf("\n\n")
		}
		var b strings.Builder
		report.PackageMarkdown(&b, p) // a strings.Builder does not fail
		ew.Printf("%s\n", strings.TrimRight(b.String(), "\n"))
	}
}

func problems(ew *errw.Writer, d *Dashboard) {
	if len(d.Report.Warnings) > 0 {
		ew.Printf("\n## Warnings\n\n")
		for _, w := range d.Report.Warnings {
			ew.Printf("- %s\n", esc.Markdown(oneLine(w)))
		}
	}
	if len(d.Report.Errors) > 0 {
		ew.Printf("\n## Errors\n\n")
		for _, e := range d.Report.Errors {
			ew.Printf("- %s\n", esc.Markdown(oneLine(e)))
		}
	}
}

// pullCell links a pull request when its URL is a plain http(s) URL.
func pullCell(p Pull) string {
	if p.Number <= 0 {
		return ""
	}
	text := fmt.Sprintf("#%d", p.Number)
	if p.Draft {
		text += " (draft)"
	}
	return cmp.Or(link(text, p.URL), esc.Markdown(text))
}

// link returns a Markdown link to u with text, which must be Markdown
// already, or "" when u is not a link pinbot writes (upstream.SafeURL: the
// one rule for every link in pull requests, Slack and the dashboard; one
// with credentials in it never is).
func link(text, u string) string {
	safe, ok := upstream.SafeURL(u)
	if !ok {
		return ""
	}
	return "[" + text + "](" + safe + ")"
}

func oneLine(s string) string { return strings.ReplaceAll(s, "\n", "; ") }
