package verdicts_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/pinbot-dev/pinbot/bot/verifying"
	"github.com/pinbot-dev/pinbot/bot/verifying/verdicts"
)

// withNightly is a check job's report with nightlies: numba's build of
// 2026-11-30 blocked against 0.67.0; tensorflow's tf-nightly undecided.
const withNightly = `{"schema": 1, "packages": [
  {"name": "numba", "verdicts": [{"version": "0.67.0", "baseline": "0.66.0", "blocked": false}],
   "nightly": {"version": "0.69.0.dev20261130", "uploaded": "2026-11-30T03:00:00Z", "source": "numba/label/dev", "baseline": "0.67.0",
     "verdict": "blocked", "reason": "fails", "first_failing": {"version": "0.69.0.dev20261124"}, "last_passing": null,
     "checks": [{"kind": "probe", "name": "numba-unique-ids", "baseline": "pass", "candidate": "fail", "detail": "gone", "verdict": "blocked"}]}},
  {"name": "tensorflow", "nightly": {"version": "2.21.0.dev20261130", "source": "tf-nightly on pypi", "distribution": "tf-nightly", "baseline": "2.20.0",
     "verdict": "warning", "reason": "the checks could not judge it: no wheel installs", "checks": []}}
]}`

// TestNightlyVerdict: the publisher takes a recorded nightly only for the
// build (version and upload time) and baseline it found itself.
func TestNightlyVerdict(t *testing.T) {
	v, err := verdicts.Parse("report.json", []byte(withNightly))
	if err != nil {
		t.Fatal(err)
	}
	up := time.Date(2026, 11, 30, 3, 0, 0, 0, time.UTC)
	checks, blocked, err := v.NightlyVerdict("numba", "0.67.0", "0.69.0.dev20261130", up)
	if err != nil || !blocked || len(checks) != 1 || checks[0].Name != "numba-unique-ids" {
		t.Errorf("numba: %v %v %v", checks, blocked, err)
	}
	// Neither the target's verdicts nor the pre-release's answer for it.
	if _, _, err := v.PrereleaseVerdict("numba", "0.67.0", "0.69.0.dev20261130"); !errors.Is(err, verifying.ErrNotJudged) {
		t.Errorf("a nightly answered for a pre-release: %v", err)
	}
	for _, tt := range []struct {
		pkg, baseline, version string
		uploaded               time.Time
		want                   string
	}{
		{"numba", "0.67.0", "0.69.0.dev20261201", up, `checked numba nightly "0.69.0.dev20261130 uploaded 2026-11-30T03:00:00Z", not 0.69.0.dev20261201 uploaded`},
		{"numba", "0.67.0", "0.69.0.dev20261130", up.Add(24 * time.Hour), "not 0.69.0.dev20261130 uploaded 2026-12-01T03:00:00Z, the build this run found"},
		{"numba", "0.66.0", "0.69.0.dev20261130", up, "judged numba nightly 0.69.0.dev20261130 against 0.67.0, this run compares with 0.66.0"},
		{"llvmlite", "0.50.0", "0.51.0.dev1", time.Time{}, "has no nightly for llvmlite"},
	} {
		if _, _, err := v.NightlyVerdict(tt.pkg, tt.baseline, tt.version, tt.uploaded); !errors.Is(err, verifying.ErrNotJudged) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s %s: %v, want %q wrapping verifying.ErrNotJudged", tt.pkg, tt.version, err, tt.want)
		}
	}
	if _, _, err := v.NightlyVerdict("tensorflow", "2.20.0", "2.21.0.dev20261130", time.Time{}); err == nil ||
		!strings.Contains(err.Error(), `report says "the checks could not judge it: no wheel installs"`) {
		t.Errorf("an undecided nightly: %v", err)
	}
}

func TestNightlyRejects(t *testing.T) {
	nightly := func(s string) string {
		return `{"schema": 1, "packages": [{"name": "numba", "nightly": ` + s + `}]}`
	}
	for _, tt := range []struct{ name, data, want string }{
		{"version", nightly(`{"version": "1; rm", "verdict": "ok"}`), `nightly.version: "1; rm" is not a version`},
		{"baseline", nightly(`{"version": "1.dev1", "baseline": "<b>", "verdict": "ok"}`), `nightly.baseline: "<b>" is not a version`},
		{"verdict", nightly(`{"version": "1.dev1", "verdict": "fine"}`), `nightly.verdict: "fine" is not ok, blocked or warning`},
		{"window", nightly(`{"version": "1.dev1", "verdict": "ok", "last_passing": {"version": "$(x)"}}`), `nightly.last_passing.version: "$(x)" is not a version`},
		{"distribution", nightly(`{"version": "1.dev1", "verdict": "ok", "distribution": "tf nightly"}`), `nightly.distribution: "tf nightly" is not a package name`},
		{"long detail", nightly(`{"version": "1.dev1", "verdict": "ok", "checks": [{"detail": "` + strings.Repeat("x", 1<<16+1) + `"}]}`), "nightly.checks[0]: a text longer"},
		{"uploaded", nightly(`{"version": "1.dev1", "verdict": "ok", "uploaded": "yesterday"}`), "parsing time"},
		{"type", nightly(`[]`), "expected report.Nightly"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := verdicts.Parse("r.json", []byte(tt.data)); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want %q", err, tt.want)
			}
		})
	}
}
