package verifying

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/pinbot-dev/pinbot/bot/report"
	"github.com/pinbot-dev/pinbot/checks/artifact/archive"
	"github.com/pinbot-dev/pinbot/checks/probe"
	"github.com/pinbot-dev/pinbot/checks/symbols"
	"github.com/pinbot-dev/pinbot/config"
	"github.com/pinbot-dev/pinbot/sources"
	"github.com/pinbot-dev/pinbot/sources/condafile"
	"github.com/pinbot-dev/pinbot/sources/wheel"
	condaversions "github.com/pinbot-dev/pinbot/versions/conda"
	"github.com/pinbot-dev/pinbot/versions/pep440"
)

// maxFollow bounds the exactly pinned dependencies of a metapackage a check
// follows.
const maxFollow = 8

// channel returns the conda source of a channel: a configured one, or one
// a pin file names (Channels makes it on first use).
func (v *Verifier) channel(name string) (sources.Source, error) {
	if v.Channels == nil {
		return nil, errors.New("no conda channel is configured")
	}
	return v.Channels.Source(name)
}

// isConda reports whether r's files are conda packages: its checks then
// read conda packages (checkReleases chose them).
func isConda(r sources.Release) bool {
	return slices.ContainsFunc(r.Files, func(f sources.File) bool { return f.Kind == sources.KindConda })
}

// A condaPick is the conda package file a check read of one release.
type condaPick struct {
	choice condafile.Choice
	path   string
}

// A condaReader reads the conda packages conda would install for a target,
// from the channel the release's files come from.
type condaReader struct {
	v       *Verifier
	target  condafile.Target
	channel string
	// python is set when the Python was chosen by the candidate (none was
	// configured): the baseline is read for the same one where it can be.
	python string
	picks  map[string]condaPick // by release version
	extra  []string             // notes on how the files were chosen
}

func newCondaReader(v *Verifier, target condafile.Target, r sources.Release) *condaReader {
	cr := &condaReader{v: v, target: target, picks: map[string]condaPick{}}
	for _, f := range r.Files {
		if f.Channel != "" {
			cr.channel = f.Channel
			break
		}
	}
	return cr
}

// choose picks r's file for the target; with no Python configured, the
// first release read (the candidate) sets it for the others, and a release
// without a build for it is read for its own newest Python, with a note.
func (c *condaReader) choose(name string, r sources.Release) condafile.Choice {
	t := c.target
	if t.Python == "" && c.python != "" {
		t.Python = c.python
	}
	ch := condafile.Choose(t, r.Files)
	if !ch.Found && c.target.Python == "" && c.python != "" {
		if own := condafile.Choose(c.target, r.Files); own.Found {
			c.extra = append(c.extra, fmt.Sprintf("%s %s has no %s build for Python %s: read its build for Python %s",
				name, r.Version, c.subdir(), c.python, own.Python))
			ch = own
		}
	}
	if ch.Found && c.python == "" && c.target.Python == "" {
		c.python = ch.Python
	}
	return ch
}

func (c *condaReader) subdir() string { return cmp.Or(c.target.Subdir, condafile.DefaultSubdir) }

func (c *condaReader) release(ctx context.Context, name string, r sources.Release) ([]string, symbols.Side, error) {
	ch := c.choose(name, r)
	side := symbols.Side{Version: r.Version, Warning: ch.Warning(name + " " + r.Version)}
	if !ch.Found {
		return nil, side, nil
	}
	p, err := c.v.Artifacts.Fetch(ctx, ch.File)
	if err != nil {
		return nil, side, err
	}
	side.File = ch.File.Name
	c.picks[r.Version] = condaPick{choice: ch, path: p}
	if len(c.picks) == 1 {
		py := "Python " + c.target.Python
		if c.target.Python == "" {
			py = "the newest Python built for"
		}
		c.extra = append(c.extra, fmt.Sprintf("conda packages from %s for %s, %s: %s", c.channel, c.subdir(), py, ch.Describe()))
	}
	return []string{p}, side, nil
}

// follow fetches the packages a release's file pins exactly, from the same
// channel, for the same subdir and Python: where a metapackage's libraries
// and modules live (conda-forge's tensorflow pins tensorflow-base).
func (c *condaReader) follow(ctx context.Context, side *symbols.Side) ([]string, error) {
	picks, err := c.followPicks(ctx, side)
	var paths []string
	for _, p := range picks {
		paths = append(paths, p.path)
	}
	return paths, err
}

