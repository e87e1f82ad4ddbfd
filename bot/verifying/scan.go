package verifying

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/pinbot-dev/pinbot/bot/report"
	"github.com/pinbot-dev/pinbot/checks/probe"
	"github.com/pinbot-dev/pinbot/checks/symbols"
	"github.com/pinbot-dev/pinbot/config"
	"github.com/pinbot-dev/pinbot/sources"
	"github.com/pinbot-dev/pinbot/sources/wheel"
	"github.com/pinbot-dev/pinbot/versions/pep440"
)

// scan runs the symbols check of one candidate against the baseline: what
// each release installs (the wheel pip would install for the package's
// wheel target, or the conda package conda would install for its conda
// target, as the release's files say: see checkReleases), against the
// against packages at the version the project installs and the host
// libraries. blocked reports whether the candidate has a new problem.
func (v *Verifier) scan(ctx context.Context, req *Request, cand sources.Release, spec symbols.Spec) (report.Check, bool, error) {
	name, baseline := req.Package, req.Baseline
	spec, err := spec.Resolve()
	if err != nil {
		return report.Check{}, false, err
	}
	rd, err := v.artifactReader(ctx, spec, cand)
	if err != nil {
		return report.Check{}, false, err
	}
	var env symbols.Env
	candPaths, candSide, err := rd.release(ctx, name, cand)
	if err != nil {
		return report.Check{}, false, err
	}
	var basePaths []string
	var baseSide *symbols.Side
	if baseline != nil {
		var side symbols.Side
		if basePaths, side, err = rd.release(ctx, name, *baseline); err != nil {
			return report.Check{}, false, err
		}
		baseSide = &side
	}
	var against, host []string
	for _, a := range spec.Against {
		ps, note, warning := rd.against(ctx, a, req.Installs)
		against = append(against, ps...)
		if note != "" {
			env.Notes = append(env.Notes, note)
		}
		if warning != "" {
			env.Warnings = append(env.Warnings, warning)
		}
	}
	for _, g := range spec.Host {
		matches, err := symbols.ResolveHost(v.Root, g)
		if err != nil {
			env.Warnings = append(env.Warnings, "symbols.host: "+err.Error())
			continue
		}
		host = append(host, matches...)
	}
	if len(spec.Host) > 0 {
		env.Notes = append(env.Notes, "host "+strings.Join(host, ", "))
	}
	opts := symbols.Options{Forbid: spec.Forbid, Against: against, Host: host, TempDir: v.TempDir}
	for _, s := range []struct {
		paths []string
		side  *symbols.Side
	}{{candPaths, &candSide}, {basePaths, baseSide}} {
		if len(s.paths) == 0 || s.side == nil {
			continue
		}
		if s.side.Result, err = symbols.Scan(ctx, s.paths, opts); err != nil {
			return report.Check{}, false, err
		}
		if s.side.Result.Targets() > 0 || len(s.side.Result.Errors) > 0 {
			continue
		}
		// Nothing to scan: a metapackage's libraries are in the packages
		// it pins exactly.
		more, err := rd.follow(ctx, s.side)
		if err != nil {
			return report.Check{}, false, err
		}
		if len(more) > 0 {
			if s.side.Result, err = symbols.Scan(ctx, more, opts); err != nil {
				return report.Check{}, false, err
			}
		}
	}
	env.Notes = append(rd.notes(), env.Notes...)
	e := symbols.Judge(cmp.Or(spec.Preset, "symbols"), baseSide, candSide, env)
	check := report.Check{Kind: e.Kind, Name: e.Name, OK: e.OK, Baseline: e.Baseline, Candidate: e.Candidate, Detail: e.Detail, Verdict: e.Verdict}
	return check, e.Verdict == symbols.VerdictBlocked, nil
}

