// Package gomod reads the requirements of a go.mod file
// (https://go.dev/ref/mod#go-mod-file): every require line, single or in a
// require ( ... ) block, with its "// indirect" comment left as it is.
//
// The file is parsed by golang.org/x/mod/modfile, whose positions locate each
// require line; the version token is then found in the line's own bytes, so a
// rewrite replaces the version and nothing else (modfile's printer, which
// re-formats the file, is never used). A go.mod requirement is a minimum, not
// a range: its pins name the "semver" scheme and the "goproxy" source, and the
// plan raises them rather than capping them. A requirement that a replace
// directive redirects is reported and never edited.
package gomod

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"golang.org/x/mod/modfile"

	"github.com/pinbot-dev/pinbot/internal/diag"
	"github.com/pinbot-dev/pinbot/pins"
)

// Name is the format's identifier.
const Name = "gomod"

// Format reads go.mod files.
type Format struct{}

var _ pins.Format = Format{}

// Name returns "gomod".
func (Format) Name() string { return Name }

// Match reports whether the file is named go.mod and is not inside a testdata
// directory, which the go command ignores.
func (Format) Match(path string) bool {
	if pins.Base(path) != "go.mod" {
		return false
	}
	for _, dir := range strings.Split(path, "/") {
		if dir == "testdata" {
			return false
		}
	}
	return true
}

// Extract returns the requirements of data in file order.
func (Format) Extract(path string, data []byte) ([]pins.Pin, error) {
	f, err := modfile.Parse(path, data, nil)
	var errs diag.List
	if err != nil {
		// The go command refuses the whole file, but one bad line must not
		// hide the other requirements: read the file again without the lines
		// modfile named, and report them as skipped.
		var bad diag.List
		if f, bad = parseWithout(path, data, err); f == nil {
			return nil, convert(path, data, err)
		}
		errs = bad
	}
	var out []pins.Pin
	for _, r := range f.Require {
		line := r.Syntax
		if line.Start.Byte < 0 || line.End.Byte > len(data) || line.Start.Byte > line.End.Byte {
			errs = append(errs, diag.Errorf(path, line.Start.Line, 0, "require "+r.Mod.Path, "internal error: position out of range"))
			continue
		}
		raw := string(data[line.Start.Byte:line.End.Byte])
		textStart := line.Start.Byte
		if len(line.Token) == 3 && line.Token[0] == "require" {
			// A single-line require: the text starts at the module path.
			rest := strings.TrimPrefix(raw, "require")
			trimmed := strings.TrimLeft(rest, " \t")
			textStart += len(raw) - len(trimmed)
			raw = trimmed
		}
		sp := strings.LastIndexAny(raw, " \t")
		vStart, vEnd := sp+1, len(raw)
		if tok := raw[vStart:]; len(tok) >= 2 && tok[0] == '"' && tok[len(tok)-1] == '"' {
			vStart, vEnd = vStart+1, vEnd-1
		}
		l, col := diag.Position(data, textStart)
		p := pins.Pin{
			File: path, Line: l, Col: col, Key: "require " + r.Mod.Path,
			Package:    r.Mod.Path,
			Text:       raw,
			TextStart:  textStart,
			Constraint: raw[vStart:vEnd],
			Span:       pins.Span{Start: textStart + vStart, End: textStart + vEnd},
			Source:     "goproxy",
			Scheme:     "semver",
		}
		if sp < 0 || p.Constraint != r.Mod.Version {
			errs = append(errs, diag.Errorf(path, l, col, p.Key, "cannot locate the version %s in %q", r.Mod.Version, raw))
			continue
		}
		for _, rep := range f.Replace {
			if rep.Old.Path == r.Mod.Path && (rep.Old.Version == "" || rep.Old.Version == r.Mod.Version) {
				to := rep.New.Path
				if rep.New.Version != "" {
					to += " " + rep.New.Version
				}
				p.Skip = fmt.Sprintf("replaced by %s:%d (=> %s)", path, rep.Syntax.Start.Line, to)
			}
		}
		out = append(out, p)
	}
	return out, pins.Skip(errs)
}

// parseWithout parses data again with every line that err (modfile's errors
// from parsing it) names blanked out, keeping every offset, and returns the
// file with those errors as diag errors. It returns nil when an error names
// no line, a line that opens or closes a block or names the module, or when
// the file still does not parse: the file as a whole is then unreadable.
func parseWithout(path string, data []byte, err error) (*modfile.File, diag.List) {
	var list modfile.ErrorList
	if !errors.As(err, &list) || len(list) == 0 {
		return nil, nil
	}
	blanked := bytes.Clone(data)
	for _, e := range list {
		start, end, ok := lineBounds(data, e.Pos.Line)
		if !ok {
			return nil, nil
		}
		line := data[start:end]
		if bytes.ContainsAny(line, "()") || bytes.HasPrefix(bytes.TrimSpace(line), []byte("module")) {
			return nil, nil
		}
		for i := start; i < end; i++ {
			if blanked[i] != '\r' {
				blanked[i] = ' '
			}
		}
	}
	f, err2 := modfile.Parse(path, blanked, nil)
	if err2 != nil {
		return nil, nil
	}
	bad, _ := convert(path, data, err).(diag.List)
	return f, bad
}

// lineBounds returns the byte range of 1-based line n of data, without its
// line ending.
func lineBounds(data []byte, n int) (start, end int, ok bool) {
	if n < 1 {
		return 0, 0, false
	}
	for i := 1; i < n; i++ {
		j := bytes.IndexByte(data[start:], '\n')
		if j < 0 {
			return 0, 0, false
		}
		start += j + 1
	}
	end = len(data)
	if j := bytes.IndexByte(data[start:], '\n'); j >= 0 {
		end = start + j
	}
	return start, end, true
}

// convert turns modfile's errors into diag errors with file:line:col.
func convert(path string, data []byte, err error) error {
	var list modfile.ErrorList
	if !errors.As(err, &list) {
		return &diag.Error{File: path, Err: err}
	}
	var out diag.List
	for _, e := range list {
		line, col := e.Pos.Line, 0
		if e.Pos.Line > 0 && e.Pos.Byte >= 0 && e.Pos.Byte <= len(data) {
			line, col = diag.Position(data, e.Pos.Byte)
		}
		key := e.Verb
		if e.ModPath != "" {
			key = strings.TrimSpace(key + " " + e.ModPath)
		}
		out = append(out, &diag.Error{File: path, Line: line, Col: col, Key: key, Err: e.Err})
	}
	return out.Err()
}
