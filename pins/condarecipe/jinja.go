package condarecipe

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// A tag is one Jinja tag of the recipe: {{ expression }}, {% statement %} or
// {# comment #}, with its byte span in the file.
type tag struct {
	kind       byte // '{', '%' or '#'
	start, end int  // the tag, delimiters included
	inner      string
}

// jinjaTags returns the Jinja tags of data in order. A tag that is not closed
// is an error at its offset.
func jinjaTags(data []byte) ([]tag, int, error) {
	var tags []tag
	s := string(data)
	for i := 0; i+1 < len(s); i++ {
		if s[i] != '{' || (s[i+1] != '{' && s[i+1] != '%' && s[i+1] != '#') {
			continue
		}
		kind := s[i+1]
		closer := "}}"
		switch kind {
		case '%':
			closer = "%}"
		case '#':
			closer = "#}"
		}
		j := i + 2
		for j+1 < len(s) && s[j:j+2] != closer {
			if kind != '#' && (s[j] == '"' || s[j] == '\'') {
				if k := strings.IndexByte(s[j+1:], s[j]); k >= 0 && !strings.Contains(s[j+1:j+1+k], "\n") {
					j += k + 2
					continue
				}
			}
			j++
		}
		if j+1 >= len(s) {
			return nil, i, fmt.Errorf("unclosed Jinja tag %q", s[i:i+2])
		}
		tags = append(tags, tag{kind: kind, start: i, end: j + 2, inner: s[i+2 : j]})
		i = j + 1
	}
	return tags, 0, nil
}

// trimInner strips the whitespace-control markers and space of a tag's inner
// text.
func trimInner(s string) string {
	s = strings.TrimSpace(s)
	s = strings.TrimPrefix(s, "-")
	s = strings.TrimPrefix(s, "+")
	s = strings.TrimSuffix(s, "-")
	s = strings.TrimSuffix(s, "+")
	return strings.TrimSpace(s)
}

// The patterns of a {% set %} statement, a string literal and an identifier,
// compiled when first used: only a recipe needs them, and every pinbot
// command paid for them at start.
var (
	setRE     = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^set\s+([A-Za-z_][A-Za-z0-9_]*)\s*(=\s*(.*))?$`) })
	literalRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(?s)("[^"]*"|'[^']*')$`) })
	identRE   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`) })
)

// A def is what the recipe's {% set %} statements say about one variable.
type def struct {
	count int  // how many set statements assign it
	plain bool // the one assignment is a string literal outside any block
	// The literal's text and its span, quotes excluded, and the statement.
	value                string
	valueStart, valueEnd int
	stmt                 tag
}

// A use is one reference to a variable in a Jinja tag.
type use struct {
	name string
	tag  tag
}

// blockOpen lists the Jinja statements that open a block closed by "end…".
var blockOpen = map[string]bool{"if": true, "for": true, "macro": true, "call": true, "filter": true, "block": true, "with": true, "raw": true, "set": false}

// scope reads the set statements and variable references of the tags.
func scope(tags []tag) (map[string]*def, []use) {
	defs := map[string]*def{}
	var uses []use
	depth := 0
	for _, t := range tags {
		switch t.kind {
		case '#':
			continue
		case '{':
			for _, name := range idents(t.inner) {
				uses = append(uses, use{name, t})
			}
			continue
		}
		in := trimInner(t.inner)
		word, _, _ := strings.Cut(in, " ")
		switch {
		case strings.HasPrefix(word, "end"):
			if depth > 0 {
				depth--
			}
		case blockOpen[word]:
			depth++
		}
		m := setRE().FindStringSubmatchIndex(in)
		if m == nil {
			for _, name := range idents(in) {
				uses = append(uses, use{name, t})
			}
			continue
		}
		name := in[m[2]:m[3]]
		d := defs[name]
		if d == nil {
			d = &def{}
			defs[name] = d
		}
		d.count++
		if m[4] < 0 { // {% set x %}…{% endset %}
			depth++
			continue
		}
		rhs := in[m[6]:m[7]]
		for _, n := range idents(rhs) {
			uses = append(uses, use{n, t})
		}
		if depth == 0 && literalRE().MatchString(rhs) && !strings.Contains(rhs, `\`) {
			// The file offset of rhs: the tag, "{%", where in starts in inner.
			off := t.start + 2 + strings.Index(t.inner, in) + m[6]
			d.plain, d.stmt = true, t
			d.value, d.valueStart, d.valueEnd = rhs[1:len(rhs)-1], off+1, off+len(rhs)-1
		} else {
			d.plain = false
		}
	}
	return defs, uses
}

// idents returns the names an expression refers to: identifiers outside string
// literals that are not attributes (.replace) or keyword-argument names.
func idents(expr string) []string {
	var out []string
	for i := 0; i < len(expr); i++ {
		c := expr[i]
		switch {
		case c == '"' || c == '\'':
			if k := strings.IndexByte(expr[i+1:], c); k >= 0 {
				i += k + 1
			} else {
				return out
			}
		case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			j := i
			for j < len(expr) && (expr[j] == '_' || expr[j] >= 'a' && expr[j] <= 'z' || expr[j] >= 'A' && expr[j] <= 'Z' || expr[j] >= '0' && expr[j] <= '9') {
				j++
			}
			k := j
			for k < len(expr) && expr[k] == ' ' {
				k++
			}
			attr := i > 0 && expr[i-1] == '.'
			kwarg := k < len(expr) && expr[k] == '=' && (k+1 == len(expr) || expr[k+1] != '=')
			if !attr && !kwarg {
				out = append(out, expr[i:j])
			}
			i = j - 1
		case c >= '0' && c <= '9':
			for i+1 < len(expr) && (expr[i+1] == '.' || expr[i+1] == '_' || expr[i+1] >= '0' && expr[i+1] <= '9' || expr[i+1] >= 'a' && expr[i+1] <= 'z') {
				i++
			}
		}
	}
	return out
}
