package pyast

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Limits on nesting, CPython's (its tokenizer stops at 200 open brackets,
// 100 indentation levels counting column 0, and 149 nested f-strings):
// input past them is a syntax error, never a deep recursion.
const (
	maxBrackets = 200
	maxIndent   = 100
	maxFStrings = 149
	maxFields   = 3 // replacement fields nested in one f-string's format specs
)

// batch is how many tokens the scanner reads ahead at a time.
const batch = 64

// A scanner turns a source into tokens on demand, as CPython's tokenizer
// does: INDENT, DEDENT and NEWLINE from the layout, no NEWLINE inside
// brackets or on blank lines, and f-strings split into FSTRING_START,
// FSTRING_MIDDLE, the replacement fields' own tokens and FSTRING_END
// (PEP 701).
type scanner struct {
	src      string
	pos      int
	toks     []token // where tokens are appended, during more
	comments []Comment
	err      *scanError
	final    token // the tEOF or tError token, repeated once scanning is done
	done     bool
	last     tokKind // the kind of the last token emitted
	emitted  bool    // whether any token was emitted

	indents    []int // indentation columns, tabs to multiples of 8; indents[0] == 0
	altIndents []int // the same with a tab as one column, to detect ambiguous tabs
	atBOL      bool  // at the beginning of a line
	blank      bool  // the current line holds no token (only spaces or a comment)
	brackets   []bracket
	fstrings   []fstring
}

// A bracket is an open (, [ or {, and where it is.
type bracket struct {
	ch  byte
	pos int
}

// An fstring is an f-string being scanned.
type fstring struct {
	quote  byte
	triple bool
	raw    bool
	start  int     // offset of its prefix
	fields []field // open replacement fields, innermost last
}

// A field is an open replacement field: the index of its { in brackets, and
// whether the scanner is in its format spec (after the top-level ':').
type field struct {
	bracket int
	spec    bool
}

// A scanError is the first error the scanner met: the parser reports it when
// it reaches the tError token that ends the token list.
type scanError struct {
	pos int
	msg string
}

// newScanner returns a scanner of src from start (after the byte-order
// mark, if any).
func newScanner(src string, start int) *scanner {
	s := &scanner{src: src, pos: start, atBOL: true, indents: []int{0}, altIndents: []int{0}}
	if i := strings.IndexByte(src, 0); i >= 0 {
		s.fail(i, "source code cannot contain null bytes")
	}
	return s
}

// more appends to dst the next tokens (a batch of them, or at least one),
// and returns it; once the source is read (or after an error) it appends
// its tEOF (or tError) token again.
func (s *scanner) more(dst []token) []token {
	s.toks = dst
	n := len(dst)
	for len(s.toks) < n+batch && !(s.done && len(s.toks) > n) {
		switch {
		case s.done:
			s.toks = append(s.toks, s.final)
		case s.err != nil:
			s.final = token{kind: tError, pos: int32(s.err.pos), end: int32(s.err.pos)}
			s.done = true
		default:
			if k := len(s.fstrings); k > 0 {
				f := &s.fstrings[k-1]
				if j := len(f.fields); j == 0 || f.fields[j-1].spec {
					s.fstringText(f)
					continue
				}
			}
			if !s.next() && s.err == nil {
				s.final = s.toks[len(s.toks)-1]
				s.done = true
			}
		}
	}
	dst, s.toks = s.toks, nil
	return dst
}

func (s *scanner) fail(pos int, format string, args ...any) {
	if s.err == nil {
		s.err = &scanError{pos: pos, msg: fmt.Sprintf(format, args...)}
	}
}

func (s *scanner) emit(k tokKind, pos, end int) {
	s.toks = append(s.toks, token{kind: k, pos: int32(pos), end: int32(end)})
	s.last, s.emitted = k, true
}

// line returns the 1-based line of pos, for messages that name a line.
func (s *scanner) line(pos int) int {
	return strings.Count(s.src[:pos], "\n") + strings.Count(s.src[:pos], "\r") - strings.Count(s.src[:pos], "\r\n") + 1
}

