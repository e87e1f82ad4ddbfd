// Package web is pinbot's one HTTP layer for every outside service: package
// registries, GitHub and Slack go through the same Transport.
//
// Transport retries what a bot should retry (timeouts, 5xx, truncated bodies, 429
// and rate-limited 403 honouring Retry-After up to a cap) with exponential backoff
// and full jitter, and bounds what one request may cost: a deadline per attempt
// that covers the whole body (a server that drips a byte every few seconds
// fails it as surely as one that hangs), a budget for all attempts of one
// request, and a size cap on the bytes on the wire and after decompression. It
// asks for gzip and decompresses itself, so that both sizes are counted, and
// sends a descriptive User-Agent.
//
// Redirects are followed at most Policy.MaxRedirects hops (the error names a
// loop when a URL came back), and a hop to another origin (scheme, host and
// port) goes without the credentials of the first: the Authorization header
// (whoever set it: Go's client strips only the headers set on the original
// request, and only for another host name), cookies and the URL's user
// information.
//
// Every URL that reaches a log line or an error passes through Redact
// (redact.go), which removes user information, query and fragment.
//
// Cache wraps a Transport with an on-disk cache that revalidates with ETag and
// Last-Modified (RFC 9111, https://www.rfc-editor.org/rfc/rfc9111), so a weekly
// run whose sources did not change transfers little more than 304s.
package web

import (
	"bytes"
	"compress/gzip"
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
	"sync"
	"sync/atomic"
	"time"
	"unicode"
)

// Policy says how a Transport retries and what one request may cost.
type Policy struct {
	// Attempts is the most tries a request gets, the first included.
	Attempts int
	// BaseDelay is the first backoff; each retry doubles it, up to MaxDelay.
	BaseDelay, MaxDelay time.Duration
	// MaxRetryAfter caps how long a Retry-After (or rate-limit reset) may make
	// a request wait, one wait and all of one request's waits together; a
	// server asking for longer gets its answer returned at once, marked with
	// GaveUpHeader.
	MaxRetryAfter time.Duration
	// Timeout bounds one attempt, body included: a whole-request deadline,
	// not an idle timeout.
	Timeout time.Duration
	// Budget bounds all attempts of one request and the backoffs between
	// them (waits a server asks for are bounded by MaxRetryAfter instead); an
	// attempt gets no more than what is left of it. Zero means no budget.
	Budget time.Duration
	// MaxBody bounds a response body read into memory, both the bytes on
	// the wire and the bytes after decompression.
	MaxBody int64
	// StreamTimeout bounds one attempt of a streamed request (WithStreaming),
	// body included: artifacts of hundreds of megabytes take longer than an
	// API call.
	StreamTimeout time.Duration
	// StreamMinBytes is how many bytes a streamed body must deliver in every
	// Timeout: a download that stalls or drips is cancelled long before
	// StreamTimeout. Zero turns the check off.
	StreamMinBytes int64
	// MaxRedirects is the most redirects one request follows.
	MaxRedirects int
}

// DefaultPolicy is the policy for registries and APIs: a hung or dripping
// index fails a request after at most 45 seconds, all attempts included.
var DefaultPolicy = Policy{
	Attempts:       4,
	BaseDelay:      500 * time.Millisecond,
	MaxDelay:       10 * time.Second,
	MaxRetryAfter:  2 * time.Minute,
	Timeout:        20 * time.Second,
	Budget:         45 * time.Second,
	MaxBody:        64 << 20,
	StreamTimeout:  30 * time.Minute,
	StreamMinBytes: 1 << 20,
	MaxRedirects:   5,
}

// WorstCase is the longest one request can take under p when its server
// never answers (a hung or dripping index): every attempt runs out its
// Timeout and every backoff is the longest, all within the Budget. Waits a
// server asks for (MaxRetryAfter) are not counted: a server that hangs asks
// for none.
func (p Policy) WorstCase() time.Duration {
	total := time.Duration(max(p.Attempts, 1)) * p.Timeout
	for attempt := 1; attempt < p.Attempts; attempt++ {
		total += p.maxBackoff(attempt)
	}
	if p.Budget > 0 {
		total = min(total, p.Budget)
	}
	return total
}

