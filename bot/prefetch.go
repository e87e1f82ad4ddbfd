package bot

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"

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
// gates and the cap strategy of the configuration, as for any pin), and
// fetches into the Verifier's artifact store the files the checks of that
// release read: the wheel a static probe reads, the wheel a dynamic probe
// installs (which pip then takes from the store, probe.LocalWheel), and the
// wheels a symbol scan reads (the candidate's and its against packages'). Check jobs that share
// the store then find them there. Baseline releases depend on each
// repository's pins and are not fetched. A package whose target cannot be
// planned or fetched is an error in the joined error; the others are still
// fetched.
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
	var names []string
	for name, settings := range watched {
		if settings.HasChecks() {
			names = append(names, name)
			byPkg[name] = []pins.Pin{{File: "(fleet defaults)", Package: name, Text: name, Source: "pypi", Scheme: pep440.Name}}
		}
	}
	slices.Sort(names)
	lookups := c.lookup(ctx, log, names, byPkg)
	planned := &installed{plans: map[string]*plan.Plan{}, schemes: c.Schemes}
	targets := map[string]sources.Release{}
	var errs []error
	for _, name := range names {
		pkg := planPackage(name, watched[name])
		pkg.Gate = c.gate(watched[name])
		p := plan.Make(pkg, byPkg[name], lookups[name], c.Schemes)
		if p.Target == "" {
			errs = append(errs, fmt.Errorf("%s: %w", name, p.Err))
			continue
		}
		rs, err := c.Verifier.pypiReleases(ctx, name, lookups[name])
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", name, err))
			continue
		}
		r, ok := findRelease(pep440.Scheme{}, acceptable(pep440.Scheme{}, rs, pkg.Prereleases), p.Target)
		if !ok {
			errs = append(errs, fmt.Errorf("%s %s is not an installable release on PyPI, where the checks get it", name, p.Target))
			continue
		}
		planned.plans[name], targets[name] = &p, r
	}
	var out []Prefetched
	for _, name := range names {
		r, ok := targets[name]
		if !ok {
			continue
		}
		got, err := c.Verifier.prefetch(ctx, name, watched[name], r, planned)
		out = append(out, got...)
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
