package github

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// TestOriginAuthRefusesOtherHosts: whatever asks (a redirect, a URL built from
// a response), the credential transport sends nothing to another origin, and
// adds the token for the API's own.
func TestOriginAuthRefusesOtherHosts(t *testing.T) {
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = append(got, r.Host+" "+r.Header.Get("Authorization"))
	}))
	defer srv.Close()
	api, _ := url.Parse(srv.URL + "/api/v3/")
	hc := httpClient(Options{Tokens: StaticToken("tok"), HTTP: srv.Client()}, api)
	resp, err := hc.Get(srv.URL + "/api/graphql")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	other := strings.Replace(srv.URL, "127.0.0.1", "localhost", 1)
	if _, err := hc.Get(other + "/x"); err == nil || !strings.Contains(err.Error(), "refusing to send the GitHub credentials to "+other) {
		t.Errorf("other host: %v", err)
	}
	if len(got) != 1 || !strings.HasSuffix(got[0], " Bearer tok") {
		t.Errorf("server saw %q, want one request with the token", got)
	}
}

func TestSameOrigin(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want bool
	}{
		{"https://api.github.com/", "https://api.github.com:443/repos", true},
		{"https://API.github.com/", "https://api.github.com/x", true},
		{"https://api.github.com/", "http://api.github.com/", false},
		{"https://api.github.com/", "https://api.github.com:8443/", false},
		{"https://api.github.com/", "https://api.github.com.evil/", false},
		{"http://ghe.local/api/v3/", "http://ghe.local:80/api/graphql", true},
	} {
		a, _ := url.Parse(tt.a)
		b, _ := url.Parse(tt.b)
		if got := sameOrigin(a, b); got != tt.want {
			t.Errorf("sameOrigin(%s, %s) = %v", tt.a, tt.b, got)
		}
	}
}
