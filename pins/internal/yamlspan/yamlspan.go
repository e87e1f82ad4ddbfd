// Package yamlspan maps the nodes of a YAML document parsed with
// go.yaml.in/yaml/v3 back to byte offsets, for the YAML pin formats (conda
// environment files, rattler-build recipes).
//
// yaml.v3 gives each node a 1-based line and a 1-based column counted in runes,
// and no byte offset. A Doc turns that into an offset, steps over an anchor or
// tag in front of the value, and re-scans quoted scalars to the closing quote,
// so that a scalar's decoded value is located in the raw bytes only when the two
// are identical (https://yaml.org/spec/1.2.2/).
package yamlspan

import (
	"bytes"
	"errors"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/pinbot-dev/pinbot/internal/diag"
	"github.com/pinbot-dev/pinbot/pins"
)

// A Doc is a parsed YAML document.
type Doc struct {
	Path string
	Data []byte
	// Root is the top node of the first document (a mapping, a sequence or a
	// scalar), or nil when the file holds no document.
	Root *yaml.Node
	// Errs are the errors a reader of the document found (Fail), in the
	// order found.
	Errs  diag.List
	lines []int // byte offset of the start of each line
}

// Parse parses the first document of data. Data that is not YAML gives a
// *diag.Error with the line yaml.v3 names (line 1 when it names none).
func Parse(path string, data []byte) (*Doc, error) {
	var n yaml.Node
	if err := yaml.Unmarshal(data, &n); err != nil {
		return nil, Error(path, err)
	}
	d := &Doc{Path: path, Data: data, lines: []int{0}}
	for i, b := range data {
		if b == '\n' {
			d.lines = append(d.lines, i+1)
		}
	}
	if n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		d.Root = n.Content[0]
	}
	return d, nil
}

var lineRE = regexp.MustCompile(`^yaml: line (\d+): `)

// Error turns a yaml.v3 parse error into a *diag.Error at its line.
func Error(path string, err error) *diag.Error {
	msg := err.Error()
	line := 1 // yaml.v3 leaves out the line when the problem is on the first
	if m := lineRE.FindStringSubmatch(msg); m != nil {
		line, _ = strconv.Atoi(m[1])
		msg = msg[len(m[0]):]
	} else {
		msg = strings.TrimPrefix(msg, "yaml: ")
	}
	return &diag.Error{File: path, Line: line, Err: errors.New("not valid YAML: " + msg)}
}

// Offset returns the byte offset of a 1-based line and rune column, or -1
// when they are outside the data.
func (d *Doc) Offset(line, col int) int {
	if line < 1 || line > len(d.lines) || col < 1 {
		return -1
	}
	off := d.lines[line-1]
	for i := 1; i < col; i++ {
		if off >= len(d.Data) || d.Data[off] == '\n' {
			return -1
		}
		_, size := utf8.DecodeRune(d.Data[off:])
		off += size
	}
	return off
}

// Empty reports whether the file holds no value: no document, or a null one
// (an empty or comment-only file, "~"). A format finds no pins in it.
func (d *Doc) Empty() bool { return d.Root == nil || IsNull(d.Root) }

// IsNull reports whether n is a null scalar ("~", "null" or nothing at all).
func IsNull(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.Tag == "!!null" }

// Errorf returns a *diag.Error in the file at node n for key, with a
// formatted message.
func (d *Doc) Errorf(n *yaml.Node, key, format string, args ...any) *diag.Error {
	line, col := d.NodePosition(n)
	return diag.Errorf(d.Path, line, col, key, format, args...)
}

// Fail records in d.Errs an error at node n for key, as Errorf gives it.
func (d *Doc) Fail(n *yaml.Node, key, format string, args ...any) {
	d.Errs = append(d.Errs, d.Errorf(n, key, format, args...))
}

// Seq returns the items of the sequence n: none when n is null, and none but
// an error recorded at key ("expected WHAT, found KIND") when n is anything
// else.
func (d *Doc) Seq(n *yaml.Node, key, what string) []*yaml.Node {
	if IsNull(n) {
		return nil
	}
	if n.Kind != yaml.SequenceNode {
		d.Fail(n, key, "expected %s, found %s", what, Kind(n))
		return nil
	}
	return n.Content
}

// ScalarError returns err as a *diag.Error at scalar s for key.
func (d *Doc) ScalarError(s Scalar, key string, err error) *diag.Error {
	return &diag.Error{File: d.Path, Line: s.Line, Col: s.Col, Key: key, Err: err}
}

// Place returns p, the pin read from scalar s, placed in the file: File,
// Line, Col and Key, and Skip when the scalar's value is not a slice of the
// file (s.Skip). Such a pin has no Tie: the offsets of its value are not
// the file's, and a pin that is not edited carries nothing with its version.
func (d *Doc) Place(p pins.Pin, s Scalar, key string) pins.Pin {
	p.File, p.Line, p.Col, p.Key = d.Path, s.Line, s.Col, key
	if s.Skip != "" {
		// Offsets into a value that is not a slice of the file say nothing
		// of the file: the pin is never edited.
		p.Skip = s.Skip
	}
	return p
}

// Position returns the 1-based line and byte column of offset off.
func (d *Doc) Position(off int) (line, col int) { return diag.Position(d.Data, off) }

