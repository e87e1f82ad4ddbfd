package pins

import (
	"io/fs"
	"os"
	"path"
)

// SkipDirs are directory names Discover never enters: version control, caches,
// dependencies and build output, where pins are copies rather than sources.
// A directory named build is not among them: projects keep sources there
// (jax's build/requirements.in), and a build directory's output is skipped
// when the repository's .gitignore ignores it, as it does in practice.
var SkipDirs = map[string]bool{
	".git": true, ".hg": true, ".svn": true, "node_modules": true, "__pycache__": true,
	".venv": true, "venv": true, ".tox": true, ".nox": true, ".mypy_cache": true,
	".pytest_cache": true, ".ruff_cache": true, "site-packages": true, ".pixi": true,
	"dist": true, ".eggs": true, "_build": true, "vendor": true,
	"testdata": true, // test fixtures, by the go tool's convention
}

// A Found is a file Discover matched, with the format that reads it.
type Found struct {
	Path   string // slash-separated, relative to the root
	Format Format
}

// Discover walks root and returns the files that one of formats matches, in
// lexical order, with the first matching format for each: by path, else by
// content for the formats that are Sniffers. It skips SkipDirs, virtual
// environments (directories holding pyvenv.cfg), what the repository's
// .gitignore files (and .git/info/exclude) ignore, and anything that is not
// a regular file: links, named pipes, devices.
func Discover(root string, formats []Format) ([]Found, error) {
	return DiscoverFS(os.DirFS(root), formats)
}

// DiscoverFS is Discover over a file system, such as a repository's
// (repofs.Root.FS), whose root is ".".
//
// It walks the tree itself, rather than with fs.WalkDir, so that each
// directory is read once: its listing says whether it holds a pyvenv.cfg or
// a .gitignore, with no further lookups (through an os.Root, every lookup
// costs system calls).
func DiscoverFS(fsys fs.FS, formats []Format) ([]Found, error) {
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil, err
	}
	d := &discovery{fsys: fsys, formats: formats, ign: newIgnorer(fsys)}
	d.ign.readGitignore(".", entries)
	d.walk(".", entries)
	return d.found, nil
}

// A discovery is one walk of DiscoverFS.
type discovery struct {
	fsys    fs.FS
	formats []Format
	ign     *ignorer
	found   []Found
}

// walk visits the entries of the directory dir, in lexical order, depth
// first. An unreadable subdirectory is not a reason to stop.
func (d *discovery) walk(dir string, entries []fs.DirEntry) {
	for _, e := range entries {
		p := path.Join(dir, e.Name())
		if e.IsDir() {
			if SkipDirs[e.Name()] || d.ign.ignored(p, true) {
				continue
			}
			sub, err := fs.ReadDir(d.fsys, p)
			if err != nil || hasEntry(sub, "pyvenv.cfg") { // a virtual environment under any name
				continue
			}
			d.ign.readGitignore(p, sub)
			d.walk(p, sub)
			continue
		}
		if !e.Type().IsRegular() || d.ign.ignored(p, false) {
			continue
		}
		f := Lookup(d.formats, p)
		if f == nil {
			f = sniff(d.fsys, p, e, d.formats)
		}
		if f != nil {
			d.found = append(d.found, Found{Path: p, Format: f})
		}
	}
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
