package github_test

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pinbot-dev/pinbot/bot/github"
	"github.com/pinbot-dev/pinbot/internal/fakes"
	"github.com/pinbot-dev/pinbot/web"
)

// fleetClient returns a client for the owner-level listing (no repository)
// over web.Transport, with its request counter.
func fleetClient(t *testing.T, fake *fakes.GitHub, tokens string) (*github.Client, *github.Counter) {
	t.Helper()
	tr := web.NewTransport(nil, web.DefaultPolicy, "pinbot/test", nil)
	tr.Sleep = func(ctx context.Context, d time.Duration) error { return nil }
	n := &github.Counter{}
	c, err := github.New(github.Options{APIURL: fake.URL, Tokens: github.StaticToken(tokens), HTTP: &http.Client{Transport: tr},
		Clock: &clock{now: time.Now()}, Counter: n})
	if err != nil {
		t.Fatal(err)
	}
	return c, n
}

func names(rs []github.Repository) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.FullName)
	}
	return out
}

// TestRepositoriesPages lists an organisation of 250 repositories in three
// pages of 100 after one request for the owner, with their metadata.
func TestRepositoriesPages(t *testing.T) {
	fake := fakes.NewGitHub(t)
	fake.AddToken(token, "bot")
	for i := range 250 {
		full := fmt.Sprintf("lab/r%03d", i)
		fake.AddRepo(full, "main", nil)
		fake.SetRepoMeta(full, fakes.RepoMeta{Topics: []string{fmt.Sprintf("t%d", i%3)}, Archived: i == 7, Fork: i == 8, Private: i == 9})
	}
	c, n := fleetClient(t, fake, token)
	rs, err := c.Repositories(context.Background(), "lab")
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 250 || rs[0].FullName != "lab/r000" || rs[249].FullName != "lab/r249" {
		t.Fatalf("%d repositories: %v", len(rs), names(rs)[:5])
	}
	if !rs[7].Archived || !rs[8].Fork || !rs[9].Private || rs[10].Archived || !slices.Equal(rs[4].Topics, []string{"t1"}) || rs[4].DefaultBranch != "main" {
		t.Errorf("metadata %+v %+v %+v %+v", rs[7], rs[8], rs[9], rs[4])
	}
	if n.N() != 4 {
		t.Errorf("%d requests, want 4 (the owner, then three pages)", n.N())
	}
	var paths []string
	for _, r := range fake.Requests() {
		paths = append(paths, r.Path+"?"+r.Query)
	}
	if paths[0] != "/users/lab?" || !strings.Contains(paths[3], "page=3") || !strings.Contains(paths[1], "per_page=100") {
		t.Errorf("requests %v", paths)
	}
}

// TestRepositoriesUserAndMissingOwner: a user's listing shows only public
// repositories; an owner that does not exist is ErrNoOwner, and a name
// GitHub cannot have is refused before any request.
func TestRepositoriesUserAndMissingOwner(t *testing.T) {
	fake := fakes.NewGitHub(t)
	fake.AddToken(token, "bot")
	fake.AddUser("alice")
	fake.AddRepo("alice/pub", "main", nil)
	fake.AddRepo("alice/secret", "main", nil)
	fake.SetRepoMeta("alice/secret", fakes.RepoMeta{Private: true})
	c, _ := fleetClient(t, fake, token)
	rs, err := c.Repositories(context.Background(), "alice")
	if err != nil || !slices.Equal(names(rs), []string{"alice/pub"}) {
		t.Errorf("alice: %v %v", names(rs), err)
	}
	if _, err := c.Repositories(context.Background(), "nobody"); !errors.Is(err, github.ErrNoOwner) || !strings.Contains(err.Error(), "nobody") {
		t.Errorf("missing owner: %v", err)
	}
	before := len(fake.Requests())
	if _, err := c.Repositories(context.Background(), "../repos/x"); err == nil || len(fake.Requests()) != before {
		t.Errorf("bad owner name: %v", err)
	}
}

