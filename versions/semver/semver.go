// Package semver implements the version scheme of Go modules: semantic versions
// with a "v" prefix, as golang.org/x/mod/semver reads them
// (https://go.dev/ref/mod#versions, https://semver.org/spec/v2.0.0.html).
//
// Versions are vMAJOR[.MINOR[.PATCH[-PRERELEASE][+BUILD]]]; the shorthands v1
// and v1.2 are accepted, as x/mod/semver accepts them (it reads them as v1.0.0
// and v1.2.0). Ordering is x/mod/semver's: build metadata is ignored, and invalid
// versions sort below valid ones and equal each other. Pseudo-versions
// (v0.0.0-20260724033716-83e58baca724) are pre-releases.
//
// A go.mod require is a minimum, not a range: minimal version selection builds
// with the greatest minimum any module in the build requires. So a constraint is
// one bare version, parsed as a single clause with Op versions.Exact (the op of
// a bare version: its span is just the version, and Clause.ImpliedUpper keeps
// versions.NewUpper from appending a cap that go.mod cannot hold), and Match
// reads it as "this version or later, on the same module path". pinbot does not
// use NewUpper for go.mod: a bump raises the required version, through
// golang.org/x/mod/modfile.
package semver

import (
	"strings"

	"golang.org/x/mod/module"
	"golang.org/x/mod/semver"

	"github.com/pinbot-dev/pinbot/versions"
)

// Name is the scheme's identifier.
const Name = "semver"

// Scheme is the Go module version scheme.
type Scheme struct{}

var _ versions.Scheme = Scheme{}

// Name returns "semver".
func (Scheme) Name() string { return Name }

// Valid reports whether v is a semantic version with the "v" prefix, such as
// v1.2.3, v0.0.0-20260724033716-83e58baca724 or v2.0.1+incompatible.
func (Scheme) Valid(v string) bool { return semver.IsValid(v) }

// Compare orders a and b as semver.Compare does: build metadata is ignored, and
// invalid versions sort lowest and equal each other.
func (Scheme) Compare(a, b string) int { return semver.Compare(a, b) }

// Prerelease reports whether v has a pre-release part (v1.2.0-rc.1), which every
// pseudo-version has.
func (Scheme) Prerelease(v string) bool {
	return semver.IsValid(v) && (semver.Prerelease(v) != "" || module.IsPseudoVersion(v))
}

// ParseConstraint parses the version of a go.mod require, such as "v1.2.3",
// into one clause with Op versions.Exact that means "v1.2.3 or later" (see the
// package comment). Space around the version is allowed; operators, lists and
// the empty string are errors, since a go.mod requirement names one version.
func (Scheme) ParseConstraint(text string) (versions.Constraint, error) {
	fail := func(off int, msg string) (versions.Constraint, error) {
		return versions.Constraint{}, &versions.SyntaxError{Text: text, Offset: off, Msg: msg}
	}
	start := 0
	for start < len(text) && isSpace(text[start]) {
		start++
	}
	end := len(text)
	for end > start && isSpace(text[end-1]) {
		end--
	}
	v := text[start:end]
	switch {
	case v == "":
		return fail(start, "expected a version: a go.mod requirement names one minimum version")
	case strings.ContainsAny(v[:1], "<>=!~^"):
		return fail(start, "a go.mod requirement is a bare minimum version, without an operator")
	case strings.ContainsAny(v, " \t,|"):
		return fail(start+strings.IndexAny(v, " \t,|"), "a go.mod requirement names one version")
	case !semver.IsValid(v):
		msg := "invalid Go module version " + v
		if semver.IsValid("v" + v) {
			msg += " (Go module versions start with v)"
		}
		return fail(start, msg)
	}
	return versions.Constraint{
		Text:    text,
		Clauses: []versions.Clause{{Op: versions.Exact, Version: v, Start: start, End: end, VersionStart: start}},
	}, nil
}

// Match reports whether v satisfies every clause of c, each read as a minimum:
// v is that version or later and on the same module path, so v2.0.0 does not
// satisfy v1.2.3 (v2 is module path /v2) but v2.0.0+incompatible does. A clause
// with an operator, or an invalid version, matches nothing.
func (Scheme) Match(v string, c versions.Constraint) bool {
	if !semver.IsValid(v) {
		return false
	}
	for _, cl := range c.Clauses {
		if cl.Op != versions.Exact || !semver.IsValid(cl.Version) {
			return false
		}
		if pathMajor(v) != pathMajor(cl.Version) || semver.Compare(v, cl.Version) < 0 {
			return false
		}
	}
	return true
}

// pathMajor returns the major-version suffix of the module path that v belongs
// to: "" for v0, v1 and +incompatible versions, else the major version ("v2").
func pathMajor(v string) string {
	if semver.Build(v) == "+incompatible" {
		return ""
	}
	if m := semver.Major(v); m != "v0" && m != "v1" {
		return m
	}
	return ""
}

func isSpace(b byte) bool { return b == ' ' || b == '\t' }
