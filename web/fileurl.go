package web

import "net/url"

// ResolveFile returns the URL of a file an index page lists, ref resolved
// against the page's URL, and ok false when ref does not parse. A file on the
// page's own origin (scheme, host and port, or an upgrade from http to https)
// carries the page's user information, as pip sends an index's credentials
// to every URL of the same host: a private index (Artifactory, devpi, a
// credentialed conda channel) that lists files by absolute URL on itself
// serves them only with the credentials. A file on any other origin (PyPI's
// CDN, a mirror) gets none, whatever the page had. This is the one place a
// file URL inherits credentials; web.Transport drops them again on a redirect
// to another origin, and Redact keeps them out of every output.
func ResolveFile(page *url.URL, ref string) (string, bool) {
	u, err := page.Parse(ref)
	if err != nil {
		return "", false
	}
	switch {
	case !sameOrigin(page, u):
		u.User = nil
	case u.User == nil:
		u.User = page.User
	}
	return u.String(), true
}
