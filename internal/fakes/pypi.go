// Package fakes provides in-process fakes of the services pinbot talks to, for
// tests: they serve realistic payloads with the real services' status codes,
// headers and quirks, and can inject faults.
package fakes

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// A Fault is an injected failure for the next request to a path.
type Fault struct {
	Status int               // status to answer with (default 200)
	Header map[string]string // extra headers, such as Retry-After
	Body   string            // body to send instead of the real one
	// Truncate sends the real body cut in half, with the full Content-Length,
	// then closes the connection.
	Truncate bool
	// Hang waits this long (or until the client gives up) before answering.
	Hang time.Duration
}

// A Release is one version of a fake project.
type Release struct {
	Version string
	// NoFiles gives the release no files (PyPI lists such versions).
	NoFiles      bool
	Yanked       bool
	YankedReason string
	Uploaded     time.Time
}

// PyPI is a fake PyPI JSON API (https://docs.pypi.org/api/json/).
type PyPI struct {
	*httptest.Server

	mu       sync.Mutex
	projects map[string][]Release
	faults   map[string][]Fault
	requests []string
}

var normRE = regexp.MustCompile(`[-_.]+`)

func norm(name string) string { return normRE.ReplaceAllString(strings.ToLower(name), "-") }

// NewPyPI starts a fake PyPI that is closed when the test ends.
func NewPyPI(t testing.TB) *PyPI {
	p := &PyPI{projects: map[string][]Release{}, faults: map[string][]Fault{}}
	p.Server = httptest.NewServer(http.HandlerFunc(p.serve))
	t.Cleanup(p.Close)
	return p
}

// Add adds (or replaces) a project.
func (p *PyPI) Add(name string, rs ...Release) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.projects[norm(name)] = rs
}

// Remove removes a project: requests for it get PyPI's 404.
func (p *PyPI) Remove(name string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.projects, norm(name))
}

// Fail queues faults for the next requests to path (such as "/pypi/numba/json").
func (p *PyPI) Fail(path string, fs ...Fault) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.faults[path] = append(p.faults[path], fs...)
}

// Requests returns the paths requested so far.
func (p *PyPI) Requests() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.requests...)
}

var projectPath = regexp.MustCompile(`^/pypi/([^/]+)/json$`)

func (p *PyPI) serve(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	p.requests = append(p.requests, r.URL.Path)
	var fault *Fault
	if q := p.faults[r.URL.Path]; len(q) > 0 {
		fault, p.faults[r.URL.Path] = &q[0], q[1:]
	}
	p.mu.Unlock()

	m := projectPath.FindStringSubmatch(r.URL.Path)
	if m == nil {
		http.NotFound(w, r)
		return
	}
	if n := norm(m[1]); n != m[1] {
		// PyPI redirects to the normalised name.
		http.Redirect(w, r, "/pypi/"+n+"/json", http.StatusMovedPermanently)
		return
	}
	p.mu.Lock()
	rs, ok := p.projects[m[1]]
	p.mu.Unlock()
	status, body := http.StatusOK, []byte(nil)
	if ok {
		body = projectJSON(m[1], rs, p.URL)
	} else {
		status, body = http.StatusNotFound, []byte(`{"message": "Not Found"}`)
	}
	w.Header().Set("Content-Type", "application/json")
	if fault != nil && applyFault(w, r, fault, body) {
		return
	}
	sum := sha256.Sum256(body)
	etag := `"` + hex.EncodeToString(sum[:8]) + `"`
	w.Header().Set("ETag", etag)
	w.Header().Set("X-PyPI-Last-Serial", "22406780")
	if status == http.StatusOK && r.Header.Get("If-None-Match") == etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	w.WriteHeader(status)
	w.Write(body)
}

// applyFault answers per f and reports whether the response is complete.
func applyFault(w http.ResponseWriter, r *http.Request, f *Fault, body []byte) bool {
	if f.Hang > 0 {
		select {
		case <-time.After(f.Hang):
		case <-r.Context().Done():
			return true
		}
	}
	for k, v := range f.Header {
		w.Header().Set(k, v)
	}
	switch {
	case f.Truncate:
		w.Header().Set("Content-Length", fmt.Sprint(len(body)))
		w.WriteHeader(http.StatusOK)
		w.Write(body[:len(body)/2])
		if h, ok := w.(http.Hijacker); ok {
			if conn, _, err := h.Hijack(); err == nil {
				conn.Close()
			}
		}
		return true
	case f.Body != "" || f.Status != 0:
		if strings.HasPrefix(f.Body, "<") {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
		}
		w.WriteHeader(max(f.Status, http.StatusOK))
		w.Write([]byte(f.Body))
		return true
	}
	return f.Hang > 0 && r.Context().Err() != nil
}

type pypiFile struct {
	CommentText       string            `json:"comment_text"`
	Digests           map[string]string `json:"digests"`
	Downloads         int               `json:"downloads"`
	Filename          string            `json:"filename"`
	HasSig            bool              `json:"has_sig"`
	MD5Digest         string            `json:"md5_digest"`
	PackageType       string            `json:"packagetype"`
	PythonVersion     string            `json:"python_version"`
	RequiresPython    *string           `json:"requires_python"`
	Size              int64             `json:"size"`
	UploadTime        string            `json:"upload_time"`
	UploadTimeISO8601 string            `json:"upload_time_iso_8601"`
	URL               string            `json:"url"`
	Yanked            bool              `json:"yanked"`
	YankedReason      *string           `json:"yanked_reason"`
}

