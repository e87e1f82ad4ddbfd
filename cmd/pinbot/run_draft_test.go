package main

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/pinbot-dev/pinbot/bot/report"
	"github.com/pinbot-dev/pinbot/internal/fakes"
)

// TestRunDraftFollowsChecks: a pull request is a draft while a check fails,
// and ready again when the checks pass, unless a person or the config made
// it a draft; a second run changes nothing.
func TestRunDraftFollowsChecks(t *testing.T) {
	const pull = "/repos/" + testRepo + "/pulls/1"
	t.Run("blocked later", func(t *testing.T) {
		e := newRunEnv(t, testConfig)
		out, w := e.runSteps(t, nil, blockNumba)
		if want := []string{"PATCH " + pull, "POST /graphql convertPullRequestToDraft"}; !slices.Equal(w, want) {
			t.Errorf("writes %q, want %q", w, want)
		}
		if p := e.gh.Pulls(testRepo)[0]; !p.Draft || p.Title != "Bump numba cap to 0.67.0 (a check failed)" || !strings.Contains(out, "converted to a draft: a check failed") {
			t.Errorf("pull request %+v\n%s", p, out)
		}
		if msgs := e.slack.Messages(); len(msgs) != 2 || !strings.Contains(string(msgs[1]), "numba: updated #1") || !strings.Contains(string(msgs[1]), "a check failed") {
			t.Errorf("slack %s", msgs)
		}
		if _, w := e.runSteps(t, blockNumba); len(w) != 0 {
			t.Errorf("second run wrote %q", w)
		}
		e.checkSecrets(t)
	})
	t.Run("passes again", func(t *testing.T) {
		e := newRunEnv(t, testConfig)
		out, w := e.runSteps(t, blockNumba, nil)
		if want := []string{"POST /graphql markPullRequestReadyForReview", "PATCH " + pull}; !slices.Equal(w, want) {
			t.Errorf("writes %q, want %q", w, want)
		}
		e.checkState(t, "0.67.0")
		if p := e.gh.Pulls(testRepo)[0]; p.Draft || strings.Contains(p.Body, "check-failed") || !strings.Contains(out, "marked ready for review") {
			t.Errorf("pull request %+v\n%s", p, out)
		}
		if _, w := e.runSteps(t, nil); len(w) != 0 {
			t.Errorf("second run wrote %q", w)
		}
		e.checkSecrets(t)
	})
	t.Run("a person's draft", func(t *testing.T) {
		e := newRunEnv(t, testConfig)
		e.runSteps(t, nil)
		e.gh.SetDraft(testRepo, 1, true)
		for i, adjust := range []func(*report.Report){nil, blockNumba, nil} {
			_, w := e.runSteps(t, adjust)
			if slices.ContainsFunc(w, func(s string) bool { return strings.Contains(s, "graphql") }) || !e.gh.Pulls(testRepo)[0].Draft {
				t.Errorf("step %d: writes %q, draft %v", i, w, e.gh.Pulls(testRepo)[0].Draft)
			}
		}
	})
	t.Run("draft: true", func(t *testing.T) {
		e := newRunEnv(t, strings.Replace(testConfig, "pull-requests:\n", "pull-requests:\n  draft: true\n", 1))
		for i, adjust := range []func(*report.Report){nil, blockNumba, nil, nil} {
			_, w := e.runSteps(t, adjust)
			if slices.ContainsFunc(w, func(s string) bool { return strings.Contains(s, "graphql") }) || !e.gh.Pulls(testRepo)[0].Draft {
				t.Errorf("step %d: writes %q, draft %v", i, w, e.gh.Pulls(testRepo)[0].Draft)
			}
		}
	})
}

// TestRunDraftGraphQLError: a GraphQL error (sent with HTTP 200) fails that
// package's pull request, not the others'; the next run completes it.
func TestRunDraftGraphQLError(t *testing.T) {
	e := newRunEnvFiles(t, strings.Replace(testConfig, "  numba: {}\n", "  numba: {}\n  protobuf: {}\n", 1),
		map[string]string{"requirements.txt": "protobuf<=5.29.3\n"})
	e.runSteps(t, nil)
	pulls := e.gh.Pulls(testRepo)
	if len(pulls) != 2 || pulls[0].Head != branch || pulls[1].Head != "pinbot/main/protobuf" {
		t.Fatalf("pull requests %+v", pulls)
	}
	e.gh.Fail("POST", `^/graphql$`, fakes.Fault{Status: 200, Body: `{"data":{"convertPullRequestToDraft":null},"errors":[{"type":"FORBIDDEN",` +
		`"path":["convertPullRequestToDraft"],"locations":[{"line":1,"column":20}],"message":"Resource not accessible by integration"}]}`})
	runHooks.adjust = blockAll
	code, out, stderr := e.run()
	if code != 1 || !strings.Contains(stderr, "numba: github: converting #1 to a draft: GraphQL error: FORBIDDEN: Resource not accessible by integration") {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	if p := e.gh.Pulls(testRepo); p[0].Draft || !p[1].Draft || !strings.Contains(out, "protobuf: updated #2") {
		t.Errorf("pull requests %+v\n%s", p, out)
	}
	if msgs := e.slack.Messages(); len(msgs) != 2 || !strings.Contains(string(msgs[1]), "numba: pull request failed") {
		t.Errorf("slack %s", msgs)
	}
	if _, w := e.runSteps(t, blockAll); !slices.Equal(w, []string{"POST /graphql convertPullRequestToDraft"}) || !e.gh.Pulls(testRepo)[0].Draft {
		t.Errorf("rerun wrote %q", w)
	}
	if _, w := e.runSteps(t, blockAll); len(w) != 0 {
		t.Errorf("third run wrote %q", w)
	}
	e.checkSecrets(t)
}

// TestRunDraftKilled kills the run that changes the draft state after each
// API call in turn; the next run completes it and a third changes nothing.
func TestRunDraftKilled(t *testing.T) {
	for _, tc := range []struct {
		name          string
		before, after func(*report.Report)
	}{{"to draft", nil, blockNumba}, {"to ready", blockNumba, nil}} {
		probe := newRunEnv(t, testConfig)
		probe.runSteps(t, tc.before)
		from := len(probe.gh.Requests())
		probe.runSteps(t, tc.after)
		total := len(probe.gh.Requests()) - from
		for n := 1; n <= total; n++ {
			t.Run(fmt.Sprint(tc.name, n), func(t *testing.T) {
				e := newRunEnv(t, testConfig)
				e.runSteps(t, tc.before)
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				e.gh.KillAfter(n, cancel)
				runHooks.adjust = tc.after
				e.pinbot(ctx, "run", "--dir", e.dir)
				e.gh.KillAfter(0, nil)
				e.runSteps(t, tc.after)
				p := e.gh.Pulls(testRepo)
				if draft := tc.after != nil; len(p) != 1 || p[0].Draft != draft || strings.Contains(p[0].Body, "reason=check-failed") != draft {
					t.Errorf("pull requests %+v", p)
				}
				if _, w := e.runSteps(t, tc.after); len(w) != 0 {
					t.Errorf("third run wrote %q", w)
				}
			})
		}
	}
}
