package main

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/pinbot-dev/pinbot/internal/fakes"
)

// The redirect scenarios have a fake service answer one of pinbot run's
// calls with a redirect to another host, and check through the CLI what the
// packages (bot/publishing/github, bot/publishing/slack) document: the redirect is refused, the
// other host receives nothing, neither a credential nor the request, and
// the failure is reported without the secret.

// otherHost is a host a redirect points at; it records every request it
// receives, with its Authorization header and body.
type otherHost struct {
	*httptest.Server
	mu   sync.Mutex
	seen []string
}

func newOtherHost(t *testing.T) *otherHost {
	o := &otherHost{}
	o.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		o.mu.Lock()
		o.seen = append(o.seen, fmt.Sprintf("%s %s authorization=%q referer=%q body=%q", r.Method, r.URL, r.Header.Get("Authorization"), r.Referer(), body))
		o.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `[]`)
	}))
	t.Cleanup(o.Close)
	return o
}

func (o *otherHost) requests() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]string(nil), o.seen...)
}

// TestRunGitHubRedirectRefused: the fake GitHub answers the pull request
// listing, or the repository, with a 301, 302 or 307 to another host.
// bot/publishing/github refuses a redirect that leaves the API's origin: the run fails
// with an error naming both hosts, the other host receives nothing (no
// token, no request), and nothing is written. The next run, without the
// redirect, opens the pull request.
func TestRunGitHubRedirectRefused(t *testing.T) {
	for _, call := range []struct {
		name, path string
		// failure is the run's report of it: a package's failure in the
		// JSON report, or (before there is a report) the error on stderr.
		failure string
	}{
		{"pull request listing", `^/repos/pymc-devs/pytensor/pulls$`, "numba: github: listing pull requests of pinbot/main/numba: "},
		{"repository", `^/repos/pymc-devs/pytensor$`, "pinbot: github: reading the repository: "},
	} {
		for _, status := range []int{http.StatusMovedPermanently, http.StatusFound, http.StatusTemporaryRedirect} {
			t.Run(fmt.Sprintf("%s %d", call.name, status), func(t *testing.T) {
				e := newRunEnv(t, testConfig)
				other := newOtherHost(t)
				e.gh.Fail("GET", call.path, fakes.Fault{Status: status, Header: map[string]string{"Location": other.URL + "/repos/pymc-devs/pytensor/pulls?state=all"}})
				code, out, stderr := e.run("--format", "json")
				if code != exitFailure {
					t.Errorf("exit %d, want 1\n%s\n%s", code, out, stderr)
				}
				want := "was redirected to " + other.URL + ": refused, the GitHub credentials go to " + e.gh.URL + " only"
				if strings.HasPrefix(call.failure, "pinbot: ") {
					if out != "" || !strings.Contains(stderr, call.failure) || !strings.Contains(stderr, want) {
						t.Errorf("want no report and %q on stderr\nstdout:\n%s\nstderr:\n%s", call.failure+"… "+want, out, stderr)
					}
				} else {
					var rep struct {
						Failures []string `json:"failures"`
					}
					if err := json.Unmarshal([]byte(out), &rep); err != nil {
						t.Fatalf("%v\n%s\n%s", err, out, stderr)
					}
					if len(rep.Failures) != 1 || !strings.HasPrefix(rep.Failures[0], call.failure) || !strings.Contains(rep.Failures[0], want) {
						t.Errorf("failures %q, want one saying %q", rep.Failures, call.failure+"… "+want)
					}
				}
				if got := other.requests(); len(got) != 0 {
					t.Errorf("the other host received %q", got)
				}
				if w := e.writes(); len(w) != 0 {
					t.Errorf("wrote %v after a refused redirect", w)
				}
				e.checkSecrets(t)

				if code, out, stderr := e.run(); code != exitOK {
					t.Fatalf("rerun: exit %d\n%s\n%s", code, out, stderr)
				}
				e.checkState(t, "0.67.0")
				if got := other.requests(); len(got) != 0 {
					t.Errorf("the other host received %q", got)
				}
			})
		}
	}
}