// next scans one token in normal mode (outside f-string text) and reports
// whether scanning goes on.
func (s *scanner) next() bool {
	if s.atBOL {
		s.atBOL = false
		s.blank = false
		if !s.indentation() {
			return false
		}
	}
	src := s.src
	for {
		for s.pos < len(src) && (src[s.pos] == ' ' || src[s.pos] == '\t' || src[s.pos] == '\f') {
			s.pos++
		}
		if s.pos >= len(src) {
			s.eof()
			return false
		}
		start := s.pos
		c := src[s.pos]
		switch {
		case c == '#':
			end := start
			for end < len(src) && src[end] != '\n' && src[end] != '\r' {
				end++
			}
			s.comments = append(s.comments, Comment{Slash: Pos(start), Text: src[start:end]})
			s.pos = end
			continue
		case c == '\n' || c == '\r':
			s.pos++
			if c == '\r' && s.pos < len(src) && src[s.pos] == '\n' {
				s.pos++
			}
			s.atBOL = true
			if s.blank || len(s.brackets) > 0 {
				return true
			}
			s.emit(tNewline, start, s.pos)
			return true
		case c == '\\':
			if !s.continuation() {
				return false
			}
			continue
		case isIdentStart(c):
			s.name(start)
		case c >= '0' && c <= '9' || c == '.' && s.pos+1 < len(src) && isDigit(src[s.pos+1]):
			s.number(start)
		case c == '"' || c == '\'':
			s.str(start, start)
		default:
			s.operator(start)
		}
		return s.err == nil
	}
}

// continuation consumes a backslash that must end its line.
func (s *scanner) continuation() bool {
	bs := s.pos
	s.pos++
	switch {
	case s.pos >= len(s.src):
		s.fail(bs, "unexpected EOF while parsing")
		return false
	case s.src[s.pos] == '\n':
		s.pos++
	case s.src[s.pos] == '\r':
		s.pos++
		if s.pos < len(s.src) && s.src[s.pos] == '\n' {
			s.pos++
		}
	default:
		s.fail(s.pos, "unexpected character after line continuation character")
		return false
	}
	// A line break at the very end of the file ends the last line; CPython
	// reads a final "\r\n" as two line breaks, so a continuation before it
	// is followed by an empty line.
	if s.pos >= len(s.src) && !strings.HasSuffix(s.src, "\r\n") {
		s.fail(bs, "unexpected EOF while parsing")
		return false
	}
	return true
}

// indentation reads the indentation of a new line and emits INDENT or
// DEDENT tokens; blank lines and lines inside brackets leave it alone.
func (s *scanner) indentation() bool {
	col, alt, contCol := 0, 0, -1
	src := s.src
loop:
	for s.pos < len(src) {
		switch src[s.pos] {
		case ' ':
			col++
			alt++
		case '\t':
			col = (col/8 + 1) * 8
			alt++
		case '\f':
			col, alt = 0, 0
		case '\\':
			// Indentation cannot be split over lines with a backslash: the
			// first one sets the level of what follows, as in CPython.
			if contCol < 0 {
				contCol = col
			}
			if !s.continuation() {
				return false
			}
			continue
		default:
			break loop
		}
		s.pos++
	}
	if s.pos >= len(src) || src[s.pos] == '#' || src[s.pos] == '\n' || src[s.pos] == '\r' {
		s.blank = true
		return true
	}
	if len(s.brackets) > 0 {
		return true
	}
	// As in CPython, a backslash in column 0 does not count (its test is
	// "cont_line_col ? cont_line_col : col").
	if contCol > 0 {
		col, alt = contCol, contCol
	}
	top := len(s.indents) - 1
	switch {
	case col == s.indents[top]:
		if alt != s.altIndents[top] {
			s.fail(s.pos, "inconsistent use of tabs and spaces in indentation")
			return false
		}
	case col > s.indents[top]:
		if len(s.indents) >= maxIndent {
			s.fail(s.pos, "too many levels of indentation")
			return false
		}
		if alt <= s.altIndents[top] {
			s.fail(s.pos, "inconsistent use of tabs and spaces in indentation")
			return false
		}
		s.indents = append(s.indents, col)
		s.altIndents = append(s.altIndents, alt)
		s.emit(tIndent, s.pos, s.pos)
	default:
		for len(s.indents) > 1 && col < s.indents[len(s.indents)-1] {
			s.indents = s.indents[:len(s.indents)-1]
			s.altIndents = s.altIndents[:len(s.altIndents)-1]
			s.emit(tDedent, s.pos, s.pos)
		}
		top = len(s.indents) - 1
		if col != s.indents[top] {
			s.fail(s.pos, "unindent does not match any outer indentation level")
			return false
		}
		if alt != s.altIndents[top] {
			s.fail(s.pos, "inconsistent use of tabs and spaces in indentation")
			return false
		}
	}
	return true
}

