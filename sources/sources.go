// Package sources defines where pinbot learns what was released: a Source lists
// the releases of one package in one registry (sources/pypi, sources/conda,
// sources/goproxy). Sources know nothing of pin files; a pin names the source
// that governs it. Wheel filenames are read by sources/wheel.
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

// A Registry finds a run's sources by name, making on first use those it may
// ask without being told (the conda channels that pin files name, see
// sources/conda's Channels). Source says why when the name selects none. A
// Registry is safe for concurrent use.
type Registry interface {
	Source(name string) (Source, error)
}

// ErrNotFound is wrapped by errors for packages or versions a registry does not
// have (HTTP 404 and 410), so callers can test errors.Is(err, ErrNotFound).
var ErrNotFound = fs.ErrNotExist

// MaxReleases is the most releases (or listed versions) a source accepts in
// one registry document: far above any real package, it bounds what a hostile
// index can make pinbot hold.
const MaxReleases = 100_000

// MaxFiles is the most files a source accepts in one registry document.
const MaxFiles = 500_000

// A Release is one version of a package in a registry.
type Release struct {
	// Version is the version as the registry spells it ("0.67.0", "v1.2.3").
	Version string
	// Time is the earliest upload time of the release's files (zero if unknown).
	Time time.Time
	// Yanked is set when every file of the release is yanked (PEP 592), or the
	// registry marks the release as withdrawn; YankedReason says why, if known.
	Yanked bool
	// YankedReason says why the release was withdrawn ("" when unknown).
	YankedReason string
	// Files are the release's artifacts; a release may be listed without any.
	Files []File
}

// A Requirer is a Source that can say what a release of a package requires
// to run: its dependency metadata as the registry publishes it. A Python
// index gives PEP 508 requirement strings ("numpy<2.6,>=1.24",
// "scipy; extra == 'all'"), a conda channel MatchSpec strings ("numpy
// >=1.24,<2.6"). Markers, extras and platforms are the caller's to weigh.
// A release that requires nothing gives none and no error; a release whose
// requirements the registry does not publish gives an error. r is the
// release as Releases listed it: its files may say where the metadata is.
type Requirer interface {
	Requires(ctx context.Context, pkg string, r Release) ([]string, error)
}

// MaxRequires is the most requirements a source accepts for one release:
// real packages list a few dozen.
const MaxRequires = 10_000

// A Schemer is a Source that names the version scheme of its releases
// ("pep440", "conda", "semver"), for comparing them when no pin says which.
type Schemer interface {
	Scheme() string
}

// SchemeOf returns the version scheme s names, or "" if it names none.
func SchemeOf(s Source) string {
	if sc, ok := s.(Schemer); ok {
		return sc.Scheme()
	}
	return ""
}

// A File is one installable artifact of a release.
type File struct {
	Name   string // the filename: "numba-0.67.0-cp312-cp312-win_amd64.whl"
	URL    string // where to download it
	SHA256 string // hex; empty if the registry gives none
	Size   int64  // in bytes; 0 if unknown
	// Time is the upload time (zero if unknown).
	Time time.Time
	// Yanked is set for a withdrawn file (PEP 592, a conda "broken" label).
	Yanked bool
	// RequiresPython is a Python file's requires-python specifier (PEP 345).
	RequiresPython string
	// Metadata is set for a file whose core metadata (METADATA) the index
	// serves apart, at URL+".metadata" (PEP 658, PEP 714), with its sha256
	// in MetadataSHA256 when the index gives one.
	Metadata       bool
	MetadataSHA256 string
	// Kind is the artifact's type: KindSdist, KindWheel, KindConda or KindZip
	// ("" when unknown).
	Kind string
	// Tags are a wheel's compatibility tags, expanded from the filename's
	// compressed tag sets (cp312-cp312-manylinux_2_17_x86_64.manylinux2014_x86_64
	// gives two).
	Tags []Tag
	// Subdir is a conda package's platform subdir ("linux-64", "noarch").
	Subdir string
	// Channel is the conda channel that lists the file ("conda-forge"), so
	// a check reading it can look up the packages it depends on there.
	Channel string
	// Build and BuildNumber are a conda package's build string and number
	// ("py312h6e6e5ba_0", 0): builds of one version differ by Python,
	// variant and respin.
	Build       string
	BuildNumber int
	// Depends are a conda package's run requirements as the channel
	// publishes them, MatchSpec strings ("python >=3.12,<3.13.0a0",
	// "tensorflow-base 2.18.0 cpu_py312h1_0").
	Depends []string
}

// The kinds of File.
const (
	KindSdist = "sdist" // a Python source distribution
	KindWheel = "wheel" // a Python wheel (Tags set)
	KindConda = "conda" // a conda package (Subdir set)
	KindZip   = "zip"   // a Go module zip
)

// A Tag is one wheel compatibility tag (PEP 425): "cp312", "cp312", "manylinux_2_17_x86_64".
type Tag struct {
	Python   string // interpreter: "cp312", "py3"
	ABI      string // "cp312", "abi3", "none"
	Platform string // "manylinux_2_17_x86_64", "macosx_11_0_arm64", "any"
}

// String returns the tag as python-abi-platform.
func (t Tag) String() string { return t.Python + "-" + t.ABI + "-" + t.Platform }

// SHA256s returns the distinct sha256 digests of a release's files that are
// not yanked, in file order: the hashes a requirements file's --hash options
// list for the release.
func SHA256s(r Release) []string {
	var out []string
	seen := map[string]bool{}
	for _, f := range r.Files {
		if f.SHA256 == "" || f.Yanked || seen[f.SHA256] {
			continue
		}
		seen[f.SHA256] = true
		out = append(out, f.SHA256)
	}
	return out
}
