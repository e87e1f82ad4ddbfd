package github_test

import (
	"context"
	"strings"
	"testing"

	"github.com/pinbot-dev/pinbot/bot/publishing/github"
	"github.com/pinbot-dev/pinbot/internal/fakes"
	"github.com/pinbot-dev/pinbot/web"
)

// TestFindIssue finds the issue SyncIssue keeps, with its body, without
// writing; none is the zero result. A refused write says what the token
// lacks.
func TestFindIssue(t *testing.T) {
	fake, c, _, _ := setup(t, web.DefaultPolicy)
	ctx := context.Background()
	is := github.Issue{Marker: "dashboard/main", Title: "pinbot dashboard", Labels: []string{"pinbot"}}
	if res, err := c.FindIssue(ctx, is); err != nil || res.Number != 0 || res.Previous != "" {
		t.Fatalf("no issue yet: %+v %v", res, err)
	}
	fake.Fail("POST", `^/repos/o/r/issues$`, fakes.Fault{Status: 403, Body: `{"message": "Resource not accessible by integration"}`})
	if _, err := c.SyncIssue(ctx, github.Issue{Marker: is.Marker, Title: is.Title, Body: "x", Labels: is.Labels}); err == nil ||
		!strings.Contains(err.Error(), "(the token needs the issues: write permission)") {
		t.Errorf("a refused create: %v", err)
	}
	is.Body = "the body"
	opened, err := c.SyncIssue(ctx, is)
	if err != nil {
		t.Fatal(err)
	}
	before := len(fake.Requests())
	res, err := c.FindIssue(ctx, is)
	if err != nil || res.Number != opened.Number || res.URL != opened.URL || res.Previous != github.IssueMarker(is.Marker)+"\nthe body" {
		t.Errorf("found %+v %v, opened %+v", res, err, opened)
	}
	for _, r := range fake.Requests()[before:] {
		if r.Method != "GET" {
			t.Errorf("FindIssue wrote: %s %s", r.Method, r.Path)
		}
	}
	// Another base branch's dashboard is another issue.
	if res, err := c.FindIssue(ctx, github.Issue{Marker: "dashboard/main2", Labels: is.Labels}); err != nil || res.Number != 0 {
		t.Errorf("dashboard/main2 found %+v %v", res, err)
	}
	if _, err := c.FindIssue(ctx, github.Issue{Marker: "Dashboard"}); err == nil {
		t.Error("a bad marker was accepted")
	}
}
