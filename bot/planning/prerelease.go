package planning

import (
	"context"
	"errors"
	"log/slog"
	"maps"
	"slices"
	"strings"

	"github.com/pinbot-dev/pinbot/bot/planning/earlywarn"
	"github.com/pinbot-dev/pinbot/bot/planning/plan"
	"github.com/pinbot-dev/pinbot/bot/report"
	"github.com/pinbot-dev/pinbot/bot/verifying"
	"github.com/pinbot-dev/pinbot/checks/probe"
	"github.com/pinbot-dev/pinbot/checks/usage"
	"github.com/pinbot-dev/pinbot/config"
	"github.com/pinbot-dev/pinbot/pins"
	"github.com/pinbot-dev/pinbot/sources"
	"github.com/pinbot-dev/pinbot/sources/pypi"
	"github.com/pinbot-dev/pinbot/versions"
	condaversions "github.com/pinbot-dev/pinbot/versions/conda"
	"github.com/pinbot-dev/pinbot/versions/pep440"
)

// An earlyWarning is what the early warning says of one package: the
// pre-release checked (nil for none) and the newer ones its gates held
// back, and the nightly build checked (nil for none), or the nightly
// source that did not answer.
type earlyWarning struct {
	pr      *report.Prerelease
	skipped []report.PrereleaseSkip
	nightly *report.Nightly
	unseen  *report.NightlyUnseen
}

// earlyWarnAll runs the early warning of every package that has one
// (config.Package.EarlyWarns): the package's checks against the newest
// pre-release newer than its target that passes its release gates, and
// against the newest build of its nightly source, if it names one
// (bot/planning/earlywarn), each compared with the release its caps admit
// once this run's plan is applied. Plans are not changed: neither moves a
// cap. A group's members' nightlies are judged once every member's build
// is chosen, so that those from one source are installed together
// (nightly.go).
func (c *Checker) earlyWarnAll(ctx context.Context, log *slog.Logger, plans []plan.Plan, pkgs []plan.Package, otherPins map[string][]pins.Pin,
	lookups map[string][]plan.Lookup, settings map[string]*config.Package, project []pins.Pin, groups *groupRun, refs map[string][]usage.Ref) (map[string]earlyWarning, []string) {
	out := map[string]earlyWarning{}
	var warnings []string
	if c.Verifier == nil {
		return out, nil
	}
	planned := &installed{plans: map[string]*plan.Plan{}, pins: otherPins, schemes: c.Schemes}
	for i := range plans {
		planned.plans[plans[i].Name] = &plans[i]
	}
	builds := map[string]*nightlyBuild{} // the nightly builds chosen, by package
	for i := range plans {
		p := &plans[i]
		// A group's member without checks of its own may name a nightly
		// source: its build is installed beside the other members'.
		warns := earlyWarns(settings[p.Name], refs[p.Name])
		if (!warns && groups.of[p.Name] == "") || p.Status == plan.Error || p.Target == "" || ctx.Err() != nil {
			continue
		}
		var constraints []probe.Constraint // as for the target (verifyAll)
		if settings[p.Name].ProjectConstraints() {
			constraints = probeConstraints(p.Name, project)
		}
		req := verifying.Request{Package: p.Name, Settings: settings[p.Name], Constraints: constraints, Installs: planned.version, Prerelease: true,
			Uses: usesFor(settings[p.Name], refs[p.Name])}
		if warns {
			pr, skipped, unseen := c.earlyWarn(ctx, log, p, pkgs[i], lookups[p.Name], req)
			if pr != nil || len(skipped) > 0 {
				out[p.Name] = earlyWarning{pr: pr, skipped: skipped}
			}
			for _, w := range unseen {
				warnings = append(warnings, p.Name+": early warning: "+w+": a pre-release there would go unseen")
			}
		}
		req.Prerelease = false
		b, warning, unseen := c.chooseNightly(ctx, log, p, pkgs[i], req)
		if warning != "" {
			warnings = append(warnings, p.Name+": early warning: "+warning)
		}
		if unseen != nil {
			ew := out[p.Name]
			ew.unseen = unseen
			out[p.Name] = ew
		}
		if b != nil {
			b.plan, b.pkg, b.lookups, b.judged = p, pkgs[i], lookups[p.Name], warns
			builds[p.Name] = b
		}
	}
	for _, name := range slices.Sorted(maps.Keys(builds)) {
		if ctx.Err() != nil {
			break
		}
		if !builds[name].judged {
			continue // only installed beside its group's other members
		}
		ew := out[name]
		ew.nightly = c.judgeNightly(ctx, log, builds[name], builds, groups, plans, lookups)
		out[name] = ew
	}
	return out, warnings
}

