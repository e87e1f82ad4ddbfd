package upstream_test

import (
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/pinbot-dev/pinbot/bot/publishing/upstream"
)

func TestPick(t *testing.T) {
	for _, tc := range []struct {
		name string
		urls map[string]string
		want upstream.Links
	}{
		{"numba", map[string]string{
			"Homepage": "https://numba.pydata.org", "Source": "https://github.com/numba/numba",
			"Release Notes": "https://numba.readthedocs.io/en/stable/release-notes-overview.html",
		}, upstream.Links{Source: "https://github.com/numba/numba", Repo: "numba/numba",
			ReleaseNotes: "https://numba.readthedocs.io/en/stable/release-notes-overview.html"}},
		{"labels as PEP 753 normalises them", map[string]string{
			"CHANGE-LOG": "https://example.org/changes", "release_notes": "https://example.org/notes", "Source Code": "https://gitlab.com/a/b",
		}, upstream.Links{Changelog: "https://example.org/changes", ReleaseNotes: "https://example.org/notes", Source: "https://gitlab.com/a/b"}},
		{"homepage on GitHub names the repository", map[string]string{"Home-page": "https://github.com/pallets/flask/", "History": "http://x.org/h"},
			upstream.Links{Changelog: "http://x.org/h", Source: "https://github.com/pallets/flask", Repo: "pallets/flask"}},
		{"hostile links are dropped", map[string]string{
			"Changelog": "javascript:alert(1)", "Release notes": "https://user:pw@example.org/", "Source": "https://ex ample.org/",
			"Repository": "//github.com/a/b",
		}, upstream.Links{}},
		{"Markdown breakers are encoded", map[string]string{"Changelog": "https://example.org/a)](https://evil.example/<b>|x"},
			upstream.Links{Changelog: "https://example.org/a%29%5D%28https://evil.example/%3Cb%3E%7Cx"}},
		{"github.com's own pages are no repository", map[string]string{"Source": "https://github.com/sponsors/someone"},
			upstream.Links{Source: "https://github.com/sponsors/someone"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := upstream.Pick(tc.urls); got != tc.want {
				t.Errorf("Pick(%v)\n got %+v\nwant %+v", tc.urls, got, tc.want)
			}
		})
	}
}

func TestGitHubRepo(t *testing.T) {
	for u, want := range map[string]string{
		"https://github.com/numba/numba":               "numba/numba",
		"https://github.com/numba/numba.git":           "numba/numba",
		"https://www.github.com/numba/numba/tree/main": "numba/numba",
		"https://github.com/numba":                     "",
		"https://gitlab.com/numba/numba":               "",
		"https://github.com.evil.example/numba/numba":  "",
		"https://github.com/../numba":                  "",
		"https://github.com/a%2Fb/c":                   "",
	} {
		got, ok := upstream.GitHubRepo(u)
		if got != want || ok != (want != "") {
			t.Errorf("GitHubRepo(%q) = %q, %v; want %q", u, got, ok, want)
		}
	}
}

func TestTagNames(t *testing.T) {
	for v, want := range map[string][]string{
		"0.67.0":  {"v0.67.0", "0.67.0"},
		"v1.2":    {"v1.2"},
		"1.0-rc1": {"v1.0-rc1", "1.0-rc1", "v1.0rc1", "1.0rc1"},
		"a/b":     nil,
		"":        nil,
	} {
		if got := upstream.TagNames(v); !slices.Equal(got, want) {
			t.Errorf("TagNames(%q) = %q, want %q", v, got, want)
		}
	}
	if got := upstream.Compare("numba/numba", "0.66.0", "0.67.0"); got != "https://github.com/numba/numba/compare/0.66.0...0.67.0" {
		t.Errorf("Compare = %s", got)
	}
}

// FuzzPick: whatever a release's project URLs hold, every link Pick keeps
// is an http(s) URL without credentials, whitespace or a character that
// ends a Markdown or Slack link.
func FuzzPick(f *testing.F) {
	f.Add("Changelog", "https://example.org/changes", "Source", "https://github.com/numba/numba")
	f.Add("Release Notes", "https://a.example/x)](y)", "Homepage", "https://github.com/a/b.git")
	f.Add("changelog", "javascript:alert(1)", "Repository", "https://u:p@github.com/a/b")
	f.Fuzz(func(t *testing.T, k1, v1, k2, v2 string) {
		l := upstream.Pick(map[string]string{k1: v1, k2: v2})
		for _, u := range []string{l.Changelog, l.ReleaseNotes, l.Source} {
			if u == "" {
				continue
			}
			p, err := url.Parse(u)
			if err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.User != nil || p.Host == "" {
				t.Fatalf("unsafe link %q from %q", u, []string{v1, v2})
			}
			if strings.ContainsAny(u, " \t\n\r()<>[]\"'`|\\") {
				t.Fatalf("link %q holds a link breaker", u)
			}
		}
		if l.Repo != "" && strings.Count(l.Repo, "/") != 1 {
			t.Fatalf("repo %q", l.Repo)
		}
	})
}
