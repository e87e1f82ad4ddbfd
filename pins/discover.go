package pins

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
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
// lexical order, with the first matching format for each. It skips SkipDirs,
// virtual environments (directories holding pyvenv.cfg) and symbolic links.
func Discover(root string, formats []Format) ([]Found, error) {
	var found []Found
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == root {
				return err
			}
			return nil // an unreadable subdirectory is not a reason to stop
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if p != root && (SkipDirs[d.Name()] || isVirtualenv(p)) {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		if f := Lookup(formats, rel); f != nil {
			found = append(found, Found{Path: rel, Format: f})
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

func isVirtualenv(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, "pyvenv.cfg"))
	return err == nil
}

// Base returns the last element of a slash-separated path, for Match methods.
func Base(rel string) string { return path.Base(rel) }
