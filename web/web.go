// Package web is pinbot's one HTTP layer for every outside service: package
// registries now, GitHub and Slack through the same Transport.
//
// Transport retries what a bot should retry (timeouts, 5xx, truncated bodies, 429
// and rate-limited 403 honouring Retry-After up to a cap) with exponential backoff
// and full jitter, applies a per-attempt timeout, reads each body in full so a
// truncated one is caught and retried, and sends a descriptive User-Agent. It
// leaves Accept-Encoding unset so that Go's transport asks for gzip and
// decompresses transparently.
//
// Cache wraps a Transport with an on-disk cache that revalidates with ETag and
// Last-Modified (RFC 9111, https://www.rfc-editor.org/rfc/rfc9111), so a weekly
// run whose sources did not change transfers little more than 304s.
package web

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// Policy says how a Transport retries.
type Policy struct {
	// Attempts is the most tries a request gets, the first included.
	Attempts int
	// BaseDelay is the first backoff; each retry doubles it, up to MaxDelay.
	BaseDelay, MaxDelay time.Duration
	// MaxRetryAfter caps how long a Retry-After (or rate-limit reset) may make
	// a request wait; a server asking for longer gets its error returned.
	MaxRetryAfter time.Duration
	// Timeout bounds one attempt, body included.
	Timeout time.Duration
	// MaxBody bounds the size of a response body read into memory.
	MaxBody int64
	// StreamTimeout bounds one attempt of a streamed request (WithStreaming),
	// body included: artifacts of hundreds of megabytes take longer than an
	// API call.
	StreamTimeout time.Duration
}

// DefaultPolicy is the policy for registries and APIs.
var DefaultPolicy = Policy{
	Attempts:      4,
	BaseDelay:     500 * time.Millisecond,
	MaxDelay:      10 * time.Second,
	MaxRetryAfter: 2 * time.Minute,
	Timeout:       60 * time.Second,
	MaxBody:       512 << 20,
	StreamTimeout: 30 * time.Minute,
}

// A Transport is an http.RoundTripper that retries, times out and identifies
// itself as described in the package comment. The zero value is not usable; use
// NewTransport.
type Transport struct {
	// Base sends one attempt (http.DefaultTransport by default).
	Base http.RoundTripper
	// Policy says how often, how long and how big.
	Policy Policy
	// UserAgent is sent unless the request sets its own.
	UserAgent string
	// Log gets retries as warnings and every request at debug level.
	Log *slog.Logger
	// Sleep waits for d or until ctx is done; tests replace it.
	Sleep func(ctx context.Context, d time.Duration) error
}

// NewTransport returns a Transport over base (http.DefaultTransport when nil).
func NewTransport(base http.RoundTripper, p Policy, userAgent string, log *slog.Logger) *Transport {
	if base == nil {
		base = http.DefaultTransport
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Transport{Base: base, Policy: p, UserAgent: userAgent, Log: log, Sleep: Sleep}
}

// UserAgent returns pinbot's User-Agent for a version.
func UserAgent(version string) string {
	return "pinbot/" + version + " (+https://github.com/pinbot-dev/pinbot)"
}

type streamKey struct{}

// WithStreaming marks requests made with ctx as downloads of artifacts: a 2xx
// response's body is handed to the caller unread (no size limit, no caching),
// so it can be hashed and written to disk as it arrives. Failures before the
// response are retried as usual; a broken body is the caller's to detect (by
// digest) and retry.
func WithStreaming(ctx context.Context) context.Context {
	return context.WithValue(ctx, streamKey{}, true)
}

func streaming(ctx context.Context) bool {
	v, _ := ctx.Value(streamKey{}).(bool)
	return v
}

// cancelOnClose ends a streamed attempt's context when its body is closed.
type cancelOnClose struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (c *cancelOnClose) Close() error {
	err := c.ReadCloser.Close()
	c.cancel()
	return err
}

type secretKey struct{}

// WithSecretURL marks requests made with ctx as having a secret URL (a Slack
// webhook): logs and errors then never show it.
func WithSecretURL(ctx context.Context) context.Context {
	return context.WithValue(ctx, secretKey{}, true)
}

// ShownURL returns how the URL of req may appear in logs and errors.
func ShownURL(req *http.Request) string {
	if v, _ := req.Context().Value(secretKey{}).(bool); v {
		return "(secret URL)"
	}
	return Redact(req.URL)
}

// Redact returns u without user information, query or fragment, which may hold
// credentials.
func Redact(u *url.URL) string {
	c := *u
	c.User, c.RawQuery, c.ForceQuery, c.Fragment, c.RawFragment = nil, "", false, "", ""
	return c.String()
}

// RoundTrip sends req, retrying as the policy allows. The returned response's
// body is fully read already and can be read again from memory.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	p := t.Policy
	idempotent := req.Method == http.MethodGet || req.Method == http.MethodHead || req.Method == http.MethodPut ||
		req.Method == http.MethodDelete || req.Method == http.MethodOptions
	for attempt := 1; ; attempt++ {
		resp, err := t.once(req, attempt)
		if req.Context().Err() != nil {
			return nil, req.Context().Err()
		}
		wait, why := t.retryDelay(resp, err, attempt, idempotent)
		if why == "" || attempt >= p.Attempts || (req.Body != nil && req.GetBody == nil) {
			if err != nil {
				return nil, fmt.Errorf("%s %s: %w (after %d attempts)", req.Method, ShownURL(req), err, attempt)
			}
			return resp, nil
		}
		if wait > p.MaxRetryAfter {
			if err != nil {
				return nil, err
			}
			t.Log.Warn("server asks to wait longer than allowed; giving up", "url", ShownURL(req), "status", resp.StatusCode, "wait", wait, "max", p.MaxRetryAfter)
			return resp, nil
		}
		t.Log.Warn("retrying request", "method", req.Method, "url", ShownURL(req), "reason", why, "attempt", attempt, "wait", wait.Round(time.Millisecond))
		if err := t.Sleep(req.Context(), wait); err != nil {
			return nil, err
		}
	}
}

