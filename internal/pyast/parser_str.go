package pyast

import (
	"strings"
	"unicode/utf8"
)

// A piece is a literal part of an f-string, or one of its replacement
// fields, before adjacent literals are merged into one Constant.
type piece struct {
	value    string
	pos, end Pos
	field    *FormattedValue // nil for literal text
}

// strings parses one or more adjacent string literals: a Constant, or a
// JoinedStr if one of them is an f-string.
func (p *parser) strings() Expr {
	start := p.pos()
	if p.tok == tString && p.peek(1) != tString && p.peek(1) != tFStringStart {
		part, value, isBytes := p.literal()
		p.next()
		kind := ConstStr
		if isBytes {
			kind = ConstBytes
		}
		parts := p.a.parts.take(1)
		parts[0] = part
		c := p.a.consts.new()
		*c = Constant{span{start, p.prevEnd}, kind, value, parts}
		return c
	}
	partMark, pieceMark := len(p.a.strParts.items), len(p.a.pieces.items)
	var sb strings.Builder
	nBytes, nStr, nF := 0, 0, 0
	for p.tok == tString || p.tok == tFStringStart {
		if p.tok == tFStringStart {
			nF++
			p.a.strParts.push(p.fstring())
			continue
		}
		part, value, isBytes := p.literal()
		p.next()
		p.a.strParts.push(part)
		if isBytes {
			nBytes++
		} else {
			nStr++
		}
		sb.WriteString(value)
		p.a.pieces.push(piece{value: value, pos: part.Pos, end: part.End})
	}
	if nBytes > 0 && nStr+nF > 0 {
		p.errorf(start, "cannot mix bytes and nonbytes literals")
	}
	parts := p.a.strParts.pop(partMark)
	if nF == 0 {
		p.a.pieces.pop(pieceMark)
		kind := ConstStr
		if nBytes > 0 {
			kind = ConstBytes
		}
		c := p.a.consts.new()
		*c = Constant{span{start, p.prevEnd}, kind, sb.String(), parts}
		return c
	}
	return &JoinedStr{span{start, p.prevEnd}, p.merge(pieceMark), parts}
}

// merge turns the pieces pushed since mark into a JoinedStr's values:
// adjacent literals joined into one Constant, empty ones dropped, as
// CPython does.
func (p *parser) merge(mark int) []Expr {
	pieces := p.a.pieces.items[mark:]
	exprMark := len(p.a.exprs.items)
	for i := 0; i < len(pieces); {
		if pieces[i].field != nil {
			p.a.exprs.push(pieces[i].field)
			i++
			continue
		}
		j := i + 1
		for j < len(pieces) && pieces[j].field == nil {
			j++
		}
		value := pieces[i].value
		if j > i+1 {
			var sb strings.Builder
			for _, pc := range pieces[i:j] {
				sb.WriteString(pc.value)
			}
			value = sb.String()
		}
		if value != "" {
			c := p.a.consts.new()
			*c = Constant{span: span{pieces[i].pos, pieces[j-1].end}, Kind: ConstStr, Value: value}
			p.a.exprs.push(c)
		}
		i = j
	}
	p.a.pieces.pop(mark)
	return p.a.exprs.pop(exprMark)
}

// quoted splits a literal's text (a STRING token, or the FSTRING_START and
// FSTRING_END of an f-string) into its prefix, quote and body.
func quoted(pos, end Pos, text string) StrPart {
	q := strings.IndexAny(text, `'"`)
	quote := text[q : q+1]
	if len(text)-q >= 3 && text[q+1] == text[q] && text[q+2] == text[q] {
		quote = text[q : q+3]
	}
	return StrPart{Pos: pos, End: end, BodyPos: pos + Pos(q+len(quote)), Prefix: text[:q], Quote: quote}
}

// literal decodes the current STRING token.
func (p *parser) literal() (part StrPart, value string, isBytes bool) {
	t := p.toks[p.i]
	text := p.src[t.pos:t.end]
	part = quoted(Pos(t.pos), Pos(t.end), text)
	part.BodyEnd = part.End - Pos(len(part.Quote))
	body := p.src[part.BodyPos:part.BodyEnd]
	part.Escapes = strings.IndexByte(body, '\\') >= 0
	part.Multiline = strings.ContainsAny(body, "\r\n")
	raw := strings.ContainsAny(part.Prefix, "rR")
	isBytes = strings.ContainsAny(part.Prefix, "bB")
	if isBytes {
		for i := 0; i < len(body); i++ {
			if body[i] >= 0x80 {
				p.errorf(part.BodyPos+Pos(i), "bytes can only contain ASCII literal characters")
			}
		}
	}
	return part, p.decode(body, part.BodyPos, raw, isBytes, false), isBytes
}

