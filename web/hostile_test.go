package web_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pinbot-dev/pinbot/web"
)

func TestRedact(t *testing.T) {
	for in, want := range map[string]string{
		"https://user:pw@pypi.example.com/simple/?token=abc#sha256=1": "https://pypi.example.com/simple/",
		"https://pypi.org/pypi/numba/json":                            "https://pypi.org/pypi/numba/json",
		"http://tok@host:8080/x":                                      "http://host:8080/x",
		"https://u:p%zz@host/x?y":                                     "https://host/x",
		"user:secret@host/path":                                       "host/path",
		"ghp_abc:x-oauth-basic@github.com/o/r":                        "github.com/o/r",
		"/relative/path?sig=1":                                        "/relative/path",
		"":                                                            "",
		// anaconda.org's private channels carry the token in the path.
		"https://conda.anaconda.org/t/tk-1234-abcd/lab/linux-64/repodata.json": "https://conda.anaconda.org/t/REDACTED/lab/linux-64/repodata.json",
		"https://conda.anaconda.org/t/tk-1234-abcd":                            "https://conda.anaconda.org/t/REDACTED",
		"https://u:p%zz@conda.example/t/tk-99/lab?x":                           "https://conda.example/t/REDACTED/lab",
		"https://example.com/x/t/notatoken":                                    "https://example.com/x/t/notatoken",
	} {
		if got := web.Redact(in); got != want {
			t.Errorf("Redact(%q) = %q, want %q", in, got, want)
		}
	}
	text := `Get "https://u:pw@a.example/x?t=1": proxyconnect tcp: dial http://p:pw2@proxy:3128 (and ftp://x@y/z) https://conda.anaconda.org/t/pwtoken/c`
	got := web.RedactText(text)
	if strings.Contains(got, "pw") || strings.Contains(got, "t=1") || !strings.Contains(got, `"https://a.example/x"`) || !strings.Contains(got, "http://proxy:3128") {
		t.Errorf("RedactText = %q", got)
	}
}

// capture is a server that records the credentials it receives.
type capture struct {
	*httptest.Server
	auth, cookie atomic.Int32
	hits         atomic.Int32
}

func newCapture(t *testing.T) *capture {
	c := &capture{}
	c.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.hits.Add(1)
		if r.Header.Get("Authorization") != "" {
			c.auth.Add(1)
		}
		if r.Header.Get("Cookie") != "" {
			c.cookie.Add(1)
		}
		w.Write([]byte("captured"))
	}))
	t.Cleanup(c.Close)
	return c
}

// addAuth adds an Authorization header on every round trip, as oauth2's
// transport does: Go's client cannot strip what it does not set.
type addAuth struct{ base http.RoundTripper }

func (a addAuth) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer tok-secret")
	return a.base.RoundTrip(r)
}

// TestRedirectCredentials: a redirect to another origin (here another port
// of the same address, which Go's own check counts as the same host) gets no
// credential, however it was added; a redirect within the origin keeps them.
func TestRedirectCredentials(t *testing.T) {
	other := newCapture(t)
	var originAuth atomic.Int32
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "" {
			originAuth.Add(1)
		}
		switch r.URL.Path {
		case "/away":
			http.Redirect(w, r, other.URL+"/x?sig=qsecret", http.StatusFound)
		case "/here":
			http.Redirect(w, r, "/landed", http.StatusFound)
		default:
			w.Write([]byte("ok"))
		}
	}))
	defer origin.Close()
	tr := web.NewTransport(nil, web.DefaultPolicy, "test", nil)
	withUser := strings.Replace(origin.URL, "http://", "http://user:pw-secret@", 1)
	cases := []struct {
		name string
		hc   *http.Client
		url  string
		hdr  http.Header
	}{
		{"basic auth in the URL", &http.Client{Transport: tr}, withUser, nil},
		{"header on the request", &http.Client{Transport: tr}, origin.URL, http.Header{"Authorization": {"Bearer tok-secret"}, "Cookie": {"s=1"}}},
		{"header added by a wrapping transport", &http.Client{Transport: addAuth{tr}}, origin.URL, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			other.auth.Store(0)
			other.cookie.Store(0)
			originAuth.Store(0)
			_, body, err := web.Get(context.Background(), c.hc, c.url+"/away", c.hdr)
			if err != nil || string(body) != "captured" {
				t.Fatalf("%q, %v", body, err)
			}
			if other.auth.Load() != 0 || other.cookie.Load() != 0 {
				t.Errorf("the other origin received credentials: %d Authorization, %d Cookie", other.auth.Load(), other.cookie.Load())
			}
			if originAuth.Load() != 1 {
				t.Errorf("the origin received %d authorized requests, want 1", originAuth.Load())
			}
			// Within the origin, the credentials follow.
			if _, _, err := web.Get(context.Background(), c.hc, c.url+"/here", c.hdr); err != nil {
				t.Fatal(err)
			}
			if originAuth.Load() != 3 {
				t.Errorf("same-origin redirect: %d authorized requests, want 3", originAuth.Load())
			}
		})
	}
}