func (c *condaReader) followPicks(ctx context.Context, side *symbols.Side) ([]condaPick, error) {
	pick, ok := c.picks[side.Version]
	if !ok {
		return nil, nil
	}
	pins := condafile.ExactPins(pick.choice.File.Depends)
	if len(pins) == 0 {
		return nil, nil
	}
	src, err := c.v.channel(pick.choice.File.Channel)
	if err != nil {
		side.Warning = join(side.Warning, fmt.Sprintf("%s pins %s, but channel %q cannot be asked: %v", pick.choice.File.Name, pins[0], pick.choice.File.Channel, err))
		return nil, nil
	}
	if len(pins) > maxFollow {
		side.Warning = join(side.Warning, fmt.Sprintf("%s pins %d packages exactly: only the first %d are read", pick.choice.File.Name, len(pins), maxFollow))
		pins = pins[:maxFollow]
	}
	t := condafile.Target{Subdir: pick.choice.File.Subdir, Python: pick.choice.Python}
	if t.Subdir == "noarch" {
		t.Subdir = c.subdir()
	}
	var out []condaPick
	var names []string
	for _, pin := range pins {
		rs, err := src.Releases(ctx, pin.Name)
		if err != nil {
			side.Warning = join(side.Warning, fmt.Sprintf("%s pins %s, which cannot be looked up: %v", pick.choice.File.Name, pin, err))
			continue
		}
		var files []sources.File
		for _, r := range rs {
			for _, f := range r.Files {
				if pin.Matches(r.Version, f) {
					files = append(files, f)
				}
			}
		}
		ch := condafile.Choose(t, files)
		if !ch.Found {
			side.Warning = join(side.Warning, fmt.Sprintf("%s pins %s, which %s has no file of for %s", pick.choice.File.Name, pin, src.Name(), t))
			continue
		}
		p, err := c.v.Artifacts.Fetch(ctx, ch.File)
		if err != nil {
			return out, err
		}
		out = append(out, condaPick{choice: ch, path: p})
		names = append(names, ch.File.Name)
	}
	if len(names) > 0 {
		side.File += " → " + strings.Join(names, ", ")
		c.extra = append(c.extra, fmt.Sprintf("%s is a metapackage: read what it pins exactly (%s)", pick.choice.File.Name, strings.Join(names, ", ")))
	}
	return out, nil
}

// against reads another conda package from the channel, at the version the
// project installs, for the same target.
func (c *condaReader) against(ctx context.Context, pkg string, installs Installs) ([]string, string, string) {
	src, err := c.v.channel(c.channel)
	if err != nil {
		return nil, "", fmt.Sprintf("against %s: no conda channel %q to find its packages: %v", pkg, c.channel, err)
	}
	rs, err := src.Releases(ctx, pkg)
	if err != nil {
		return nil, "", fmt.Sprintf("against %s: %v", pkg, err)
	}
	r, why, ok := installs.version(pkg, Acceptable(condaversions.Scheme{}, rs, false))
	if !ok {
		return nil, "", fmt.Sprintf("against %s: no installable release on %s", pkg, c.channel)
	}
	ch := c.choose(pkg, r)
	if !ch.Found {
		return nil, "", "against " + ch.Warning(pkg+" "+r.Version)
	}
	p, err := c.v.Artifacts.Fetch(ctx, ch.File)
	if err != nil {
		return nil, "", fmt.Sprintf("against %s %s: %v", pkg, r.Version, err)
	}
	return []string{p}, fmt.Sprintf("against %s %s (%s from %s): %s", pkg, r.Version, ch.File.Name, c.channel, why), ""
}

func (c *condaReader) notes() []string { return c.extra }

