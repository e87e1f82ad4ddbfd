package probe

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode"
)

// A Spec is one probe as written in the configuration: either a dotted Path with
// an Expect kind (and optionally SourceContains and Signature), or a Run snippet
// with Expect "pass" or "fail", or a Preset name standing for several probes.
type Spec struct {
	Preset         string `yaml:"preset,omitempty" json:"preset,omitempty"`
	Name           string `yaml:"name,omitempty" json:"name,omitempty"`
	Path           string `yaml:"path,omitempty" json:"path,omitempty"`
	Expect         string `yaml:"expect,omitempty" json:"expect,omitempty"`
	SourceContains string `yaml:"source-contains,omitempty" json:"source-contains,omitempty"`
	Signature      string `yaml:"signature,omitempty" json:"signature,omitempty"`
	// SignatureAnnotations compares the signature's annotations too (in a
	// canonical spelling); by default only names, kinds, order and which
	// parameters have defaults count.
	SignatureAnnotations bool   `yaml:"signature-annotations,omitempty" json:"signature-annotations,omitempty"`
	Run                  string `yaml:"run,omitempty" json:"run,omitempty"`
}

// ExpectExists, ExpectModule, ExpectClass, ExpectCallable, ExpectIterator,
// ExpectAbsent and ExpectInstanceAttribute are the expect kinds of a path probe;
// ExpectTypeOf followed by a type name is one too. ExpectAbsent holds when the
// path does not resolve (a module or name that must not appear);
// ExpectInstanceAttribute holds for pkg.mod.Class.attr when a method of the
// class (or of a base) assigns self.attr.
const (
	ExpectExists            = "exists"
	ExpectModule            = "module"
	ExpectClass             = "class"
	ExpectCallable          = "callable"
	ExpectIterator          = "iterator"
	ExpectTypeOf            = "type:"
	ExpectAbsent            = "absent"
	ExpectInstanceAttribute = "instance-attribute"
)

// pathKinds lists the expect kinds of a path probe, for messages.
const pathKinds = "exists, module, class, callable, iterator, type:NAME, absent or instance-attribute"

// ExpectPass and ExpectFail are the expect values of a run snippet: it must
// complete ("pass") or raise ("fail", a canary for an upstream bug that a
// workaround depends on).
const (
	ExpectPass = "pass"
	ExpectFail = "fail"
)

// Validate reports the first problem with s as a configuration error: a path that
// is not dotted identifiers, an unknown expect kind, a snippet without expect, both
// or neither of path and run, options that do not apply, an unknown preset.
func (s *Spec) Validate() error {
	if s.Preset != "" {
		if _, ok := presets[s.Preset]; !ok {
			return fmt.Errorf("preset: unknown preset %q (known: %s)", s.Preset, strings.Join(PresetNames(), ", "))
		}
		if *s != (Spec{Preset: s.Preset}) {
			return errors.New("preset: a preset stands alone; put other keys in a probe of their own")
		}
		return nil
	}
	switch {
	case s.Path != "" && s.Run != "":
		return errors.New("a probe has either path or run, not both")
	case s.Path == "" && s.Run == "":
		return errors.New("a probe needs path (a dotted name to look up) or run (a snippet), or a preset")
	case s.Run != "":
		switch s.Expect {
		case ExpectPass, ExpectFail:
		case "":
			return errors.New("expect: a run snippet needs expect: pass or expect: fail")
		default:
			return fmt.Errorf("expect: a run snippet expects pass or fail, not %q", s.Expect)
		}
		if s.SourceContains != "" || s.Signature != "" || s.SignatureAnnotations {
			return errors.New("source-contains, signature and signature-annotations apply to a path, not to a run snippet")
		}
		if strings.TrimSpace(s.Run) == "" {
			return errors.New("run: the snippet is empty")
		}
		return nil
	}
	if err := checkDotted(s.Path); err != nil {
		return fmt.Errorf("path: %w", err)
	}
	kind := s.expectKind()
	switch {
	case kind == ExpectExists, kind == ExpectModule, kind == ExpectClass, kind == ExpectCallable, kind == ExpectIterator, kind == ExpectAbsent:
	case kind == ExpectInstanceAttribute:
		if strings.Count(s.Path, ".") < 2 {
			return fmt.Errorf("expect: instance-attribute needs a path module.Class.attr, not %q", s.Path)
		}
	case strings.HasPrefix(kind, ExpectTypeOf):
		if err := checkDotted(strings.TrimPrefix(kind, ExpectTypeOf)); err != nil {
			return fmt.Errorf("expect: %s: type name: %w", kind, err)
		}
	case kind == ExpectPass || kind == ExpectFail:
		return fmt.Errorf("expect: %s applies to a run snippet; a path expects %s", kind, pathKinds)
	default:
		return fmt.Errorf("expect: unknown kind %q (want %s)", s.Expect, pathKinds)
	}
	if s.SourceContains != "" && (kind == ExpectIterator || strings.HasPrefix(kind, ExpectTypeOf) || kind == ExpectAbsent || kind == ExpectInstanceAttribute) {
		return fmt.Errorf("source-contains needs a module, class or callable, not expect: %s", kind)
	}
	if s.SignatureAnnotations && s.Signature == "" {
		return errors.New("signature-annotations applies to a signature; add signature: \"(...)\"")
	}
	if s.Signature != "" {
		if kind != ExpectCallable && kind != ExpectClass && kind != ExpectExists {
			return fmt.Errorf("signature needs a callable or class, not expect: %s", kind)
		}
		if _, err := parseSignature(s.Signature); err != nil {
			return fmt.Errorf("signature: %w", err)
		}
	}
	return nil
}

