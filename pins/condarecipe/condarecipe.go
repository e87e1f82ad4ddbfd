// Package condarecipe reads the requirements of a conda-build recipe, meta.yaml
// (recipe format v0,
// https://docs.conda.io/projects/conda-build/en/latest/resources/define-metadata.html).
//
// A meta.yaml is a Jinja template that becomes YAML only when conda-build
// renders it, so it is read line by line, not parsed as YAML: the scanner
// tracks indentation to know which list an item is in, strips "# [selector]"
// comments, and reads each item of requirements build, host, run and
// run_constrained, test requires and build run_exports, at the top and in each
// outputs entry, as a MatchSpec (pins/matchspec). A requirement whose version
// is exactly one {{ variable }} set to a string literal at the top of the recipe
// ({% set llvmlite_version = "0.47.*" %}) is a pin on that literal: its span is
// the definition's value. Other templated items ({{ compiler('c') }},
// {{ pin_compatible('llvmlite') }}, libtensorflow_framework {{ version }}) are
// reported with Skip and never edited.
package condarecipe

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/pinbot-dev/pinbot/internal/diag"
	"github.com/pinbot-dev/pinbot/pins"
	"github.com/pinbot-dev/pinbot/pins/internal/condaspec"
	"github.com/pinbot-dev/pinbot/pins/matchspec"
)

// Name is the format's identifier.
const Name = "condarecipe"

// Format reads conda-build meta.yaml recipes.
type Format struct{}

var _ pins.Format = Format{}

// Name returns "condarecipe".
func (Format) Name() string { return Name }

// AlignsComments marks recipes as keeping "# [selector]" comments in their
// columns when a constraint is rewritten (pins.CommentAligner).
func (Format) AlignsComments() {}

var _ pins.CommentAligner = Format{}

// Match reports whether the file is named meta.yaml (or meta.yml).
func (Format) Match(path string) bool {
	b := pins.Base(path)
	return b == "meta.yaml" || b == "meta.yml"
}

// A frame is one open level of the YAML structure: a mapping key or a list
// item.
type frame struct {
	indent int
	key    string // "" for a list item
	index  int    // the item's index
	next   int    // the index of the next item in this level's list
}

// An item is one requirement line, before variables are resolved.
type item struct {
	pin pins.Pin
	// The {{ variable }} that is the item's only template, with its tag span,
	// when there is one.
	varName            string
	varStart, varEnd   int
	textStart, textEnd int // the item text in the file
}

// selectorRE finds a "# [selector]" comment, conda-build's line condition.
// It and keyRE are compiled when first used, like jinja.go's patterns.
var selectorRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^#\s*\[(.*)\]\s*$`) })

var keyRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^([A-Za-z0-9_][A-Za-z0-9_.-]*|"[^"]*"|'[^']*')[ \t]*:([ \t]|$)`)
})

// requirementList reports whether items under the key path rel (outputs[i]
// stripped) are requirements.
func requirementList(rel []string, inOutput bool) bool {
	switch strings.Join(rel, ".") {
	case "requirements.build", "requirements.host", "requirements.run", "requirements.run_constrained",
		"test.requires", "build.run_exports", "build.run_exports.strong", "build.run_exports.weak",
		"build.run_exports.strong_constrains", "build.run_exports.weak_constrains":
		return true
	case "requirements": // an output's requirements may be a plain list (run)
		return inOutput
	}
	return false
}

// Extract returns the requirements of the recipe in file order. MatchSpec pins
// have Scheme "conda" and Source the spec's channel, else "conda".
func (Format) Extract(path string, data []byte) ([]pins.Pin, error) {
	tags, off, err := jinjaTags(data)
	if err != nil {
		line, col := diag.Position(data, off)
		return nil, &diag.Error{File: path, Line: line, Col: col, Err: err}
	}
	s := &scanner{path: path, data: data, tags: tags}
	s.scan()
	out := s.resolve()
	return out, pins.Skip(s.errs)
}

type scanner struct {
	path  string
	data  []byte
	tags  []tag
	stack []frame
	items []item
	errs  diag.List
	// pkgVersion is the span of the package: version: value, whose variable is
	// the recipe's own version.
	pkgVersion [2]int
	// selector is the "# [selector]" of the line being read, "" for none.
	selector string
}

