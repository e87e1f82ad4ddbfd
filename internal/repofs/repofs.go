// Package repofs is pinbot's only way into a repository's files. A Root holds
// one *os.Root opened on the repository (its own links resolved), so every
// name that comes from the repository (a files: entry, a discovered file, a -r
// or -c include, the configuration) is resolved with its links and must stay
// inside; only regular files of at most MaxFileSize bytes are read; writes
// are atomic and go through a link to its target, so the link stays a link.
// Confinement is a property of the type: code holding a *Root cannot reach a
// file outside it, whatever the repository's links say. Nor can it reach
// what git keeps under .git (the configuration where actions/checkout
// leaves the workflow's token, the hooks, the objects): nothing pinbot
// reads is there, and a name leading there (a files: entry, an include, a
// link) is a repository trying to have pinbot quote a credential.
package repofs

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
)

// MaxFileSize is the most a repository file may hold to be read: far above
// any real pin file or configuration (the largest hash-locked requirements
// files are a few hundred KB), far below what would strain memory.
const MaxFileSize = 4 << 20

// gitExclude is the one file under .git a Root reads (see resolve).
const gitExclude = ".git/info/exclude"

// maxLinks bounds the links followed in one name, as the kernel's ELOOP does.
const maxLinks = 40

// The reasons a name is refused; an *Error carries one, so callers test them
// with errors.Is.
var (
	ErrOutside    = errors.New("leads outside the repository")
	ErrNotRegular = errors.New("not a regular file")
	ErrTooLarge   = fmt.Errorf("larger than the %d MiB limit on a repository file", MaxFileSize>>20)
	ErrGitDir     = errors.New("inside .git, where git keeps its configuration and credentials")
)

// An Error is a name refused, with the reason (one of the Err values) and
// what showed it: the link that leads out, the kind of file, its size.
type Error struct {
	Path   string // the name as the repository gave it
	Err    error
	Detail string
}

func (e *Error) Error() string {
	s := e.Path + ": refused: " + e.Err.Error()
	if e.Detail != "" {
		s += " (" + e.Detail + ")"
	}
	return s
}

// Unwrap returns the reason.
func (e *Error) Unwrap() error { return e.Err }

// A Root is an open repository.
type Root struct {
	dir  string // the repository, absolute, its links resolved
	abs  string // the repository as named, absolute
	root *os.Root

	// temps caches, per directory, the regular files named like a
	// WriteFile temporary when RemoveStale first listed it: a run reads
	// hundreds of pin files from few directories, and listing a directory
	// once per file was a third of the planning time. WriteFile's own
	// temporaries are renamed away before it returns, so no file this
	// Root writes can become stale behind the cache.
	mu    sync.Mutex
	temps map[string][]string
	// dirs holds the link-free names already seen to be real directories
	// (not links), so that resolving the next file in them does not Lstat
	// every element of its path again. A directory never turns into a link
	// under a run: pinbot's writes replace files, never directories, and the
	// *os.Root confines every access whatever happens on disk.
	dirs map[string]bool
}

// Open opens the repository at dir. The directory's own links are resolved
// first: the repository is where dir leads.
func Open(dir string) (*Root, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, err
	}
	root, err := os.OpenRoot(real)
	if err != nil {
		return nil, err
	}
	return &Root{dir: real, abs: abs, root: root}, nil
}

// Close closes the root.
func (r *Root) Close() error { return r.root.Close() }

// Dir returns the repository's directory, its links resolved.
func (r *Root) Dir() string { return r.dir }

// FS returns the repository as a file system for walking (discovery). Its
// ReadDir reports links as links; Resolve says where one leads, as
// Root.Resolve does; Stat follows links and ReadFile reads, as Root.Stat and
// Root.ReadFile do: only inside the root, and ReadFile only a regular file
// within MaxFileSize, opened without waiting.
func (r *Root) FS() fs.FS { return walkFS{r: r, fsys: r.root.FS()} }

// walkFS is a Root as an fs.FS; fsys is its *os.Root's, for listings.
type walkFS struct {
	r    *Root
	fsys fs.FS
}

var (
	_ fs.ReadDirFS  = walkFS{}
	_ fs.ReadFileFS = walkFS{}
	_ fs.StatFS     = walkFS{}
)