// fstring parses one f-string, from FSTRING_START to FSTRING_END, pushing
// its literal text and replacement fields on the piece stack.
func (p *parser) fstring() StrPart {
	st := p.toks[p.i]
	part := quoted(Pos(st.pos), Pos(st.end), p.src[st.pos:st.end])
	raw := strings.ContainsAny(part.Prefix, "rR")
	p.next()
	for {
		switch p.tok {
		case tFStringMiddle:
			t := p.toks[p.i]
			v := p.decode(p.src[t.pos:t.end], Pos(t.pos), raw, false, true)
			p.a.pieces.push(piece{value: v, pos: Pos(t.pos), end: Pos(t.end)})
			p.next()
		case tLbrace:
			p.field(raw)
		case tFStringEnd:
			t := p.toks[p.i]
			p.next()
			part.End, part.BodyEnd = Pos(t.end), Pos(t.pos)
			body := p.src[part.BodyPos:part.BodyEnd]
			part.Escapes = strings.IndexByte(body, '\\') >= 0
			part.Multiline = strings.ContainsAny(body, "\r\n")
			return part
		default:
			p.invalid()
		}
	}
}

// field parses a replacement field {expr=!conv:spec} and pushes it (after
// its {expr=} text) on the piece stack.
func (p *parser) field(raw bool) {
	lbrace := p.toks[p.i]
	p.next()
	if p.tok == tRbrace {
		p.errorf(p.pos(), "f-string: valid expression required before '}'")
	}
	var e Expr
	if p.tok == tYield {
		e = p.yieldExpr()
	} else {
		e = p.starExpressions()
	}
	debug := p.got(tEqual)
	if p.tok != tExclaim && p.tok != tColon && p.tok != tRbrace {
		p.errorf(p.pos(), "f-string: expecting '}'")
	}
	var debugPiece piece
	if debug {
		end := p.pos()
		debugPiece = piece{value: stripComments(p.src[lbrace.end:end]), pos: Pos(lbrace.end), end: end}
	}
	var conv byte
	if p.tok == tExclaim {
		bang := p.toks[p.i]
		p.next()
		if p.tok != tName {
			p.errorf(p.pos(), "f-string: missing conversion character")
		}
		if p.toks[p.i].pos != bang.end {
			p.errorf(p.pos(), "f-string: conversion type must come right after the exclamation mark")
		}
		switch name := p.text(); name {
		case "s", "r", "a":
			conv = name[0]
		default:
			p.errorf(p.pos(), "f-string: invalid conversion character %q: expected 's', 'r', or 'a'", name)
		}
		p.next()
	}
	var spec *JoinedStr
	if p.tok == tColon {
		colon := p.pos()
		p.next()
		mark := len(p.a.pieces.items)
		for p.tok == tFStringMiddle || p.tok == tLbrace {
			if p.tok == tLbrace {
				p.field(raw)
				continue
			}
			t := p.toks[p.i]
			v := p.decode(p.src[t.pos:t.end], Pos(t.pos), raw, false, true)
			p.a.pieces.push(piece{value: v, pos: Pos(t.pos), end: Pos(t.end)})
			p.next()
		}
		spec = &JoinedStr{span: span{colon, p.prevEnd}, Values: p.merge(mark)}
	}
	if p.tok != tRbrace {
		p.errorf(p.pos(), "f-string: expecting '}'")
	}
	p.next()
	if debug && conv == 0 && spec == nil {
		conv = 'r'
	}
	if debug {
		p.a.pieces.push(debugPiece)
	}
	p.a.pieces.push(piece{field: &FormattedValue{span{Pos(lbrace.pos), p.prevEnd}, e, conv, spec}})
}

// stripComments removes # comments from the text of a {expr=} field, as
// CPython does (naively: a # inside a string counts too).
func stripComments(s string) string {
	if strings.IndexByte(s, '#') < 0 {
		return s
	}
	var sb strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '#' {
			sb.WriteByte(s[i])
			continue
		}
		for i < len(s) && s[i] != '\n' {
			i++
		}
		if i < len(s) {
			sb.WriteByte('\n')
		}
	}
	return sb.String()
}