// earlyWarn chooses p's pre-release and judges it; nil when there is none.
// The pre-release must pass the package's release gates (pkg.Gate's
// min-age, platforms and python, through plan.Gate.Check, as a target
// does); skipped lists the newer ones they held back. unseen lists the
// sources it could not ask, with why: the report says so, since "no early
// warning" must not read as "no pre-release" when a source did not answer.
// The checks read what they read for the target (checkReleases: PyPI's
// wheels, or a channel's conda packages), and the baseline comes from the
// same releases.
func (c *Checker) earlyWarn(ctx context.Context, log *slog.Logger, p *plan.Plan, pkg plan.Package,
	lookups []plan.Lookup, req verifying.Request) (_ *report.Prerelease, skipped []report.PrereleaseSkip, unseen []string) {
	log = log.With("package", p.Name)
	rs, scheme, where, err := c.checkReleases(ctx, p, lookups, req.Settings)
	if err != nil {
		log.Warn("early warning: no releases for the checks to read", "err", err)
		return nil, nil, []string{"no releases for the checks to read (" + err.Error() + ")"}
	}
	conda := scheme.Name() == condaversions.Name
	found, unseen := c.prereleaseSources(ctx, log, p.Name, lookups, conda)
	if conda && !slices.ContainsFunc(found, func(f earlywarn.Found) bool { return f.Source == where }) {
		found = append(found, earlywarn.Found{Source: where, Scheme: scheme, Releases: rs, Readable: true})
	}
	// Require is the target's alone: a pre-release is published on one
	// source (PyPI, a label channel), never on conda-forge's main channel,
	// and whether the final release reaches every required source says
	// nothing of what it breaks.
	gate := func(source string, r sources.Release) string { return pkg.Gate.Check(r, source, false, c.Schemes) }
	cand, skipped, ok := earlywarn.Choose(p.Target, found, gate)
	for _, s := range skipped {
		log.Info("early warning: a pre-release is held back by the package's gates", "pre-release", s.Version, "source", s.Source, "why", s.Reason)
	}
	if !ok {
		return nil, skipped, unseen
	}
	if cand.Release == nil {
		reads := "PyPI's wheels"
		if conda {
			reads = "conda packages"
		}
		pr := earlywarn.Unreadable(cand, reads)
		return &pr, skipped, unseen
	}
	checks, baseline, blocked, err := c.judgeEarly(ctx, log, p, pkg, rs, scheme, *cand.Release, req)
	pr := earlywarn.Judge(cand, baseline, checks, blocked, err)
	return &pr, skipped, unseen
}