func (w walkFS) Open(name string) (fs.File, error)          { return w.fsys.Open(name) }
func (w walkFS) ReadDir(name string) ([]fs.DirEntry, error) { return fs.ReadDir(w.fsys, name) }
func (w walkFS) ReadFile(name string) ([]byte, error)       { return w.r.ReadFile(name) }
func (w walkFS) Stat(name string) (fs.FileInfo, error)      { return w.r.Stat(name) }

// Resolve returns the name, relative to the root, that name leads to, as
// Root.Resolve does.
func (w walkFS) Resolve(name string) (string, error) { return w.r.Resolve(name) }

// Resolve returns the slash-separated name, relative to the root, that name
// leads to once every link on the way is followed. A name that leads outside
// (an absolute name, a "..", a link pointing out, absolute or relative) is an
// *Error with ErrOutside; a missing file is an fs.ErrNotExist error.
func (r *Root) Resolve(name string) (string, error) {
	real, _, err := r.resolve(name, false)
	return real, err
}

// Stat returns what name leads to, without reading it.
func (r *Root) Stat(name string) (fs.FileInfo, error) {
	_, info, err := r.resolve(name, false)
	return info, err
}

// resolve follows name's links inside the root, checking each against the
// root, and returns the link-free name it leads to with that file's Lstat.
// With missingOK a missing last element is no error: info is then nil.
func (r *Root) resolve(name string, missingOK bool) (string, fs.FileInfo, error) {
	if name == "" || path.IsAbs(name) || filepath.IsAbs(name) {
		return "", nil, &Error{Path: name, Err: ErrOutside, Detail: "not a path relative to the repository root"}
	}
	var done []string // the resolved elements so far: real directories
	todo := split(name)
	links := 0
	var info fs.FileInfo
	via := "" // the last link followed, to name in an error
	for len(todo) > 0 {
		elem := todo[0]
		todo = todo[1:]
		switch elem {
		case ".":
			continue
		case "..":
			if len(done) == 0 {
				detail := "climbs above the repository root"
				if via != "" {
					detail = via
				}
				return "", nil, &Error{Path: name, Err: ErrOutside, Detail: detail}
			}
			done = done[:len(done)-1]
			info = nil
			continue
		}
		cur := path.Join(append(done, elem)...)
		if len(todo) > 0 && r.isDir(cur) {
			done, info = append(done, elem), nil
			continue
		}
		fi, err := r.root.Lstat(filepath.FromSlash(cur))
		if err != nil {
			if missingOK && len(todo) == 0 && errors.Is(err, fs.ErrNotExist) {
				return cur, nil, nil
			}
			return "", nil, pathError(name, err)
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			if fi.IsDir() {
				r.sawDir(cur)
			}
			done, info = append(done, elem), fi
			continue
		}
		if links++; links > maxLinks {
			return "", nil, &Error{Path: name, Err: ErrOutside, Detail: "too many links"}
		}
		target, err := r.root.Readlink(filepath.FromSlash(cur))
		if err != nil {
			return "", nil, pathError(name, err)
		}
		via = cur + " -> " + target
		if filepath.IsAbs(target) {
			rel, ok := r.within(target)
			if !ok {
				return "", nil, &Error{Path: name, Err: ErrOutside, Detail: via}
			}
			done, todo = nil, append(split(rel), todo...)
			continue
		}
		// A relative target is relative to the link's directory; a ".."
		// that climbs above the root through it is refused as it comes.
		todo = append(split(filepath.ToSlash(target)), todo...)
	}
	if len(done) == 0 {
		return ".", r.rootInfo(), nil
	}
	for _, elem := range done {
		// Any case: a case-insensitive file system has one .git. The one
		// file let through is git's own list of ignored paths, which
		// discovery reads as it reads .gitignore files: patterns, never a
		// credential.
		if strings.EqualFold(elem, ".git") && path.Join(done...) != gitExclude {
			detail := ""
			if via != "" {
				detail = via
			}
			return "", nil, &Error{Path: name, Err: ErrGitDir, Detail: detail}
		}
	}
	real := path.Join(done...)
	if info == nil { // the last element was a cached directory, then "." or ".."
		fi, err := r.root.Lstat(filepath.FromSlash(real))
		if err != nil {
			return "", nil, pathError(name, err)
		}
		info = fi
	}
	return real, info, nil
}

