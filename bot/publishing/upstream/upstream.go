// Package upstream picks, from what a release says of its project (PyPI's
// project_urls: https://docs.pypi.org/api/json/, info.project_urls), the
// links a reviewer of a pull request follows: the changelog, the release
// notes and the source, and, when the source is a repository on github.com,
// the compare view between the old and the new release's tags.
//
// Everything here is hostile text (a release's author writes it): a link is
// kept only when it is an absolute http(s) URL without credentials, and it
// comes back with every character that could end a Markdown link, an HTML
// attribute or a Slack link percent-encoded, so that it can be written into
// either as it is.
//
// It belongs to bot/publishing; of bot it imports only bot/report (the
// names GitHub allows).
package upstream

import (
	"net/url"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/pinbot-dev/pinbot/bot/report"
	"github.com/pinbot-dev/pinbot/versions/pep440"
)

// Links are the upstream links of one release.
type Links struct {
	// Changelog, ReleaseNotes and Source are safe http(s) URLs, or "".
	Changelog    string `json:"changelog,omitempty"`
	ReleaseNotes string `json:"release_notes,omitempty"`
	Source       string `json:"source,omitempty"`
	// Repo is "owner/name" when the source (else the homepage) is a
	// github.com repository; "" otherwise.
	Repo string `json:"repo,omitempty"`
	// Compare is the github.com compare view between the old and the new
	// release's tags, when both tags were found (Compare builds it).
	Compare string `json:"compare,omitempty"`
}

// Empty reports whether l has no link.
func (l Links) Empty() bool { return l == Links{} }

// maxLabels bounds the labels Pick reads: real projects list a handful.
const maxLabels = 100

// The labels Pick reads, as Normalize spells them: PEP 753's well-known
// labels (https://peps.python.org/pep-0753/) and their aliases.
var (
	changelogLabels    = []string{"changelog", "changes", "whatsnew", "history"}
	releaseNotesLabels = []string{"releasenotes"}
	sourceLabels       = []string{"source", "repository", "sourcecode", "github", "code"}
	homepageLabels     = []string{"homepage", "home"}
)

// Pick returns the links of a release from its project URLs (label → URL,
// as the JSON API's info.project_urls holds them). Labels match as PEP 753
// normalises them ("Release Notes", "release-notes" and "ReleaseNotes" are
// one label); of several URLs for one link the first label in sorted order
// wins. A URL that is not a safe http(s) URL is dropped.
func Pick(urls map[string]string) Links {
	byLabel := map[string]string{}
	keys := make([]string, 0, len(urls))
	for k := range urls {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if len(keys) > maxLabels {
		keys = keys[:maxLabels]
	}
	for _, k := range keys {
		n := normalize(k)
		if _, seen := byLabel[n]; seen {
			continue
		}
		if u, ok := SafeURL(urls[k]); ok {
			byLabel[n] = u
		}
	}
	first := func(labels []string) string {
		for _, l := range labels {
			if u := byLabel[l]; u != "" {
				return u
			}
		}
		return ""
	}
	l := Links{Changelog: first(changelogLabels), ReleaseNotes: first(releaseNotesLabels), Source: first(sourceLabels)}
	if repo, ok := GitHubRepo(l.Source); ok {
		l.Repo = repo
	} else if repo, ok := GitHubRepo(first(homepageLabels)); ok {
		l.Repo = repo
		if l.Source == "" {
			l.Source = "https://github.com/" + repo
		}
	}
	return l
}

// normalize returns a project URL label as PEP 753 compares it: without
// punctuation or whitespace, lower case ("Release Notes" → "releasenotes").
func normalize(label string) string {
	var b strings.Builder
	for _, r := range label {
		if unicode.IsPunct(r) || unicode.IsSymbol(r) || unicode.IsSpace(r) || unicode.IsControl(r) {
			continue
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

// maxURL bounds a link's length: longer is not a link a person follows.
const maxURL = 2000

// SafeURL returns s as a link pinbot may write, and whether it is one: an
// absolute http or https URL with a host and without credentials, no
// whitespace or control characters, at most 2,000 bytes. The characters
// that could end a Markdown link or an HTML attribute, or act in Slack's
// mrkdwn ( ) < > [ ] " ' ` | and \, are percent-encoded.
func SafeURL(s string) (string, bool) {
	if s == "" || len(s) > maxURL || !utf8.ValidString(s) {
		return "", false
	}
	for _, r := range s {
		if unicode.IsSpace(r) || unicode.IsControl(r) || !unicode.IsPrint(r) {
			return "", false
		}
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil || u.Opaque != "" {
		return "", false
	}
	if strings.ContainsAny(u.Hostname(), ":[]()<>\"'`|\\") { // an IP v6 literal is no upstream's site
		return "", false
	}
	return linkEscaper.Replace(u.String()), true
}

var linkEscaper = strings.NewReplacer("(", "%28", ")", "%29", "<", "%3C", ">", "%3E", "[", "%5B", "]", "%5D",
	`"`, "%22", "'", "%27", "`", "%60", "|", "%7C", `\`, "%5C")

// GitHubRepo returns "owner/name" when u is a link to a repository on
// github.com (https://github.com/owner/name, with or without .git, a
// trailing slash or a deeper path such as /tree/main), and whether it is.
func GitHubRepo(u string) (string, bool) {
	if u == "" {
		return "", false
	}
	p, err := url.Parse(u)
	if err != nil || (p.Scheme != "https" && p.Scheme != "http") || !strings.EqualFold(p.Hostname(), "github.com") && !strings.EqualFold(p.Hostname(), "www.github.com") {
		return "", false
	}
	parts := strings.Split(strings.Trim(p.EscapedPath(), "/"), "/")
	if len(parts) < 2 {
		return "", false
	}
	owner, name := parts[0], strings.TrimSuffix(parts[1], ".git")
	if !report.ValidRepository(owner + "/" + name) {
		return "", false
	}
	switch strings.ToLower(owner) {
	case "orgs", "sponsors", "settings", "marketplace", "topics", "features", "apps", "login", "about", "pricing":
		return "", false // github.com's own pages, not an owner
	}
	return owner + "/" + name, true
}

// TagNames returns the tag names a release is likely published under, in
// the order to try them: "v1.2.3", then "1.2.3". A version that already
// starts with v is tried as it is only.
func TagNames(version string) []string {
	if version == "" || strings.ContainsAny(version, " /\\:~^?*[") {
		return nil
	}
	if strings.HasPrefix(version, "v") {
		return []string{version}
	}
	names := []string{"v" + version, version}
	// PEP 440 spells a release in more than one way (1.0 is 1.0.0); the
	// normalised form is what a project's tag most likely reads.
	if n, err := pep440.Parse(version); err == nil && n.String() != version {
		names = append(names, "v"+n.String(), n.String())
	}
	return names
}

// Compare returns the compare view of repo ("owner/name") from tag old to
// tag new on github.com.
func Compare(repo, oldTag, newTag string) string {
	return "https://github.com/" + repo + "/compare/" + url.PathEscape(oldTag) + "..." + url.PathEscape(newTag)
}