// NodePosition returns the 1-based line and byte column of n.
func (d *Doc) NodePosition(n *yaml.Node) (line, col int) {
	if off := d.Offset(n.Line, n.Column); off >= 0 {
		return d.Position(off)
	}
	return n.Line, n.Column
}

// A Scalar is a scalar node with the place of its decoded value in the file.
type Scalar struct {
	Value string
	// Start is the file offset of Value's first byte; it is valid only when
	// Skip is empty. Line and Col (1-based, bytes) are where the scalar's token
	// starts, its opening quote included.
	Start     int
	Line, Col int
	// Skip says why Value is not a slice of the file: an escaped or multi-line
	// quoted scalar, a block scalar (| or >), a multi-line plain scalar, an
	// anchored value or an alias.
	Skip string
}

// ScalarAt returns the scalar n, or ok=false when n is not a scalar or an
// alias.
func (d *Doc) ScalarAt(n *yaml.Node) (s Scalar, ok bool) {
	switch n.Kind {
	case yaml.ScalarNode:
	case yaml.AliasNode:
		if n.Alias == nil || n.Alias.Kind != yaml.ScalarNode {
			return Scalar{}, false
		}
		line, col := d.NodePosition(n)
		return Scalar{Value: n.Alias.Value, Line: line, Col: col, Skip: "YAML alias"}, true
	default:
		return Scalar{}, false
	}
	s = Scalar{Value: n.Value}
	off := d.Offset(n.Line, n.Column)
	if off < 0 {
		s.Line, s.Col, s.Skip = n.Line, n.Column, "scalar position outside the file"
		return s, true
	}
	off = d.skipProperties(off)
	s.Line, s.Col = d.Position(off)
	switch {
	case n.Anchor != "":
		s.Skip = "YAML anchor: an alias may repeat the value"
		s.Start = off
	case n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0:
		s.Skip = "block scalar (| or >)"
	case n.Style&yaml.DoubleQuotedStyle != 0:
		s.Start, s.Skip = d.quoted(off, n.Value, '"')
	case n.Style&yaml.SingleQuotedStyle != 0:
		s.Start, s.Skip = d.quoted(off, n.Value, '\'')
	default:
		if !bytes.HasPrefix(d.Data[off:], []byte(n.Value)) || strings.Contains(n.Value, "\n") {
			s.Skip = "multi-line plain scalar"
		}
		s.Start = off
	}
	return s, true
}

// skipProperties steps over an anchor (&a) and a tag (!!str) before a value.
func (d *Doc) skipProperties(off int) int {
	for off < len(d.Data) && (d.Data[off] == '&' || d.Data[off] == '!') {
		for off < len(d.Data) && d.Data[off] != ' ' && d.Data[off] != '\t' && d.Data[off] != '\n' && d.Data[off] != '\r' {
			off++
		}
		for off < len(d.Data) && (d.Data[off] == ' ' || d.Data[off] == '\t') {
			off++
		}
	}
	return off
}

// quoted re-scans a quoted scalar whose opening quote is at off and returns the
// offset of its text, or a reason when the raw text is not the value.
func (d *Doc) quoted(off int, value string, q byte) (int, string) {
	if off >= len(d.Data) || d.Data[off] != q {
		return 0, "quoted scalar not found at its position"
	}
	i := off + 1
	for ; i < len(d.Data); i++ {
		c := d.Data[i]
		if q == '"' && c == '\\' {
			i++
			continue
		}
		if c == q {
			if q == '\'' && i+1 < len(d.Data) && d.Data[i+1] == '\'' {
				i++
				continue
			}
			break
		}
	}
	if i >= len(d.Data) {
		return 0, "unterminated quoted scalar"
	}
	raw := string(d.Data[off+1 : i])
	switch {
	case strings.ContainsAny(raw, "\r\n"):
		return 0, "multi-line quoted scalar"
	case raw != value:
		return 0, "quoted scalar with escapes"
	}
	return off + 1, ""
}

// A Pair is one key and value of a mapping.
type Pair struct {
	Key   string
	KeyN  *yaml.Node
	Value *yaml.Node
}

// Pairs returns the pairs of a mapping node in order, and the first key that
// appears twice (""), which yaml.v3 does not report when decoding to nodes.
// Merge keys (<<) are returned as written.
func Pairs(n *yaml.Node) (pairs []Pair, dup *yaml.Node) {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil, nil
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		if seen[k.Value] && dup == nil {
			dup = k
		}
		seen[k.Value] = true
		pairs = append(pairs, Pair{Key: k.Value, KeyN: k, Value: n.Content[i+1]})
	}
	return pairs, dup
}

// Get returns the value of key in mapping n (the last one, as PyYAML and
// yaml.v3 decoding keep), or nil.
func Get(n *yaml.Node, key string) *yaml.Node {
	var v *yaml.Node
	pairs, _ := Pairs(n)
	for _, p := range pairs {
		if p.Key == key {
			v = p.Value
		}
	}
	return v
}

// Kind names the kind of a node for messages.
func Kind(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		if IsNull(n) {
			return "null"
		}
		return "a scalar"
	case yaml.AliasNode:
		return "an alias"
	}
	return "a document"
}
