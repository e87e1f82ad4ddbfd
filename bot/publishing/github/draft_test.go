package github_test

import (
	"context"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pinbot-dev/pinbot/bot/publishing/github"
	"github.com/pinbot-dev/pinbot/internal/fakes"
	"github.com/pinbot-dev/pinbot/web"
)

// writes returns the requests from index from on that are not GETs, as
// "METHOD path" with the GraphQL mutation's name.
func writes(fake *fakes.GitHub, from int) []string {
	var out []string
	for _, r := range fake.Requests()[from:] {
		if r.Method == http.MethodGet {
			continue
		}
		w := r.Method + " " + r.Path
		for _, m := range []string{"convertPullRequestToDraft", "markPullRequestReadyForReview"} {
			if strings.Contains(r.Body, m) {
				w += " " + m
			}
		}
		out = append(out, w)
	}
	return out
}

// syncDraft runs Sync and returns its result and the writes it made.
func syncDraft(t *testing.T, fake *fakes.GitHub, c *github.Client, ch github.Change) (github.Result, []string) {
	t.Helper()
	before := len(fake.Requests())
	res, err := c.Sync(context.Background(), ch)
	if err != nil {
		t.Fatalf("Sync: %v", err)
	}
	return res, writes(fake, before)
}

func blocked(ch github.Change) github.Change {
	ch.Blocked, ch.Title = true, ch.Title+" (a check failed)"
	return ch
}

func TestDraftFollowsChecks(t *testing.T) {
	fake, c, clk, _ := setup(t, web.DefaultPolicy)
	ready := change("new\n")
	if res, _ := syncDraft(t, fake, c, ready); res.Action != github.Opened || res.Draft {
		t.Fatalf("%+v", res)
	}

	// A check fails: the body records the failure draft, then GraphQL converts.
	res, w := syncDraft(t, fake, c, blocked(ready))
	if want := []string{"PATCH /repos/o/r/pulls/1", "POST /graphql convertPullRequestToDraft"}; !slices.Equal(w, want) {
		t.Errorf("writes %q, want %q", w, want)
	}
	p := fake.Pulls(repo)[0]
	first, _, _ := strings.Cut(p.Body, "\n")
	if res.Action != github.Updated || !res.Draft || !strings.Contains(res.Detail, "converted to a draft") || !p.Draft ||
		!regexp.MustCompile(`^<!-- pinbot:v1 package=numba target=0.67.0 base=main --> <!-- pinbot:commits [0-9a-f]{40} --> <!-- pinbot:draft reason=check-failed -->$`).MatchString(first) {
		t.Errorf("result %+v, pull request %+v", res, p)
	}
	if res, w := syncDraft(t, fake, c, blocked(ready)); res.Action != github.Unchanged || len(w) != 0 || !res.Draft {
		t.Errorf("second blocked Sync: %+v, writes %q", res, w)
	}

	// The checks pass again: GraphQL marks it ready, then the body loses the record.
	res, w = syncDraft(t, fake, c, ready)
	if want := []string{"POST /graphql markPullRequestReadyForReview", "PATCH /repos/o/r/pulls/1"}; !slices.Equal(w, want) {
		t.Errorf("writes %q, want %q", w, want)
	}
	p = fake.Pulls(repo)[0]
	if res.Action != github.Updated || res.Draft || !strings.Contains(res.Detail, "marked ready for review") || p.Draft ||
		strings.Contains(p.Body, "pinbot:draft") || p.Title != ready.Title {
		t.Errorf("result %+v, pull request %+v", res, p)
	}
	if res, w := syncDraft(t, fake, c, ready); res.Action != github.Unchanged || len(w) != 0 {
		t.Errorf("second Sync: %+v, writes %q", res, w)
	}

	// Every content-creating request, the mutations included, was paced.
	n := len(writes(fake, 0))
	if len(clk.sleeps) != n-1 {
		t.Errorf("%d pacing sleeps for %d content-creating requests", len(clk.sleeps), n)
	}
	for _, r := range fake.Requests() {
		if strings.Contains(r.Body, token) || strings.Contains(r.Query, token) || strings.Contains(strings.Join(r.Header.Values("Authorization"), ""), token) {
			t.Errorf("the token is in the recorded %s %s", r.Method, r.Path)
		}
	}
}

func TestDraftOpenedBlocked(t *testing.T) {
	fake, c, _, _ := setup(t, web.DefaultPolicy)
	ch := change("new\n")
	// A body from Describe for a blocked package says so; Blocked is not set.
	ch.Body = github.Describe{Base: "main", Blocked: true}.Body()
	res, w := syncDraft(t, fake, c, ch)
	if p := fake.Pulls(repo)[0]; res.Action != github.Opened || !res.Draft || !p.Draft || !strings.Contains(p.Body, "pinbot:draft reason=check-failed") {
		t.Fatalf("result %+v, pull request %+v", res, p)
	}
	if slices.ContainsFunc(w, func(s string) bool { return strings.Contains(s, "graphql") }) {
		t.Errorf("opening as a draft needs no GraphQL: %q", w)
	}
	// Passing again, with pull-requests.draft: it stays a draft and forgets
	// the failure, so it is never marked ready later.
	ch = change("new\n")
	ch.Draft = true
	if res, w := syncDraft(t, fake, c, ch); !res.Draft || slices.ContainsFunc(w, func(s string) bool { return strings.Contains(s, "graphql") }) {
		t.Errorf("draft: true: %+v, writes %q", res, w)
	}
	if p := fake.Pulls(repo)[0]; !p.Draft || strings.Contains(p.Body, "pinbot:draft") {
		t.Errorf("pull request %+v", p)
	}
	ch.Draft = false
	if res, w := syncDraft(t, fake, c, ch); !res.Draft || len(w) != 0 {
		t.Errorf("after draft: true: %+v, writes %q", res, w)
	}
}

