package earlywarn

import (
	"cmp"
	"slices"
	"time"

	"github.com/pinbot-dev/pinbot/bot/report"
	"github.com/pinbot-dev/pinbot/sources"
)

// A Build is the nightly build the checks are run against.
type Build struct {
	// Release is the build's release as its source lists it, every file of
	// its version.
	Release sources.Release
	// Uploaded is when its newest file was uploaded (zero when the source
	// does not say).
	Uploaded time.Time
}

// ChooseNightly returns the nightly build to check among the releases of
// one nightly source (f): the newest release newer than target, by
// version, then by upload time, then by its place in the source's list
// (later is newer: a find-links page's order), that is not yanked, has
// files and passes gate (the package's platforms and python; min-age does
// not apply to a nightly). ok is false when none does. skipped lists the
// newer builds gate held back, newest first, at most
// report.MaxPrereleaseSkipped. Unlike Choose it takes any release newer
// than the target, not only pre-releases: a nightly index may carry the
// release candidate or the release itself before PyPI does.
func ChooseNightly(target string, f Found, gate Gate) (b Build, skipped []report.PrereleaseSkip, ok bool) {
	if target == "" || f.Scheme == nil || !f.Scheme.Valid(target) {
		return Build{}, nil, false
	}
	type build struct {
		Build
		place int
		held  string
	}
	var all []build
	for i, r := range f.Releases {
		if !f.Scheme.Valid(r.Version) || r.Yanked || len(r.Files) == 0 || f.Scheme.Compare(r.Version, target) <= 0 {
			continue
		}
		b := build{Build: Build{Release: r, Uploaded: lastUpload(r)}, place: i}
		if gate != nil {
			b.held = gate(f.Source, r)
		}
		all = append(all, b)
	}
	slices.SortStableFunc(all, func(a, b build) int {
		return cmp.Or(-f.Scheme.Compare(a.Release.Version, b.Release.Version), -a.Uploaded.Compare(b.Uploaded), -cmp.Compare(a.place, b.place))
	})
	for _, b := range all {
		if b.held == "" {
			return b.Build, skipped, true
		}
		if len(skipped) < report.MaxPrereleaseSkipped {
			skipped = append(skipped, report.PrereleaseSkip{Version: b.Release.Version, Source: f.Source, Reason: b.Release.Version + " " + b.held})
		}
	}
	return Build{}, skipped, false
}

// lastUpload is when r's newest file was uploaded (r.Time when no file
// says; zero when nothing does): a build replaced under its version
// (scientific-python's uploads) is its latest files.
func lastUpload(r sources.Release) time.Time {
	t := r.Time
	for _, f := range r.Files {
		if f.Time.After(t) {
			t = f.Time
		}
	}
	return t
}

// JudgeNightly returns the early warning for the nightly build b of
// source, whose checks against baseline ("" for none) gave checks and
// blocked, or failed with err; distribution is the distribution the build
// installs as when it is not the package's own (tf-nightly). The verdict is
// decided as for a pre-release (Judge); the window (FirstFailing,
// LastPassing) is this run's alone until Window adds what earlier runs saw.
func JudgeNightly(b Build, source, distribution, baseline string, checks []report.Check, blocked bool, err error) report.Nightly {
	verdict, reason := decide(baseline, checks, blocked, err)
	n := report.Nightly{Version: b.Release.Version, Uploaded: b.Uploaded.UTC(), Source: source, Distribution: distribution,
		Baseline: baseline, Verdict: verdict, Reason: reason, Checks: checks}
	Window(nil, &n)
	return n
}

// A Memory is what earlier runs saw of a package's nightlies: the last
// build judged, its source and its verdict, the last verdict that decided
// (ok or blocked) with its failing checks, and the window.
// bot/publishing/state keeps it from run to run.
type Memory struct {
	Build  report.NightlyBuild
	Source string
	// Judged is the verdict on Build (ok, blocked or warning): what the
	// last run that judged a build showed of it.
	Judged string
	// Verdict is the last decided verdict (ok or blocked; "" for none),
	// Failing the checks that failed then (Failing's names).
	Verdict string
	Failing []string
	// FirstFailing and LastPassing are the window as it stood.
	FirstFailing, LastPassing *report.NightlyBuild
}

// Window fills n's window from what earlier runs saw (last; nil when
// nothing is remembered, or the source changed) and returns what to
// remember now. A blocked build keeps the first failing build of the
// failures before it (none passed since) or is itself the first; a passing
// build is the last passing one and ends the failures; a build the checks
// could not decide (a warning) changes neither, so that an index that
// hiccups does not restart the window.
func Window(last *Memory, n *report.Nightly) Memory {
	if last != nil && last.Source != n.Source {
		last = nil // another source: another series of builds
	}
	m := Memory{Build: n.Build(), Source: n.Source, Judged: n.Verdict}
	if last != nil {
		m.Verdict, m.Failing = last.Verdict, last.Failing
		m.FirstFailing, m.LastPassing = last.FirstFailing, last.LastPassing
	}
	this := n.Build()
	switch n.Verdict {
	case Blocked:
		if m.Verdict != Blocked || m.FirstFailing == nil {
			m.FirstFailing = &this
		}
		m.Verdict, m.Failing = Blocked, Failing(n.Checks)
	case OK:
		m.FirstFailing, m.LastPassing = nil, &this
		m.Verdict, m.Failing = OK, nil
	}
	n.FirstFailing, n.LastPassing = nil, m.LastPassing
	if n.Verdict == Blocked {
		n.FirstFailing = m.FirstFailing
	}
	return m
}

// Failing names the checks that fail ("probe numba-unique-ids"), sorted
// and each once: the set whose change is news (a new failure, another
// check failing, a fix).
func Failing(checks []report.Check) []string {
	var out []string
	for _, c := range checks {
		if c.Verdict == Blocked || (c.Verdict == "" && !c.OK) {
			out = append(out, c.Kind+" "+c.Name)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
