// Package wheel reads Python wheel filenames, as the binary distribution format
// specifies them (https://packaging.python.org/en/latest/specifications/binary-distribution-format/),
// and matches their compatibility tags (PEP 425,
// https://packaging.python.org/en/latest/specifications/platform-compatibility-tags/)
// against conda platform subdirs ("linux-64", "osx-arm64", "win-64") and Python
// versions ("3.12"), so that one platform list serves both ecosystems.
//
// A subdir is served by a wheel whose platform tag is "any" or names the same
// operating system and architecture: manylinux (any glibc level) or linux for
// linux-*, macosx (any release, universal2 included) for osx-*, win_amd64,
// win32 and win_arm64 for win-*. musllinux wheels serve no conda subdir. A Python
// version 3.N is served by cp3N with the cp3N, abi3 or none ABI, by cp3M-abi3
// for M <= N, and by py3 or py3N with any ABI but a CPython-specific one; the
// free-threaded ABI (cp313t) and other interpreters (pp, ip) do not count.
package wheel

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/pinbot-dev/pinbot/sources"
)

// A Name is a parsed wheel filename.
type Name struct {
	// Distribution is the escaped distribution name ("numba", "ruamel_yaml").
	Distribution string
	// Version is the version as written in the filename.
	Version string
	// Build is the optional build tag ("1", "2cpu"); "" when absent.
	Build string
	// Tags is the expanded tag set: every python × abi × platform combination
	// of the filename's compressed tag sets.
	Tags []sources.Tag
}

// Parse reads a wheel filename such as
// "numba-0.67.0-cp312-cp312-manylinux2014_x86_64.manylinux_2_17_x86_64.whl".
func Parse(filename string) (Name, error) {
	stem, ok := strings.CutSuffix(filename, ".whl")
	if !ok {
		return Name{}, fmt.Errorf("%q is not a wheel filename (no .whl)", filename)
	}
	parts := strings.Split(stem, "-")
	var n Name
	switch len(parts) {
	case 5:
	case 6:
		n.Build = parts[2]
		if n.Build == "" || n.Build[0] < '0' || n.Build[0] > '9' {
			return Name{}, fmt.Errorf("%q: the build tag %q must start with a digit", filename, n.Build)
		}
	default:
		return Name{}, fmt.Errorf("%q is not a wheel filename (expected name-version[-build]-python-abi-platform.whl)", filename)
	}
	n.Distribution, n.Version = parts[0], parts[1]
	if n.Distribution == "" || n.Version == "" {
		return Name{}, errors.New("wheel filename " + strconv.Quote(filename) + " has an empty name or version")
	}
	py, abi, plat := parts[len(parts)-3], parts[len(parts)-2], parts[len(parts)-1]
	for _, p := range strings.Split(py, ".") {
		for _, a := range strings.Split(abi, ".") {
			for _, pl := range strings.Split(plat, ".") {
				if p == "" || a == "" || pl == "" {
					return Name{}, fmt.Errorf("%q has an empty compatibility tag", filename)
				}
				n.Tags = append(n.Tags, sources.Tag{Python: p, ABI: a, Platform: pl})
			}
		}
	}
	return n, nil
}

// KnownSubdir reports whether Serves knows which wheel platforms serve the
// conda subdir.
func KnownSubdir(subdir string) bool {
	_, ok := subdirs[subdir]
	return ok || subdir == "noarch"
}

// subdirs maps conda subdirs to the OS family and architecture suffixes of the
// wheel platform tags that serve them.
var subdirs = map[string]struct {
	family string // "linux", "macosx", "win"
	arches []string
}{
	"linux-64":      {"linux", []string{"x86_64"}},
	"linux-32":      {"linux", []string{"i686"}},
	"linux-aarch64": {"linux", []string{"aarch64"}},
	"linux-ppc64le": {"linux", []string{"ppc64le"}},
	"linux-s390x":   {"linux", []string{"s390x"}},
	"osx-64":        {"macosx", []string{"x86_64", "intel", "universal", "universal2"}},
	"osx-arm64":     {"macosx", []string{"arm64", "universal2"}},
	"win-64":        {"win", []string{"win_amd64"}},
	"win-32":        {"win", []string{"win32"}},
	"win-arm64":     {"win", []string{"win_arm64"}},
}

// PlatformServes reports whether a wheel platform tag ("manylinux_2_17_x86_64",
// "any") serves the conda subdir. noarch is served by "any" only.
func PlatformServes(platform, subdir string) bool {
	if platform == "any" {
		return true
	}
	s, ok := subdirs[subdir]
	if !ok {
		return false
	}
	for _, arch := range s.arches {
		switch s.family {
		case "linux":
			if (strings.HasPrefix(platform, "manylinux") || platform == "linux_"+arch) && strings.HasSuffix(platform, "_"+arch) {
				return true
			}
		case "macosx":
			if strings.HasPrefix(platform, "macosx_") && strings.HasSuffix(platform, "_"+arch) {
				return true
			}
		case "win":
			if platform == arch {
				return true
			}
		}
	}
	return false
}

// PythonServes reports whether the tag's interpreter and ABI serve CPython
// version py ("3.12"). With py == "" any CPython-compatible tag serves.
func PythonServes(t sources.Tag, py string) bool {
	if py == "" {
		return strings.HasPrefix(t.Python, "cp") || strings.HasPrefix(t.Python, "py")
	}
	major, minor, ok := strings.Cut(py, ".")
	if !ok {
		return false
	}
	nodot := major + minor
	switch {
	case t.Python == "py"+major || t.Python == "py"+nodot:
		return t.ABI == "none" || t.ABI == "abi3"
	case t.Python == "cp"+nodot:
		return t.ABI == "cp"+nodot || t.ABI == "abi3" || t.ABI == "none"
	case t.ABI == "abi3" && strings.HasPrefix(t.Python, "cp"+major):
		// cp39-abi3 serves 3.9 and every later 3.x.
		tagMinor, err1 := strconv.Atoi(strings.TrimPrefix(t.Python, "cp"+major))
		want, err2 := strconv.Atoi(minor)
		return err1 == nil && err2 == nil && tagMinor <= want
	}
	return false
}

// Serves reports whether the tag serves the conda subdir (any, when "") and
// Python version py (any CPython, when "").
func Serves(t sources.Tag, subdir, py string) bool {
	return (subdir == "" || PlatformServes(t.Platform, subdir)) && PythonServes(t, py)
}
