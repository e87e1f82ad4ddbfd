package conda

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"path"
	"strings"
	"time"

	"github.com/pinbot-dev/pinbot/sources"
	"github.com/pinbot-dev/pinbot/web"
)

// apiPackage is the part of /package/CHANNEL/NAME pinbot reads.
type apiPackage struct {
	Name     string    `json:"name"`
	Versions []string  `json:"versions"` // unsorted, with repeats
	Files    []apiFile `json:"files"`
}

type apiFile struct {
	Basename    string   `json:"basename"` // "linux-64/numba-0.61.0-py312h….conda"
	Version     string   `json:"version"`
	Labels      []string `json:"labels"`
	UploadTime  string   `json:"upload_time"` // "2020-02-28 11:46:01.948000+00:00"
	SHA256      string   `json:"sha256"`      // may be the literal "None"
	Size        int64    `json:"size"`
	DownloadURL string   `json:"download_url"` // scheme-relative
	Attrs       struct {
		Subdir      string     `json:"subdir"`
		SHA256      string     `json:"sha256"`
		Size        int64      `json:"size"`
		Timestamp   flexNumber `json:"timestamp"`
		Build       string     `json:"build"`
		BuildNumber flexNumber `json:"build_number"`
		Depends     []string   `json:"depends"`
	} `json:"attrs"`
}

// flexNumber reads a number that may come as a string or null.
type flexNumber int64

// UnmarshalJSON accepts 1541443263263, "1541443263263", 1.5e12 and null.
func (n *flexNumber) UnmarshalJSON(b []byte) error {
	b = bytes.Trim(bytes.TrimSpace(b), `"`)
	if len(b) == 0 || string(b) == "null" {
		*n = 0
		return nil
	}
	var f float64
	if err := json.Unmarshal(b, &f); err != nil {
		return fmt.Errorf("timestamp: expected a number, found %.40q", b)
	}
	*n = flexNumber(f)
	return nil
}

func (s *Source) fromAPI(ctx context.Context, pkg string) ([]sources.Release, error) {
	u := s.opts.APIURL + "/package/" + url.PathEscape(s.owner()) + "/" + url.PathEscape(pkg)
	body, err := web.GetWithin(ctx, s.hc, u, http.Header{"Accept": {"application/json"}})
	if err != nil {
		return nil, err
	}
	return decodeAPI(u, body, s.opts.Labels)
}

// decodeAPI reads an anaconda.org package document fetched from u, counting
// files with one of labels.
func decodeAPI(u string, body []byte, labels []string) ([]sources.Release, error) {
	var p apiPackage
	if err := web.DecodeJSON(u, body, &p); err != nil {
		return nil, err
	}
	if p.Name == "" || p.Files == nil {
		return nil, fmt.Errorf("%s: the response has no \"name\" or \"files\" (is this the anaconda.org API?)", web.Redact(u))
	}
	if len(p.Versions) > sources.MaxReleases {
		return nil, fmt.Errorf("%s: %d versions (limit %d)", web.Redact(u), len(p.Versions), sources.MaxReleases)
	}
	base, err := url.Parse(u)
	if err != nil {
		return nil, err
	}
	var files []sources.File
	var vers []string
	for _, f := range p.Files {
		counted, broken := false, false
		for _, l := range f.Labels {
			counted = counted || contains(labels, l)
			broken = broken || l == "broken"
		}
		if !counted && !broken {
			continue
		}
		if len(f.Attrs.Depends) > maxDepends {
			return nil, fmt.Errorf("%s: %s has %d depends (limit %d)", web.Redact(u), f.Basename, len(f.Attrs.Depends), maxDepends)
		}
		sf := sources.File{
			Name: path.Base(f.Basename), Size: f.Size, Kind: sources.KindConda, Yanked: broken,
			Subdir: f.Attrs.Subdir, SHA256: strings.ToLower(f.SHA256),
			Build: f.Attrs.Build, BuildNumber: int(max(f.Attrs.BuildNumber, 0)), Depends: f.Attrs.Depends,
		}
		if sf.Size <= 0 {
			sf.Size = max(f.Attrs.Size, 0)
		}
		if sf.Build == "" {
			_, _, sf.Build, _ = splitFilename(sf.Name)
		}
		if sf.SHA256 == "none" || sf.SHA256 == "" {
			sf.SHA256 = strings.ToLower(f.Attrs.SHA256)
		}
		if sf.Subdir == "" {
			sf.Subdir, _, _ = strings.Cut(f.Basename, "/")
		}
		if f.DownloadURL != "" {
			if d, ok := web.ResolveFile(base, f.DownloadURL); ok { // "//host/..." takes the API's scheme
				sf.URL = d
			}
		}
		sf.Time = millis(int64(f.Attrs.Timestamp))
		if sf.Time.IsZero() {
			sf.Time = parseUploadTime(f.UploadTime)
		}
		files = append(files, sf)
		vers = append(vers, f.Version)
	}
	return group(files, func(i int) string { return vers[i] }, p.Versions), nil
}

// parseUploadTime reads anaconda.org's space-separated timestamps.
func parseUploadTime(s string) time.Time {
	for _, layout := range []string{"2006-01-02 15:04:05.999999-07:00", "2006-01-02 15:04:05-07:00", time.RFC3339Nano} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC()
		}
	}
	return time.Time{}
}
