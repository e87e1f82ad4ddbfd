// Package artifact downloads release files (wheels, sdists, conda packages)
// into a store keyed by their sha256 digest, verifying the digest the index
// published before any file is used: new release code is untrusted, and a
// digest mismatch is a compromised mirror as often as a broken download.
//
// Downloads are bounded: a body stops at the size the index declared for the
// file (PyPI's JSON size, PEP 700's size, conda's size) or at Store.MaxSize,
// whichever is smaller, and a longer or endless one is an error whose partial
// file is removed. Only http and https URLs are followed. A file on another
// host than the index (PyPI serves files from a CDN) gets none of the index's
// credentials: its URL carries none (web.ResolveFile gives them only to the
// index's own origin), and web.Transport drops them on a redirect to another
// origin.
package artifact

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/pinbot-dev/pinbot/internal/progress"
	"github.com/pinbot-dev/pinbot/sources"
	"github.com/pinbot-dev/pinbot/web"
)

// ErrDigest is wrapped by errors for files whose content does not match the
// digest the index published, or that have none.
var ErrDigest = errors.New("sha256 digest")

// DefaultMaxSize is the default Store.MaxSize: 2 GiB, above the largest
// wheels on PyPI (CUDA builds of a few hundred MB to about 1 GB).
const DefaultMaxSize = 2 << 30

// ErrTooLarge is wrapped by errors for downloads longer than the size the
// index declared or than Store.MaxSize.
var ErrTooLarge = errors.New("download too large")

// A Store keeps verified artifacts under Dir/sha256/XX/DIGEST/NAME. It is safe
// for concurrent use: files appear by atomic rename, only once verified.
type Store struct {
	Dir  string
	HTTP *http.Client
	Log  *slog.Logger
	// MaxSize bounds one download whatever the index declares
	// (DefaultMaxSize when 0).
	MaxSize int64
	// Progress shows each download with its size as it goes (nil: not
	// shown; a terminal's stderr gets one).
	Progress *progress.Meter

	// verified are the stored files this process has hashed (or
	// downloaded), as they were then, by path: one is not hashed again
	// while it stays the same file, of the same size and modification
	// time.
	mu       sync.Mutex
	verified map[string]os.FileInfo
}