// TestInstallationRepositories mints an installation token found from the
// owner (an organisation, then a user) and lists the installation's
// repositories, private ones included.
func TestInstallationRepositories(t *testing.T) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	pemKey := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})
	for _, user := range []bool{false, true} {
		t.Run(fmt.Sprint("user=", user), func(t *testing.T) {
			fake := fakes.NewGitHub(t)
			if user {
				fake.AddUser("lab")
			}
			for i := range 120 {
				fake.AddRepo(fmt.Sprintf("lab/r%03d", i), "main", nil)
			}
			fake.SetRepoMeta("lab/r005", fakes.RepoMeta{Private: true})
			fake.AddRepo("other/x", "main", nil)
			fake.AddApp(7, &key.PublicKey, 77, "lab/r000")
			n := &github.Counter{}
			ctx := context.Background()
			ts, err := github.AppTokens(ctx, github.AppOptions{APIURL: fake.URL, AppID: 7, PrivateKey: pemKey, Owner: "lab", Counter: n})
			if err != nil {
				t.Fatal(err)
			}
			c, err := github.New(github.Options{APIURL: fake.URL, Tokens: ts, Counter: n})
			if err != nil {
				t.Fatal(err)
			}
			rs, err := c.InstallationRepositories(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if len(rs) != 120 || !rs[5].Private || slices.Contains(names(rs), "other/x") {
				t.Errorf("%d repositories, private %v", len(rs), rs[5])
			}
			want := 4 // installation, token, two pages
			if user {
				want = 5 // the organisation's installation first
			}
			if n.N() != want {
				t.Errorf("%d requests, want %d", n.N(), want)
			}
			if _, err := github.AppTokens(ctx, github.AppOptions{APIURL: fake.URL, AppID: 7, PrivateKey: pemKey, Owner: "other"}); !errors.Is(err, github.ErrNoInstallation) {
				t.Errorf("another owner: %v", err)
			}
		})
	}
}

// TestSecondaryLimitWithoutRetryAfter: a 403 secondary limit that gives no
// Retry-After (which web.Transport cannot tell from a refusal) is waited out,
// one minute then two; a third says how long pinbot waited. A plain 403 is
// not retried.
func TestSecondaryLimitWithoutRetryAfter(t *testing.T) {
	bare := fakes.Fault{Status: 403, Body: fakes.SecondaryLimitBody}
	fake, c, clk, _ := setup(t, web.DefaultPolicy)
	fake.Fail("GET", `^/repos/o/r$`, bare, bare)
	if b, err := c.DefaultBranch(context.Background()); err != nil || b != "main" {
		t.Fatalf("%q %v", b, err)
	}
	if !slices.Equal(clk.sleeps, []time.Duration{time.Minute, 2 * time.Minute}) {
		t.Errorf("waits %v", clk.sleeps)
	}
	fake.Fail("GET", `^/repos/o/r$`, bare, bare, bare)
	_, err := c.DefaultBranch(context.Background())
	if err == nil || !strings.Contains(err.Error(), "secondary rate limit (no Retry-After; still limited after waiting 3m0s); pinbot stopped waiting, run again later") {
		t.Errorf("error %v", err)
	}
	clk.sleeps = nil
	fake.Fail("GET", `^/repos/o/r$`, fakes.Fault{Status: 403, Body: `{"message":"Resource not accessible by integration","documentation_url":"https://docs.github.com/rest"}`})
	if _, err := c.DefaultBranch(context.Background()); err == nil || strings.Contains(err.Error(), "rate limit") || len(clk.sleeps) != 0 {
		t.Errorf("a refusal: %v, waits %v", err, clk.sleeps)
	}
}

// TestSecondaryLimitTooLong: a Retry-After beyond the transport's bound is
// not waited for; the error says how long GitHub asked for. A 429 is a
// secondary limit too.
func TestSecondaryLimitTooLong(t *testing.T) {
	fake, c, _, waits := setup(t, web.DefaultPolicy)
	for _, status := range []int{403, 429} {
		f := fakes.SecondaryLimit(status)
		f.Header["Retry-After"] = "600"
		fake.Fail("GET", `^/repos/o/r$`, f)
		_, err := c.DefaultBranch(context.Background())
		if err == nil || !strings.Contains(err.Error(), "secondary rate limit (GitHub asks to wait 10m0s); pinbot stopped waiting, run again later") {
			t.Errorf("%d: error %v", status, err)
		}
	}
	if len(*waits) != 0 {
		t.Errorf("waited %v", *waits)
	}
}

