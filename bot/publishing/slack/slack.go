// Package slack posts pinbot's run summary to a Slack incoming webhook
// (https://api.slack.com/messaging/webhooks) as a Block Kit message with a
// plain-text fallback.
//
// The webhook URL is a secret: requests are marked with web.WithSecretURL, so
// logs and errors never show it, and a redirect is never followed (an
// incoming webhook does not redirect; following one would hand another host
// the message, and on a same-scheme redirect the webhook URL itself, which Go
// sends as the Referer). Errors are Slack's plain-text codes
// ("404 channel_not_found"); only 429 (honouring Retry-After, done by
// web.Transport) and 5xx are retried.
//
// It belongs to bot/publishing (fleet uses it too) and imports no other part
// of bot.
package slack

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/pinbot-dev/pinbot/web"
)

// A Message is a webhook payload.
type Message struct {
	// Text is the notification and fallback text; sent even with blocks.
	Text   string  `json:"text"`
	Blocks []Block `json:"blocks,omitempty"`
}

// A Block is a Block Kit layout block: header, section, divider or context.
type Block struct {
	Type     string `json:"type"`
	Text     *Text  `json:"text,omitempty"`
	Elements []Text `json:"elements,omitempty"`
	// Fields are a section's two-column fields (at most 10).
	Fields []Text `json:"fields,omitempty"`
}

// A Text is a text object: plain_text or mrkdwn.
type Text struct {
	Type  string `json:"type"`
	Text  string `json:"text"`
	Emoji bool   `json:"emoji,omitempty"`
	// Verbatim keeps Slack from turning bare URLs, channel names and
	// @mentions in mrkdwn into links and notifications; pinbot's own links
	// are written out (<url|text>) and still work.
	Verbatim bool `json:"verbatim,omitempty"`
}

// A Client posts to one incoming webhook.
type Client struct {
	// URL is the webhook URL, a secret.
	URL string
	// HTTP sends the requests; its transport should be web.Transport, which
	// retries 429 after Retry-After.
	HTTP *http.Client
	// Attempts bounds tries on 5xx (default 3).
	Attempts int
	// Sleep waits between 5xx retries; tests replace it.
	Sleep func(ctx context.Context, d time.Duration) error
}

// An Error is a webhook's refusal: status and Slack's plain-text code.
type Error struct {
	StatusCode int
	Code       string
}

// Error returns "slack webhook: STATUS CODE"; it never holds the URL.
func (e *Error) Error() string {
	return fmt.Sprintf("slack webhook: %d %s", e.StatusCode, e.Code)
}

// Post sends m. A 5xx is retried with backoff; any other non-200 answer is an
// *Error at once.
func (c *Client) Post(ctx context.Context, m Message) error {
	body, err := json.Marshal(m)
	if err != nil {
		return err
	}
	attempts := c.Attempts
	if attempts <= 0 {
		attempts = 3
	}
	sleep := c.Sleep
	if sleep == nil {
		sleep = web.Sleep
	}
	ctx = web.WithSecretURL(ctx)
	for i := 1; ; i++ {
		err = c.once(ctx, body)
		var se *Error
		if err == nil || !errors.As(err, &se) || se.StatusCode < 500 || i >= attempts {
			return err
		}
		if err := sleep(ctx, time.Duration(i)*time.Second); err != nil {
			return err
		}
	}
}

func (c *Client) once(ctx context.Context, body []byte) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.URL, bytes.NewReader(body))
	if err != nil {
		return errors.New("slack webhook: invalid URL")
	}
	req.Header.Set("Content-Type", "application/json")
	hc := http.Client{CheckRedirect: refuseRedirect}
	if c.HTTP != nil {
		hc = *c.HTTP
		hc.CheckRedirect = refuseRedirect
	}
	resp, err := hc.Do(req)
	if err != nil {
		// *url.Error repeats the URL; the transport's own error names the
		// redacted one.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return fmt.Errorf("slack webhook: %w", err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	if resp.StatusCode == http.StatusOK {
		return nil
	}
	code := web.Sanitize(b)
	if code == "" {
		code = http.StatusText(resp.StatusCode)
	}
	return &Error{StatusCode: resp.StatusCode, Code: code}
}

// refuseRedirect stops at the first redirect; the error names the other
// host only, since the rest of its URL may be a secret too.
func refuseRedirect(req *http.Request, via []*http.Request) error {
	return fmt.Errorf("redirected to %s: refused, the webhook URL and the message go to the webhook's own address only",
		(&url.URL{Scheme: req.URL.Scheme, Host: req.URL.Host}).String())
}