// An artifactReader fetches what a symbols check reads: of a release of
// the checked package, and of an against package.
type artifactReader interface {
	// release returns the files to scan of r and what the check read.
	release(ctx context.Context, name string, r sources.Release) ([]string, symbols.Side, error)
	// against returns the files of another package, with a note naming
	// the version read and why, or a warning saying why there are none.
	against(ctx context.Context, pkg string, installs Installs) (paths []string, note, warning string)
	// follow returns what to scan instead of a side that yielded no shared
	// object (a metapackage's pinned dependencies), updating the side's
	// File; nil when there is nothing to follow.
	follow(ctx context.Context, side *symbols.Side) ([]string, error)
	// notes say, for the check's detail, how the artifacts were chosen.
	notes() []string
}

// artifactReader returns the reader for cand's kind of files: conda
// packages when checkReleases gave conda releases, else wheels.
func (v *Verifier) artifactReader(ctx context.Context, spec symbols.Spec, cand sources.Release) (artifactReader, error) {
	if isConda(cand) {
		return newCondaReader(v, spec.Conda.Target(), cand), nil
	}
	target, err := v.target(ctx, spec.Wheel)
	if err != nil {
		return nil, err
	}
	return wheelReader{v: v, target: target}, nil
}

// A wheelReader reads the wheels pip would install for a target.
type wheelReader struct {
	v      *Verifier
	target wheel.Target
}

func (w wheelReader) release(ctx context.Context, name string, r sources.Release) ([]string, symbols.Side, error) {
	p, side, err := w.v.scanWheel(ctx, name, r, w.target)
	if p == "" {
		return nil, side, err
	}
	return []string{p}, side, err
}

func (w wheelReader) against(ctx context.Context, pkg string, installs Installs) ([]string, string, string) {
	p, note, warning := w.v.againstWheel(ctx, pkg, installs, w.target)
	if p == "" {
		return nil, note, warning
	}
	return []string{p}, note, warning
}

func (wheelReader) follow(context.Context, *symbols.Side) ([]string, error) { return nil, nil }
func (wheelReader) notes() []string                                         { return nil }

// scanWheel fetches the wheel of r pip would install for target, and says
// what the choice means for a scan (a release with binary wheels, none of
// them for the target, warns). The path is "" when no wheel installs.
func (v *Verifier) scanWheel(ctx context.Context, name string, r sources.Release, target wheel.Target) (string, symbols.Side, error) {
	c := wheel.Choose(target, r.Files)
	side := symbols.Side{Version: r.Version, Warning: c.Warning(name + " " + r.Version)}
	if !c.Found {
		return "", side, nil
	}
	p, err := v.Artifacts.Fetch(ctx, c.File)
	if err != nil {
		return "", side, err
	}
	side.File = c.File.Name
	return p, side, nil
}

// againstWheel returns another package's wheel, chosen for target, at the
// version the project installs (installs); note says which version
// was read and why, warning what kept the check from reading it.
func (v *Verifier) againstWheel(ctx context.Context, pkg string, installs Installs, target wheel.Target) (path, note, warning string) {
	if v.Releases == nil {
		return "", "", fmt.Sprintf("against %s: no PyPI source to find its wheels", pkg)
	}
	rs, err := v.Releases(ctx, pkg)
	if err != nil {
		return "", "", fmt.Sprintf("against %s: %v", pkg, err)
	}
	r, why, ok := installs.version(pkg, Acceptable(pep440.Scheme{}, rs, false))
	if !ok {
		return "", "", fmt.Sprintf("against %s: no installable release on PyPI", pkg)
	}
	c := wheel.Choose(target, r.Files)
	if w := c.Warning(pkg + " " + r.Version); w != "" {
		warning = "against " + w
	}
	if !c.Found {
		return "", "", warning
	}
	p, err := v.Artifacts.Fetch(ctx, c.File)
	if err != nil {
		return "", "", fmt.Sprintf("against %s %s: %v", pkg, r.Version, err)
	}
	return p, fmt.Sprintf("against %s %s (%s): %s", pkg, r.Version, c.File.Name, why), warning
}

