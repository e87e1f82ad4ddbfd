// Package condafile chooses the conda package file of a release that a
// check reads, as conda would install it on a platform subdir for a Python,
// and reads from a file record what that choice needs: the Python a build
// is for and the run requirements pinned to one version (a metapackage's
// libraries live in such a dependency: conda-forge's tensorflow pins
// tensorflow-base to its own version and build). It is the conda
// counterpart of sources/wheel; MatchSpec syntax follows conda's
// (https://docs.conda.io/projects/conda-build/en/latest/resources/package-spec.html).
package condafile

import (
	"cmp"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/pinbot-dev/pinbot/sources"
)

// DefaultSubdir is the subdir packages are chosen for when none is
// configured: most CI and servers run linux-64.
const DefaultSubdir = "linux-64"

// A Target is the platform and Python a package file is chosen for.
type Target struct {
	// Subdir is a conda platform ("linux-64", "osx-arm64"); "" is
	// DefaultSubdir.
	Subdir string
	// Python is a CPython version ("3.12"); "" means the newest Python the
	// release has a build for.
	Python string
}

func (t Target) subdir() string { return cmp.Or(t.Subdir, DefaultSubdir) }

// String names the target for people: "linux-64, Python 3.12".
func (t Target) String() string {
	py := "the newest Python"
	if t.Python != "" {
		py = "Python " + t.Python
	}
	return t.subdir() + ", " + py
}

