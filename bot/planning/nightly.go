package planning

import (
	"cmp"
	"context"
	"errors"
	"log/slog"
	"slices"

	"github.com/pinbot-dev/pinbot/bot/planning/earlywarn"
	"github.com/pinbot-dev/pinbot/bot/planning/plan"
	"github.com/pinbot-dev/pinbot/bot/report"
	"github.com/pinbot-dev/pinbot/bot/verifying"
	"github.com/pinbot-dev/pinbot/checks/probe"
	"github.com/pinbot-dev/pinbot/config"
	"github.com/pinbot-dev/pinbot/sources"
	"github.com/pinbot-dev/pinbot/versions"
	"github.com/pinbot-dev/pinbot/versions/pep440"
	"github.com/pinbot-dev/pinbot/web"
)

// A nightlyBuild is the nightly build chosen for one package, to be judged
// once every package's is chosen.
type nightlyBuild struct {
	build earlywarn.Build
	where config.Nightly
	// source is where the builds are, as the report names it; distribution
	// what the build installs as when it is not the package's name.
	source, distribution string
	skipped              []report.PrereleaseSkip
	req                  verifying.Request
	plan                 *plan.Plan
	pkg                  plan.Package
	lookups              []plan.Lookup
	// judged is set when the package's own checks judge the build; a
	// group's member without checks is only installed beside the others.
	judged bool
}

// chooseNightly asks p's nightly source (Checker.Nightlies) for its builds
// and chooses the one to check (earlywarn.ChooseNightly: the newest newer
// than the target that passes the package's platforms and python; min-age
// does not apply). It returns nil when the package names no nightly source
// or none is to be checked, and a warning for the report when the source
// did not answer, has no build of the package, or none passes the gates:
// no nightly verdict must never read as a nightly that passes. unseen is
// set when the source did not answer (the report's NightlyUnseen): what
// earlier runs saw of its builds stands.
func (c *Checker) chooseNightly(ctx context.Context, log *slog.Logger, p *plan.Plan, pkg plan.Package,
	req verifying.Request) (_ *nightlyBuild, warning string, unseen *report.NightlyUnseen) {
	where, ok := req.Settings.NightlySource()
	if !ok {
		return nil, "", nil
	}
	b := &nightlyBuild{where: where, source: nightlyLabel(where), req: req}
	if where.Kind() == config.NightlyProject {
		b.distribution = where.Project
	}
	src := c.Nightlies[p.Name]
	if src == nil {
		return nil, "no nightly source is set up for " + b.source, nil
	}
	log = log.With("package", p.Name, "nightly source", b.source)
	rs, err := src.Releases(ctx, p.Name)
	switch {
	case errors.Is(err, sources.ErrNotFound):
		log.Warn("early warning: the nightly source has no builds of the package", "err", err)
		return nil, "the nightly source " + b.source + " has no build of " + cmp.Or(b.distribution, p.Name) + " (" + err.Error() + ")", nil
	case err != nil:
		log.Warn("early warning: the nightly source did not answer", "err", err)
		if ctx.Err() != nil {
			return nil, "", nil
		}
		w := "the nightly source " + b.source + " did not answer (" + err.Error() + "): its builds go unchecked in this run, and what earlier runs saw of them stands"
		return nil, w, &report.NightlyUnseen{Source: b.source, Reason: w}
	}
	scheme := c.Schemes[sources.SchemeOf(src)]
	if scheme == nil {
		scheme = pep440.Scheme{}
	}
	gate := pkg.Gate
	gate.MinAge = 0 // a nightly is a day old at most: min-age would hold back every one
	build, skipped, ok := earlywarn.ChooseNightly(p.Target, earlywarn.Found{Source: b.source, Scheme: scheme, Releases: rs, Readable: true},
		func(source string, r sources.Release) string { return gate.Check(r, source, false, c.Schemes) })
	for _, s := range skipped {
		log.Info("early warning: a nightly build is held back by the package's gates", "nightly", s.Version, "why", s.Reason)
	}
	if !ok {
		if len(skipped) > 0 {
			return nil, "no nightly build on " + b.source + " newer than the target passes the package's gates (" + skipped[0].Reason + ")", nil
		}
		log.Info("early warning: no nightly build newer than the target", "target", p.Target)
		return nil, "", nil
	}
	b.build, b.skipped = build, skipped
	return b, "", nil
}

