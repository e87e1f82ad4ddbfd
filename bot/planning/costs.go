package planning

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"

	"github.com/pinbot-dev/pinbot/bot/planning/holds"
	"github.com/pinbot-dev/pinbot/bot/planning/plan"
	"github.com/pinbot-dev/pinbot/bot/report"
	"github.com/pinbot-dev/pinbot/bot/verifying"
	"github.com/pinbot-dev/pinbot/config"
	"github.com/pinbot-dev/pinbot/pins"
	"github.com/pinbot-dev/pinbot/sources"
	"github.com/pinbot-dev/pinbot/versions"
)

// A requireKey names one release on one source, whose requirements
// requires remembers for the run.
type requireKey struct{ source, pkg, version string }

type requireResult struct {
	reqs []string
	err  error
}

// requires returns what pkg==version requires according to source (its
// dependency metadata), asked once per run: the cost of a cap and a group's
// consistent targets read the same releases.
func (c *Checker) requires(ctx context.Context, source, pkg string, r sources.Release) ([]string, error) {
	found, _ := c.source(source)
	src, ok := found.(sources.Requirer)
	if !ok {
		return nil, fmt.Errorf("%s publishes no dependency metadata pinbot reads", source)
	}
	key := requireKey{source, pkg, r.Version}
	c.reqMu.Lock()
	if r, ok := c.reqCache[key]; ok {
		c.reqMu.Unlock()
		return r.reqs, r.err
	}
	c.reqMu.Unlock()
	reqs, err := src.Requires(ctx, pkg, r)
	if ctx.Err() != nil {
		return nil, ctx.Err() // not remembered: a cancelled run says nothing of the release
	}
	c.reqMu.Lock()
	if c.reqCache == nil {
		c.reqCache = map[requireKey]requireResult{}
	}
	c.reqCache[key] = requireResult{reqs, err}
	c.reqMu.Unlock()
	return reqs, err
}