// eof ends the token list: a NEWLINE if the last line has no line break,
// DEDENTs back to column 0, and EOF.
func (s *scanner) eof() {
	if len(s.brackets) > 0 {
		b := s.brackets[len(s.brackets)-1]
		if len(s.fstrings) > 0 {
			s.fail(b.pos, "f-string: expecting '}'")
		} else {
			s.fail(b.pos, "'%c' was never closed", b.ch)
		}
		return
	}
	end := len(s.src)
	if s.emitted && s.last != tNewline {
		s.emit(tNewline, end, end)
	}
	for len(s.indents) > 1 {
		s.indents = s.indents[:len(s.indents)-1]
		s.emit(tDedent, end, end)
	}
	s.emit(tEOF, end, end)
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isIdentStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c >= 0x80
}

func isIdentChar(c byte) bool {
	return isIdentStart(c) || isDigit(c)
}

// name scans an identifier or keyword, or a string's prefix.
func (s *scanner) name(start int) {
	src := s.src
	nonASCII := false
	for s.pos < len(src) && isIdentChar(src[s.pos]) {
		if src[s.pos] >= 0x80 {
			nonASCII = true
		}
		s.pos++
	}
	if s.pos < len(src) && (src[s.pos] == '"' || src[s.pos] == '\'') && isStringPrefix(src[start:s.pos]) {
		s.str(start, s.pos)
		return
	}
	if nonASCII && !s.checkIdentifier(start, s.pos) {
		return
	}
	s.emit(keyword(src[start:s.pos]), start, s.pos)
}

// isStringPrefix reports whether p is one of Python's string prefixes, in
// any case: r, u, b, br, rb, f, fr, rf.
func isStringPrefix(p string) bool {
	switch len(p) {
	case 1:
		switch p[0] | 0x20 {
		case 'r', 'u', 'b', 'f':
			return true
		}
	case 2:
		a, b := p[0]|0x20, p[1]|0x20
		return a == 'r' && (b == 'b' || b == 'f') || b == 'r' && (a == 'b' || a == 'f')
	}
	return false
}

// checkIdentifier checks a name holding non-ASCII characters against PEP 3131
// (XID_Start then XID_Continue), as written, without NFKC normalization.
func (s *scanner) checkIdentifier(start, end int) bool {
	for i := start; i < end; {
		r, size := utf8.DecodeRuneInString(s.src[i:end])
		if r == utf8.RuneError && size == 1 {
			s.fail(i, "invalid UTF-8 byte 0x%02x in identifier", s.src[i])
			return false
		}
		ok := isXIDContinue(r)
		if i == start {
			ok = isXIDStart(r)
		}
		if !ok {
			if isPrintable(r) {
				s.fail(i, "invalid character '%c' (U+%04X)", r, r)
			} else {
				s.fail(i, "invalid non-printable character U+%04X", r)
			}
			return false
		}
		i += size
	}
	return true
}

