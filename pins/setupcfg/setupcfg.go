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
package setupcfg

import (
	"bytes"
	"fmt"
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

// Extract returns the requirements of data in file order.
func (Format) Extract(path string, data []byte) ([]pins.Pin, error) {
	var out []pins.Pin
	var errs diag.List
	section, key := "", ""
	keyIndent := -1 // indentation of the current key's line; -1: no key
	counts := map[string]int{}
	// value records one requirement chunk at file offset off.
	value := func(l line, off int, chunk string) {
		lead := len(chunk) - len(strings.TrimLeft(chunk, " \t"))
		chunk = strings.TrimRight(chunk[lead:], " \t")
		off += lead
		if chunk == "" || strings.HasPrefix(chunk, "#") {
			return
		}
		label := section + "." + key
		k := fmt.Sprintf("%s[%d]", label, counts[label])
		counts[label]++
		col := off - l.start + 1
		if c := commentStart(chunk); c >= 0 {
			chunk = strings.TrimRight(chunk[:c], " \t")
		}
		p, err := pep508.Pin(chunk, off)
		if err != nil {
			errs = append(errs, &diag.Error{File: path, Line: l.n, Col: col, Key: k, Err: err})
			return
		}
		p.File, p.Line, p.Col, p.Key = path, l.n, col, k
		out = append(out, p)
	}
	for _, l := range lines(data) {
		trimmed := strings.TrimSpace(l.text)
		ind := indent(l.text)
		switch {
		case trimmed == "":
			continue // kept in a value by configparser, dropped by setuptools
		case trimmed[0] == '#' || trimmed[0] == ';':
			continue // a comment, also inside a value
		case keyIndent >= 0 && ind > keyIndent:
			if requirementKey(section, key) {
				value(l, l.start+ind, l.text[ind:])
			}
			continue
		case trimmed[0] == '[' && strings.HasSuffix(trimmed, "]"):
			section, key, keyIndent = strings.TrimSpace(trimmed[1:len(trimmed)-1]), "", -1
			continue
		}
		d := strings.IndexAny(l.text, "=:")
		if d < 0 || strings.TrimSpace(l.text[:d]) == "" {
			errs = append(errs, diag.Errorf(path, l.n, ind+1, section, "expected \"key = value\", a [section] header or an indented continuation, found %q", trimmed))
			keyIndent = -1
			continue
		}
		if section == "" {
			errs = append(errs, diag.Errorf(path, l.n, ind+1, "", "key %q before any [section] header", strings.TrimSpace(l.text[:d])))
			keyIndent = -1
			continue
		}
		key, keyIndent = strings.TrimSpace(l.text[:d]), ind
		if !requirementKey(section, key) {
			continue
		}
		rest := l.text[d+1:]
		if v := strings.TrimSpace(rest); strings.HasPrefix(v, "file:") || strings.HasPrefix(v, "attr:") {
			continue
		}
		// A value on the key's line: setuptools splits it at ";".
		off := l.start + d + 1
		for _, chunk := range strings.Split(rest, ";") {
			value(l, off, chunk)
			off += len(chunk) + 1
		}
	}
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
