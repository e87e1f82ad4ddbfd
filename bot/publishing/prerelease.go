package publishing

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/pinbot-dev/pinbot/bot/planning/earlywarn"
	"github.com/pinbot-dev/pinbot/bot/publishing/slack"
	"github.com/pinbot-dev/pinbot/bot/report"
)

// prereleaseNews returns the early warnings worth a message, one per package whose
// pre-release is blocked and was not announced yet, and what to remember
// for the next run: each package's announced pre-release. announced maps a
// package to the pre-release last announced. A package with no pre-release
// to check any more (the final release shipped) is forgotten; with partial
// (the run checked only some packages) the others are kept as they were.
func prereleaseNews(pkgs []report.Package, announced map[string]string, partial bool) ([]slack.Item, map[string]string) {
	now := maps.Clone(announced)
	if now == nil {
		now = map[string]string{}
	}
	if !partial {
		for name := range now {
			if !slices.ContainsFunc(pkgs, func(p report.Package) bool { return p.Name == name }) {
				delete(now, name)
			}
		}
	}
	var items []slack.Item
	for _, p := range pkgs {
		pr := p.Prerelease
		switch {
		case pr == nil:
			if p.Status != "error" {
				delete(now, p.Name)
			}
		case pr.Verdict == earlywarn.Blocked && now[p.Name] != pr.Version:
			now[p.Name] = pr.Version
			items = append(items, prereleaseItem(p.Name, *pr))
		}
	}
	return items, now
}

// prereleaseItem is the Slack message item of a blocked pre-release: the failing
// checks in its title, each check's evidence in its detail.
func prereleaseItem(pkg string, pr report.Prerelease) slack.Item {
	var lines []string
	for _, c := range pr.Checks {
		if c.Verdict == earlywarn.Blocked || (c.Verdict == "" && !c.OK) {
			lines = append(lines, fmt.Sprintf("%s %s: %s at %s, %s at %s: %s", c.Kind, c.Name, c.Baseline, cmp.Or(pr.Baseline, "no baseline"), c.Candidate, pr.Version, strings.Join(strings.Fields(c.Detail), " ")))
		}
	}
	lines = append(lines, "Found on "+pr.Source+". No pull request is opened and no cap moves for a pre-release; this is said once.")
	return slack.Item{Kind: slack.KindEarlyWarning, Title: pkg + " " + pr.Version + " " + pr.Reason, Detail: strings.Join(lines, "\n")}
}