// operator scans an operator or delimiter, tracking brackets and the
// replacement fields of f-strings.
func (s *scanner) operator(start int) {
	src := s.src
	c := src[start]
	at := func(i int) byte {
		if start+i < len(src) {
			return src[start+i]
		}
		return 0
	}
	var f *fstring
	var fd *field
	if n := len(s.fstrings); n > 0 {
		f = &s.fstrings[n-1]
		if k := len(f.fields); k > 0 {
			fd = &f.fields[k-1]
		}
	}
	// At the top level of a replacement field, ':' starts the format spec
	// (even in ":="), as in CPython.
	if c == ':' && fd != nil && fd.bracket == len(s.brackets)-1 {
		fd.spec = true
		s.pos++
		s.emit(tColon, start, s.pos)
		return
	}
	kind, n := tError, 1
	switch c {
	case '(', '[', '{':
		if len(s.brackets) >= maxBrackets {
			s.fail(start, "too many nested parentheses")
			return
		}
		s.brackets = append(s.brackets, bracket{ch: c, pos: start})
		kind = bracketKind(c)
	case ')', ']', '}':
		if len(s.brackets) == 0 {
			s.fail(start, "unmatched '%c'", c)
			return
		}
		top := s.brackets[len(s.brackets)-1]
		if top.ch != opening(c) {
			if fd != nil && fd.bracket == len(s.brackets)-1 {
				s.fail(start, "f-string: unmatched '%c'", c)
			} else if l := s.line(top.pos); l != s.line(start) {
				s.fail(start, "closing parenthesis '%c' does not match opening parenthesis '%c' on line %d", c, top.ch, l)
			} else {
				s.fail(start, "closing parenthesis '%c' does not match opening parenthesis '%c'", c, top.ch)
			}
			return
		}
		s.brackets = s.brackets[:len(s.brackets)-1]
		if fd != nil && fd.bracket == len(s.brackets) {
			f.fields = f.fields[:len(f.fields)-1]
		}
		kind = bracketKind(c)
	case ':':
		kind = tColon
		if at(1) == '=' {
			kind, n = tColonEqual, 2
		}
	case ',':
		kind = tComma
	case ';':
		kind = tSemi
	case '~':
		kind = tTilde
	case '.':
		kind = tDot
		if at(1) == '.' && at(2) == '.' {
			kind, n = tEllipsis, 3
		}
	case '+':
		kind, n = pick2(at(1), tPlus, '=', tPlusEqual)
	case '%':
		kind, n = pick2(at(1), tPercent, '=', tPercentEqual)
	case '&':
		kind, n = pick2(at(1), tAmper, '=', tAmperEqual)
	case '|':
		kind, n = pick2(at(1), tVbar, '=', tVbarEqual)
	case '^':
		kind, n = pick2(at(1), tCircumflex, '=', tCircumflexEqual)
	case '@':
		kind, n = pick2(at(1), tAt, '=', tAtEqual)
	case '=':
		kind, n = pick2(at(1), tEqual, '=', tEqEqual)
	case '!':
		kind, n = pick2(at(1), tExclaim, '=', tNotEqual)
	case '-':
		kind = tMinus
		switch at(1) {
		case '=':
			kind, n = tMinEqual, 2
		case '>':
			kind, n = tArrow, 2
		}
	case '*':
		kind, n = doubled(c, at(1), at(2), tStar, tStarEqual, tDoubleStar, tDoubleStarEqual)
	case '/':
		kind, n = doubled(c, at(1), at(2), tSlash, tSlashEqual, tDoubleSlash, tDoubleSlashEqual)
	case '<':
		kind, n = doubled(c, at(1), at(2), tLess, tLessEqual, tLeftShift, tLeftShiftEqual)
	case '>':
		kind, n = doubled(c, at(1), at(2), tGreater, tGreaterEqual, tRightShift, tRightShiftEqual)
	default:
		r, _ := utf8.DecodeRuneInString(src[start:])
		if c < 0x80 && !isPrintable(r) || c == 0x7f {
			s.fail(start, "invalid non-printable character U+%04X", r)
		} else {
			s.fail(start, "invalid character '%c' (U+%04X)", r, r)
		}
		return
	}
	s.pos = start + n
	s.emit(kind, start, s.pos)
}

// doubled is an operator c that may be followed by =, doubled, or doubled
// and followed by = (*, *=, **, **=), given the two bytes after it.
func doubled(c, next, after byte, single, eq, double, doubleEq tokKind) (tokKind, int) {
	switch {
	case next == c && after == '=':
		return doubleEq, 3
	case next == c:
		return double, 2
	case next == '=':
		return eq, 2
	}
	return single, 1
}

// pick2 is an operator that may be followed by second, making long.
func pick2(next byte, short tokKind, second byte, long tokKind) (tokKind, int) {
	if next == second {
		return long, 2
	}
	return short, 1
}

// bracketKind is the token kind of a bracket character.
func bracketKind(c byte) tokKind {
	switch c {
	case '(':
		return tLpar
	case ')':
		return tRpar
	case '[':
		return tLsqb
	case ']':
		return tRsqb
	case '{':
		return tLbrace
	}
	return tRbrace
}

// opening is the opening bracket that the closing bracket c matches.
func opening(c byte) byte {
	switch c {
	case ')':
		return '('
	case ']':
		return '['
	}
	return '{'
}