// files returns an sdist and a manylinux wheel for a release, shaped like PyPI's.
func files(name string, r Release, base string) []pypiFile {
	if r.NoFiles {
		return []pypiFile{}
	}
	up := r.Uploaded
	if up.IsZero() {
		up = time.Date(2026, 8, 11, 12, 30, 5, 123456000, time.UTC)
	}
	rp := ">=3.10"
	var reason *string
	if r.Yanked && r.YankedReason != "" {
		reason = &r.YankedReason
	}
	mk := func(fn, kind, py string, size int64) pypiFile {
		sum := sha256.Sum256([]byte(fn))
		md5 := hex.EncodeToString(sum[:16])
		return pypiFile{
			Digests:  map[string]string{"blake2b_256": hex.EncodeToString(sum[:]), "md5": md5, "sha256": hex.EncodeToString(sum[:])},
			Filename: fn, MD5Digest: md5, PackageType: kind, PythonVersion: py, RequiresPython: &rp,
			Downloads: -1, Size: size,
			UploadTime: up.Format("2006-01-02T15:04:05"), UploadTimeISO8601: up.Format("2006-01-02T15:04:05.000000Z"),
			URL:    base + "/packages/" + hex.EncodeToString(sum[:2]) + "/" + fn,
			Yanked: r.Yanked, YankedReason: reason,
		}
	}
	mod := strings.ReplaceAll(name, "-", "_")
	return []pypiFile{
		mk(fmt.Sprintf("%s-%s.tar.gz", mod, r.Version), "sdist", "source", 2_845_321),
		mk(fmt.Sprintf("%s-%s-cp312-cp312-manylinux2014_x86_64.manylinux_2_17_x86_64.whl", mod, r.Version), "bdist_wheel", "cp312", 3_923_101),
	}
}

func projectJSON(name string, rs []Release, base string) []byte {
	releases := map[string][]pypiFile{}
	latest := ""
	for _, r := range rs {
		releases[r.Version] = files(name, r, base)
		if !r.NoFiles && !r.Yanked && !strings.ContainsAny(r.Version, "abcd") {
			latest = r.Version // PyPI's info.version: the newest final release, in upload order
		}
	}
	doc := map[string]any{
		"info": map[string]any{
			"name": name, "version": latest, "summary": "compiling Python code using LLVM",
			"requires_python": ">=3.10", "requires_dist": []string{"llvmlite<0.50,>=0.49.0dev0", "numpy<2.6,>=1.22"},
			"yanked": false, "yanked_reason": nil, "bugtrack_url": nil, "downloads": map[string]int{"last_day": -1},
		},
		"last_serial":     22406780,
		"releases":        releases,
		"urls":            releases[latest],
		"vulnerabilities": []any{},
	}
	b, _ := json.Marshal(doc)
	return b
}

// NumbaReleases is numba's release history as PyPI lists it around 2026-08-21,
// with pre-releases (tagged like 0.63.0b1 and 0.67.0rc1).
func NumbaReleases() []Release {
	day := func(s string) time.Time { t, _ := time.Parse("2006-01-02", s); return t.Add(14 * time.Hour) }
	return []Release{
		{Version: "0.56.4", Uploaded: day("2022-11-03")},
		{Version: "0.57.0", Uploaded: day("2023-05-01")},
		{Version: "0.57.1", Uploaded: day("2023-06-21")},
		{Version: "0.58.0", Uploaded: day("2023-09-20")},
		{Version: "0.58.1", Uploaded: day("2023-10-17")},
		{Version: "0.59.0", Uploaded: day("2024-01-31")},
		{Version: "0.59.1", Uploaded: day("2024-03-18")},
		{Version: "0.60.0", Uploaded: day("2024-06-13")},
		{Version: "0.61.0", Uploaded: day("2025-01-16")},
		{Version: "0.61.1", Uploaded: day("2025-04-07"), NoFiles: true},
		{Version: "0.61.2", Uploaded: day("2025-04-07")},
		{Version: "0.62.0", Uploaded: day("2025-09-18")},
		{Version: "0.62.1", Uploaded: day("2025-09-26")},
		{Version: "0.63.0b1", Uploaded: day("2025-11-20")},
		{Version: "0.63.0", Uploaded: day("2025-12-08")},
		{Version: "0.63.1", Uploaded: day("2025-12-09")},
		{Version: "0.64.0", Uploaded: day("2026-02-17")},
		{Version: "0.65.0", Uploaded: day("2026-03-31")},
		{Version: "0.65.1", Uploaded: day("2026-04-23")},
		{Version: "0.66.0", Uploaded: day("2026-07-01")},
		{Version: "0.67.0rc1", Uploaded: day("2026-07-20")},
		{Version: "0.67.0", Uploaded: day("2026-08-11")},
		{Version: "0.68.0.dev0", Uploaded: day("2026-08-20")},
	}
}