func TestRedirectLoops(t *testing.T) {
	var hits atomic.Int32
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		switch r.URL.Path {
		case "/loop":
			http.Redirect(w, r, "/loop?token=qsecret", http.StatusFound)
		default: // /chain/N -> /chain/N+1, never the same URL twice
			http.Redirect(w, r, r.URL.Path+"x", http.StatusFound)
		}
	}))
	defer s.Close()
	hc, _ := client(web.DefaultPolicy, nil)
	_, _, err := web.Get(context.Background(), hc, s.URL+"/loop?token=qsecret", nil)
	if err == nil || !strings.Contains(err.Error(), "redirect loop") || strings.Contains(err.Error(), "qsecret") {
		t.Errorf("loop: %v", err)
	}
	if hits.Load() != 6 {
		t.Errorf("loop: %d requests, want 6", hits.Load())
	}
	hits.Store(0)
	_, _, err = web.Get(context.Background(), hc, s.URL+"/chain/", nil)
	if err == nil || !strings.Contains(err.Error(), "stopped after 5 redirects") {
		t.Errorf("chain: %v", err)
	}
	if hits.Load() != 6 {
		t.Errorf("chain: %d requests, want 6", hits.Load())
	}
}

// TestBudget: a server that hangs, or drips a byte at a time, fails each
// attempt at its deadline (the body included), and all attempts end within
// the budget.
func TestBudget(t *testing.T) {
	hang := func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }
	drip := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "1000")
		for range 1000 {
			if _, err := w.Write([]byte("x")); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}
	for name, h := range map[string]http.HandlerFunc{"hang": hang, "drip": drip} {
		t.Run(name, func(t *testing.T) {
			s, n := server(t, h)
			p := web.DefaultPolicy
			p.Timeout, p.Budget, p.BaseDelay = 100*time.Millisecond, 350*time.Millisecond, 10*time.Millisecond
			hc := &http.Client{Transport: web.NewTransport(nil, p, "test", nil)}
			start := time.Now()
			_, _, err := web.Get(context.Background(), hc, s.URL, nil)
			took := time.Since(start)
			if err == nil || !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "no complete response ") {
				t.Fatalf("err = %v, want a deadline error", err)
			}
			if got := n.Load(); got < 2 || got > 4 {
				t.Errorf("%d attempts, want 2 to 4 within the budget", got)
			}
			if took > 2*time.Second {
				t.Errorf("took %s for a budget of %s", took, p.Budget)
			}
		})
	}
}

// TestWithBudget: requests in sequence under WithBudget end when its bound
// passes, however long each request alone may take: a server that answers
// the first request and hangs on the second, or drips it, or answers 503
// (the bound passes during a backoff), fails the second with a *BudgetError
// naming the task, long before a request's own budget (a minute) ends it.
func TestWithBudget(t *testing.T) {
	hang := func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }
	drip := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "1000")
		for range 1000 {
			if _, err := w.Write([]byte("x")); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
				return
			case <-time.After(time.Second):
			}
		}
	}
	for name, second := range map[string]http.HandlerFunc{"hang": hang, "drip": drip, "503": status(503)} {
		t.Run(name, func(t *testing.T) {
			s, n := server(t, status(200), second)
			p := web.DefaultPolicy
			p.Timeout, p.Budget, p.BaseDelay, p.MaxDelay = time.Minute, time.Minute, 30*time.Second, 30*time.Second
			hc := &http.Client{Transport: web.NewTransport(nil, p, "test", nil)}
			ctx, cancel := web.WithBudget(context.Background(), 300*time.Millisecond, "the lookup of numba")
			defer cancel()
			start := time.Now()
			if _, _, err := web.Get(ctx, hc, s.URL+"/index", nil); err != nil {
				t.Fatal(err)
			}
			_, _, err := web.Get(ctx, hc, s.URL+"/shard", nil)
			took := time.Since(start)
			var be *web.BudgetError
			if !errors.As(err, &be) || !errors.Is(err, context.DeadlineExceeded) ||
				err.Error() != "the lookup of numba timed out: no result within 300ms, the time one request may take" {
				t.Fatalf("err = %v, want the lookup's *BudgetError", err)
			}
			if took > 20*time.Second { // a bound, not a speed target: a request alone may take a minute
				t.Errorf("took %s for a bound of 300ms", took)
			}
			if n.Load() != 2 {
				t.Errorf("%d requests, want 2", n.Load())
			}
		})
	}
	// No bound: the context is the caller's.
	ctx, cancel := web.WithBudget(context.Background(), 0, "x")
	defer cancel()
	if _, ok := ctx.Deadline(); ok {
		t.Error("WithBudget(0) set a deadline")
	}
}

