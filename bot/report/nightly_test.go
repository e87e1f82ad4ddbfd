package report_test

import (
	"testing"
	"time"

	"github.com/pinbot-dev/pinbot/bot/report"
)

// TestNightlyWindow: the window names builds by version, and by upload
// time too where builds of one version are replaced (the scientific-python
// index); a passing build says only its verdict, an undecided one the last
// build that passed.
func TestNightlyWindow(t *testing.T) {
	day := func(d int) time.Time { return time.Date(2026, 11, d, 3, 0, 0, 0, time.UTC) }
	tests := []struct {
		n    report.Nightly
		want string
	}{
		{report.Nightly{Version: "0.69.0.dev20261130", Verdict: "blocked", FirstFailing: &report.NightlyBuild{Version: "0.69.0.dev20261124"},
			LastPassing: &report.NightlyBuild{Version: "0.69.0.dev20261117"}},
			"blocked since 0.69.0.dev20261124 (first failing seen), last passing 0.69.0.dev20261117"},
		{report.Nightly{Version: "0.69.0.dev20261130", Verdict: "blocked", FirstFailing: &report.NightlyBuild{Version: "0.69.0.dev20261130"}},
			"blocked since 0.69.0.dev20261130 (first failing seen)"},
		{report.Nightly{Version: "2.5.0.dev0", Uploaded: day(30), Verdict: "blocked", FirstFailing: &report.NightlyBuild{Version: "2.5.0.dev0", Uploaded: day(24)},
			LastPassing: &report.NightlyBuild{Version: "2.5.0.dev0", Uploaded: day(17)}},
			"blocked since 2.5.0.dev0 of 2026-11-24 03:00 UTC (first failing seen), last passing 2.5.0.dev0 of 2026-11-17 03:00 UTC"},
		{report.Nightly{Version: "0.69.0.dev20261201", Verdict: "ok", LastPassing: &report.NightlyBuild{Version: "0.69.0.dev20261201"}}, "ok"},
		{report.Nightly{Version: "0.69.0.dev20261201", Verdict: "warning", LastPassing: &report.NightlyBuild{Version: "0.69.0.dev20261117"}},
			"warning, last passing 0.69.0.dev20261117"},
	}
	for _, tt := range tests {
		if got := tt.n.Window(); got != tt.want {
			t.Errorf("Window() = %q, want %q", got, tt.want)
		}
	}
	if got := report.NightlyCell(&tests[0].n); got != "❌ nightly 0.69.0.dev20261130 blocked since 0.69.0.dev20261124" {
		t.Errorf("NightlyCell = %q", got)
	}
}