// WithBudget bounds a task of several requests in sequence (one package's
// lookup on a conda channel: an index, then shards; one module's on a Go
// module proxy: its list, .info files and a go.mod) by d, the time one
// request may take (Policy.WorstCase): each request has its own budget, so
// without this a hung or dripping server would hold the task for a budget
// per request. When d passes, the requests in flight end with a
// *BudgetError (ContextError) saying what took too long; no bound when d <= 0.
// Work shared with other tasks must not run in the returned context: one
// task's bound would end it for all.
func WithBudget(ctx context.Context, d time.Duration, what string) (context.Context, context.CancelFunc) {
	if d <= 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeoutCause(ctx, d, &BudgetError{What: what, Budget: d})
}

// BudgetEnded returns err, the result of a task run in the context task from
// WithBudget on parent, saying the budget ended it when it did (the task's
// *BudgetError first), whatever the request in flight made of the end. An
// error of parent's own (a run's --timeout) is left as it is.
func BudgetEnded(task, parent context.Context, err error) error {
	if err == nil || task.Err() == nil || parent.Err() != nil {
		return err
	}
	if cause := context.Cause(task); !errors.Is(err, cause) {
		err = fmt.Errorf("%w: %w", cause, err)
	}
	return err
}

// A BudgetError is why a context from WithBudget ended: its task took longer
// than its budget. It is a context.DeadlineExceeded.
type BudgetError struct {
	// What is the task ("the lookup of numba on the conda channel conda-forge").
	What string
	// Budget is the bound that passed.
	Budget time.Duration
}

func (e *BudgetError) Error() string {
	return fmt.Sprintf("%s timed out: no result within %s, the time one request may take", e.What, e.Budget)
}

// Unwrap makes a BudgetError a context.DeadlineExceeded.
func (e *BudgetError) Unwrap() error { return context.DeadlineExceeded }

// ContextError says why ctx ended: the cause its deadline was given
// (context.WithTimeoutCause: a run's --timeout, which says so), else
// ctx.Err().
func ContextError(ctx context.Context) error {
	err := ctx.Err()
	if errors.Is(err, context.DeadlineExceeded) {
		if cause := context.Cause(ctx); cause != nil {
			return cause
		}
	}
	return err
}

// GaveUpHeader is set on a response the Transport returns without the
// retry its server asked for, because the wait was longer than the policy
// allows; it says why, and HTTPError repeats it.
const GaveUpHeader = "X-Pinbot-Gave-Up"