// once makes one attempt and reads the whole body under the attempt's timeout.
func (t *Transport) once(req *http.Request, attempt int) (resp *http.Response, err error) {
	stream := streaming(req.Context())
	timeout := t.Policy.Timeout
	if stream {
		timeout = max(timeout, t.Policy.StreamTimeout)
	}
	ctx, cancel := context.WithTimeout(req.Context(), timeout)
	defer func() {
		if resp != nil && stream && resp.StatusCode/100 == 2 {
			// The caller reads the body; the attempt's deadline lasts until it
			// closes it.
			resp.Body = &cancelOnClose{ReadCloser: resp.Body, cancel: cancel}
			return
		}
		cancel()
	}()
	r := req.Clone(ctx)
	if attempt > 1 && req.GetBody != nil {
		body, err := req.GetBody()
		if err != nil {
			return nil, err
		}
		r.Body = body
	}
	if t.UserAgent != "" && r.Header.Get("User-Agent") == "" {
		r.Header.Set("User-Agent", t.UserAgent)
	}
	start := time.Now()
	resp, err = t.Base.RoundTrip(r)
	if err != nil {
		return nil, err
	}
	if stream && resp.StatusCode/100 == 2 {
		t.Log.Debug("http", "method", req.Method, "url", ShownURL(req), "status", resp.StatusCode, "bytes", resp.ContentLength, "streamed", true)
		return resp, nil
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, t.Policy.MaxBody+1))
	if err != nil {
		return nil, &truncatedError{err: err}
	}
	if int64(len(body)) > t.Policy.MaxBody {
		return nil, &tooLargeError{max: t.Policy.MaxBody}
	}
	t.Log.Debug("http", "method", req.Method, "url", ShownURL(req), "status", resp.StatusCode, "bytes", len(body), "took", time.Since(start).Round(time.Millisecond))
	resp.Body = io.NopCloser(strings.NewReader(string(body)))
	resp.ContentLength = int64(len(body))
	return resp, nil
}

var errNotExist = fs.ErrNotExist

type truncatedError struct{ err error }

func (e *truncatedError) Error() string { return "response body truncated: " + e.err.Error() }
func (e *truncatedError) Unwrap() error { return e.err }

type tooLargeError struct{ max int64 }

func (e *tooLargeError) Error() string {
	return fmt.Sprintf("response body larger than %d bytes", e.max)
}

