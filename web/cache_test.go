package web_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pinbot-dev/pinbot/web"
)

// origin is a server with an ETag per path that records conditional requests.
type origin struct {
	*httptest.Server
	requests, conditional, notModified atomic.Int32
	mu                                 sync.Mutex
	version                            map[string]string // path -> ETag suffix
	header                             map[string]string // extra response headers
}

func newOrigin(t *testing.T) *origin {
	o := &origin{version: map[string]string{}, header: map[string]string{}}
	o.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		o.requests.Add(1)
		o.mu.Lock()
		v := o.version[r.URL.Path]
		for k, val := range o.header {
			w.Header().Set(k, val)
		}
		o.mu.Unlock()
		body := fmt.Sprintf("body of %s v%s for %s", r.URL.Path, v, r.Header.Get("Accept"))
		etag := `"` + v + r.Header.Get("Accept") + `"`
		if w.Header().Get("Last-Modified") == "" {
			w.Header().Set("ETag", etag)
		}
		if inm := r.Header.Get("If-None-Match"); inm != "" || r.Header.Get("If-Modified-Since") != "" {
			o.conditional.Add(1)
			if inm == etag || (inm == "" && r.Header.Get("If-Modified-Since") == w.Header().Get("Last-Modified")) {
				o.notModified.Add(1)
				w.WriteHeader(http.StatusNotModified)
				return
			}
		}
		w.Write([]byte(body))
	}))
	t.Cleanup(o.Close)
	return o
}

func (o *origin) set(path, v string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.version[path] = v
}

func cachedClient(t *testing.T, dir string) (*http.Client, *web.Cache) {
	p := web.DefaultPolicy
	p.BaseDelay, p.MaxDelay = time.Millisecond, time.Millisecond
	c := web.NewCache(dir, web.NewTransport(nil, p, web.UserAgent("test"), nil), nil)
	return &http.Client{Transport: c}, c
}

func get(t *testing.T, hc *http.Client, url string, hdr ...string) (string, string) {
	t.Helper()
	h := http.Header{}
	for i := 0; i+1 < len(hdr); i += 2 {
		h.Set(hdr[i], hdr[i+1])
	}
	resp, body, err := web.Get(context.Background(), hc, url, h)
	if err != nil {
		t.Fatal(err)
	}
	return string(body), resp.Header.Get(web.CacheHeader)
}

func TestCacheRevalidates(t *testing.T) {
	o := newOrigin(t)
	dir := t.TempDir()
	hc, _ := cachedClient(t, dir)
	b1, how1 := get(t, hc, o.URL+"/pypi/numba/json", "Accept", "application/json")
	b2, how2 := get(t, hc, o.URL+"/pypi/numba/json", "Accept", "application/json")
	if b1 != b2 || how1 != "" || how2 != "revalidated" {
		t.Fatalf("first %q (%s), second %q (%s)", b1, how1, b2, how2)
	}
	if o.requests.Load() != 2 || o.notModified.Load() != 1 {
		t.Errorf("%d requests, %d answered 304; want 2 and 1", o.requests.Load(), o.notModified.Load())
	}
	// A new release changes the ETag: the new body replaces the entry.
	o.set("/pypi/numba/json", "2")
	b3, how3 := get(t, hc, o.URL+"/pypi/numba/json", "Accept", "application/json")
	b4, how4 := get(t, hc, o.URL+"/pypi/numba/json", "Accept", "application/json")
	if !strings.Contains(b3, "v2") || how3 != "" || b4 != b3 || how4 != "revalidated" {
		t.Errorf("after a change: %q (%s), then %q (%s)", b3, how3, b4, how4)
	}
	// A fresh client over the same directory (the next run) revalidates too.
	hc2, _ := cachedClient(t, dir)
	if b, how := get(t, hc2, o.URL+"/pypi/numba/json", "Accept", "application/json"); b != b3 || how != "revalidated" {
		t.Errorf("next run: %q (%s)", b, how)
	}
}