// TestRetryAfterBeyondMax: a wait longer than the policy allows ends the
// request at once, and the error says why.
func TestRetryAfterBeyondMax(t *testing.T) {
	s, n := server(t, status(503, "Retry-After", "3600"), status(200))
	hc, sl := client(web.DefaultPolicy, nil)
	_, _, err := web.Get(context.Background(), hc, s.URL, nil)
	if err == nil || !strings.Contains(err.Error(), "503") || !strings.Contains(err.Error(), "asks to wait 1h0m0s, longer than pinbot waits (2m0s)") {
		t.Errorf("err = %v", err)
	}
	if n.Load() != 1 || len(sl.got) != 0 {
		t.Errorf("%d requests, waits %v; want 1 and none", n.Load(), sl.got)
	}
	// Waits within the cap add up: two of 70 s pass it.
	s2, n2 := server(t, status(429, "Retry-After", "70"), status(429, "Retry-After", "70"), status(200))
	_, _, err = web.Get(context.Background(), hc, s2.URL, nil)
	if err == nil || !strings.Contains(err.Error(), "more after 1m10s") || n2.Load() != 2 {
		t.Errorf("second wait: %v after %d requests", err, n2.Load())
	}
}

// TestSizeCaps: a body over MaxBody is an error whether announced, streamed
// without a length, or a gzip bomb; nothing near its size is held.
func TestSizeCaps(t *testing.T) {
	const max = 1 << 20
	announced := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "524288000")
		w.Write([]byte("{"))
	}
	chunked := func(w http.ResponseWriter, r *http.Request) {
		chunk := bytes.Repeat([]byte(`{"a":1},`), 4096)
		for range 1000 { // 32 MB
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	}
	bomb := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Encoding", "gzip")
		zw, _ := gzip.NewWriterLevel(w, gzip.BestCompression)
		zeros := make([]byte, 1<<20)
		for range 1024 { // 1 GB decompressed
			if _, err := zw.Write(zeros); err != nil {
				return
			}
		}
		zw.Close()
	}
	incompressible := func(w http.ResponseWriter, r *http.Request) {
		// Gzip whose compressed form alone passes the cap.
		w.Header().Set("Content-Encoding", "gzip")
		zw, _ := gzip.NewWriterLevel(w, gzip.NoCompression)
		buf := make([]byte, 1<<16)
		for i := range 64 {
			for j := range buf {
				buf[j] = byte(i*7 + j*13)
			}
			if _, err := zw.Write(buf); err != nil {
				return
			}
		}
		zw.Close()
	}
	for name, tt := range map[string]struct {
		h    http.HandlerFunc
		want string
	}{
		"announced 500 MB":     {announced, "announces 524288000 bytes"},
		"32 MB without length": {chunked, "on the wire"},
		"gzip bomb":            {bomb, "decompressed"},
		"gzip over the cap":    {incompressible, "larger than"},
	} {
		t.Run(name, func(t *testing.T) {
			s, n := server(t, tt.h)
			p := web.DefaultPolicy
			p.MaxBody = max
			hc, _ := client(p, nil)
			_, _, err := web.Get(context.Background(), hc, s.URL, nil)
			if err == nil || !strings.Contains(err.Error(), "larger than 1048576 bytes") || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want %q", err, tt.want)
			}
			if n.Load() != 1 {
				t.Errorf("%d requests: a body too large is not retried", n.Load())
			}
		})
	}
}

