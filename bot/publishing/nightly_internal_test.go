package publishing

import (
	"strings"
	"testing"
	"time"

	"github.com/pinbot-dev/pinbot/bot/publishing/slack"
	"github.com/pinbot-dev/pinbot/bot/publishing/state"
	"github.com/pinbot-dev/pinbot/bot/report"
)

// TestNightlyWeeks: what runs remember of a nightly, and what they alert,
// week by week: Slack hears of a first failure, of another set of failing
// checks and of a fix, never of a new build with the same verdict; a week
// the source does not answer changes nothing.
func TestNightlyWeeks(t *testing.T) {
	other := report.Check{Kind: "symbols", Name: "numba-abi", Baseline: "pass", Candidate: "fail", Detail: "blocked: gone", Verdict: "blocked"}
	nightly := func(v, verdict string, checks ...report.Check) *report.Nightly {
		return &report.Nightly{Version: v, Source: "numba/label/dev", Baseline: "0.67.0", Verdict: verdict, Reason: "fails it", Checks: checks}
	}
	weeks := []struct {
		n      *report.Nightly // nil: the source did not answer
		alerts []string        // the titles alerted
		window string          // the report's window, "" for none
	}{
		{nightly("0.69.0.dev20261117", "ok"), nil, "ok"},
		{nightly("0.69.0.dev20261124", "blocked", failing), []string{"numba nightly 0.69.0.dev20261124 (numba/label/dev): blocked since 0.69.0.dev20261124 (first failing seen), last passing 0.69.0.dev20261117: fails it"},
			"blocked since 0.69.0.dev20261124 (first failing seen), last passing 0.69.0.dev20261117"},
		{nightly("0.69.0.dev20261130", "blocked", failing), nil, "blocked since 0.69.0.dev20261124 (first failing seen), last passing 0.69.0.dev20261117"},
		{nil, nil, ""},
		{nightly("0.69.0.dev20261206", "warning"), nil, "warning, last passing 0.69.0.dev20261117"},
		{nightly("0.69.0.dev20261207", "blocked", failing), nil, "blocked since 0.69.0.dev20261124 (first failing seen), last passing 0.69.0.dev20261117"},
		{nightly("0.69.0.dev20261208", "blocked", failing, other), []string{"numba nightly 0.69.0.dev20261208 (numba/label/dev): blocked since 0.69.0.dev20261124 (first failing seen), last passing 0.69.0.dev20261117: fails it"},
			"blocked since 0.69.0.dev20261124 (first failing seen), last passing 0.69.0.dev20261117"},
		{nightly("0.69.0.dev20261215", "ok"), []string{"numba nightly passes again on 0.69.0.dev20261215 (numba/label/dev)"}, "ok"},
		{nightly("0.69.0.dev20261222", "ok"), nil, "ok"},
	}
	last := state.Scope{}.Clone()
	now := time.Date(2026, 11, 17, 8, 0, 0, 0, time.UTC)
	for i, w := range weeks {
		rep := &report.Report{Packages: []report.Package{{Name: "numba", Status: "current", Nightly: w.n}}}
		nightlies := NightlyWindows(rep, last.Nightlies, func(string) bool { return true })
		items := nightlyItems(rep.Packages, last.Alerted, last.Nightlies)
		items, alerted := alertNews(items, last.Alerted, now, 0, nightlyUndecided(rep))
		var titles []string
		for _, it := range items {
			if it.Kind != slack.KindNightly {
				t.Errorf("week %d: kind %s", i, it.Kind)
			}
			titles = append(titles, it.Title)
		}
		if strings.Join(titles, "\n") != strings.Join(w.alerts, "\n") {
			t.Errorf("week %d: alerted %q, want %q", i, titles, w.alerts)
		}
		if got := rep.Packages[0].Nightly; (got == nil) != (w.window == "") || got != nil && got.Window() != w.window {
			t.Errorf("week %d: window %+v, want %q", i, got, w.window)
		}
		if w.n != nil && (w.n.FirstFailing != nil || w.n.LastPassing != nil) {
			t.Errorf("week %d: the report's nightly value was changed in place", i)
		}
		last.Nightlies, last.Alerted = nightlies, alerted
		now = now.Add(7 * 24 * time.Hour)
	}
	if it := nightlyItems([]report.Package{{Name: "numba", Nightly: nightly("0.69.0.dev20261223", "ok")}},
		map[string]state.Alert{"nightly:numba": {Verdict: "blocked: probe numba-unique-ids"}},
		map[string]state.Nightly{"numba": {FirstFailing: &state.Build{Version: "0.69.0.dev20261124"}}}); len(it) != 1 ||
		it[0].Detail != "It failed from 0.69.0.dev20261124 (first failing seen) until the build before this one." {
		t.Errorf("passes again: %+v", it)
	}
	// A package that names no nightly source any more is forgotten.
	rep := &report.Report{Packages: []report.Package{{Name: "numba", Status: "current"}}}
	if got := NightlyWindows(rep, last.Nightlies, func(string) bool { return false }); len(got) != 0 {
		t.Errorf("forgotten: %v", got)
	}
}
