package web

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// DefaultMaxEntry bounds the size of one cached response body.
const DefaultMaxEntry = 64 << 20

// CacheHeader is set on responses a Cache served from disk: "hit" when no
// request was made (an immutable entry), "revalidated" after a 304.
const CacheHeader = "X-Pinbot-Cache"

// A Cache is an http.RoundTripper that keeps responses on disk and revalidates
// them with conditional requests (If-None-Match from ETag, If-Modified-Since from
// Last-Modified), so that a run whose sources did not change downloads nothing
// but 304s. It wraps the retrying Transport: Cache → Transport → network.
//
// Only plain GETs are cached: never a request carrying Authorization or a
// Cookie, a URL with user information or a query, a secret URL (WithSecretURL),
// or a request that already carries its own conditional or Range headers. Only
// 200 responses with an ETag, a Last-Modified or Cache-Control: immutable are
// stored, and none marked no-store or larger than MaxEntry. Entries are keyed by
// method, URL and Accept header (servers negotiate formats on Accept: PEP 691)
// and written atomically (temporary file, then rename), so any number of
// goroutines and processes may share a directory. An immutable entry (CEP-16
// shards) is served without a request while its max-age lasts. A Cache that
// cannot read or write its directory logs a warning and goes to the network.
type Cache struct {
	// Dir holds the entries, one file each under a two-letter directory.
	Dir string
	// Base sends the requests: the retrying Transport.
	Base http.RoundTripper
	// MaxEntry bounds the body of a stored response (DefaultMaxEntry).
	MaxEntry int64
	// Log gets a debug line per request (hit, revalidated, stored) and
	// warnings when the directory cannot be used; URLs are redacted.
	Log *slog.Logger
	// Now is the clock for the age of entries; tests replace it.
	Now func() time.Time
}