func TestCacheLastModified(t *testing.T) {
	o := newOrigin(t)
	o.header["Last-Modified"] = "Mon, 17 Aug 2026 10:00:00 GMT"
	hc, _ := cachedClient(t, t.TempDir())
	get(t, hc, o.URL+"/x")
	if _, how := get(t, hc, o.URL+"/x"); how != "revalidated" || o.notModified.Load() != 1 {
		t.Errorf("how %q, %d 304s", how, o.notModified.Load())
	}
}

func TestCacheKeyedByAccept(t *testing.T) {
	o := newOrigin(t)
	hc, _ := cachedClient(t, t.TempDir())
	jsonBody, _ := get(t, hc, o.URL+"/simple/numba/", "Accept", "application/vnd.pypi.simple.v1+json")
	htmlBody, how := get(t, hc, o.URL+"/simple/numba/", "Accept", "text/html")
	if jsonBody == htmlBody || how != "" {
		t.Errorf("one entry served two Accept headers: %q, %q (%s)", jsonBody, htmlBody, how)
	}
}

func TestCacheNeverStores(t *testing.T) {
	tests := []struct {
		name string
		ctx  func(context.Context) context.Context
		path string
		hdr  []string
		resp map[string]string
	}{
		{name: "Authorization", path: "/private/", hdr: []string{"Authorization", "Bearer sekrit"}},
		{name: "secret URL", path: "/services/T0/B0/XXXX", ctx: web.WithSecretURL},
		{name: "query", path: "/x?private_token=abc"},
		{name: "no-store", path: "/x", resp: map[string]string{"Cache-Control": "no-store"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := newOrigin(t)
			for k, v := range tt.resp {
				o.header[k] = v
			}
			dir := t.TempDir()
			hc, _ := cachedClient(t, dir)
			ctx := context.Background()
			if tt.ctx != nil {
				ctx = tt.ctx(ctx)
			}
			h := http.Header{}
			if tt.hdr != nil {
				h.Set(tt.hdr[0], tt.hdr[1])
			}
			for range 2 {
				if _, _, err := web.Get(ctx, hc, o.URL+tt.path, h); err != nil {
					t.Fatal(err)
				}
			}
			if o.conditional.Load() != 0 {
				t.Error("a conditional request was made")
			}
			if files := entries(t, dir); len(files) != 0 {
				t.Errorf("stored %v", files)
			}
		})
	}
}

func entries(t *testing.T, dir string) []string {
	var out []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			out = append(out, p)
		}
		return nil
	})
	return out
}

func TestCacheEntryBound(t *testing.T) {
	big := strings.Repeat("x", 4096)
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("ETag", `"1"`)
		w.Write([]byte(big))
	}))
	defer s.Close()
	dir := t.TempDir()
	hc, c := cachedClient(t, dir)
	c.MaxEntry = 1000
	if b, _ := get(t, hc, s.URL+"/big"); b != big {
		t.Errorf("body of %d bytes, want %d", len(b), len(big))
	}
	if files := entries(t, dir); len(files) != 0 {
		t.Errorf("an entry over the bound was stored: %v", files)
	}
}

func TestCacheImmutable(t *testing.T) {
	o := newOrigin(t)
	o.header["Cache-Control"] = "public, max-age=31536000, immutable"
	hc, c := cachedClient(t, t.TempDir())
	get(t, hc, o.URL+"/conda-forge/linux-64/shards/ab.msgpack.zst")
	if _, how := get(t, hc, o.URL+"/conda-forge/linux-64/shards/ab.msgpack.zst"); how != "hit" || o.requests.Load() != 1 {
		t.Errorf("how %q after %d requests; want a hit without a request", how, o.requests.Load())
	}
	// Past max-age, even an immutable entry is revalidated.
	c.Now = func() time.Time { return time.Now().Add(400 * 24 * time.Hour) }
	if _, how := get(t, hc, o.URL+"/conda-forge/linux-64/shards/ab.msgpack.zst"); how != "revalidated" {
		t.Errorf("stale immutable entry: %q", how)
	}
}