// A Transport is an http.RoundTripper that retries, times out, bounds sizes,
// guards credentials on redirects and identifies itself as described in the
// package comment. The zero value is not usable; use NewTransport.
type Transport struct {
	// Base sends one attempt (http.DefaultTransport by default).
	Base http.RoundTripper
	// Policy says how often, how long and how big.
	Policy Policy
	// UserAgent is sent unless the request sets its own.
	UserAgent string
	// Log gets retries as warnings and every request at debug level, with
	// URLs redacted.
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
// digest) and retry. The body fails once the attempt passes
// Policy.StreamTimeout, or delivers fewer than Policy.StreamMinBytes in a
// Policy.Timeout.
func WithStreaming(ctx context.Context) context.Context {
	return context.WithValue(ctx, streamKey{}, true)
}

func streaming(ctx context.Context) bool {
	v, _ := ctx.Value(streamKey{}).(bool)
	return v
}

type secretKey struct{}

// WithSecretURL marks requests made with ctx as having a secret URL (a Slack
// webhook): logs and errors then never show it.
func WithSecretURL(ctx context.Context) context.Context {
	return context.WithValue(ctx, secretKey{}, true)
}

// ShownURL returns how the URL of req may appear in logs and errors: redacted,
// or "(secret URL)".
func ShownURL(req *http.Request) string {
	if v, _ := req.Context().Value(secretKey{}).(bool); v {
		return "(secret URL)"
	}
	return RedactURL(req.URL)
}

// RoundTrip sends req, retrying as the policy allows. The returned response's
// body is fully read already and can be read again from memory.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	req, err := t.redirectHop(req)
	if err != nil {
		return nil, err
	}
	p := t.Policy
	idempotent := req.Method == http.MethodGet || req.Method == http.MethodHead || req.Method == http.MethodPut ||
		req.Method == http.MethodDelete || req.Method == http.MethodOptions
	// spent counts attempts and backoffs against the budget; asked, the
	// waits the server asked for.
	var spent, asked time.Duration
	for attempt := 1; ; attempt++ {
		timeout := p.Timeout
		if p.Budget > 0 {
			timeout = min(timeout, p.Budget-spent)
		}
		began := time.Now()
		resp, err := t.once(req, attempt, timeout)
		spent += time.Since(began)
		if req.Context().Err() != nil {
			return nil, ContextError(req.Context())
		}
		wait, why, server := t.retryDelay(resp, err, attempt, idempotent)
		giveUp := why == "" || attempt >= p.Attempts || (req.Body != nil && req.GetBody == nil)
		switch {
		case giveUp:
		case server && asked+wait > p.MaxRetryAfter:
			msg := fmt.Sprintf("the server asks to wait %s, longer than pinbot waits (%s)", wait, p.MaxRetryAfter)
			if asked > 0 {
				msg = fmt.Sprintf("the server asks to wait %s more after %s, longer than pinbot waits (%s)", wait, asked, p.MaxRetryAfter)
			}
			t.Log.Warn("giving up: "+msg, "url", ShownURL(req), "status", resp.StatusCode)
			resp.Header.Set(GaveUpHeader, msg)
			return resp, nil
		case p.Budget > 0 && spent+backoffOnly(wait, server)+p.Timeout/10 > p.Budget:
			giveUp = true // no time left for another attempt
		}
		if giveUp {
			if err != nil {
				return nil, fmt.Errorf("%s %s: %w (%d attempts in %s; limits: %s an attempt, %s a request)", req.Method, ShownURL(req),
					redactedError{err}, attempt, spent.Round(time.Millisecond), p.Timeout, p.Budget)
			}
			return resp, nil
		}
		if server {
			asked += wait
		} else {
			spent += wait
		}
		t.Log.Warn("retrying request", "method", req.Method, "url", ShownURL(req), "reason", RedactText(why), "attempt", attempt, "wait", wait.Round(time.Millisecond))
		if err := t.Sleep(req.Context(), wait); err != nil {
			if req.Context().Err() != nil {
				err = ContextError(req.Context()) // the cause (a --timeout, a WithBudget), as after an attempt
			}
			return nil, err
		}
	}
}

// backoffOnly returns wait when it counts against the budget: a backoff, not
// a wait the server asked for.
func backoffOnly(wait time.Duration, server bool) time.Duration {
	if server {
		return 0
	}
	return wait
}

// redirectHop applies the redirect rules to req when it follows a redirect
// (http.Client sets req.Response): at most MaxRedirects hops, and no
// credential sent to an origin other than the first request's.
func (t *Transport) redirectHop(req *http.Request) (*http.Request, error) {
	if req.Response == nil {
		return req, nil
	}
	first, hops, loop := req, 0, false
	for r := req; r.Response != nil && r.Response.Request != nil && hops <= 100; r = r.Response.Request {
		prev := r.Response.Request
		hops++
		first = prev
		loop = loop || prev.Method == req.Method && prev.URL.String() == req.URL.String()
	}
	if hops > t.Policy.MaxRedirects {
		// A URL may redirect to itself once (setting a cookie, a moment's
		// fault); past the limit, a repeated URL says why it never ends.
		if loop {
			return nil, fmt.Errorf("%s %s: redirect loop: stopped after %d redirects, back to %s", req.Method, ShownURL(first), t.Policy.MaxRedirects, ShownURL(req))
		}
		return nil, fmt.Errorf("%s %s: stopped after %d redirects (the last to %s)", req.Method, ShownURL(first), t.Policy.MaxRedirects, ShownURL(req))
	}
	if sameOrigin(first.URL, req.URL) {
		return req, nil
	}
	if req.Header.Get("Authorization") == "" && req.Header.Get("Cookie") == "" && req.URL.User == nil {
		return req, nil
	}
	r := req.Clone(req.Context())
	r.Header.Del("Authorization")
	r.Header.Del("Cookie")
	r.URL.User = nil
	t.Log.Debug("redirect to another origin: credentials not sent", "from", ShownURL(first), "to", ShownURL(r))
	return r, nil
}

// sameOrigin reports whether b may receive a's credentials: the same host
// and port under the same scheme, or an upgrade from http to https.
func sameOrigin(a, b *url.URL) bool {
	if !strings.EqualFold(a.Hostname(), b.Hostname()) {
		return false
	}
	if strings.EqualFold(a.Scheme, b.Scheme) {
		return port(a) == port(b)
	}
	return strings.EqualFold(a.Scheme, "http") && strings.EqualFold(b.Scheme, "https") && port(a) == "80" && port(b) == "443"
}

