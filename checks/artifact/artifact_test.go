package artifact_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pinbot-dev/pinbot/checks/artifact"
	"github.com/pinbot-dev/pinbot/sources"
	"github.com/pinbot-dev/pinbot/web"
)

func digest(b []byte) string { s := sha256.Sum256(b); return hex.EncodeToString(s[:]) }

func store(t *testing.T) *artifact.Store {
	return &artifact.Store{Dir: t.TempDir(), HTTP: &http.Client{Transport: web.NewTransport(nil, web.DefaultPolicy, "test", nil)}}
}

func TestFetch(t *testing.T) {
	wheel := []byte("PK\x03\x04 a wheel")
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Write(wheel)
	}))
	defer srv.Close()
	s := store(t)
	f := sources.File{Name: "numba-0.67.0-py3-none-any.whl", URL: srv.URL + "/numba.whl", SHA256: strings.ToUpper(digest(wheel))}
	for range 2 {
		p, err := s.Fetch(context.Background(), f)
		if err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(p); string(b) != string(wheel) || filepath.Base(p) != f.Name {
			t.Fatalf("Fetch = %s holding %q", p, b)
		}
	}
	if hits.Load() != 1 {
		t.Errorf("%d downloads, want 1 (the second Fetch is served by the store)", hits.Load())
	}
}

func TestFetchRefusesBadDigests(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Write([]byte("tampered"))
	}))
	defer srv.Close()
	s := store(t)
	_, err := s.Fetch(context.Background(), sources.File{Name: "x.whl", URL: srv.URL, SHA256: digest([]byte("original"))})
	if !errors.Is(err, artifact.ErrDigest) || !strings.Contains(err.Error(), "mismatch") || hits.Load() != 2 {
		t.Fatalf("err = %v after %d downloads; want a digest mismatch after 2", err, hits.Load())
	}
	for _, sha := range []string{"", "None", "abc"} {
		if _, err := s.Fetch(context.Background(), sources.File{Name: "x.whl", URL: srv.URL, SHA256: sha}); !errors.Is(err, artifact.ErrDigest) {
			t.Errorf("sha256 %q: err = %v, want ErrDigest", sha, err)
		}
	}
	// Nothing but empty directories is left in the store.
	filepath.WalkDir(s.Dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			t.Errorf("left behind: %s", p)
		}
		return nil
	})
}

// serve answers every path with data.
func serve(t *testing.T, data []byte) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(data) }))
	t.Cleanup(srv.Close)
	return srv
}

func TestFetchNameAndSources(t *testing.T) {
	srv := serve(t, []byte("local wheel"))
	s := store(t)
	p, err := s.Fetch(context.Background(), sources.File{Name: "../../etc/passwd", URL: srv.URL + "/w.whl", SHA256: digest([]byte("local wheel"))})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(p, s.Dir) || filepath.Base(p) != "passwd" {
		t.Errorf("stored at %s, want a base name inside the store", p)
	}
	if _, err := s.Fetch(context.Background(), sources.File{Name: "a.whl", URL: "/relative/a.whl", SHA256: digest(nil)}); err == nil {
		t.Error("relative URL: want an error")
	}
	nf := httptest.NewServer(http.NotFoundHandler())
	defer nf.Close()
	if _, err := s.Fetch(context.Background(), sources.File{Name: "a.whl", URL: nf.URL + "/a.whl", SHA256: digest(nil)}); err == nil || !strings.Contains(err.Error(), "404") {
		t.Errorf("404: err = %v", err)
	}
}

// TestFetchRefusesOtherSchemes: an index listing a file:// (or ftp://, or
// data:) URL gets nothing read, whatever is at the path.
func TestFetchRefusesOtherSchemes(t *testing.T) {
	local := writeTemp(t, []byte("secret"))
	s := store(t)
	for _, u := range []string{"file://" + local, "ftp://example.com/a.whl", "data:,secret", "gopher://example.com/a"} {
		_, err := s.Fetch(context.Background(), sources.File{Name: "a.whl", URL: u, SHA256: digest([]byte("secret"))})
		if err == nil || !strings.Contains(err.Error(), "only http and https") && !strings.Contains(err.Error(), "no absolute URL") {
			t.Errorf("%s: err = %v, want a refusal", u, err)
		}
	}
	leftovers(t, s.Dir)
}