// decode returns the value of a literal's body starting at pos: escapes
// decoded unless raw, line breaks made "\n", and in f-string text doubled
// braces made single.
func (p *parser) decode(body string, pos Pos, raw, isBytes, fstr bool) string {
	special := "\\\r"
	if raw {
		special = "\r"
	}
	if fstr {
		special += "{}"
	}
	if !strings.ContainsAny(body, special) {
		return body
	}
	var b strings.Builder
	b.Grow(len(body))
	for i := 0; i < len(body); {
		c := body[i]
		switch {
		case c == '\r':
			b.WriteByte('\n')
			i++
			if i < len(body) && body[i] == '\n' {
				i++
			}
			continue
		case fstr && (c == '{' || c == '}'):
			b.WriteByte(c)
			i++
			if i < len(body) && body[i] == c {
				i++
			}
			continue
		case c != '\\' || raw:
			b.WriteByte(c)
			i++
			continue
		}
		at := pos + Pos(i)
		i++
		if i >= len(body) {
			b.WriteByte('\\')
			break
		}
		e := body[i]
		if fstr && (e == '{' || e == '}') {
			// A backslash does not escape a brace: it stays, and the brace
			// is read as a brace.
			b.WriteByte('\\')
			continue
		}
		i++
		switch e {
		case '\n':
		case '\r':
			if i < len(body) && body[i] == '\n' {
				i++
			}
		case '\\', '\'', '"':
			b.WriteByte(e)
		case 'a':
			b.WriteByte('\a')
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'v':
			b.WriteByte('\v')
		case '0', '1', '2', '3', '4', '5', '6', '7':
			v := rune(e - '0')
			for n := 1; n < 3 && i < len(body) && body[i] >= '0' && body[i] <= '7'; n++ {
				v = v*8 + rune(body[i]-'0')
				i++
			}
			if isBytes {
				b.WriteByte(byte(v))
			} else {
				writeRune(&b, v)
			}
		case 'x':
			v, ok := hexDigits(body, i, 2)
			if !ok {
				p.errorf(at, "(unicode error) truncated \\xXX escape")
			}
			i += 2
			if isBytes {
				b.WriteByte(byte(v))
			} else {
				writeRune(&b, v)
			}
		case 'u', 'U':
			if isBytes {
				b.WriteByte('\\')
				b.WriteByte(e)
				break
			}
			n := 4
			if e == 'U' {
				n = 8
			}
			v, ok := hexDigits(body, i, n)
			if !ok {
				p.errorf(at, "(unicode error) truncated \\%cXXXX escape", e)
			}
			if v > utf8.MaxRune {
				p.errorf(at, "(unicode error) illegal Unicode character")
			}
			i += n
			writeRune(&b, v)
		case 'N':
			if isBytes {
				b.WriteByte('\\')
				b.WriteByte(e)
				break
			}
			end := -1
			if i < len(body) && body[i] == '{' {
				end = strings.IndexByte(body[i:], '}')
			}
			if end < 2 {
				p.errorf(at, "(unicode error) malformed \\N character escape")
			}
			r, ok := lookupName(body[i+1 : i+end])
			if !ok {
				p.errorf(at, "(unicode error) unknown Unicode character name")
			}
			i += end + 1
			writeRune(&b, r)
		default:
			// An unknown escape is kept as written (CPython warns).
			b.WriteByte('\\')
			b.WriteByte(e)
		}
	}
	return b.String()
}

// hexDigits reads exactly n hex digits of s at i.
func hexDigits(s string, i, n int) (rune, bool) {
	if i+n > len(s) {
		return 0, false
	}
	var v rune
	for _, c := range []byte(s[i : i+n]) {
		switch {
		case c >= '0' && c <= '9':
			v = v*16 + rune(c-'0')
		case c|0x20 >= 'a' && c|0x20 <= 'f':
			v = v*16 + rune(c|0x20-'a'+10)
		default:
			return 0, false
		}
	}
	return v, true
}

// writeRune writes r as UTF-8, or a surrogate (which UTF-8 cannot hold) as
// WTF-8: the three bytes UTF-8's scheme would give it.
func writeRune(b *strings.Builder, r rune) {
	if r >= 0xD800 && r <= 0xDFFF {
		b.WriteByte(byte(0xE0 | r>>12))
		b.WriteByte(byte(0x80 | (r>>6)&0x3F))
		b.WriteByte(byte(0x80 | r&0x3F))
		return
	}
	b.WriteRune(r)
}
