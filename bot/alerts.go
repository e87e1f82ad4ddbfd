package bot

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/pinbot-dev/pinbot/bot/report"
	"github.com/pinbot-dev/pinbot/bot/slack"
	"github.com/pinbot-dev/pinbot/bot/state"
)

// alertNews keeps the items worth a message. An item without a Key is news
// by itself (a pull request opened, an error). One with a Key is a
// condition that lasts from run to run (a blocked release, a branch that
// needs a human, a canary that passes): it is news when the last run
// alerted nothing for it, or another release or verdict (its Versions and
// Verdict), or, with remind > 0, longer than remind ago (then it says it is
// a reminder). alertNews returns the items and what is alerted now: for
// every condition of this run, when it was alerted; with partial (some
// packages only), the last run's other conditions too.
func alertNews(items []slack.Item, last map[string]state.Alert, now time.Time, remind time.Duration, partial bool) ([]slack.Item, map[string]state.Alert) {
	alerted := map[string]state.Alert{}
	if partial {
		alerted = maps.Clone(last)
	}
	var out []slack.Item
	for _, it := range items {
		if it.Key == "" {
			out = append(out, it)
			continue
		}
		was, ok := last[it.Key]
		same := ok && was.Release == it.Versions && was.Verdict == it.Verdict
		due := same && remind > 0 && now.Sub(was.At) >= remind
		if same && !due {
			alerted[it.Key] = was
			continue
		}
		if due {
			it.Detail = strings.TrimSpace(fmt.Sprintf("Reminder: unchanged since it was alerted on %s.\n%s", was.At.UTC().Format(time.DateOnly), it.Detail))
		}
		alerted[it.Key] = state.Alert{Release: it.Versions, Verdict: it.Verdict, At: now}
		out = append(out, it)
	}
	return out, alerted
}

// blockedAt returns the release a blocked package's checks failed at and
// the baseline they passed at, from its verdicts ("" when unknown).
func blockedAt(p report.Package) (candidate, baseline string) {
	for _, v := range p.Verdicts {
		if v.Blocked {
			return v.Version, v.Baseline
		}
	}
	return "", ""
}

// outcome says what a check's outcome at a release ("pass", "fail",
// "unknown") was, in words: "fails at 0.68.0".
func outcome(o, version string) string {
	words := map[string]string{"pass": "passes", "fail": "fails", "unknown": "is undecided"}
	w, ok := words[o]
	if !ok {
		return o // not an outcome pinbot knows: as it is
	}
	if version == "" {
		return w
	}
	return w + " at " + version
}

// failedVerdict names the failed checks of ps as a verdict: "blocked:
// probe unique-ids, symbols libfoo.so". Another set of failed checks is
// another verdict, alerted again.
func failedVerdict(ps []report.Package) string {
	var names []string
	for _, p := range ps {
		for _, c := range p.Checks {
			if !c.OK {
				names = append(names, c.Kind+" "+c.Name)
			}
		}
	}
	slices.Sort(names)
	return "blocked: " + strings.Join(slices.Compact(names), ", ")
}
