package github

import (
	"context"
	"net/url"
	"strings"
	"testing"

	gh "github.com/google/go-github/v60/github"

	"github.com/pinbot-dev/pinbot/internal/fakes"
)

func TestGraphQLURL(t *testing.T) {
	for _, tc := range []struct{ rest, want string }{
		{"", "https://api.github.com/graphql"},
		{"https://api.github.com", "https://api.github.com/graphql"},
		{"https://api.github.com/", "https://api.github.com/graphql"},
		{"https://ghe.example.com/api/v3", "https://ghe.example.com/api/graphql"},
		{"https://ghe.example.com/api/v3/", "https://ghe.example.com/api/graphql"},
		{"https://ghe.example.com:8443/api/v3/", "https://ghe.example.com:8443/api/graphql"},
		{"https://api.acme.ghe.com", "https://api.acme.ghe.com/graphql"},
		{"http://127.0.0.1:8080", "http://127.0.0.1:8080/graphql"},
	} {
		u, err := apiURL(tc.rest)
		if err != nil {
			t.Fatal(err)
		}
		if got := graphQLURL(u); got != tc.want {
			t.Errorf("graphQLURL(%q) = %q, want %q", tc.rest, got, tc.want)
		}
	}
}

// TestGraphQLAnswers: what the fake answers for an unknown node id and a bad
// token reaches the caller as an error naming the cause.
func TestGraphQLAnswers(t *testing.T) {
	fake := fakes.NewGitHub(t)
	fake.AddRepo("o/r", "main", nil)
	fake.AddToken("ghp_good", "bot")
	ctx := context.Background()
	newClient := func(tok string) *Client {
		c, err := New(Options{APIURL: fake.URL, Repo: "o/r", Tokens: StaticToken(tok), Clock: &stepClock{}})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	pr := &gh.PullRequest{Number: gh.Int(7), NodeID: gh.String("PR_kwDOnowhere")}
	err := newClient("ghp_good").setDraft(ctx, pr, true)
	if want := "github: converting #7 to a draft: GraphQL error: NOT_FOUND: Could not resolve to a node with the global id of 'PR_kwDOnowhere'"; err == nil || err.Error() != want {
		t.Errorf("unknown node id: %v\nwant %s", err, want)
	}
	err = newClient("ghp_bad").setDraft(ctx, pr, false)
	if err == nil || !strings.Contains(err.Error(), "marking #7 ready for review: "+fake.URL+"/graphql: 401 Unauthorized: Bad credentials") {
		t.Errorf("bad token: %v", err)
	}
	if err := newClient("ghp_good").setDraft(ctx, &gh.PullRequest{Number: gh.Int(7)}, true); err == nil || !strings.Contains(err.Error(), "no node_id") {
		t.Errorf("no node id: %v", err)
	}
	for _, r := range fake.Requests() {
		if u, _ := url.Parse(fake.URL + r.Path); r.Method != "POST" || u.Path != "/graphql" || strings.Contains(r.Body, "ghp_") {
			t.Errorf("request %s %s %s", r.Method, r.Path, r.Body)
		}
	}
}

func TestGraphQLAnswerShapes(t *testing.T) {
	fake := fakes.NewGitHub(t)
	fake.AddToken("ghp_good", "bot")
	c, err := New(Options{APIURL: fake.URL, Repo: "o/r", Tokens: StaticToken("ghp_good"), Clock: &stepClock{}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ body, want string }{
		{`{"data":{"convertPullRequestToDraft":{"pullRequest":{"number":7,"isDraft":false}}}}`, "GitHub answered that #7 has isDraft false"},
		{`{"data":{"convertPullRequestToDraft":null}}`, "the answer names no pull request"},
		{`{"data":null}`, "a GraphQL answer without data"},
		{`<html>Unicorn!</html>`, "not a GraphQL answer"},
		{`{"errors":{"message":"odd"}}`, "GraphQL errors that are not a list"},
		{`{"errors":[{"message":"one"},{"message":"two\u001b[31m"}]}`, "GraphQL error: one; (an unprintable message)"},
	} {
		fake.Fail("POST", `^/graphql$`, fakes.Fault{Status: 200, Body: tc.body})
		err := c.setDraft(context.Background(), &gh.PullRequest{Number: gh.Int(7), NodeID: gh.String("PR_x")}, true)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.body, err, tc.want)
		}
	}
}
