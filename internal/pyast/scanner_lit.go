package pyast

import (
	"strings"
	"unicode"
)

// number scans a numeric literal as CPython's tokenizer does: underscores
// only between digits, no leading zeros in a nonzero decimal integer, and no
// letter right after the literal except the start of a keyword that may
// follow a number in valid code (1if x else y).
func (s *scanner) number(start int) {
	src := s.src
	at := func(i int) byte {
		if i < len(src) {
			return src[i]
		}
		return 0
	}
	i := start
	if at(i) == '0' {
		switch at(i+1) | 0x20 {
		case 'x':
			s.based(start, 16, "hexadecimal")
			return
		case 'o':
			s.based(start, 8, "octal")
			return
		case 'b':
			s.based(start, 2, "binary")
			return
		}
	}
	if at(i) == '.' {
		i++
		goto fraction
	}
	if at(i) == '0' {
		for {
			if at(i) == '_' {
				i++
				if !isDigit(at(i)) {
					s.fail(i, "invalid decimal literal")
					return
				}
			}
			if at(i) != '0' {
				break
			}
			i++
		}
		nonzero := false
		if isDigit(at(i)) {
			nonzero = true
			if i = s.decimalTail(i); i < 0 {
				return
			}
		}
		switch at(i) {
		case '.':
			i++
			goto fraction
		case 'e', 'E':
			goto exponent
		case 'j', 'J':
			goto imaginary
		}
		if nonzero {
			s.fail(start, "leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers")
			return
		}
		goto end
	}
	if i = s.decimalTail(i); i < 0 {
		return
	}
	if at(i) != '.' {
		goto exponent
	}
	i++
fraction:
	if isDigit(at(i)) {
		if i = s.decimalTail(i); i < 0 {
			return
		}
	}
exponent:
	if c := at(i); c == 'e' || c == 'E' {
		e := i
		i++
		if at(i) == '+' || at(i) == '-' {
			i++
			if !isDigit(at(i)) {
				s.fail(i, "invalid decimal literal")
				return
			}
		} else if !isDigit(at(i)) {
			// "1else": the number ends before the e.
			if !s.endOfNumber(e, "decimal") {
				return
			}
			s.pos = e
			s.emit(tNumber, start, e)
			return
		}
		if i = s.decimalTail(i); i < 0 {
			return
		}
	}
imaginary:
	if c := at(i); c == 'j' || c == 'J' {
		i++
		if !s.endOfNumber(i, "imaginary") {
			return
		}
		s.pos = i
		s.emit(tNumber, start, i)
		return
	}
end:
	if !s.endOfNumber(i, "decimal") {
		return
	}
	s.pos = i
	s.emit(tNumber, start, i)
}

// decimalTail scans digits with single underscores between them from i and
// returns the offset after them, or -1 after an error.
func (s *scanner) decimalTail(i int) int {
	src := s.src
	for {
		for i < len(src) && isDigit(src[i]) {
			i++
		}
		if i >= len(src) || src[i] != '_' {
			return i
		}
		i++
		if i >= len(src) || !isDigit(src[i]) {
			s.fail(i, "invalid decimal literal")
			return -1
		}
	}
}

// based scans a 0x, 0o or 0b literal.
func (s *scanner) based(start, base int, kind string) {
	src := s.src
	digit := func(i int) bool {
		if i >= len(src) {
			return false
		}
		c := src[i]
		switch base {
		case 16:
			return isDigit(c) || c|0x20 >= 'a' && c|0x20 <= 'f'
		case 8:
			return c >= '0' && c <= '7'
		}
		return c == '0' || c == '1'
	}
	i := start + 2
	for {
		if i < len(src) && src[i] == '_' {
			i++
		}
		if !digit(i) {
			if base != 16 && i < len(src) && isDigit(src[i]) {
				s.fail(i, "invalid digit '%c' in %s literal", src[i], kind)
			} else {
				s.fail(i, "invalid %s literal", kind)
			}
			return
		}
		for digit(i) {
			i++
		}
		if i >= len(src) || src[i] != '_' {
			break
		}
	}
	if base != 16 && i < len(src) && isDigit(src[i]) {
		s.fail(i, "invalid digit '%c' in %s literal", src[i], kind)
		return
	}
	if !s.endOfNumber(i, kind) {
		return
	}
	s.pos = i
	s.emit(tNumber, start, i)
}

