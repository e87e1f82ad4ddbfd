// Package pyproject reads the requirements of a pyproject.toml: PEP 621
// [project] dependencies and optional-dependencies
// (https://packaging.python.org/en/latest/specifications/pyproject-toml/).
package pyproject

import (
	"fmt"
	"strings"

	"github.com/pelletier/go-toml/v2/unstable"

	"github.com/pinbot-dev/pinbot/internal/diag"
	"github.com/pinbot-dev/pinbot/pins"
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

// requirementList reports whether the value at key is a list of PEP 508 strings.
func requirementList(key []string) bool {
	switch {
	case len(key) == 2 && key[0] == "project" && key[1] == "dependencies":
		return true
	case len(key) == 3 && key[0] == "project" && key[1] == "optional-dependencies":
		return true
	}
	return false
}

// Extract returns the requirements of data in file order.
func (Format) Extract(path string, data []byte) ([]pins.Pin, error) {
	var out []pins.Pin
	var errs diag.List
	err := tomlwalk.Walk(path, data, func(d *tomlwalk.Doc, v tomlwalk.Value) error {
		if !requirementList(v.Key) {
			return nil
		}
		label := strings.Join(v.Key, ".")
		if v.Node.Kind != unstable.Array {
			line, col := d.Position(v.Node)
			errs = append(errs, diag.Errorf(path, line, col, label, "expected an array of requirement strings, found %s", v.Node.Kind))
			return nil
		}
		for i, el := range tomlwalk.Elements(v.Node) {
			key := fmt.Sprintf("%s[%d]", label, i)
			line, col := d.Position(el)
			s, ok := d.StringAt(el)
			if !ok {
				errs = append(errs, diag.Errorf(path, line, col, key, "expected a requirement string, found %s", el.Kind))
				continue
			}
			req, err := pep508.Parse(s.Value)
			if err != nil {
				errs = append(errs, &diag.Error{File: path, Line: line, Col: col, Key: key, Err: err})
				continue
			}
			skip := s.Skip
			if req.URL != "" {
				skip = "direct URL requirement"
			}
			out = append(out, pins.Pin{
				File: path, Line: line, Col: col, Key: key,
				Package:    pep508.Normalize(req.Name),
				Text:       s.Value,
				Constraint: req.Specifier,
				Span:       pins.Span{Start: s.Start + req.SpecStart, End: s.Start + req.SpecEnd},
				TextStart:  s.Start,
				Source:     "pypi",
				Scheme:     "pep440",
				Skip:       skip,
			})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, errs.Err()
}