// TestFetchBounds: a download stops at the size the index declared, or at
// MaxSize when it declared none; longer, announced-longer and endless bodies
// are errors naming the file, and nothing is left in the store.
func TestFetchBounds(t *testing.T) {
	wheel := []byte(strings.Repeat("w", 1000))
	endless := func(w http.ResponseWriter, r *http.Request) {
		w.Write(wheel)
		for i := 0; i < 1<<14; i++ { // 16 MB, then give up
			if _, err := w.Write(make([]byte, 1024)); err != nil {
				return
			}
		}
	}
	longer := func(w http.ResponseWriter, r *http.Request) { // chunked: no Content-Length to refuse it by
		w.Write(wheel)
		w.(http.Flusher).Flush()
		w.Write([]byte("more"))
	}
	announced := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "5000000")
		w.Write(wheel)
	}
	tests := []struct {
		name     string
		handler  http.HandlerFunc
		declared int64
		max      int64
		wantErr  string
	}{
		{"endless body, size declared", endless, 1000, 0, "goes on past the size the index declared, 1000 bytes"},
		{"endless body, no size declared", endless, 0, 4096, "goes on past the limit of 4096 bytes"},
		{"body longer than declared", longer, 1000, 0, "goes on past the size the index declared, 1000 bytes"},
		{"Content-Length beyond the declared size", announced, 1000, 0, "announces 5000000 bytes"},
		{"declared size beyond the cap", endless, 1 << 40, 2000, "goes on past the limit of 2000 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(tt.handler)
			defer srv.Close()
			s := store(t)
			s.MaxSize = tt.max
			f := sources.File{Name: "numba-0.67.0-py3-none-any.whl", URL: srv.URL + "/n.whl?token=qsecret", SHA256: digest(wheel), Size: tt.declared}
			_, err := s.Fetch(context.Background(), f)
			if !errors.Is(err, artifact.ErrTooLarge) || !strings.Contains(err.Error(), tt.wantErr) || !strings.Contains(err.Error(), f.Name) {
				t.Fatalf("err = %v, want ErrTooLarge: %q naming the file", err, tt.wantErr)
			}
			if strings.Contains(err.Error(), "qsecret") {
				t.Errorf("the query reached the error: %v", err)
			}
			leftovers(t, s.Dir)
		})
	}
	// The declared size is a bound, not a requirement: a shorter body with
	// the right digest is the file.
	srv := serve(t, wheel)
	if _, err := store(t).Fetch(context.Background(), sources.File{Name: "w.whl", URL: srv.URL, SHA256: digest(wheel), Size: 1200}); err != nil {
		t.Errorf("shorter than declared, right digest: %v", err)
	}
}

// leftovers fails for any file under dir: a refused download leaves none.
func leftovers(t *testing.T, dir string) {
	t.Helper()
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			t.Errorf("left behind: %s", p)
		}
		return nil
	})
}

func TestPrune(t *testing.T) {
	s := store(t)
	now := time.Now()
	put := func(data []byte, used time.Time) string {
		p, err := s.Fetch(context.Background(), sources.File{Name: "w.whl", URL: serve(t, data).URL + "/w.whl", SHA256: digest(data)})
		if err != nil {
			t.Fatal(err)
		}
		os.Chtimes(p, used, used)
		return p
	}
	old := put([]byte("old wheel"), now.AddDate(0, 0, -40))
	recent := put([]byte("recent wheel"), now.AddDate(0, 0, -3))
	n, err := s.Prune(now.AddDate(0, 0, -28))
	if err != nil || n != 1 {
		t.Fatalf("Prune = %d, %v; want 1", n, err)
	}
	if _, err := os.Stat(old); err == nil {
		t.Error("the old file is still there")
	}
	if _, err := os.Stat(filepath.Dir(old)); err == nil {
		t.Error("the old file's directory is still there")
	}
	if _, err := os.Stat(recent); err != nil {
		t.Error("the recent file was removed")
	}
	// A Fetch served from the store counts as a use.
	os.Chtimes(recent, now.AddDate(0, 0, -40), now.AddDate(0, 0, -40))
	data := []byte("recent wheel")
	if _, err := s.Fetch(context.Background(), sources.File{Name: "w.whl", URL: "file:///nonexistent", SHA256: digest(data)}); err != nil {
		t.Fatal(err) // served from the store: the URL is never opened
	}
	if n, _ := s.Prune(now.AddDate(0, 0, -28)); n != 0 {
		t.Errorf("Prune after a use removed %d", n)
	}
	if n, err := (&artifact.Store{Dir: t.TempDir()}).Prune(now); n != 0 || err != nil {
		t.Errorf("empty store: %d, %v", n, err)
	}
}

func writeTemp(t *testing.T, data []byte) string {
	p := filepath.Join(t.TempDir(), "w.whl")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestLookup: Lookup finds what Fetch stored, downloading nothing, and
// refuses a stored file that no longer hashes to its digest, a symbolic
// link in its place (it could lead out of the store) and a file not there.
func TestLookup(t *testing.T) {
	wheel := []byte("PK\x03\x04 a wheel")
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Write(wheel)
	}))
	defer srv.Close()
	s := store(t)
	f := sources.File{Name: "numba-0.67.0-py3-none-any.whl", URL: srv.URL + "/numba.whl", SHA256: digest(wheel)}
	if p, ok := s.Lookup(f); ok {
		t.Fatalf("Lookup found %s before any Fetch", p)
	}
	stored, err := s.Fetch(context.Background(), f)
	if err != nil {
		t.Fatal(err)
	}
	if p, ok := s.Lookup(f); !ok || p != stored {
		t.Fatalf("Lookup = %q, %v; want %s", p, ok, stored)
	}
	if hits.Load() != 1 {
		t.Errorf("%d downloads, want 1", hits.Load())
	}
	if p, ok := s.Lookup(sources.File{Name: f.Name, SHA256: "not a digest"}); ok {
		t.Errorf("Lookup found %s for a file without a digest", p)
	}

	os.WriteFile(stored, []byte("PK\x03\x04 another wheel"), 0o644)
	if p, ok := s.Lookup(f); ok {
		t.Errorf("Lookup found %s whose content changed", p)
	}

	outside := filepath.Join(t.TempDir(), f.Name)
	os.WriteFile(outside, wheel, 0o644)
	os.Remove(stored)
	if err := os.Symlink(outside, stored); err != nil {
		t.Fatal(err)
	}
	if p, ok := s.Lookup(f); ok {
		t.Errorf("Lookup followed a symbolic link to %s", p)
	}
}