// NewCache returns a Cache storing entries under dir and sending requests
// through base (http.DefaultTransport when nil).
func NewCache(dir string, base http.RoundTripper, log *slog.Logger) *Cache {
	if base == nil {
		base = http.DefaultTransport
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Cache{Dir: dir, Base: base, MaxEntry: DefaultMaxEntry, Log: log, Now: time.Now}
}

// entry is the metadata line of a cache file; the body follows it.
type entry struct {
	URL    string      `json:"url"` // redacted, for people reading the cache
	Key    string      `json:"key"`
	Header http.Header `json:"header"`
	Stored time.Time   `json:"stored"`
	Size   int64       `json:"size"`
	body   []byte
}

const cacheMagic = "pinbot-cache 1\n"

// RoundTrip serves req from the cache, revalidating as described on Cache.
func (c *Cache) RoundTrip(req *http.Request) (*http.Response, error) {
	if !cacheable(req) {
		return c.Base.RoundTrip(req)
	}
	key := cacheKey(req)
	e := c.load(key)
	if e != nil && e.fresh(c.Now()) {
		c.Log.Debug("http cache", "url", ShownURL(req), "result", "hit")
		return e.response(req, "hit"), nil
	}
	out := req
	if e != nil {
		out = req.Clone(req.Context())
		if v := e.Header.Get("ETag"); v != "" {
			out.Header.Set("If-None-Match", v)
		}
		if v := e.Header.Get("Last-Modified"); v != "" {
			out.Header.Set("If-Modified-Since", v)
		}
	}
	resp, err := c.Base.RoundTrip(out)
	if err != nil {
		return nil, err
	}
	if e != nil && resp.StatusCode == http.StatusNotModified {
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if e.refresh(resp.Header) {
			e.Stored = c.Now()
			c.store(key, e)
		}
		c.Log.Debug("http cache", "url", ShownURL(req), "result", "revalidated")
		return e.response(req, "revalidated"), nil
	}
	if resp.StatusCode != http.StatusOK || !storable(resp.Header) {
		return resp, nil
	}
	var body []byte
	if m, ok := resp.Body.(*memBody); ok {
		body = m.b // read by the Transport already
	} else {
		b, err := io.ReadAll(io.LimitReader(resp.Body, c.MaxEntry+1))
		if err != nil {
			resp.Body.Close()
			return nil, err
		}
		if int64(len(b)) > c.MaxEntry {
			// Too big to keep: hand on what was read and the rest of the stream.
			resp.Body = struct {
				io.Reader
				io.Closer
			}{io.MultiReader(bytes.NewReader(b), resp.Body), resp.Body}
			return resp, nil
		}
		resp.Body.Close()
		body = b
	}
	if int64(len(body)) > c.MaxEntry {
		return resp, nil // too big to keep
	}
	resp.Body = newMemBody(body)
	h := resp.Header.Clone()
	for _, k := range []string{"Set-Cookie", "Content-Length", "Content-Encoding", "Transfer-Encoding", "Connection", CacheHeader} {
		h.Del(k)
	}
	c.store(key, &entry{URL: ShownURL(req), Key: key, Header: h, Stored: c.Now(), Size: int64(len(body)), body: body})
	c.Log.Debug("http cache", "url", ShownURL(req), "result", "stored", "bytes", len(body))
	return resp, nil
}

// cacheable reports whether req may be answered from or stored in the cache.
func cacheable(req *http.Request) bool {
	if req.Method != http.MethodGet || req.URL.User != nil || req.URL.RawQuery != "" || req.URL.ForceQuery {
		return false
	}
	if v, _ := req.Context().Value(secretKey{}).(bool); v || streaming(req.Context()) {
		return false // secret URLs; artifacts, which have their own digest-keyed cache
	}
	for _, h := range []string{"Authorization", "Cookie", "If-None-Match", "If-Modified-Since", "Range"} {
		if req.Header.Get(h) != "" {
			return false
		}
	}
	return !hasDirective(req.Header, "no-store")
}

// storable reports whether a 200 response can be stored and revalidated.
func storable(h http.Header) bool {
	if hasDirective(h, "no-store") || strings.TrimSpace(h.Get("Vary")) == "*" {
		return false
	}
	return h.Get("ETag") != "" || h.Get("Last-Modified") != "" || hasDirective(h, "immutable")
}

func hasDirective(h http.Header, d string) bool {
	for _, v := range h.Values("Cache-Control") {
		for _, part := range strings.Split(v, ",") {
			name, _, _ := strings.Cut(strings.TrimSpace(part), "=")
			if strings.EqualFold(name, d) {
				return true
			}
		}
	}
	return false
}

// maxAge returns the Cache-Control max-age, if any.
func maxAge(h http.Header) (time.Duration, bool) {
	for _, v := range h.Values("Cache-Control") {
		for _, part := range strings.Split(v, ",") {
			name, val, ok := strings.Cut(strings.TrimSpace(part), "=")
			if ok && strings.EqualFold(name, "max-age") {
				if s, err := strconv.ParseInt(strings.Trim(val, `"`), 10, 64); err == nil && s >= 0 {
					return time.Duration(s) * time.Second, true
				}
			}
		}
	}
	return 0, false
}

// fresh reports whether an immutable entry may be used without asking.
func (e *entry) fresh(now time.Time) bool {
	if !hasDirective(e.Header, "immutable") {
		return false
	}
	age, ok := maxAge(e.Header)
	return !ok || now.Sub(e.Stored) < age
}

// refresh applies the validators and caching headers of a 304 and reports
// whether any changed.
func (e *entry) refresh(h http.Header) bool {
	changed := false
	for _, k := range []string{"ETag", "Last-Modified", "Cache-Control", "Expires"} {
		if v := h.Values(k); len(v) > 0 && !equal(v, e.Header.Values(k)) {
			e.Header[k] = v
			changed = true
		}
	}
	return changed
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func (e *entry) response(req *http.Request, how string) *http.Response {
	h := e.Header.Clone()
	h.Set(CacheHeader, how)
	return &http.Response{
		Status: "200 OK", StatusCode: http.StatusOK,
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: h, Body: newMemBody(e.body), ContentLength: int64(len(e.body)),
		Request: req,
	}
}

// cacheKey names a request's entry: a hash, so URLs never appear as file names.
func cacheKey(req *http.Request) string {
	sum := sha256.Sum256([]byte(req.Method + " " + req.URL.String() + "\n" + req.Header.Get("Accept")))
	return hex.EncodeToString(sum[:])
}

func (c *Cache) path(key string) string { return filepath.Join(c.Dir, key[:2], key[2:]) }

// load reads the entry for key, or returns nil when there is none or it is
// unreadable (a damaged entry is a miss, and is replaced on the next store).
func (c *Cache) load(key string) *entry {
	f, err := os.Open(c.path(key))
	if err != nil {
		if !errors.Is(err, os.ErrNotExist) {
			c.Log.Warn("http cache: cannot read entry", "err", err)
		}
		return nil
	}
	defer f.Close()
	r := bufio.NewReader(f)
	magic := make([]byte, len(cacheMagic))
	if _, err := io.ReadFull(r, magic); err != nil || string(magic) != cacheMagic {
		return nil
	}
	line, err := r.ReadBytes('\n')
	if err != nil {
		return nil
	}
	var e entry
	if json.Unmarshal(line, &e) != nil || e.Key != key || e.Size < 0 || e.Size > c.MaxEntry {
		return nil
	}
	e.body = make([]byte, e.Size)
	if _, err := io.ReadFull(r, e.body); err != nil {
		return nil
	}
	if n, _ := r.Read(make([]byte, 1)); n != 0 {
		return nil
	}
	now := time.Now()
	_ = os.Chtimes(c.path(key), now, now) // last use, for Prune
	return &e
}

// store writes e atomically; failures are logged, never returned.
func (c *Cache) store(key string, e *entry) {
	if err := c.write(key, e); err != nil {
		c.Log.Warn("http cache: cannot store entry", "url", e.URL, "err", err)
	}
}

func (c *Cache) write(key string, e *entry) error {
	dir := filepath.Dir(c.path(key))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	meta, err := json.Marshal(e)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	w := bufio.NewWriter(tmp)
	w.WriteString(cacheMagic)
	w.Write(meta)
	w.WriteByte('\n')
	w.Write(e.body)
	if err := w.Flush(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), c.path(key)); err != nil {
		return fmt.Errorf("replacing the entry: %w", err)
	}
	return nil
}

// Prune removes the entries last used before cutoff and returns how many it
// removed, so a cache a weekly job keeps holds only what recent runs asked.
// Entries live in two-hex-digit directories directly under Dir; nothing else
// there (another store sharing the directory) is touched.
func (c *Cache) Prune(cutoff time.Time) (int, error) {
	dirs, err := os.ReadDir(c.Dir)
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	removed := 0
	for _, d := range dirs {
		if !d.IsDir() || !isHex2(d.Name()) {
			continue
		}
		sub := filepath.Join(c.Dir, d.Name())
		files, err := os.ReadDir(sub)
		if err != nil {
			return removed, err
		}
		for _, f := range files {
			info, err := f.Info()
			if err != nil || f.IsDir() || !info.ModTime().Before(cutoff) {
				continue
			}
			if err := os.Remove(filepath.Join(sub, f.Name())); err != nil {
				return removed, err
			}
			removed++
		}
		os.Remove(sub) // once empty
	}
	return removed, nil
}

func isHex2(s string) bool {
	return len(s) == 2 && strings.Trim(s, "0123456789abcdef") == ""
}
