// Package sources defines where pinbot learns what was released: a Source lists
// the releases of one package in one registry (sources/pypi, ...). Sources know
// nothing of pin files; a pin names the source that governs it.
package sources

import (
	"context"
	"io/fs"
	"time"
)

// A Source lists the releases of packages in one registry. Implementations are
// safe for concurrent use.
type Source interface {
	// Name is the source's identifier as pins and configuration name it: "pypi".
	Name() string
	// Releases returns every release of pkg, in no particular order. A package
	// the registry does not know gives an error that wraps ErrNotFound.
	Releases(ctx context.Context, pkg string) ([]Release, error)
}

// ErrNotFound is wrapped by errors for packages or versions a registry does not
// have (HTTP 404 and 410), so callers can test errors.Is(err, ErrNotFound).
var ErrNotFound = fs.ErrNotExist

// A Release is one version of a package in a registry.
type Release struct {
	Version string
	// Time is the earliest upload time of the release's files (zero if unknown).
	Time time.Time
	// Yanked is set when every file of the release is yanked (PEP 592), or the
	// registry marks the release as withdrawn; YankedReason says why, if known.
	Yanked       bool
	YankedReason string
	Files        []File
}

// A File is one installable artifact of a release.
type File struct {
	Name           string
	URL            string
	SHA256         string // hex; empty if the registry gives none
	Size           int64
	Time           time.Time
	Yanked         bool
	RequiresPython string
}
