package wheel

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/pinbot-dev/pinbot/sources"
	"github.com/pinbot-dev/pinbot/versions/pep440"
)

// A Platform is what pip installs for: an operating-system family, an
// architecture and, for manylinux, musllinux and macOS, the newest level the
// system runs (glibc 2.Minor, musl 1.Minor, macOS Major.Minor). A zero level
// means any level: the newest wheel level is then preferred.
type Platform struct {
	// Family is "manylinux" (glibc Linux), "musllinux" (musl Linux),
	// "macosx", "linux" (only linux_ARCH wheels), "win", "none" (pure wheels
	// only, conda's noarch) or "exact" (Tag and nothing else).
	Family string
	// Arch is the architecture as platform tags spell it ("x86_64",
	// "aarch64", "arm64"; for win: "amd64", "32", "arm64").
	Arch string
	// Major and Minor are the newest level the system runs; zero: any.
	Major, Minor int
	// Tag is the one platform tag of the "exact" family.
	Tag string
}

// A Target is the interpreter and platform a wheel is chosen for, as pip
// chooses for the interpreter it runs under.
type Target struct {
	// Python is a CPython version ("3.12"); "" means any CPython 3, newest
	// first.
	Python   string
	Platform Platform
}

// The platform and Python tag patterns, compiled when first used: only a
// command that chooses a wheel needs them, and every pinbot command paid
// for them at start.
var (
	manylinuxRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^manylinux_(\d+)_(\d+)_([a-z0-9_]+)$`) })
	legacyRE    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^manylinux(1|2010|2014)_([a-z0-9_]+)$`) })
	musllinuxRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^musllinux_(\d+)_(\d+)_([a-z0-9_]+)$`) })
	macosxRE    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^macosx_(\d+)_(\d+)_([a-z0-9_]+)$`) })
	familyRE    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(manylinux|musllinux|macosx)_([a-z][a-z0-9_]*)$`) })
	// exactRE matches the tags of the other platforms wheels are built for
	// (PEP 730 iOS, PEP 738 Android, Pyodide and Emscripten, the BSDs,
	// Solaris, Cygwin, AIX), by the operating system that opens them.
	exactRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(ios|android|pyodide|emscripten|wasi|freebsd|netbsd|openbsd|dragonfly|solaris|sunos|cygwin|aix|haiku)_[a-z0-9_]+$`)
	})
	pyVersionRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^3\.(\d{1,2})$`) })
	pyTagRE     = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^cp3(\d{1,2})$`) })
)

// legacyLevel maps the legacy manylinux tags to their glibc minor (PEP 600).
var legacyLevel = map[string]int{"1": 5, "2010": 12, "2014": 17}

// condaPlatforms maps conda subdirs to the platforms pip sees on them.
var condaPlatforms = map[string]Platform{
	"linux-64":      {Family: "manylinux", Arch: "x86_64"},
	"linux-32":      {Family: "manylinux", Arch: "i686"},
	"linux-aarch64": {Family: "manylinux", Arch: "aarch64"},
	"linux-ppc64le": {Family: "manylinux", Arch: "ppc64le"},
	"linux-s390x":   {Family: "manylinux", Arch: "s390x"},
	"osx-64":        {Family: "macosx", Arch: "x86_64"},
	"osx-arm64":     {Family: "macosx", Arch: "arm64"},
	"win-64":        {Family: "win", Arch: "amd64"},
	"win-32":        {Family: "win", Arch: "32"},
	"win-arm64":     {Family: "win", Arch: "arm64"},
	"noarch":        {Family: "none"},
}

// ParsePlatform reads a platform as .pinbot.yml writes it: an exact PEP 425
// platform tag ("manylinux_2_17_x86_64", "manylinux2014_x86_64",
// "musllinux_1_2_aarch64", "macosx_11_0_arm64", "win_amd64",
// "linux_x86_64"), whose level is the newest the system runs; a family
// without a level ("manylinux_x86_64", "musllinux_x86_64", "macosx_arm64"),
// any level; or a conda subdir ("linux-64", "osx-arm64", "win-64").
func ParsePlatform(s string) (Platform, error) {
	p, err := parsePlatform(s)
	if err != nil {
		return Platform{}, err
	}
	if why := impossible(p); why != "" {
		return Platform{}, fmt.Errorf("platform %q cannot exist: %s", s, why)
	}
	return p, nil
}

