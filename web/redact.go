package web

import (
	"net/url"
	"strings"
)

// Redact returns the URL s as it may appear in a log line, an error, a report,
// a pull request or a Slack message: without user information
// (https://user:password@host), query (?token=..., a pre-signed URL's
// signature) or fragment, any of which may hold a credential. It is the one
// place pinbot decides what of a URL is shown; every error and log line that
// carries a URL passes it through Redact, RedactURL or ShownURL.
//
// A string that does not parse as a URL is cut by hand: everything from the
// first "?" or "#" goes, and so does anything before an "@" in the authority.
func Redact(s string) string {
	if u, err := url.Parse(s); err == nil {
		return RedactURL(u)
	}
	if i := strings.IndexAny(s, "?#"); i >= 0 {
		s = s[:i]
	}
	if i := strings.Index(s, "://"); i >= 0 {
		rest := s[i+3:]
		end := strings.IndexByte(rest, '/')
		if end < 0 {
			end = len(rest)
		}
		if at := strings.LastIndexByte(rest[:end], '@'); at >= 0 {
			rest, end = rest[at+1:], end-at-1
		}
		s = s[:i+3] + rest[:end] + redactPathToken(rest[end:])
	} else if at := strings.LastIndexByte(s, '@'); at >= 0 && !strings.Contains(s[:at], "/") {
		s = s[at+1:] // "user:password@host/path" without a scheme
	}
	return s
}

// RedactURL is Redact for a parsed URL.
func RedactURL(u *url.URL) string {
	if u == nil {
		return ""
	}
	c := *u
	c.User, c.RawQuery, c.ForceQuery, c.Fragment, c.RawFragment = nil, "", false, "", ""
	c.Path, c.RawPath = redactPathToken(c.Path), redactPathToken(c.RawPath)
	if c.Opaque != "" {
		// "scheme:user:password@host" parses as opaque: keep what follows "@".
		// Its "scheme" may be the user name: drop both.
		if at := strings.LastIndexByte(c.Opaque, '@'); at >= 0 {
			c.Scheme, c.Opaque = "", c.Opaque[at+1:]
		}
	}
	return c.String()
}

// redactPathToken hides the token of anaconda.org's authenticated channel
// URLs, which carry it as the first path segments "/t/TOKEN/…"
// (https://conda.anaconda.org/t/TOKEN/channel); other paths are returned
// as they are.
func redactPathToken(p string) string {
	rest, ok := strings.CutPrefix(p, "/t/")
	if !ok {
		return p
	}
	end := strings.IndexByte(rest, '/')
	if end < 0 {
		end = len(rest)
	}
	if end == 0 {
		return p
	}
	return "/t/REDACTED" + rest[end:]
}

// RedactText returns s with every URL in it (anything that starts with a
// scheme and "://", up to white space or a quote) passed through Redact: for
// text pinbot did not write, such as an installer's output or a library's
// error message, that may repeat a URL it was given.
func RedactText(s string) string {
	if !strings.Contains(s, "://") {
		return s
	}
	var b strings.Builder
	for {
		i := strings.Index(s, "://")
		if i < 0 {
			break
		}
		start := i
		for start > 0 && isSchemeByte(s[start-1]) {
			start--
		}
		end := i + 3
		for end < len(s) && !isURLEnd(s[end]) {
			end++
		}
		b.WriteString(s[:start])
		if start == i { // no scheme: not a URL, keep the separator
			b.WriteString(s[i : i+3])
			s = s[i+3:]
			continue
		}
		b.WriteString(Redact(s[start:end]))
		s = s[end:]
	}
	b.WriteString(s)
	return b.String()
}

func isSchemeByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '+' || c == '-' || c == '.'
}

// isURLEnd reports whether c ends a URL in running text.
func isURLEnd(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', '"', '\'', '<', '>', '`', '(', ')', '[', ']', '{', '}', '|', '\\', '^':
		return true
	}
	return c < 0x20 || c == 0x7f
}