// TestStreamStall: a streamed body that delivers too little in a window is
// cancelled with an error that says so.
func TestStreamStall(t *testing.T) {
	s, _ := server(t, func(w http.ResponseWriter, r *http.Request) {
		for range 100 {
			if _, err := w.Write([]byte("x")); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	})
	p := web.DefaultPolicy
	p.Timeout, p.StreamMinBytes = 100*time.Millisecond, 1024
	hc, _ := client(p, nil)
	req, _ := http.NewRequestWithContext(web.WithStreaming(context.Background()), "GET", s.URL, nil)
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	start := time.Now()
	_, err = io.Copy(io.Discard, resp.Body)
	if err == nil || !strings.Contains(err.Error(), "download stalled: fewer than 1024 bytes in 100ms") {
		t.Errorf("err = %v", err)
	}
	if time.Since(start) > time.Second {
		t.Errorf("the stall was noticed after %s", time.Since(start))
	}
}

func TestDecodeJSONCounts(t *testing.T) {
	var v struct{ Files []struct{ Name string } }
	dense := []byte(`{"files":[` + strings.Repeat(`{},`, web.MaxJSONContainers) + `{}]}`)
	if err := web.DecodeJSON("https://u:pw@h/x", dense, &v); err == nil || !strings.Contains(err.Error(), "objects and arrays") || strings.Contains(err.Error(), "pw") {
		t.Errorf("dense objects: %v", err)
	}
	values := []byte(`{"files":[` + strings.Repeat(`1,`, web.MaxJSONValues) + `1]}`)
	if err := web.DecodeJSON("u", values, &v); err == nil || !strings.Contains(err.Error(), "values") {
		t.Errorf("dense values: %v", err)
	}
	// Braces and commas inside strings do not count.
	quoted := []byte(`{"files":[{"Name":"` + strings.Repeat(`{,[:`, web.MaxJSONValues) + `\""}]}`)
	if err := web.DecodeJSON("u", quoted, &v); err != nil || len(v.Files) != 1 {
		t.Errorf("quoted: %v", err)
	}
}

// rateLimitReset answers code with no requests remaining and the limit's
// reset in epoch seconds, in seconds from now.
func rateLimitReset(code int, in time.Duration) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-RateLimit-Remaining", "0")
		w.Header().Set("X-RateLimit-Reset", fmt.Sprint(time.Now().Add(in).Unix()))
		w.WriteHeader(code)
		w.Write([]byte(`{"message":"API rate limit exceeded"}`))
	}
}

// TestRateLimitReset: a 403 or 429 with no requests remaining is waited out
// until x-ratelimit-reset (epoch seconds, so the wait is the reset minus
// now, plus the second the reset rounds down), then sent again and
// succeeds; a reset already past is one second's wait. A reset further
// away than MaxRetryAfter ends the request at once, with the answer and an
// error that says how long the server asked for, in whole seconds.
func TestRateLimitReset(t *testing.T) {
	for _, code := range []int{http.StatusForbidden, http.StatusTooManyRequests} {
		for _, tt := range []struct {
			in       time.Duration
			min, max time.Duration // the wait's bounds: the reset is whole seconds
		}{
			{30 * time.Second, 30 * time.Second, 31 * time.Second},
			{90 * time.Second, 90 * time.Second, 91 * time.Second},
			{-time.Hour, time.Second, time.Second},
		} {
			s, n := server(t, rateLimitReset(code, tt.in), status(200))
			hc, sl := client(web.DefaultPolicy, nil)
			_, body, err := web.Get(context.Background(), hc, s.URL, nil)
			if err != nil || string(body) != "body OK" || n.Load() != 2 {
				t.Errorf("%d, reset in %s: %q, %v after %d requests", code, tt.in, body, err, n.Load())
			}
			if len(sl.got) != 1 || sl.got[0] < tt.min || sl.got[0] > tt.max || sl.got[0]%time.Second != 0 {
				t.Errorf("%d, reset in %s: waits %v, want one in [%s, %s]", code, tt.in, sl.got, tt.min, tt.max)
			}
		}

		s, n := server(t, rateLimitReset(code, time.Hour), status(200))
		hc, sl := client(web.DefaultPolicy, nil)
		_, _, err := web.Get(context.Background(), hc, s.URL, nil)
		if err == nil || !strings.Contains(err.Error(), fmt.Sprint(code)) ||
			!regexp.MustCompile(`asks to wait (59m59s|1h0m[01]s), longer than pinbot waits \(2m0s\)`).MatchString(err.Error()) {
			t.Errorf("%d, reset in an hour: err = %v", code, err)
		}
		if n.Load() != 1 || len(sl.got) != 0 {
			t.Errorf("%d, reset in an hour: %d requests, waits %v; want 1 and none", code, n.Load(), sl.got)
		}
	}
}