// inStatement reports whether offset off is inside a {% %} or {# #} tag that
// starts before it.
func (s *scanner) inStatement(off int) bool {
	// Tags do not overlap: only the last one that starts before off can hold it.
	i := sort.Search(len(s.tags), func(i int) bool { return s.tags[i].start >= off }) - 1
	return i >= 0 && s.tags[i].kind != '{' && off < s.tags[i].end
}

func (s *scanner) scan() {
	blockIndent := -1 // the indent of a key whose value is a block scalar
	for ls := 0; ls < len(s.data); {
		le := ls
		for le < len(s.data) && s.data[le] != '\n' {
			le++
		}
		next := le + 1
		if le > ls && s.data[le-1] == '\r' {
			le--
		}
		line := string(s.data[ls:le])
		s.line(ls, line, &blockIndent)
		ls = next
	}
}

// line reads one line that starts at file offset ls.
func (s *scanner) line(ls int, line string, blockIndent *int) {
	indent := 0
	for indent < len(line) && (line[indent] == ' ' || line[indent] == '\t') {
		indent++
	}
	rest := line[indent:]
	if rest == "" {
		return
	}
	if *blockIndent >= 0 {
		if indent > *blockIndent {
			return // block scalar content
		}
		*blockIndent = -1
	}
	if rest[0] == '#' || strings.HasPrefix(rest, "{%") || strings.HasPrefix(rest, "{#") || s.inStatement(ls+indent) {
		return
	}
	cut := commentStart(rest)
	body := strings.TrimRight(rest[:cut], " \t")
	s.selector = ""
	if m := selectorRE().FindStringSubmatch(rest[cut:]); m != nil {
		s.selector = strings.TrimSpace(m[1])
	}
	if body == "" {
		return
	}
	if body == "-" || strings.HasPrefix(body, "- ") || strings.HasPrefix(body, "-\t") {
		s.pop(func(f frame) bool { return f.indent > indent || f.indent == indent && f.key == "" })
		idx := 0
		if n := len(s.stack); n > 0 {
			idx = s.stack[n-1].next
			s.stack[n-1].next++
		}
		s.stack = append(s.stack, frame{indent: indent, index: idx})
		sub := 1
		for sub < len(body) && (body[sub] == ' ' || body[sub] == '\t') {
			sub++
		}
		text := body[sub:]
		if text == "" {
			return
		}
		col := indent + sub
		if m := keyRE().FindStringSubmatch(text); m != nil {
			s.key(ls, col, text, m, blockIndent)
			return
		}
		s.item(ls+col, text)
		return
	}
	if m := keyRE().FindStringSubmatch(body); m != nil {
		s.pop(func(f frame) bool { return f.indent >= indent })
		s.key(ls, indent, body, m, blockIndent)
	}
	// Anything else continues a multi-line scalar or flow collection.
}

// key opens the mapping key of m at column col of the line starting at ls.
func (s *scanner) key(ls, col int, text string, m []string, blockIndent *int) {
	k := strings.Trim(m[1], `"'`)
	s.stack = append(s.stack, frame{indent: col, key: k})
	value := strings.TrimSpace(text[len(m[0]):])
	if value != "" && strings.ContainsRune("|>", rune(value[0])) && strings.Trim(value[1:], "+-0123456789") == "" {
		*blockIndent = col
	}
	if path := s.path1(); len(path) == 2 && path[0] == "package" && path[1] == "version" && value != "" {
		start := ls + col + len(m[0]) + strings.Index(text[len(m[0]):], value)
		s.pkgVersion = [2]int{start, start + len(value)}
	}
}

func (s *scanner) pop(drop func(frame) bool) {
	for len(s.stack) > 0 && drop(s.stack[len(s.stack)-1]) {
		s.stack = s.stack[:len(s.stack)-1]
	}
}

// path1 returns the key path of the open frames, list items as "[i]".
func (s *scanner) path1() []string {
	var p []string
	for _, f := range s.stack {
		if f.key == "" {
			p = append(p, fmt.Sprintf("[%d]", f.index))
		} else {
			p = append(p, f.key)
		}
	}
	return p
}

