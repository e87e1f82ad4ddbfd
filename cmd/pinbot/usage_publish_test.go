package main

import (
	"strings"
	"testing"
)

// TestRunUsageSlackDashboard: a blocked usage check reaches Slack and the
// dashboard as a probe's failure does, naming the check and the project's
// place; a second identical run tells Slack nothing new and writes no issue.
func TestRunUsageSlackDashboard(t *testing.T) {
	e := newRunEnvFiles(t, strings.Replace(testConfig, "dashboard: false\n", "", 1), map[string]string{"pytensor/link/numba/cache.py": pytensorCache})
	e.vars["PINBOT_CACHE_DIR"] = t.TempDir()
	e.pypi.Add("numba", usageNumba("0.66.0", false), usageNumba("0.67.0", false), usageNumba("0.68.0", true))
	if code, out, stderr := e.run("--static"); code != exitCheck {
		t.Fatalf("exit %d, want 3\n%s\n%s", code, out, stderr)
	}
	msgs := e.slack.Messages()
	if len(msgs) != 1 {
		t.Fatalf("%d Slack messages, want 1: %s", len(msgs), msgs)
	}
	slack := slackTexts(t, msgs[0])
	for _, want := range []string{
		"blocked: usage references",
		"usage `references` 3/4 resolve (4/4 resolve at the baseline 0.66.0): pytensor/link/numba/cache.py:22 replaces numba.core.bytecode.FunctionIdentity._unique_ids: passes at 0.66.0, missing at 0.68.0",
	} {
		if !strings.Contains(slack, want) {
			t.Errorf("Slack lacks %q:\n%s", want, slack)
		}
	}
	dash := e.dashboard(t).Body
	for _, want := range []string{
		"| numba | ❌ blocked |",
		"| usage `references` | ❌ failed | 4/4 resolve | 3/4 resolve | pytensor/link/numba/cache.py:22 replaces",
		"- ❌ `pytensor/link/numba/cache.py`:22 replaces `numba.core.bytecode.FunctionIdentity._unique_ids` (private): passes → missing",
	} {
		if !strings.Contains(dash, want) {
			t.Errorf("the dashboard lacks %q:\n%s", want, dash)
		}
	}

	from := len(e.gh.Requests())
	if code, out, stderr := e.run("--static"); code != exitCheck {
		t.Fatalf("second run: exit %d, want 3\n%s\n%s", code, out, stderr)
	}
	if n := len(e.slack.Messages()); n != 1 {
		t.Errorf("the same failure was sent to Slack again: %d messages", n)
	}
	if w := e.writesSince(from); len(w) != 0 {
		t.Errorf("a second identical run wrote to GitHub: %v", w)
	}
}
