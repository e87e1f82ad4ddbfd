package symbols

import (
	"fmt"
	"slices"
	"strings"

	"github.com/pinbot-dev/pinbot/sources/condafile"
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
	// Host lists libraries of the environment: files, directories or globs,
	// absolute ("/usr/lib/x86_64-linux-gnu/libprotobuf.so.32*") or relative
	// to the repository root ("build/lib/*.so"); see ResolveHost.
	Host []string `yaml:"host"`
	// Wheel chooses which of a release's wheels is scanned.
	Wheel WheelSpec `yaml:"wheel"`
	// Conda chooses which of a release's conda package files is scanned
	// when the check reads conda packages.
	Conda CondaSpec `yaml:"conda"`
	// Artifact is what the check reads: "wheel" (from PyPI) or "conda"
	// (from the channel that governs the package's conda pins); "" reads
	// conda packages when every pin that moves is a conda pin, else wheels.
	Artifact string `yaml:"artifact"`
}

// The values of Spec.Artifact.
const (
	ArtifactWheel = "wheel"
	ArtifactConda = "conda"
)

// A CondaSpec says which platform subdir and Python a release's conda
// package file is chosen for (sources/condafile.Choose).
type CondaSpec struct {
	// Subdir is a conda platform ("linux-64", the default; "osx-arm64").
	Subdir string `yaml:"subdir"`
	// Python is a CPython version ("3.11") or tag ("cp311"); empty means
	// the newest Python the candidate has a build for.
	Python string `yaml:"python"`
}

// Validate checks that the subdir and Python are spelled as expected.
func (c *CondaSpec) Validate() error {
	if c.Subdir != "" && !condafile.KnownSubdir(c.Subdir) {
		return fmt.Errorf("subdir: %q is not a conda platform (expected one of: %s)", c.Subdir, strings.Join(condafile.KnownSubdirs, ", "))
	}
	if c.Python != "" {
		if _, err := wheel.ParsePython(c.Python); err != nil {
			return fmt.Errorf("python: %w", err)
		}
	}
	return nil
}

// Target returns what conda package files are chosen for.
func (c CondaSpec) Target() condafile.Target {
	t := condafile.Target{Subdir: c.Subdir}
	if c.Python != "" {
		t.Python, _ = wheel.ParsePython(c.Python)
	}
	return t
}

// A WheelSpec says which interpreter and platform a release's wheel is
// chosen for, as pip chooses (sources/wheel.Choose).
type WheelSpec struct {
	// Platform is a platform tag such as "manylinux_2_17_x86_64" (that glibc
	// level or older), a family such as "manylinux_x86_64" (any level) or a
	// conda platform such as "linux-64"; empty means this machine's.
	Platform string `yaml:"platform"`
	// Python is a CPython version ("3.11") or tag ("cp311"); empty means
	// the probe interpreter's version.
	Python string `yaml:"python"`
}

// A Preset is a named, built-in set of forbid patterns and against packages.
type Preset struct {
	Name string
	// Package is the package (its PEP 503 name) whose libraries the preset
	// scans: pinbot init offers the preset when a repository pins it.
	Package     string
	Description string
	Forbid      []string
	Against     []string
}

// Presets are the built-in presets, by name.
var Presets = map[string]Preset{
	"tensorflow-protobuf": {
		Name:    "tensorflow-protobuf",
		Package: "tensorflow",
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
	if err := s.Conda.Validate(); err != nil {
		return fmt.Errorf("conda.%w", err)
	}
	switch s.Artifact {
	case "", ArtifactWheel, ArtifactConda:
	default:
		return fmt.Errorf("artifact: expected wheel or conda, found %q", s.Artifact)
	}
	return nil
}

// Resolve returns s with its preset's lists added in front of its own,
// duplicates dropped and Preset cleared, so resolving twice changes nothing.
func (s Spec) Resolve() (Spec, error) {
	if err := s.Validate(); err != nil {
		return Spec{}, err
	}
	out := Spec{Host: slices.Clone(s.Host), Wheel: s.Wheel, Conda: s.Conda, Artifact: s.Artifact}
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

// Validate checks that the platform and Python are ones sources/wheel reads.
func (w *WheelSpec) Validate() error {
	if w.Platform != "" {
		if _, err := wheel.ParsePlatform(w.Platform); err != nil {
			return fmt.Errorf("platform: %w", err)
		}
	}
	if w.Python != "" {
		if _, err := wheel.ParsePython(w.Python); err != nil {
			return fmt.Errorf("python: %w", err)
		}
	}
	return nil
}

// Target returns the interpreter and platform wheels are chosen for
// (wheel.Choose): the configured ones, else the defaults given (this
// machine's platform and the probe interpreter's version, in pinbot check).
func (w WheelSpec) Target(def wheel.Target) (wheel.Target, error) {
	t := def
	if w.Platform != "" {
		p, err := wheel.ParsePlatform(w.Platform)
		if err != nil {
			return wheel.Target{}, fmt.Errorf("wheel.platform: %w", err)
		}
		t.Platform = p
	}
	if w.Python != "" {
		py, err := wheel.ParsePython(w.Python)
		if err != nil {
			return wheel.Target{}, fmt.Errorf("wheel.python: %w", err)
		}
		t.Python = py
	}
	return t, nil
}