// item reads a list item whose text (comment stripped) starts at file offset
// start.
func (s *scanner) item(start int, text string) {
	p := s.path1()
	parent := p[:len(p)-1] // without the item's own index
	rel, inOutput := parent, false
	if len(rel) >= 2 && rel[0] == "outputs" && strings.HasPrefix(rel[1], "[") {
		rel, inOutput = rel[2:], true
	}
	if !requirementList(rel, inOutput) {
		return
	}
	key := ""
	for _, seg := range p {
		if key != "" && !strings.HasPrefix(seg, "[") {
			key += "."
		}
		key += seg
	}
	line, col := diag.Position(s.data, start)
	it := item{textStart: start, textEnd: start + len(text)}
	if q := text[0]; q == '"' || q == '\'' {
		inner, ok := unquote(text)
		if !ok {
			it.pin = pins.Pin{Text: text, TextStart: start, Scheme: "conda", Source: condaspec.Default,
				Package: matchspec.Normalize(condaspec.LeadingName(strings.Trim(text, `"'`))),
				Span:    pins.Span{Start: start, End: start},
				Skip:    "quoted item with escapes"}
			it.pin.File, it.pin.Line, it.pin.Col, it.pin.Key = s.path, line, col, key
			it.pin.Condition = s.selector
			it.pin.Build = buildList(rel)
			s.items = append(s.items, it)
			return
		}
		text, start = inner, start+1
	}
	if strings.Contains(text, "{{") || strings.Contains(text, "{%") {
		it.pin = pins.Pin{Text: text, TextStart: start, Scheme: "conda", Source: condaspec.Default,
			Package:    matchspec.Normalize(condaspec.TemplateName(text)),
			Constraint: text, Span: pins.Span{Start: start, End: start + len(text)},
			Skip: "templated: no version until conda-build renders the recipe"}
		s.templated(&it, text, start)
	} else {
		p, err := condaspec.Pin(text, start, nil)
		if err != nil {
			if !condaspec.IsFileOrURL(err) {
				s.errs = append(s.errs, &diag.Error{File: s.path, Line: line, Col: col, Key: key, Err: err})
			}
			return
		}
		it.pin = p
	}
	it.pin.File, it.pin.Line, it.pin.Col, it.pin.Key = s.path, line, col, key
	condaspec.Locate(&it.pin)
	it.pin.Condition = s.selector
	it.pin.Build = buildList(rel)
	s.items = append(s.items, it)
}

// templated looks at an item with Jinja tags: one that is "name {{ var }}" may
// become a pin on the variable's definition (resolve decides); the span of
// any other is the templated text, so that the pin is reported as written.
func (s *scanner) templated(it *item, text string, start int) {
	var only *tag
	first := sort.Search(len(s.tags), func(i int) bool { return s.tags[i].end > start })
	for i := first; i < len(s.tags); i++ {
		t := &s.tags[i]
		if t.start >= start+len(text) {
			break
		}
		if t.end <= start {
			continue
		}
		if only != nil || t.kind != '{' || t.start < start || t.end > start+len(text) {
			return
		}
		only = t
	}
	name := condaspec.LeadingName(text)
	if only == nil || !identRE().MatchString(trimInner(only.inner)) || strings.Contains(name, "{") {
		return
	}
	it.varName = trimInner(only.inner)
	it.varStart, it.varEnd = only.start, only.end
	it.pin.Package = matchspec.Normalize(name)
	it.pin.Constraint = string(s.data[only.start:only.end])
	it.pin.Span = pins.Span{Start: only.start, End: only.end}
}

// unquote returns the text inside a quoted item, if it has no escapes.
func unquote(text string) (string, bool) {
	q := text[0]
	if len(text) < 2 || text[len(text)-1] != q {
		return "", false
	}
	inner := text[1 : len(text)-1]
	if strings.IndexByte(inner, q) >= 0 || q == '"' && strings.IndexByte(inner, '\\') >= 0 {
		return "", false
	}
	return inner, true
}

// commentStart returns where a YAML comment starts in rest (a line without its
// indentation), or len(rest): at a "#" after white space, outside a quoted
// scalar and outside Jinja tags.
func commentStart(rest string) int {
	i := 0
	if strings.HasPrefix(rest, "- ") {
		i = 2
		for i < len(rest) && rest[i] == ' ' {
			i++
		}
	}
	if i < len(rest) && (rest[i] == '"' || rest[i] == '\'') {
		if j := strings.IndexByte(rest[i+1:], rest[i]); j >= 0 {
			i += j + 2
		}
	}
	for ; i < len(rest); i++ {
		switch {
		case strings.HasPrefix(rest[i:], "{{") || strings.HasPrefix(rest[i:], "{%") || strings.HasPrefix(rest[i:], "{#"):
			closer := map[byte]string{'{': "}}", '%': "%}", '#': "#}"}[rest[i+1]]
			if j := strings.Index(rest[i+2:], closer); j >= 0 {
				i += j + 3
			}
		case rest[i] == '#' && (i == 0 || rest[i-1] == ' ' || rest[i-1] == '\t'):
			return i
		}
	}
	return len(rest)
}