func parsePlatform(s string) (Platform, error) {
	if p, ok := condaPlatforms[s]; ok {
		return p, nil
	}
	atoi := func(s string) int { n, _ := strconv.Atoi(s); return n }
	if m := manylinuxRE().FindStringSubmatch(s); m != nil {
		return Platform{Family: "manylinux", Arch: m[3], Major: atoi(m[1]), Minor: atoi(m[2])}, nil
	}
	if m := legacyRE().FindStringSubmatch(s); m != nil {
		return Platform{Family: "manylinux", Arch: m[2], Major: 2, Minor: legacyLevel[m[1]]}, nil
	}
	if m := musllinuxRE().FindStringSubmatch(s); m != nil {
		return Platform{Family: "musllinux", Arch: m[3], Major: atoi(m[1]), Minor: atoi(m[2])}, nil
	}
	if m := macosxRE().FindStringSubmatch(s); m != nil {
		return Platform{Family: "macosx", Arch: m[3], Major: atoi(m[1]), Minor: atoi(m[2])}, nil
	}
	if m := familyRE().FindStringSubmatch(s); m != nil {
		return Platform{Family: m[1], Arch: m[2]}, nil
	}
	switch {
	case s == "win_amd64" || s == "win_arm64":
		return Platform{Family: "win", Arch: strings.TrimPrefix(s, "win_")}, nil
	case s == "win32":
		return Platform{Family: "win", Arch: "32"}, nil
	case strings.HasPrefix(s, "linux_") && len(s) > len("linux_"):
		return Platform{Family: "linux", Arch: strings.TrimPrefix(s, "linux_")}, nil
	case s == "any":
		return Platform{Family: "none"}, nil
	case exactRE().MatchString(s):
		return Platform{Family: "exact", Tag: s}, nil
	}
	return Platform{}, fmt.Errorf("bad platform %q (expected a PEP 425 tag such as manylinux_2_17_x86_64, a family such as manylinux_x86_64 or macosx_arm64, or a conda platform such as linux-64)", s)
}

// Architectures as platform tags spell them: Linux's are uname -m's (PEP
// 599, PEP 600, PEP 656, and what auditwheel repairs for); macOS's are
// packaging.tags.mac_platforms' binary formats.
var (
	linuxArches = []string{"x86_64", "i686", "aarch64", "armv6l", "armv7l", "ppc64", "ppc64le", "s390x", "riscv64", "loongarch64"}
	macArches   = []string{"x86_64", "arm64", "universal2", "intel", "i386", "ppc", "ppc64", "universal", "fat", "fat3", "fat32", "fat64"}
)

// impossible says why no wheel can carry p's tag ("" when one can): an
// architecture its operating system does not have, a C library or macOS
// version that never was (glibc 2.x, musl 1.x, macOS 10 and later).
func impossible(p Platform) string {
	switch p.Family {
	case "manylinux", "musllinux", "linux":
		if !slices.Contains(linuxArches, p.Arch) {
			return fmt.Sprintf("%q is not a Linux architecture (expected one of: %s)", p.Arch, strings.Join(linuxArches, ", "))
		}
		if p.Family == "manylinux" && p.Major != 0 && p.Major != 2 {
			return fmt.Sprintf("manylinux names a glibc version, 2.x; there is no glibc %d", p.Major)
		}
		if p.Family == "musllinux" && p.Major != 0 && p.Major != 1 {
			return fmt.Sprintf("musllinux names a musl version, 1.x; there is no musl %d", p.Major)
		}
	case "macosx":
		if !slices.Contains(macArches, p.Arch) {
			return fmt.Sprintf("%q is not a macOS architecture (expected one of: %s)", p.Arch, strings.Join(macArches, ", "))
		}
		if p.Major != 0 && p.Major < 10 {
			return fmt.Sprintf("macOS versions start at 10; there is no macOS %d", p.Major)
		}
	}
	return ""
}

// ParsePython reads a Python version ("3.12") or a CPython tag ("cp312") and
// returns the version.
func ParsePython(s string) (string, error) {
	if pyVersionRE().MatchString(s) {
		return s, nil
	}
	if m := pyTagRE().FindStringSubmatch(s); m != nil {
		return "3." + m[1], nil
	}
	return "", fmt.Errorf("bad Python %q (expected a CPython version such as 3.12 or a tag such as cp312)", s)
}

