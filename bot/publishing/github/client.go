// Package github opens and updates pinbot's pull requests over the GitHub REST
// API (https://docs.github.com/rest), with go-github v60 on top of pinbot's one
// HTTP layer, web.Transport.
//
// A pull request is one commit made through the git data API (tree, commit,
// ref: no local git), on a deterministic branch per base and package
// (pinbot/<base>/<package>), so a newer release moves the same branch and
// rewrites the same pull request. Sync is idempotent and crash-safe: it reads
// the state first and only writes what differs, so a run killed between any two
// requests is completed by the next one.
//
// Rate limits: web.Transport waits out 403 and 429 rate limits (Retry-After,
// x-ratelimit-reset); this package keeps go-github v60 from failing requests
// client-side on its own memory of a limit, and paces content-creating requests
// (POST, PATCH, PUT, DELETE, GraphQL mutations included) to at most 80 a
// minute and 500 an hour, GitHub's secondary limits.
//
// A pull request's draft state follows its package's checks: the REST API
// cannot change it, so the client posts GraphQL's convertPullRequestToDraft
// and markPullRequestReadyForReview itself (graphql.go).
//
// The package also renders pull request titles, bodies and commit messages
// (Describe), mints GitHub App installation tokens (AppTokens), and writes
// GitHub Actions workflow commands, step summaries and outputs.
//
// It belongs to bot/publishing (fleet uses it too); of bot it imports only
// bot/report and bot/publishing/upstream, and never plans or judges.
package github

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	gh "github.com/google/go-github/v60/github"
	"github.com/pinbot-dev/pinbot/bot/report"
	"github.com/pinbot-dev/pinbot/web"
	"golang.org/x/oauth2"
)

// DefaultAPIURL is the REST API of github.com; GitHub Enterprise Server serves
// it at https://HOST/api/v3 (the Actions variable GITHUB_API_URL).
const DefaultAPIURL = "https://api.github.com"

// DefaultPerMinute is how many content-creating requests a client makes a
// minute at most (GitHub's secondary limit is 80).
const DefaultPerMinute = 80

// PerHour is how many content-creating requests a client makes in any hour at
// most: GitHub's secondary limit of 500 an hour.
const PerHour = 500

// A Clock tells the time and waits; tests replace it.
type Clock interface {
	Now() time.Time
	// Sleep waits for d or until ctx is done.
	Sleep(ctx context.Context, d time.Duration) error
}

// SystemClock is the real clock.
var SystemClock Clock = systemClock{}

type systemClock struct{}

func (systemClock) Now() time.Time { return time.Now() }

func (systemClock) Sleep(ctx context.Context, d time.Duration) error { return web.Sleep(ctx, d) }

// A pacer spaces content-creating requests at least interval apart, and
// keeps at most hourly of them in any hour.
type pacer struct {
	clock    Clock
	interval time.Duration
	hourly   int
	mu       sync.Mutex
	next     time.Time
	sent     []time.Time // when the last (at most hourly) requests go, in order
}

// wait blocks until the next content-creating request may go.
func (p *pacer) wait(ctx context.Context) error {
	p.mu.Lock()
	now := p.clock.Now()
	at := p.next
	if at.Before(now) {
		at = now
	}
	if p.hourly > 0 && len(p.sent) >= p.hourly {
		if free := p.sent[len(p.sent)-p.hourly].Add(time.Hour); at.Before(free) {
			at = free
		}
	}
	p.next = at.Add(p.interval)
	p.sent = append(p.sent, at)
	if p.hourly > 0 && len(p.sent) > p.hourly {
		p.sent = p.sent[len(p.sent)-p.hourly:]
	}
	p.mu.Unlock()
	return p.clock.Sleep(ctx, at.Sub(now))
}

