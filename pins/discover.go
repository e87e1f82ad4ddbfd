package pins

import (
	"io/fs"
	"os"
	"path"
)

// SkipDirs are directory names Discover never enters: version control, caches,
// dependencies and build output, where pins are copies rather than sources.
var SkipDirs = map[string]bool{
	".git": true, ".hg": true, ".svn": true, "node_modules": true, "__pycache__": true,
	".venv": true, "venv": true, ".tox": true, ".nox": true, ".mypy_cache": true,
	".pytest_cache": true, ".ruff_cache": true, "site-packages": true, ".pixi": true,
	"build": true, "dist": true, ".eggs": true, "_build": true, "vendor": true,
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
func DiscoverFS(fsys fs.FS, formats []Format) ([]Found, error) {
	var found []Found
	var ign *ignorer // made once the root is known to be readable
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == "." {
				return err
			}
			return nil // an unreadable subdirectory is not a reason to stop
		}
		if ign == nil {
			ign = newIgnorer(fsys)
		}
		if d.IsDir() {
			if p != "." && (SkipDirs[d.Name()] || isVirtualenv(fsys, p) || ign.ignored(p, true)) {
				return fs.SkipDir
			}
			if p != "." {
				ign.enter(p)
			}
			return nil
		}
		if !d.Type().IsRegular() || ign.ignored(p, false) {
			return nil
		}
		f := Lookup(formats, p)
		if f == nil {
			f = sniff(fsys, p, d, formats)
		}
		if f != nil {
			found = append(found, Found{Path: p, Format: f})
		}
		return nil
	})
	return found, err
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

func isVirtualenv(fsys fs.FS, dir string) bool {
	_, err := fs.Stat(fsys, path.Join(dir, "pyvenv.cfg"))
	return err == nil
}

// Base returns the last element of a slash-separated path, for Match methods.
func Base(rel string) string { return path.Base(rel) }
