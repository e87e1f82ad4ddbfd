package pypi

import (
	"strings"

	"github.com/pinbot-dev/pinbot/internal/pep503"
	"github.com/pinbot-dev/pinbot/sources"
	"github.com/pinbot-dev/pinbot/sources/wheel"
)

// sdistExts are the source distribution extensions, longest first.
var sdistExts = []string{".tar.gz", ".tar.bz2", ".tar.xz", ".tar.Z", ".tgz", ".tar", ".zip"}

// classify sets a file's Kind, and a wheel's Tags, from its package type (JSON
// API) or its filename.
func classify(f *sources.File, packageType string) {
	switch {
	case packageType == "bdist_wheel" || strings.HasSuffix(f.Name, ".whl"):
		f.Kind = sources.KindWheel
		if n, err := wheel.Parse(f.Name); err == nil {
			f.Tags = n.Tags
		}
	case packageType == "sdist" || sdistExt(f.Name) != "":
		f.Kind = sources.KindSdist
	}
}

func sdistExt(name string) string {
	for _, ext := range sdistExts {
		if strings.HasSuffix(name, ext) {
			return ext
		}
	}
	return ""
}

// fileVersion reads the version from the filename of a wheel or an sdist of
// project (normalised). Legacy sdists spell the name with dashes
// ("python-dateutil-2.8.2.tar.gz"), so the name is matched after
// normalisation. Other files (eggs, installers) give "".
func fileVersion(filename, project string) string {
	if strings.HasSuffix(filename, ".whl") {
		n, err := wheel.Parse(filename)
		if err != nil {
			return ""
		}
		return n.Version
	}
	ext := sdistExt(filename)
	if ext == "" {
		return ""
	}
	stem := strings.TrimSuffix(filename, ext)
	for i := len(stem) - 1; i > 0; i-- {
		if stem[i] == '-' && pep503.Normalize(stem[:i]) == project {
			return stem[i+1:]
		}
	}
	return ""
}

// assemble makes a release of files: yanked when every file is yanked (PEP 592),
// timed by its earliest upload.
func assemble(v string, fs []sources.File, yankedReason string) sources.Release {
	r := sources.Release{Version: v, Files: fs, Yanked: len(fs) > 0}
	for _, f := range fs {
		if !f.Yanked {
			r.Yanked = false
		}
		if !f.Time.IsZero() && (r.Time.IsZero() || f.Time.Before(r.Time)) {
			r.Time = f.Time
		}
	}
	if r.Yanked {
		r.YankedReason = yankedReason
	}
	return r
}
