package github_test

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/pinbot-dev/pinbot/bot/publishing/github"
	"github.com/pinbot-dev/pinbot/internal/fakes"
	"github.com/pinbot-dev/pinbot/web"
)

// capture is another host that records what reaches it.
type capture struct {
	*httptest.Server
	mu   sync.Mutex
	seen []string // "METHOD PATH Authorization"
}

func newCapture(t *testing.T) *capture {
	c := &capture{}
	c.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.mu.Lock()
		c.seen = append(c.seen, r.Method+" "+r.URL.Path+" "+r.Header.Get("Authorization"))
		c.mu.Unlock()
		w.Write([]byte(`{"default_branch":"stolen","token":"x"}`))
	}))
	t.Cleanup(c.Close)
	return c
}

func (c *capture) requests() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.seen...)
}

// TestTokenStaysOnAPIHost: a redirect from the API to another host is refused
// with an error naming both, and the other host receives nothing, neither the
// token nor the request; a redirect within the API's host (a renamed
// repository) is still followed.
func TestTokenStaysOnAPIHost(t *testing.T) {
	for _, status := range []int{http.StatusFound, http.StatusTemporaryRedirect, http.StatusPermanentRedirect} {
		fake, c, _, _ := setup(t, web.DefaultPolicy)
		cap := newCapture(t)
		fake.Fail("GET", `^/repos/o/r$`, fakes.Fault{Status: status, Header: map[string]string{"Location": cap.URL + "/repos/o/r"}})
		b, err := c.DefaultBranch(context.Background())
		if err == nil || !strings.Contains(err.Error(), "redirected to "+cap.URL) || !strings.Contains(err.Error(), "refused") ||
			!strings.Contains(err.Error(), "go to "+fake.URL+" only") || strings.Contains(err.Error(), token) {
			t.Errorf("%d: branch %q, error %v", status, b, err)
		}
		if got := cap.requests(); len(got) != 0 {
			t.Errorf("%d: the other host received %q", status, got)
		}
	}

	fake, c, _, _ := setup(t, web.DefaultPolicy)
	fake.Fail("GET", `^/repos/o/r$`, fakes.Fault{Status: http.StatusMovedPermanently, Header: map[string]string{"Location": fake.URL + "/repos/o/r"}})
	if b, err := c.DefaultBranch(context.Background()); err != nil || b != "main" {
		t.Errorf("same-host redirect: branch %q, error %v", b, err)
	}
}

// TestTokenNotDowngraded: an HTTPS API redirecting to plain HTTP elsewhere is
// refused; nothing reaches the HTTP host.
func TestTokenNotDowngraded(t *testing.T) {
	cap := newCapture(t)
	api := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, cap.URL+r.URL.Path, http.StatusFound)
	}))
	defer api.Close()
	tr := web.NewTransport(api.Client().Transport, web.DefaultPolicy, "pinbot/test", nil)
	c, err := github.New(github.Options{APIURL: api.URL, Repo: repo, Tokens: github.StaticToken(token), HTTP: &http.Client{Transport: tr}})
	if err != nil {
		t.Fatal(err)
	}
	b, err := c.DefaultBranch(context.Background())
	if err == nil || !strings.Contains(err.Error(), "redirected to "+cap.URL) || !strings.Contains(err.Error(), api.URL+" only") {
		t.Errorf("branch %q, error %v", b, err)
	}
	if got := cap.requests(); len(got) != 0 {
		t.Errorf("the HTTP host received %q", got)
	}
}

// TestAppCredentialsStayOnAPIHost: the App's JWT, sent to mint an installation
// token, does not follow a redirect either.
func TestAppCredentialsStayOnAPIHost(t *testing.T) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	pemKey := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})
	fake := fakes.NewGitHub(t)
	fake.AddRepo(repo, "trunk", nil)
	fake.AddApp(99, &key.PublicKey, 1234, repo)
	cap := newCapture(t)
	fake.Fail("POST", `^/app/installations/1234/access_tokens$`, fakes.Fault{Status: http.StatusTemporaryRedirect, Header: map[string]string{"Location": cap.URL + "/mint"}})
	_, err = github.AppTokens(context.Background(), github.AppOptions{APIURL: fake.URL, AppID: 99, PrivateKey: pemKey, Repo: repo})
	if err == nil || !strings.Contains(err.Error(), "redirected to "+cap.URL) {
		t.Errorf("error %v", err)
	}
	if got := cap.requests(); len(got) != 0 {
		t.Errorf("the other host received %q", got)
	}
}
