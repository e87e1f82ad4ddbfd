package verifying_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pinbot-dev/pinbot/bot/report"
	"github.com/pinbot-dev/pinbot/bot/verifying"
	"github.com/pinbot-dev/pinbot/checks/probe"
	"github.com/pinbot-dev/pinbot/config"
	"github.com/pinbot-dev/pinbot/sources"
)

// recorded answers from a table of outcomes by version, as a check job's
// report does, and remembers what it was asked.
type recorded struct {
	blocked  map[string]bool
	errs     map[string]error
	asked    []string
	prelease []string
}

func (r *recorded) Verdict(pkg, baseline, version string) ([]report.Check, bool, error) {
	r.asked = append(r.asked, version)
	return r.answer(version)
}

func (r *recorded) PrereleaseVerdict(pkg, baseline, version string) ([]report.Check, bool, error) {
	r.prelease = append(r.prelease, version)
	return r.answer(version)
}

func (r *recorded) answer(version string) ([]report.Check, bool, error) {
	if err := r.errs[version]; err != nil {
		return nil, false, err
	}
	check := report.Check{Kind: probe.CheckKind, Name: "p", Candidate: "pass", Verdict: "ok"}
	if r.blocked[version] {
		check.Candidate, check.Verdict = "fail", "blocked"
	}
	return []report.Check{check}, r.blocked[version], nil
}

func releases(vs ...string) []sources.Release {
	var out []sources.Release
	for _, v := range vs {
		out = append(out, sources.Release{Version: v})
	}
	return out
}

var withProbes = &config.Package{Probes: []probe.Spec{{Path: "numba.core", Expect: "module"}}}

// TestVerifyCandidates: the verifier judges the candidates planning chose in
// order against the baseline and stops at the first that passes; it tries
// at most Fallbacks of the older ones, none when every one would probe the
// same installed release; a target the project's pins hold back is the
// error, with its verdict; an older candidate the report says nothing of
// ends the search with none passed.
func TestVerifyCandidates(t *testing.T) {
	base := &sources.Release{Version: "0.66.0"}
	for _, tc := range []struct {
		name       string
		fallbacks  int
		noInstall  bool
		rec        *recorded
		candidates []string
		prerelease bool
		wantAsked  []string
		wantPassed string
		wantHeld   bool
		wantErr    error
		unjudged   int // candidates asked that gave no verdict
	}{
		{name: "target passes", rec: &recorded{}, candidates: []string{"0.68.0", "0.67.0"},
			wantAsked: []string{"0.68.0"}, wantPassed: "0.68.0"},
		{name: "an older candidate passes", rec: &recorded{blocked: map[string]bool{"0.68.0": true}},
			candidates: []string{"0.68.0", "0.67.1", "0.67.0"}, wantAsked: []string{"0.68.0", "0.67.1"}, wantPassed: "0.67.1"},
		{name: "at most three fallbacks", rec: &recorded{blocked: map[string]bool{"5": true, "4": true, "3": true, "2": true, "1": true}},
			candidates: []string{"5", "4", "3", "2", "1"}, wantAsked: []string{"5", "4", "3", "2"}},
		{name: "Fallbacks bounds them", fallbacks: 1, rec: &recorded{blocked: map[string]bool{"5": true, "4": true}},
			candidates: []string{"5", "4", "3"}, wantAsked: []string{"5", "4"}},
		{name: "no fallback with --no-install", noInstall: true, rec: &recorded{blocked: map[string]bool{"5": true}},
			candidates: []string{"5", "4"}, wantAsked: []string{"5"}},
		{name: "held target", rec: &recorded{errs: map[string]error{"0.68.0": &verifying.HeldError{Package: "numba", Version: "0.68.0", Reason: "numpy<2 holds it"}}},
			candidates: []string{"0.68.0", "0.67.0"}, wantAsked: []string{"0.68.0"}, wantHeld: true},
		{name: "held older candidate is blocked, the next is tried", rec: &recorded{
			blocked: map[string]bool{"0.68.0": true},
			errs:    map[string]error{"0.67.1": &verifying.HeldError{Reason: "numpy<2"}}},
			candidates: []string{"0.68.0", "0.67.1", "0.67.0"}, wantAsked: []string{"0.68.0", "0.67.1", "0.67.0"}, wantPassed: "0.67.0"},
		{name: "an older candidate not judged ends the search", rec: &recorded{
			blocked: map[string]bool{"0.68.0": true},
			errs:    map[string]error{"0.67.1": fmt.Errorf("no verdict: %w", verifying.ErrNotJudged)}},
			candidates: []string{"0.68.0", "0.67.1", "0.67.0"}, wantAsked: []string{"0.68.0", "0.67.1"}, unjudged: 1},
		{name: "the target not judged is the error", rec: &recorded{errs: map[string]error{"0.68.0": fmt.Errorf("no verdict: %w", verifying.ErrNotJudged)}},
			candidates: []string{"0.68.0", "0.67.0"}, wantAsked: []string{"0.68.0"}, wantErr: verifying.ErrNotJudged},
		{name: "a pre-release reads the report's early warning", rec: &recorded{blocked: map[string]bool{"0.68.0rc1": true}},
			candidates: []string{"0.68.0rc1"}, prerelease: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := &verifying.Verifier{Fallbacks: tc.fallbacks, NoInstall: tc.noInstall, Recorded: tc.rec}
			res, err := v.Verify(context.Background(), verifying.Request{Package: "numba", Settings: withProbes, Baseline: base,
				Candidates: releases(tc.candidates...), Prerelease: tc.prerelease})
			if tc.prerelease {
				if len(tc.rec.asked) != 0 || !slices.Equal(tc.rec.prelease, tc.candidates) || err != nil ||
					len(res.Verdicts) != 1 || !res.Verdicts[0].Blocked || res.Passed != "" {
					t.Fatalf("pre-release: asked %v, early warnings %v; %+v, %v", tc.rec.asked, tc.rec.prelease, res, err)
				}
				return
			}
			if diff := cmp.Diff(tc.wantAsked, tc.rec.asked); diff != "" {
				t.Errorf("judged (-want +got):\n%s", diff)
			}
			if res.Passed != tc.wantPassed {
				t.Errorf("passed %q, want %q", res.Passed, tc.wantPassed)
			}
			reason, held := verifying.HeldReason(err)
			switch {
			case tc.wantHeld:
				if !held || reason != "numpy<2 holds it" || len(res.Verdicts) != 1 || res.Verdicts[0].Held != reason {
					t.Errorf("held: %q %v, verdicts %+v", reason, held, res.Verdicts)
				}
			case tc.wantErr != nil:
				if !errors.Is(err, tc.wantErr) {
					t.Errorf("err %v, want %v", err, tc.wantErr)
				}
			case err != nil:
				t.Errorf("err %v", err)
			default:
				if len(res.Verdicts) != len(tc.wantAsked)-tc.unjudged || res.Verdicts[0].Version != tc.candidates[0] || res.Verdicts[0].Baseline != "0.66.0" {
					t.Errorf("verdicts %+v", res.Verdicts)
				}
				if len(res.Checks) != 1 || res.Checks[0].Candidate != map[bool]string{true: "fail", false: "pass"}[tc.rec.blocked[tc.candidates[0]]] {
					t.Errorf("the target's checks: %+v", res.Checks)
				}
			}
		})
	}
	if _, err := (&verifying.Verifier{}).Verify(context.Background(), verifying.Request{Package: "numba", Settings: withProbes}); err == nil {
		t.Error("no candidate: no error")
	}
}