// endOfNumber checks what follows a number at i: a letter or digit is an
// error unless it starts one of and, else, for, if, in, is, not, or (which
// CPython only warns about).
func (s *scanner) endOfNumber(i int, kind string) bool {
	src := s.src
	if i >= len(src) {
		return true
	}
	word := func(w string) bool {
		j := i + 1 + len(w)
		return strings.HasPrefix(src[i+1:], w) && (j >= len(src) || !isIdentChar(src[j]))
	}
	ok := false
	switch src[i] {
	case 'a':
		ok = word("nd")
	case 'e':
		ok = word("lse")
	case 'f':
		ok = word("or")
	case 'i':
		ok = i+1 < len(src) && (src[i+1] == 'f' || src[i+1] == 'n' || src[i+1] == 's')
	case 'o':
		ok = word("r")
	case 'n':
		ok = word("ot")
	}
	if !ok && src[i] < 0x80 && isIdentChar(src[i]) {
		s.fail(i, "invalid %s literal", kind)
		return false
	}
	return true
}

// str scans a string literal whose prefix starts at start and whose opening
// quote is at q. A plain or bytes literal is one token; an f-string opens
// f-string mode and emits FSTRING_START.
func (s *scanner) str(start, q int) {
	src := s.src
	prefix := src[start:q]
	quote := src[q]
	triple := q+2 < len(src) && src[q+1] == quote && src[q+2] == quote
	body := q + 1
	if triple {
		body = q + 3
	}
	if strings.ContainsAny(prefix, "fF") {
		if len(s.fstrings) >= maxFStrings {
			s.fail(start, "too many nested f-strings")
			return
		}
		s.fstrings = append(s.fstrings, fstring{quote: quote, triple: triple, raw: strings.ContainsAny(prefix, "rR"), start: start})
		s.pos = body
		s.emit(tFStringStart, start, body)
		return
	}
	i := body
	for {
		if i >= len(src) || !triple && (src[i] == '\n' || src[i] == '\r') {
			// Inside a replacement field, a string opened with the
			// f-string's own quote is more likely a missing }.
			if n := len(s.fstrings); n > 0 && s.fstrings[n-1].quote == quote && s.fstrings[n-1].triple == triple {
				s.fail(start, "f-string: expecting '}'")
				return
			}
		}
		if i >= len(src) {
			if triple {
				s.fail(start, "unterminated triple-quoted string literal (detected at line %d)", s.line(i))
			} else {
				s.fail(start, "unterminated string literal (detected at line %d)", s.line(i))
			}
			return
		}
		switch c := src[i]; c {
		case quote:
			if !triple {
				i++
				goto done
			}
			if i+2 < len(src) && src[i+1] == quote && src[i+2] == quote {
				i += 3
				goto done
			}
			i++
		case '\\':
			i++
			if i < len(src) {
				if src[i] == '\r' && i+1 < len(src) && src[i+1] == '\n' {
					i++
				}
				i++
			}
		case '\n', '\r':
			if !triple {
				s.fail(start, "unterminated string literal (detected at line %d)", s.line(start))
				return
			}
			i++
		default:
			i++
		}
	}
done:
	s.pos = i
	s.emit(tString, start, i)
}