// judgeNightly runs b's checks on its build and returns the early warning
// it gives (its window this run's alone: publishing adds what earlier runs
// saw). The baseline is read where the build's files are: conda packages
// for a build on a channel, PyPI's wheels otherwise. A member of a group is
// checked with the group's other members beside it (groupBeside).
func (c *Checker) judgeNightly(ctx context.Context, log *slog.Logger, b *nightlyBuild, builds map[string]*nightlyBuild, groups *groupRun,
	plans []plan.Plan, lookups map[string][]plan.Lookup) *report.Nightly {
	p, req := b.plan, b.req
	req.Nightly, req.Uploaded, req.Distribution = true, b.build.Uploaded, b.distribution
	var beside []string
	req.With, beside = c.groupBeside(ctx, b, builds, groups, plans, lookups)
	req.BaselineWith = groups.baselineWith(ctx, p.Name) // the other members as the project runs them
	if len(req.With) > 0 {
		// The members installed beside it: their pins as written are not
		// constraints (as verifyAll does for a group's targets).
		req.Constraints = slices.DeleteFunc(slices.Clone(req.Constraints), func(pc probe.Constraint) bool {
			return slices.ContainsFunc(req.With, func(w verifying.Beside) bool {
				return requirementName(w.Requirement) == requirementName(pc.Requirement)
			})
		})
	}
	var rs []sources.Release
	var scheme versions.Scheme
	var err error
	if slices.ContainsFunc(b.build.Release.Files, func(f sources.File) bool { return f.Kind == sources.KindConda }) {
		rs, scheme, _, err = c.condaReleases(ctx, p, b.lookups, condaChannel(p))
	} else {
		scheme = pep440.Scheme{}
		rs, err = c.pypiReleases(ctx, p.Name, b.lookups)
	}
	var n report.Nightly
	if err != nil {
		log.Warn("early warning: no releases to compare the nightly build with", "package", p.Name, "err", err)
		n = earlywarn.JudgeNightly(b.build, b.source, b.distribution, "", nil, false, errors.New("no releases to compare it with ("+err.Error()+")"))
	} else {
		checks, baseline, blocked, err := c.judgeEarly(ctx, log.With("package", p.Name), p, b.pkg, rs, scheme, b.build.Release, req)
		n = earlywarn.JudgeNightly(b.build, b.source, b.distribution, baseline, checks, blocked, err)
	}
	n.Beside, n.Skipped = beside, b.skipped
	return &n
}

// groupBeside returns what is installed beside b's build when its package
// is a member of a group, and how the report says it: each other member's
// nightly build when it comes from the same source (jax and jaxlib from
// one index: the sources provide them together), else the member at its
// target, which its nightly, if any, is not taken with.
func (c *Checker) groupBeside(ctx context.Context, b *nightlyBuild, builds map[string]*nightlyBuild, groups *groupRun,
	plans []plan.Plan, lookups map[string][]plan.Lookup) ([]verifying.Beside, []string) {
	group := groups.of[b.plan.Name]
	if group == "" {
		return nil, nil
	}
	targets := map[string]string{}
	for _, p := range plans {
		targets[p.Name] = p.Target
	}
	var with []verifying.Beside
	var says []string
	for _, m := range groups.members[group] {
		if m == b.plan.Name {
			continue
		}
		if o := builds[m]; o != nil && o.where == b.where && b.where.Kind() != config.NightlyProject {
			r := o.build.Release
			with = append(with, verifying.Beside{Requirement: cmp.Or(o.distribution, m) + "==" + r.Version, Release: &r, Pinned: true})
			says = append(says, m+" "+r.Version+" (nightly, from the same source)")
			continue
		}
		if targets[m] == "" {
			says = append(says, m+" not installed (no target)")
			continue
		}
		with = append(with, c.besides(ctx, []string{m + "==" + targets[m]}, lookups)...)
		says = append(says, m+" "+targets[m]+" (its target: no nightly from the same source)")
	}
	return with, says
}

// nightlyLabel is where n is, as the report names it: the index's or the
// page's URL without credentials, "tf-nightly on pypi", the channel.
func nightlyLabel(n config.Nightly) string {
	switch n.Kind() {
	case config.NightlyIndex, config.NightlyFindLinks:
		return web.Redact(n.Where())
	case config.NightlyProject:
		return n.Project + " on pypi"
	}
	return n.Where()
}
