package pypi

import (
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/pinbot-dev/pinbot/sources"
	"github.com/pinbot-dev/pinbot/web"
)

// project is the part of /pypi/<name>/json pinbot reads.
type project struct {
	Info struct {
		Name         string  `json:"name"`
		Version      string  `json:"version"`
		Yanked       bool    `json:"yanked"`
		YankedReason *string `json:"yanked_reason"`
		// RequiresDist is the release's Requires-Dist metadata; null when
		// it declares none.
		RequiresDist []string `json:"requires_dist"`
		// ProjectURLs are the release's project URLs (label → URL, as its
		// metadata's Project-URL fields give them); null when none.
		ProjectURLs map[string]string `json:"project_urls"`
	} `json:"info"`
	Releases map[string][]file `json:"releases"`
	URLs     []file            `json:"urls"`
}

type file struct {
	Filename       string  `json:"filename"`
	PackageType    string  `json:"packagetype"`
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

// errNoReleases is a project document without the deprecated "releases" key.
var errNoReleases = errors.New("no releases key")

// decodeProject reads a /pypi/NAME/json document fetched from u.
func decodeProject(u string, body []byte) ([]sources.Release, error) {
	var p project
	if err := web.DecodeJSON(u, body, &p); err != nil {
		return nil, err
	}
	if p.Releases == nil {
		if p.Info.Name != "" {
			return nil, errNoReleases
		}
		return nil, fmt.Errorf("%s: the response has no \"releases\" (is this a PyPI JSON API?)", web.Redact(u))
	}
	if len(p.Releases) > sources.MaxReleases {
		return nil, fmt.Errorf("%s: %d releases (limit %d)", web.Redact(u), len(p.Releases), sources.MaxReleases)
	}
	page, err := url.Parse(u)
	if err != nil {
		return nil, err
	}
	out := make([]sources.Release, 0, len(p.Releases))
	for v, files := range p.Releases {
		if v == "" {
			continue
		}
		out = append(out, release(page, v, files))
	}
	return out, nil
}

// decodeVersion reads a /pypi/NAME/VERSION/json document fetched from u.
func decodeVersion(u, version string, body []byte) (sources.Release, error) {
	var p project
	if err := web.DecodeJSON(u, body, &p); err != nil {
		return sources.Release{}, err
	}
	if p.Info.Version == "" || p.URLs == nil {
		return sources.Release{}, fmt.Errorf("%s: the response has no \"info.version\" or \"urls\" (is this a PyPI JSON API?)", web.Redact(u))
	}
	page, err := url.Parse(u)
	if err != nil {
		return sources.Release{}, err
	}
	r := release(page, p.Info.Version, p.URLs)
	if p.Info.Yanked {
		r.Yanked = true
		if p.Info.YankedReason != nil && r.YankedReason == "" {
			r.YankedReason = *p.Info.YankedReason
		}
	}
	return r, nil
}

// release builds a release from the JSON API's files, listed on page.
func release(page *url.URL, v string, files []file) sources.Release {
	fs := make([]sources.File, 0, len(files))
	reason := ""
	for _, f := range files {
		sf := sources.File{
			Name: f.Filename, URL: resolve(page, f.URL), SHA256: f.Digests.SHA256, Size: f.Size,
			Time: uploadTime(f), Yanked: f.Yanked,
		}
		if f.RequiresPython != nil {
			sf.RequiresPython = *f.RequiresPython
		}
		if f.Yanked && f.YankedReason != nil && reason == "" {
			reason = *f.YankedReason
		}
		classify(&sf, f.PackageType)
		fs = append(fs, sf)
	}
	return assemble(v, fs, reason)
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

// decodeProjectURLs reads info.project_urls of a /pypi/NAME/VERSION/json
// document fetched from u.
func decodeProjectURLs(u string, body []byte) (map[string]string, error) {
	var p project
	if err := web.DecodeJSON(u, body, &p); err != nil {
		return nil, err
	}
	if p.Info.Version == "" {
		return nil, fmt.Errorf("%s: the response has no \"info.version\" (is this a PyPI JSON API?)", web.Redact(u))
	}
	return p.Info.ProjectURLs, nil
}
