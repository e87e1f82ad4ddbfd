package github_test

import (
	"context"
	"regexp"
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

// TestSyncIssueSame: with Issue.Same, a body that differs from the issue's
// only in what Same ignores leaves the issue as it is (no write, the old
// body kept); any other difference, or a missing label, rewrites it with
// the new body.
func TestSyncIssueSame(t *testing.T) {
	fake, c, _, _ := setup(t, web.DefaultPolicy)
	ctx := context.Background()
	asOf := regexp.MustCompile(`(?m)^as of \d+$`)
	is := github.Issue{Marker: "dashboard/main", Title: "pinbot dashboard", Labels: []string{"pinbot"},
		Same: func(found, want string) bool {
			return asOf.ReplaceAllString(found, "") == asOf.ReplaceAllString(want, "")
		}}
	sync := func(body string) (github.IssueResult, []string) {
		t.Helper()
		before := len(fake.Requests())
		is.Body = body
		res, err := c.SyncIssue(ctx, is)
		if err != nil {
			t.Fatal(err)
		}
		var writes []string
		for _, r := range fake.Requests()[before:] {
			if r.Method != "GET" {
				writes = append(writes, r.Method+" "+r.Path)
			}
		}
		return res, writes
	}
	body := func() string {
		return strings.TrimPrefix(fake.Issues(repo)[0].Body, github.IssueMarker(is.Marker)+"\n")
	}
	if res, _ := sync("as of 1\nnumba: bump"); res.Action != github.Opened {
		t.Fatalf("opened %+v", res)
	}
	if res, w := sync("as of 2\nnumba: bump"); res.Action != github.Unchanged || len(w) != 0 || body() != "as of 1\nnumba: bump" {
		t.Errorf("the same but for the time: %+v, writes %q, body %q", res, w, body())
	}
	if res, w := sync("as of 3\nnumba: current"); res.Action != github.Updated || len(w) != 1 || body() != "as of 3\nnumba: current" {
		t.Errorf("a change: %+v, writes %q, body %q", res, w, body())
	}
	fake.EditIssue(repo, fake.Issues(repo)[0].Number, "", []string{}) // a person removes the label
	if res, w := sync("as of 4\nnumba: current"); res.Action != github.Updated || len(w) != 1 || body() != "as of 4\nnumba: current" ||
		len(fake.Issues(repo)[0].Labels) != 1 {
		t.Errorf("a label gone: %+v, writes %q, body %q, labels %q", res, w, body(), fake.Issues(repo)[0].Labels)
	}
}