func TestDraftByAPersonStays(t *testing.T) {
	fake, c, _, _ := setup(t, web.DefaultPolicy)
	ch := change("new\n")
	syncDraft(t, fake, c, ch)
	fake.SetDraft(repo, 1, true)
	if res, w := syncDraft(t, fake, c, ch); len(w) != 0 || !res.Draft {
		t.Errorf("%+v, writes %q", res, w)
	}
	// A check fails and passes again: pinbot did not make this draft.
	if res, w := syncDraft(t, fake, c, blocked(ch)); !slices.Equal(w, []string{"PATCH /repos/o/r/pulls/1"}) || !res.Draft {
		t.Errorf("blocked: %+v, writes %q", res, w)
	}
	if p := fake.Pulls(repo)[0]; strings.Contains(p.Body, "pinbot:draft") {
		t.Errorf("a person's draft recorded as pinbot's: %.120q", p.Body)
	}
	if res, w := syncDraft(t, fake, c, ch); !slices.Equal(w, []string{"PATCH /repos/o/r/pulls/1"}) || !res.Draft || !fake.Pulls(repo)[0].Draft {
		t.Errorf("passing again: %+v, writes %q", res, w)
	}
}

// TestDraftGraphQLFailures: an error in a 200 answer, or a refused request,
// fails the Sync; the next Sync completes what was left.
func TestDraftGraphQLFailures(t *testing.T) {
	fake, c, _, _ := setup(t, web.DefaultPolicy)
	ch := change("new\n")
	syncDraft(t, fake, c, ch)
	fake.Fail("POST", `^/graphql$`, fakes.Fault{Status: 200, Body: `{"data":{"convertPullRequestToDraft":null},"errors":[{"type":"FORBIDDEN","path":["convertPullRequestToDraft"],"locations":[{"line":1,"column":20}],"message":"Resource not accessible by integration"}]}`})
	_, err := c.Sync(context.Background(), blocked(ch))
	if err == nil || err.Error() != "github: converting #1 to a draft: GraphQL error: FORBIDDEN: Resource not accessible by integration" {
		t.Fatalf("error %v", err)
	}
	if p := fake.Pulls(repo)[0]; p.Draft || !strings.Contains(p.Body, "pinbot:draft reason=check-failed") {
		t.Errorf("after the failure: %+v", p)
	}
	// The body is right already: only the conversion is left.
	if res, w := syncDraft(t, fake, c, blocked(ch)); !slices.Equal(w, []string{"POST /graphql convertPullRequestToDraft"}) || !res.Draft {
		t.Errorf("%+v, writes %q", res, w)
	}

	// Marking ready refused: the record stays, so the next Sync retries.
	fake.Fail("POST", `^/graphql$`, fakes.Fault{Status: 401, Body: `{"message":"Bad credentials","documentation_url":"https://docs.github.com/graphql"}`})
	if _, err := c.Sync(context.Background(), ch); err == nil || !strings.Contains(err.Error(), "marking #1 ready for review: "+fake.URL+"/graphql: 401 Unauthorized: Bad credentials") {
		t.Fatalf("error %v", err)
	}
	if p := fake.Pulls(repo)[0]; !p.Draft || !strings.Contains(p.Body, "pinbot:draft reason=check-failed") {
		t.Errorf("after the failure: %+v", p)
	}
	if res, w := syncDraft(t, fake, c, ch); len(w) != 2 || res.Draft || fake.Pulls(repo)[0].Draft {
		t.Errorf("%+v, writes %q", res, w)
	}
}

// TestDraftGraphQLRateLimits: secondary limits on the GraphQL endpoint are
// waited out like REST ones.
func TestDraftGraphQLRateLimits(t *testing.T) {
	for _, status := range []int{403, 429} {
		fake, c, _, waits := setup(t, web.DefaultPolicy)
		ch := change("new\n")
		syncDraft(t, fake, c, ch)
		fake.Fail("POST", `^/graphql$`, fakes.SecondaryLimit(status))
		if res, _ := syncDraft(t, fake, c, blocked(ch)); !res.Draft || !fake.Pulls(repo)[0].Draft {
			t.Errorf("%d: %+v", status, res)
		}
		if !slices.Contains(*waits, time.Minute) {
			t.Errorf("%d: waits %v", status, *waits)
		}
	}
}

// TestDraftEnterpriseServer: with a REST base of https://HOST/api/v3, GraphQL
// is at https://HOST/api/graphql.
func TestDraftEnterpriseServer(t *testing.T) {
	fake := fakes.NewGitHub(t)
	fake.AddRepo(repo, "main", map[string]string{"a/b/pyproject.toml": "old\n"})
	fake.AddToken(token, "bot")
	c, err := github.New(github.Options{APIURL: fake.URL + "/api/v3", Repo: repo, Tokens: github.StaticToken(token), Clock: &clock{now: time.Now()}})
	if err != nil {
		t.Fatal(err)
	}
	ch := change("new\n")
	syncDraft(t, fake, c, ch)
	_, w := syncDraft(t, fake, c, blocked(ch))
	if want := []string{"PATCH /api/v3/repos/o/r/pulls/1", "POST /api/graphql convertPullRequestToDraft"}; !slices.Equal(w, want) {
		t.Errorf("writes %q, want %q", w, want)
	}
	if !fake.Pulls(repo)[0].Draft {
		t.Error("not a draft")
	}
}
