package github

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"

	"golang.org/x/oauth2"

	"github.com/pinbot-dev/pinbot/web"
)

// The credentials of this package (a token, an App's JWT) go to the API's own
// origin (scheme, host and port) and nowhere else. Go's http.Client drops an
// Authorization header on a redirect to another host only when the header was
// set on the original request; oauth2.Transport adds it on every round trip,
// the redirected one included, so one "302 Location: http://elsewhere/" would
// hand the token over. Two guards hold instead: the client refuses a redirect
// that leaves the origin (checkRedirect), and the transport that adds the
// credential sends nothing to another origin (originAuth), whatever asked.

// sameOrigin reports whether a and b have the same scheme, host and port (an
// absent port is the scheme's default).
func sameOrigin(a, b *url.URL) bool {
	return strings.EqualFold(a.Scheme, b.Scheme) && hostPort(a) == hostPort(b)
}

func hostPort(u *url.URL) string {
	port := u.Port()
	if port == "" {
		switch strings.ToLower(u.Scheme) {
		case "https":
			port = "443"
		case "http":
			port = "80"
		}
	}
	return net.JoinHostPort(strings.ToLower(u.Hostname()), port)
}

// origin returns u's scheme and host, as errors show it.
func origin(u *url.URL) string {
	return (&url.URL{Scheme: u.Scheme, Host: u.Host}).String()
}

// checkRedirect follows redirects within api's origin (GitHub moves renamed
// repositories that way) and refuses one that leaves it.
func checkRedirect(api *url.URL) func(*http.Request, []*http.Request) error {
	return func(req *http.Request, via []*http.Request) error {
		if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		if !sameOrigin(req.URL, api) {
			first := via[0]
			return fmt.Errorf("%s %s was redirected to %s: refused, the GitHub credentials go to %s only",
				first.Method, web.RedactURL(first.URL), origin(req.URL), origin(api))
		}
		return nil
	}
}

// originAuth adds the credential of src to requests for api's origin, and
// refuses to send any other request.
type originAuth struct {
	src  oauth2.TokenSource
	api  *url.URL
	base http.RoundTripper
}

func (t *originAuth) RoundTrip(req *http.Request) (*http.Response, error) {
	if !sameOrigin(req.URL, t.api) {
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, fmt.Errorf("refusing to send the GitHub credentials to %s: they go to %s only", origin(req.URL), origin(t.api))
	}
	tok, err := t.src.Token()
	if err != nil {
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, err
	}
	r := req.Clone(req.Context())
	tok.SetAuthHeader(r)
	return t.base.RoundTrip(r)
}