// shim sits between go-github and web.Transport. It counts requests, paces
// content-creating ones, waits out the secondary limits web.Transport cannot
// recognise (a 403 or 429 that gives no Retry-After: see limits.go), and hides
// from go-github the headers from which it would otherwise fail later
// requests client-side ("not making remote request"): Retry-After and
// x-ratelimit-reset on a 403 or 429, and x-ratelimit-reset once no requests
// remain (kept as X-Pinbot-*). web.Transport below has already waited and
// retried; the limit is its job, and the next request gets the same care.
type shim struct {
	base  http.RoundTripper
	pace  *pacer
	log   *slog.Logger
	count *Counter
}

func (s *shim) RoundTrip(req *http.Request) (*http.Response, error) {
	var waited time.Duration
	for attempt := 0; ; attempt++ {
		switch req.Method {
		case http.MethodPost, http.MethodPatch, http.MethodPut, http.MethodDelete:
			if err := s.pace.wait(req.Context()); err != nil {
				return nil, err
			}
		}
		s.count.add()
		resp, err := s.base.RoundTrip(req)
		if err != nil {
			return nil, err
		}
		wait, limited := secondaryWait(resp, attempt)
		var next *http.Request
		rewind := false
		if limited && wait > 0 {
			next, rewind = rewound(req)
		}
		if !rewind {
			if limited && waited > 0 {
				resp.Header.Set(headerWaited, waited.String())
			}
			return s.hide(resp), nil
		}
		resp.Body.Close()
		s.log.Warn("github secondary rate limit without Retry-After; waiting", "method", req.Method, "url", web.ShownURL(req),
			"status", resp.StatusCode, "wait", wait)
		if err := s.pace.clock.Sleep(req.Context(), wait); err != nil {
			return nil, err
		}
		waited += wait
		req = next
	}
}

// hide renames the rate-limit headers go-github would act on client-side.
func (s *shim) hide(resp *http.Response) *http.Response {
	h := resp.Header
	if rem := h.Get("X-Ratelimit-Remaining"); rem != "" {
		s.log.Debug("github rate limit", "remaining", rem, "resource", h.Get("X-Ratelimit-Resource"))
	}
	if resp.StatusCode == http.StatusForbidden || resp.StatusCode == http.StatusTooManyRequests || h.Get("X-Ratelimit-Remaining") == "0" {
		// go-github reads a secondary limit's wait from either header.
		for _, k := range []string{"Retry-After", "X-Ratelimit-Reset"} {
			if v := h.Get(k); v != "" {
				h.Set("X-Pinbot-"+k, v)
				h.Del(k)
			}
		}
	}
	return resp
}

// Options configure a Client.
type Options struct {
	// APIURL is the REST API base (default DefaultAPIURL).
	APIURL string
	// Repo is the repository, "owner/name"; empty for a client that only
	// lists an owner's repositories (repos.go).
	Repo string
	// Tokens authenticates requests (a static token or App installation tokens).
	Tokens oauth2.TokenSource
	// HTTP is the client whose transport (web.Transport) sends the requests.
	HTTP *http.Client
	// Clock paces requests (default SystemClock).
	Clock Clock
	// PerMinute bounds content-creating requests a minute (default DefaultPerMinute).
	PerMinute int
	// Counter, when set, counts the requests the client sends.
	Counter *Counter
	Log     *slog.Logger
}

// A Client makes pinbot's pull requests in one repository. It is safe for
// use by one goroutine at a time.
type Client struct {
	gh          *gh.Client
	owner, repo string
	log         *slog.Logger
	trees       map[string]*gh.Tree // by SHA; trees never change
	bases       map[string]*baseState
	// http sends the GraphQL requests, as authenticated and paced as the
	// REST ones, to graphQLURL.
	http       *http.Client
	graphQLURL string
}

// New returns a client for o.Repo.
func New(o Options) (*Client, error) {
	var owner, repo string
	if o.Repo != "" {
		var err error
		if owner, repo, err = SplitRepo(o.Repo); err != nil {
			return nil, err
		}
	}
	if o.Tokens == nil {
		return nil, errors.New("github: no token")
	}
	api, err := apiURL(o.APIURL)
	if err != nil {
		return nil, err
	}
	hc := httpClient(o, api)
	c := gh.NewClient(hc)
	c.BaseURL = api
	log := o.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Client{gh: c, owner: owner, repo: repo, log: log, trees: map[string]*gh.Tree{}, bases: map[string]*baseState{},
		http: hc, graphQLURL: graphQLURL(c.BaseURL)}, nil
}

