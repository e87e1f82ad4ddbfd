package pins

import (
	"io/fs"
	"path"
	"strings"

	"github.com/pinbot-dev/pinbot/internal/repofs"
)

// SkipDirs are directory names Discover never enters: version control, caches,
// dependencies and build output, where pins are copies rather than sources.
// A directory named build is not among them: projects keep sources there
// (jax's build/requirements.in); only setuptools' output in it is skipped
// (skipDir), and the rest of it when the repository's .gitignore ignores
// it, as it does in practice.
var SkipDirs = map[string]bool{
	".git": true, ".hg": true, ".svn": true, "node_modules": true, "__pycache__": true,
	".venv": true, "venv": true, ".tox": true, ".nox": true, ".mypy_cache": true,
	".pytest_cache": true, ".ruff_cache": true, "site-packages": true, ".pixi": true,
	"dist": true, ".eggs": true, "_build": true, "vendor": true,
	"testdata": true, // test fixtures, by the go tool's convention
}

// skipDir reports whether the walk skips the directory p (slash-separated,
// relative to the root) for its name alone: one of SkipDirs, or what
// setuptools writes in a build directory, build/lib, build/lib.<platform>
// and build/bdist.<platform>, copies of the sources (at the root or under
// a subproject's directory). It is the one decision of which directories
// are not a repository's own, for the walk and for where links lead.
func skipDir(p string) bool {
	base := path.Base(p)
	if SkipDirs[base] {
		return true
	}
	if path.Base(path.Dir(p)) != "build" {
		return false
	}
	return base == "lib" || strings.HasPrefix(base, "lib.") || strings.HasPrefix(base, "bdist.")
}

// A Found is a file Discover matched, with the format that reads it.
type Found struct {
	Path   string // slash-separated, relative to the root
	Format Format
	// Target is, for a symbolic link, the regular file it leads to
	// (slash-separated, relative to the root, its links resolved); it is ""
	// for a file found under its own name.
	Target string
}

// A LinkResolver is a file system that says where a symbolic link leads,
// confined to itself, as a repository's (repofs.Root.FS) does. Discovery
// reads the links of such a file system and skips those of any other.
type LinkResolver interface {
	fs.FS
	// Resolve returns the slash-separated name, relative to the root, that
	// name leads to once every link on the way is followed; it fails for a
	// name that leads outside the root, or nowhere.
	Resolve(name string) (string, error)
}

// Discover walks the repository at root (opened with repofs, so confined to
// it) as DiscoverFS does.
func Discover(root string, formats []Format) ([]Found, error) {
	repo, err := repofs.Open(root)
	if err != nil {
		return nil, err
	}
	defer repo.Close()
	return DiscoverFS(repo.FS(), formats)
}

// DiscoverFS walks a file system, such as a repository's (repofs.Root.FS),
// whose root is ".", and returns the files that one of formats matches, in
// lexical order, with the first matching format for each: by path, else by
// content for the formats that are Sniffers. It sees the files Walk visits.
// A file reached under several names is in the result under each: Once
// keeps one.
func DiscoverFS(fsys fs.FS, formats []Format) ([]Found, error) {
	var found []Found
	err := Walk(fsys, func(p, target string) {
		f := Lookup(formats, p)
		if f == nil {
			f = sniff(fsys, p, formats)
		}
		if f != nil {
			found = append(found, Found{Path: p, Format: f, Target: target})
		}
	})
	return found, err
}