// retryDelay says whether and after how long to retry; why is "" for no retry.
func (t *Transport) retryDelay(resp *http.Response, err error, attempt int, idempotent bool) (wait time.Duration, why string) {
	backoff := t.backoff(attempt)
	if err != nil {
		var tl *tooLargeError
		if errors.As(err, &tl) || !idempotent {
			return 0, ""
		}
		return backoff, err.Error()
	}
	switch code := resp.StatusCode; {
	case code == http.StatusTooManyRequests, code == http.StatusForbidden && rateLimited(resp):
		if d, ok := serverWait(resp); ok {
			return d, resp.Status
		}
		if code == http.StatusForbidden {
			// GitHub: a secondary limit with no hint means wait at least a minute.
			return max(backoff, time.Minute), resp.Status
		}
		return backoff, resp.Status
	case idempotent && (code == http.StatusInternalServerError || code == http.StatusBadGateway ||
		code == http.StatusServiceUnavailable || code == http.StatusGatewayTimeout):
		if d, ok := serverWait(resp); ok {
			return d, resp.Status
		}
		return backoff, resp.Status
	}
	return 0, ""
}

// rateLimited reports whether a 403 is a rate limit rather than a refusal.
func rateLimited(resp *http.Response) bool {
	return resp.Header.Get("Retry-After") != "" || resp.Header.Get("X-Ratelimit-Remaining") == "0"
}

// serverWait reads Retry-After (seconds or an HTTP date) or, with no requests
// remaining, X-RateLimit-Reset (epoch seconds).
func serverWait(resp *http.Response) (time.Duration, bool) {
	if ra := resp.Header.Get("Retry-After"); ra != "" {
		if s, err := strconv.Atoi(strings.TrimSpace(ra)); err == nil && s >= 0 {
			return time.Duration(s) * time.Second, true
		}
		if at, err := http.ParseTime(ra); err == nil {
			return max(time.Until(at), 0), true
		}
	}
	if resp.Header.Get("X-Ratelimit-Remaining") == "0" {
		if s, err := strconv.ParseInt(resp.Header.Get("X-Ratelimit-Reset"), 10, 64); err == nil {
			return max(time.Until(time.Unix(s, 0)), 0) + time.Second, true
		}
	}
	return 0, false
}

func (t *Transport) backoff(attempt int) time.Duration {
	d := t.Policy.BaseDelay << (attempt - 1)
	if d <= 0 || d > t.Policy.MaxDelay {
		d = t.Policy.MaxDelay
	}
	// Full jitter: spread retries from many clients.
	return time.Duration(rand.Int64N(int64(d)+1))/2 + d/2
}

// Sleep waits for d or until ctx is done, and returns ctx.Err() in that case.
func Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-tm.C:
		return nil
	}
}

// An HTTPError is a response with an unexpected status. URL is redacted and
// Detail is a short, sanitised excerpt of the body.
type HTTPError struct {
	URL        string // redacted (or "(secret URL)")
	StatusCode int    // 404
	Status     string // "404 Not Found"
	Detail     string // at most 3 lines of the body, or "" when it was not plain text
}

// Error returns "URL: status: detail".
func (e *HTTPError) Error() string {
	msg := fmt.Sprintf("%s: %s", e.URL, e.Status)
	if e.Detail != "" {
		msg += ": " + e.Detail
	}
	return msg
}

// Is makes errors.Is(err, fs.ErrNotExist) true for 404 and 410, the statuses
// for "no such package".
func (e *HTTPError) Is(target error) bool {
	return target == errNotExist && (e.StatusCode == http.StatusNotFound || e.StatusCode == http.StatusGone)
}

// CheckStatus returns an *HTTPError unless resp has a 2xx status.
func CheckStatus(req *http.Request, resp *http.Response, body []byte) error {
	if resp.StatusCode/100 == 2 {
		return nil
	}
	return &HTTPError{URL: ShownURL(req), StatusCode: resp.StatusCode, Status: resp.Status, Detail: Sanitize(body)}
}

// Sanitize returns at most 3 short lines of body, or "" if it holds anything but
// printable text, so a server can't put control sequences on a terminal.
func Sanitize(body []byte) string {
	s := strings.TrimSpace(string(body))
	lines := strings.Split(s, "\n")
	if len(lines) > 3 {
		lines = lines[:3]
	}
	s = strings.Join(lines, " | ")
	if len(s) > 300 {
		s = s[:300] + "..."
	}
	for _, r := range s {
		if !unicode.IsGraphic(r) && r != '\t' && r != '\r' {
			return ""
		}
	}
	return s
}
