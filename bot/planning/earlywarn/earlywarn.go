// Package earlywarn is pinbot's early warning on pre-releases and nightly
// builds: for a watched package with checks, the same probes and symbol
// scans that judge a target are run against a pre-release newer than it
// (PyPI a, b, rc and .dev releases; conda label channels such as
// numba/label/dev), and against the newest build of the package's nightly
// source (early-warning: {nightly: ...}), so that a maintainer hears what
// will break before the final release ships, weeks before for a nightly.
//
// This package holds the decisions, not the I/O: which pre-release or
// nightly build to check (Choose, ChooseNightly), what the checks' outcome
// means (Judge, JudgeNightly, Unreadable), and since when a nightly's
// verdict holds (Window, from the Memory of earlier runs). Planning asks
// the verifier (bot/verifying) to judge them, as it does targets;
// publishing remembers the window and says which warnings are news worth a
// message. Neither ever moves a cap or opens a pull request.
//
// It belongs to bot/planning; of bot it imports only bot/report.
package earlywarn

import (
	"cmp"
	"slices"
	"strings"

	"github.com/pinbot-dev/pinbot/bot/report"
	"github.com/pinbot-dev/pinbot/sources"
	"github.com/pinbot-dev/pinbot/versions"
	"github.com/pinbot-dev/pinbot/versions/conda"
	"github.com/pinbot-dev/pinbot/versions/pep440"
)

// The verdicts of a report.Prerelease; they are the verdicts of a check.
const (
	OK      = "ok"
	Blocked = "blocked"
	Warning = "warning"
)

// A Found is the releases of a package in one source.
type Found struct {
	Source string
	// Scheme orders the source's versions (pep440 for PyPI, conda for a
	// channel).
	Scheme   versions.Scheme
	Releases []sources.Release
	// Readable is set when the checks can read the source's releases: PyPI
	// when they read wheels, a conda channel (label channels included)
	// when they read conda packages (bot's checkReleases decides).
	Readable bool
}

// A Candidate is the pre-release the checks are run against.
type Candidate struct {
	Version string
	// Source is where it was found: a source the checks can read when one
	// has it, else the first (by name) that does.
	Source string
	// Release is the release the checks read; nil when no source they can
	// read has the version (Unreadable says so).
	Release *sources.Release
}

// A Gate says why a release fails the package's release gates on source
// ("" when it passes): bot passes plan.Gate.Check with the run's clock, the
// one decision a target is held to. nil passes every release.
type Gate func(source string, r sources.Release) string

// Choose returns the pre-release to check: the newest pre-release, newer
// than target (compared in each source's own scheme), that is not yanked,
// has files and passes gate on its source, preferring one the checks can
// read (a wheel on PyPI, a conda package on a channel: whichever the checks
// read); ok is false when no source has one. A target that a source's
// scheme cannot read makes that source's releases count as not newer.
//
// skipped lists the pre-releases gate held back that are newer than the one
// chosen (all of them, when none is), newest first, at most
// report.MaxPrereleaseSkipped: a pre-release the package's gates would not
// let through is not checked, yet the report says it is there and why.
func Choose(target string, found []Found, gate Gate) (c Candidate, skipped []report.PrereleaseSkip, ok bool) {
	if target == "" {
		return Candidate{}, nil, false
	}
	type pre struct {
		source   string
		readable bool
		release  sources.Release
		held     string // why gate holds it back
	}
	var all []pre
	for _, f := range found {
		if f.Scheme == nil || !f.Scheme.Valid(target) {
			continue
		}
		for _, r := range f.Releases {
			if !f.Scheme.Valid(r.Version) || r.Yanked || len(r.Files) == 0 || !f.Scheme.Prerelease(r.Version) ||
				f.Scheme.Compare(r.Version, target) <= 0 {
				continue
			}
			p := pre{source: f.Source, readable: f.Readable, release: r}
			if gate != nil {
				p.held = gate(f.Source, r)
			}
			all = append(all, p)
		}
	}
	// Newest first; at equal versions readable sources first, then by name.
	slices.SortStableFunc(all, func(a, b pre) int {
		return cmp.Or(-compareAcross(a.release.Version, b.release.Version), -cmpBool(a.readable, b.readable), strings.Compare(a.source, b.source))
	})
	best := slices.IndexFunc(all, func(p pre) bool { return p.held == "" && p.readable })
	if best < 0 {
		best = slices.IndexFunc(all, func(p pre) bool { return p.held == "" })
	}
	for _, p := range all {
		if best >= 0 && compareAcross(p.release.Version, all[best].release.Version) <= 0 {
			break
		}
		if p.held != "" && len(skipped) < report.MaxPrereleaseSkipped {
			skipped = append(skipped, report.PrereleaseSkip{Version: p.release.Version, Source: p.source, Reason: p.release.Version + " " + p.held})
		}
	}
	if best < 0 {
		return Candidate{}, skipped, false
	}
	c = Candidate{Version: all[best].release.Version, Source: all[best].source}
	if all[best].readable {
		r := all[best].release
		c.Release = &r
	}
	return c, skipped, true
}

