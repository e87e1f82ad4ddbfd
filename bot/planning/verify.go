package planning

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/pinbot-dev/pinbot/bot/planning/plan"
	"github.com/pinbot-dev/pinbot/bot/report"
	"github.com/pinbot-dev/pinbot/bot/verifying"
	"github.com/pinbot-dev/pinbot/checks/probe"
	"github.com/pinbot-dev/pinbot/checks/usage"
	"github.com/pinbot-dev/pinbot/config"
	"github.com/pinbot-dev/pinbot/pins"
	"github.com/pinbot-dev/pinbot/sources"
	"github.com/pinbot-dev/pinbot/sources/pypi"
	"github.com/pinbot-dev/pinbot/versions/pep440"
)

// A Verifier judges the candidates planning chose; *verifying.Verifier is
// one. Planning says which releases to judge against which baseline, the
// verifier answers with checks and verdicts, and planning decides what the
// answer does to the plan.
type Verifier interface {
	// Verify judges a package's candidates (verifying.Verifier.Verify).
	Verify(ctx context.Context, req verifying.Request) (verifying.Result, error)
	// Prefetch fetches what the checks of a release read
	// (verifying.Verifier.Prefetch).
	Prefetch(ctx context.Context, req verifying.Request) ([]verifying.Prefetched, error)
	// Resolve asks a resolver what requirements resolve to
	// (verifying.Verifier.Resolve), for solve.
	Resolve(ctx context.Context, requirements []string) (*probe.Resolution, error)
}

// verified is what verifyAll found for one package.
type verified struct {
	checks   []report.Check
	verdicts []report.Verdict
}

// heldByConstraints starts the hold of a package the project's own pins
// hold back (heldVerdict looks for it).
const heldByConstraints = "held by the project's constraints: "

// verifyAll runs the checks of every package that moves a cap and asks for
// them, turning its plan blocked (or an error) as the results say. It returns
// each package's check results and verdicts.
//
// A group's member is probed with the group's other members beside it:
// at their targets beside its target (groupRun.together), at their
// baselines beside its baseline (groupRun.baselineWith). It is judged at
// its target alone, with no fallback, for the group has one verdict.
func (c *Checker) verifyAll(ctx context.Context, plans []plan.Plan, pkgs []plan.Package, byPkg, otherPins map[string][]pins.Pin,
	lookups map[string][]plan.Lookup, settings map[string]*config.Package, project []pins.Pin, groups *groupRun, refs map[string][]usage.Ref) map[string]verified {
	out := map[string]verified{}
	if c.Verifier == nil {
		return out
	}
	together := groups.together(plans)
	planned := &installed{plans: map[string]*plan.Plan{}, pins: otherPins, schemes: c.Schemes}
	for i := range plans {
		planned.plans[plans[i].Name] = &plans[i]
	}
	for i := range plans {
		p := &plans[i]
		if p.Status != plan.Bump || !checked(settings[p.Name], refs[p.Name]) || ctx.Err() != nil {
			continue
		}
		var constraints []probe.Constraint
		if settings[p.Name].ProjectConstraints() {
			constraints = probeConstraints(p.Name, project)
		}
		with, grouped := together[p.Name]
		if grouped {
			// The group's other members are installed at their targets
			// beside it (at their baselines beside its baseline): their
			// pins as written are not constraints.
			constraints = slices.DeleteFunc(constraints, func(c probe.Constraint) bool {
				return slices.ContainsFunc(with, func(w string) bool { return requirementName(w) == requirementName(c.Requirement) })
			})
		}
		req := verifying.Request{Package: p.Name, Settings: settings[p.Name], Constraints: constraints,
			With: c.besides(ctx, with, lookups), BaselineWith: groups.baselineWith(ctx, p.Name), Installs: planned.version, Uses: usesFor(settings[p.Name], refs[p.Name])}
		checks, verdicts, err := c.verify(ctx, p, pkgs[i], byPkg[p.Name], lookups[p.Name], req, grouped)
		if reason, ok := verifying.HeldReason(err); ok {
			// The project's own pins shut the target out: held, not an error.
			for j := range p.Pins {
				if p.Pins[j].Changed {
					p.Revert(j, "not moved: the project's other pins cannot be installed with "+p.Target)
				}
			}
			p.SetHeld(heldByConstraints + reason)
			out[p.Name] = verified{checks, verdicts}
			continue
		}
		if err != nil {
			p.Status, p.Err = plan.Error, fmt.Errorf("checks: %w", err)
			for j := range p.Pins {
				p.Pins[j].New, p.Pins[j].Changed = p.Pins[j].Pin.Constraint, false
			}
		}
		out[p.Name] = verified{checks, verdicts}
	}
	return out
}

