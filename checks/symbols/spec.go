package symbols

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/pinbot-dev/pinbot/sources"
	"github.com/pinbot-dev/pinbot/sources/wheel"
)

// A Spec is the symbols check of one watched package, as written in
// .pinbot.yml under the package's "symbols" key.
type Spec struct {
	// Preset names a built-in set of patterns (see Presets). Resolve adds its
	// lists in front of the ones given here.
	Preset string `yaml:"preset"`
	// Forbid lists the symbols the package must not export: demangled globs
	// ("google::protobuf::*") or mangled prefixes ("_ZN6google8protobuf").
	Forbid []string `yaml:"forbid"`
	// Against names the packages whose exports the candidate must not clash
	// with. The caller resolves names to wheels (or takes them as paths).
	Against []string `yaml:"against"`
	// Host lists libraries of the environment, files or directories, such as
	// "/usr/lib/x86_64-linux-gnu/libprotobuf.so.32".
	Host []string `yaml:"host"`
	// Wheel chooses which of a release's wheels is scanned.
	Wheel WheelSpec `yaml:"wheel"`
}

// A WheelSpec chooses one wheel of a release by its tags (PEP 425).
type WheelSpec struct {
	// Platform is a platform tag such as "manylinux_2_17_x86_64"; empty means
	// any Linux x86-64 wheel.
	Platform string `yaml:"platform"`
	// Python is a Python tag such as "cp311"; empty means any.
	Python string `yaml:"python"`
}

// A Preset is a named, built-in set of forbid patterns and against packages.
type Preset struct {
	Name        string
	Description string
	Forbid      []string
	Against     []string
}

// Presets are the built-in presets, by name.
var Presets = map[string]Preset{
	"tensorflow-protobuf": {
		Name: "tensorflow-protobuf",
		Description: "TensorFlow must not export the protobuf, Abseil or LLVM it links in: " +
			"they interpose on the protobuf package's runtime and on other users of LLVM",
		Forbid:  []string{"google::protobuf::*", "_ZN6google8protobuf", "absl::*", "llvm::*"},
		Against: []string{"protobuf"},
	},
}

// presetNames returns the preset names, sorted, for error messages.
func presetNames() string {
	names := make([]string, 0, len(Presets))
	for n := range Presets {
		names = append(names, n)
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

// Validate checks the preset name, every pattern and the wheel tags. The error
// names the offending key, for example "forbid[1]: ...".
func (s *Spec) Validate() error {
	if s.Preset != "" {
		if _, ok := Presets[s.Preset]; !ok {
			return fmt.Errorf("preset: unknown preset %q (expected one of: %s)", s.Preset, presetNames())
		}
	}
	for i, p := range s.Forbid {
		if _, err := CompilePattern(p); err != nil {
			return fmt.Errorf("forbid[%d]: %w", i, err)
		}
	}
	for i, a := range s.Against {
		if strings.TrimSpace(a) == "" {
			return fmt.Errorf("against[%d]: empty entry (expected a package name or a path)", i)
		}
	}
	for i, h := range s.Host {
		if strings.TrimSpace(h) == "" {
			return fmt.Errorf("host[%d]: empty entry (expected a library file or directory)", i)
		}
	}
	if err := s.Wheel.Validate(); err != nil {
		return fmt.Errorf("wheel.%w", err)
	}
	return nil
}

// Resolve returns s with its preset's lists added in front of its own,
// duplicates dropped and Preset cleared, so resolving twice changes nothing.
func (s Spec) Resolve() (Spec, error) {
	if err := s.Validate(); err != nil {
		return Spec{}, err
	}
	out := Spec{Host: slices.Clone(s.Host), Wheel: s.Wheel}
	var forbid, against []string
	if s.Preset != "" {
		p := Presets[s.Preset]
		forbid = append(forbid, p.Forbid...)
		against = append(against, p.Against...)
	}
	out.Forbid = dedup(append(forbid, s.Forbid...))
	out.Against = dedup(append(against, s.Against...))
	return out, nil
}

// dedup drops repeated strings, keeping the first of each.
func dedup(list []string) []string {
	if len(list) == 0 {
		return nil
	}
	seen := make(map[string]bool, len(list))
	out := make([]string, 0, len(list))
	for _, s := range list {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

var (
	platformTag = regexp.MustCompile(`^[a-z0-9_]+$`)
	pythonTag   = regexp.MustCompile(`^[a-z]+[0-9_]*$`)
)

// Validate checks that the tags have the form of PEP 425 tags.
func (w *WheelSpec) Validate() error {
	if w.Platform != "" && !platformTag.MatchString(w.Platform) && !wheel.KnownSubdir(w.Platform) {
		return fmt.Errorf("platform: bad platform %q (expected a PEP 425 tag such as manylinux_2_17_x86_64, a family such as manylinux_x86_64 or macosx_arm64, or a conda platform such as linux-64)", w.Platform)
	}
	if w.Python != "" && !pythonTag.MatchString(w.Python) && !pythonVersion.MatchString(w.Python) {
		return fmt.Errorf("python: bad Python %q (expected a version such as 3.12 or a PEP 425 tag such as cp312)", w.Python)
	}
	return nil
}

var pythonVersion = regexp.MustCompile(`^3\.[0-9]{1,2}$`)

// Match reports whether the wheel file name (PEP 427:
// name-version[-build]-python-abi-platform.whl) carries the wanted tags.
// Compressed tag sets ("manylinux_2_17_x86_64.manylinux2014_x86_64") match
// if any member does. Python is a version ("3.12": a cp312, abi3 or py3
// wheel serves it) or an exact tag ("cp312"). Platform is an exact tag, a
// family without its glibc or macOS version ("manylinux_x86_64" matches
// manylinux2014_x86_64 and manylinux_2_28_x86_64; also musllinux_ and
// macosx_), or a conda platform ("linux-64"); "any" wheels always match.
// With no platform given, only Linux x86-64 wheels (and "any") match.
func (w WheelSpec) Match(filename string) bool {
	name, err := wheel.Parse(path.Base(filename))
	if err != nil {
		return false
	}
	for _, t := range name.Tags {
		if w.pythonMatches(t) && w.platformMatches(t.Platform) {
			return true
		}
	}
	return false
}

func (w WheelSpec) pythonMatches(t sources.Tag) bool {
	switch {
	case w.Python == "":
		return true
	case pythonVersion.MatchString(w.Python):
		return wheel.PythonServes(t, w.Python)
	}
	return t.Python == w.Python
}

func (w WheelSpec) platformMatches(p string) bool {
	plat := w.Platform
	if plat == "" {
		plat = "linux-64"
	}
	switch {
	case p == "any" || p == plat:
		return true
	case wheel.KnownSubdir(plat):
		return wheel.PlatformServes(p, plat)
	}
	for _, family := range []string{"manylinux_", "musllinux_", "macosx_"} {
		if arch, ok := strings.CutPrefix(plat, family); ok && !strings.ContainsAny(arch[:1], "0123456789") {
			return strings.HasPrefix(p, strings.TrimSuffix(family, "_")) && strings.HasSuffix(p, "_"+arch)
		}
	}
	return false
}
