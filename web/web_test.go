package web_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pinbot-dev/pinbot/web"
)

// server answers the n-th request (from 0) with handlers[min(n, len-1)].
func server(t *testing.T, handlers ...http.HandlerFunc) (*httptest.Server, *atomic.Int32) {
	var n atomic.Int32
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		i := int(n.Add(1)) - 1
		handlers[min(i, len(handlers)-1)](w, r)
	}))
	t.Cleanup(s.Close)
	return s, &n
}

func status(code int, hdr ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		for i := 0; i+1 < len(hdr); i += 2 {
			w.Header().Set(hdr[i], hdr[i+1])
		}
		w.WriteHeader(code)
		w.Write([]byte("body " + http.StatusText(code)))
	}
}

func truncated(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Length", "100")
	w.WriteHeader(200)
	w.Write([]byte(`{"half":`))
	conn, _, _ := w.(http.Hijacker).Hijack()
	conn.Close()
}

type sleeps struct{ got []time.Duration }

func (s *sleeps) sleep(ctx context.Context, d time.Duration) error {
	s.got = append(s.got, d)
	return ctx.Err()
}

func client(p web.Policy, log *bytes.Buffer) (*http.Client, *sleeps) {
	var lg *slog.Logger
	if log != nil {
		lg = slog.New(slog.NewTextHandler(log, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	tr := web.NewTransport(nil, p, web.UserAgent("test"), lg)
	s := &sleeps{}
	tr.Sleep = s.sleep
	return &http.Client{Transport: tr}, s
}

func TestRetries(t *testing.T) {
	tests := []struct {
		name     string
		handlers []http.HandlerFunc
		wantCode int
		wantReqs int32
		wantWait []time.Duration // exact waits; nil: only count them
		wantErr  bool
	}{
		{"500 then 200", []http.HandlerFunc{status(500), status(200)}, 200, 2, nil, false},
		{"503 three times then 200", []http.HandlerFunc{status(503), status(502), status(504), status(200)}, 200, 4, nil, false},
		{"persistent 500 gives up", []http.HandlerFunc{status(500)}, 500, 4, nil, false},
		{"429 honours Retry-After", []http.HandlerFunc{status(429, "Retry-After", "7"), status(200)}, 200, 2, []time.Duration{7 * time.Second}, false},
		{"429 asking too long is returned", []http.HandlerFunc{status(429, "Retry-After", "3600"), status(200)}, 429, 1, []time.Duration{}, false},
		{"403 rate limit retried", []http.HandlerFunc{status(403, "Retry-After", "2"), status(200)}, 200, 2, []time.Duration{2 * time.Second}, false},
		{"403 refusal not retried", []http.HandlerFunc{status(403), status(200)}, 403, 1, []time.Duration{}, false},
		{"404 not retried", []http.HandlerFunc{status(404), status(200)}, 404, 1, []time.Duration{}, false},
		{"truncated body retried", []http.HandlerFunc{truncated, status(200)}, 200, 2, nil, false},
		{"always truncated fails", []http.HandlerFunc{truncated}, 0, 4, nil, true},
	}
	p := web.DefaultPolicy
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, n := server(t, tt.handlers...)
			hc, sl := client(p, nil)
			resp, _, err := web.Get(context.Background(), hc, s.URL+"/x?token=secret", nil)
			var he *web.HTTPError
			if errors.As(err, &he) {
				err = nil // a status error is an answer, not a failure to get one
			}
			if tt.wantErr != (err != nil) {
				t.Fatalf("err = %v, want error %v", err, tt.wantErr)
			}
			if err != nil {
				if strings.Contains(err.Error(), "secret") {
					t.Errorf("error leaks the query: %v", err)
				}
			} else if resp.StatusCode != tt.wantCode {
				t.Errorf("status %d, want %d", resp.StatusCode, tt.wantCode)
			}
			if got := n.Load(); got != tt.wantReqs {
				t.Errorf("%d requests, want %d", got, tt.wantReqs)
			}
			if tt.wantWait != nil && !equalDurations(sl.got, tt.wantWait) {
				t.Errorf("waits %v, want %v", sl.got, tt.wantWait)
			}
			if len(sl.got) != int(tt.wantReqs)-1 {
				t.Errorf("%d waits for %d requests", len(sl.got), tt.wantReqs)
			}
		})
	}
}

func equalDurations(a, b []time.Duration) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestBackoffGrowsWithJitter(t *testing.T) {
	s, _ := server(t, status(500))
	p := web.DefaultPolicy
	p.Attempts = 5
	hc, sl := client(p, nil)
	if _, err := hc.Get(s.URL); err != nil {
		t.Fatal(err)
	}
	for i, d := range sl.got {
		base := p.BaseDelay << i
		if d < base/2 || d > base {
			t.Errorf("wait %d = %v, want within [%v, %v]", i, d, base/2, base)
		}
	}
}

func TestHungConnectionTimesOut(t *testing.T) {
	s, n := server(t, func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(10 * time.Second):
		}
	})
	p := web.DefaultPolicy
	p.Timeout = 50 * time.Millisecond
	p.Attempts = 2
	hc, _ := client(p, nil)
	start := time.Now()
	_, err := hc.Get(s.URL)
	if err == nil || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want a deadline error", err)
	}
	if n.Load() != 2 {
		t.Errorf("%d attempts, want 2", n.Load())
	}
	if time.Since(start) > 5*time.Second {
		t.Error("the timeout did not bound the attempts")
	}
}

