package goproxy

import (
	"bytes"
	"fmt"
	"strings"
	"time"
	"unicode"

	"golang.org/x/mod/module"
	"golang.org/x/mod/semver"

	"github.com/pinbot-dev/pinbot/sources"
	"github.com/pinbot-dev/pinbot/web"
)

// decodeList reads an @v/list body: one version per line, in no order, maybe
// with other fields after it. Invalid, non-canonical and pseudo-versions are
// skipped, as the go command does; duplicates are dropped.
func decodeList(u string, body []byte) ([]string, error) {
	if t := bytes.TrimSpace(body); len(t) > 0 && (t[0] == '<' || t[0] == '{') {
		return nil, fmt.Errorf("%s: expected a version list, got: %s", web.Redact(u), web.RedactText(web.Sanitize(t[:min(len(t), 120)])))
	}
	var out []string
	seen := map[string]bool{}
	for line := range bytes.Lines(body) { // no slice of every line: a list may be 64 MB of newlines
		line = bytes.TrimSpace(line)
		if i := bytes.IndexFunc(line, unicode.IsSpace); i >= 0 {
			line = line[:i] // the version; other fields may follow
		}
		if len(line) == 0 {
			continue
		}
		v := string(line)
		if !semver.IsValid(v) || semver.Canonical(v) != strings.TrimSuffix(v, "+incompatible") && semver.Canonical(v)+"+incompatible" != v ||
			module.IsPseudoVersion(v) || seen[v] {
			continue
		}
		seen[v] = true
		out = append(out, v)
		if len(out) > sources.MaxReleases {
			return nil, fmt.Errorf("%s: more than %d versions", web.Redact(u), sources.MaxReleases)
		}
	}
	return out, nil
}

// decodeInfo reads a .info body for version and returns its time.
func decodeInfo(u, version string, body []byte) (time.Time, error) {
	var info struct {
		Version string
		Time    time.Time
	}
	if err := web.DecodeJSON(u, body, &info); err != nil {
		return time.Time{}, err
	}
	if info.Version != version {
		return time.Time{}, fmt.Errorf("%s: the proxy answered for version %q", web.Redact(u), info.Version)
	}
	return info.Time, nil
}
