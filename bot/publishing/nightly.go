package publishing

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/pinbot-dev/pinbot/bot/planning/earlywarn"
	"github.com/pinbot-dev/pinbot/bot/publishing/slack"
	"github.com/pinbot-dev/pinbot/bot/publishing/state"
	"github.com/pinbot-dev/pinbot/bot/report"
)

// NightlyWindows fills the window of each nightly in rep (its FirstFailing
// and LastPassing: since when its verdict holds) from what earlier runs saw
// (last, by package: state.Scope.Nightlies), through earlywarn.Window, and
// returns what to remember now. A package with no nightly judged in this
// run (its source did not answer, no build is newer than its target, the
// run checked other packages) keeps what it had when keep says so, so that
// a source down for a week restarts no window; the others are forgotten
// (no longer watched, or naming no nightly source). pinbot run remembers
// the result; pinbot check only reads it.
func NightlyWindows(rep *report.Report, last map[string]state.Nightly, keep func(pkg string) bool) map[string]state.Nightly {
	now := map[string]state.Nightly{}
	for name, m := range last {
		if keep != nil && keep(name) {
			now[name] = m
		}
	}
	for i := range rep.Packages {
		p := &rep.Packages[i]
		if p.Nightly == nil {
			continue
		}
		n := *p.Nightly // the report's value is shared with whoever built it
		var mem *earlywarn.Memory
		if m, ok := last[p.Name]; ok {
			mem = toMemory(m)
		}
		now[p.Name] = fromMemory(earlywarn.Window(mem, &n))
		p.Nightly = &n
	}
	return now
}

func toMemory(m state.Nightly) *earlywarn.Memory {
	return &earlywarn.Memory{Build: report.NightlyBuild{Version: m.Version, Uploaded: m.Uploaded}, Source: m.Source, Judged: m.Judged,
		Verdict: m.Verdict, Failing: m.Failing, FirstFailing: m.FirstFailing, LastPassing: m.LastPassing}
}

func fromMemory(m earlywarn.Memory) state.Nightly {
	return state.Nightly{Version: m.Build.Version, Uploaded: m.Build.Uploaded, Source: m.Source, Judged: m.Judged, Verdict: m.Verdict,
		Failing: m.Failing, FirstFailing: m.FirstFailing, LastPassing: m.LastPassing}
}

// nightlyItems are the message items of the packages' nightlies: each a
// lasting condition ("nightly:numba") whose verdict is the set of failing
// checks, so that Slack hears when the verdict changes (a first failure,
// another set of failing checks, a fix) and never of each day's build. A
// passing nightly is news only after an alerted failure: "passes again".
// alerted is what the last run alerted, last what it saw of the nightlies.
func nightlyItems(pkgs []report.Package, alerted map[string]state.Alert, last map[string]state.Nightly) []slack.Item {
	var items []slack.Item
	for _, p := range pkgs {
		n := p.Nightly
		if n == nil {
			continue
		}
		key := conditionKey("nightly", p.Name)
		switch n.Verdict {
		case earlywarn.Blocked:
			var lines []string
			for _, c := range n.Checks {
				if c.Verdict == earlywarn.Blocked || (c.Verdict == "" && !c.OK) {
					lines = append(lines, fmt.Sprintf("%s %s: %s at %s, %s at %s: %s", c.Kind, c.Name, c.Baseline, cmp.Or(n.Baseline, "no baseline"),
						c.Candidate, n.Version, strings.Join(strings.Fields(c.Detail), " ")))
				}
			}
			lines = append(lines, "No pull request is opened and no cap moves for a nightly build; this is said again when its verdict changes, not for each build.")
			items = append(items, slack.Item{Kind: slack.KindNightly, Title: nightlyTitle(p.Name, *n) + ": " + n.Window() + ": " + n.Reason,
				Detail: strings.Join(lines, "\n"), Package: p.Name, Verdict: "blocked: " + strings.Join(earlywarn.Failing(n.Checks), ", "), Key: key})
		case earlywarn.OK:
			was, ok := alerted[key]
			if !ok || !strings.HasPrefix(was.Verdict, "blocked") {
				continue // it never failed, or its fix was said already
			}
			detail := "The last failing builds fail no check any more."
			if f := last[p.Name].FirstFailing; f != nil {
				detail = "It failed from " + f.Version + " (first failing seen) until the build before this one."
			}
			items = append(items, slack.Item{Kind: slack.KindNightly, Title: p.Name + " nightly passes again on " + n.Version + " (" + n.Source + ")",
				Detail: detail, Package: p.Name, Verdict: "passes", Key: key})
		}
	}
	return items
}

// nightlyTitle names a package's nightly build in a message: "numba
// nightly 0.69.0.dev20261130 (numba/label/dev)".
func nightlyTitle(pkg string, n report.Nightly) string {
	s := pkg + " nightly " + n.Version
	if n.Distribution != "" {
		s += " as " + n.Distribution
	}
	return s + " (" + n.Source + ")"
}

// nightlyUndecided returns, for the alert conditions, whether a nightly
// condition ("nightly:numba") is of a package with no nightly decided in
// this run (none judged: its source did not answer, no build is newer
// than its target; or one the checks could not decide): its last alert is
// kept as it was, so that a week the index is down is not followed by the
// same alert again.
func nightlyUndecided(rep *report.Report) func(key string) bool {
	decided := map[string]bool{}
	for _, p := range rep.Packages {
		if p.Nightly != nil && p.Nightly.Verdict != earlywarn.Warning {
			decided[p.Name] = true
		}
	}
	return func(key string) bool {
		return strings.HasPrefix(key, "nightly:") && !decided[conditionUnit(key)]
	}
}