// resolve turns the items into pins: an item whose version is exactly one
// {{ variable }} becomes a pin on the variable's definition when that is safe.
func (s *scanner) resolve() []pins.Pin {
	defs, uses := scope(s.tags)
	byVar := map[string][]*item{}
	for i := range s.items {
		if it := &s.items[i]; it.varName != "" {
			byVar[it.varName] = append(byVar[it.varName], it)
		}
	}
	out := make([]pins.Pin, 0, len(s.items))
	for i := range s.items {
		it := &s.items[i]
		if it.varName != "" {
			s.resolveVar(it, defs[it.varName], uses, byVar[it.varName])
		}
		out = append(out, it.pin)
	}
	return out
}

// resolveVar makes it a pin on its variable's definition, or says why not.
func (s *scanner) resolveVar(it *item, d *def, uses []use, users []*item) {
	name := it.varName
	ref := "{{ " + name + " }}"
	switch {
	case d == nil:
		it.pin.Skip = "templated: " + ref + " is not set in the recipe (a variant or build variable)"
		return
	case !d.plain || d.count != 1:
		it.pin.Skip = "templated: " + ref + " is not set once, to a string, outside any block"
		return
	case d.stmt.end > it.varStart:
		it.pin.Skip = "templated: " + ref + " is used before it is set"
		return
	}
	for _, u := range uses {
		if u.name != name {
			continue
		}
		if s.pkgVersion[1] > 0 && u.tag.start >= s.pkgVersion[0] && u.tag.end <= s.pkgVersion[1] {
			it.pin.Skip = ref + " is the recipe's own version, not a pin"
			return
		}
		whole := false
		for _, o := range users {
			if o.varStart == u.tag.start && o.pin.Package == it.pin.Package {
				whole = true
			}
		}
		if !whole {
			line, _ := diag.Position(s.data, u.tag.start)
			it.pin.Skip = fmt.Sprintf("templated: %s is also used on line %d; edit its definition by hand", ref, line)
			return
		}
	}
	for _, o := range users {
		sp, ok := wholeConstraint(s.data, o, d.value)
		if !ok {
			line, _ := diag.Position(s.data, o.varStart)
			it.pin.Skip = fmt.Sprintf("templated: %s is only part of the version on line %d; edit its definition by hand", ref, line)
			return
		}
		if skip := condaspec.BuildSkip(sp.Build, sp.Constraint); skip != "" {
			if o != it {
				line, _ := diag.Position(s.data, o.varStart)
				skip = fmt.Sprintf("%s is also used on line %d, where %s", ref, line, skip)
			}
			it.pin.Skip = skip
			return
		}
	}
	it.pin.Constraint = d.value
	it.pin.Span = pins.Span{Start: d.valueStart, End: d.valueEnd}
	it.pin.Text = string(s.data[d.stmt.start:d.stmt.end])
	it.pin.TextStart = d.stmt.start
	it.pin.Insert = ""
	it.pin.Skip = ""
}

// wholeConstraint reports whether value, put in place of the item's
// {{ variable }}, is exactly the item's version constraint, and returns the
// item's spec with it.
func wholeConstraint(data []byte, it *item, value string) (matchspec.Spec, bool) {
	if value == "" {
		return matchspec.Spec{}, false
	}
	before := string(data[it.textStart:it.varStart])
	after := string(data[it.varEnd:it.textEnd])
	if before == "" {
		return matchspec.Spec{}, false // the name is templated
	}
	if q := before[0]; q == '"' || q == '\'' {
		before, after = before[1:], strings.TrimSuffix(after, string(q))
	}
	sp, err := matchspec.Parse(before + value + after)
	return sp, err == nil && sp.ConstraintStart == len(before) && sp.ConstraintEnd == len(before)+len(value)
}

// buildList reports whether a requirement list (its path, outputs[i]
// stripped) is needed to build the package rather than to run it.
func buildList(rel []string) bool {
	return len(rel) == 2 && rel[0] == "requirements" && (rel[1] == "build" || rel[1] == "host")
}
