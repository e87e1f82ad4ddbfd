// Package pep508 parses Python dependency specifiers, PEP 508
// (https://packaging.python.org/en/latest/specifications/dependency-specifiers/),
// keeping the byte span of each part so that a version specifier can be replaced
// without touching the name, extras, URL or marker around it.
package pep508

import (
	"fmt"
	"strings"

	"github.com/pinbot-dev/pinbot/internal/pep503"

	"github.com/pinbot-dev/pinbot/pins"
)

// A Requirement is a parsed dependency specifier such as
// `numba[extra] >=0.58,<=0.66.0 ; python_version < "3.14"`.
// Offsets are byte positions in the parsed string.
type Requirement struct {
	Name   string // as written
	Extras []string
	// Specifier is the version specifier as written, without surrounding
	// parentheses or space; SpecStart and SpecEnd are its span. When there is no
	// specifier the span is empty and marks where one would go.
	Specifier          string
	SpecStart, SpecEnd int
	URL                string // the URL of a "name @ url" requirement
	Marker             string // the environment marker after ";", trimmed
}

// An Error is a requirement that does not parse; Offset is a byte position.
type Error struct {
	Input  string
	Offset int
	Msg    string
}

func (e *Error) Error() string {
	return fmt.Sprintf("invalid requirement %q at offset %d: %s", e.Input, e.Offset, e.Msg)
}

// Normalize returns the PEP 503 normalised form of a project name: lower case,
// with each run of "-", "_" and "." replaced by "-".
func Normalize(name string) string { return pep503.Normalize(name) }

// Source and Scheme are the release source and the version scheme of a PEP 508
// requirement's pin.
const (
	Source = "pypi"
	Scheme = "pep440"
)

// Named returns the pin of the PyPI project name, with Package (normalised),
// Source and Scheme set, for a format that gives the name apart from the
// version (pixi's pypi-dependencies); the caller sets the rest.
func Named(name string) pins.Pin {
	return pins.Pin{Package: Normalize(name), Source: Source, Scheme: Scheme}
}

// Pin returns the pin of the requirement text, which starts at file offset
// start: Package, Text, TextStart, Constraint and Span, Source "pypi", Scheme
// "pep440", and Skip for a direct URL requirement; the caller sets File, Line,
// Col and Key. Text that does not parse is an error (an *Error).
func Pin(text string, start int) (pins.Pin, error) {
	r, err := Parse(text)
	if err != nil {
		return pins.Pin{}, err
	}
	p := Named(r.Name)
	p.Text, p.TextStart = text, start
	p.Constraint = r.Specifier
	p.Condition = r.Marker
	p.Span = pins.Span{Start: start + r.SpecStart, End: start + r.SpecEnd}
	if r.URL != "" {
		p.Skip = "direct URL requirement"
	}
	return p, nil
}

// Parse parses one requirement. Leading and trailing space is allowed.
func Parse(s string) (Requirement, error) {
	var r Requirement
	fail := func(off int, format string, args ...any) (Requirement, error) {
		return Requirement{}, &Error{Input: s, Offset: off, Msg: fmt.Sprintf(format, args...)}
	}
	pos := skipSpace(s, 0)
	start := pos
	for pos < len(s) && isNameChar(s[pos]) {
		pos++
	}
	if pos == start {
		return fail(pos, "expected a project name")
	}
	r.Name = s[start:pos]
	if !isAlnum(r.Name[0]) || !isAlnum(r.Name[len(r.Name)-1]) {
		return fail(start, "project name %q must start and end with a letter or digit", r.Name)
	}
	afterName := pos
	pos = skipSpace(s, pos)
	if pos < len(s) && s[pos] == '[' {
		end := strings.IndexByte(s[pos:], ']')
		if end < 0 {
			return fail(pos, "unclosed '[' in extras")
		}
		for _, e := range strings.Split(s[pos+1:pos+end], ",") {
			e = strings.TrimSpace(e)
			if e == "" {
				continue
			}
			for i := 0; i < len(e); i++ {
				if !isNameChar(e[i]) {
					return fail(pos+1, "invalid extra %q", e)
				}
			}
			r.Extras = append(r.Extras, e)
		}
		pos += end + 1
		afterName = pos
		pos = skipSpace(s, pos)
	}
	r.SpecStart, r.SpecEnd = afterName, afterName
	switch {
	case pos == len(s):
		return r, nil
	case s[pos] == ';':
		return parseMarker(s, pos, r)
	case s[pos] == '@':
		pos = skipSpace(s, pos+1)
		end := pos
		for end < len(s) && !isSpace(s[end]) {
			end++
		}
		if end == pos {
			return fail(pos, "expected a URL after '@'")
		}
		r.URL = s[pos:end]
		pos = skipSpace(s, end)
		if pos == len(s) {
			return r, nil
		}
		if s[pos] != ';' {
			return fail(pos, "expected ';' before a marker after a URL")
		}
		return parseMarker(s, pos, r)
	}
	paren := s[pos] == '('
	if paren {
		pos = skipSpace(s, pos+1)
	}
	specStart := pos
	if pos == len(s) || !strings.ContainsRune("<>=!~", rune(s[pos])) {
		return fail(pos, "expected a version specifier, ';' or '@'")
	}
	for pos < len(s) && s[pos] != ';' && s[pos] != ')' {
		pos++
	}
	specEnd := pos
	for specEnd > specStart && isSpace(s[specEnd-1]) {
		specEnd--
	}
	r.Specifier, r.SpecStart, r.SpecEnd = s[specStart:specEnd], specStart, specEnd
	if paren {
		if pos == len(s) || s[pos] != ')' {
			return fail(pos, "unclosed '(' around the version specifier")
		}
		pos = skipSpace(s, pos+1)
	} else if pos < len(s) && s[pos] == ')' {
		return fail(pos, "unexpected ')'")
	}
	if pos == len(s) {
		return r, nil
	}
	if s[pos] != ';' {
		return fail(pos, "expected ';' before a marker")
	}
	return parseMarker(s, pos, r)
}

func parseMarker(s string, semi int, r Requirement) (Requirement, error) {
	r.Marker = strings.TrimSpace(s[semi+1:])
	if r.Marker == "" {
		return Requirement{}, &Error{Input: s, Offset: semi, Msg: "expected a marker after ';'"}
	}
	if strings.Count(r.Marker, "(") != strings.Count(r.Marker, ")") {
		return Requirement{}, &Error{Input: s, Offset: semi + 1, Msg: "unbalanced parentheses in marker"}
	}
	return r, nil
}

func skipSpace(s string, i int) int {
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	return i
}

func isSpace(b byte) bool { return b == ' ' || b == '\t' }

func isAlnum(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9'
}

func isNameChar(b byte) bool { return isAlnum(b) || b == '-' || b == '_' || b == '.' }
