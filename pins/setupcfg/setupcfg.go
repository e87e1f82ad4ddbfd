// Package setupcfg reads the requirements of a setuptools setup.cfg
// (https://setuptools.pypa.io/en/latest/userguide/declarative_config.html):
// install_requires, setup_requires and tests_require in [options], and every
// key of [options.extras_require]. Each holds PEP 508 requirements, one per
// continuation line or, on the key's own line, separated by ";" as setuptools
// splits them.
//
// The file is read with a line scanner that follows Python's configparser as
// setuptools configures it: a line indented deeper than its key continues the
// value; a line whose first non-blank character is "#" or ";" is a comment,
// also inside a value; "=" or ":" separates a key from its value. INI
// libraries rewrite whole files, so none is used. Values read from a file
// ("file: requirements.txt") are not followed.
//
// Values are interpolated as configparser's BasicInterpolation does, which
// setuptools leaves on: "%(name)s" is the option name of the same section
// or of [DEFAULT], "%%" a literal "%". A line of nothing but references
// ("testing = %(dask)s" followed by more lines) stands for the requirements
// of the options it names, which are read where they are written: it is no
// pin itself. A requirement built around a reference ("numba>=%(min)s") is
// reported with Skip set, and a reference configparser would refuse (to no
// option, a loop, a lone "%") is a skipped entry.
package setupcfg

import (
	"bytes"
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/pinbot-dev/pinbot/internal/diag"
	"github.com/pinbot-dev/pinbot/pins"
	"github.com/pinbot-dev/pinbot/pins/pep508"
)

// Name is the format's identifier.
const Name = "setupcfg"

// Format reads setup.cfg files.
type Format struct{}

var _ pins.Format = Format{}

// Name returns "setupcfg".
func (Format) Name() string { return Name }

// Match reports whether the file is named setup.cfg.
func (Format) Match(path string) bool { return pins.Base(path) == "setup.cfg" }

// requirementKey reports whether key in section holds requirements.
func requirementKey(section, key string) bool {
	key = strings.ReplaceAll(key, "-", "_")
	switch section {
	case "options":
		return key == "install_requires" || key == "setup_requires" || key == "tests_require"
	case "options.extras_require":
		return true
	}
	return false
}

// A physical line of the file.
type line struct {
	n          int    // 1-based
	start, end int    // file offsets, end before "\r\n" or "\n"
	text       string // data[start:end]
}

func lines(data []byte) []line {
	var out []line
	pos, n := 0, 1
	for pos < len(data) {
		end, next := len(data), len(data)
		if i := bytes.IndexByte(data[pos:], '\n'); i >= 0 {
			end, next = pos+i, pos+i+1
		}
		if end > pos && data[end-1] == '\r' {
			end--
		}
		out = append(out, line{n: n, start: pos, end: end, text: string(data[pos:end])})
		pos, n = next, n+1
	}
	return out
}

func indent(s string) int { return len(s) - len(strings.TrimLeft(s, " \t")) }

// A chunk is one requirement's text in a value: on a continuation line, or
// one ";"-separated part of the key's line.
type chunk struct {
	section, key string
	l            line
	off          int // file offset of text
	text         string
}

// walk scans data as configparser does and calls value for every chunk of
// every option (requirement keys or not), in file order. Lines that are no
// option, section or continuation are errors recorded in errs when it is not
// nil.
func walk(path string, data []byte, errs *diag.List, value func(c chunk, keyLine bool)) {
	fail := func(e *diag.Error) {
		if errs != nil {
			*errs = append(*errs, e)
		}
	}
	section, key := "", ""
	keyIndent := -1 // indentation of the current key's line; -1: no key
	for _, l := range lines(data) {
		trimmed := strings.TrimSpace(l.text)
		ind := indent(l.text)
		switch {
		case trimmed == "":
			continue // kept in a value by configparser, dropped by setuptools
		case trimmed[0] == '#' || trimmed[0] == ';':
			continue // a comment, also inside a value
		case keyIndent >= 0 && ind > keyIndent:
			value(chunk{section: section, key: key, l: l, off: l.start + ind, text: l.text[ind:]}, false)
			continue
		case trimmed[0] == '[' && strings.HasSuffix(trimmed, "]"):
			section, key, keyIndent = strings.TrimSpace(trimmed[1:len(trimmed)-1]), "", -1
			continue
		}
		d := strings.IndexAny(l.text, "=:")
		if d < 0 || strings.TrimSpace(l.text[:d]) == "" {
			fail(diag.Errorf(path, l.n, ind+1, section, "expected \"key = value\", a [section] header or an indented continuation, found %q", trimmed))
			keyIndent = -1
			continue
		}
		if section == "" {
			fail(diag.Errorf(path, l.n, ind+1, "", "key %q before any [section] header", strings.TrimSpace(l.text[:d])))
			keyIndent = -1
			continue
		}
		key, keyIndent = strings.TrimSpace(l.text[:d]), ind
		value(chunk{section: section, key: key, l: l, off: l.start + d + 1, text: l.text[d+1:]}, true)
	}
}