// TestSyncIssue: the issue is opened once, then found by its marker and
// updated in place, or left alone when nothing changed; labels people add
// stay; a closed issue stays closed; pull requests and issues that only
// mention the marker are not it.
func TestSyncIssue(t *testing.T) {
	fake, c, _, _ := setup(t, web.DefaultPolicy)
	ctx := context.Background()
	fake.AddIssue(repo, "a question", "how does "+github.IssueMarker("fleet-dashboard")+" work?", "pinbot")
	is := github.Issue{Marker: "fleet-dashboard", Title: "pinbot: fleet", Body: "first", Labels: []string{"pinbot"}}
	res, err := c.SyncIssue(ctx, is)
	if err != nil || res.Action != github.Opened || res.Number != 2 || res.Previous != "" {
		t.Fatalf("%+v %v", res, err)
	}
	writes := func() int {
		n := 0
		for _, r := range fake.Requests() {
			if r.Method != http.MethodGet {
				n++
			}
		}
		return n
	}
	before := writes()
	res, err = c.SyncIssue(ctx, is)
	if err != nil || res.Action != github.Unchanged || res.Number != 2 || writes() != before {
		t.Errorf("again: %+v %v, %d writes", res, err, writes()-before)
	}
	if !strings.HasPrefix(res.Previous, github.IssueMarker("fleet-dashboard")+"\nfirst") {
		t.Errorf("previous %q", res.Previous)
	}
	// Someone closes it, swaps its label and adds another.
	fake.EditIssue(repo, 2, "closed", []string{"triage"})
	is.Body = "second"
	res, err = c.SyncIssue(ctx, is)
	if err != nil || res.Action != github.Updated || res.Number != 2 {
		t.Fatalf("after edits: %+v %v", res, err)
	}
	issues := fake.Issues(repo)
	if len(issues) != 2 {
		t.Fatalf("issues %+v", issues)
	}
	got := issues[1]
	if got.State != "closed" || !slices.Equal(got.Labels, []string{"triage", "pinbot"}) || got.Body != github.IssueMarker("fleet-dashboard")+"\nsecond" {
		t.Errorf("issue %+v", got)
	}
	if _, err := c.SyncIssue(ctx, github.Issue{Marker: "Bad Marker", Title: "x"}); err == nil {
		t.Error("a bad marker was accepted")
	}
}

// TestSyncIssueLongBody keeps a long body under GitHub's limit, marker first.
func TestSyncIssueLongBody(t *testing.T) {
	fake, c, _, _ := setup(t, web.DefaultPolicy)
	body := strings.Repeat("| a row of the dashboard |\n", 5000)
	if _, err := c.SyncIssue(context.Background(), github.Issue{Marker: "m", Title: "t", Body: body}); err != nil {
		t.Fatal(err)
	}
	got := fake.Issues(repo)[0].Body
	if len(got) > 65536 || !strings.HasPrefix(got, github.IssueMarker("m")+"\n") || !strings.Contains(got, "Cut to fit") {
		t.Errorf("body of %d bytes", len(got))
	}
}

// TestValidRepository: the names GitHub allows for a repository of an
// owner, and nothing a shell, a path or a flag parser would read as more.
func TestValidRepository(t *testing.T) {
	for _, tt := range []struct {
		full string
		ok   bool
	}{
		{"lab/svc-a", true},
		{"Lab/Good.v2_x-y", true},
		{"lab/.github", true},
		{"lab/..x", true},
		{"lab/" + strings.Repeat("a", 100), true},
		{"lab/" + strings.Repeat("a", 101), false},
		{"lab/.", false},
		{"lab/..", false},
		{"lab/../../etc", false},
		{"lab/-flag", false},
		{"lab/a b", false},
		{"lab/a\nb", false},
		{"lab/$(touch${IFS}pwned)", false},
		{"lab/ünï", false},
		{"lab/", false},
		{"lab", false},
		{"-lab/a", false},
		{"la_b/a", false},
		{"/a", false},
	} {
		if got := github.ValidRepository(tt.full); got != tt.ok {
			t.Errorf("ValidRepository(%q) = %v, want %v", tt.full, got, tt.ok)
		}
	}
	if !github.SameRepository("Lab/Svc-A", "lab/svc-a") || github.SameRepository("lab/a", "lab/b") {
		t.Error("SameRepository does not compare as GitHub does")
	}
}
