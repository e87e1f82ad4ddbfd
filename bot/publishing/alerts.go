package publishing

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/pinbot-dev/pinbot/bot/planning"
	"github.com/pinbot-dev/pinbot/bot/publishing/slack"
	"github.com/pinbot-dev/pinbot/bot/publishing/state"
	"github.com/pinbot-dev/pinbot/bot/report"
)

// alertNews keeps the items worth a message. An item without a Key is news
// by itself (a pull request opened, an error). One with a Key is a
// condition that lasts from run to run (a blocked release, a branch that
// needs a human, a canary that passes, a held package): it is news when the
// last run alerted nothing for it, or another release or verdict (its
// Versions and Verdict), or, with remind > 0, longer than remind ago (then
// it says it is a reminder). alertNews returns the items and what is
// alerted now: for every condition of this run, when it was alerted; and
// the last run's conditions for which kept is true (those of the packages
// a partial run did not check), as they were. A condition of the last run
// that is neither is over, and forgotten: when it comes back, it is news.
func alertNews(items []slack.Item, last map[string]state.Alert, now time.Time, remind time.Duration, kept func(key string) bool) ([]slack.Item, map[string]state.Alert) {
	alerted := map[string]state.Alert{}
	if kept != nil {
		maps.Copy(alerted, last)
		maps.DeleteFunc(alerted, func(key string, _ state.Alert) bool { return !kept(key) })
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

// conditionKey names a lasting condition (slack.Item.Key) by its kind, the
// unit it is about (a package, or a group) and, when a unit may have several
// of the kind, what tells them apart: "failure:numba", "upstream-fixed:numba:probe
// fork-cache". Package and group names hold no ':'.
func conditionKey(kind, unit string, more ...string) string {
	return strings.Join(append([]string{kind, unit}, more...), ":")
}

// conditionUnit is the unit (a package, or a group) a condition's key is
// about.
func conditionUnit(key string) string {
	_, rest, _ := strings.Cut(key, ":")
	unit, _, _ := strings.Cut(rest, ":")
	return unit
}

// uncheckedBy returns, for a partial run (some packages only), whether a
// condition is of a unit the run did not check, whose condition it
// therefore keeps as it was; nil for a run of every package, which keeps
// none of the last run's.
func uncheckedBy(rep *report.Report, partial bool) func(key string) bool {
	if !partial {
		return nil
	}
	checked := map[string]bool{}
	for _, p := range rep.Packages {
		checked[p.Name] = true
	}
	for _, g := range rep.Groups {
		checked[g.Name] = true
	}
	return func(key string) bool { return !checked[conditionUnit(key)] }
}

// heldItem is the message item of a held package: a lasting condition
// ("held:protobuf") about its target, whose verdict says what holds it
// (heldVerdict).
func heldItem(p report.Package) slack.Item {
	return slack.Item{Kind: slack.KindHeld, Title: fmt.Sprintf("%s: held, %s is shut out", p.Name, p.Newest), Detail: p.Hold,
		Package: p.Name, Versions: p.Newest, Verdict: heldVerdict(p), Key: conditionKey("held", p.Name)}
}

// heldVerdict says what holds p, as a verdict: "held: protobuf==5.29.3",
// the pins that shut the target out as they are written, then the causes
// outside its pins (the project's constraints, its group, solve). Another
// pin or another cause is another verdict, alerted again; what does not
// change the hold is left out: where a pin sits (its line moves with any
// edit above it), a resolver's wording, the release the pins admit (a new
// patch under a ~= pin).
func heldVerdict(p report.Package) string {
	var why []string
	for _, pin := range p.Pins {
		if pin.Held {
			why = append(why, pin.Before)
		}
	}
	slices.Sort(why)
	why = slices.Compact(why)
	why = append(why, planning.HoldCauses(p)...)
	if len(why) == 0 {
		return "held"
	}
	return "held: " + strings.Join(why, ", ")
}

// adoptHeld carries over the alert of a package an earlier pinbot alerted
// as held: it recorded the held packages and their targets (Scope.Held) but
// no alert ("held:PKG" in Scope.Alerted), so a package still held at the
// same target would be news again once on upgrading. It is taken as
// alerted at the last run (last.Updated; now when that is unknown): the
// latest moment the alert can have been sent, so a notify.remind reminder
// comes no sooner than the interval after it, and the first run after an
// upgrade reminds only when the last run is that long ago, as a run of
// this version would have.
func adoptHeld(last state.Scope, it slack.Item, now time.Time) {
	if _, ok := last.Alerted[it.Key]; ok || last.Held[it.Package] != it.Versions {
		return
	}
	at := last.Updated
	if at.IsZero() {
		at = now
	}
	last.Alerted[it.Key] = state.Alert{Release: it.Versions, Verdict: it.Verdict, At: at}
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