// TestRunAppRedirectRefused: with a GitHub App, the calls made with its JWT
// (finding the installation, minting the token) do not follow a redirect to
// another host either: the JWT never reaches it, and the run fails naming
// both hosts.
func TestRunAppRedirectRefused(t *testing.T) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	pemKey := string(pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)}))
	for _, call := range []struct {
		name, method, path string
		step               string // what the error says pinbot was doing
		writes             []string
	}{
		{"installation", "GET", `^/repos/pymc-devs/pytensor/installation$`, "finding its installation on pymc-devs/pytensor", nil},
		{"token", "POST", `^/app/installations/777/access_tokens$`, "creating a token for installation 777",
			[]string{"POST /app/installations/777/access_tokens"}},
	} {
		t.Run(call.name, func(t *testing.T) {
			e := newRunEnv(t, testConfig)
			e.gh.AddApp(4242, &key.PublicKey, 777, testRepo)
			delete(e.vars, "GITHUB_TOKEN")
			e.vars["PINBOT_APP_PRIVATE_KEY"] = pemKey
			other := newOtherHost(t)
			e.gh.Fail(call.method, call.path, fakes.Fault{Status: http.StatusTemporaryRedirect, Header: map[string]string{"Location": other.URL + "/steal"}})
			code, out, stderr := e.run("--app-id", "4242")
			want := "was redirected to " + other.URL + ": refused, the GitHub credentials go to " + e.gh.URL + " only"
			if code != exitFailure || !strings.Contains(stderr, "pinbot: github app 4242: "+call.step) || !strings.Contains(stderr, want) {
				t.Errorf("exit %d, want 1 and %q\n%s\n%s", code, want, out, stderr)
			}
			if got := other.requests(); len(got) != 0 {
				t.Errorf("the other host received %q", got)
			}
			if w := e.writes(); !slices.Equal(w, call.writes) {
				t.Errorf("requests that write %v, want %v", w, call.writes)
			}
			keyLines := strings.Split(strings.TrimSpace(pemKey), "\n")
			e.checkSecrets(t, keyLines[1], keyLines[len(keyLines)/2])
		})
	}
}

// TestRunSlackRedirectRefused: the webhook answers with a redirect to
// another host. bot/publishing/slack never follows one: the other host receives
// nothing (neither the message nor a Referer with the webhook's secret
// path), the run fails with an error naming only the other host, the JSON
// report says nobody was notified, and no output shows the webhook URL. The
// pull request is still made.
func TestRunSlackRedirectRefused(t *testing.T) {
	for _, status := range []int{http.StatusMovedPermanently, http.StatusFound, http.StatusTemporaryRedirect, http.StatusPermanentRedirect} {
		t.Run(fmt.Sprint(status), func(t *testing.T) {
			e := newRunEnv(t, testConfig)
			other := newOtherHost(t)
			e.slack.Fail(fakes.Fault{Status: status, Header: map[string]string{"Location": other.URL + "/collect" + fakes.SlackWebhookPath}})
			code, out, stderr := e.run("--format", "json")
			if code != exitFailure {
				t.Errorf("exit %d, want 1\n%s\n%s", code, out, stderr)
			}
			want := "redirected to " + other.URL + ": refused, the webhook URL and the message go to the webhook's own address only"
			if !strings.Contains(stderr, want) {
				t.Errorf("stderr does not say %q:\n%s", want, stderr)
			}
			var rep struct {
				Notified *bool    `json:"notified"`
				Failures []string `json:"failures"`
			}
			if err := json.Unmarshal([]byte(out), &rep); err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			if rep.Notified == nil || *rep.Notified || !slices.Equal(rep.Failures, []string{"slack webhook: " + want}) {
				t.Errorf("failures %q: want not notified, and the refusal\n%s", rep.Failures, out)
			}
			if got := other.requests(); len(got) != 0 {
				t.Errorf("the other host received %q", got)
			}
			if e.slack.Calls() != 1 || len(e.slack.Messages()) != 0 {
				t.Errorf("%d webhook calls, %d accepted: want the one redirected, not retried", e.slack.Calls(), len(e.slack.Messages()))
			}
			e.checkState(t, "0.67.0")
			e.checkSecrets(t, "/collect")
		})
	}
}