// expectKind is Expect with its default: a path with no expect checks existence.
func (s *Spec) expectKind() string {
	if s.Expect == "" && s.Run == "" {
		return ExpectExists
	}
	return s.Expect
}

// Canary reports whether s is a behaviour canary: a snippet expected to fail while
// an upstream bug is still there.
func (s *Spec) Canary() bool { return s.Run != "" && s.Expect == ExpectFail }

// DisplayName is the name shown in reports: Name, else Path, else the first line of
// the snippet.
func (s *Spec) DisplayName() string {
	switch {
	case s.Name != "":
		return s.Name
	case s.Path != "":
		return s.Path
	}
	first, _, _ := strings.Cut(strings.TrimSpace(s.Run), "\n")
	if len(first) > 60 {
		first = first[:57] + "..."
	}
	return "run: " + first
}

func checkDotted(p string) error {
	if p == "" {
		return errors.New("empty name")
	}
	for _, seg := range strings.Split(p, ".") {
		if !isIdentifier(seg) {
			if seg == "" {
				return fmt.Errorf("%q is not dotted identifiers (empty segment)", p)
			}
			return fmt.Errorf("%q is not dotted identifiers (%q is not a Python identifier)", p, seg)
		}
	}
	return nil
}

func isIdentifier(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if r == '_' || unicode.IsLetter(r) || unicode.Is(unicode.Nl, r) ||
			(i > 0 && (unicode.IsDigit(r) || unicode.In(r, unicode.Mn, unicode.Mc, unicode.Pc))) {
			continue
		}
		return false
	}
	return !pyKeywords[s]
}

var pyKeywords = map[string]bool{
	"False": true, "None": true, "True": true, "and": true, "as": true, "assert": true,
	"async": true, "await": true, "break": true, "class": true, "continue": true, "def": true,
	"del": true, "elif": true, "else": true, "except": true, "finally": true, "for": true,
	"from": true, "global": true, "if": true, "import": true, "in": true, "is": true,
	"lambda": true, "nonlocal": true, "not": true, "or": true, "pass": true, "raise": true,
	"return": true, "try": true, "while": true, "with": true, "yield": true,
}

// Expand replaces each preset in specs by the probes it stands for and validates
// every spec. The result is a new slice; specs is not modified.
func Expand(specs []Spec) ([]Spec, error) {
	var out []Spec
	for i := range specs {
		s := specs[i]
		if err := s.Validate(); err != nil {
			return nil, fmt.Errorf("probes[%d]: %w", i, err)
		}
		if s.Preset != "" {
			out = append(out, presets[s.Preset].Specs...)
			continue
		}
		out = append(out, s)
	}
	return out, nil
}

// A Preset is a named, documented set of probes for a known upstream situation.
type Preset struct {
	Name string
	// Package is the package (its PEP 503 name) whose internals the preset
	// probes: pinbot init offers the preset when a repository pins it.
	Package string
	Doc     string
	Specs   []Spec
}

// PresetNames returns the names of the built-in presets, sorted.
func PresetNames() []string {
	names := make([]string, 0, len(presets))
	for n := range presets {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// LookupPreset returns the built-in preset called name.
func LookupPreset(name string) (Preset, bool) {
	p, ok := presets[name]
	p.Specs = slices.Clone(p.Specs)
	return p, ok
}