// httpClient stacks the credentials (when tokens are given; for api's origin
// only, see origin.go) over the shim over o.HTTP's transport.
func httpClient(o Options, api *url.URL) *http.Client {
	base := http.DefaultTransport
	if o.HTTP != nil && o.HTTP.Transport != nil {
		base = o.HTTP.Transport
	}
	clock := o.Clock
	if clock == nil {
		clock = SystemClock
	}
	per := o.PerMinute
	if per <= 0 {
		per = DefaultPerMinute
	}
	log := o.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	var rt http.RoundTripper = &shim{base: base, pace: &pacer{clock: clock, interval: time.Minute / time.Duration(per), hourly: PerHour}, log: log,
		count: o.Counter}
	if o.Tokens != nil {
		rt = &originAuth{src: o.Tokens, api: api, base: rt}
	}
	return &http.Client{Transport: rt, CheckRedirect: checkRedirect(api)}
}

// apiURL parses a REST API base URL, with the trailing slash go-github needs.
func apiURL(s string) (*url.URL, error) {
	if s == "" {
		s = DefaultAPIURL
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, fmt.Errorf("github: API URL %q: expected an http(s) URL such as %s", s, DefaultAPIURL)
	}
	if !strings.HasSuffix(u.Path, "/") {
		u.Path += "/"
	}
	return u, nil
}

// SplitRepo splits "owner/name", a repository's full name as GitHub allows
// them (report.ValidRepository: no "..", no spaces, no leading "-"), so that
// a name given on the command line or by the environment is held to the
// rule the fleet's listings and reports are.
func SplitRepo(s string) (owner, repo string, err error) {
	owner, repo, ok := strings.Cut(s, "/")
	if !ok || !report.ValidRepository(s) {
		return "", "", fmt.Errorf("repository %q: expected owner/name as GitHub allows them (ASCII letters, digits, '.', '_' and '-'; not . or ..)", s)
	}
	return owner, repo, nil
}

// StaticToken returns a TokenSource for a personal access token, an
// installation token or a workflow's GITHUB_TOKEN.
func StaticToken(token string) oauth2.TokenSource {
	return oauth2.StaticTokenSource(&oauth2.Token{AccessToken: token, TokenType: "Bearer"})
}

// DefaultBranch returns the repository's default branch.
func (c *Client) DefaultBranch(ctx context.Context) (string, error) {
	r, _, err := c.gh.Repositories.Get(ctx, c.owner, c.repo)
	if err != nil {
		return "", c.wrap("reading the repository", err)
	}
	if r.GetDefaultBranch() == "" {
		return "", fmt.Errorf("github: %s/%s has no default branch (an empty repository?)", c.owner, c.repo)
	}
	return r.GetDefaultBranch(), nil
}

// wrap describes a failed request; go-github's errors carry method, URL,
// status and message, never the token. A rate limit pinbot stopped waiting
// for says how long GitHub asked for (limits.go).
func (c *Client) wrap(what string, err error) error {
	if limit := describeLimit(err); limit != "" {
		return fmt.Errorf("github: %s: %s: %w", what, limit, err)
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return fmt.Errorf("github: %s: %w", what, err)
}

// status returns the HTTP status of a go-github error, or 0.
func status(err error) int {
	var er *gh.ErrorResponse
	if errors.As(err, &er) && er.Response != nil {
		return er.Response.StatusCode
	}
	return 0
}

// unprocessable reports whether err is a 422 whose message or error details
// contain text.
func unprocessable(err error, text string) bool {
	var er *gh.ErrorResponse
	if !errors.As(err, &er) || er.Response == nil || er.Response.StatusCode != http.StatusUnprocessableEntity {
		return false
	}
	if strings.Contains(er.Message, text) {
		return true
	}
	for _, e := range er.Errors {
		if strings.Contains(e.Message, text) || e.Code == text {
			return true
		}
	}
	return false
}