// hexRE is a hex SHA-256 digest, compiled when first used: its counted
// repetition costs every command's start otherwise.
var hexRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9a-f]{64}$`) })

// Path returns where the store keeps f, whether or not it is there.
func (s *Store) Path(f sources.File) (string, error) {
	digest := strings.ToLower(f.SHA256)
	if !hexRE().MatchString(digest) {
		return "", fmt.Errorf("%s: %w: the index gives none (%q); refusing an unverified artifact", f.Name, ErrDigest, f.SHA256)
	}
	name := filepath.Base(filepath.FromSlash(f.Name))
	if name == "." || name == ".." || name == string(filepath.Separator) || strings.ContainsAny(name, `\/`) {
		name = "artifact"
	}
	return filepath.Join(s.Dir, "sha256", digest[:2], digest, name), nil
}

// Fetch returns the path of f in the store, downloading it first if needed.
// What the store already holds is used only once it is shown to be f (see
// Lookup): the store may have been restored from a cache other jobs write
// to, and a tampered wheel would be scanned and probed in place of the
// release. Anything else at f's path (other content, a symbolic link, a
// directory) is replaced by a download. A download whose digest does not
// match is deleted and tried once more; a second mismatch is an error
// wrapping ErrDigest.
func (s *Store) Fetch(ctx context.Context, f sources.File) (string, error) {
	dst, err := s.Path(f)
	if err != nil {
		return "", err
	}
	if err := s.inside(dst); err != nil {
		return "", err
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return "", err
	}
	if s.verify(dst, f) {
		return dst, nil
	}
	if fi, err := os.Lstat(dst); err == nil {
		if !fi.Mode().IsRegular() { // a file whose content differs, verify has said so
			s.log().Warn("a stored artifact is not a regular file; downloading it again", "file", f.Name, "path", dst, "mode", fi.Mode().String())
		}
		if err := os.RemoveAll(dst); err != nil {
			return "", err
		}
	}
	for attempt := 1; ; attempt++ {
		err := s.download(ctx, f, dst)
		if err == nil {
			s.remember(dst)
		}
		if err == nil || !errors.Is(err, ErrDigest) || attempt == 2 || ctx.Err() != nil {
			return dst, err
		}
		s.log().Warn("artifact digest mismatch; downloading again", "file", f.Name, "err", err)
	}
}

// Lookup returns the path of f when the store holds it, downloading
// nothing: a regular file (not a symbolic link) at Path(f), in a directory
// of the store (not reached through a symbolic link), whose content still
// hashes to the digest the index published, so that a directory restored
// from elsewhere is checked, not trusted. A file whose content does not
// match is not returned.
func (s *Store) Lookup(f sources.File) (string, bool) {
	p, err := s.Path(f)
	if err != nil || s.inside(p) != nil || !s.verify(p, f) {
		return "", false
	}
	return p, true
}

// inside checks that the directory of p, a path under s.Dir, is reached
// from s.Dir through no symbolic link, as far as it exists: a store
// restored from a cache could hold one leading out of it, where a download
// would be written and a stored file removed.
func (s *Store) inside(p string) error {
	root, err := filepath.EvalSymlinks(s.Dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil // nothing stored yet: MkdirAll makes real directories
		}
		return err
	}
	dir := filepath.Dir(p)
	for {
		real, err := filepath.EvalSymlinks(dir)
		if errors.Is(err, fs.ErrNotExist) && len(dir) > len(s.Dir) {
			dir = filepath.Dir(dir) // not made yet: its parent decides
			continue
		}
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(s.Dir, dir)
		if err != nil {
			return err
		}
		if real != filepath.Join(root, rel) {
			return fmt.Errorf("%s: the artifact store's directory %s leads out of the store (to %s): refusing to use it", filepath.Base(p), dir, real)
		}
		return nil
	}
}

// verify reports whether the file at p is f: a regular file (not a
// symbolic link) whose content hashes to f's digest. A file this process
// verified before and that has not changed since is not hashed again. A
// verified file's modification time is set to now: its last use, for
// Prune.
func (s *Store) verify(p string, f sources.File) bool {
	fi, err := os.Lstat(p)
	if err != nil || !fi.Mode().IsRegular() {
		return false
	}
	if s.unchanged(p, fi) {
		return true
	}
	file, err := os.Open(p)
	if err != nil {
		return false
	}
	defer file.Close()
	if opened, err := file.Stat(); err != nil || !os.SameFile(fi, opened) {
		return false
	}
	h := sha256.New()
	if _, err := io.Copy(h, file); err != nil {
		return false
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != strings.ToLower(f.SHA256) {
		s.log().Warn("a stored artifact does not match its digest; not used", "file", f.Name, "path", p, "sha256", got, "want", f.SHA256)
		return false
	}
	s.remember(p)
	return true
}

// remember records the file at p, just verified, with its modification
// time set to now (its last use, for Prune).
func (s *Store) remember(p string) {
	now := time.Now()
	_ = os.Chtimes(p, now, now)
	fi, err := os.Lstat(p)
	if err != nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.verified == nil {
		s.verified = map[string]os.FileInfo{}
	}
	s.verified[p] = fi
}

// unchanged reports whether fi, the file at p now, is the file this
// process verified there: the same file, size and modification time.
func (s *Store) unchanged(p string, fi os.FileInfo) bool {
	s.mu.Lock()
	old, ok := s.verified[p]
	s.mu.Unlock()
	return ok && os.SameFile(old, fi) && old.Size() == fi.Size() && old.ModTime().Equal(fi.ModTime())
}

func (s *Store) download(ctx context.Context, f sources.File, dst string) (err error) {
	limit, why := s.maxSize(), "the limit of"
	if f.Size > 0 && f.Size < limit {
		limit, why = f.Size, "the size the index declared,"
	}
	task := s.Progress.Start("downloading "+f.Name, f.Size)
	defer func() { task.Done(err) }()
	body, err := s.open(ctx, f, limit, why)
	if err != nil {
		return err
	}
	defer body.Close()
	tmp, err := os.CreateTemp(filepath.Dir(dst), ".download-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // a partial or refused download leaves nothing
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(tmp, h, task), io.LimitReader(body, limit+1))
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("%s: downloading from %s: %w", f.Name, web.Redact(f.URL), err)
	}
	if n > limit {
		return fmt.Errorf("%s: %w: the download from %s goes on past %s %d bytes; stopped and removed", f.Name, ErrTooLarge, web.Redact(f.URL), why, limit)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != strings.ToLower(f.SHA256) {
		size := ""
		if f.Size > 0 && n != f.Size {
			size = fmt.Sprintf(" (the index declared %d bytes)", f.Size)
		}
		return fmt.Errorf("%s: %w mismatch: the index says %s, the %d bytes downloaded%s hash to %s", f.Name, ErrDigest, f.SHA256, n, size, got)
	}
	s.log().Info("fetched artifact", "file", f.Name, "bytes", n)
	return os.Rename(tmp.Name(), dst)
}

func (s *Store) maxSize() int64 {
	if s.MaxSize > 0 {
		return s.MaxSize
	}
	return DefaultMaxSize
}

// open returns the content of f, streamed over http or https; a response that
// announces more than limit bytes is refused before its body is read.
func (s *Store) open(ctx context.Context, f sources.File, limit int64, why string) (io.ReadCloser, error) {
	u, err := url.Parse(f.URL)
	if err != nil || !u.IsAbs() {
		return nil, fmt.Errorf("%s: no absolute URL to download it from (%q)", f.Name, web.Redact(f.URL))
	}
	if u.Scheme != "https" && u.Scheme != "http" {
		return nil, fmt.Errorf("%s: refusing to download from a %.20q URL (%s): only http and https are followed", f.Name, u.Scheme, web.Redact(f.URL))
	}
	req, err := http.NewRequestWithContext(web.WithStreaming(ctx), http.MethodGet, f.URL, nil)
	if err != nil {
		return nil, fmt.Errorf("%s: %s", f.Name, web.RedactText(err.Error()))
	}
	resp, err := s.HTTP.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, fmt.Errorf("%s: %s", f.Name, web.RedactText(err.Error()))
	}
	if resp.StatusCode/100 != 2 {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		resp.Body.Close()
		return nil, fmt.Errorf("%s: %w", f.Name, web.CheckStatus(req, resp, b))
	}
	if resp.ContentLength > limit {
		resp.Body.Close()
		return nil, fmt.Errorf("%s: %w: %s announces %d bytes, more than %s %d; not downloaded", f.Name, ErrTooLarge, web.Redact(f.URL), resp.ContentLength, why, limit)
	}
	return resp.Body, nil
}

func (s *Store) log() *slog.Logger {
	if s.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return s.Log
}

// Prune removes the files last used (fetched, or found by Fetch) before
// cutoff, and returns how many it removed, so a cache a weekly job keeps holds
// only what recent runs read.
func (s *Store) Prune(cutoff time.Time) (int, error) {
	removed := 0
	root := filepath.Join(s.Dir, "sha256")
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			if p == root && errors.Is(err, os.ErrNotExist) {
				return filepath.SkipDir
			}
			return err
		}
		if d.IsDir() || strings.HasPrefix(d.Name(), ".download-") {
			return nil
		}
		info, err := d.Info()
		if err != nil || !info.ModTime().Before(cutoff) {
			return err
		}
		if err := os.Remove(p); err != nil {
			return err
		}
		removed++
		os.Remove(filepath.Dir(p)) // the digest's directory, once empty
		return nil
	})
	return removed, err
}
