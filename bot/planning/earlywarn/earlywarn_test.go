package earlywarn_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pinbot-dev/pinbot/bot/planning/earlywarn"
	"github.com/pinbot-dev/pinbot/bot/report"
	"github.com/pinbot-dev/pinbot/sources"
	"github.com/pinbot-dev/pinbot/versions/conda"
	"github.com/pinbot-dev/pinbot/versions/pep440"
)

func rel(v string) sources.Release {
	return sources.Release{Version: v, Files: []sources.File{{Name: "numba-" + v + "-py3-none-any.whl"}}}
}

// pypi is PyPI's releases, which the checks read (they read wheels).
func pypi(rs ...sources.Release) earlywarn.Found {
	return earlywarn.Found{Source: "pypi", Scheme: pep440.Scheme{}, Releases: rs, Readable: true}
}

// channel is a conda channel's releases, which checks that read wheels
// cannot read.
func channel(name string, rs ...sources.Release) earlywarn.Found {
	return earlywarn.Found{Source: name, Scheme: conda.Scheme{}, Releases: rs}
}

// readable makes f a source the checks read (checks of conda packages
// read every channel).
func readable(f earlywarn.Found) earlywarn.Found {
	f.Readable = true
	return f
}

func TestChoose(t *testing.T) {
	yanked := rel("0.69.0rc1")
	yanked.Yanked = true
	noFiles := sources.Release{Version: "0.69.0b1"}
	tests := []struct {
		name    string
		target  string
		found   []earlywarn.Found
		want    string // version, "" for none
		source  string
		release bool
	}{
		{"the newest pre-release newer than the target", "0.67.0",
			[]earlywarn.Found{pypi(rel("0.66.0"), rel("0.67.0"), rel("0.67.0rc1"), rel("0.68.0rc1"), rel("0.68.0.dev0"), rel("0.68.0b2"))}, "0.68.0rc1", "pypi", true},
		{"older pre-releases do not count", "0.67.0", []earlywarn.Found{pypi(rel("0.67.0"), rel("0.67.0rc1"), rel("0.66.0a1"))}, "", "", false},
		{"final releases do not count", "0.67.0", []earlywarn.Found{pypi(rel("0.67.0"), rel("0.68.0"))}, "", "", false},
		{"yanked and file-less pre-releases do not count", "0.67.0", []earlywarn.Found{pypi(rel("0.67.0"), yanked, noFiles, rel("0.68.0a1"))}, "0.68.0a1", "pypi", true},
		{"no target, no early warning", "", []earlywarn.Found{pypi(rel("0.68.0rc1"))}, "", "", false},
		{"a label channel's pre-release PyPI has too is read from PyPI", "0.67.0",
			[]earlywarn.Found{channel("numba/label/dev", rel("0.68.0rc1")), pypi(rel("0.67.0"), rel("0.68.0rc1"))}, "0.68.0rc1", "pypi", true},
		{"one PyPI has is preferred to a newer one PyPI lacks", "0.67.0",
			[]earlywarn.Found{channel("numba/label/dev", rel("0.68.0rc2")), pypi(rel("0.67.0"), rel("0.68.0rc1"))}, "0.68.0rc1", "pypi", true},
		{"a label channel's own pre-release, not on PyPI", "0.67.0",
			[]earlywarn.Found{channel("numba/label/dev", rel("0.68.0rc2"), rel("0.66.0")), pypi(rel("0.67.0"))}, "0.68.0rc2", "numba/label/dev", false},
		{"a conda dev build", "0.67.0", []earlywarn.Found{channel("numba/label/dev", rel("0.68.0dev0"))}, "0.68.0dev0", "numba/label/dev", false},
		{"checks of conda packages read a label channel", "0.67.0",
			[]earlywarn.Found{readable(channel("conda-forge", rel("0.67.0"))), readable(channel("numba/label/dev", rel("0.68.0rc2"))), pypi(rel("0.68.0rc2"))},
			"0.68.0rc2", "numba/label/dev", true},
		{"checks of conda packages prefer a channel to PyPI", "0.67.0",
			[]earlywarn.Found{readable(channel("numba/label/dev", rel("0.68.0rc1"))), {Source: "pypi", Scheme: pep440.Scheme{}, Releases: []sources.Release{rel("0.68.0rc2")}}},
			"0.68.0rc1", "numba/label/dev", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, skipped, ok := earlywarn.Choose(tt.target, tt.found, nil)
			if ok != (tt.want != "") || c.Version != tt.want || c.Source != tt.source || (c.Release != nil) != tt.release {
				t.Errorf("Choose = %+v, %v; want %q from %q (PyPI release %v)", c, ok, tt.want, tt.source, tt.release)
			}
			if c.Release != nil && c.Release.Version != c.Version {
				t.Errorf("release %s for %s", c.Release.Version, c.Version)
			}
			if skipped != nil {
				t.Errorf("skipped %+v without a gate", skipped)
			}
		})
	}
}