func join(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// condaTarget is the conda target of a package's checks.
func condaTarget(settings *config.Package) condafile.Target {
	if settings != nil && settings.Symbols != nil {
		return settings.Symbols.Conda.Target()
	}
	return condafile.Target{}
}

// condaProbe runs the probes of a package checked against conda packages.
// Dynamic probes install pip wheels, as they do for any package, when the
// index has wheels of both versions for the wheel target, and say so; with
// none, or in static mode, the probes read the Python files of the conda
// packages (condaStatic), with the reason.
func (v *Verifier) condaProbe(ctx context.Context, req *Request, cand sources.Release) ([]report.Check, bool, error) {
	name, baseline, settings := req.Package, req.Baseline, req.Settings
	if v.NoInstall {
		return v.probe(ctx, req, baseline, cand, nil, nil) // probes what is installed, conda or not
	}
	reason := "--static"
	if !v.Static {
		reason = "no Python to run probes with"
	}
	if v.Dynamic() {
		twinBase, twinCand, why := v.pipTwins(ctx, name, baseline, cand, settings)
		if why == "" {
			checks, blocked, err := v.probe(ctx, req, twinBase, twinCand, nil, nil)
			note := fmt.Sprintf("; probes ran on %s %s installed from the index's pip wheels: the conda package is what users install, the wheels are what probes could run", name, cand.Version)
			for i := range checks {
				checks[i].Detail += note
			}
			return checks, blocked, err
		}
		reason = why + ", so the probes read the conda package statically"
	}
	return v.condaStatic(ctx, req, cand, reason)
}

// pipTwins returns the PyPI releases of the versions of baseline and cand
// when the index has a wheel of each for the package's wheel target, else
// why not.
func (v *Verifier) pipTwins(ctx context.Context, name string, baseline *sources.Release, cand sources.Release, settings *config.Package) (*sources.Release, sources.Release, string) {
	if v.Releases == nil {
		return nil, sources.Release{}, "no PyPI source to install wheels from"
	}
	rs, err := v.Releases(ctx, name)
	if err != nil {
		return nil, sources.Release{}, fmt.Sprintf("the index has no wheels of %s (%v)", name, err)
	}
	var spec symbols.WheelSpec
	if settings.Symbols != nil {
		spec = settings.Symbols.Wheel
	}
	target, err := v.target(ctx, spec)
	if err != nil {
		return nil, sources.Release{}, err.Error()
	}
	scheme := pep440.Scheme{}
	twin := func(version string) (sources.Release, string) {
		for _, r := range rs {
			if scheme.Valid(r.Version) && scheme.Valid(version) && scheme.Compare(r.Version, version) == 0 && !r.Yanked {
				if c := wheel.Choose(target, r.Files); c.Found {
					return r, ""
				}
				return r, fmt.Sprintf("the index has no wheel of %s %s for %s", name, version, target)
			}
		}
		return sources.Release{}, fmt.Sprintf("the index has no release %s %s", name, version)
	}
	tc, why := twin(cand.Version)
	if why != "" {
		return nil, sources.Release{}, why
	}
	if baseline == nil {
		return nil, tc, ""
	}
	tb, why := twin(baseline.Version)
	if why != "" {
		return nil, sources.Release{}, why + " (the baseline)"
	}
	return &tb, tc, ""
}

// condaStatic probes the Python files of the conda packages of cand and
// the baseline (of the packages a metapackage pins exactly, when it has
// none of its own). A candidate whose package holds no Python module is a
// warning entry, never a pass; a baseline without one leaves the
// candidate to be probed alone, with a warning entry.
func (v *Verifier) condaStatic(ctx context.Context, req *Request, cand sources.Release, reason string) ([]report.Check, bool, error) {
	name, baseline, settings := req.Package, req.Baseline, req.Settings
	rd := newCondaReader(v, condaTarget(settings), cand)
	warn := func(version, detail string) report.Check {
		return report.Check{Kind: probe.CheckKind, Name: "conda package " + name + " " + version, Candidate: "unknown",
			Detail: detail, Verdict: string(probe.Warning)}
	}
	candWheel, why, err := v.condaPython(ctx, rd, name, cand)
	if err != nil {
		return nil, false, err
	}
	if why != "" {
		return []report.Check{warn(cand.Version, "probes not run: "+why)}, false, nil
	}
	opts := probe.Options{Package: name, Candidate: cand.Version, Specs: settings.Probes, Uses: usesOf(req.Uses), Static: true,
		Timeout: v.Timeout, Runner: v.Runner, CandidateWheel: candWheel}
	var out []report.Check
	if baseline != nil {
		baseWheel, why, err := v.condaPython(ctx, rd, name, *baseline)
		if err != nil {
			return nil, false, err
		}
		if why != "" {
			out = append(out, warn(baseline.Version, "the baseline cannot be probed, so the candidate was probed alone: "+why))
		} else {
			opts.Baseline, opts.BaselineWheel = baseline.Version, baseWheel
		}
	}
	rep, err := probe.Run(ctx, opts)
	if err != nil {
		return nil, false, err
	}
	checks, blocked := checksOf(rep, req, opts, nil, "; read statically ("+reason+")"+wheelsRead(opts))
	out = append(out, checks...)
	if notes := rd.notes(); len(notes) > 0 && len(out) > 0 {
		out[len(out)-1].Detail += "; " + strings.Join(notes, "; ")
	}
	return out, blocked, nil
}

// condaPython returns the importable files of r's conda package as a
// wheel-shaped zip for static probes: its own site-packages, else that of
// the first package it pins exactly that has one. why says why there is
// none.
func (v *Verifier) condaPython(ctx context.Context, rd *condaReader, name string, r sources.Release) (probe.Wheel, string, error) {
	paths, side, err := rd.release(ctx, name, r)
	if err != nil || len(paths) == 0 {
		return probe.Wheel{}, side.Warning, err
	}
	py, perr := sitePackages(paths[0])
	if perr == nil {
		return probe.Wheel{R: bytes.NewReader(py.Zip), Size: int64(len(py.Zip)), Name: side.File}, "", nil
	}
	more, err := rd.followPicks(ctx, &side)
	if err != nil {
		return probe.Wheel{}, "", err
	}
	for _, p := range more {
		if py, err := sitePackages(p.path); err == nil {
			return probe.Wheel{R: bytes.NewReader(py.Zip), Size: int64(len(py.Zip)), Name: side.File}, "", nil
		}
	}
	return probe.Wheel{}, join(fmt.Sprintf("%s %s (%s) %v", name, r.Version, side.File, perr), side.Warning), nil
}

// sitePackages reads the Python files of the conda package at p.
func sitePackages(p string) (*archive.Python, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	head := make([]byte, archive.SniffLen)
	n, _ := f.ReadAt(head, 0)
	return archive.SitePackages(f, st.Size(), archive.Detect(p, head[:n]), archive.Limits{})
}
