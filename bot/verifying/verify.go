package verifying

import (
	"cmp"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/pinbot-dev/pinbot/bot/report"
	"github.com/pinbot-dev/pinbot/checks/artifact"
	"github.com/pinbot-dev/pinbot/checks/probe"
	"github.com/pinbot-dev/pinbot/checks/usage"
	"github.com/pinbot-dev/pinbot/config"
	"github.com/pinbot-dev/pinbot/internal/progress"
	"github.com/pinbot-dev/pinbot/sources"
	"github.com/pinbot-dev/pinbot/sources/wheel"
	"github.com/pinbot-dev/pinbot/versions"
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
	// Channels finds the conda sources by channel name, for the conda
	// packages a check reads beyond the checked one (a metapackage's exact
	// dependencies, against packages): the configured channels and those
	// the pin files name (sources/conda's Channels); nil finds none.
	Channels sources.Registry
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

// A Request asks for the verdict on one package's candidates. Planning
// chose them, the target first, and the baseline they are compared with;
// the verifier knows nothing of pins, plans or pull requests.
type Request struct {
	// Package is the package's name; Settings its configuration (its
	// probes, its symbols check).
	Package  string
	Settings *config.Package
	// Baseline is the release the caps admit now, what the project runs
	// today (nil: none).
	Baseline *sources.Release
	// Candidates are the releases to judge, newest first: the target, then
	// older releases after the baseline to fall back to when it fails. The
	// verifier stops at the first that passes and tries at most Fallbacks
	// of the older ones.
	Candidates []sources.Release
	// Constraints are the project's requirements of other packages, which
	// the probes' installer must respect.
	Constraints []probe.Constraint
	// With are the releases installed beside each candidate: a group's
	// other members at their targets.
	With []Beside
	// BaselineWith are the releases installed beside the baseline: a
	// group's other members at the releases their caps admit now (a
	// member whose caps admit none is left out), so that the baseline is
	// what the project runs today. Static probes read neither.
	BaselineWith []Beside
	// Installs says which release of another package the project installs
	// (a symbol scan's against packages) among accepted, newest first, and
	// why; nil takes the newest.
	Installs Installs
	// Prerelease marks the candidate as the pre-release of an early
	// warning: recorded verdicts come from the report's early warning.
	Prerelease bool
	// Uses are the references the repository's code makes to the package
	// (checks/usage), judged by one usage check beside its probes, in the
	// same environments and process; nil for none.
	Uses []usage.Ref
	// Nightly marks the candidate as a nightly build of an early warning,
	// uploaded at Uploaded (zero: unknown): recorded verdicts come from
	// the report's nightly, for that build, and its files come from its
	// own source, so dynamic probes install exactly them (the candidate's
	// wheel, fetched and verified into the store, and the Pinned releases
	// of With), never a file of that version the probes' index resolves.
	Nightly  bool
	Uploaded time.Time
	// Distribution is the candidate's distribution name when it is not
	// Package: the same code under another name (tf-nightly for
	// tensorflow), installed as such; probes import by module names.
	Distribution string
}

// A Beside is a release installed beside a candidate: its requirement
// (name==version) and, when planning found it, the release as PyPI lists
// it, whose stored wheel the installer may take.
type Beside struct {
	Requirement string
	Release     *sources.Release
	// Pinned is set for a release from another source than the probes'
	// index (a group member's nightly build beside the candidate's): it is
	// installed from Release's wheel alone, as a nightly candidate is.
	Pinned bool
}

// A Result is the verifier's answer to a Request.
type Result struct {
	// Checks are the check results of the first candidate, the target.
	Checks []report.Check
	// Verdicts are the verdicts on the candidates judged, in order.
	Verdicts []report.Verdict
	// Passed is the candidate that passed ("" when none did).
	Passed string
}

// Verify judges req's candidates in order against its baseline, and stops
// at the first that passes. The error is the target's: a *HeldError or
// probe.ResolveError when the project's own pins shut it out (HeldReason),
// an error wrapping ErrNotJudged when recorded verdicts say nothing of it,
// or a failure that left the checks without a verdict.
func (v *Verifier) Verify(ctx context.Context, req Request) (Result, error) {
	var res Result
	if len(req.Candidates) == 0 {
		return res, errors.New("no candidate to verify")
	}
	if req.Settings == nil {
		// A package watched with the defaults (numba: with no keys) has
		// no probes or scan; its usage checks may still run.
		req.Settings = &config.Package{}
	}
	log := v.log().With("package", req.Package)
	candidates := req.Candidates
	fallbacks := cmp.Or(v.Fallbacks, 3)
	if v.NoInstall && (len(req.Settings.Probes) > 0 || len(req.Uses) > 0) {
		fallbacks = 0 // every candidate would probe the same installed release
	}
	if len(candidates) > fallbacks+1 {
		candidates = candidates[:fallbacks+1]
	}
	baseline := versionOf(req.Baseline)
	for i, cand := range candidates {
		log.Info("running checks", "baseline", baseline, "candidate", cand.Version)
		checks, blocked, err := v.judge(ctx, &req, cand)
		if i > 0 && errors.Is(err, ErrNotJudged) {
			break // the check job tried no further release: none passed
		}
		if reason, held := HeldReason(err); held {
			verdict := report.Verdict{Version: cand.Version, Baseline: baseline, Held: reason}
			if i == 0 {
				res.Checks, res.Verdicts = append(res.Checks, checks...), append(res.Verdicts, verdict)
				return res, err
			}
			// An older release the project's pins rule out does not pass either.
			log.Warn("checks cannot run", "candidate", cand.Version, "err", err)
			verdict.Blocked = true
			res.Verdicts = append(res.Verdicts, verdict)
			continue
		}
		if err != nil {
			if i == 0 && (req.Prerelease || req.Nightly) {
				res.Checks = checks // an early warning reports what ran
			}
			return res, err
		}
		res.Verdicts = append(res.Verdicts, report.Verdict{Version: cand.Version, Baseline: baseline, Blocked: blocked})
		if i == 0 {
			res.Checks = checks
		}
		if !blocked {
			res.Passed = cand.Version
			break
		}
		log.Warn("checks failed", "candidate", cand.Version)
	}
	return res, nil
}

// Resolve asks a resolver, in the probe interpreter with the probes'
// index and limits, what the requirements resolve to (probe.Resolve).
func (v *Verifier) Resolve(ctx context.Context, requirements []string) (*probe.Resolution, error) {
	opts := probe.Options{Python: v.Python, Index: v.Index, Timeout: v.Timeout, Runner: v.Runner, TempDir: v.TempDir, CacheDir: v.EnvCache}
	return probe.Resolve(ctx, opts, requirements)
}

// run runs the checks of one candidate against req's baseline; blocked
// reports whether a check failed that passed at the baseline.
func (v *Verifier) run(ctx context.Context, req *Request, cand sources.Release) (checks []report.Check, blocked bool, err error) {
	settings := req.Settings
	if len(settings.Probes) > 0 || len(req.Uses) > 0 {
		var pc []report.Check
		var b bool
		if isConda(cand) {
			pc, b, err = v.condaProbe(ctx, req, cand)
		} else {
			pc, b, err = v.probe(ctx, req, req.Baseline, cand, req.With, req.BaselineWith)
		}
		if err != nil {
			return pc, false, err
		}
		checks, blocked = append(checks, pc...), blocked || b
	}
	if settings.Symbols != nil {
		sc, b, err := v.scan(ctx, req, cand, *settings.Symbols)
		if err != nil {
			return nil, false, err
		}
		checks, blocked = append(checks, sc), blocked || b
	}
	return checks, blocked, nil
}

// probe runs req's probes of one candidate against baseline, with the
// releases of with installed beside it and those of baseWith beside the
// baseline (a group's other members).
func (v *Verifier) probe(ctx context.Context, req *Request, baseline *sources.Release, cand sources.Release, with, baseWith []Beside) ([]report.Check, bool, error) {
	name, settings := req.Package, req.Settings
	opts := probe.Options{
		Package: name, Baseline: versionOf(baseline), Candidate: cand.Version, Specs: settings.Probes, Uses: usesOf(req.Uses),
		With: requirements(with), BaselineWith: requirements(baseWith),
		Index: v.Index, Python: v.Python, NoInstall: v.NoInstall, Static: v.Static,
		CacheDir: v.EnvCache, Timeout: v.Timeout, Runner: v.Runner,
		Constraints: req.Constraints, HTTPClient: v.HTTPClient, Progress: v.Progress,
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
		// candidate's, and those of the group members installed beside
		// each.
		rs := append([]*sources.Release{baseline, &cand}, besides(with)...)
		opts.LocalWheels = v.storedWheels(ctx, append(rs, besides(baseWith)...)...)
		if req.Nightly {
			pinned, err := v.pinnedWheels(ctx, req, cand, with)
			if err != nil {
				return nil, false, err
			}
			opts.LocalWheels = append(opts.LocalWheels, pinned...)
			opts.Pinned = append([]string{cmp.Or(req.Distribution, name)}, pinnedNames(with)...)
		}
	}
	opts.CandidateDist = req.Distribution
	rep, err := probe.Run(ctx, opts)
	var ie *probe.InstallError
	var re *probe.ResolveError
	if (errors.As(err, &ie) && baseline != nil && ie.Version == baseline.Version) ||
		(errors.As(err, &re) && baseline != nil && re.Version == baseline.Version) {
		// A baseline that no longer installs (a newer Python, say) leaves the
		// candidate to be judged alone.
		v.log().Warn("baseline does not install; probing the candidate alone", "package", name, "baseline", baseline.Version, "err", err)
		opts.Baseline, opts.BaselineWheel, opts.BaselineWith = "", probe.Wheel{}, nil
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
	out, blocked := checksOf(rep, req, opts, reportEnvironment(rep), wheelsRead(opts))
	return append(out, wheelChecks...), blocked, nil
}

// checksOf turns a probe run's report into the report's checks: one per
// probe, and the usage check of req's references when it had some; suffix
// ends every detail (what the checks read). blocked reports whether one of
// them blocks: the usage check judges guarded references more mildly than
// the probe report's verdict, which counts every use alike.
func checksOf(rep *probe.Report, req *Request, opts probe.Options, env *report.Environment, suffix string) ([]report.Check, bool) {
	var out []report.Check
	blocked := false
	for _, r := range rep.Results {
		e := r.Check()
		out = append(out, report.Check{Kind: e.Kind, Name: e.Name, OK: e.OK, Baseline: e.Baseline, Candidate: e.Candidate,
			Detail: e.Detail + suffix, Verdict: string(r.Verdict), Environment: env})
		blocked = blocked || r.Verdict == probe.Blocked
	}
	if len(req.Uses) > 0 && len(rep.Uses) > 0 {
		c := usageCheck(req.Uses, rep.Uses, opts.Baseline, opts.Candidate)
		c.Detail += suffix
		c.Environment = env
		out = append(out, c)
		blocked = blocked || c.Verdict == string(probe.Blocked)
	}
	return out, blocked
}

// A HeldError is a candidate the project's own pins of other packages hold
// back, as a check job's report recorded it (bot/verifying/verdicts): Reason is the
// resolver's account.
type HeldError struct {
	Package, Version, Reason string
}

func (e *HeldError) Error() string { return e.Reason }

// HeldReason reports whether err says the project's pins hold the candidate
// back, and why.
func HeldReason(err error) (string, bool) {
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

// Acceptable returns the releases a cap may move to, newest first: valid
// versions in s, not yanked, with files, and pre-releases only when asked.
func Acceptable(s versions.Scheme, rs []sources.Release, prereleases bool) []sources.Release {
	var out []sources.Release
	for _, r := range rs {
		if s.Valid(r.Version) && !r.Yanked && len(r.Files) > 0 && (prereleases || !s.Prerelease(r.Version)) {
			out = append(out, r)
		}
	}
	slices.SortFunc(out, func(a, b sources.Release) int { return s.Compare(b.Version, a.Version) })
	return out
}

// FindRelease returns the release of rs whose version is v in s.
func FindRelease(s versions.Scheme, rs []sources.Release, v string) (sources.Release, bool) {
	for _, r := range rs {
		if v != "" && s.Compare(r.Version, v) == 0 {
			return r, true
		}
	}
	return sources.Release{}, false
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
