package probe

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
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
// digest (see LocalWheel), else name==version.
func requirement(opts *Options, py *pyInfo, name, version string) string {
	if _, uv := useUV(opts); !uv && py != nil && len(py.Tags) > 0 {
		for _, w := range opts.LocalWheels {
			n, err := wheelname.Parse(filepath.Base(w.Path))
			if err != nil || normName(n.Distribution) != normName(name) || !sameVersion(n.Version, version) {
				continue
			}
			if slices.ContainsFunc(n.Tags, func(t sources.Tag) bool { return slices.Contains(py.Tags, t.String()) }) {
				u := url.URL{Scheme: "file", Path: w.Path, Fragment: "sha256=" + w.SHA256}
				return name + " @ " + u.String()
			}
		}
	}
	return name + "==" + version
}