// Walk walks a file system, such as a repository's (repofs.Root.FS), whose
// root is ".", and calls visit with each file a repository's own sources
// are in, in lexical order, depth first: pin discovery and the usage
// checks' reader of Python code see the same files. It skips SkipDirs and
// setuptools' build output (skipDir), virtual environments (directories
// holding pyvenv.cfg), what the repository's .gitignore files (and
// .git/info/exclude) ignore, and anything that is neither a regular file
// nor a link to one: named pipes,
// devices. Only an unreadable root is an error; an unreadable
// subdirectory is skipped.
//
// A symbolic link (in a LinkResolver) is visited under its own name, with
// target the regular file it leads to (slash-separated, relative to the
// root), when it leads to one inside the root and outside the directories
// the walk skips by name (a link into .git is not visited); target is ""
// for a file visited under its own name. A link to a directory is not
// entered: following one could walk a tree twice, or forever.
//
// It walks the tree itself, rather than with fs.WalkDir, so that each
// directory is read once: its listing says whether it holds a pyvenv.cfg or
// a .gitignore, with no further lookups (through an os.Root, every lookup
// costs system calls).
func Walk(fsys fs.FS, visit func(p, target string)) error {
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return err
	}
	w := &walker{fsys: fsys, visit: visit, ign: newIgnorer(fsys)}
	w.ign.readGitignore(".", entries)
	w.walk(".", entries)
	return nil
}

// A walker is one walk of Walk.
type walker struct {
	fsys  fs.FS
	visit func(p, target string)
	ign   *ignorer
}

// walk visits the entries of the directory dir, in lexical order, depth
// first. An unreadable subdirectory is not a reason to stop.
func (w *walker) walk(dir string, entries []fs.DirEntry) {
	for _, e := range entries {
		p := path.Join(dir, e.Name())
		if e.IsDir() {
			if skipDir(p) || w.ign.ignored(p, true) {
				continue
			}
			sub, err := fs.ReadDir(w.fsys, p)
			if err != nil || hasEntry(sub, "pyvenv.cfg") { // a virtual environment under any name
				continue
			}
			w.ign.readGitignore(p, sub)
			w.walk(p, sub)
			continue
		}
		link := e.Type()&fs.ModeSymlink != 0
		if !link && !e.Type().IsRegular() || w.ign.ignored(p, false) {
			continue
		}
		target := ""
		if link {
			if target = w.linkTarget(p); target == "" {
				continue
			}
		}
		w.visit(p, target)
	}
}

// linkTarget returns the regular file the link p leads to, or "" when the
// file system cannot say where links lead, or p leads outside it, nowhere,
// to anything but a regular file (a directory, which is not entered), or
// into a directory the walk skips by name.
func (w *walker) linkTarget(p string) string {
	lr, ok := w.fsys.(LinkResolver)
	if !ok {
		return ""
	}
	real, err := lr.Resolve(p)
	if err != nil {
		return ""
	}
	if info, err := fs.Stat(w.fsys, real); err != nil || !info.Mode().IsRegular() {
		return ""
	}
	for dir := path.Dir(real); dir != "."; dir = path.Dir(dir) {
		if skipDir(dir) {
			return ""
		}
	}
	return real
}

// Once returns found with each file once, in its order: under its own name
// when found holds it so, else under the first link to it. Discovery
// finds a file and the links to it each under their own name; a file read
// twice would be planned and written twice.
func Once(found []Found) []Found {
	own := map[string]bool{}
	for _, f := range found {
		if f.Target == "" {
			own[f.Path] = true
		}
	}
	seen := map[string]bool{}
	var out []Found
	for _, f := range found {
		if f.Target != "" && (own[f.Target] || seen[f.Target]) {
			continue
		}
		if f.Target != "" {
			seen[f.Target] = true
		}
		out = append(out, f)
	}
	return out
}

func hasEntry(entries []fs.DirEntry, name string) bool {
	for _, e := range entries {
		if e.Name() == name {
			return true
		}
	}
	return false
}

// Lookup returns the first format that matches the slash-separated path, or nil.
func Lookup(formats []Format, rel string) Format {
	for _, f := range formats {
		if f.Match(rel) {
			return f
		}
	}
	return nil
}

// Base returns the last element of a slash-separated path, for Match methods.
func Base(rel string) string { return path.Base(rel) }