func (r *Root) isDir(name string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.dirs[name]
}

func (r *Root) sawDir(name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.dirs == nil {
		r.dirs = make(map[string]bool)
	}
	r.dirs[name] = true
}

// rootInfo is the root directory's Lstat, for a name that leads to the root.
func (r *Root) rootInfo() fs.FileInfo {
	fi, _ := r.root.Lstat(".")
	return fi
}

// within returns target (absolute) relative to the root when it lies inside
// it, by the root's resolved path or the path it was opened by.
func (r *Root) within(target string) (string, bool) {
	target = filepath.Clean(target)
	for _, base := range []string{r.dir, r.abs} {
		rel, err := filepath.Rel(base, target)
		if err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel) {
			return filepath.ToSlash(rel), true
		}
	}
	return "", false
}

func split(name string) []string {
	var out []string
	for _, p := range strings.Split(name, "/") {
		if p != "" {
			out = append(out, p)
		}
	}
	return out
}

// pathError names the file by the name the repository gave, not by whatever
// partial path the root saw.
func pathError(name string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return &fs.PathError{Op: pe.Op, Path: name, Err: pe.Err}
	}
	return fmt.Errorf("%s: %w", name, err)
}

// ReadFile reads the file name leads to: a regular file inside the root of at
// most MaxFileSize bytes. A device, a named pipe or a directory is refused
// without being opened for reading; a larger file without reading a byte.
func (r *Root) ReadFile(name string) ([]byte, error) {
	real, info, err := r.resolve(name, false)
	if err != nil {
		return nil, err
	}
	if err := check(name, info); err != nil {
		return nil, err
	}
	f, err := r.root.OpenFile(filepath.FromSlash(real), os.O_RDONLY|openNonblock, 0)
	if err != nil {
		return nil, pathError(name, err)
	}
	defer f.Close()
	return readCapped(name, f)
}

// ReadFile reads a file a person named (a --config flag), wherever it is:
// only a regular file of at most MaxFileSize bytes, like Root.ReadFile, but
// not confined to a repository.
func ReadFile(name string) ([]byte, error) {
	info, err := os.Stat(name)
	if err != nil {
		return nil, err
	}
	if err := check(name, info); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(name, os.O_RDONLY|openNonblock, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readCapped(name, f)
}

// ReadFileNoFollow reads a file a person named (a --verdicts report), like
// ReadFile but with its own size cap and without following a symbolic link
// at its last element: what is not a regular file is refused, and the open
// never waits (a named pipe swapped in after the check opens at once and is
// refused, since the opened file must be the one checked).
func ReadFileNoFollow(name string, max int64) ([]byte, error) {
	before, err := os.Lstat(name)
	if err != nil {
		return nil, err
	}
	if err := checkMax(name, before, max); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(name, os.O_RDONLY|openNonblock, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, pathError(name, err)
	}
	if !os.SameFile(before, info) {
		return nil, &Error{Path: name, Err: ErrNotRegular, Detail: "it changed while opened"}
	}
	return readMax(name, f, info, max)
}

// check refuses what is not a regular file, or is larger than MaxFileSize.
func check(name string, info fs.FileInfo) error { return checkMax(name, info, MaxFileSize) }

// checkMax refuses what is not a regular file, or is larger than max.
func checkMax(name string, info fs.FileInfo, max int64) error {
	if !info.Mode().IsRegular() {
		return &Error{Path: name, Err: ErrNotRegular, Detail: kind(info.Mode())}
	}
	if info.Size() > max {
		return &Error{Path: name, Err: ErrTooLarge, Detail: fmt.Sprintf("%d bytes", info.Size())}
	}
	return nil
}

// readCapped reads f, checked again once open (the name may have changed
// under us), never more than MaxFileSize+1 bytes.
func readCapped(name string, f *os.File) ([]byte, error) {
	info, err := f.Stat()
	if err != nil {
		return nil, pathError(name, err)
	}
	return readMax(name, f, info, MaxFileSize)
}

// readMax reads f, whose Stat is info, never more than max+1 bytes.
func readMax(name string, f *os.File, info fs.FileInfo, max int64) ([]byte, error) {
	if err := checkMax(name, info, max); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	buf.Grow(int(info.Size()) + bytes.MinRead)
	if _, err := buf.ReadFrom(io.LimitReader(f, max+1)); err != nil {
		return nil, pathError(name, err)
	}
	if int64(buf.Len()) > max {
		return nil, &Error{Path: name, Err: ErrTooLarge, Detail: "it grew while read"}
	}
	return buf.Bytes(), nil
}

// kind names a file mode that is not a regular file's.
func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeSymlink != 0:
		return "a link"
	}
	return "mode " + m.String()
}

