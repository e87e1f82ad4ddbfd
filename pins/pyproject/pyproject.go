// Package pyproject reads the requirements of a pyproject.toml
// (https://packaging.python.org/en/latest/specifications/pyproject-toml/):
//
//   - PEP 621 [project] dependencies and optional-dependencies;
//
//   - PEP 518 [build-system] requires;
//
//   - PEP 735 [dependency-groups] (https://peps.python.org/pep-0735/), whose
//     {include-group = "..."} entries are not requirements and are left alone;
//
//   - Poetry's [tool.poetry.dependencies], [tool.poetry.dev-dependencies] and
//     [tool.poetry.group.NAME.dependencies]
//     (https://python-poetry.org/docs/dependency-specification/), as strings
//     (numba = "^0.56.0") or tables with a version key, read with the "poetry"
//     version scheme (^, ~, a bare version meaning ==).
//
//   - uv's [tool.uv] constraint-dependencies, override-dependencies,
//     dev-dependencies and build-constraint-dependencies
//     (https://docs.astral.sh/uv/reference/settings/), PEP 508 strings;
//
//   - pixi's manifest in a pyproject (https://pixi.sh/latest/python/pyproject_toml/):
//     [tool.pixi.dependencies], [tool.pixi.host-dependencies],
//     [tool.pixi.build-dependencies] and [tool.pixi.pypi-dependencies], also
//     under [tool.pixi.feature.NAME] and [tool.pixi.target.PLATFORM], read as
//     pins/pixi reads pixi.toml (pins/internal/piximan): conda MatchSpec
//     versions and PEP 440 specifiers.
//
// PEP 508 strings use the "pep440" scheme. [tool.uv.sources] and
// [[tool.uv.index]] name indexes rather than versions and are not read.
package pyproject

import (
	"bytes"
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/pelletier/go-toml/v2/unstable"

	"github.com/pinbot-dev/pinbot/internal/diag"
	"github.com/pinbot-dev/pinbot/pins"
	"github.com/pinbot-dev/pinbot/pins/internal/piximan"
	"github.com/pinbot-dev/pinbot/pins/internal/tomlwalk"
	"github.com/pinbot-dev/pinbot/pins/pep508"
)

// Name is the format's identifier.
const Name = "pyproject"

// Format reads pyproject.toml files.
type Format struct{}

var _ pins.Format = Format{}

// Name returns "pyproject".
func (Format) Name() string { return Name }

// Match reports whether the file is named pyproject.toml.
func (Format) Match(path string) bool { return pins.Base(path) == "pyproject.toml" }

// A listKind says what an array of requirement strings is.
type listKind int

const (
	notList     listKind = iota
	pep508List           // every element is a PEP 508 string
	dependGroup          // PEP 735: PEP 508 strings and {include-group = ...} tables
)

// requirementList says whether the value at key is a list of PEP 508 strings.
func requirementList(key []string) listKind {
	switch {
	case len(key) == 2 && key[0] == "project" && key[1] == "dependencies":
		return pep508List
	case len(key) == 3 && key[0] == "project" && key[1] == "optional-dependencies":
		return pep508List
	case len(key) == 2 && key[0] == "build-system" && key[1] == "requires":
		return pep508List
	case len(key) == 2 && key[0] == "dependency-groups":
		return dependGroup
	case len(key) == 3 && key[0] == "tool" && key[1] == "uv" && uvLists[key[2]]:
		return pep508List
	}
	return notList
}

// uvLists are the keys of [tool.uv] that hold PEP 508 requirements
// (https://docs.astral.sh/uv/reference/settings/): constraints and overrides
// apply to the whole resolution, dev-dependencies is the older spelling of
// the dev dependency group, and build constraints apply to build
// requirements.
var uvLists = map[string]bool{
	"constraint-dependencies": true, "override-dependencies": true, "dev-dependencies": true,
	"build-constraint-dependencies": true,
}

// isBuildList reports whether the requirement list at key is needed to build
// the project rather than to run it.
func isBuildList(key []string) bool {
	return key[0] == "build-system" || len(key) == 3 && key[0] == "tool" && key[2] == "build-constraint-dependencies"
}

