package publishing

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pinbot-dev/pinbot/bot/publishing/slack"
	"github.com/pinbot-dev/pinbot/bot/report"
)

var failing = report.Check{Kind: "probe", Name: "numba-unique-ids", Baseline: "pass", Candidate: "fail",
	Detail: "blocked: FunctionIdentity._unique_ids is missing", Verdict: "blocked"}

func TestNews(t *testing.T) {
	blocked := &report.Prerelease{Version: "0.68.0rc1", Source: "pypi", Baseline: "0.67.0", Verdict: "blocked",
		Reason: "fails probe numba-unique-ids (FunctionIdentity._unique_ids is missing): the cap will hold when 0.68.0 ships",
		Checks: []report.Check{failing}}
	pkgs := []report.Package{
		{Name: "numba", Status: "bump", Prerelease: blocked},
		{Name: "llvmlite", Status: "current", Prerelease: &report.Prerelease{Version: "0.51.0rc1", Verdict: "ok"}},
	}
	items, now := prereleaseNews(pkgs, nil, false)
	if len(items) != 1 || items[0].Kind != slack.KindEarlyWarning ||
		items[0].Title != "numba 0.68.0rc1 fails probe numba-unique-ids (FunctionIdentity._unique_ids is missing): the cap will hold when 0.68.0 ships" ||
		!strings.Contains(items[0].Detail, "probe numba-unique-ids: pass at 0.67.0, fail at 0.68.0rc1: blocked: FunctionIdentity._unique_ids is missing") {
		t.Fatalf("first run: %+v", items)
	}
	if diff := cmp.Diff(map[string]string{"numba": "0.68.0rc1"}, now); diff != "" {
		t.Errorf("remembered (-want +got):\n%s", diff)
	}
	// Announced once: the same pre-release, still failing, is not news.
	if items, again := prereleaseNews(pkgs, now, false); len(items) != 0 || again["numba"] != "0.68.0rc1" {
		t.Errorf("second run: %+v %v", items, again)
	}
	// A package in error keeps its memory: its pre-release was not looked at.
	errored := []report.Package{{Name: "numba", Status: "error"}}
	if _, kept := prereleaseNews(errored, now, false); kept["numba"] != "0.68.0rc1" {
		t.Errorf("error forgot the announcement: %v", kept)
	}
	// rc2 fails too: news again.
	rc2 := *blocked
	rc2.Version = "0.68.0rc2"
	if items, next := prereleaseNews([]report.Package{{Name: "numba", Prerelease: &rc2}}, now, false); len(items) != 1 || next["numba"] != "0.68.0rc2" {
		t.Errorf("rc2: %+v %v", items, next)
	}
	// 0.68.0 shipped: no pre-release left, forgotten.
	if _, next := prereleaseNews([]report.Package{{Name: "numba", Status: "blocked"}}, now, false); len(next) != 0 {
		t.Errorf("after the final release: %v", next)
	}
	// A package no longer watched is forgotten on a full run, kept on a
	// partial one.
	if _, next := prereleaseNews(nil, now, false); len(next) != 0 {
		t.Errorf("full run: %v", next)
	}
	if _, next := prereleaseNews(nil, now, true); next["numba"] != "0.68.0rc1" {
		t.Errorf("partial run: %v", next)
	}
}
