package fakes

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"unicode/utf8"
)

// SlackWebhookPath is the path of the fake's webhook; the URL is a secret like
// a real one.
const SlackWebhookPath = "/services/T0PINBOT/B0PINBOT/s3cr3tW3bh00kT0k3n"

// Slack is a fake Slack incoming webhook. It answers like Slack: 200 with the
// plain text "ok", errors as plain-text codes (400 invalid_payload,
// invalid_blocks, 404 channel_not_found, 410 channel_is_archived), and 429 with
// Retry-After when a fault says so. It checks Block Kit limits.
type Slack struct {
	*httptest.Server
	// URL is the webhook URL (server URL plus SlackWebhookPath).
	URL string

	mu       sync.Mutex
	faults   []Fault
	messages []json.RawMessage
	bodies   []string
	calls    int
}

// NewSlack starts a fake webhook that is closed when the test ends.
func NewSlack(t testing.TB) *Slack {
	s := &Slack{}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.Server.URL + SlackWebhookPath
	t.Cleanup(s.Close)
	return s
}

// Fail queues faults for the next requests, such as
// Fault{Status: 429, Header: {"Retry-After": "1"}, Body: "rate_limited"} or
// Fault{Status: 404, Body: "channel_not_found"}.
func (s *Slack) Fail(fs ...Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = append(s.faults, fs...)
}

// Messages returns the payloads accepted so far.
func (s *Slack) Messages() []json.RawMessage {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]json.RawMessage(nil), s.messages...)
}

// Bodies returns every request body received, accepted or not.
func (s *Slack) Bodies() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.bodies...)
}

// Calls returns the number of requests received.
func (s *Slack) Calls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls
}

func (s *Slack) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	s.calls++
	s.bodies = append(s.bodies, string(body))
	var fault *Fault
	if len(s.faults) > 0 {
		fault, s.faults = &s.faults[0], s.faults[1:]
	}
	s.mu.Unlock()
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	if fault != nil {
		for k, v := range fault.Header {
			w.Header().Set(k, v)
		}
		w.WriteHeader(max(fault.Status, http.StatusOK))
		io.WriteString(w, fault.Body)
		return
	}
	switch {
	case r.Method != http.MethodPost:
		w.WriteHeader(http.StatusMethodNotAllowed)
		io.WriteString(w, "invalid_method")
		return
	case r.URL.Path != SlackWebhookPath:
		w.WriteHeader(http.StatusForbidden)
		io.WriteString(w, "invalid_token")
		return
	}
	var m struct {
		Text   string `json:"text"`
		Blocks []struct {
			Type string `json:"type"`
			Text *struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"text"`
		} `json:"blocks"`
	}
	if err := json.Unmarshal(body, &m); err != nil {
		w.WriteHeader(http.StatusBadRequest)
		io.WriteString(w, "invalid_payload")
		return
	}
	if m.Text == "" && len(m.Blocks) == 0 {
		w.WriteHeader(http.StatusBadRequest)
		io.WriteString(w, "missing_text_or_fallback_or_attachments")
		return
	}
	if !validBlocks(len(m.Blocks), func(i int) (string, int) {
		b := m.Blocks[i]
		if b.Text == nil {
			return b.Type, 0
		}
		return b.Type, utf8.RuneCountInString(b.Text.Text)
	}) {
		w.WriteHeader(http.StatusBadRequest)
		io.WriteString(w, "invalid_blocks")
		return
	}
	s.mu.Lock()
	s.messages = append(s.messages, json.RawMessage(body))
	s.mu.Unlock()
	io.WriteString(w, "ok")
}

// validBlocks checks Block Kit's limits: at most 50 blocks, header text at most
// 150 characters, section text at most 3000.
func validBlocks(n int, block func(int) (typ string, chars int)) bool {
	if n > 50 {
		return false
	}
	for i := range n {
		typ, chars := block(i)
		switch {
		case typ == "header" && (chars == 0 || chars > 150):
			return false
		case typ == "section" && (chars == 0 || chars > 3000):
			return false
		}
	}
	return true
}
