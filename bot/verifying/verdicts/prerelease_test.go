package verdicts_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/pinbot-dev/pinbot/bot/verifying"
	"github.com/pinbot-dev/pinbot/bot/verifying/verdicts"
)

// withPrerelease is a check job's report with early warnings: numba's
// 0.68.0rc1 blocked against 0.67.0, llvmlite's pre-release undecided.
const withPrerelease = `{"schema": 1, "packages": [
  {"name": "numba", "verdicts": [{"version": "0.67.0", "baseline": "0.66.0", "blocked": false}],
   "prerelease": {"version": "0.68.0rc1", "source": "pypi", "baseline": "0.67.0", "verdict": "blocked", "reason": "fails",
     "checks": [{"kind": "probe", "name": "numba-unique-ids", "baseline": "pass", "candidate": "fail", "detail": "gone", "verdict": "blocked"}]}},
  {"name": "llvmlite", "prerelease": {"version": "0.51.0rc1", "source": "pypi", "baseline": "0.50.0", "verdict": "warning",
     "reason": "the checks could not judge it: download failed", "checks": []}}
]}`

// TestPrereleaseVerdict: the publisher takes a recorded early warning only
// for the pre-release and baseline it found itself.
func TestPrereleaseVerdict(t *testing.T) {
	v, err := verdicts.Parse("report.json", []byte(withPrerelease))
	if err != nil {
		t.Fatal(err)
	}
	checks, blocked, err := v.PrereleaseVerdict("numba", "0.67.0", "0.68.0rc1")
	if err != nil || !blocked || len(checks) != 1 || checks[0].Name != "numba-unique-ids" {
		t.Errorf("numba: %v %v %v", checks, blocked, err)
	}
	// The target's verdicts are not the pre-release's, nor the reverse.
	if _, _, err := v.Verdict("numba", "0.67.0", "0.68.0rc1"); !errors.Is(err, verifying.ErrNotJudged) {
		t.Errorf("a pre-release's verdict answered for a target: %v", err)
	}
	for _, tt := range []struct{ pkg, baseline, version, want string }{
		{"numba", "0.67.0", "0.68.0rc2", `checked numba "0.68.0rc1", not 0.68.0rc2`},
		{"numba", "0.66.0", "0.68.0rc1", "judged numba 0.68.0rc1 against 0.67.0, this run compares with 0.66.0"},
		{"tensorflow", "2.20.0", "2.21.0rc0", "has no early warning for tensorflow"},
	} {
		if _, _, err := v.PrereleaseVerdict(tt.pkg, tt.baseline, tt.version); !errors.Is(err, verifying.ErrNotJudged) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s %s: %v, want %q wrapping verifying.ErrNotJudged", tt.pkg, tt.version, err, tt.want)
		}
	}
	if _, _, err := v.PrereleaseVerdict("llvmlite", "0.50.0", "0.51.0rc1"); err == nil || !strings.Contains(err.Error(), `report says "the checks could not judge it: download failed"`) {
		t.Errorf("an undecided pre-release: %v", err)
	}
}

func TestPrereleaseRejects(t *testing.T) {
	pre := func(s string) string {
		return `{"schema": 1, "packages": [{"name": "numba", "prerelease": ` + s + `}]}`
	}
	for _, tt := range []struct{ name, data, want string }{
		{"version", pre(`{"version": "1; rm", "verdict": "ok"}`), `prerelease.version: "1; rm" is not a version`},
		{"baseline", pre(`{"version": "1rc1", "baseline": "<b>", "verdict": "ok"}`), `prerelease.baseline: "<b>" is not a version`},
		{"verdict", pre(`{"version": "1rc1", "verdict": "fine"}`), `prerelease.verdict: "fine" is not ok, blocked or warning`},
		{"long detail", pre(`{"version": "1rc1", "verdict": "ok", "checks": [{"detail": "` + strings.Repeat("x", 1<<16+1) + `"}]}`), "prerelease.checks[0]: a text longer"},
		{"type", pre(`[]`), "expected report.Prerelease"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := verdicts.Parse("r.json", []byte(tt.data)); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want %q", err, tt.want)
			}
		})
	}
}
