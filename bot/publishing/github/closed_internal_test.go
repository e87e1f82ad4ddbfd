package github

import (
	"strings"
	"testing"
	"time"

	gh "github.com/google/go-github/v60/github"
)

// TestClosedFor: a pull request closed without merging is for the change's
// target when pinbot's record says so (the marker on the first line, else
// the title pinbot gave it), never because its text mentions the target.
func TestClosedFor(t *testing.T) {
	ch := Change{Package: "numba", Target: "0.68.0", Base: "main", Title: "Bump numba cap to 0.68.0"}
	marker := func(pkg, target, base string) string {
		return marker{Package: pkg, Target: target, Base: base, Commits: []string{shaA}}.String()
	}
	notes := "\n\npinbot moves the caps on **numba** to admit **0.68.0**.\n\n" +
		"[release notes](https://github.com/numba/numba/releases/tag/0.68.0) · [compare](https://github.com/numba/numba/compare/0.67.0...0.68.0)\n"
	old, cur := "Bump numba cap to 0.67.0", ch.Title
	for _, tc := range []struct {
		name, title, body string
		merged            bool
		want              bool
	}{
		{"recorded", cur, marker("numba", "0.68.0", "main") + "\nbody", false, true},
		{"recorded, the failure draft's record too", cur + failedTitle, marker("numba", "0.68.0", "main") + " " + markerFailureDraft + "\n", false, true},
		{"recorded before pinbot kept commits", cur, "<!-- pinbot:v1 package=numba target=0.68.0 base=main -->\nbody", false, true},
		{"an older target", old, marker("numba", "0.67.0", "main") + "\nbody", false, false},
		{"an older target, the new one in the release notes", old, marker("numba", "0.67.0", "main") + notes, false, false},
		{"an older target, the new one's marker quoted below", old, marker("numba", "0.67.0", "main") + notes + marker("numba", "0.68.0", "main") + "\n", false, false},
		{"a marker for another package", cur, marker("llvmlite", "0.68.0", "main") + "\n", false, false},
		{"a marker for another base", cur, marker("numba", "0.68.0", "dev") + "\n", false, false},
		{"merged", cur, marker("numba", "0.68.0", "main") + "\n", true, false},
		// Without a marker on the first line, the title pinbot wrote decides.
		{"rewritten by a person, the title pinbot's", cur, "Not now: our numba extensions need porting first.", false, true},
		{"rewritten by a person, the title blocked", cur + failedTitle, "Not now.", false, true},
		{"rewritten by a person, an older title", old, "Not now: wait for 0.68.0.\n" + marker("numba", "0.68.0", "main") + "\n", false, false},
		{"edited on the web (CRLF)", cur, strings.ReplaceAll(marker("numba", "0.68.0", "main")+notes, "\n", "\r\n"), false, true},
		{"edited on the web (CRLF), an older target", old, strings.ReplaceAll(marker("numba", "0.67.0", "main")+notes, "\n", "\r\n"), false, false},
		{"retitled and rewritten", "numba: not yet", "Wait for numba 0.68.0.", false, false},
	} {
		pr := &gh.PullRequest{State: gh.String("closed"), Title: gh.String(tc.title), Body: gh.String(tc.body)}
		if tc.merged {
			pr.Merged, pr.MergedAt = gh.Bool(true), &gh.Timestamp{Time: time.Now()}
		}
		if got := closedFor(pr, ch); got != tc.want {
			t.Errorf("%s: closedFor = %v, want %v", tc.name, got, tc.want)
		}
	}
	open := &gh.PullRequest{State: gh.String("open"), Title: gh.String(ch.Title), Body: gh.String(marker("numba", "0.68.0", "main"))}
	if closedFor(open, ch) {
		t.Errorf("an open pull request counts as closed")
	}
}
