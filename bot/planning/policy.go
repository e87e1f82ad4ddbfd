package planning

import (
	"fmt"
	"strings"

	"github.com/pinbot-dev/pinbot/bot/planning/plan"
	"github.com/pinbot-dev/pinbot/bot/report"
	"github.com/pinbot-dev/pinbot/config"
)

// planPackage returns what the planner needs to know of a watched package:
// its cap policy, pre-release, unify and yanked settings (nil: defaults).
func planPackage(name string, settings *config.Package) plan.Package {
	pkg := plan.Package{Name: name, Policy: settings.Policy()}
	if settings != nil {
		pkg.Prereleases = settings.Prereleases
		pkg.Unify = settings.Unify
		pkg.FollowYanked = settings.Yanked == "follow"
	}
	return pkg
}

// reportDrift turns the plan's drift into the report's.
func reportDrift(ds []plan.Drift) []report.Drift {
	var out []report.Drift
	for _, d := range ds {
		rd := report.Drift{Lower: d.Lower, Upper: d.Upper, Marker: d.Marker}
		for _, p := range d.Pins {
			rd.Pins = append(rd.Pins, fmt.Sprintf("%s:%d", p.File, p.Line))
		}
		out = append(out, rd)
	}
	return out
}

// HoldCauses names what outside its own pins holds a package, from the hold
// planning wrote (report.Package.Hold), in a fixed order: "the project's
// constraints", "group NAME", "solve".
func HoldCauses(p report.Package) []string {
	var why []string
	if strings.Contains(p.Hold, heldByConstraints) {
		why = append(why, "the project's constraints")
	}
	if p.Group != "" && strings.Contains(p.Hold, groupHold(p.Group, "")) {
		why = append(why, "group "+p.Group)
	}
	if strings.Contains(p.Hold, heldBySolve) {
		why = append(why, "solve")
	}
	return why
}
