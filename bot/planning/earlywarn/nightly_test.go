package earlywarn_test

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pinbot-dev/pinbot/bot/planning/earlywarn"
	"github.com/pinbot-dev/pinbot/bot/report"
	"github.com/pinbot-dev/pinbot/sources"
	"github.com/pinbot-dev/pinbot/versions/conda"
	"github.com/pinbot-dev/pinbot/versions/pep440"
)

func day(d int) time.Time { return time.Date(2026, 11, d, 3, 0, 0, 0, time.UTC) }

// build is a release of one wheel uploaded at up (zero: unknown).
func build(v string, up time.Time) sources.Release {
	return sources.Release{Version: v, Time: up, Files: []sources.File{{Name: "numba-" + v + "-py3-none-any.whl", Time: up}}}
}

// TestChooseNightly: the newest build newer than the target, by version,
// then upload time, then place in the source's list; yanked and file-less
// builds never, gated ones listed as skipped; PEP 440 dev releases with
// local labels and conda dev versions alike.
func TestChooseNightly(t *testing.T) {
	replaced := build("2.5.0.dev0", day(24))
	replaced.Files = append(replaced.Files, sources.File{Name: "numpy-2.5.0.dev0-cp313-cp313-manylinux_2_28_x86_64.whl", Time: day(30)})
	yanked := build("0.70.0.dev20261201", day(1))
	yanked.Yanked = true
	index := func(rs ...sources.Release) earlywarn.Found {
		return earlywarn.Found{Source: "https://idx/simple", Scheme: pep440.Scheme{}, Releases: rs}
	}
	tests := []struct {
		name     string
		target   string
		found    earlywarn.Found
		version  string // "" for none
		uploaded time.Time
	}{
		{"by version", "0.67.0", index(build("0.69.0.dev20261124", day(24)), build("0.69.0.dev20261130", day(30)), build("0.69.0.dev20261117", day(17))),
			"0.69.0.dev20261130", day(30)},
		{"a build replaced under its version is its newest file", "2.4.0", index(replaced), "2.5.0.dev0", day(30)},
		{"equal versions: the later upload", "2.4.0", index(build("2.5.0.dev0", day(30)), build("2.5.0dev0", day(24))), "2.5.0.dev0", day(30)},
		{"equal versions, no times: the later in the list (a find-links page)", "2.4.0", index(build("2.5.0dev0", time.Time{}), build("2.5.0.dev0", time.Time{})),
			"2.5.0.dev0", time.Time{}},
		{"local labels", "2.9.1", index(build("2.10.0.dev20261129+cpu", day(29)), build("2.10.0.dev20261130+cpu", day(30))), "2.10.0.dev20261130+cpu", day(30)},
		{"a release newer than the target counts", "0.67.0", index(build("0.68.0", day(2)), build("0.68.0rc1", day(1))), "0.68.0", day(2)},
		{"nothing newer than the target", "0.69.0", index(build("0.69.0.dev20261130", day(30))), "", time.Time{}},
		{"yanked and file-less builds do not count", "0.67.0", index(yanked, sources.Release{Version: "0.71.0.dev1"}, build("0.69.0.dev20261130", day(30))),
			"0.69.0.dev20261130", day(30)},
		{"a conda label channel's dev builds", "0.67.0", earlywarn.Found{Source: "numba/label/dev", Scheme: conda.Scheme{},
			Releases: []sources.Release{build("0.69.0dev20261124", day(24)), build("0.69.0dev20261130", day(30))}}, "0.69.0dev20261130", day(30)},
		{"no target", "", index(build("0.69.0.dev20261130", day(30))), "", time.Time{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, skipped, ok := earlywarn.ChooseNightly(tt.target, tt.found, nil)
			if ok != (tt.version != "") || b.Release.Version != tt.version || !b.Uploaded.Equal(tt.uploaded) || skipped != nil {
				t.Errorf("ChooseNightly = %s %v, %v, skipped %v; want %q %v", b.Release.Version, b.Uploaded, ok, skipped, tt.version, tt.uploaded)
			}
		})
	}
	// The gates hold the newest back: the next one is checked, and the
	// held ones listed.
	gate := func(_ string, r sources.Release) string {
		if r.Version == "0.69.0.dev20261130" {
			return "has no wheel for linux-64"
		}
		return ""
	}
	b, skipped, ok := earlywarn.ChooseNightly("0.67.0", index(build("0.69.0.dev20261124", day(24)), build("0.69.0.dev20261130", day(30))), gate)
	want := []report.PrereleaseSkip{{Version: "0.69.0.dev20261130", Source: "https://idx/simple", Reason: "0.69.0.dev20261130 has no wheel for linux-64"}}
	if !ok || b.Release.Version != "0.69.0.dev20261124" || !cmp.Equal(skipped, want) {
		t.Errorf("gated: %s %v, skipped %v", b.Release.Version, ok, skipped)
	}
	if _, skipped, ok := earlywarn.ChooseNightly("0.67.0", index(build("0.69.0.dev20261130", day(30))), gate); ok || len(skipped) != 1 {
		t.Errorf("every build gated: ok %v, skipped %v", ok, skipped)
	}
}

