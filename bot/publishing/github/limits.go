package github

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	gh "github.com/google/go-github/v60/github"

	"github.com/pinbot-dev/pinbot/web"
)

// GitHub's secondary rate limits (https://docs.github.com/rest/using-the-rest-api/rate-limits-for-the-rest-api)
// answer 403 or 429. With retry-after, wait that long; with
// x-ratelimit-remaining 0, until x-ratelimit-reset: web.Transport does both,
// up to its Policy.MaxRetryAfter per wait, and hands back the answer when
// GitHub asks for longer. With neither, "wait at least one minute", and back
// off exponentially on repeats: web.Transport cannot tell such a 403 from a
// refusal, so the shim recognises it by GitHub's body and waits
// SecondaryWaits. Past the waits, the error says how long GitHub asked for
// and that pinbot stopped waiting.

// SecondaryWaits are the waits before each resend of a request that met a
// secondary rate limit without Retry-After: one minute, then two. A third
// answer like it is returned, and fails the request with a clear error.
var SecondaryWaits = []time.Duration{time.Minute, 2 * time.Minute}

// headerWaited is set on an answer the shim stopped waiting for: how long it
// waited before giving up.
const headerWaited = "X-Pinbot-Waited"

// A Counter counts the requests a client sends to GitHub, retries the shim
// makes included (web.Transport's own retries of one request are not). It is
// safe for concurrent use; the zero value is ready, and a nil *Counter counts
// nothing.
type Counter struct{ n atomic.Int64 }

func (c *Counter) add() {
	if c != nil {
		c.n.Add(1)
	}
}

// N returns the number of requests counted.
func (c *Counter) N() int {
	if c == nil {
		return 0
	}
	return int(c.n.Load())
}

// secondaryWait reports whether resp is a secondary rate limit that gives no
// wait of its own, and how long to wait before the attempt-th resend (0:
// give up).
func secondaryWait(resp *http.Response, attempt int) (time.Duration, bool) {
	if resp.StatusCode != http.StatusForbidden && resp.StatusCode != http.StatusTooManyRequests {
		return 0, false
	}
	h := resp.Header
	if h.Get("Retry-After") != "" || h.Get("X-Ratelimit-Remaining") == "0" {
		return 0, false // web.Transport's case, already waited for
	}
	if resp.StatusCode == http.StatusForbidden && !secondaryBody(resp) {
		return 0, false // a refusal: no permission, a blocked repository
	}
	if attempt >= len(SecondaryWaits) {
		return 0, true
	}
	return SecondaryWaits[attempt], true
}

// secondaryBody reports whether a 403's body is GitHub's secondary limit;
// the body stays readable.
func secondaryBody(resp *http.Response) bool {
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(b))
	s := strings.ToLower(string(b))
	return strings.Contains(s, "secondary rate limit") || strings.Contains(s, "secondary-rate-limits") ||
		strings.Contains(s, "abuse-rate-limits") || strings.Contains(s, "abuse detection")
}

// rewound returns a copy of req that can be sent again, and whether it can.
func rewound(req *http.Request) (*http.Request, bool) {
	next := req.Clone(req.Context())
	if req.Body == nil || req.Body == http.NoBody {
		return next, true
	}
	if req.GetBody == nil {
		return nil, false
	}
	body, err := req.GetBody()
	if err != nil {
		return nil, false
	}
	next.Body = body
	return next, true
}

// describeLimit says, for an error that is a GitHub rate limit, which limit
// and how long GitHub asked pinbot to wait; "" for other errors.
func describeLimit(err error) string {
	var rl *gh.RateLimitError
	var ab *gh.AbuseRateLimitError
	var er *gh.ErrorResponse
	var resp *http.Response
	secondary := false
	switch {
	case errors.As(err, &rl):
		resp = rl.Response
	case errors.As(err, &ab):
		resp, secondary = ab.Response, true
	case errors.As(err, &er) && er.Response != nil && (er.Response.StatusCode == http.StatusTooManyRequests || er.Response.Header.Get(headerWaited) != ""):
		resp, secondary = er.Response, er.Response.Header.Get("X-Ratelimit-Remaining") != "0"
	default:
		return ""
	}
	if resp == nil {
		return "rate limited"
	}
	h := resp.Header
	if !secondary {
		msg := "rate limit exhausted"
		if s, err := strconv.ParseInt(h.Get("X-Pinbot-X-Ratelimit-Reset"), 10, 64); err == nil {
			msg += " until " + time.Unix(s, 0).UTC().Format(time.RFC3339)
			if rl != nil && rl.Rate.Reset.IsZero() {
				// go-github's own message counts down to the reset the
				// shim hid from it; without it, the count overflows
				// ("reset -16s ago").
				rl.Rate.Reset = gh.Timestamp{Time: time.Unix(s, 0)}
			}
		}
		return msg + "; pinbot stopped waiting, run again later"
	}
	msg := "secondary rate limit"
	switch ra := h.Get("X-Pinbot-Retry-After"); {
	case h.Get(headerWaited) != "":
		msg += fmt.Sprintf(" (no Retry-After; still limited after waiting %s)", h.Get(headerWaited))
	case ra != "":
		if s, err := strconv.Atoi(strings.TrimSpace(ra)); err == nil {
			msg += fmt.Sprintf(" (GitHub asks to wait %s)", time.Duration(s)*time.Second)
		} else {
			msg += fmt.Sprintf(" (GitHub asks to wait until %s)", web.Sanitize([]byte(ra)))
		}
	}
	return msg + "; pinbot stopped waiting, run again later"
}
