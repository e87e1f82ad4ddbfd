package archive

import (
	"archive/zip"
	"bytes"
	"fmt"
	"io"
	"regexp"
	"strings"
	"sync"
)

// MaxPythonSource bounds the Python source SitePackages keeps: 512 MiB,
// several times TensorFlow's.
const MaxPythonSource = 512 << 20

// sitePackagesRE matches where a conda package installs Python modules: on
// Unix lib/pythonX.Y/site-packages/, on Windows Lib/site-packages/, and for
// noarch: python packages site-packages/ at the root (moved at install).
// Compiled when first used: only an artifact check reads a conda package.
var sitePackagesRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(lib/python3\.\d{1,2}t?/site-packages/|Lib/site-packages/|site-packages/)`)
})

// SitePackagesPrefix returns the prefix under which a conda package member
// is an importable path ("lib/python3.12/site-packages/"), or "".
func SitePackagesPrefix(name string) string {
	return sitePackagesRE().FindString(name)
}

// A Python is the importable files of a conda package, laid out as a wheel
// lays them out, for readers of wheels (static probes).
type Python struct {
	// Zip is a zip of the .py files under the package's site-packages, at
	// their import paths, plus an empty member for each compiled module
	// (.so, .pyd), so a reader knows the module exists.
	Zip []byte
	// Prefix is the site-packages directory read
	// ("lib/python3.12/site-packages/").
	Prefix string
	// Files counts the .py files.
	Files int
}

// SitePackages walks a conda package (r, size bytes, of kind) and returns
// its importable files. A package that installs no Python module is an
// error saying so.
func SitePackages(r io.ReaderAt, size int64, kind Kind, lim Limits) (*Python, error) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	out := &Python{}
	var kept int64
	err := Walk(r, size, kind, lim, func(m *Member) error {
		if m.Type != Regular {
			return nil
		}
		prefix := SitePackagesPrefix(m.Name)
		if prefix == "" {
			return nil
		}
		if out.Prefix == "" {
			out.Prefix = prefix
		} else if prefix != out.Prefix {
			return nil // a second Python's files: the first one is read
		}
		rel := strings.TrimPrefix(m.Name, prefix)
		switch {
		case strings.HasSuffix(rel, ".py"):
			if m.Err != nil {
				return fmt.Errorf("%s: %w", m.Name, m.Err)
			}
			if kept += m.Size; kept > MaxPythonSource {
				return refused("more than %d bytes of Python source", MaxPythonSource)
			}
			w, err := zw.Create(rel)
			if err != nil {
				return err
			}
			n, err := io.Copy(w, io.LimitReader(m, m.Size+1))
			if err != nil {
				return fmt.Errorf("%s: %w", m.Name, err)
			}
			if n != m.Size {
				return fmt.Errorf("%s: %d bytes, its header says %d", m.Name, n, m.Size)
			}
			out.Files++
		case strings.HasSuffix(rel, ".so") || strings.Contains(rel, ".so.") || strings.HasSuffix(rel, ".pyd"):
			if _, err := zw.Create(rel); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	if out.Prefix == "" {
		return nil, fmt.Errorf("installs no Python module (nothing under lib/pythonX.Y/site-packages/ or site-packages/)")
	}
	out.Zip = buf.Bytes()
	return out, nil
}