func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// compareAcross orders versions that may come from different ecosystems:
// by PEP 440 when both are PEP 440 versions (a conda 0.68.0rc1 is PyPI's
// 0.68.0rc1), else by conda's ordering.
func compareAcross(a, b string) int {
	p := pep440.Scheme{}
	if p.Valid(a) && p.Valid(b) {
		return p.Compare(a, b)
	}
	return conda.Scheme{}.Compare(a, b)
}

// Final returns the release a pre-release leads to ("0.68.0" for
// 0.68.0rc1 and 0.68.0.dev0), or "" when its version says not.
func Final(version string) string {
	v, err := pep440.Parse(version)
	if err != nil {
		return ""
	}
	return v.BaseVersion()
}

// Judge returns the early warning for cand, whose checks against baseline
// ("" for none) gave checks and blocked, or failed with err.
func Judge(cand Candidate, baseline string, checks []report.Check, blocked bool, err error) report.Prerelease {
	pr := report.Prerelease{Version: cand.Version, Source: cand.Source, Baseline: baseline, Checks: checks}
	pr.Verdict, pr.Reason = decide(baseline, checks, blocked, err)
	if pr.Verdict == Blocked {
		hold := "the cap will hold when the final release ships"
		if f := Final(cand.Version); f != "" {
			hold = "the cap will hold when " + f + " ships"
		}
		pr.Reason += ": " + hold
	}
	return pr
}

// decide is the verdict of checks against baseline ("" for none) that gave
// blocked, or failed with err, and its reason: a warning when the checks
// could not judge or could not see everything, blocked naming the checks
// that fail (blocked means passing at the baseline: the checks' details
// say where), else ok.
func decide(baseline string, checks []report.Check, blocked bool, err error) (verdict, reason string) {
	against := "against " + baseline
	if baseline == "" {
		against = "alone (no release the caps admit to compare with)"
	}
	switch {
	case err != nil:
		return Warning, "the checks could not judge it: " + oneLine(err.Error())
	case blocked:
		var failed []string
		for _, c := range checks {
			if c.Verdict == Blocked || (c.Verdict == "" && !c.OK) {
				failed = append(failed, describe(c))
			}
		}
		return Blocked, "fails " + strings.Join(failed, " and ")
	}
	var warned []string
	for _, c := range checks {
		if c.Verdict == Warning {
			warned = append(warned, describe(c))
		}
	}
	if len(warned) > 0 {
		return Warning, "the checks could not see everything: " + strings.Join(warned, "; ")
	}
	if len(checks) == 0 {
		// Passing no check is not passing: nothing was seen.
		return Warning, "no check ran " + against
	}
	return OK, "passes every check " + against
}

// Unreadable returns the early warning for a pre-release no source the
// checks read has: reads says what they read ("PyPI's wheels", "conda
// packages"). The checks cannot judge it: a warning, never ok.
func Unreadable(cand Candidate, reads string) report.Prerelease {
	return report.Prerelease{Version: cand.Version, Source: cand.Source, Verdict: Warning, Checks: []report.Check{},
		Reason: "not checked: it is on " + cand.Source + " only, and the checks read " + reads}
}

// describe names a check and what it found, in one short phrase:
// "probe numba-unique-ids (FunctionIdentity._unique_ids is missing)".
func describe(c report.Check) string {
	s := c.Kind + " " + c.Name
	d := c.Detail
	for _, v := range []string{Blocked, Warning, "fail", "upstream-fixed"} {
		d = strings.TrimPrefix(d, v+": ")
	}
	if d = oneLine(d); d != "" {
		if r := []rune(d); len(r) > 160 {
			d = string(r[:159]) + "…"
		}
		s += " (" + d + ")"
	}
	return s
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