// metadataSource returns the source whose dependency metadata tells what a
// package's releases require, and its scheme: PyPI when the package has a
// PyPI lookup, else the first of its sources that publishes requirements.
func (c *Checker) metadataSource(lookups []plan.Lookup) (plan.Lookup, versions.Scheme, bool) {
	ls := slices.Clone(lookups)
	slices.SortStableFunc(ls, func(a, b plan.Lookup) int {
		return cmp.Compare(boolInt(a.Source != "pypi"), boolInt(b.Source != "pypi"))
	})
	for _, l := range ls {
		if l.Err != nil {
			continue
		}
		src, err := c.source(l.Source)
		if _, ok := src.(sources.Requirer); err != nil || !ok {
			continue
		}
		if s := c.Schemes[sources.SchemeOf(src)]; s != nil {
			return l, s, true
		}
	}
	return plan.Lookup{}, nil, false
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// costInput is what the cost of one package's caps is worked out from.
type costInput struct {
	name             string
	source           string
	scheme           versions.Scheme
	cap              holds.Cap
	env              holds.Env
	admitted, target sources.Release
}

// holdsBack works out what each package's caps cost (bot/planning/holds): for a
// package whose caps admit a release older than its target (or than the
// newest release of the source whose metadata is read, when that is newer:
// another source or a gate holds the target back), what that release
// requires that the newer one's requirements let go further. It
// returns the cost per package, absent for a package whose cost cannot be
// told (warnings say why, for one that could have been).
func (c *Checker) holdsBack(ctx context.Context, log *slog.Logger, plans []plan.Plan, byPkg map[string][]pins.Pin,
	lookups map[string][]plan.Lookup, settings map[string]*config.Package) (map[string][]report.HoldBack, []string) {
	out := map[string][]report.HoldBack{}
	var warnings []string
	var inputs []*costInput
	for _, p := range plans {
		if p.Target == "" || p.Status == plan.Error {
			continue
		}
		l, scheme, ok := c.metadataSource(lookups[p.Name])
		if !ok {
			continue
		}
		in := &costInput{name: p.Name, source: l.Source, scheme: scheme}
		if s := settings[p.Name]; s != nil {
			in.env.Pythons = s.Python
		}
		prereleases := settings[p.Name] != nil && settings[p.Name].Prereleases
		accepted := verifying.Acceptable(scheme, l.Releases, prereleases)
		var own []pins.Pin
		for _, pin := range byPkg[p.Name] {
			if pin.Source == l.Source {
				own = append(own, pin)
			}
		}
		if len(own) == 0 {
			own = byPkg[p.Name]
		}
		admitted := currentRelease(c.Schemes, accepted, own)
		// When another source or a gate holds the target below this source's
		// newest release, the cost is measured against that release: what
		// the cap costs does not go away because the target waits.
		measure := p.Target
		if n, ok := p.Newest[l.Source]; ok && scheme.Valid(n) && scheme.Valid(measure) && scheme.Compare(n, measure) > 0 {
			measure = n
		}
		target, found := verifying.FindRelease(scheme, accepted, measure)
		if admitted == nil || !found {
			continue
		}
		if scheme.Compare(admitted.Version, target.Version) >= 0 {
			out[p.Name] = []report.HoldBack{} // the caps admit the target: they hold nothing back
			continue
		}
		in.admitted, in.target = *admitted, target
		in.cap = holds.Cap{Package: p.Name, Admitted: admitted.Version, Target: target.Version}
		inputs = append(inputs, in)
	}

	// The requirements of each admitted and target release.
	errs := make([]error, len(inputs))
	c.each(ctx, len(inputs), func(i int) {
		in := inputs[i]
		for _, side := range []struct {
			release sources.Release
			into    *[]holds.Requirement
		}{{in.admitted, &in.cap.Admits}, {in.target, &in.cap.Targets}} {
			raw, err := c.requires(ctx, in.source, in.name, side.release)
			if err != nil {
				errs[i] = err
				return
			}
			reqs, bad := parseRequires(raw, in.env, in.scheme)
			for _, e := range bad {
				log.Warn("a requirement pinbot cannot read", "package", in.name, "version", side.release.Version, "err", e)
			}
			*side.into = reqs
		}
	})

	// The releases of every dependency that may be held, once per source.
	type depKey struct{ source, name string }
	deps := map[depKey][]string{}
	depErrs := map[depKey]error{}
	var keys []depKey
	for i, in := range inputs {
		if errs[i] != nil {
			continue
		}
		for _, r := range in.cap.Admits {
			k := depKey{in.source, r.Name}
			if _, seen := deps[k]; seen || !holds.MayHold(r, in.scheme) {
				continue
			}
			deps[k] = nil
			keys = append(keys, k)
		}
	}
	var mu sync.Mutex
	c.each(ctx, len(keys), func(i int) {
		k := keys[i]
		rs, err := c.releasesOf(ctx, k.source, k.name, lookups)
		mu.Lock()
		defer mu.Unlock()
		if errors.Is(err, sources.ErrNotFound) {
			// Not on this source (a conda package from another channel, a
			// project gone from the index): nothing there to hold back.
			log.Debug("a dependency the source does not have", "source", k.source, "package", k.name)
			return
		}
		if err != nil {
			depErrs[k] = err
			return
		}
		var vs []string
		src, _ := c.source(k.source)
		scheme := c.Schemes[sources.SchemeOf(src)]
		for _, r := range verifying.Acceptable(scheme, rs, false) {
			vs = append(vs, r.Version)
		}
		deps[k] = vs
	})
	if ctx.Err() != nil {
		return out, nil
	}

	for i, in := range inputs {
		if errs[i] != nil {
			warnings = append(warnings, fmt.Sprintf("%s: what its caps cost is unknown: %v", in.name, errs[i]))
			continue
		}
		releases := map[string][]string{}
		for _, r := range in.cap.Admits {
			k := depKey{in.source, r.Name}
			if err := depErrs[k]; err != nil {
				warnings = append(warnings, fmt.Sprintf("%s: whether its caps hold %s back is unknown: %v", in.name, r.Name, err))
				delete(depErrs, k) // said once
			}
			releases[r.Name] = deps[k]
		}
		list := []report.HoldBack{}
		for _, h := range holds.Find(in.cap, releases, in.scheme) {
			list = append(list, report.HoldBack{Package: h.Package, Constraint: h.Constraint, RequiredBy: h.RequiredBy, Newest: h.Newest, Reason: h.Reason})
		}
		out[in.name] = list
	}
	return out, warnings
}

// parseRequires reads a source's requirement strings: PEP 508 from a
// Python index, MatchSpecs from a conda channel.
func parseRequires(raw []string, env holds.Env, scheme versions.Scheme) ([]holds.Requirement, []error) {
	if scheme.Name() == "pep440" {
		return holds.ParsePEP508(raw, env, scheme)
	}
	return holds.ParseConda(raw)
}

// releasesOf returns a package's releases on source: this run's lookup
// when the package is watched, else asked of the source.
func (c *Checker) releasesOf(ctx context.Context, source, name string, lookups map[string][]plan.Lookup) ([]sources.Release, error) {
	for _, l := range lookups[config.Key(name)] {
		if l.Source == source {
			return l.Releases, l.Err
		}
	}
	src, err := c.source(source)
	if err != nil {
		return nil, err
	}
	return src.Releases(ctx, name)
}

// each runs f(0..n-1) with at most Concurrency calls in flight, and returns
// when all are done; calls not yet started when ctx ends are skipped.
func (c *Checker) each(ctx context.Context, n int, f func(i int)) {
	sem := make(chan struct{}, max(cmp.Or(c.Concurrency, 4), 1))
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				return
			}
			defer func() { <-sem }()
			if ctx.Err() == nil {
				f(i)
			}
		})
	}
	wg.Wait()
}
