package bot

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/pinbot-dev/pinbot/bot/plan"
	"github.com/pinbot-dev/pinbot/config"
	"github.com/pinbot-dev/pinbot/pins"
	"github.com/pinbot-dev/pinbot/sources"
	"github.com/pinbot-dev/pinbot/versions/pep440"
)

// A Prefetched is an artifact Prefetch put in (or found in) the store.
type Prefetched struct {
	Package, Version string
	// File is the artifact's name; Path its place in the store, relative to
	// the store's directory (sha256/XX/DIGEST/NAME).
	File, Path string
}

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
func (c *Checker) Prefetch(ctx context.Context) ([]Prefetched, error) {
	log := c.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if c.Verifier == nil || c.Verifier.Artifacts == nil {
		return nil, errors.New("bot: Prefetch needs a Verifier with an artifact store")
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
	planned := &installed{plans: map[string]*plan.Plan{}, schemes: c.Schemes, with: groups.together(plans), lookups: lookups}
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
		rs, err := c.Verifier.pypiReleases(ctx, name, lookups[name])
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", name, err))
			continue
		}
		r, ok := findRelease(pep440.Scheme{}, acceptable(pep440.Scheme{}, rs, pkgs[i].Prereleases), p.Target)
		if !ok {
			errs = append(errs, fmt.Errorf("%s %s is not an installable release on PyPI, where the checks get it", name, p.Target))
			continue
		}
		planned.plans[name], targets[name] = p, r
	}
	var out []Prefetched
	seen := map[string]bool{}
	for _, name := range names {
		r, ok := targets[name]
		if !ok {
			continue
		}
		got, err := c.Verifier.prefetch(ctx, name, watched[name], r, planned)
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

// prefetch fetches the files the checks of one package read for release r,
// choosing them as the checks do (probeWheel, scanWheel, againstWheel, for
// the wheel target of this Verifier).
func (v *Verifier) prefetch(ctx context.Context, name string, settings *config.Package, r sources.Release, planned *installed) ([]Prefetched, error) {
	var out []Prefetched
	add := func(pkg, version, path string) {
		rel, err := filepath.Rel(v.Artifacts.Dir, path)
		if err != nil {
			rel = path
		}
		out = append(out, Prefetched{Package: pkg, Version: version, File: filepath.Base(path), Path: filepath.ToSlash(rel)})
	}
	if len(settings.Probes) > 0 {
		w, _, err := v.probeWheel(ctx, r, settings)
		if err != nil {
			return out, err
		}
		add(name, r.Version, w.Path)
		// Dynamic probes install the wheel pip picks for the probe
		// interpreter, which a wheel target set for symbol scans may not be.
		if f, ok := v.installWheel(ctx, r); ok {
			p, err := v.Artifacts.Fetch(ctx, f)
			if err != nil {
				return out, err
			}
			if p != w.Path {
				add(name, r.Version, p)
			}
		}
		// A group member's probes install the other members beside it:
		// their wheels for the probe interpreter, which storedWheels then
		// finds.
		for _, w := range planned.with[name] {
			for _, m := range v.besides(ctx, planned, []string{w}) {
				f, ok := v.installWheel(ctx, *m)
				if !ok {
					continue
				}
				p, err := v.Artifacts.Fetch(ctx, f)
				if err != nil {
					return out, err
				}
				member, _, _ := strings.Cut(w, "==")
				add(member, m.Version, p)
			}
		}
	}
	if settings.Symbols != nil {
		spec, err := settings.Symbols.Resolve()
		if err != nil {
			return out, err
		}
		target, err := v.target(ctx, spec.Wheel)
		if err != nil {
			return out, err
		}
		p, _, err := v.scanWheel(ctx, name, r, target)
		if err != nil {
			return out, err
		}
		if p != "" {
			add(name, r.Version, p)
		}
		for _, a := range spec.Against {
			if p, _, _ := v.againstWheel(ctx, a, planned, target); p != "" {
				add(config.Key(a), "", p)
			}
		}
	}
	return out, nil
}