// judgeEarly runs req's checks on cand, a pre-release or a nightly build,
// against the baseline: the newest of rs (in scheme) the caps admit after
// this run's plan, what the project will be running when the final release
// ships. It returns the checks, the baseline's version ("" for none),
// whether a check blocked the candidate, or why the checks could not judge
// it: the project's other pins shutting it out is such a reason.
func (c *Checker) judgeEarly(ctx context.Context, log *slog.Logger, p *plan.Plan, pkg plan.Package, rs []sources.Release, scheme versions.Scheme,
	cand sources.Release, req verifying.Request) ([]report.Check, string, bool, error) {
	var cs []admitter
	for _, pp := range p.Pins {
		if pp.Pin.Skip == "" {
			cs = append(cs, admitter{pin: pp.Pin, constraint: pp.New})
		}
	}
	baseline, _, _ := newestAdmitted(c.Schemes, verifying.Acceptable(scheme, rs, pkg.Prereleases), cs)
	log.Info("early warning: running the checks", "candidate", cand.Version, "nightly", req.Nightly, "baseline", versionOf(baseline))
	req.Baseline, req.Candidates = baseline, []sources.Release{cand}
	res, err := c.Verifier.Verify(ctx, req)
	checks, blocked := res.Checks, len(res.Verdicts) > 0 && res.Verdicts[0].Blocked
	if reason, ok := verifying.HeldReason(err); ok {
		err = errors.New("the project's other pins cannot be installed with it: " + reason)
	}
	if err != nil {
		log.Warn("early warning: the checks could not judge the candidate", "candidate", cand.Version, "err", err)
	}
	return checks, versionOf(baseline), blocked, err
}

// prereleaseSources returns the releases an early warning looks at: PyPI's,
// the package's other sources from this run's lookups, and every
// configured conda label channel (sources.conda.channels:
// [numba/label/dev]), asked here when no pin follows it. conda says whether
// the checks read conda packages (every channel is then readable), else
// they read PyPI's wheels. unseen lists the sources that failed to answer
// (a package a source does not have is no failure).
func (c *Checker) prereleaseSources(ctx context.Context, log *slog.Logger, name string, lookups []plan.Lookup, conda bool) (found []earlywarn.Found, unseen []string) {
	add := func(source string, rs []sources.Release) {
		if s := c.sourceScheme(source); s != nil {
			isConda := s.Name() == condaversions.Name
			found = append(found, earlywarn.Found{Source: source, Scheme: s, Releases: rs, Readable: isConda == conda})
		}
	}
	if rs, err := c.pypiReleases(ctx, name, lookups); err == nil {
		found = append(found, earlywarn.Found{Source: pypi.Name, Scheme: pep440.Scheme{}, Releases: rs, Readable: !conda})
	} else {
		log.Debug("early warning: no PyPI releases", "err", err)
		if c.Sources[pypi.Name] != nil && !errors.Is(err, sources.ErrNotFound) && ctx.Err() == nil {
			unseen = append(unseen, "asking pypi failed ("+err.Error()+")")
		}
	}
	asked := map[string]bool{pypi.Name: true}
	for _, l := range lookups {
		if asked[l.Source] || l.Err != nil {
			continue
		}
		asked[l.Source] = true
		add(l.Source, l.Releases)
	}
	for _, ch := range c.Config.Sources.Conda.Channels {
		src, ok := c.Sources[ch]
		if !ok || asked[src.Name()] || !strings.Contains(ch, "/label/") || ctx.Err() != nil {
			continue
		}
		asked[src.Name()] = true
		rs, err := src.Releases(ctx, name)
		if err != nil {
			if !errors.Is(err, sources.ErrNotFound) {
				log.Warn("early warning: asking a label channel failed", "source", src.Name(), "err", err)
				if ctx.Err() == nil {
					unseen = append(unseen, "asking "+src.Name()+" failed ("+err.Error()+")")
				}
			}
			continue
		}
		add(src.Name(), rs)
	}
	slices.SortStableFunc(found, func(a, b earlywarn.Found) int { return strings.Compare(a.Source, b.Source) })
	return found, unseen
}

// sourceScheme returns the version scheme of the named source's releases.
func (c *Checker) sourceScheme(name string) versions.Scheme {
	if src, err := c.source(name); err == nil {
		return c.Schemes[sources.SchemeOf(src)]
	}
	return nil
}
