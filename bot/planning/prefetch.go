package planning

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"

	"github.com/pinbot-dev/pinbot/bot/planning/plan"
	"github.com/pinbot-dev/pinbot/bot/verifying"
	"github.com/pinbot-dev/pinbot/pins"
	"github.com/pinbot-dev/pinbot/sources"
	"github.com/pinbot-dev/pinbot/versions/pep440"
)

// Prefetch does, once for a fleet, the downloads every repository's check
// would repeat. For each watched package that asks for checks, it plans the
// release a pin with no cap following PyPI would move to (the sources, the
// gates and the cap strategy of the configuration, as for any pin; a
// group's members together, as a check plans them: planGroups), and
// fetches into the Verifier's artifact store the files the checks of that
// release read: the wheel a static probe reads, the wheel a dynamic probe
// installs (which pip then takes from the store, probe.LocalWheel), the
// wheels it installs beside it (the other members of its group at their
// targets, whether or not they have checks of their own), and the wheels a
// symbol scan reads (the candidate's and its against packages'). Check
// jobs that share the store then find them there. Baseline releases depend
// on each repository's pins and are not fetched. A package whose target
// cannot be planned or fetched is an error in the joined error; the others
// are still fetched.
func (c *Checker) Prefetch(ctx context.Context) ([]verifying.Prefetched, error) {
	log := c.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if c.Verifier == nil {
		return nil, errors.New("planning: Prefetch needs a Verifier")
	}
	watched := c.watched(nil)
	byPkg := map[string][]pins.Pin{}
	pin := func(name string) {
		byPkg[name] = []pins.Pin{{File: "(fleet defaults)", Package: name, Text: name, Source: "pypi", Scheme: pep440.Name}}
	}
	var names []string // the packages whose checks' files are fetched
	for name, settings := range watched {
		if settings.HasChecks() {
			names = append(names, name)
			pin(name)
			// Its group moves with it: the other members' targets are
			// installed beside it.
			_, members := c.Config.GroupOf(name)
			for _, m := range members {
				if _, ok := watched[m]; ok {
					pin(m)
				}
			}
		}
	}
	slices.Sort(names)
	all := slices.Sorted(maps.Keys(byPkg))
	lookups := c.lookup(ctx, log, all, byPkg)
	plans := make([]plan.Plan, len(all))
	pkgs := make([]plan.Package, len(all))
	for i, name := range all {
		pkgs[i] = planPackage(name, watched[name])
		pkgs[i].Gate = c.gate(watched[name])
		plans[i] = plan.Make(pkgs[i], byPkg[name], lookups[name], c.Schemes)
	}
	groups := groupsOf(c.Config, all)
	c.planGroups(ctx, log, groups, plans, pkgs, byPkg, lookups, watched)
	planned := &installed{plans: map[string]*plan.Plan{}, schemes: c.Schemes}
	together := groups.together(plans)
	targets := map[string]sources.Release{}
	var errs []error
	for i, name := range all {
		p := &plans[i]
		if !slices.Contains(names, name) {
			planned.plans[name] = p // a member without checks: installed beside the others
			continue
		}
		if p.Target == "" {
			errs = append(errs, fmt.Errorf("%s: %w", name, p.Err))
			continue
		}
		rs, err := c.pypiReleases(ctx, name, lookups[name])
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", name, err))
			continue
		}
		r, ok := verifying.FindRelease(pep440.Scheme{}, verifying.Acceptable(pep440.Scheme{}, rs, pkgs[i].Prereleases), p.Target)
		if !ok {
			errs = append(errs, fmt.Errorf("%s %s is not an installable release on PyPI, where the checks get it", name, p.Target))
			continue
		}
		planned.plans[name], targets[name] = p, r
	}
	var out []verifying.Prefetched
	seen := map[string]bool{}
	for _, name := range names {
		r, ok := targets[name]
		if !ok {
			continue
		}
		req := verifying.Request{Package: name, Settings: watched[name], Candidates: []sources.Release{r},
			With: c.besides(ctx, together[name], lookups), Installs: planned.version}
		got, err := c.Verifier.Prefetch(ctx, req)
		for _, g := range got {
			if !seen[g.Path] {
				seen[g.Path] = true
				out = append(out, g)
			}
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("%s %s: %w", name, r.Version, err))
		}
	}
	if ctx.Err() != nil {
		return out, ctx.Err()
	}
	return out, errors.Join(errs...)
}