// String names the platform for people: "manylinux_2_36_x86_64",
// "manylinux x86_64 (any glibc)", "linux-64"-like families spelt as tags.
func (p Platform) String() string {
	switch p.Family {
	case "manylinux", "musllinux", "macosx":
		if p.Major == 0 {
			libc := map[string]string{"manylinux": "glibc", "musllinux": "musl", "macosx": "macOS"}[p.Family]
			return fmt.Sprintf("%s %s (any %s)", p.Family, p.Arch, libc)
		}
		return fmt.Sprintf("%s_%d_%d_%s", p.Family, p.Major, p.Minor, p.Arch)
	case "linux":
		return "linux_" + p.Arch
	case "win":
		if p.Arch == "32" {
			return "win32"
		}
		return "win_" + p.Arch
	case "none":
		return "pure Python only"
	}
	return p.Tag
}

// String names the target for people: "manylinux_2_36_x86_64, CPython 3.11".
func (t Target) String() string {
	py := "any CPython 3"
	if t.Python != "" {
		py = "CPython " + t.Python
	}
	return t.Platform.String() + ", " + py
}

// A rank orders the tags a target accepts, as pip's list of supported tags
// does: lower is preferred, compared field by field.
type rank struct{ step, sub, plat int }

func (a rank) compare(b rank) int {
	return cmp.Or(cmp.Compare(a.step, b.step), cmp.Compare(a.sub, b.sub), cmp.Compare(a.plat, b.plat))
}

// platformRank says whether a wheel platform tag installs on p, and how
// specific it is (lower first): within manylinux and musllinux the newest
// level first, then linux_ARCH; within macOS the newest release first, the
// native architecture before universal ones.
func (p Platform) platformRank(tag string) (int, bool) {
	level := func(major, minor int) (int, bool) {
		if p.Major != 0 && (major > p.Major || major == p.Major && minor > p.Minor) {
			return 0, false
		}
		return 10000 - (major*1000 + minor), true
	}
	atoi := func(s string) int { n, _ := strconv.Atoi(s); return n }
	switch p.Family {
	case "manylinux":
		if m := manylinuxRE().FindStringSubmatch(tag); m != nil && m[3] == p.Arch {
			return level(atoi(m[1]), atoi(m[2]))
		}
		if m := legacyRE().FindStringSubmatch(tag); m != nil && m[2] == p.Arch {
			return level(2, legacyLevel[m[1]])
		}
		if tag == "linux_"+p.Arch {
			return 20000, true
		}
	case "musllinux":
		if m := musllinuxRE().FindStringSubmatch(tag); m != nil && m[3] == p.Arch {
			return level(atoi(m[1]), atoi(m[2]))
		}
		if tag == "linux_"+p.Arch {
			return 20000, true
		}
	case "macosx":
		m := macosxRE().FindStringSubmatch(tag)
		if m == nil {
			return 0, false
		}
		arches := map[string][]string{
			"arm64":  {"arm64", "universal2"},
			"x86_64": {"x86_64", "intel", "fat64", "fat32", "universal2", "universal"},
		}[p.Arch]
		if arches == nil {
			arches = []string{p.Arch}
		}
		i := slices.Index(arches, m[3])
		if i < 0 {
			return 0, false
		}
		r, ok := level(atoi(m[1]), atoi(m[2]))
		return r*10 + i, ok
	case "linux", "win":
		if tag == p.String() {
			return 0, true
		}
	case "exact":
		if tag == p.Tag {
			return 0, true
		}
	}
	return 0, false
}