// poetryDeps returns how many elements of key name a Poetry dependency table
// ([tool.poetry.dependencies], [tool.poetry.dev-dependencies] or
// [tool.poetry.group.NAME.dependencies]), or 0.
func poetryDeps(key []string) int {
	if len(key) < 3 || key[0] != "tool" || key[1] != "poetry" {
		return 0
	}
	switch {
	case key[2] == "dependencies" || key[2] == "dev-dependencies":
		return 3
	case len(key) >= 5 && key[2] == "group" && key[4] == "dependencies":
		return 5
	}
	return 0
}

var _ pins.ChannelNamer = Format{}

// Channels returns the channels of the pixi workspace in [tool.pixi], in
// order (pins.ChannelNamer); none when the file has no pixi tables.
func (Format) Channels(path string, data []byte) ([]string, error) {
	return piximan.Channels(path, data, "tool", "pixi")
}

// Extract returns the requirements of data in file order.
func (Format) Extract(path string, data []byte) ([]pins.Pin, error) {
	x := &extractor{path: path, data: data}
	var self string // the project's own name
	pixi := piximan.New("tool", "pixi")
	err := tomlwalk.Walk(path, data, func(d *tomlwalk.Doc, v tomlwalk.Value) error {
		x.d = d
		if pixi.Visit(d, v) {
			return nil
		}
		if isNameKey(v.Key) {
			if s, ok := d.StringAt(v.Node); ok {
				self = pep508.Normalize(s.Value)
			}
			return nil
		}
		if kind := requirementList(v.Key); kind != notList {
			n := len(x.out)
			x.list(v, kind)
			if isBuildList(v.Key) {
				markBuild(x.out[n:])
			}
		} else if n := poetryDeps(v.Key); n > 0 && len(v.Key) > n {
			x.poetry(v, n)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	// pixi's tables come back in the order first seen: merge them into file
	// order with the others.
	pp, perrs := pixi.Pins(path, data)
	x.out = append(x.out, pp...)
	x.errs = append(x.errs, perrs...)
	slices.SortStableFunc(x.out, func(a, b pins.Pin) int { return cmp.Or(cmp.Compare(a.Line, b.Line), cmp.Compare(a.Col, b.Col)) })
	slices.SortStableFunc(x.errs, func(a, b *diag.Error) int { return cmp.Or(cmp.Compare(a.Line, b.Line), cmp.Compare(a.Col, b.Col)) })
	for i := range x.out {
		// pytensor's "complete" extra lists pytensor[jax]: a project
		// requiring itself to gather its extras is no pin to move.
		if p := &x.out[i]; self != "" && p.Package == self && p.Skip == "" {
			p.Skip = "the project's own name: it requires itself for its extras"
		}
	}
	return x.out, pins.Skip(x.errs)
}

// isNameKey reports whether key holds the project's name (PEP 621 or Poetry).
func isNameKey(key []string) bool {
	return len(key) == 2 && key[0] == "project" && key[1] == "name" ||
		len(key) == 3 && key[0] == "tool" && key[1] == "poetry" && key[2] == "name"
}

type extractor struct {
	path string
	data []byte
	d    *tomlwalk.Doc
	out  []pins.Pin
	errs diag.List
}

func (x *extractor) errorf(n *unstable.Node, key, format string, args ...any) {
	line, col := x.d.Position(n)
	x.errs = append(x.errs, diag.Errorf(x.path, line, col, key, format, args...))
}

// list reads an array of PEP 508 strings.
func (x *extractor) list(v tomlwalk.Value, kind listKind) {
	label := strings.Join(v.Key, ".")
	if v.Node.Kind != unstable.Array {
		x.errorf(v.Node, label, "expected an array of requirement strings, found %s", v.Node.Kind)
		return
	}
	for i, el := range tomlwalk.Elements(v.Node) {
		key := fmt.Sprintf("%s[%d]", label, i)
		if kind == dependGroup && el.Kind == unstable.InlineTable {
			continue // {include-group = "..."}: not a requirement
		}
		line, col := x.d.Position(el)
		s, ok := x.d.StringAt(el)
		if !ok {
			x.errorf(el, key, "expected a requirement string, found %s", el.Kind)
			continue
		}
		p, err := pep508.Pin(s.Value, s.Start)
		if err != nil {
			x.errs = append(x.errs, &diag.Error{File: x.path, Line: line, Col: col, Key: key, Err: err})
			continue
		}
		p.File, p.Line, p.Col, p.Key = x.path, line, col, key
		if p.Skip == "" {
			p.Skip = s.Skip // a direct URL requirement is named as such first
		}
		x.out = append(x.out, p)
	}
}

// poetry reads one value under a Poetry dependency table; n is the length of
// the table's key, so v.Key[n] is the package name.
func (x *extractor) poetry(v tomlwalk.Value, n int) {
	name, rest := v.Key[n], v.Key[n+1:]
	if name == "python" {
		return // the Python requirement, not a package
	}
	label := strings.Join(v.Key, ".")
	switch {
	case len(rest) == 0 && v.Node.Kind == unstable.String:
		x.poetryVersion(name, label, v.Node)
	case len(rest) == 0 && v.Node.Kind == unstable.Array:
		// Multiple constraints: [{version = "...", python = "..."}, ...].
		for i, el := range tomlwalk.Elements(v.Node) {
			if el.Kind != unstable.InlineTable {
				x.errorf(el, fmt.Sprintf("%s[%d]", label, i), "expected a table with a version, found %s", el.Kind)
				continue
			}
			it := el.Children()
			for it.Next() {
				kv := it.Node()
				if k := keyOf(kv); k == "version" {
					x.poetryVersion(name, fmt.Sprintf("%s[%d].version", label, i), kv.Value())
				}
			}
		}
	case len(rest) == 0:
		x.errorf(v.Node, label, "expected a version string or a table, found %s", v.Node.Kind)
	case len(rest) == 1 && rest[0] == "version":
		x.poetryVersion(name, label, v.Node)
	case len(rest) == 1 && (rest[0] == "git" || rest[0] == "path" || rest[0] == "url"):
		line, col := x.d.Position(v.Node)
		off := x.d.Offset(v.Node)
		text, start := lineAround(x.data, off)
		x.out = append(x.out, pins.Pin{
			File: x.path, Line: line, Col: col, Key: label,
			Package: pep508.Normalize(name), Text: text, TextStart: start,
			Span:   pins.Span{Start: off, End: off},
			Source: "pypi", Scheme: "poetry",
			Skip: rest[0] + " dependency: no version to manage",
		})
	}
}

func keyOf(kv *unstable.Node) string {
	var parts []string
	it := kv.Key()
	for it.Next() {
		parts = append(parts, string(it.Node().Data))
	}
	return strings.Join(parts, ".")
}

// poetryVersion records a Poetry version constraint string.
func (x *extractor) poetryVersion(name, key string, n *unstable.Node) {
	line, col := x.d.Position(n)
	s, ok := x.d.StringAt(n)
	if !ok {
		x.errorf(n, key, "expected a version constraint string, found %s", n.Kind)
		return
	}
	text, start := lineAround(x.data, x.d.Offset(n))
	p := pins.Pin{
		File: x.path, Line: line, Col: col, Key: key,
		Package:    pep508.Normalize(name),
		Text:       text,
		TextStart:  start,
		Constraint: s.Value,
		Span:       pins.Span{Start: s.Start, End: s.Start + len(s.Value)},
		Source:     "pypi",
		Scheme:     "poetry",
		Skip:       s.Skip,
	}
	if s.Skip != "" {
		// The decoded text is not a slice of the file: show it alone, with a
		// span that maps onto it, so the pin reads right and is never edited.
		off := x.d.Offset(n)
		p.Text, p.TextStart, p.Span = s.Value, off, pins.Span{Start: off, End: off + len(s.Value)}
	}
	x.out = append(x.out, p)
}

// lineAround returns the line holding offset off, without its indentation,
// trailing space and line ending, and the file offset where it starts: the
// text a Poetry pin shows, such as `numba = { version = "^0.56.0" }`.
func lineAround(data []byte, off int) (string, int) {
	start := bytes.LastIndexByte(data[:off], '\n') + 1
	end := len(data)
	if i := bytes.IndexByte(data[off:], '\n'); i >= 0 {
		end = off + i
	}
	for start < off && (data[start] == ' ' || data[start] == '\t') {
		start++
	}
	for end > off && (data[end-1] == ' ' || data[end-1] == '\t' || data[end-1] == '\r') {
		end--
	}
	return string(data[start:end]), start
}

// markBuild marks pins as build-time requirements.
func markBuild(ps []pins.Pin) {
	for i := range ps {
		ps[i].Build = true
	}
}