// probeWheel returns the wheel of r static probes read: the one pip would
// install for the package's wheel target. A release with binary wheels but
// none for the target (and no pure one) is read from its first wheel
// instead, with a warning entry saying so, since its Python files are most
// likely the same.
func (v *Verifier) probeWheel(ctx context.Context, r sources.Release, settings *config.Package) (probe.Wheel, []report.Check, error) {
	var spec symbols.WheelSpec
	if settings.Symbols != nil {
		spec = settings.Symbols.Wheel
	}
	target, err := v.target(ctx, spec)
	if err != nil {
		return probe.Wheel{}, nil, err
	}
	c := wheel.Choose(target, r.Files)
	var checks []report.Check
	if w := c.Warning(r.Version); w != "" {
		f, ok := firstWheel(r.Files)
		if !c.Found && !ok {
			return probe.Wheel{}, nil, fmt.Errorf("%s has no wheel the checks can use among its %d files", r.Version, len(r.Files))
		}
		if !c.Found {
			c.File = f
			w += "; static probes read " + f.Name
		}
		checks = append(checks, report.Check{Kind: probe.CheckKind, Name: "wheel " + r.Version, Candidate: "unknown", Detail: w, Verdict: string(probe.Warning)})
	}
	p, err := v.Artifacts.Fetch(ctx, c.File)
	if err != nil {
		return probe.Wheel{}, nil, err
	}
	return probe.Wheel{Path: p, Name: c.File.Name}, checks, nil
}

// installWheel returns the wheel of r that pip installs for the probe
// interpreter (the Verifier's platform and the interpreter's Python,
// chosen by wheel.Choose); false when the interpreter's version is not
// known or no wheel of r installs there.
func (v *Verifier) installWheel(ctx context.Context, r sources.Release) (sources.File, bool) {
	target := v.Wheel
	if target.Python = v.interpreterPython(ctx); target.Python == "" {
		return sources.File{}, false
	}
	c := wheel.Choose(target, r.Files)
	return c.File, c.Found
}

// storedWheels returns the wheels dynamic probes would install for the
// releases rs (nil ones skipped) that the artifact store already holds,
// verified, for the installer to take instead of downloading them again
// (probe.LocalWheel): a fleet's jobs sharing fleet plan's cache directory
// then install the new release without fetching it.
func (v *Verifier) storedWheels(ctx context.Context, rs ...*sources.Release) []probe.LocalWheel {
	var out []probe.LocalWheel
	for _, r := range rs {
		if r == nil || v.Artifacts == nil {
			continue
		}
		f, ok := v.installWheel(ctx, *r)
		if !ok {
			continue
		}
		if p, ok := v.Artifacts.Lookup(f); ok {
			out = append(out, probe.LocalWheel{Path: p, SHA256: strings.ToLower(f.SHA256)})
		}
	}
	return out
}

// requirements returns the requirements (name==version) of with, as
// probe.Options.With and BaselineWith take them.
func requirements(with []Beside) []string {
	var out []string
	for _, w := range with {
		out = append(out, w.Requirement)
	}
	return out
}

// besides returns the releases of with that planning found on PyPI, for
// storedWheels; the others the installer takes from the index.
func besides(with []Beside) []*sources.Release {
	var out []*sources.Release
	for _, w := range with {
		if w.Release != nil {
			out = append(out, w.Release)
		}
	}
	return out
}

func firstWheel(files []sources.File) (sources.File, bool) {
	for _, f := range files {
		if !f.Yanked && strings.HasSuffix(f.Name, ".whl") {
			if _, err := wheel.Parse(f.Name); err == nil {
				return f, true
			}
		}
	}
	return sources.File{}, false
}

// wheelsRead names the wheels static probes read, for a check's detail.
func wheelsRead(opts probe.Options) string {
	if opts.CandidateWheel.Name == "" {
		return ""
	}
	s := "; read " + opts.CandidateWheel.Name
	if opts.BaselineWheel.Name != "" {
		s += " (baseline " + opts.BaselineWheel.Name + ")"
	}
	return s
}