// TestJudgeNightly: a nightly's verdict is decided as a pre-release's,
// without the hold phrase (no final release is named), and its window is
// this run's alone: a failing build is its own first failure.
func TestJudgeNightly(t *testing.T) {
	b := earlywarn.Build{Release: build("0.69.0.dev20261130", day(30)), Uploaded: day(30)}
	n := earlywarn.JudgeNightly(b, "numba/label/dev", "", "0.67.0", []report.Check{failing}, true, nil)
	if n.Verdict != "blocked" || n.Reason != "fails probe numba-unique-ids (FunctionIdentity._unique_ids is missing)" || n.Version != "0.69.0.dev20261130" ||
		!n.Uploaded.Equal(day(30)) || n.FirstFailing == nil || !n.FirstFailing.Same(n.Build()) || n.LastPassing != nil {
		t.Errorf("blocked: %+v", n)
	}
	passing := report.Check{Kind: "probe", Name: "other", OK: true, Baseline: "pass", Candidate: "pass", Detail: "ok: fine", Verdict: "ok"}
	n = earlywarn.JudgeNightly(b, "https://idx", "tf-nightly", "", []report.Check{passing}, false, nil)
	if n.Verdict != "ok" || n.Reason != "passes every check alone (no release the caps admit to compare with)" || n.Distribution != "tf-nightly" ||
		n.FirstFailing != nil || n.LastPassing == nil || n.LastPassing.Version != "0.69.0.dev20261130" {
		t.Errorf("ok: %+v", n)
	}
	n = earlywarn.JudgeNightly(b, "https://idx", "", "0.67.0", nil, false, errors.New("no wheel installs"))
	if n.Verdict != "warning" || n.Reason != "the checks could not judge it: no wheel installs" || n.FirstFailing != nil || n.LastPassing != nil {
		t.Errorf("warning: %+v", n)
	}
}

// TestWindow: four weeks of a nightly, each run remembering what the one
// before saw: it passes, starts failing, keeps failing (another check
// too), cannot be judged one week, passes again.
func TestWindow(t *testing.T) {
	other := report.Check{Kind: "symbols", Name: "numba-abi", Verdict: "blocked", Detail: "blocked: gone"}
	judge := func(v string, up time.Time, verdict string, checks ...report.Check) report.Nightly {
		return report.Nightly{Version: v, Uploaded: up, Source: "numba/label/dev", Verdict: verdict, Checks: checks}
	}
	b17 := &report.NightlyBuild{Version: "0.69.0.dev20261117", Uploaded: day(17)}
	b24 := &report.NightlyBuild{Version: "0.69.0.dev20261124", Uploaded: day(24)}
	b08 := &report.NightlyBuild{Version: "0.69.0.dev20261208", Uploaded: day(8)}
	weeks := []struct {
		n           report.Nightly
		first, last *report.NightlyBuild
		verdict     string
		failing     []string
	}{
		{judge(b17.Version, day(17), "ok"), nil, b17, "ok", nil},
		{judge(b24.Version, day(24), "blocked", failing), b24, b17, "blocked", []string{"probe numba-unique-ids"}},
		{judge("0.69.0.dev20261130", day(30), "blocked", failing, other), b24, b17, "blocked", []string{"probe numba-unique-ids", "symbols numba-abi"}},
		{judge("0.69.0.dev20261201", day(1), "warning"), nil, b17, "blocked", []string{"probe numba-unique-ids", "symbols numba-abi"}},
		{judge(b08.Version, day(8), "ok"), nil, b08, "ok", nil},
	}
	var mem *earlywarn.Memory
	for i, w := range weeks {
		n := w.n
		m := earlywarn.Window(mem, &n)
		if !cmp.Equal(n.FirstFailing, w.first) || !cmp.Equal(n.LastPassing, w.last) || m.Verdict != w.verdict || !cmp.Equal(m.Failing, w.failing) {
			t.Errorf("week %d: first %v last %v, remembered %s %v; want %v %v, %s %v", i, n.FirstFailing, n.LastPassing, m.Verdict, m.Failing, w.first, w.last, w.verdict, w.failing)
		}
		if m.Judged != w.n.Verdict || !m.Build.Same(w.n.Build()) {
			t.Errorf("week %d: remembered %v judged %q, want the build judged and its verdict %q", i, m.Build, m.Judged, w.n.Verdict)
		}
		if w.n.Verdict == "warning" && (m.FirstFailing == nil || !m.FirstFailing.Same(*b24)) {
			t.Errorf("week %d: an undecided build forgot the first failure: %v", i, m.FirstFailing)
		}
		mem = &m
	}
	// Another source is another series: nothing carries over.
	n := report.Nightly{Version: "0.69.0.dev20261209", Source: "https://idx", Verdict: "blocked", Checks: []report.Check{failing}}
	if earlywarn.Window(mem, &n); n.LastPassing != nil || n.FirstFailing == nil || n.FirstFailing.Version != "0.69.0.dev20261209" {
		t.Errorf("another source: %+v", n)
	}
}