// The patterns of a build's Python, compiled when first used: only a
// command that reads conda files needs them, and every pinbot command paid
// for them at start.
var (
	abiRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^python_abi\s+3\.(\d{1,2})\.\*\s+\*_cp3\d{1,2}(t?)$`)
	})
	pyRangeRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^python\s+>=\s*3\.(\d{1,2})(?:\.\d+)*\s*,\s*<\s*3\.(\d{1,2})(?:\.0a0|\.0)?$`)
	})
	pyStarRE    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^python\s+3\.(\d{1,2})\.\*$`) })
	pyBuildRE   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?:^|_)py3(\d{1,2})(t?)(?:h|_|$)`) })
	specSpaceRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\s+`) })
)

// KnownSubdirs are the platform subdirs channels serve packages in: conda's
// known subdirs (conda.base.constants) and rattler's platforms. A channel
// has no package in any other, so a configuration naming one is a mistake.
var KnownSubdirs = []string{
	"noarch",
	"linux-32", "linux-64", "linux-aarch64", "linux-armv6l", "linux-armv7l", "linux-loongarch64",
	"linux-ppc", "linux-ppc64", "linux-ppc64le", "linux-riscv32", "linux-riscv64", "linux-s390x",
	"osx-64", "osx-arm64",
	"win-32", "win-64", "win-arm64",
	"freebsd-64", "emscripten-wasm32", "wasi-wasm32", "zos-z",
}

// KnownSubdir reports whether s is one of KnownSubdirs.
func KnownSubdir(s string) bool { return slices.Contains(KnownSubdirs, s) }

// PythonOf returns the Python version a package file is built for ("3.12";
// "3.13t" for a free-threaded build), from its python_abi or python run
// requirement, else its build string ("py312h..."). tied is false for a
// file that serves any Python (a C library, a noarch: python package).
func PythonOf(f sources.File) (py string, tied bool) {
	for _, d := range f.Depends {
		d = strings.TrimSpace(specSpaceRE().ReplaceAllString(d, " "))
		if m := abiRE().FindStringSubmatch(d); m != nil {
			return "3." + m[1] + m[2], true
		}
	}
	for _, d := range f.Depends {
		d = strings.TrimSpace(specSpaceRE().ReplaceAllString(d, " "))
		if m := pyRangeRE().FindStringSubmatch(d); m != nil {
			lo, _ := strconv.Atoi(m[1])
			hi, _ := strconv.Atoi(m[2])
			if hi == lo+1 {
				return "3." + m[1], true
			}
		}
		if m := pyStarRE().FindStringSubmatch(d); m != nil {
			return "3." + m[1], true
		}
	}
	if m := pyBuildRE().FindStringSubmatch(f.Build); m != nil {
		return "3." + m[1] + m[2], true
	}
	return "", false
}

// cuda reports whether a file is a CUDA build: it needs the __cuda virtual
// package (conda installs it only on a machine with an NVIDIA driver), or
// its build string says so.
func cuda(f sources.File) bool {
	for _, d := range f.Depends {
		if name, _, _ := strings.Cut(strings.TrimSpace(d), " "); name == "__cuda" {
			return true
		}
	}
	return strings.Contains(f.Build, "cuda")
}

// A Choice is the package file of a release a check reads, and what the
// release offered.
type Choice struct {
	// File is the chosen file; Found is false when none serves the target.
	File  sources.File
	Found bool
	// Python is the chosen build's Python ("" when it serves any).
	Python string
	Target Target
	// Files counts the release's package files not yanked; InSubdir those
	// for the subdir or noarch; Pythons the Pythons those are built for.
	Files, InSubdir int
	Pythons         []string
	// Subdirs are the subdirs the release has files for.
	Subdirs []string
}

// Choose returns the file among files that conda would install for t: a
// file for t's subdir (noarch only when the release has none for it), built
// for t's Python or for any (with no Python given, the newest Python any
// file is built for; free-threaded builds only when asked for), not a
// CUDA build when another serves (conda needs a GPU driver for those), then
// the highest build number, a .conda before a .tar.bz2 of the same build,
// the newest upload, and the file name. Yanked files (labelled broken)
// are never chosen.
func Choose(t Target, files []sources.File) Choice {
	c := Choice{Target: t}
	sub := t.subdir()
	var plat, noarch []sources.File
	for _, f := range files {
		if f.Yanked || !isPackageName(f.Name) {
			continue
		}
		c.Files++
		if !slices.Contains(c.Subdirs, f.Subdir) {
			c.Subdirs = append(c.Subdirs, f.Subdir)
		}
		switch f.Subdir {
		case sub:
			plat = append(plat, f)
		case "noarch":
			noarch = append(noarch, f)
		}
	}
	slices.Sort(c.Subdirs)
	cands := plat
	if len(cands) == 0 {
		cands = noarch
	}
	c.InSubdir = len(cands)
	want := t.Python
	for _, f := range cands {
		if py, tied := PythonOf(f); tied && !slices.Contains(c.Pythons, py) {
			c.Pythons = append(c.Pythons, py)
		}
	}
	slices.SortFunc(c.Pythons, comparePython)
	if want == "" {
		for _, py := range slices.Backward(c.Pythons) {
			if !strings.HasSuffix(py, "t") {
				want = py
				break
			}
		}
	}
	var best *sources.File
	var bestPy string
	for i := range cands {
		f := &cands[i]
		py, tied := PythonOf(*f)
		if tied && py != want {
			continue
		}
		if best == nil || better(*f, *best) {
			best, bestPy = f, py
		}
	}
	if best != nil {
		c.File, c.Found, c.Python = *best, true, bestPy
	}
	return c
}

// better reports whether a is preferred to b among files for one Python.
func better(a, b sources.File) bool {
	conda := func(f sources.File) int { return boolInt(strings.HasSuffix(f.Name, ".conda")) }
	return cmp.Or(
		cmp.Compare(boolInt(!cuda(a)), boolInt(!cuda(b))),
		cmp.Compare(a.BuildNumber, b.BuildNumber),
		cmp.Compare(conda(a), conda(b)),
		a.Time.Compare(b.Time),
		strings.Compare(b.Name, a.Name),
	) > 0
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// comparePython orders "3.9" < "3.12" < "3.13" < "3.13t".
func comparePython(a, b string) int {
	minor := func(s string) (int, bool) {
		s = strings.TrimPrefix(s, "3.")
		t := strings.HasSuffix(s, "t")
		n, _ := strconv.Atoi(strings.TrimSuffix(s, "t"))
		return n, t
	}
	am, at := minor(a)
	bm, bt := minor(b)
	return cmp.Or(cmp.Compare(am, bm), cmp.Compare(boolInt(at), boolInt(bt)))
}

func isPackageName(name string) bool {
	return strings.HasSuffix(name, ".conda") || strings.HasSuffix(name, ".tar.bz2")
}

// Describe names the chosen file for a check's detail:
// "tensorflow-base-2.18.0-cpu_py312h1_0.conda (linux-64, Python 3.12, build 0)".
func (c Choice) Describe() string {
	if !c.Found {
		return ""
	}
	parts := []string{c.File.Subdir}
	if c.Python != "" {
		parts = append(parts, "Python "+c.Python)
	}
	parts = append(parts, fmt.Sprintf("build %d", c.File.BuildNumber))
	return c.File.Name + " (" + strings.Join(parts, ", ") + ")"
}

// Warning says why no file serves the target, naming the release
// ("tensorflow 2.18.0"), or "" when one does.
func (c Choice) Warning(release string) string {
	switch {
	case c.Found:
		return ""
	case c.Files == 0:
		return release + " has no conda package file"
	case c.InSubdir == 0:
		return fmt.Sprintf("%s has no conda package for %s (only for %s)", release, c.Target.subdir(), strings.Join(c.Subdirs, ", "))
	}
	return fmt.Sprintf("%s has no %s build for Python %s (builds for Python %s)", release, c.Target.subdir(), c.Target.Python, strings.Join(c.Pythons, ", "))
}

// A Pin is a run requirement pinned to one version, and to builds matching
// Build (a glob; "" for any).
type Pin struct {
	Name, Version, Build string
}

// String writes the pin as a MatchSpec: "tensorflow-base 2.18.0 cpu_py312h1_0".
func (p Pin) String() string {
	return strings.TrimSpace(p.Name + " " + p.Version + " " + p.Build)
}

// Matches reports whether f is a file the pin admits: the same version
// string and, when the pin names builds, a matching build string.
func (p Pin) Matches(version string, f sources.File) bool {
	if version != p.Version {
		return false
	}
	if p.Build == "" {
		return true
	}
	ok, err := path.Match(p.Build, f.Build)
	return err == nil && ok
}

// The shapes of a pinned name and version, compiled when first used (see
// abiRE).
var (
	nameRE    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.\-]*$`) })
	versionRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_.!+]+$`) })
)

// ExactPins returns the requirements of depends pinned to one version:
// "name ==V", "name==V", "name V" and "name V BUILD" with V free of
// operators and wildcards (conda reads a bare version as exact), not
// virtual packages (__glibc). Anything else (ranges, wildcards, a
// channel prefix) is not a pin.
func ExactPins(depends []string) []Pin {
	var out []Pin
	for _, d := range depends {
		d = strings.TrimSpace(d)
		var name, rest string
		if i := strings.Index(d, "=="); i > 0 && !strings.Contains(d[:i], " ") {
			name, rest = d[:i], "=="+d[i+2:]
		} else {
			name, rest, _ = strings.Cut(d, " ")
		}
		fields := strings.Fields(rest)
		if !nameRE().MatchString(name) || strings.HasPrefix(name, "__") || len(fields) == 0 || len(fields) > 2 {
			continue
		}
		version := strings.TrimPrefix(fields[0], "==")
		if !versionRE().MatchString(version) {
			continue
		}
		p := Pin{Name: strings.ToLower(name), Version: version}
		if len(fields) == 2 {
			p.Build = fields[1]
			if _, err := path.Match(p.Build, ""); err != nil {
				continue
			}
		}
		out = append(out, p)
	}
	return out
}