// tagRank says whether t installs on target and how preferred it is, in the
// order of pip's supported tags (packaging.tags.sys_tags) for CPython 3.N:
//
//  1. cp3N-cp3N-PLAT, 2. cp3N-abi3-PLAT, 3. cp3N-none-PLAT,
//  4. cp3M-abi3-PLAT for M = N-1 down to 2,
//  5. py3N-none-PLAT, py3-none-PLAT, py3M-none-PLAT for M = N-1 down to 0,
//  6. cp3N-none-any, py3N-none-any, py3-none-any, py3M-none-any likewise,
//
// each over the platforms, most specific first. With no version, any
// CPython 3 serves, the newest first within each step.
func (t Target) tagRank(tag sources.Tag) (rank, bool) {
	pure := tag.Platform == "any"
	var plat int
	if !pure {
		var ok bool
		if plat, ok = t.Platform.platformRank(tag.Platform); !ok {
			return rank{}, false
		}
	}
	cp, isCP := pyMinor(tag.Python, "cp")
	py, isPy := pyMinor(tag.Python, "py")
	if tag.Python == "py3" {
		py, isPy = -1, true // py3: no minor
	}
	n, known := -1, false
	if t.Python != "" {
		if m := pyVersionRE().FindStringSubmatch(t.Python); m != nil {
			n, known = atoiMust(m[1]), true
		}
	}
	ownABI := func(minor int) bool {
		abi := "cp3" + strconv.Itoa(minor)
		return tag.ABI == abi || minor <= 7 && tag.ABI == abi+"m"
	}
	newest := func(minor int) int { return 100 - minor } // newer minors first when the version is unknown
	switch {
	case pure && isCP && tag.ABI == "none" && (!known || cp == n):
		return rank{step: 6, sub: sub(known, 0, newest(cp))}, true
	case pure && isPy && tag.ABI == "none":
		switch {
		case !known:
			return rank{step: 6, sub: 1}, true
		case py == n:
			return rank{step: 6, sub: 1}, true
		case py == -1:
			return rank{step: 6, sub: 2}, true
		case py < n:
			return rank{step: 6, sub: 2 + n - py}, true
		}
	case pure:
		return rank{}, false
	case isCP && ownABI(cp) && (!known || cp == n):
		return rank{step: 1, sub: sub(known, 0, newest(cp)), plat: plat}, true
	case isCP && tag.ABI == "abi3" && (!known || cp == n):
		return rank{step: 2, sub: sub(known, 0, newest(cp)), plat: plat}, true
	case isCP && tag.ABI == "none" && (!known || cp == n):
		return rank{step: 3, sub: sub(known, 0, newest(cp)), plat: plat}, true
	case isCP && tag.ABI == "abi3" && cp >= 2 && cp < n:
		return rank{step: 4, sub: n - cp, plat: plat}, true
	case isPy && tag.ABI == "none":
		switch {
		case !known || py == n:
			return rank{step: 5, sub: 0, plat: plat}, true
		case py == -1:
			return rank{step: 5, sub: 1, plat: plat}, true
		case py < n:
			return rank{step: 5, sub: 1 + n - py, plat: plat}, true
		}
	}
	return rank{}, false
}

func sub(known bool, ifKnown, ifUnknown int) int {
	if known {
		return ifKnown
	}
	return ifUnknown
}

// pyMinor reads "cp312" or "py312" (prefix cp or py) as minor 12.
func pyMinor(tag, prefix string) (int, bool) {
	rest, ok := strings.CutPrefix(tag, prefix+"3")
	if !ok || rest == "" || len(rest) > 2 || strings.Trim(rest, "0123456789") != "" {
		return 0, false
	}
	return atoiMust(rest), true
}