// TestChooseGated: the gate holds pre-releases back; the newest that passes
// is chosen, and the newer ones held back are listed with the gate's reason.
func TestChooseGated(t *testing.T) {
	// holding holds back the named "source version"s.
	holding := func(held ...string) earlywarn.Gate {
		return func(source string, r sources.Release) string {
			if slices.Contains(held, source+" "+r.Version) {
				return "is 2 hours old, min-age 3d"
			}
			return ""
		}
	}
	skip := func(v, source string) report.PrereleaseSkip {
		return report.PrereleaseSkip{Version: v, Source: source, Reason: v + " is 2 hours old, min-age 3d"}
	}
	tests := []struct {
		name    string
		found   []earlywarn.Found
		gate    earlywarn.Gate
		want    string // version, "" for none
		source  string
		skipped []report.PrereleaseSkip
	}{
		{"every pre-release passes", []earlywarn.Found{pypi(rel("0.67.0"), rel("0.68.0rc1"), rel("0.68.0rc2"))}, holding(),
			"0.68.0rc2", "pypi", nil},
		{"the newest held, an older one checked", []earlywarn.Found{pypi(rel("0.67.0"), rel("0.68.0rc1"), rel("0.68.0rc2"), rel("0.68.0rc3"))},
			holding("pypi 0.68.0rc3", "pypi 0.68.0rc2"), "0.68.0rc1", "pypi", []report.PrereleaseSkip{skip("0.68.0rc3", "pypi"), skip("0.68.0rc2", "pypi")}},
		{"an older one held is not listed", []earlywarn.Found{pypi(rel("0.67.0"), rel("0.68.0rc1"), rel("0.68.0rc2"))},
			holding("pypi 0.68.0rc1"), "0.68.0rc2", "pypi", nil},
		{"none passes", []earlywarn.Found{pypi(rel("0.67.0"), rel("0.68.0rc1"), rel("0.68.0rc2"))},
			holding("pypi 0.68.0rc1", "pypi 0.68.0rc2"), "", "", []report.PrereleaseSkip{skip("0.68.0rc2", "pypi"), skip("0.68.0rc1", "pypi")}},
		{"held on PyPI, the label channel's is unreadable", []earlywarn.Found{channel("numba/label/dev", rel("0.68.0rc1")), pypi(rel("0.67.0"), rel("0.68.0rc1"))},
			holding("pypi 0.68.0rc1"), "0.68.0rc1", "numba/label/dev", nil},
		{"a readable older one before an unreadable newer one", []earlywarn.Found{channel("numba/label/dev", rel("0.68.0rc2")), pypi(rel("0.67.0"), rel("0.68.0rc1"), rel("0.68.0rc2"))},
			holding("pypi 0.68.0rc2"), "0.68.0rc1", "pypi", []report.PrereleaseSkip{skip("0.68.0rc2", "pypi")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, skipped, ok := earlywarn.Choose("0.67.0", tt.found, tt.gate)
			if ok != (tt.want != "") || c.Version != tt.want || c.Source != tt.source {
				t.Errorf("Choose = %+v, %v; want %q from %q", c, ok, tt.want, tt.source)
			}
			if diff := cmp.Diff(tt.skipped, skipped); diff != "" {
				t.Errorf("skipped (-want +got):\n%s", diff)
			}
		})
	}
	many := []sources.Release{rel("0.67.0")}
	var held []string
	for i := range report.MaxPrereleaseSkipped + 3 {
		v := fmt.Sprintf("0.68.0.dev%d", i)
		many, held = append(many, rel(v)), append(held, "pypi "+v)
	}
	if _, skipped, ok := earlywarn.Choose("0.67.0", []earlywarn.Found{pypi(many...)}, holding(held...)); ok || len(skipped) != report.MaxPrereleaseSkipped ||
		skipped[0].Version != fmt.Sprintf("0.68.0.dev%d", report.MaxPrereleaseSkipped+2) {
		t.Errorf("%d held back: ok %v, skipped %+v", len(held), ok, skipped)
	}
}