func TestPostNotRetriedOn500(t *testing.T) {
	s, n := server(t, status(500), status(200))
	hc, _ := client(web.DefaultPolicy, nil)
	resp, err := hc.Post(s.URL, "application/json", strings.NewReader("{}"))
	if err != nil || resp.StatusCode != 500 || n.Load() != 1 {
		t.Fatalf("POST: %v, %v, %d requests; want one 500", resp, err, n.Load())
	}
	s2, n2 := server(t, status(429, "Retry-After", "1"), status(201))
	resp, err = hc.Post(s2.URL, "application/json", strings.NewReader("{}"))
	if err != nil || resp.StatusCode != 201 || n2.Load() != 2 {
		t.Fatalf("POST after 429: %v, %v, %d requests; want 201 after a retry", resp, err, n2.Load())
	}
}

func TestUserAgentAndSecretURL(t *testing.T) {
	var ua string
	s, _ := server(t, func(w http.ResponseWriter, r *http.Request) { ua = r.UserAgent(); w.WriteHeader(500) })
	var log bytes.Buffer
	hc, _ := client(web.DefaultPolicy, &log)
	ctx := web.WithSecretURL(context.Background())
	_, _, err := web.Get(ctx, hc, s.URL+"/services/T000/B000/XXXX", nil)
	if !strings.HasPrefix(ua, "pinbot/test") {
		t.Errorf("User-Agent %q", ua)
	}
	for _, text := range []string{log.String(), err.Error()} {
		if strings.Contains(text, "XXXX") || strings.Contains(text, s.URL) {
			t.Errorf("secret URL shown: %s", text)
		}
	}
}

func TestGetErrors(t *testing.T) {
	s, _ := server(t, status(404))
	hc, _ := client(web.DefaultPolicy, nil)
	_, _, err := web.Get(context.Background(), hc, s.URL+"/pypi/nope/json?k=v", nil)
	var he *web.HTTPError
	if !errors.As(err, &he) || he.StatusCode != 404 || !errors.Is(err, fs.ErrNotExist) || strings.Contains(err.Error(), "k=v") {
		t.Fatalf("err = %v, want a redacted 404 HTTPError that Is fs.ErrNotExist", err)
	}
}

func TestDecodeJSON(t *testing.T) {
	var v map[string]any
	for body, want := range map[string]string{
		"<html><body>Service unavailable</body></html>": "expected JSON, got an HTML",
		`{"releases": {`: "truncated or corrupt",
		"":               "empty response",
	} {
		if err := web.DecodeJSON("u", []byte(body), &v); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("DecodeJSON(%q) = %v, want %q", body, err, want)
		}
	}
}

func TestSanitize(t *testing.T) {
	if got := web.Sanitize([]byte("bad \x1b[31m red")); got != "" {
		t.Errorf("control sequences kept: %q", got)
	}
	if got := web.Sanitize([]byte("a\nb\nc\nd\n")); got != "a | b | c" {
		t.Errorf("Sanitize = %q", got)
	}
}

func TestStreaming(t *testing.T) {
	big := strings.Repeat("x", 1<<20)
	s, n := server(t, status(503), func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(big)) })
	p := web.DefaultPolicy
	p.MaxBody = 1024 // far below the body: only a streamed request can read it
	hc, _ := client(p, nil)
	req, _ := http.NewRequestWithContext(web.WithStreaming(context.Background()), "GET", s.URL, nil)
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(resp.Body); err != nil || buf.Len() != len(big) || n.Load() != 2 {
		t.Fatalf("streamed %d bytes (%v) in %d requests; want %d after one retry", buf.Len(), err, n.Load(), len(big))
	}
	// Without streaming the same body is refused.
	if _, err := hc.Get(s.URL); err == nil || !strings.Contains(err.Error(), "larger than 1024 bytes") {
		t.Errorf("unstreamed: %v", err)
	}
}

// TestWorstCase: with the default policy a hung index fails a request in
// well under a minute, computed from the defaults (the budget, 45 s), not
// timed; without a budget the attempts and backoffs add up (the policy
// before the budget: four minutes and more).
func TestWorstCase(t *testing.T) {
	if got := web.DefaultPolicy.WorstCase(); got >= time.Minute || got != web.DefaultPolicy.Budget {
		t.Errorf("DefaultPolicy.WorstCase() = %s, want its budget, under a minute", got)
	}
	old := web.Policy{Attempts: 4, BaseDelay: 500 * time.Millisecond, MaxDelay: 10 * time.Second, Timeout: time.Minute}
	if got, want := old.WorstCase(), 4*time.Minute+3500*time.Millisecond; got != want {
		t.Errorf("no budget: WorstCase() = %s, want %s", got, want)
	}
	old.MaxDelay = time.Second
	if got, want := old.WorstCase(), 4*time.Minute+2500*time.Millisecond; got != want {
		t.Errorf("MaxDelay 1s: WorstCase() = %s, want %s", got, want)
	}
}

// TestContextError: a deadline given a cause ends requests with that cause,
// which still reads as context.DeadlineExceeded; a cancelled context is
// context.Canceled.
func TestContextError(t *testing.T) {
	cause := fmt.Errorf("the run's --timeout ran out: %w", context.DeadlineExceeded)
	ctx, cancel := context.WithTimeoutCause(context.Background(), time.Millisecond, cause)
	defer cancel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }))
	defer srv.Close()
	hc := &http.Client{Transport: web.NewTransport(nil, web.DefaultPolicy, "test", nil)}
	_, _, err := web.Get(ctx, hc, srv.URL, nil)
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(fmt.Sprint(err), "the run's --timeout ran out") {
		t.Errorf("err = %v, want the cause", err)
	}
	ctx2, cancel2 := context.WithCancel(context.Background())
	cancel2()
	if err := web.ContextError(ctx2); err != context.Canceled {
		t.Errorf("cancelled: %v", err)
	}
}
