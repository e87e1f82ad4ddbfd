// Package report holds the result of a pinbot run and renders it: text for
// people, Markdown for pull-request bodies and the GitHub step summary, JSON for
// machines. Renderers are pure functions of one Report value.
//
// The JSON keys are a contract that users' scripts read: add keys, never rename
// or drop them.
package report

import (
	"encoding/json"
	"io"
)

// SchemaVersion is the version of the JSON layout.
const SchemaVersion = 1

// A Report is the outcome of one check over a repository.
type Report struct {
	Schema   int       `json:"schema"`
	Packages []Package `json:"packages"`
	// Errors are problems not tied to one package, such as a pin file that
	// does not parse.
	Errors []string `json:"errors"`
	// Written lists the files rewritten by --write, relative to the root.
	Written []string `json:"written"`
}

// A Package is the outcome for one watched package.
type Package struct {
	Name string `json:"name"`
	// Newest is the release the caps move to admit: the target.
	Newest string `json:"newest"`
	// Status is current, bump, blocked or error.
	Status string `json:"status"`
	// Sources maps each source to its newest acceptable release.
	Sources map[string]string `json:"sources"`
	// Reason says why the target is what it is.
	Reason string  `json:"reason"`
	Pins   []Pin   `json:"pins"`
	Checks []Check `json:"checks"`
	Error  string  `json:"error"`
}

// A Pin is one requirement of the package and what happens to it.
type Pin struct {
	File   string `json:"file"` // relative to the checked directory
	Line   int    `json:"line"`
	Key    string `json:"key"`
	Before string `json:"before"`
	After  string `json:"after"` // equals Before when the pin does not change
	Reason string `json:"reason"`
	// Narrows is set when the new cap admits less than the old one did.
	Narrows bool `json:"narrows,omitempty"`
	// Skip says why pinbot does not edit this pin.
	Skip string `json:"skip,omitempty"`
}

// A Check is the result of one check (an internal-API probe, a symbol scan)
// against the target release, compared with the currently capped one.
type Check struct {
	Kind      string `json:"kind"` // "probe" or "symbols"
	Name      string `json:"name"`
	OK        bool   `json:"ok"`
	Baseline  string `json:"baseline"`
	Candidate string `json:"candidate"`
	Detail    string `json:"detail"`
}

// Changed reports whether any pin of p changes.
func (p Package) Changed() bool {
	for _, pin := range p.Pins {
		if pin.Before != pin.After {
			return true
		}
	}
	return false
}

// JSON writes r as indented JSON.
func JSON(w io.Writer, r *Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(normalized(r))
}

// normalized returns r with nil slices and maps made empty, so JSON shows []
// and {} rather than null: scripts can iterate without checks.
func normalized(r *Report) *Report {
	c := *r
	c.Schema = SchemaVersion
	if c.Errors == nil {
		c.Errors = []string{}
	}
	if c.Written == nil {
		c.Written = []string{}
	}
	c.Packages = make([]Package, len(r.Packages))
	for i, p := range r.Packages {
		if p.Sources == nil {
			p.Sources = map[string]string{}
		}
		if p.Pins == nil {
			p.Pins = []Pin{}
		}
		if p.Checks == nil {
			p.Checks = []Check{}
		}
		c.Packages[i] = p
	}
	return &c
}
