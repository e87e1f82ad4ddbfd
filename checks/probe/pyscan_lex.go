package probe

import (
	"fmt"
	"strings"
)

// A logLine is one logical line: text has comments blanked; mask is text with the
// insides of string literals replaced by 'x' (newlines kept), so offsets agree.
type logLine struct {
	indent     int
	start, end int
	text, mask string
}

const maxFStringDepth = 8

// splitLogical joins physical lines into logical lines.
func splitLogical(src string) (out []logLine, broken string) {
	n, line, i := len(src), 1, 0
	for i < n {
		indent := 0
		for i < n && (src[i] == ' ' || src[i] == '\t' || src[i] == '\f') {
			switch src[i] {
			case '\t':
				indent = (indent/8 + 1) * 8
			case ' ':
				indent++
			default:
				indent = 0
			}
			i++
		}
		if i >= n {
			break
		}
		if src[i] == '\n' {
			i, line = i+1, line+1
			continue
		}
		if src[i] == '#' {
			for i < n && src[i] != '\n' {
				i++
			}
			continue
		}
		var text, mask strings.Builder
		start, depth, lastCode := line, 0, line
	scan:
		for i < n {
			c := src[i]
			switch {
			case c == '\n':
				if depth == 0 {
					i, line = i+1, line+1
					break scan
				}
				text.WriteByte('\n')
				mask.WriteByte('\n')
				i, line = i+1, line+1
			case c == '\\' && i+1 < n && src[i+1] == '\n':
				text.WriteString(" \n")
				mask.WriteString(" \n")
				i, line = i+2, line+1
			case c == '#':
				for i < n && src[i] != '\n' {
					text.WriteByte(' ')
					mask.WriteByte(' ')
					i++
				}
			case c == '"' || c == '\'':
				end, nl, ok := scanString(src, i, stringPrefix(src, i), 0)
				q := 1
				if i+2 < n && src[i+1] == c && src[i+2] == c {
					q = 3
				}
				for k := i; k < end; k++ {
					text.WriteByte(src[k])
					switch {
					case k < i+q || (ok && k >= end-q) || src[k] == '\n':
						mask.WriteByte(src[k])
					default:
						mask.WriteByte('x')
					}
				}
				if !ok && broken == "" {
					broken = fmt.Sprintf("unterminated string starting at line %d", line)
				}
				line += nl
				lastCode = line
				i = end
			default:
				if c != ' ' && c != '\t' && c != '\f' && c != '\r' {
					lastCode = line
				}
				switch c {
				case '(', '[', '{':
					depth++
				case ')', ']', '}':
					if depth > 0 {
						depth--
					}
				}
				text.WriteByte(c)
				mask.WriteByte(c)
				i++
			}
		}
		if depth > 0 && i >= n && broken == "" {
			broken = fmt.Sprintf("unclosed bracket in the statement at line %d", start)
		}
		end := lastCode // the last line with code, not a trailing comment
		out = append(out, logLine{indent: indent, start: start, end: end, text: text.String(), mask: mask.String()})
	}
	return out, broken
}

// stringPrefix returns the string prefix letters (r, b, u, f, t) right before i.
func stringPrefix(src string, i int) string {
	j := i
	for j > 0 && i-j < 3 && strings.IndexByte("rRbBuUfFtT", src[j-1]) >= 0 {
		j--
	}
	if j > 0 && isIdentByte(src[j-1]) {
		return "" // part of a longer name, e.g. "bar'..." cannot happen, but "xr'" is not a prefix
	}
	return src[j:i]
}

// scanString returns the end (exclusive) of the string literal whose opening quote
// is at i, how many newlines it spans and whether it is terminated.
func scanString(src string, i int, prefix string, depth int) (end, newlines int, ok bool) {
	n, q := len(src), src[i]
	fstr := strings.ContainsAny(prefix, "fFtT")
	triple := i+2 < n && src[i+1] == q && src[i+2] == q
	j := i + 1
	if triple {
		j = i + 3
	}
	for j < n {
		c := src[j]
		switch {
		case c == '\\':
			if j+1 < n && src[j+1] == '\n' {
				newlines++
			}
			j += 2
		case c == '\n':
			if !triple {
				return j, newlines, false
			}
			newlines++
			j++
		case c == q:
			if !triple {
				return j + 1, newlines, true
			}
			if j+2 < n && src[j+1] == q && src[j+2] == q {
				return j + 3, newlines, true
			}
			j++
		case fstr && c == '{' && j+1 < n && src[j+1] == '{':
			j += 2
		case fstr && c == '{' && depth < maxFStringDepth:
			k, d, spec := j+1, 1, false
			for k < n && d > 0 {
				c2 := src[k]
				switch {
				case (c2 == '\'' || c2 == '"') && !(spec && d == 1):
					e, nl, ok2 := scanString(src, k, stringPrefix(src, k), depth+1)
					newlines += nl
					if !ok2 {
						return e, newlines, false
					}
					k = e
					continue
				case c2 == '{' || c2 == '(' || c2 == '[':
					d++
				case c2 == '}' || c2 == ')' || c2 == ']':
					d--
				case c2 == ':' && d == 1:
					spec = true
				case c2 == '\n':
					newlines++
				}
				k++
			}
			j = k
		default:
			j++
		}
	}
	return n, newlines, false
}

func isIdentByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}
