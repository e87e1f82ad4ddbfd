package bot

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/pinbot-dev/pinbot/bot/plan"
	"github.com/pinbot-dev/pinbot/bot/report"
	"github.com/pinbot-dev/pinbot/checks/artifact"
	"github.com/pinbot-dev/pinbot/checks/probe"
	"github.com/pinbot-dev/pinbot/config"
	"github.com/pinbot-dev/pinbot/internal/progress"
	"github.com/pinbot-dev/pinbot/pins"
	"github.com/pinbot-dev/pinbot/sources"
	"github.com/pinbot-dev/pinbot/sources/wheel"
	"github.com/pinbot-dev/pinbot/versions"
	"github.com/pinbot-dev/pinbot/versions/pep440"
)

// A Verifier runs the checks a watched package asks for (internal-API probes,
// symbol scans) against the release its caps would move to, compared with the
// release they admit now (the baseline). Only new problems block: a package
// whose candidate fails is "blocked", and its caps move to the newest release
// after the baseline that passes, if one does.
type Verifier struct {
	// Artifacts keeps verified downloads of the wheels the checks read.
	Artifacts *artifact.Store
	// Releases lists a package's PyPI releases, for packages the run does not
	// plan (a symbol scan's against packages).
	Releases func(ctx context.Context, pkg string) ([]sources.Release, error)
	// Channels are the conda sources by channel name, for the conda
	// packages a check reads beyond the checked one (a metapackage's exact
	// dependencies, against packages).
	Channels map[string]sources.Source
	// Root is the repository, where symbols.host globs are resolved.
	Root string

	// Python, NoInstall, Static, Index, EnvCache, Timeout and Runner are the
	// probes' settings (checks/probe.Options).
	Python    string
	NoInstall bool
	Static    bool
	Index     string
	EnvCache  string
	Timeout   time.Duration
	Runner    probe.Runner
	// Progress shows the probes' environment installs as they go (nil:
	// not shown).
	Progress *progress.Meter
	// HTTPClient revalidates the index pages of cached probe resolutions.
	HTTPClient *http.Client
	// TempDir is where large wheel members are unpacked for the scanner.
	TempDir string
	// Fallbacks bounds how many releases older than the candidate are tried
	// when it fails (default 3).
	Fallbacks int
	// Recorded, when set, answers for each candidate instead of running its
	// checks: the verdicts of a check job's report (recorded.go).
	Recorded Recorded
	Log      *slog.Logger
	// Wheel is what wheels are chosen for when a package's symbols.wheel
	// does not say: this machine's platform, and a Python version that,
	// when empty, is asked of the probe interpreter (Python, else python3
	// on PATH) once per run.
	Wheel wheel.Target

	pyOnce    sync.Once
	pyVersion string
}

