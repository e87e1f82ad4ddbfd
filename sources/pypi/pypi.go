// Package pypi reads releases from PyPI's JSON API
// (https://docs.pypi.org/api/json/), or from any index that serves the same API
// (a private mirror).
package pypi

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/pinbot-dev/pinbot/pins/pep508"
	"github.com/pinbot-dev/pinbot/sources"
	"github.com/pinbot-dev/pinbot/web"
)

// Name is the source's identifier.
const Name = "pypi"

// A Source lists releases from one PyPI-compatible index.
type Source struct {
	base string
	hc   *http.Client
}

var _ sources.Source = (*Source)(nil)

// New returns a source reading from the index at baseURL ("https://pypi.org")
// through hc.
func New(baseURL string, hc *http.Client) *Source {
	return &Source{base: strings.TrimRight(baseURL, "/"), hc: hc}
}

// Name returns "pypi".
func (*Source) Name() string { return Name }

// project is the part of /pypi/<name>/json pinbot reads.
type project struct {
	Info struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	} `json:"info"`
	Releases map[string][]file `json:"releases"`
}

type file struct {
	Filename       string  `json:"filename"`
	URL            string  `json:"url"`
	Size           int64   `json:"size"`
	UploadTime     string  `json:"upload_time"`
	UploadTimeISO  string  `json:"upload_time_iso_8601"`
	Yanked         bool    `json:"yanked"`
	YankedReason   *string `json:"yanked_reason"`
	RequiresPython *string `json:"requires_python"`
	Digests        struct {
		SHA256 string `json:"sha256"`
	} `json:"digests"`
}

// Releases returns every release of pkg with its files. A release whose files
// are all yanked is yanked; a release with no files is returned with none.
func (s *Source) Releases(ctx context.Context, pkg string) ([]sources.Release, error) {
	u := s.base + "/pypi/" + url.PathEscape(pep508.Normalize(pkg)) + "/json"
	_, body, err := web.Get(ctx, s.hc, u, http.Header{"Accept": {"application/json"}})
	if err != nil {
		return nil, err
	}
	var p project
	if err := web.DecodeJSON(u, body, &p); err != nil {
		return nil, err
	}
	if p.Releases == nil {
		return nil, fmt.Errorf("%s: the response has no \"releases\" (is this a PyPI JSON API?)", u)
	}
	out := make([]sources.Release, 0, len(p.Releases))
	for v, files := range p.Releases {
		r := sources.Release{Version: v}
		yanked := len(files) > 0
		for _, f := range files {
			sf := sources.File{
				Name: f.Filename, URL: f.URL, SHA256: f.Digests.SHA256, Size: f.Size,
				Time: uploadTime(f), Yanked: f.Yanked,
			}
			if f.RequiresPython != nil {
				sf.RequiresPython = *f.RequiresPython
			}
			if !f.Yanked {
				yanked = false
			} else if f.YankedReason != nil && r.YankedReason == "" {
				r.YankedReason = *f.YankedReason
			}
			if !sf.Time.IsZero() && (r.Time.IsZero() || sf.Time.Before(r.Time)) {
				r.Time = sf.Time
			}
			r.Files = append(r.Files, sf)
		}
		r.Yanked = yanked
		out = append(out, r)
	}
	return out, nil
}

// uploadTime reads the ISO time, or the older zone-less field as UTC.
func uploadTime(f file) time.Time {
	if t, err := time.Parse(time.RFC3339Nano, f.UploadTimeISO); err == nil {
		return t
	}
	if t, err := time.Parse("2006-01-02T15:04:05", f.UploadTime); err == nil {
		return t.UTC()
	}
	return time.Time{}
}