func atoiMust(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

// A Choice is the wheel of a release pip would install for a target, and
// what the release offered.
type Choice struct {
	// File is the chosen wheel; Found is false when no wheel installs.
	File  sources.File
	Found bool
	// Pure is set when the chosen wheel is pure Python (platform "any").
	Pure bool
	// Binary counts the release's binary wheels (not yanked), whether they
	// install on the target or not; Wheels counts all its wheels.
	Binary, Wheels int
	// Excluded counts the wheels whose Requires-Python rules out the
	// target's Python, which pip skips whatever their tags say; Requires is
	// the first such specifier, for the warning.
	Excluded int
	Requires string
	// Target is what the wheel was chosen for.
	Target Target
}

// Choose returns the wheel among files that pip would install for t: the
// one whose best tag comes first in pip's order (see tagRank); a tie goes to
// the higher build tag, then to the file name. Yanked files, sdists and
// names that are not wheel names are never chosen, nor, as pip skips them,
// wheels whose Requires-Python rules out t's Python (when t names one; a
// specifier that does not parse is ignored, as pip ignores it). A pure wheel
// is chosen only when no binary wheel installs on t.
func Choose(t Target, files []sources.File) Choice {
	c := Choice{Target: t}
	var best rank
	var bestBuild string
	for _, f := range files {
		if f.Yanked || !strings.HasSuffix(f.Name, ".whl") {
			continue
		}
		n, err := Parse(f.Name)
		if err != nil {
			continue
		}
		c.Wheels++
		binary := slices.ContainsFunc(n.Tags, func(t sources.Tag) bool { return t.Platform != "any" })
		if binary {
			c.Binary++
		}
		if !t.allows(f.RequiresPython) {
			if c.Excluded++; c.Requires == "" {
				c.Requires = f.RequiresPython
			}
			continue
		}
		r, ok := rank{}, false
		for _, tag := range n.Tags {
			if tr, fits := t.tagRank(tag); fits && (!ok || tr.compare(r) < 0) {
				r, ok = tr, true
			}
		}
		if !ok {
			continue
		}
		better := !c.Found || cmp.Or(r.compare(best), -compareBuild(n.Build, bestBuild), strings.Compare(f.Name, c.File.Name)) < 0
		if better {
			c.File, c.Found, best, bestBuild = f, true, r, n.Build
			c.Pure = r.step == 6
		}
	}
	return c
}

// allows reports whether a file's Requires-Python admits t's Python, as pip
// checks it: against the version as given ("3.12"), pre-releases admitted.
func (t Target) allows(requires string) bool {
	if t.Python == "" || strings.TrimSpace(requires) == "" {
		return true
	}
	set, err := pep440.ParseSpecifierSet(requires)
	if err != nil {
		return true
	}
	return set.Contains(t.Python, pep440.PreInclude, true)
}

// compareBuild orders build tags as pip does: by their leading number, then
// by the rest; no build tag sorts first.
func compareBuild(a, b string) int {
	split := func(s string) (int, string) {
		i := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		n, _ := strconv.Atoi(s[:min(i, 9)])
		if s == "" {
			n = -1
		}
		return n, s[i:]
	}
	an, ar := split(a)
	bn, br := split(b)
	return cmp.Or(cmp.Compare(an, bn), strings.Compare(ar, br))
}

// Warning says what is wrong with the choice for a check that reads shared
// objects, or "" when nothing is: the release has binary wheels but none for
// the target (pip would install the pure wheel, or nothing), or it has no
// wheel that installs at all. version names the release in the message.
func (c Choice) Warning(version string) string {
	switch {
	case c.Found && (!c.Pure || c.Binary == 0):
		return ""
	case c.Found:
		return fmt.Sprintf("%s has %d binary wheel%s, none for %s; pip would install the pure wheel %s",
			version, c.Binary, plural(c.Binary), c.Target, c.File.Name)
	case c.Excluded > 0:
		return fmt.Sprintf("%s has no wheel for %s: %d wheel%s require%s Python %s", version, c.Target, c.Excluded, plural(c.Excluded), map[bool]string{true: "s"}[c.Excluded == 1], c.Requires)
	case c.Binary > 0:
		return fmt.Sprintf("%s has %d binary wheel%s, none for %s, and no pure wheel", version, c.Binary, plural(c.Binary), c.Target)
	case c.Wheels > 0:
		return fmt.Sprintf("%s has no wheel for %s", version, c.Target)
	}
	return fmt.Sprintf("%s has no wheel", version)
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// goArches maps Go's GOARCH to the architecture platform tags name.
var goArches = map[string]string{"amd64": "x86_64", "arm64": "aarch64", "386": "i686", "ppc64le": "ppc64le", "s390x": "s390x"}

// NativePlatform returns the platform of a machine from Go's GOOS and GOARCH
// and, on Linux, its C library as `getconf GNU_LIBC_VERSION` or the musl
// loader says ("glibc 2.36", "musl 1.2"; "" when unknown: any glibc level).
// ok is false for a system pip has no binary wheels for.
func NativePlatform(goos, goarch, libc string) (Platform, bool) {
	switch goos {
	case "linux":
		arch, ok := goArches[goarch]
		if !ok {
			return Platform{}, false
		}
		p := Platform{Family: "manylinux", Arch: arch}
		name, version, _ := strings.Cut(strings.TrimSpace(libc), " ")
		if name == "musl" {
			p.Family = "musllinux"
		}
		if major, minor, ok := strings.Cut(version, "."); ok {
			minor, _, _ = strings.Cut(minor, ".")
			if ma, err1 := strconv.Atoi(major); err1 == nil {
				if mi, err2 := strconv.Atoi(minor); err2 == nil {
					p.Major, p.Minor = ma, mi
				}
			}
		}
		return p, true
	case "darwin":
		switch goarch {
		case "arm64":
			return Platform{Family: "macosx", Arch: "arm64"}, true
		case "amd64":
			return Platform{Family: "macosx", Arch: "x86_64"}, true
		}
	case "windows":
		switch goarch {
		case "amd64", "arm64":
			return Platform{Family: "win", Arch: goarch}, true
		case "386":
			return Platform{Family: "win", Arch: "32"}, true
		}
	}
	return Platform{}, false
}