// verifyAll runs the checks of every package that moves a cap and asks for
// them, turning its plan blocked (or an error) as the results say. It returns
// each package's check results and verdicts.
//
// together maps a group's members to the releases their checks install
// beside them (the other members' targets); a member of a group is judged
// at its target alone, with no fallback, for the group has one verdict.
func (c *Checker) verifyAll(ctx context.Context, plans []plan.Plan, pkgs []plan.Package, byPkg, otherPins map[string][]pins.Pin,
	lookups map[string][]plan.Lookup, settings map[string]*config.Package, project []pins.Pin, together map[string][]string) map[string]verified {
	out := map[string]verified{}
	if c.Verifier == nil {
		return out
	}
	planned := &installed{plans: map[string]*plan.Plan{}, pins: otherPins, schemes: c.Schemes, with: together, lookups: lookups}
	for i := range plans {
		planned.plans[plans[i].Name] = &plans[i]
	}
	for i := range plans {
		p := &plans[i]
		if p.Status != plan.Bump || !settings[p.Name].HasChecks() || ctx.Err() != nil {
			continue
		}
		var constraints []probe.Constraint
		if settings[p.Name].ProjectConstraints() {
			constraints = probeConstraints(p.Name, project)
		}
		if with, grouped := together[p.Name]; grouped {
			// The group's other members are installed at their targets
			// beside it: their pins as written are not constraints.
			constraints = slices.DeleteFunc(constraints, func(c probe.Constraint) bool {
				return slices.ContainsFunc(with, func(w string) bool { return requirementName(w) == requirementName(c.Requirement) })
			})
		}
		checks, verdicts, err := c.Verifier.verify(ctx, c, p, pkgs[i], byPkg[p.Name], lookups[p.Name], settings[p.Name], planned, constraints)
		if reason, ok := heldReason(err); ok {
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

// verify checks p's target and, when it fails, older candidates, and updates p.
// It returns the target's check results and the verdict on each candidate.
func (v *Verifier) verify(ctx context.Context, c *Checker, p *plan.Plan, pkg plan.Package, ps []pins.Pin,
	lookups []plan.Lookup, settings *config.Package, planned *installed, constraints []probe.Constraint) ([]report.Check, []report.Verdict, error) {
	log := v.log().With("package", p.Name)
	rs, scheme, where, err := v.checkReleases(ctx, c, p, lookups, settings)
	if err != nil {
		return nil, nil, err
	}
	accepted := acceptable(scheme, rs, pkg.Prereleases)
	baseline := currentRelease(c.Schemes, accepted, ps)
	target, ok := findRelease(scheme, accepted, p.Target)
	if !ok {
		return nil, nil, fmt.Errorf("%s %s is not an installable release on %s, where the checks get it", p.Name, p.Target, where)
	}
	candidates := []sources.Release{target}
	fallbacks := cmp.Or(v.Fallbacks, 3)
	if v.NoInstall && len(settings.Probes) > 0 {
		fallbacks = 0 // every candidate would probe the same installed release
	}
	if _, grouped := planned.with[p.Name]; grouped {
		fallbacks = 0 // a group's targets are judged together, once
	}
	for _, r := range accepted {
		if len(candidates) > fallbacks {
			break
		}
		if scheme.Compare(r.Version, target.Version) < 0 && (baseline == nil || scheme.Compare(r.Version, baseline.Version) > 0) {
			candidates = append(candidates, r)
		}
	}
	var evidence []report.Check
	var verdicts []report.Verdict
	passed := ""
	for i, cand := range candidates {
		log.Info("running checks", "baseline", versionOf(baseline), "candidate", cand.Version)
		checks, blocked, err := v.judge(ctx, p.Name, baseline, cand, settings, planned, constraints)
		if i > 0 && errors.Is(err, ErrNotJudged) {
			break // the check job tried no further release: none passed
		}
		if reason, held := heldReason(err); held {
			verdict := report.Verdict{Version: cand.Version, Baseline: versionOf(baseline), Held: reason}
			if i == 0 {
				return append(evidence, checks...), append(verdicts, verdict), err
			}
			// An older release the project's pins rule out does not pass either.
			log.Warn("checks cannot run", "candidate", cand.Version, "err", err)
			verdict.Blocked = true
			verdicts = append(verdicts, verdict)
			continue
		}
		if err != nil {
			return evidence, nil, err
		}
		verdicts = append(verdicts, report.Verdict{Version: cand.Version, Baseline: versionOf(baseline), Blocked: blocked})
		if i == 0 {
			evidence = checks
		}
		if !blocked {
			passed = cand.Version
			break
		}
		log.Warn("checks failed", "candidate", cand.Version)
	}
	switch {
	case passed == target.Version:
		return evidence, verdicts, nil
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
	return evidence, verdicts, nil
}

// run runs the checks of one candidate against the baseline; blocked reports
// whether a check failed that passed at the baseline.
func (v *Verifier) run(ctx context.Context, name string, baseline *sources.Release, cand sources.Release,
	settings *config.Package, planned *installed, constraints []probe.Constraint) (checks []report.Check, blocked bool, err error) {
	if len(settings.Probes) > 0 {
		runProbes := func(ctx context.Context, name string, baseline *sources.Release, cand sources.Release, settings *config.Package,
			constraints []probe.Constraint) ([]report.Check, bool, error) {
			return v.probe(ctx, name, baseline, cand, settings, constraints, planned)
		}
		if isConda(cand) {
			runProbes = v.condaProbe
		}
		pc, b, err := runProbes(ctx, name, baseline, cand, settings, constraints)
		if err != nil {
			return pc, false, err
		}
		checks, blocked = append(checks, pc...), blocked || b
	}
	if settings.Symbols != nil {
		sc, b, err := v.scan(ctx, name, baseline, cand, *settings.Symbols, planned)
		if err != nil {
			return nil, false, err
		}
		checks, blocked = append(checks, sc), blocked || b
	}
	return checks, blocked, nil
}

// probe runs the probes of one candidate against the baseline. With planned
// (nil: none), a group member's probes install the releases planned.with
// names beside it.
func (v *Verifier) probe(ctx context.Context, name string, baseline *sources.Release, cand sources.Release, settings *config.Package,
	constraints []probe.Constraint, planned *installed) ([]report.Check, bool, error) {
	var with []string
	if planned != nil {
		with = planned.with[name]
	}
	opts := probe.Options{
		Package: name, Baseline: versionOf(baseline), Candidate: cand.Version, Specs: settings.Probes, With: with,
		Index: v.Index, Python: v.Python, NoInstall: v.NoInstall, Static: v.Static,
		CacheDir: v.EnvCache, Timeout: v.Timeout, Runner: v.Runner,
		Constraints: constraints, HTTPClient: v.HTTPClient, Progress: v.Progress,
	}
	var wheelChecks []report.Check
	if !v.Dynamic() {
		// Static probing reads the wheels pip would install, verified
		// from the store.
		var err error
		if opts.CandidateWheel, wheelChecks, err = v.probeWheel(ctx, cand, settings); err != nil {
			return nil, false, err
		}
		if baseline != nil {
			var more []report.Check
			if opts.BaselineWheel, more, err = v.probeWheel(ctx, *baseline, settings); err != nil {
				return nil, false, err
			}
			wheelChecks = append(wheelChecks, more...)
		}
	} else if !v.NoInstall {
		// Installs take the wheels the store holds (fleet plan's shared
		// cache) instead of downloading them again: the baseline's, the
		// candidate's, and those of the group members installed beside it.
		opts.LocalWheels = v.storedWheels(ctx, append([]*sources.Release{baseline, &cand}, v.besides(ctx, planned, with)...)...)
	}
	rep, err := probe.Run(ctx, opts)
	var ie *probe.InstallError
	var re *probe.ResolveError
	if (errors.As(err, &ie) && baseline != nil && ie.Version == baseline.Version) ||
		(errors.As(err, &re) && baseline != nil && re.Version == baseline.Version) {
		// A baseline that no longer installs (a newer Python, say) leaves the
		// candidate to be judged alone.
		v.log().Warn("baseline does not install; probing the candidate alone", "package", name, "baseline", baseline.Version, "err", err)
		opts.Baseline, opts.BaselineWheel = "", probe.Wheel{}
		rep, err = probe.Run(ctx, opts)
	}
	if errors.As(err, &re) && re.Version == cand.Version {
		check := report.Check{Kind: probe.CheckKind, Name: "environment " + name + "==" + cand.Version, Candidate: "unknown",
			Detail: "held: " + re.Error(), Verdict: string(probe.Warning)}
		return []report.Check{check}, false, re
	}
	if errors.As(err, &ie) && ie.Version == cand.Version {
		detail := "blocked: " + name + " " + cand.Version + " does not install: " + lastLines(ie.Output, 5)
		return []report.Check{{Kind: probe.CheckKind, Name: "install " + name + "==" + cand.Version, Candidate: "fail", Detail: detail, Verdict: string(probe.Blocked)}}, true, nil
	}
	if err != nil {
		return nil, false, err
	}
	env := reportEnvironment(rep)
	var out []report.Check
	for _, r := range rep.Results {
		e := r.Check()
		out = append(out, report.Check{Kind: e.Kind, Name: e.Name, OK: e.OK, Baseline: e.Baseline, Candidate: e.Candidate,
			Detail: e.Detail + wheelsRead(opts), Verdict: string(r.Verdict), Environment: env})
	}
	return append(out, wheelChecks...), rep.Verdict == probe.Blocked, nil
}

// A HeldError is a candidate the project's own pins of other packages hold
// back, as a check job's report recorded it (bot/verdicts): Reason is the
// resolver's account.
type HeldError struct {
	Package, Version, Reason string
}

func (e *HeldError) Error() string { return e.Reason }

// heldByConstraints starts the hold of a package the project's own pins
// hold back (heldVerdict looks for it).
const heldByConstraints = "held by the project's constraints: "

// heldReason reports whether err says the project's pins hold the candidate
// back, and why.
func heldReason(err error) (string, bool) {
	var re *probe.ResolveError
	var he *HeldError
	switch {
	case errors.As(err, &re):
		return re.Error(), true
	case errors.As(err, &he):
		return he.Reason, true
	}
	return "", false
}

// reportEnvironment is the environment section of a dynamic probe's checks.
func reportEnvironment(rep *probe.Report) *report.Environment {
	if rep.CandidateEnv == nil {
		return nil
	}
	dists := func(ds []probe.Dist) []report.Distribution {
		out := []report.Distribution{}
		for _, d := range ds {
			out = append(out, report.Distribution{Name: d.Name, Version: d.Version})
		}
		return out
	}
	env := &report.Environment{Python: rep.CandidateEnv.Python, Candidate: dists(rep.CandidateEnv.Distributions),
		Baseline: []report.Distribution{}, Changes: []report.Change{}, Constraints: []string{}, Reused: rep.CandidateEnv.Reused}
	if rep.BaselineEnv != nil {
		env.Baseline = dists(rep.BaselineEnv.Distributions)
	}
	env.Changes = append(env.Changes, rep.Changes()...)
	for _, c := range rep.Constraints {
		env.Constraints = append(env.Constraints, c.String())
	}
	return env
}

// probeConstraints are the project's requirements of packages other than name,
// as installer constraints: PEP 440 pins with a version constraint, not build
// requirements, with their markers; each once, with the first place it is
// written.
func probeConstraints(name string, project []pins.Pin) []probe.Constraint {
	var out []probe.Constraint
	seen := map[string]bool{}
	scheme := pep440.Scheme{}
	for _, p := range project {
		if !projectPin(p) || strings.TrimSpace(p.Constraint) == "" || config.Key(p.Package) == config.Key(name) {
			continue
		}
		if _, err := scheme.ParseConstraint(p.Constraint); err != nil {
			continue
		}
		req := p.Package + strings.TrimSpace(p.Constraint)
		if p.Condition != "" {
			req += "; " + p.Condition
		}
		if seen[req] || strings.ContainsAny(req, "\n\r\\@[#") {
			continue // written once already, or not a line a constraints file can hold
		}
		seen[req] = true
		out = append(out, probe.Constraint{Requirement: req, Origin: fmt.Sprintf("%s:%d", p.File, p.Line)})
	}
	return out
}

// requirementName returns the normalised name a requirement line starts
// with ("llvmlite" of "llvmlite<=0.49; python_version < '3.13'").
func requirementName(req string) string {
	end := strings.IndexAny(req, "<>=!~;[ (")
	if end < 0 {
		end = len(req)
	}
	return config.Key(strings.TrimSpace(req[:end]))
}

// pypiReleases returns the package's PyPI releases from this run's lookups, or
// asks for them when no pin follows PyPI.
func (v *Verifier) pypiReleases(ctx context.Context, name string, lookups []plan.Lookup) ([]sources.Release, error) {
	for _, l := range lookups {
		if l.Source == "pypi" && l.Err == nil {
			return l.Releases, nil
		}
	}
	if v.Releases == nil {
		return nil, errors.New("no PyPI source to get the releases the checks need")
	}
	return v.Releases(ctx, name)
}

// acceptable returns the releases a cap may move to, newest first.
func acceptable(s versions.Scheme, rs []sources.Release, prereleases bool) []sources.Release {
	var out []sources.Release
	for _, r := range rs {
		if s.Valid(r.Version) && !r.Yanked && len(r.Files) > 0 && (prereleases || !s.Prerelease(r.Version)) {
			out = append(out, r)
		}
	}
	slices.SortFunc(out, func(a, b sources.Release) int { return s.Compare(b.Version, a.Version) })
	return out
}

func findRelease(s versions.Scheme, rs []sources.Release, v string) (sources.Release, bool) {
	for _, r := range rs {
		if v != "" && s.Compare(r.Version, v) == 0 {
			return r, true
		}
	}
	return sources.Release{}, false
}

// currentRelease returns the newest release every pin admits as written
// now: the baseline the checks compare with (nil when none does).
func currentRelease(schemes map[string]versions.Scheme, accepted []sources.Release, ps []pins.Pin) *sources.Release {
	var cs []admitter
	for _, p := range ps {
		if p.Skip == "" {
			cs = append(cs, admitter{pin: p, constraint: p.Constraint})
		}
	}
	r, _, _ := newestAdmitted(schemes, accepted, cs)
	return r
}

// capLookups returns lookups without the releases newer than max, so that a
// new plan targets max (compared in each source's pins' scheme).
func capLookups(lookups []plan.Lookup, ps []pins.Pin, max string, schemes map[string]versions.Scheme) []plan.Lookup {
	out := make([]plan.Lookup, len(lookups))
	for i, l := range lookups {
		out[i] = l
		scheme := schemes[pep440.Name]
		for _, p := range ps {
			if p.Source == l.Source && schemes[p.Scheme] != nil {
				scheme = schemes[p.Scheme]
				break
			}
		}
		out[i].Releases = slices.DeleteFunc(slices.Clone(l.Releases), func(r sources.Release) bool {
			return scheme.Compare(r.Version, max) > 0
		})
	}
	return out
}

func versionOf(r *sources.Release) string {
	if r == nil {
		return ""
	}
	return r.Version
}

func onPath(names ...string) bool {
	for _, n := range names {
		if _, err := exec.LookPath(n); err == nil {
			return true
		}
	}
	return false
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], " | ")
}

func (v *Verifier) log() *slog.Logger {
	if v.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return v.Log
}
