package planning

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"

	"github.com/pinbot-dev/pinbot/bot/planning/plan"
	"github.com/pinbot-dev/pinbot/bot/report"
	"github.com/pinbot-dev/pinbot/checks/probe"
	"github.com/pinbot-dev/pinbot/config"
	"github.com/pinbot-dev/pinbot/pins"
	"github.com/pinbot-dev/pinbot/pins/pep508"
	"github.com/pinbot-dev/pinbot/versions/pep440"
)

// requirementPin reports whether a pin is one of the project's own Python
// requirements a resolver can be given: a PEP 508 requirement (not a
// Poetry or pixi table entry), needed to run the project (not to build
// it), that pinbot reads whole (not templated, not a direct URL).
func requirementPin(p pins.Pin) bool {
	if p.Source != "pypi" || !projectPin(p) {
		return false
	}
	r, err := pep508.Parse(p.Text)
	return err == nil && r.URL == ""
}

// projectPin says whether p is one of the project's requirements that probe
// constraints and solve read: a PEP 440 pin pinbot could read, not a build.
// Check keeps only these of every pin file.
func projectPin(p pins.Pin) bool {
	return p.Scheme == pep440.Name && !p.Build && p.Skip == ""
}

// solveAll asks a real resolver, for each package (or group) with solve
// on whose caps move, whether the project's own requirements (the
// requirementPins of project, every pin of its pin files) resolve with
// the new caps, and what it
// picks (probe.Resolve, in the probe interpreter). When they do not, but
// do as written, the new caps are what breaks them: the package is held,
// nothing moves. A resolver that cannot be asked, or requirements that do
// not resolve even as written, are warnings: the caps move as planned.
func (c *Checker) solveAll(ctx context.Context, log *slog.Logger, plans []plan.Plan, project []pins.Pin, g *groupRun) (map[string]*report.Solve, []string) {
	var reqs []pins.Pin
	requirements := func() []pins.Pin { // only when a package solves: most runs do not
		if reqs == nil {
			reqs = []pins.Pin{}
			for _, p := range project {
				if requirementPin(p) {
					p.Package = config.Key(p.Package)
					reqs = append(reqs, p)
				}
			}
		}
		return reqs
	}
	out := map[string]*report.Solve{}
	var warnings []string
	done := map[string]bool{}
	for i := range plans {
		p := &plans[i]
		unit := []string{p.Name}
		if name := g.of[p.Name]; name != "" {
			if done[name] {
				continue
			}
			unit = g.members[name]
		}
		if !slices.ContainsFunc(unit, c.Config.SolveFor) || !slices.ContainsFunc(unit, func(m string) bool { return planOf(plans, m).Status == plan.Bump }) {
			continue
		}
		if name := g.of[p.Name]; name != "" {
			done[name] = true
		}
		s, warning := c.solve(ctx, log, plans, requirements(), unit)
		if warning != "" {
			warnings = append(warnings, strings.Join(unit, ", ")+": "+warning)
		}
		for _, m := range unit {
			out[m] = s
		}
	}
	return out, warnings
}

// heldBySolve starts the hold of the packages whose new caps the project's
// requirements do not resolve with (heldVerdict looks for it).
const heldBySolve = "solve: the project's requirements resolve as written but not with the new caps"

// planOf returns the plan of a package.
func planOf(plans []plan.Plan, name string) *plan.Plan {
	for i := range plans {
		if plans[i].Name == name {
			return &plans[i]
		}
	}
	return &plan.Plan{}
}

// solve resolves the project's requirements with the new caps of unit's
// packages, and as written when that fails; it holds the unit when only
// the new caps fail, and returns the outcome and a warning, if any.
func (c *Checker) solve(ctx context.Context, log *slog.Logger, plans []plan.Plan, reqs []pins.Pin, unit []string) (*report.Solve, string) {
	resolve := func(ctx context.Context, reqs []string) (*probe.Resolution, error) {
		if c.Verifier == nil {
			return probe.Resolve(ctx, probe.Options{}, reqs)
		}
		return c.Verifier.Resolve(ctx, reqs)
	}
	after, before := requirementLines(plans, reqs, unit)
	log.Info("asking a resolver", "packages", unit, "requirements", len(after))
	res, err := resolve(ctx, after)
	var ue *probe.UnresolvableError
	switch {
	case err == nil:
		s := &report.Solve{OK: true, Resolver: res.Resolver, Picked: map[string]string{}}
		var picks []string
		for _, d := range res.Picked {
			s.Picked[config.Key(d.Name)] = d.Version
		}
		for _, m := range unit {
			p := planOf(plans, m)
			got := s.Picked[m]
			switch {
			case got == "":
				picks = append(picks, m+" not at all")
			case c.Schemes["pep440"].Compare(got, p.Target) != 0 && p.Target != "":
				picks = append(picks, fmt.Sprintf("%s %s, not the target %s (another requirement holds it back)", m, got, p.Target))
			default:
				picks = append(picks, m+" "+got)
			}
		}
		s.Detail = fmt.Sprintf("the project's requirements resolve with the new caps (%d distributions); %s picks %s", len(res.Picked), res.Resolver, strings.Join(picks, ", "))
		return s, ""
	case errors.As(err, &ue):
		_, errBefore := resolve(ctx, before)
		if errors.As(errBefore, new(*probe.UnresolvableError)) {
			s := &report.Solve{Resolver: ue.Resolver, Detail: "the project's requirements do not resolve, with the new caps or without: " + ue.Message}
			return s, s.Detail
		}
		if errBefore != nil {
			s := &report.Solve{Resolver: ue.Resolver, Detail: "the project's requirements do not resolve with the new caps (" + ue.Message + "); whether they do as written is unknown: " + errBefore.Error()}
			return s, s.Detail
		}
		reason := fmt.Sprintf(heldBySolve+" of %s (%s: %s)", strings.Join(unit, " and "), ue.Resolver, ue.Message)
		for _, m := range unit {
			planOf(plans, m).HoldAll(reason)
		}
		return &report.Solve{Resolver: ue.Resolver, Detail: reason}, ""
	}
	s := &report.Solve{Detail: "no resolver could be asked: " + err.Error()}
	return s, s.Detail
}

// requirementLines returns the project's requirements with the new caps of
// unit's packages (after) and as written (before), each once, in file
// order.
func requirementLines(plans []plan.Plan, reqs []pins.Pin, unit []string) (after, before []string) {
	add := func(list []string, s string) []string {
		if !slices.Contains(list, s) {
			list = append(list, s)
		}
		return list
	}
	for _, r := range reqs {
		text := r.Text
		if slices.Contains(unit, r.Package) {
			for _, pp := range planOf(plans, r.Package).Pins {
				if pp.Pin.File == r.File && pp.Pin.Line == r.Line && pp.Pin.Key == r.Key && pp.Changed {
					text = pp.Pin.With(pp.New)
				}
			}
		}
		after = add(after, strings.TrimSpace(text))
		before = add(before, strings.TrimSpace(r.Text))
	}
	return after, before
}