// TempPrefix is how the temporary file of a write of base starts; it sits
// beside its target until the rename. RemoveStale removes those a killed
// write left.
func TempPrefix(base string) string { return "." + base + ".pinbot-" }

// WriteFile replaces the file name leads to with data, atomically: a
// temporary file beside the target, synced, then renamed over it, so an
// interrupted write leaves the old file or the new one, never half of one.
// A link is written through: its target (inside the root) is replaced and
// the link stays a link. The target keeps its permissions; a file that does
// not exist yet is made with perm. Only a regular file is replaced.
func (r *Root) WriteFile(name string, data []byte, perm fs.FileMode) (err error) {
	real, info, err := r.resolve(name, true)
	if err != nil {
		return err
	}
	if info != nil {
		if !info.Mode().IsRegular() {
			return &Error{Path: name, Err: ErrNotRegular, Detail: kind(info.Mode())}
		}
		perm = info.Mode().Perm()
	}
	var rnd [8]byte
	rand.Read(rnd[:])
	dir, base := path.Split(real)
	tmp := dir + TempPrefix(base) + hex.EncodeToString(rnd[:])
	f, err := r.root.OpenFile(filepath.FromSlash(tmp), os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return pathError(name, err)
	}
	defer func() {
		if err != nil {
			f.Close()
			r.root.Remove(filepath.FromSlash(tmp))
		}
	}()
	if _, err = f.Write(data); err != nil {
		return pathError(name, err)
	}
	if err = f.Chmod(perm); err != nil { // the umask narrowed what OpenFile made
		return pathError(name, err)
	}
	if err = f.Sync(); err != nil {
		return pathError(name, err)
	}
	if err = f.Close(); err != nil {
		return pathError(name, err)
	}
	if err = r.root.Rename(filepath.FromSlash(tmp), filepath.FromSlash(real)); err != nil {
		return pathError(name, err)
	}
	return nil
}

// RemoveStale removes the temporary files that writes of the file name leads
// to left behind when they were killed before their rename (a SIGKILL, a
// power cut), and returns their names. Only regular files named as WriteFile
// names its temporary files, beside the target, are removed.
func (r *Root) RemoveStale(name string) ([]string, error) {
	real, _, err := r.resolve(name, true)
	if err != nil {
		return nil, err
	}
	dir, base := path.Split(real)
	if dir == "" {
		dir = "."
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	names, err := r.listTemps(dir)
	if err != nil {
		return nil, pathError(name, err)
	}
	var removed []string
	var errs []error
	prefix := TempPrefix(base)
	kept := names[:0]
	for _, n := range names {
		if !strings.HasPrefix(n, prefix) || len(n) == len(prefix) {
			kept = append(kept, n)
			continue
		}
		p := path.Join(dir, n)
		if err := r.root.Remove(filepath.FromSlash(p)); err != nil {
			errs = append(errs, err)
			continue
		}
		removed = append(removed, p)
	}
	r.temps[dir] = kept
	return removed, errors.Join(errs...)
}

// listTemps returns the regular files in dir (slash-separated, relative to
// the root) whose names could be WriteFile temporaries, listing dir only
// the first time it is asked. r.mu must be held.
func (r *Root) listTemps(dir string) ([]string, error) {
	if names, ok := r.temps[dir]; ok {
		return names, nil
	}
	d, err := r.root.Open(filepath.FromSlash(dir))
	if err != nil {
		return nil, err
	}
	entries, err := d.ReadDir(-1)
	d.Close()
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		if e.Type().IsRegular() && strings.HasPrefix(e.Name(), ".") && strings.Contains(e.Name(), ".pinbot-") {
			names = append(names, e.Name())
		}
	}
	if r.temps == nil {
		r.temps = make(map[string][]string)
	}
	r.temps[dir] = names
	return names, nil
}