func port(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	if strings.EqualFold(u.Scheme, "https") {
		return "443"
	}
	return "80"
}

// once makes one attempt and reads the whole body within timeout.
func (t *Transport) once(req *http.Request, attempt int, timeout time.Duration) (resp *http.Response, err error) {
	stream := streaming(req.Context())
	if stream {
		timeout = max(timeout, t.Policy.StreamTimeout)
	}
	ctx, cancel := context.WithTimeout(req.Context(), timeout)
	defer func() {
		if resp != nil && stream && resp.StatusCode/100 == 2 {
			// The caller reads the body; the attempt's deadline lasts until it
			// closes it.
			resp.Body = t.watch(ctx, resp.Body, cancel)
			return
		}
		cancel()
		if err != nil && ctx.Err() == context.DeadlineExceeded && req.Context().Err() == nil {
			err = &timeoutError{d: timeout, budget: timeout < t.Policy.Timeout, err: err}
		}
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
	gz := false
	if r.Header.Get("Accept-Encoding") == "" {
		if stream {
			r.Header.Set("Accept-Encoding", "identity") // the bytes of the file, as its size and digest say
		} else {
			r.Header.Set("Accept-Encoding", "gzip")
			gz = true
		}
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
	body, wire, err := t.readBody(resp, gz)
	if err != nil {
		return nil, err
	}
	t.Log.Debug("http", "method", req.Method, "url", ShownURL(req), "status", resp.StatusCode, "bytes", len(body), "wire", wire, "took", time.Since(start).Round(time.Millisecond))
	resp.Body = &memBody{Reader: bytes.NewReader(body), b: body}
	resp.ContentLength = int64(len(body))
	return resp, nil
}

// readBody reads resp's body within MaxBody, on the wire and, when the
// Transport asked for gzip and got it, after decompression.
func (t *Transport) readBody(resp *http.Response, gz bool) (body []byte, wire int64, err error) {
	max := t.Policy.MaxBody
	if resp.Body == http.NoBody { // HEAD, 204, 304
		return nil, 0, nil
	}
	if resp.ContentLength > max {
		return nil, 0, &tooLargeError{max: max, what: fmt.Sprintf("the server announces %d bytes", resp.ContentLength)}
	}
	cr := &countingReader{r: io.LimitReader(resp.Body, max+1)}
	var src io.Reader = cr
	enc := strings.ToLower(strings.TrimSpace(resp.Header.Get("Content-Encoding")))
	if gz && (enc == "gzip" || enc == "x-gzip") {
		zr, err := gzip.NewReader(cr)
		if err != nil {
			return nil, cr.n, &truncatedError{err: fmt.Errorf("gzip: %w", err)}
		}
		src = zr
		resp.Header.Del("Content-Encoding")
		resp.Header.Del("Content-Length")
		resp.Uncompressed = true
	}
	hint := resp.ContentLength
	if resp.Uncompressed {
		hint = -1
	}
	body, n, err := readCapped(src, max, hint)
	switch {
	case cr.n > max:
		return nil, cr.n, &tooLargeError{max: max, what: "on the wire"}
	case n > max:
		return nil, cr.n, &tooLargeError{max: max, what: "decompressed"}
	case err != nil:
		return nil, cr.n, &truncatedError{err: err}
	}
	return body, cr.n, nil
}

// readCapped reads r to its end, or until it has given more than max bytes
// (then n > max and body is nil). A known length (hint >= 0) is read into one
// allocation; otherwise the bytes are gathered in chunks and joined at the
// end, so a body refused at the cap costs the cap, not the doubling buffer
// growth of io.ReadAll.
func readCapped(r io.Reader, max, hint int64) (body []byte, n int64, err error) {
	if hint >= 0 && hint <= max {
		body = make([]byte, hint)
		if _, err := io.ReadFull(r, body); err != nil {
			return nil, 0, err
		}
		var one [1]byte
		if k, err := r.Read(one[:]); k > 0 || err != nil && err != io.EOF {
			return nil, hint + int64(k), cmpErr(err, errors.New("body longer than its Content-Length"))
		}
		return body, hint, nil
	}
	var chunks [][]byte
	size := 32 << 10
	for {
		chunk := make([]byte, size)
		k, err := io.ReadFull(r, chunk)
		chunks, n = append(chunks, chunk[:k]), n+int64(k)
		if n > max {
			return nil, n, nil
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			break
		}
		if err != nil {
			return nil, n, err
		}
		size = min(size*2, 1<<20)
	}
	body = make([]byte, 0, n)
	for _, c := range chunks {
		body = append(body, c...)
	}
	return body, n, nil
}

// cmpErr returns err, or def when err is nil or io.EOF.
func cmpErr(err, def error) error {
	if err == nil || err == io.EOF {
		return def
	}
	return err
}

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// memBody is a body read into memory; Get and Cache take its bytes without
// copying them.
type memBody struct {
	*bytes.Reader
	b []byte
}

func (*memBody) Close() error { return nil }

func newMemBody(b []byte) *memBody { return &memBody{Reader: bytes.NewReader(b), b: b} }

// readAll returns a body's bytes: those of a memBody as they are, others read
// within DefaultPolicy.MaxBody.
func readAll(rc io.Reader) ([]byte, error) {
	if m, ok := rc.(*memBody); ok {
		return m.b, nil
	}
	b, err := io.ReadAll(io.LimitReader(rc, DefaultPolicy.MaxBody+1))
	if err == nil && int64(len(b)) > DefaultPolicy.MaxBody {
		return nil, &tooLargeError{max: DefaultPolicy.MaxBody}
	}
	return b, err
}

// watch wraps a streamed body: it fails once ctx ends, or when the body
// delivers fewer than StreamMinBytes in a Timeout.
func (t *Transport) watch(ctx context.Context, body io.ReadCloser, cancel context.CancelFunc) io.ReadCloser {
	w := &watchedBody{ReadCloser: body, ctx: ctx, cancel: cancel, done: make(chan struct{}), stream: t.Policy.StreamTimeout}
	if min, every := t.Policy.StreamMinBytes, t.Policy.Timeout; min > 0 && every > 0 {
		w.window, w.min = every, min
		go w.watchdog()
	}
	return w
}

type watchedBody struct {
	io.ReadCloser
	ctx     context.Context
	cancel  context.CancelFunc
	done    chan struct{}
	once    sync.Once
	n       atomic.Int64
	stalled atomic.Bool
	stream  time.Duration
	window  time.Duration
	min     int64
}

func (w *watchedBody) watchdog() {
	tick := time.NewTicker(w.window)
	defer tick.Stop()
	var last int64
	for {
		select {
		case <-w.done:
			return
		case <-w.ctx.Done():
			return
		case <-tick.C:
			n := w.n.Load()
			if n-last < w.min {
				w.stalled.Store(true)
				w.cancel()
				return
			}
			last = n
		}
	}
}

func (w *watchedBody) Read(p []byte) (int, error) {
	n, err := w.ReadCloser.Read(p)
	w.n.Add(int64(n))
	if err != nil && err != io.EOF {
		switch {
		case w.stalled.Load():
			err = fmt.Errorf("download stalled: fewer than %d bytes in %s", w.min, w.window)
		case w.ctx.Err() == context.DeadlineExceeded:
			err = fmt.Errorf("download took longer than %s", w.stream)
		}
	}
	return n, err
}

func (w *watchedBody) Close() error {
	err := w.ReadCloser.Close()
	w.once.Do(func() { close(w.done) })
	w.cancel()
	return err
}

var errNotExist = fs.ErrNotExist

type truncatedError struct{ err error }

func (e *truncatedError) Error() string { return "response body truncated: " + e.err.Error() }
func (e *truncatedError) Unwrap() error { return e.err }

// A timeoutError is an attempt that did not complete within its deadline:
// Policy.Timeout, or what was left of the budget.
type timeoutError struct {
	d      time.Duration
	budget bool
	err    error
}

func (e *timeoutError) Error() string {
	if e.budget {
		return fmt.Sprintf("no complete response in the %s left of the request's time", e.d.Round(time.Millisecond))
	}
	return fmt.Sprintf("no complete response within %s", e.d.Round(time.Millisecond))
}
func (e *timeoutError) Unwrap() error { return context.DeadlineExceeded }

type tooLargeError struct {
	max  int64
	what string
}

func (e *tooLargeError) Error() string {
	msg := fmt.Sprintf("response body larger than %d bytes", e.max)
	if e.what != "" {
		msg += " (" + e.what + ")"
	}
	return msg
}

// retryDelay says whether and after how long to retry; why is "" for no
// retry. server is set when the wait is the server's (Retry-After, a rate
// limit), which MaxRetryAfter bounds, rather than a backoff, which the budget
// bounds.
func (t *Transport) retryDelay(resp *http.Response, err error, attempt int, idempotent bool) (wait time.Duration, why string, server bool) {
	backoff := t.backoff(attempt)
	if err != nil {
		var tl *tooLargeError
		if errors.As(err, &tl) || !idempotent {
			return 0, "", false
		}
		return backoff, err.Error(), false
	}
	switch code := resp.StatusCode; {
	case code == http.StatusTooManyRequests, code == http.StatusForbidden && rateLimited(resp):
		if d, ok := serverWait(resp); ok {
			return d, resp.Status, true
		}
		if code == http.StatusForbidden {
			// GitHub: a secondary limit with no hint means wait at least a minute.
			return max(backoff, time.Minute), resp.Status, true
		}
		return backoff, resp.Status, true
	case idempotent && (code == http.StatusInternalServerError || code == http.StatusBadGateway ||
		code == http.StatusServiceUnavailable || code == http.StatusGatewayTimeout):
		if d, ok := serverWait(resp); ok {
			return d, resp.Status, true
		}
		return backoff, resp.Status, false
	}
	return 0, "", false
}

// rateLimited reports whether a 403 is a rate limit rather than a refusal.
func rateLimited(resp *http.Response) bool {
	return resp.Header.Get("Retry-After") != "" || resp.Header.Get("X-Ratelimit-Remaining") == "0"
}

// serverWait reads Retry-After (seconds or an HTTP date) or, with no requests
// remaining, X-RateLimit-Reset (epoch seconds): the wait until the reset,
// plus a second so that the next request lands after it. Both times are
// whole seconds, and so are the waits (an error then says "1h0m0s", not
// "59m59.613s").
func serverWait(resp *http.Response) (time.Duration, bool) {
	if ra := resp.Header.Get("Retry-After"); ra != "" {
		if s, err := strconv.ParseInt(strings.TrimSpace(ra), 10, 64); err == nil && s >= 0 {
			return time.Duration(min(s, 1<<32)) * time.Second, true
		}
		if at, err := http.ParseTime(ra); err == nil {
			return untilWhole(at), true
		}
	}
	if resp.Header.Get("X-Ratelimit-Remaining") == "0" {
		if s, err := strconv.ParseInt(resp.Header.Get("X-Ratelimit-Reset"), 10, 64); err == nil {
			return untilWhole(time.Unix(min(s, 1<<40), 0)) + time.Second, true
		}
	}
	return 0, false
}

// untilWhole returns the time until at rounded up to a whole second, or 0
// when at has passed.
func untilWhole(at time.Time) time.Duration {
	d := max(time.Until(at), 0)
	if r := d % time.Second; r != 0 {
		d += time.Second - r
	}
	return d
}

// maxBackoff is the longest wait before retry attempt+1: BaseDelay doubled
// per attempt, at most MaxDelay. The Transport waits between half of it and
// all of it (backoff); WorstCase counts all of it.
func (p Policy) maxBackoff(attempt int) time.Duration {
	d := p.BaseDelay << (attempt - 1)
	if d <= 0 || d > p.MaxDelay {
		d = p.MaxDelay
	}
	return d
}

func (t *Transport) backoff(attempt int) time.Duration {
	d := t.Policy.maxBackoff(attempt)
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
	// Note says why pinbot did not retry, when it gave up on a wait the
	// server asked for (GaveUpHeader).
	Note string
}

// Error returns "URL: status (note): detail".
func (e *HTTPError) Error() string {
	msg := fmt.Sprintf("%s: %s", e.URL, e.Status)
	if e.Note != "" {
		msg += " (" + e.Note + ")"
	}
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
	return &HTTPError{URL: ShownURL(req), StatusCode: resp.StatusCode, Status: Sanitize([]byte(resp.Status)), Detail: RedactText(Sanitize(body)),
		Note: resp.Header.Get(GaveUpHeader)}
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
