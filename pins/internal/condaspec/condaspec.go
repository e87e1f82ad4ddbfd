// Package condaspec holds what the conda pin formats share: the Source of a
// pin from the channels a file names (an environment.yml channels list, a
// "conda-forge::numba" prefix, a pixi workspace's channels; see
// https://docs.conda.io/projects/conda/en/latest/user-guide/concepts/channels.html),
// and the pin of one MatchSpec (pins/matchspec).
package condaspec

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/pinbot-dev/pinbot/pins"
	"github.com/pinbot-dev/pinbot/pins/matchspec"
)

// Default is the Source of a conda pin whose file names no channel: the
// channel the user has configured, which the caller maps.
const Default = "conda"

// subdirs are conda platform subdirectories, which a channel may end with
// ("conda-forge/linux-64::numba").
var subdirs = map[string]bool{
	"noarch": true, "linux-64": true, "linux-32": true, "linux-aarch64": true,
	"linux-armv6l": true, "linux-armv7l": true, "linux-ppc64": true, "linux-ppc64le": true,
	"linux-riscv64": true, "linux-s390x": true, "osx-64": true, "osx-arm64": true,
	"win-32": true, "win-64": true, "win-arm64": true, "emscripten-wasm32": true,
	"wasi-wasm32": true, "zos-z": true,
}

// hosts serve channels at https://HOST/NAME, as conda.anaconda.org/conda-forge
// and its mirror prefix.dev/conda-forge do.
var hosts = map[string]bool{
	"conda.anaconda.org": true, "anaconda.org": true, "prefix.dev": true, "repo.prefix.dev": true,
}

// Source returns the Source for a channel as written. A name stays as it is
// ("conda-forge"), and so does a label channel ("numba/label/dev": the label is
// part of the channel's address, and its releases, pre-releases included, are
// not the main label's). A URL on anaconda.org or prefix.dev becomes the
// channel's name, without a token ("https://prefix.dev/conda-forge" is
// "conda-forge"); another URL stays as written, without user information or a
// trailing "/". A trailing platform subdirectory is dropped. "" gives Default.
func Source(ch string) string {
	ch = strings.TrimRight(strings.TrimSpace(ch), "/")
	if strings.Contains(ch, "://") {
		if u, err := url.Parse(ch); err == nil {
			u.User = nil
			if hosts[strings.ToLower(u.Host)] && (u.Scheme == "https" || u.Scheme == "http") {
				ch = strings.Trim(u.Path, "/")
				if rest, ok := strings.CutPrefix(ch, "t/"); ok { // /t/<token>/channel
					if _, after, ok := strings.Cut(rest, "/"); ok {
						ch = after
					}
				}
			} else {
				ch = strings.TrimRight(u.String(), "/")
			}
		}
	}
	if i := strings.LastIndexByte(ch, '/'); i >= 0 && subdirs[ch[i+1:]] {
		ch = ch[:i]
	}
	if ch == "" {
		return Default
	}
	return ch
}

// A Channel is one entry of a file's channel list as written, and where it
// is written.
type Channel struct {
	Name string
	At   pins.Place
}

// List returns the channels of a file's channel list that name one, in the
// list's order, each once, as a Pin.Source names it (Source), with where
// each is first written: "defaults" (Anaconda's channels, whatever conda is
// configured with), "nodefaults" (an instruction, not a channel) and entries
// that name no channel (empty, a URL of a host with no channel path) are
// passed over. It is the list a conda pin of the file that names no channel
// of its own follows (Pin.Channels).
func List(channels []Channel) []pins.Channel {
	var out []pins.Channel
	seen := map[string]bool{}
	for _, ch := range channels {
		switch strings.TrimSpace(ch.Name) {
		case "defaults", "nodefaults", "":
			continue
		}
		if s := Source(ch.Name); s != Default && !seen[s] {
			seen[s] = true
			out = append(out, pins.Channel{Name: s, At: ch.At})
		}
	}
	return out
}

// First returns the Source of the first channel of list (List's), which
// the file's pins follow until the planner finds which channel has the
// package; with none, Default.
func First(list []pins.Channel) string {
	if len(list) == 0 {
		return Default
	}
	return list[0].Name
}

// Locate sets p.SourceAt once the caller has placed p (Line, Col, Key): the
// first entry of p.Channels when p follows its file's channel list, else
// the pin's own place when its spec names its channel; a pin that follows
// Default keeps the zero Place.
func Locate(p *pins.Pin) {
	switch {
	case len(p.Channels) > 0:
		p.SourceAt = p.Channels[0].At
	case p.Source != Default:
		p.SourceAt = pins.Place{Line: p.Line, Col: p.Col, Key: p.Key}
	}
}