func TestCacheDamagedEntry(t *testing.T) {
	o := newOrigin(t)
	dir := t.TempDir()
	hc, _ := cachedClient(t, dir)
	want, _ := get(t, hc, o.URL+"/x")
	for _, f := range entries(t, dir) {
		b, _ := os.ReadFile(f)
		os.WriteFile(f, b[:len(b)-3], 0o600) // cut short, as by a crash without atomic writes
	}
	if b, how := get(t, hc, o.URL+"/x"); b != want || how != "" || o.conditional.Load() != 0 {
		t.Errorf("damaged entry used: %q (%s)", b, how)
	}
}

func TestCacheConcurrent(t *testing.T) {
	o := newOrigin(t)
	dir := t.TempDir()
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			hc, _ := cachedClient(t, dir)
			for j := range 10 {
				path := fmt.Sprintf("/p%d", (i+j)%4)
				resp, body, err := web.Get(context.Background(), hc, o.URL+path, nil)
				if err != nil || !strings.HasPrefix(string(body), "body of "+path+" ") || resp.StatusCode != 200 {
					t.Errorf("%s: %q, %v", path, body, err)
				}
			}
		})
	}
	wg.Wait()
	if n := len(entries(t, dir)); n != 4 {
		t.Errorf("%d entries (or leftover temporary files), want 4", n)
	}
}

// TestGzip checks that the layer leaves Accept-Encoding to Go's transport, which
// asks for gzip and decompresses, with and without the cache.
func TestGzip(t *testing.T) {
	want := strings.Repeat(`{"releases": {}}`, 200)
	var sawGzip atomic.Int32
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
			w.Write([]byte(want))
			return
		}
		sawGzip.Add(1)
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		zw.Write([]byte(want))
		zw.Close()
		w.Header().Set("Content-Encoding", "gzip")
		w.Header().Set("ETag", `"g"`)
		w.Write(buf.Bytes())
	}))
	defer s.Close()
	plain, _ := client(web.DefaultPolicy, nil)
	cached, _ := cachedClient(t, t.TempDir())
	for _, hc := range []*http.Client{plain, cached, cached} {
		resp, body, err := web.Get(context.Background(), hc, s.URL, nil)
		if err != nil || string(body) != want || resp.Header.Get("Content-Encoding") != "" {
			t.Fatalf("body %d bytes, %v, Content-Encoding %q", len(body), err, resp.Header.Get("Content-Encoding"))
		}
	}
	if sawGzip.Load() != 3 {
		t.Errorf("%d of 3 requests asked for gzip", sawGzip.Load())
	}
	// What crossed the wire was the compressed form.
	req, _ := http.NewRequest("GET", s.URL, nil)
	req.Header.Set("Accept-Encoding", "gzip")
	resp, err := (&http.Transport{DisableCompression: true}).RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if len(raw) >= len(want)/5 {
		t.Errorf("gzip body %d bytes for %d", len(raw), len(want))
	}
}

// TestCachePrune: entries not used since the cutoff go; entries a request
// used (revalidated or not) stay; other stores in the directory are left alone.
func TestCachePrune(t *testing.T) {
	o := newOrigin(t)
	dir := t.TempDir()
	hc, c := cachedClient(t, dir)
	get(t, hc, o.URL+"/old")
	get(t, hc, o.URL+"/used")
	other := filepath.Join(dir, "artifacts", "keep.whl")
	os.MkdirAll(filepath.Dir(other), 0o755)
	os.WriteFile(other, nil, 0o644)
	long := time.Now().AddDate(0, 0, -40)
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			os.Chtimes(p, long, long)
		}
		return nil
	})
	get(t, hc, o.URL+"/used") // answered 304 from the entry: a use
	n, err := c.Prune(time.Now().AddDate(0, 0, -28))
	if err != nil || n != 1 {
		t.Fatalf("Prune = %d, %v; want 1", n, err)
	}
	if _, src := get(t, hc, o.URL+"/used"); src == "" || src == "miss" {
		t.Errorf("the used entry was pruned (%q)", src)
	}
	if _, err := os.Stat(other); err != nil {
		t.Error("Prune removed a file outside its entries")
	}
}
