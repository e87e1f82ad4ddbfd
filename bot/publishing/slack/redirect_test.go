package slack_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/pinbot-dev/pinbot/bot/publishing/slack"
	"github.com/pinbot-dev/pinbot/internal/fakes"
	"github.com/pinbot-dev/pinbot/web"
)

// TestPostRefusesRedirect: a webhook that redirects, to another host of the
// same scheme or from HTTPS down to HTTP, gets an error naming only the other
// host; the other host receives nothing (no message, no Referer carrying the
// webhook URL).
func TestPostRefusesRedirect(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Method+" "+r.URL.Path+" referer="+r.Referer())
		mu.Unlock()
		w.Write([]byte("ok"))
	}))
	defer other.Close()

	fake := fakes.NewSlack(t)
	tls := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/collect", http.StatusTemporaryRedirect)
	}))
	defer tls.Close()
	for _, tt := range []struct {
		name, url string
		base      http.RoundTripper
		setup     func()
	}{
		{"same scheme, 302", fake.URL, nil, func() {
			fake.Fail(fakes.Fault{Status: http.StatusFound, Header: map[string]string{"Location": other.URL + "/collect"}})
		}},
		{"same scheme, 307", fake.URL, nil, func() {
			fake.Fail(fakes.Fault{Status: http.StatusTemporaryRedirect, Header: map[string]string{"Location": other.URL + "/collect"}})
		}},
		{"https to http", tls.URL + fakes.SlackWebhookPath, tls.Client().Transport, func() {}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			mu.Lock()
			seen = nil
			mu.Unlock()
			tt.setup()
			c := &slack.Client{URL: tt.url, HTTP: &http.Client{Transport: web.NewTransport(tt.base, web.DefaultPolicy, "t", nil)}}
			err := c.Post(context.Background(), slack.Message{Text: "numba: opened #12"})
			if err == nil || !strings.Contains(err.Error(), "redirected to "+other.URL+": refused") ||
				strings.Contains(err.Error(), "s3cr3t") || strings.Contains(err.Error(), "/collect") {
				t.Errorf("error %v", err)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(seen) != 0 {
				t.Errorf("the other host received %q", seen)
			}
		})
	}
}