// TestFetchVerifiesStored: what the store holds is used only when it is
// still the file the index published. A stored file whose content changed
// (in this process or before it, as a store restored from a shared cache),
// a symbolic link in its place, and a directory in its place are replaced
// by a download; the file a link led to is left alone.
func TestFetchVerifiesStored(t *testing.T) {
	wheel := []byte("PK\x03\x04 a wheel")
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Write(wheel)
	}))
	defer srv.Close()
	s := store(t)
	f := sources.File{Name: "numba-0.67.0-py3-none-any.whl", URL: srv.URL + "/numba.whl", SHA256: digest(wheel)}
	stored, err := s.Fetch(context.Background(), f)
	if err != nil {
		t.Fatal(err)
	}
	fetch := func(s *artifact.Store, what string, wantHits int32) {
		t.Helper()
		p, err := s.Fetch(context.Background(), f)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		fi, _ := os.Lstat(p)
		if b, _ := os.ReadFile(p); p != stored || string(b) != string(wheel) || !fi.Mode().IsRegular() {
			t.Errorf("%s: Fetch = %s holding %q (%v)", what, p, b, fi.Mode())
		}
		if hits.Load() != wantHits {
			t.Errorf("%s: %d downloads, want %d", what, hits.Load(), wantHits)
		}
	}
	fetch(s, "unchanged", 1)

	tampered := []byte("PK\x03\x04 b wheel") // the same size
	os.WriteFile(stored, tampered, 0o644)
	fetch(s, "changed in this process", 2)

	os.WriteFile(stored, tampered, 0o644)
	restored := &artifact.Store{Dir: s.Dir, HTTP: s.HTTP}
	fetch(restored, "changed before this process", 3)

	outside := filepath.Join(t.TempDir(), "elsewhere.whl")
	os.WriteFile(outside, wheel, 0o644)
	os.Remove(stored)
	if err := os.Symlink(outside, stored); err != nil {
		t.Fatal(err)
	}
	fetch(&artifact.Store{Dir: s.Dir, HTTP: s.HTTP}, "a symbolic link", 4)
	if b, err := os.ReadFile(outside); err != nil || string(b) != string(wheel) {
		t.Errorf("the file the link led to: %q, %v", b, err)
	}

	os.Remove(stored)
	os.MkdirAll(filepath.Join(stored, "sub"), 0o755)
	fetch(&artifact.Store{Dir: s.Dir, HTTP: s.HTTP}, "a directory", 5)
}

// TestFetchRefusesStoreLeadingOut: a directory of the store that is a
// symbolic link out of it (a poisoned cache) is refused: nothing is read,
// written or removed there.
func TestFetchRefusesStoreLeadingOut(t *testing.T) {
	wheel := []byte("PK\x03\x04 a wheel")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(wheel) }))
	defer srv.Close()
	s := store(t)
	f := sources.File{Name: "numba-0.67.0-py3-none-any.whl", URL: srv.URL + "/numba.whl", SHA256: digest(wheel)}
	elsewhere := t.TempDir()
	d := digest(wheel)
	victim := filepath.Join(elsewhere, d[:2], d, f.Name)
	os.MkdirAll(filepath.Dir(victim), 0o755)
	os.WriteFile(victim, []byte("someone's file"), 0o644)
	if err := os.Symlink(elsewhere, filepath.Join(s.Dir, "sha256")); err != nil {
		t.Fatal(err)
	}
	if p, err := s.Fetch(context.Background(), f); err == nil || !strings.Contains(err.Error(), "leads out of the store") {
		t.Errorf("Fetch = %s, %v; want an error: the store leads out of itself", p, err)
	}
	if p, ok := s.Lookup(f); ok {
		t.Errorf("Lookup = %s through a link out of the store", p)
	}
	if b, _ := os.ReadFile(victim); string(b) != "someone's file" {
		t.Errorf("the file outside the store became %q", b)
	}
	if entries, _ := os.ReadDir(filepath.Dir(victim)); len(entries) != 1 {
		t.Errorf("%d entries written outside the store, want only the one there", len(entries))
	}
}