var failing = report.Check{Kind: "probe", Name: "numba-unique-ids", Baseline: "pass", Candidate: "fail",
	Detail: "blocked: FunctionIdentity._unique_ids is missing", Verdict: "blocked"}

func TestJudge(t *testing.T) {
	cand := earlywarn.Candidate{Version: "0.68.0rc1", Source: "pypi", Release: &sources.Release{Version: "0.68.0rc1"}}
	passing := report.Check{Kind: "probe", Name: "other", OK: true, Baseline: "pass", Candidate: "pass", Detail: "ok: fine", Verdict: "ok"}
	warned := report.Check{Kind: "symbols", Name: "tensorflow-protobuf", Candidate: "not scanned", Detail: "warning: no wheel for this platform", Verdict: "warning"}

	pr := earlywarn.Judge(cand, "0.67.0", []report.Check{passing, failing}, true, nil)
	want := "fails probe numba-unique-ids (FunctionIdentity._unique_ids is missing): the cap will hold when 0.68.0 ships"
	if pr.Verdict != "blocked" || pr.Reason != want || pr.Baseline != "0.67.0" || pr.Source != "pypi" || len(pr.Checks) != 2 {
		t.Errorf("blocked: %+v\nwant reason %q", pr, want)
	}
	if pr := earlywarn.Judge(cand, "0.67.0", []report.Check{passing}, false, nil); pr.Verdict != "ok" || pr.Reason != "passes every check against 0.67.0" {
		t.Errorf("ok: %+v", pr)
	}
	if pr := earlywarn.Judge(cand, "0.67.0", nil, false, nil); pr.Verdict != "warning" || pr.Reason != "no check ran against 0.67.0" {
		t.Errorf("no check is not ok: %+v", pr)
	}
	if pr := earlywarn.Judge(cand, "", []report.Check{passing, warned}, false, nil); pr.Verdict != "warning" ||
		!strings.Contains(pr.Reason, "symbols tensorflow-protobuf (no wheel for this platform)") {
		t.Errorf("a warning is not ok: %+v", pr)
	}
	if pr := earlywarn.Judge(cand, "0.67.0", nil, false, errTest("download failed:\n503")); pr.Verdict != "warning" ||
		pr.Reason != "the checks could not judge it: download failed: 503" {
		t.Errorf("an error is a warning: %+v", pr)
	}
	dev := earlywarn.Candidate{Version: "2.0.0.dev20250601", Source: "pypi"}
	if pr := earlywarn.Judge(dev, "1.9", []report.Check{failing}, true, nil); !strings.HasSuffix(pr.Reason, "the cap will hold when 2.0.0 ships") {
		t.Errorf("dev release: %q", pr.Reason)
	}
	label := earlywarn.Candidate{Version: "0.68.0rc2", Source: "numba/label/dev"}
	if pr := earlywarn.Unreadable(label, "PyPI's wheels"); pr.Verdict != "warning" || pr.Reason != "not checked: it is on numba/label/dev only, and the checks read PyPI's wheels" {
		t.Errorf("unreadable: %+v", pr)
	}
}

type errTest string

func (e errTest) Error() string { return string(e) }
