package bot

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/pinbot-dev/pinbot/bot/plan"
	"github.com/pinbot-dev/pinbot/bot/report"
	"github.com/pinbot-dev/pinbot/checks/artifact"
	"github.com/pinbot-dev/pinbot/checks/probe"
	"github.com/pinbot-dev/pinbot/checks/symbols"
	"github.com/pinbot-dev/pinbot/config"
	"github.com/pinbot-dev/pinbot/pins"
	"github.com/pinbot-dev/pinbot/sources"
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
	// TempDir is where large wheel members are unpacked for the scanner.
	TempDir string
	// Fallbacks bounds how many releases older than the candidate are tried
	// when it fails (default 3).
	Fallbacks int
	// Recorded, when set, answers for each candidate instead of running its
	// checks: the verdicts of a check job's report (recorded.go).
	Recorded Recorded
	Log      *slog.Logger
}

// verifyAll runs the checks of every package that moves a cap and asks for
// them, turning its plan blocked (or an error) as the results say. It returns
// each package's check results and verdicts.
func (c *Checker) verifyAll(ctx context.Context, plans []plan.Plan, pkgs []plan.Package, byPkg map[string][]pins.Pin,
	lookups map[string][]plan.Lookup, settings map[string]*config.Package) map[string]verified {
	out := map[string]verified{}
	if c.Verifier == nil {
		return out
	}
	planned := map[string]string{}
	for _, p := range plans {
		if p.Target != "" {
			planned[p.Name] = p.Target
		}
	}
	for i := range plans {
		p := &plans[i]
		if p.Status != plan.Bump || !settings[p.Name].HasChecks() || ctx.Err() != nil {
			continue
		}
		checks, verdicts, err := c.Verifier.verify(ctx, c, p, pkgs[i], byPkg[p.Name], lookups[p.Name], settings[p.Name], planned)
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
	lookups []plan.Lookup, settings *config.Package, planned map[string]string) ([]report.Check, []report.Verdict, error) {
	log := v.log().With("package", p.Name)
	rs, err := v.pypiReleases(ctx, p.Name, lookups)
	if err != nil {
		return nil, nil, err
	}
	scheme := pep440.Scheme{}
	accepted := acceptable(scheme, rs, pkg.Prereleases)
	baseline := currentRelease(scheme, accepted, ps)
	target, ok := findRelease(scheme, accepted, p.Target)
	if !ok {
		return nil, nil, fmt.Errorf("%s %s is not an installable release on PyPI, where the checks get it", p.Name, p.Target)
	}
	candidates := []sources.Release{target}
	fallbacks := cmp.Or(v.Fallbacks, 3)
	if v.NoInstall && len(settings.Probes) > 0 {
		fallbacks = 0 // every candidate would probe the same installed release
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
		checks, blocked, err := v.judge(ctx, p.Name, baseline, cand, settings, planned)
		if i > 0 && errors.Is(err, ErrNotJudged) {
			break // the check job tried no further release: none passed
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
	settings *config.Package, planned map[string]string) (checks []report.Check, blocked bool, err error) {
	if len(settings.Probes) > 0 {
		pc, b, err := v.probe(ctx, name, baseline, cand, settings.Probes)
		if err != nil {
			return nil, false, err
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

func (v *Verifier) probe(ctx context.Context, name string, baseline *sources.Release, cand sources.Release, specs []probe.Spec) ([]report.Check, bool, error) {
	opts := probe.Options{
		Package: name, Baseline: versionOf(baseline), Candidate: cand.Version, Specs: specs,
		Index: v.Index, Python: v.Python, NoInstall: v.NoInstall, Static: v.Static,
		CacheDir: v.EnvCache, Timeout: v.Timeout, Runner: v.Runner,
	}
	if !v.Dynamic() {
		// Static probing reads the wheels, which come verified from the store.
		w, err := v.wheel(ctx, cand, pureFirst)
		if err != nil {
			return nil, false, err
		}
		opts.CandidateWheel = w
		if baseline != nil {
			if opts.BaselineWheel, err = v.wheel(ctx, *baseline, pureFirst); err != nil {
				return nil, false, err
			}
		}
	}
	rep, err := probe.Run(ctx, opts)
	var ie *probe.InstallError
	if errors.As(err, &ie) && baseline != nil && ie.Version == baseline.Version {
		// A baseline that no longer installs (a newer Python, say) leaves the
		// candidate to be judged alone.
		v.log().Warn("baseline does not install; probing the candidate alone", "package", name, "baseline", baseline.Version, "err", err)
		opts.Baseline, opts.BaselineWheel = "", probe.Wheel{}
		rep, err = probe.Run(ctx, opts)
	}
	if errors.As(err, &ie) && ie.Version == cand.Version {
		detail := "blocked: " + name + " " + cand.Version + " does not install: " + lastLines(ie.Output, 5)
		return []report.Check{{Kind: probe.CheckKind, Name: "install " + name + "==" + cand.Version, Candidate: "fail", Detail: detail, Verdict: string(probe.Blocked)}}, true, nil
	}
	if err != nil {
		return nil, false, err
	}
	var out []report.Check
	for _, r := range rep.Results {
		e := r.Check()
		out = append(out, report.Check{Kind: e.Kind, Name: e.Name, OK: e.OK, Baseline: e.Baseline, Candidate: e.Candidate, Detail: e.Detail, Verdict: string(r.Verdict)})
	}
	return out, rep.Verdict == probe.Blocked, nil
}

func (v *Verifier) scan(ctx context.Context, name string, baseline *sources.Release, cand sources.Release,
	spec symbols.Spec, planned map[string]string) (report.Check, bool, error) {
	spec, err := spec.Resolve()
	if err != nil {
		return report.Check{}, false, err
	}
	pick := func(f sources.File) bool { return spec.Wheel.Match(f.Name) }
	candWheel, err := v.wheel(ctx, cand, pick)
	if err != nil {
		return report.Check{}, false, err
	}
	var against, host []string
	for _, a := range spec.Against {
		p, err := v.againstWheel(ctx, a, planned, pick)
		if err != nil {
			return report.Check{}, false, err
		}
		against = append(against, p)
	}
	for _, g := range spec.Host {
		matches, err := filepath.Glob(filepath.Join(v.Root, filepath.FromSlash(g)))
		if err != nil {
			return report.Check{}, false, fmt.Errorf("symbols.host: %q: %w", g, err)
		}
		host = append(host, matches...)
	}
	opts := symbols.Options{Forbid: spec.Forbid, Against: against, Host: host, TempDir: v.TempDir}
	candRes, err := symbols.Scan(ctx, []string{candWheel.Path}, opts)
	if err != nil {
		return report.Check{}, false, err
	}
	var baseRes *symbols.Result
	if baseline != nil {
		baseWheel, err := v.wheel(ctx, *baseline, pick)
		if err != nil {
			return report.Check{}, false, err
		}
		if baseRes, err = symbols.Scan(ctx, []string{baseWheel.Path}, opts); err != nil {
			return report.Check{}, false, err
		}
	}
	verdict := symbols.Compare(baseRes, candRes)
	e := symbols.CheckEntry(cmp.Or(spec.Preset, "symbols"), baseRes, candRes)
	check := report.Check{Kind: e.Kind, Name: e.Name, OK: e.OK, Baseline: e.Baseline, Candidate: e.Candidate, Detail: e.Detail, Verdict: "ok"}
	switch {
	case !verdict.OK:
		check.Verdict = string(probe.Blocked)
	case len(verdict.Existing) > 0:
		check.Verdict = string(probe.Warning)
	}
	return check, !verdict.OK, nil
}

// againstWheel returns another package's wheel at the version this run plans
// for it, or at its newest release on PyPI.
func (v *Verifier) againstWheel(ctx context.Context, pkg string, planned map[string]string, pick func(sources.File) bool) (string, error) {
	if v.Releases == nil {
		return "", fmt.Errorf("symbols.against: %s: no PyPI source to find its wheels", pkg)
	}
	rs, err := v.Releases(ctx, pkg)
	if err != nil {
		return "", fmt.Errorf("symbols.against: %s: %w", pkg, err)
	}
	scheme := pep440.Scheme{}
	accepted := acceptable(scheme, rs, false)
	r, ok := findRelease(scheme, accepted, planned[config.Key(pkg)])
	if !ok && len(accepted) > 0 {
		r, ok = accepted[0], true
	}
	if !ok {
		return "", fmt.Errorf("symbols.against: %s has no installable release on PyPI", pkg)
	}
	w, err := v.wheel(ctx, r, pick)
	return w.Path, err
}

// wheel fetches (or finds in the store) the release's first wheel that pick
// accepts, preferring earlier files.
func (v *Verifier) wheel(ctx context.Context, r sources.Release, pick func(sources.File) bool) (probe.Wheel, error) {
	files := slices.Clone(r.Files)
	slices.SortStableFunc(files, func(a, b sources.File) int { return cmp.Compare(rank(a), rank(b)) })
	for _, f := range files {
		if f.Yanked || !strings.HasSuffix(f.Name, ".whl") || !pick(f) {
			continue
		}
		p, err := v.Artifacts.Fetch(ctx, f)
		if err != nil {
			return probe.Wheel{}, err
		}
		return probe.Wheel{Path: p, Name: f.Name}, nil
	}
	return probe.Wheel{}, fmt.Errorf("%s has no wheel the checks can use among its %d files", r.Version, len(r.Files))
}

// rank orders wheels for static probing: pure Python first, then Linux x86-64.
func rank(f sources.File) int {
	switch {
	case strings.HasSuffix(f.Name, "-none-any.whl"):
		return 0
	case strings.Contains(f.Name, "x86_64"):
		return 1
	}
	return 2
}

func pureFirst(sources.File) bool { return true }

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

// currentRelease returns the newest release every PEP 440 pin admits as written
// now: the baseline the checks compare with (nil when none does).
func currentRelease(s versions.Scheme, accepted []sources.Release, ps []pins.Pin) *sources.Release {
	var cs []versions.Constraint
	for _, p := range ps {
		if p.Scheme != pep440.Name || p.Skip != "" {
			continue
		}
		if c, err := s.ParseConstraint(p.Constraint); err == nil {
			cs = append(cs, c)
		}
	}
	for _, r := range accepted {
		admitted := true
		for _, c := range cs {
			admitted = admitted && s.Match(r.Version, c)
		}
		if admitted {
			return &r
		}
	}
	return nil
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