// Pin returns the pin of the MatchSpec text, which starts at file offset
// start: Package, Text, TextStart, Constraint, Span, Insert, Source (the
// spec's channel, else the first of channels, the file's List, else
// Default), Channels (channels, unless the spec names its channel) and
// Scheme "conda"; the caller sets File, Line, Col and Key, then calls
// Locate. A templated spec ("{{ compiler('c') }}", "python >=${{ python_min }}"),
// a regular-expression version and a build string naming one build
// (BuildSkip) come back with Skip set; any other spec matchspec refuses is an
// error (a *matchspec.Error).
func Pin(text string, start int, channels []pins.Channel) (pins.Pin, error) {
	p := pins.Pin{Text: text, TextStart: start, Source: First(channels), Scheme: "conda", Channels: channels}
	sp, err := matchspec.Parse(text)
	if errors.Is(err, matchspec.ErrTemplated) {
		// The constraint is reported as written: the text after the name, or
		// all of it when the name is templated too.
		p.Package = matchspec.Normalize(TemplateName(text))
		cs, ce := 0, len(strings.TrimRight(text, " \t"))
		if name := LeadingName(text); !strings.Contains(name, "{") {
			cs = strings.Index(text, name) + len(name)
			for cs < ce && (text[cs] == ' ' || text[cs] == '\t') {
				cs++
			}
		}
		p.Constraint = text[cs:ce]
		p.Span = pins.Span{Start: start + cs, End: start + ce}
		p.Skip = "templated: no version until the recipe is rendered"
		return p, nil
	}
	if err != nil {
		return pins.Pin{}, err
	}
	p.Package = matchspec.Normalize(sp.Name)
	p.Constraint = sp.Constraint
	p.Span = pins.Span{Start: start + sp.ConstraintStart, End: start + sp.ConstraintEnd}
	p.Insert = sp.Insert
	if sp.Channel != "" {
		p.Source, p.Channels = Source(sp.Channel), nil // that channel only
	}
	if strings.HasPrefix(sp.Constraint, "^") || strings.HasSuffix(sp.Constraint, "$") {
		p.Skip = "regular-expression version"
	}
	if p.Skip == "" {
		p.Skip = BuildSkip(sp.Build, sp.Constraint)
	}
	return p, nil
}

// oneBuild reports whether a build string names one build of one version
// ("py37hecd8cb5_0", "mkl"), rather than selecting a variant of any version
// with a glob ("py312*", "*cuda*"): such a build string belongs to the
// version it was built for.
func oneBuild(build string) bool {
	return build != "" && !strings.ContainsAny(build, "*?[")
}

// BuildSkip returns why a conda pin whose build string is build (after the
// version, in brackets or a pixi table's build key), with the version
// constraint constraint, must be left as written; it returns "" when the pin
// may move. A build string that names one build (oneBuild) belongs to the
// version it was built for, which no other version has; nor can it simply go,
// since that changes what the pin asks for ("setuptools=58.0.4=py37hecd8cb5_0"
// would become "setuptools 85.0.0"). This is the one decision on build strings
// for every format that reads MatchSpecs, under every strategy.
func BuildSkip(build, constraint string) string {
	if !oneBuild(build) {
		return ""
	}
	if constraint == "" {
		constraint = "the version"
	}
	return fmt.Sprintf("the build string %s names one build of %s, which another version does not have: left as written", build, constraint)
}

// IsFileOrURL reports whether err is matchspec's refusal of a package file or
// URL, which is not a named requirement.
func IsFileOrURL(err error) bool {
	var me *matchspec.Error
	return errors.As(err, &me) && strings.Contains(me.Msg, "package file or URL")
}

// LeadingName returns the package name at the start of a templated spec as
// written ("libtensorflow_framework" of "libtensorflow_framework {{ version }}"),
// or the whole spec when the name itself is templated
// ("cross-python_{{ target_platform }}").
func LeadingName(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndex(s, "::"); i >= 0 && !strings.Contains(s[:i], "{") {
		s = s[i+2:]
	}
	end := 0
	for end < len(s) && !strings.ContainsRune(" \t=<>!~[", rune(s[end])) {
		end++
	}
	if strings.Contains(s[:end], "{") {
		return s
	}
	return s[:end]
}

// TemplateName returns the package a templated spec stands for, when the
// template says: the first argument of pin_compatible and pin_subpackage, the
// variant names of compiler and stdlib ("c_compiler", "c_stdlib"), else the
// name at the start of the spec as written (see LeadingName). Both Jinja
// ({{ }}) and rattler-build (${{ }}) templates are read.
func TemplateName(text string) string {
	t := strings.TrimSpace(text)
	if in, ok := strings.CutPrefix(strings.TrimPrefix(t, "$"), "{{"); ok {
		if i := strings.Index(in, "}}"); i >= 0 {
			in = in[:i]
		}
		in = strings.TrimSpace(strings.Trim(strings.TrimSpace(in), "-+"))
		if fn, args, ok := strings.Cut(in, "("); ok {
			arg := firstString(args)
			switch fn = strings.TrimSpace(fn); fn {
			case "pin_compatible", "pin_subpackage", "cdt":
				if arg != "" {
					return arg
				}
			case "compiler", "stdlib":
				if arg != "" {
					return arg + "_" + fn
				}
			}
		}
	}
	return LeadingName(t)
}

// firstString returns the text of the first quoted string in s.
func firstString(s string) string {
	i := strings.IndexAny(s, `"'`)
	if i < 0 {
		return ""
	}
	j := strings.IndexByte(s[i+1:], s[i])
	if j < 0 {
		return ""
	}
	return s[i+1 : i+1+j]
}

// Named returns the Sources of a file's channel list in order, as List
// reads them.
func Named(channels []string) []string {
	chs := make([]Channel, len(channels))
	for i, ch := range channels {
		chs[i].Name = ch
	}
	var out []string
	for _, c := range List(chs) {
		out = append(out, c.Name)
	}
	return out
}