// target returns what wheels are chosen for: spec's platform and Python,
// else the Verifier's defaults, the Python asked of the probe interpreter
// when neither names one.
func (v *Verifier) target(ctx context.Context, spec symbols.WheelSpec) (wheel.Target, error) {
	def := v.Wheel
	if def.Python == "" && spec.Python == "" {
		def.Python = v.interpreterPython(ctx)
	}
	return spec.Target(def)
}

// pyVersionRE is what interpreterPython accepts, compiled when first used:
// only a probe asks the interpreter.
var pyVersionRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^3\.\d{1,2}$`) })

// interpreterPython returns the "3.N" version of the probe interpreter (the
// Python flag, else python3 or python on PATH), asked once; "" when there is
// none or it does not answer.
func (v *Verifier) interpreterPython(ctx context.Context) string {
	v.pyOnce.Do(func() {
		py := v.Python
		if py == "" {
			for _, name := range []string{"python3", "python"} {
				if p, err := exec.LookPath(name); err == nil {
					py = p
					break
				}
			}
		}
		if py == "" {
			return
		}
		out, err := probe.ExecRunner{}.Run(ctx, &probe.Command{
			Path: py, Args: []string{"-I", "-c", `import sys; print("%d.%d" % sys.version_info[:2])`},
			Dir: os.TempDir(), Env: []string{"PATH=" + os.Getenv("PATH")}, Timeout: 30 * time.Second, MaxOutput: 1 << 10,
		})
		if err != nil || out.ExitCode != 0 {
			v.log().Warn("cannot ask the probe interpreter its version; wheels are chosen for any CPython 3", "python", py, "err", err)
			return
		}
		if s := strings.TrimSpace(string(out.Stdout)); pyVersionRE().MatchString(s) {
			v.pyVersion = s
		}
	})
	return v.pyVersion
}

// Installs says which release of a package the project installs among
// accepted (newest first), and why (Request.Installs).
type Installs func(pkg string, accepted []sources.Release) (sources.Release, string, bool)

// version is installs' answer, or accepted's newest when there is no
// Installs.
func (installs Installs) version(pkg string, accepted []sources.Release) (sources.Release, string, bool) {
	if installs != nil {
		return installs(pkg, accepted)
	}
	if len(accepted) == 0 {
		return sources.Release{}, "", false
	}
	return accepted[0], "its newest release", true
}

// pinnedWheels fetches into the store the wheels dynamic probes install of
// a nightly candidate and of the pinned releases beside it (a group's
// other nightlies), for the probe interpreter: they come from their own
// source, and the installer takes them from these files alone
// (probe.Options.Pinned). A release with no wheel for the interpreter is an
// error: the checks cannot install it, which says nothing of the build.
func (v *Verifier) pinnedWheels(ctx context.Context, req *Request, cand sources.Release, with []Beside) ([]probe.LocalWheel, error) {
	type pin struct {
		name string
		r    sources.Release
	}
	pins := []pin{{cmp.Or(req.Distribution, req.Package), cand}}
	for _, w := range with {
		if w.Pinned && w.Release != nil {
			name, _, _ := strings.Cut(w.Requirement, "==")
			pins = append(pins, pin{name, *w.Release})
		}
	}
	var out []probe.LocalWheel
	for _, p := range pins {
		f, ok := v.installWheel(ctx, p.r)
		if !ok {
			return nil, fmt.Errorf("no wheel of %s %s from its nightly source installs on the probe interpreter (%s, Python %s)",
				p.name, p.r.Version, v.Wheel.Platform.String(), cmp.Or(v.interpreterPython(ctx), "unknown"))
		}
		path, err := v.Artifacts.Fetch(ctx, f)
		if err != nil {
			return nil, err
		}
		out = append(out, probe.LocalWheel{Path: path, SHA256: strings.ToLower(f.SHA256)})
	}
	return out, nil
}

// pinnedNames are the names of with's pinned releases.
func pinnedNames(with []Beside) []string {
	var out []string
	for _, w := range with {
		if w.Pinned && w.Release != nil {
			name, _, _ := strings.Cut(w.Requirement, "==")
			out = append(out, name)
		}
	}
	return out
}
