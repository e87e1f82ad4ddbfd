package probe

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/pinbot-dev/pinbot/sources"
	wheelname "github.com/pinbot-dev/pinbot/sources/wheel"
)

// A LocalWheel is a wheel of a release that this machine already holds,
// verified against the sha256 digest the index published (pinbot's artifact
// store, where fleet plan --cache-dir puts the wheels a fleet's jobs would
// each download). Dynamic probes install it instead of downloading the same
// file from the index.
//
// pip is given the file as a direct reference, NAME @ file:///PATH#sha256=
// DIGEST, so it checks the digest once more and reads nothing of that
// release from the index. A --find-links directory would not do: pip's
// resolver tries the index's file of a version before a local one of the
// same version, and downloads it. Only a wheel that installs on the probe
// interpreter (one of its supported tags, as pip reports them) replaces
// NAME==VERSION, so a wheel chosen for another interpreter is never forced
// on it; the resolution, the environment's key and the resolution records
// still name NAME==VERSION, whichever file it came from. uv is asked by
// name and version as before: it keeps its own cache.
type LocalWheel struct {
	// Path is the file's absolute path; its name is the wheel's name on the
	// index.
	Path string
	// SHA256 is the digest the index published for the file (hex).
	SHA256 string
}

// sha256RE is a hex SHA-256 digest, compiled when first used: only a local
// wheel needs it, and its counted repetition costs every command's start.
var sha256RE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9a-f]{64}$`) })

// checkLocalWheel refuses a LocalWheel that is not an absolute path to a
// regular file (a symbolic link could lead anywhere) named as a wheel, with a
// sha256 digest.
func checkLocalWheel(w LocalWheel) error {
	if !filepath.IsAbs(w.Path) || filepath.Clean(w.Path) != w.Path {
		return fmt.Errorf("%q is not a clean absolute path", w.Path)
	}
	if !sha256RE().MatchString(w.SHA256) {
		return fmt.Errorf("%s: %q is not a sha256 digest in lower-case hex", filepath.Base(w.Path), w.SHA256)
	}
	n, err := wheelname.Parse(filepath.Base(w.Path))
	if err != nil {
		return err
	}
	if !validName(n.Distribution) || !validVersion(n.Version) {
		return fmt.Errorf("%s does not name a distribution and version", filepath.Base(w.Path))
	}
	fi, err := os.Lstat(w.Path)
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return errors.New(w.Path + " is not a regular file")
	}
	return nil
}

// requirement is how the installer is asked for name==version: a local
// wheel of that release that installs on py, as a direct reference with its
// digest (see LocalWheel), else name==version. uv is asked by name and
// version, but for a pinned release (Options.Pinned), which comes from its
// own file whatever the installer.
func requirement(opts *Options, py *pyInfo, name, version string) string {
	_, uv := useUV(opts)
	if uv && !pinned(opts, name, version) {
		return name + "==" + version
	}
	if w, ok := findLocalWheel(opts, py, name, version); ok {
		u := url.URL{Scheme: "file", Path: w.Path, Fragment: "sha256=" + w.SHA256}
		return name + " @ " + u.String()
	}
	return name + "==" + version
}

// findLocalWheel returns the local wheel of name==version that installs on py
// (one of the tags pip reports for it). Without the tags (uv with no pip
// to ask), a pinned release takes its first local wheel: the installer
// then says whether it installs, which is better than an index's file.
func findLocalWheel(opts *Options, py *pyInfo, name, version string) (LocalWheel, bool) {
	var first *LocalWheel
	for i, w := range opts.LocalWheels {
		n, err := wheelname.Parse(filepath.Base(w.Path))
		if err != nil || normName(n.Distribution) != normName(name) || !sameVersion(n.Version, version) {
			continue
		}
		if first == nil {
			first = &opts.LocalWheels[i]
		}
		if py != nil && slices.ContainsFunc(n.Tags, func(t sources.Tag) bool { return slices.Contains(py.Tags, t.String()) }) {
			return w, true
		}
	}
	if first != nil && (py == nil || len(py.Tags) == 0) && pinned(opts, name, version) {
		return *first, true
	}
	return LocalWheel{}, false
}

// distOf is the distribution installed for version: CandidateDist for the
// candidate when it is set, else Package.
func distOf(opts *Options, version string) string {
	if opts.CandidateDist != "" && version == opts.Candidate {
		return opts.CandidateDist
	}
	return opts.Package
}

// pinned reports whether name, installed for version, must come from its
// local wheel (Options.Pinned): only in the candidate's environment, where
// the candidate and With's releases are installed; the baseline is the
// index's.
func pinned(opts *Options, name, version string) bool {
	return version == opts.Candidate && slices.ContainsFunc(opts.Pinned, func(p string) bool { return normName(p) == normName(name) })
}

// installsFor returns the releases installed for version, as name and
// version: the package (its distribution for the candidate) and withFor's
// (With's for the candidate, BaselineWith's for the baseline).
func installsFor(opts *Options, version string) [][2]string {
	out := [][2]string{{distOf(opts, version), version}}
	for _, w := range withFor(opts, version) {
		name, v, _ := strings.Cut(w, "==")
		out = append(out, [2]string{name, v})
	}
	return out
}

// checkPinned returns an *InstallError for a pinned release installed for
// version that has no local wheel installing on py: it is never asked of
// the index, whose file of that name and version (if any) is another
// build.
func checkPinned(opts *Options, py *pyInfo, version string) error {
	for _, r := range installsFor(opts, version) {
		if !pinned(opts, r[0], r[1]) {
			continue
		}
		if _, ok := findLocalWheel(opts, py, r[0], r[1]); !ok {
			return &InstallError{Package: r[0], Version: r[1], Err: fmt.Errorf("no wheel of %s %s from its own source installs on this interpreter "+
				"(Python %s): it is not taken from the index, whose file of that version would be another build", r[0], r[1], pyVersionOf(py))}
		}
	}
	return nil
}

// pinnedFiles names the files of the pinned releases installed for
// version ("name sha256" lines), for the environment's and the
// resolution's keys: "" when none is pinned.
func pinnedFiles(opts *Options, py *pyInfo, version string) string {
	var lines []string
	for _, r := range installsFor(opts, version) {
		if !pinned(opts, r[0], r[1]) {
			continue
		}
		if w, ok := findLocalWheel(opts, py, r[0], r[1]); ok {
			lines = append(lines, normName(r[0])+" "+w.SHA256)
		}
	}
	return strings.Join(lines, "\n")
}

func pyVersionOf(py *pyInfo) string {
	if py == nil {
		return "unknown"
	}
	return py.Version
}
