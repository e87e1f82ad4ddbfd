package main

import (
	"strings"
	"testing"
)

// TestRunFailOn: --fail-on decides what turns the exit code non-zero. A
// blocked bump still gets its draft pull request and its alert whatever the
// level; error forgives it (exit 0) but not a failure; never forgives both,
// saying on stderr what it forgave.
func TestRunFailOn(t *testing.T) {
	blocked := []struct {
		args []string
		want int
	}{
		{nil, exitCheck}, // the default: today's behaviour
		{[]string{"--fail-on", "blocked"}, exitCheck},
		{[]string{"--fail-on", "error"}, exitOK},
		{[]string{"--fail-on", "never"}, exitOK},
	}
	for _, tt := range blocked {
		t.Run("blocked "+strings.Join(tt.args, " "), func(t *testing.T) {
			e := newRunEnv(t, testConfig)
			runHooks.adjust = blockNumba
			code, out, stderr := e.run(tt.args...)
			if code != tt.want {
				t.Fatalf("exit %d, want %d\n%s\n%s", code, tt.want, out, stderr)
			}
			if p := e.gh.Pulls(testRepo); len(p) != 1 || !p[0].Draft {
				t.Errorf("pull requests %+v: want one draft", p)
			}
			if msgs := e.slack.Messages(); len(msgs) != 1 || !strings.Contains(string(msgs[0]), "numba: a check failed") {
				t.Errorf("slack %s", msgs)
			}
			if forgiven := strings.Contains(stderr, "1 bump(s) blocked by a failed check (exit 0: --fail-on "); forgiven != (tt.want == exitOK) {
				t.Errorf("stderr says what --fail-on forgave: %v, want %v\n%s", forgiven, tt.want == exitOK, stderr)
			}
		})
	}
	// A checkout that is not the base branch fails numba's pull request.
	failed := []struct {
		failOn string
		want   int
	}{{"blocked", exitFailure}, {"error", exitFailure}, {"never", exitOK}}
	for _, tt := range failed {
		t.Run("failure --fail-on "+tt.failOn, func(t *testing.T) {
			e := newRunEnv(t, testConfig)
			e.file("sub/pyproject.toml", []byte("[project]\nname = \"sub\"\ndependencies = [\"numba>=0.56\"]\n"))
			code, out, stderr := e.run("--fail-on", tt.failOn)
			if code != tt.want {
				t.Fatalf("exit %d, want %d\n%s\n%s", code, tt.want, out, stderr)
			}
			if !strings.Contains(stderr, "1 failure(s):\n  numba: github: sub/pyproject.toml: the checkout differs") {
				t.Errorf("stderr lacks the failure:\n%s", stderr)
			}
		})
	}
	t.Run("bad value", func(t *testing.T) {
		e := newRunEnv(t, testConfig)
		if code, _, stderr := e.run("--fail-on", "warning"); code != exitUsage || !strings.Contains(stderr, "--fail-on: expected error, blocked or never") {
			t.Errorf("exit %d\n%s", code, stderr)
		}
	})
}
