// Package tomlwalk visits the values of a TOML document with their dotted key
// paths and byte positions, for the TOML pin formats (pyproject.toml, pixi.toml).
//
// It reads with github.com/pelletier/go-toml/v2/unstable, whose nodes point into
// the input, so every string value maps back to its exact bytes.
package tomlwalk

import (
	"errors"
	"strings"

	"github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"

	"github.com/pinbot-dev/pinbot/internal/diag"
)

// A Value is one value of the document with the key path that leads to it.
type Value struct {
	Key  []string // dotted key path, tables included: ["project", "dependencies"]
	Node *unstable.Node
}

// A Doc is a parsed TOML document.
type Doc struct {
	Path   string
	Data   []byte
	parser unstable.Parser
}

// Walk parses data and calls fn for every key/value pair (inline tables are
// descended into, arrays are not). A document that is not valid TOML gives a
// *diag.Error with its line and column.
func Walk(path string, data []byte, fn func(d *Doc, v Value) error) error {
	// The unstable parser checks syntax only; a full decode also catches
	// duplicate keys and redefined tables, with a position.
	var anyDoc map[string]any
	if err := toml.Unmarshal(data, &anyDoc); err != nil {
		var de *toml.DecodeError
		if errors.As(err, &de) {
			line, col := de.Position()
			return &diag.Error{File: path, Line: line, Col: col, Err: errors.New("not valid TOML: " + de.Error())}
		}
		return &diag.Error{File: path, Err: errors.New("not valid TOML: " + err.Error())}
	}
	d := &Doc{Path: path, Data: data}
	d.parser.Reset(data)
	var table []string
	for d.parser.NextExpression() {
		e := d.parser.Expression()
		switch e.Kind {
		case unstable.Table, unstable.ArrayTable:
			table = keyOf(e.Key())
		case unstable.KeyValue:
			if err := d.visit(table, e, fn); err != nil {
				return err
			}
		}
	}
	if err := d.parser.Error(); err != nil {
		return d.parserError(err)
	}
	return nil
}

func (d *Doc) visit(prefix []string, kv *unstable.Node, fn func(*Doc, Value) error) error {
	key := append(append([]string(nil), prefix...), keyOf(kv.Key())...)
	v := kv.Value()
	if v.Kind == unstable.InlineTable {
		it := v.Children()
		for it.Next() {
			if err := d.visit(key, it.Node(), fn); err != nil {
				return err
			}
		}
		return nil
	}
	return fn(d, Value{Key: key, Node: v})
}

func keyOf(it unstable.Iterator) []string {
	var k []string
	for it.Next() {
		k = append(k, string(it.Node().Data))
	}
	return k
}

// Offset returns the byte offset of n in the document.
func (d *Doc) Offset(n *unstable.Node) int { return int(n.Raw.Offset) }

// Position returns the 1-based line and column of n.
func (d *Doc) Position(n *unstable.Node) (line, col int) {
	return diag.Position(d.Data, d.Offset(n))
}

// A String is a string value with where its decoded text sits in the file.
type String struct {
	Value string
	// Start is the file offset of Value's first byte. It is valid only when Skip
	// is empty: for strings with escapes or line continuations the decoded text
	// is not a slice of the file.
	Start int
	Skip  string
}

// StringAt returns the string value of n, or ok=false when n is not a string.
func (d *Doc) StringAt(n *unstable.Node) (s String, ok bool) {
	if n.Kind != unstable.String {
		return String{}, false
	}
	raw := string(d.parser.Raw(n.Raw))
	s = String{Value: string(n.Data), Start: d.Offset(n)}
	switch {
	case strings.HasPrefix(raw, `"""`) || strings.HasPrefix(raw, `'''`):
		s.Skip = "multi-line string"
	case len(raw) < 2 || raw[1:len(raw)-1] != s.Value:
		s.Skip = "string with escape sequences"
	default:
		s.Start++ // the opening quote
	}
	return s, true
}

// Elements returns the elements of an array node.
func Elements(n *unstable.Node) []*unstable.Node {
	var out []*unstable.Node
	it := n.Children()
	for it.Next() {
		if it.Node().Kind != unstable.Comment {
			out = append(out, it.Node())
		}
	}
	return out
}

func (d *Doc) parserError(err error) error {
	var pe *unstable.ParserError
	if errors.As(err, &pe) && pe.Highlight != nil {
		sh := d.parser.Shape(d.parser.Range(pe.Highlight))
		return &diag.Error{File: d.Path, Line: sh.Start.Line, Col: sh.Start.Column, Err: errors.New("not valid TOML: " + pe.Message)}
	}
	return &diag.Error{File: d.Path, Err: errors.New("not valid TOML: " + err.Error())}
}