// fstringText scans the literal text of an f-string, or of a format spec,
// up to a replacement field, the end of the spec or the closing quote.
// Doubled braces are literal text outside format specs; a backslash never
// escapes a brace; \N{...} is a named escape, not a field.
func (s *scanner) fstringText(f *fstring) {
	src := s.src
	inSpec := len(f.fields) > 0
	start := s.pos
	middle := func(end int) {
		if end > start {
			s.emit(tFStringMiddle, start, end)
		}
	}
	i := s.pos
	for {
		if i >= len(src) {
			if f.triple {
				s.fail(f.start, "unterminated triple-quoted f-string literal (detected at line %d)", s.line(i))
			} else {
				s.fail(f.start, "unterminated f-string literal (detected at line %d)", s.line(i))
			}
			return
		}
		switch c := src[i]; c {
		case f.quote:
			if f.triple && !(i+2 < len(src) && src[i+1] == c && src[i+2] == c) {
				i++
				continue
			}
			if inSpec {
				s.fail(i, "f-string: expecting '}'")
				return
			}
			middle(i)
			n := 1
			if f.triple {
				n = 3
			}
			s.emit(tFStringEnd, i, i+n)
			s.pos = i + n
			s.fstrings = s.fstrings[:len(s.fstrings)-1]
			return
		case '\n', '\r':
			if !f.triple {
				if inSpec {
					s.fail(i, "f-string: newlines are not allowed in format specifiers for single quoted f-strings")
				} else {
					s.fail(f.start, "unterminated f-string literal (detected at line %d)", s.line(f.start))
				}
				return
			}
			i++
		case '{':
			if !inSpec && i+1 < len(src) && src[i+1] == '{' {
				i += 2
				continue
			}
			middle(i)
			if len(f.fields) >= maxFields {
				s.fail(i, "f-string: expressions nested too deeply")
				return
			}
			if len(s.brackets) >= maxBrackets {
				s.fail(i, "too many nested parentheses")
				return
			}
			s.brackets = append(s.brackets, bracket{ch: '{', pos: i})
			f.fields = append(f.fields, field{bracket: len(s.brackets) - 1})
			s.emit(tLbrace, i, i+1)
			s.pos = i + 1
			return
		case '}':
			if !inSpec {
				if i+1 < len(src) && src[i+1] == '}' {
					i += 2
					continue
				}
				s.fail(i, "f-string: single '}' is not allowed")
				return
			}
			middle(i)
			s.brackets = s.brackets[:len(s.brackets)-1]
			f.fields = f.fields[:len(f.fields)-1]
			s.emit(tRbrace, i, i+1)
			s.pos = i + 1
			return
		case '\\':
			i++
			if i >= len(src) {
				continue
			}
			switch d := src[i]; {
			case d == '{' || d == '}':
				// The brace is itself again: a field or a doubled brace.
			case d == 'N' && !f.raw && i+1 < len(src) && src[i+1] == '{':
				j := i + 2
				for j < len(src) && src[j] != '}' && src[j] != f.quote && src[j] != '\n' && src[j] != '\r' {
					j++
				}
				if j < len(src) && src[j] == '}' {
					j++
				}
				i = j
			case d == '\r' && i+1 < len(src) && src[i+1] == '\n':
				i += 2
			default:
				i++
			}
		default:
			i++
		}
	}
}

// isXIDStart reports whether r may start an identifier: Unicode's
// XID_Start, approximated from the categories Go knows (letters, letter
// numbers, Other_ID_Start), less the few characters NFKC would turn into
// something that cannot start one.
func isXIDStart(r rune) bool {
	if r < 0x80 {
		return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == '_'
	}
	if xidExcluded(r) {
		return false
	}
	return unicode.In(r, unicode.L, unicode.Nl, unicode.Other_ID_Start) &&
		!unicode.In(r, unicode.Pattern_Syntax, unicode.Pattern_White_Space)
}

// isXIDContinue reports whether r may continue an identifier: XID_Start
// plus marks, digits, connector punctuation and Other_ID_Continue.
func isXIDContinue(r rune) bool {
	if r < 0x80 {
		return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == '_' || r >= '0' && r <= '9'
	}
	if xidExcluded(r) {
		return r == 0x0E33 || r == 0x0EB3 || r == 0xFF9E || r == 0xFF9F
	}
	return unicode.In(r, unicode.L, unicode.Nl, unicode.Other_ID_Start, unicode.Mn, unicode.Mc,
		unicode.Nd, unicode.Pc, unicode.Other_ID_Continue) &&
		!unicode.In(r, unicode.Pattern_Syntax, unicode.Pattern_White_Space)
}

// xidExcluded lists the ID_Start characters that are not XID_Start (their
// NFKC forms are not identifiers), per Unicode's DerivedCoreProperties.
func xidExcluded(r rune) bool {
	switch {
	case r == 0x037A, r == 0x0E33, r == 0x0EB3, r == 0x309B, r == 0x309C,
		r >= 0xFC5E && r <= 0xFC63, r == 0xFDFA, r == 0xFDFB,
		r == 0xFE70, r == 0xFE72, r == 0xFE74, r == 0xFE76, r == 0xFE78,
		r == 0xFE7A, r == 0xFE7C, r == 0xFE7E, r == 0xFF9E, r == 0xFF9F:
		return true
	}
	return false
}

// isPrintable is Python's str.isprintable for one character, close enough
// for error messages.
func isPrintable(r rune) bool {
	return r == ' ' || unicode.IsPrint(r)
}