// usesFor returns the references a package's usage check judges: none
// with usage: off.
func usesFor(settings *config.Package, refs []usage.Ref) []usage.Ref {
	if !settings.UsageOn() {
		return nil
	}
	return refs
}

// verify asks the verifier for p's target and, when it fails, the older
// candidates after the baseline (none for a group's member, judged at its
// target alone), and updates p: to the newest candidate that passed, or
// its caps left as they are. It returns the target's check results and the
// verdict on each candidate.
func (c *Checker) verify(ctx context.Context, p *plan.Plan, pkg plan.Package, ps []pins.Pin,
	lookups []plan.Lookup, req verifying.Request, grouped bool) ([]report.Check, []report.Verdict, error) {
	rs, scheme, where, err := c.checkReleases(ctx, p, lookups, req.Settings)
	if err != nil {
		return nil, nil, err
	}
	baseline, accepted := c.baselineOf(scheme, rs, pkg.Prereleases, ps)
	target, ok := verifying.FindRelease(scheme, accepted, p.Target)
	if !ok {
		return nil, nil, fmt.Errorf("%s %s is not an installable release on %s, where the checks get it", p.Name, p.Target, where)
	}
	req.Baseline, req.Candidates = baseline, []sources.Release{target}
	if !grouped {
		for _, r := range accepted {
			if scheme.Compare(r.Version, target.Version) < 0 && (baseline == nil || scheme.Compare(r.Version, baseline.Version) > 0) {
				req.Candidates = append(req.Candidates, r)
			}
		}
	}
	res, err := c.Verifier.Verify(ctx, req)
	if err != nil {
		return res.Checks, res.Verdicts, err
	}
	switch passed := res.Passed; {
	case passed == target.Version:
		return res.Checks, res.Verdicts, nil
	case passed != "":
		replanned := plan.Make(pkg, ps, capLookups(lookups, ps, passed, c.Schemes), c.Schemes)
		reason := p.Reason
		*p = replanned
		p.Reason = fmt.Sprintf("%s; checks failed on %s, %s passed → %s", reason, target.Version, passed, passed)
	default:
		for j := range p.Pins {
			pp := &p.Pins[j]
			if pp.Changed {
				pp.New, pp.Changed = pp.Pin.Constraint, false
				pp.Reason = "not moved: checks failed on " + target.Version
			}
		}
		p.Reason += fmt.Sprintf("; checks failed on %s and on every release tried after %s: caps left as they are", target.Version, versionOf(baseline))
	}
	p.Status = plan.Blocked
	return res.Checks, res.Verdicts, nil
}

// besides returns the releases with names (name==version: a group's other
// members at their targets) as the verifier installs them beside a
// candidate, each with its release as PyPI lists it when it can be found
// (this run's lookups, else PyPI asked), whose stored wheel the installer
// may then take.
func (c *Checker) besides(ctx context.Context, with []string, lookups map[string][]plan.Lookup) []verifying.Beside {
	var out []verifying.Beside
	for _, w := range with {
		b := verifying.Beside{Requirement: w}
		name, version, _ := strings.Cut(w, "==")
		if rs, err := c.pypiReleases(ctx, name, lookups[name]); err == nil {
			if r, ok := verifying.FindRelease(pep440.Scheme{}, rs, version); ok {
				b.Release = &r
			}
		} else if c.Log != nil {
			c.Log.Debug("no releases to find a stored wheel of a group member in", "package", name, "err", err)
		}
		out = append(out, b)
	}
	return out
}

// pypiLookup returns the PyPI releases of a package's lookups (nil when it
// was not looked up there, or the lookup failed).
func pypiLookup(lookups []plan.Lookup) []sources.Release {
	for _, l := range lookups {
		if l.Source == pypi.Name && l.Err == nil {
			return l.Releases
		}
	}
	return nil
}

// pypiReleases returns the package's PyPI releases from this run's lookups,
// or asks for them when no pin follows PyPI.
func (c *Checker) pypiReleases(ctx context.Context, name string, lookups []plan.Lookup) ([]sources.Release, error) {
	if rs := pypiLookup(lookups); rs != nil {
		return rs, nil
	}
	src := c.Sources[pypi.Name]
	if src == nil {
		return nil, errors.New("no PyPI source to get the releases the checks need")
	}
	return src.Releases(ctx, name)
}

func versionOf(r *sources.Release) string {
	if r == nil {
		return ""
	}
	return r.Version
}
