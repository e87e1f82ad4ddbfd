package probe

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// dirPage is the validator key of a local wheel directory (--find-links),
// which stands for every page.
const dirPage = "*dir"

// maxPage bounds an index page read for its digest.
const maxPage = 64 << 20

// pagesBase is where the installer reads index pages: a simple-index URL, or a
// local directory ("dir:" + path). It is "" when the installer takes its index
// from the caller's settings, which pinbot cannot follow (pip configuration
// files, extra indexes): then the installer is asked every run.
func pagesBase(opts *Options) string {
	switch {
	case opts.Index != "" && isLocalDir(opts.Index):
		return "dir:" + strings.TrimPrefix(opts.Index, "file://")
	case opts.Index != "":
		return strings.TrimSuffix(opts.Index, "/") + "/"
	}
	return ""
}

// unchanged revalidates the pages the resolution of dists read against their
// stored validators. ok is true only when every page was asked and none has
// changed; the validators returned are the current ones.
func unchanged(ctx context.Context, opts *Options, dists []Dist, stored map[string]pageValidator) (map[string]pageValidator, bool) {
	if stored == nil || pagesBase(opts) == "" {
		return nil, false
	}
	if dir, ok := strings.CutPrefix(pagesBase(opts), "dir:"); ok {
		fp, err := dirFingerprint(dir)
		return map[string]pageValidator{dirPage: {SHA256: fp}}, err == nil && stored[dirPage].SHA256 == fp
	}
	answers := fetchPages(ctx, opts, dists, stored)
	out := map[string]pageValidator{}
	for _, a := range answers {
		if a.err != nil || a.changed {
			return nil, false
		}
		out[a.name] = a.v
	}
	return out, true
}

// validators fetches the current validators of the pages of dists; ok is false
// when one could not be fetched.
func validators(ctx context.Context, opts *Options, dists []Dist) (map[string]pageValidator, bool) {
	base := pagesBase(opts)
	if base == "" {
		return nil, false
	}
	if dir, ok := strings.CutPrefix(base, "dir:"); ok {
		fp, err := dirFingerprint(dir)
		return map[string]pageValidator{dirPage: {SHA256: fp}}, err == nil
	}
	out := map[string]pageValidator{}
	for _, a := range fetchPages(ctx, opts, dists, nil) {
		if a.err != nil {
			return nil, false
		}
		out[a.name] = a.v
	}
	return out, true
}

type pageAnswer struct {
	name    string
	v       pageValidator
	changed bool // differs from the stored validator (or none was stored)
	err     error
}

// fetchPages asks for the index page of each distribution, conditionally when
// a validator is stored, eight at a time.
func fetchPages(ctx context.Context, opts *Options, dists []Dist, stored map[string]pageValidator) []pageAnswer {
	client := opts.HTTPClient
	if client == nil {
		client = &http.Client{Timeout: 30 * time.Second}
	}
	base := pagesBase(opts)
	answers := make([]pageAnswer, len(dists))
	sem := make(chan struct{}, 8)
	var wg sync.WaitGroup
	for i, d := range dists {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			name := normName(d.Name)
			old, had := stored[name]
			v, notModified, err := fetchPage(ctx, client, base+name+"/", old)
			a := pageAnswer{name: name, v: v, err: err}
			switch {
			case err != nil:
			case notModified:
				a.v = old
			default:
				a.changed = !had || old.SHA256 == "" || old.SHA256 != v.SHA256
			}
			answers[i] = a
		}()
	}
	wg.Wait()
	return answers
}

// fetchPage GETs one index page, conditionally on old's validators. It
// returns the page's validators, or notModified for a 304.
func fetchPage(ctx context.Context, client *http.Client, url string, old pageValidator) (v pageValidator, notModified bool, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return v, false, err
	}
	// The same representation every time, so that digests compare.
	req.Header.Set("Accept", "application/vnd.pypi.simple.v1+json, application/vnd.pypi.simple.v1+html;q=0.2, text/html;q=0.01")
	if old.ETag != "" {
		req.Header.Set("If-None-Match", old.ETag)
	}
	if old.LastModified != "" {
		req.Header.Set("If-Modified-Since", old.LastModified)
	}
	resp, err := client.Do(req)
	if err != nil {
		return v, false, err
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusNotModified && (old.ETag != "" || old.LastModified != ""):
		return old, true, nil
	case resp.StatusCode != http.StatusOK:
		return v, false, fmt.Errorf("%s: %s", redactURL(url), resp.Status)
	}
	h := sha256.New()
	n, err := io.Copy(h, io.LimitReader(resp.Body, maxPage+1))
	if err != nil {
		return v, false, err
	}
	if n > maxPage {
		return v, false, fmt.Errorf("%s: page larger than %d bytes", redactURL(url), maxPage)
	}
	return pageValidator{ETag: resp.Header.Get("ETag"), LastModified: resp.Header.Get("Last-Modified"),
		SHA256: hex.EncodeToString(h.Sum(nil))}, false, nil
}

// dirFingerprint is a digest of a wheel directory's listing (names, sizes and
// modification times): what pip --find-links reads.
func dirFingerprint(dir string) (string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", err
	}
	var lines []string
	for _, e := range entries {
		fi, err := os.Stat(filepath.Join(dir, e.Name()))
		if err != nil {
			return "", err
		}
		lines = append(lines, fmt.Sprintf("%q %d %d", e.Name(), fi.Size(), fi.ModTime().UnixNano()))
	}
	slices.Sort(lines)
	sum := sha256.Sum256([]byte(strings.Join(lines, "\n")))
	return hex.EncodeToString(sum[:]), nil
}