// Extract returns the requirements of data in file order.
func (Format) Extract(path string, data []byte) ([]pins.Pin, error) {
	// configparser interpolates each value when it is read, from the options
	// of the whole file: collect them first.
	opts := options{}
	walk(path, data, nil, func(c chunk, _ bool) { opts.add(c) })

	var out []pins.Pin
	var errs diag.List
	counts := map[string]int{}
	// value records one requirement at file offset off.
	value := func(c chunk) {
		text, off := c.text, c.off
		lead := len(text) - len(strings.TrimLeft(text, " \t"))
		text = strings.TrimRight(text[lead:], " \t")
		off += lead
		if text == "" || strings.HasPrefix(text, "#") {
			return
		}
		if i := commentStart(text); i >= 0 {
			text = strings.TrimRight(text[:i], " \t")
		}
		label := c.section + "." + c.key
		k := fmt.Sprintf("%s[%d]", label, counts[label])
		col := off - c.l.start + 1
		fail := func(err error) {
			errs = append(errs, &diag.Error{File: path, Line: c.l.n, Col: col, Key: k, Err: err})
		}
		var skip string
		if strings.Contains(text, "%") {
			expanded, onlyRefs, err := opts.interpolate(c.section, text, 0)
			switch {
			case err != nil:
				counts[label]++
				fail(err)
				return
			case onlyRefs:
				// "%(dask)s": the requirements of another option, found on
				// that option's own lines; this line is no pin itself.
				return
			}
			// Text around a reference ("numba>=%(min)s"): read the
			// requirement it makes for its name, and never edit it.
			p, err := pep508.Pin(expanded, 0)
			if err != nil {
				counts[label]++
				fail(fmt.Errorf("after configparser interpolation, %q: %w", expanded, err))
				return
			}
			name := p.Package
			p = pins.Pin{Package: name, Text: text, TextStart: off, Span: pins.Span{Start: off + len(text), End: off + len(text)},
				Source: "pypi", Scheme: "pep440", Condition: p.Condition}
			skip = fmt.Sprintf("configparser interpolation: it reads %q once expanded, and pinbot edits only requirements written out in full", expanded)
			counts[label]++
			p.File, p.Line, p.Col, p.Key, p.Skip = path, c.l.n, col, k, skip
			out = append(out, p)
			return
		}
		counts[label]++
		p, err := pep508.Pin(text, off)
		if err != nil {
			fail(err)
			return
		}
		p.File, p.Line, p.Col, p.Key = path, c.l.n, col, k
		out = append(out, p)
	}
	walk(path, data, &errs, func(c chunk, keyLine bool) {
		if !requirementKey(c.section, c.key) {
			return
		}
		if !keyLine {
			value(c)
			return
		}
		if v := strings.TrimSpace(c.text); strings.HasPrefix(v, "file:") || strings.HasPrefix(v, "attr:") {
			return
		}
		// A value on the key's line: setuptools splits it at ";".
		off := c.off
		for _, part := range strings.Split(c.text, ";") {
			value(chunk{section: c.section, key: c.key, l: c.l, off: off, text: part})
			off += len(part) + 1
		}
	})
	slices.SortStableFunc(errs, func(a, b *diag.Error) int { return cmp.Compare(a.Line, b.Line) })
	return out, pins.Skip(errs)
}

// commentStart returns where an inline " # comment" starts in s, or -1.
// setuptools does not strip these, but pinbot reads past them.
func commentStart(s string) int {
	for i := 1; i < len(s); i++ {
		if s[i] == '#' && (s[i-1] == ' ' || s[i-1] == '\t') {
			return i
		}
	}
	return -1
}
