// Package pypi reads releases from a Python package index: PyPI's JSON API
// (https://docs.pypi.org/api/json/) or the simple repository API that every
// index serves (devpi, Artifactory, Nexus, GitLab, a private mirror), in its
// PEP 691 JSON form with PEP 700's additions
// (https://peps.python.org/pep-0691/, https://peps.python.org/pep-0700/,
// https://packaging.python.org/en/latest/specifications/simple-repository-api/),
// or in its PEP 503 HTML form when an index serves nothing else.
//
// Every release comes with its files: sha256 digests, sizes, upload times,
// requires-python, yanked status and reason (PEP 592), and, for wheels, the
// compatibility tags read from the filename. SHA256s lists a release's hashes
// for requirements files with --hash options.
package pypi

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/pinbot-dev/pinbot/internal/pep503"
	"github.com/pinbot-dev/pinbot/sources"
	"github.com/pinbot-dev/pinbot/web"
)

// Name is the source's identifier.
const Name = "pypi"

// Scheme is the version scheme of Python package versions.
const Scheme = "pep440"

// The APIs a Source can read.
const (
	JSONAPI   = "json"   // /pypi/NAME/json
	SimpleAPI = "simple" // /simple/NAME/ (PEP 691, PEP 700; PEP 503 HTML as a fallback)
)

// A Source lists releases from one Python package index.
type Source struct {
	base string // JSON API: the host ("https://pypi.org"); simple API: the index URL
	api  string
	hc   *http.Client
}

var (
	_ sources.Source  = (*Source)(nil)
	_ sources.Schemer = (*Source)(nil)
)

// New returns a source reading PyPI's JSON API at baseURL ("https://pypi.org")
// through hc.
func New(baseURL string, hc *http.Client) *Source {
	return &Source{base: strings.TrimRight(baseURL, "/"), api: JSONAPI, hc: hc}
}

// NewSimple returns a source reading the simple repository API of the index at
// indexURL through hc. indexURL is the index's simple root
// ("https://pypi.org/simple", devpi's ".../+simple", Artifactory's
// ".../api/pypi/REPO/simple"); a URL with no path gets "/simple".
func NewSimple(indexURL string, hc *http.Client) *Source {
	base := strings.TrimRight(indexURL, "/")
	if u, err := url.Parse(base); err == nil && (u.Path == "" || u.Path == "/") {
		base += "/simple"
	}
	return &Source{base: base, api: SimpleAPI, hc: hc}
}

// Name returns "pypi".
func (*Source) Name() string { return Name }

// IndexURL returns the index's simple root, what pip takes as --index-url:
// the simple URL given to NewSimple, or BASE/simple for a JSON API at BASE.
func (s *Source) IndexURL() string {
	if s.api == SimpleAPI {
		return s.base
	}
	return s.base + "/simple"
}

// Scheme returns "pep440".
func (*Source) Scheme() string { return Scheme }

// Releases returns every release of pkg with its files. A release whose files
// are all yanked is yanked; a release with no files is returned with none.
func (s *Source) Releases(ctx context.Context, pkg string) ([]sources.Release, error) {
	if s.api == SimpleAPI {
		return s.simple(ctx, pkg)
	}
	u := s.base + "/pypi/" + url.PathEscape(pep503.Normalize(pkg)) + "/json"
	_, body, err := web.Get(ctx, s.hc, u, http.Header{"Accept": {"application/json"}})
	if err != nil {
		return nil, err
	}
	rs, err := decodeProject(u, body)
	if err == errNoReleases {
		// Warehouse may drop the deprecated "releases" key; the simple API on
		// the same host lists every version.
		return NewSimple(s.base, s.hc).Releases(ctx, pkg)
	}
	return rs, err
}

// Release returns one release of pkg: from /pypi/NAME/VERSION/json with the
// JSON API, from the project page with the simple API. A version the index
// does not have gives an error wrapping sources.ErrNotFound.
func (s *Source) Release(ctx context.Context, pkg, version string) (sources.Release, error) {
	if s.api == SimpleAPI {
		rs, err := s.simple(ctx, pkg)
		if err != nil {
			return sources.Release{}, err
		}
		for _, r := range rs {
			if r.Version == version {
				return r, nil
			}
		}
		return sources.Release{}, fmt.Errorf("%s %s: no such version on %s: %w", pkg, version, web.Redact(s.base), sources.ErrNotFound)
	}
	u := s.base + "/pypi/" + url.PathEscape(pep503.Normalize(pkg)) + "/" + url.PathEscape(version) + "/json"
	_, body, err := web.Get(ctx, s.hc, u, http.Header{"Accept": {"application/json"}})
	if err != nil {
		return sources.Release{}, err
	}
	return decodeVersion(u, version, body)
}

// ProjectURLs returns what a release says of its project's pages: label →
// URL, as the JSON API's info.project_urls holds them (the metadata's
// Project-URL fields: "Changelog", "Source", ...). They are the release
// author's text, unchecked. The simple API publishes none: nil, no error.
func (s *Source) ProjectURLs(ctx context.Context, pkg, version string) (map[string]string, error) {
	if s.api == SimpleAPI {
		return nil, nil
	}
	u := s.base + "/pypi/" + url.PathEscape(pep503.Normalize(pkg)) + "/" + url.PathEscape(version) + "/json"
	_, body, err := web.Get(ctx, s.hc, u, http.Header{"Accept": {"application/json"}})
	if err != nil {
		return nil, err
	}
	return decodeProjectURLs(u, body)
}

// Hashes returns the sha256 digests of the files of one release, the hashes a
// requirements file's --hash options list for it.
func (s *Source) Hashes(ctx context.Context, pkg, version string) ([]string, error) {
	r, err := s.Release(ctx, pkg, version)
	if err != nil {
		return nil, err
	}
	return sources.SHA256s(r), nil
}
