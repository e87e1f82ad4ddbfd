package requirements

import (
	"bytes"
	"strings"
)

// A segment is a piece of a logical line: text taken from the file at start.
type segment struct {
	at    int // offset of the piece in the logical line
	start int // file offset
	n     int
}

// A logical is one logical line: physical lines joined at trailing
// backslashes, with pip's comment rule applied.
type logical struct {
	text string
	segs []segment
	// lead is the offset in text of the first non-space byte, and text[lead:]
	// is what pip reads (comments and surrounding space removed).
	lead int
}

// fileOffset maps an offset in the logical text to the file. An offset at
// the end of one segment maps to the end of that segment.
func (l *logical) fileOffset(i int) int {
	for _, s := range l.segs {
		if i <= s.at+s.n {
			return s.start + max(i-s.at, 0)
		}
	}
	last := l.segs[len(l.segs)-1]
	return last.start + last.n
}

// contiguous reports whether the logical range [i, j) is one piece of the file.
func (l *logical) contiguous(i, j int) bool {
	for _, s := range l.segs {
		if i >= s.at && i <= s.at+s.n {
			return j <= s.at+s.n
		}
	}
	return false
}

// splitLines returns the logical lines of data as pip reads them: physical
// lines (without "\n" or "\r\n") joined where a line ends in a backslash and has
// no comment; comments (a "#" at the start or after white space) cut; space
// trimmed. Lines that are empty after that are dropped.
func splitLines(data []byte) []logical {
	var out []logical
	var cur *logical
	pos := 0
	for pos < len(data) {
		end := len(data)
		next := len(data)
		if i := bytes.IndexByte(data[pos:], '\n'); i >= 0 {
			end, next = pos+i, pos+i+1
		}
		if end > pos && data[end-1] == '\r' {
			end--
		}
		line := string(data[pos:end])
		if cur == nil {
			cur = &logical{}
		}
		if commentStart(line) < 0 && strings.HasSuffix(line, `\`) {
			body := strings.TrimRight(line, `\`)
			cur.segs = append(cur.segs, segment{at: len(cur.text), start: pos, n: len(body)})
			cur.text += body
		} else {
			cur.segs = append(cur.segs, segment{at: len(cur.text), start: pos, n: len(line)})
			cur.text += line
			out = appendLogical(out, cur)
			cur = nil
		}
		pos = next
	}
	if cur != nil {
		out = appendLogical(out, cur)
	}
	return out
}

func appendLogical(out []logical, l *logical) []logical {
	text := l.text
	if c := commentStart(text); c >= 0 {
		text = text[:c]
	}
	trimmed := strings.TrimRight(text, " \t\f\v")
	lead := len(trimmed) - len(strings.TrimLeft(trimmed, " \t\f\v"))
	if lead == len(trimmed) {
		return out
	}
	l.text = trimmed
	l.lead = lead
	return append(out, *l)
}

// commentStart returns where pip's comment pattern `(^|\s+)#.*$` starts in
// line (the white space before the "#"), or -1.
func commentStart(line string) int {
	for i := 0; i < len(line); i++ {
		if line[i] != '#' {
			continue
		}
		if i == 0 {
			return 0
		}
		if isSpace(line[i-1]) {
			j := i - 1
			for j > 0 && isSpace(line[j-1]) {
				j--
			}
			return j
		}
	}
	return -1
}

func isSpace(b byte) bool { return b == ' ' || b == '\t' || b == '\f' || b == '\v' }

// splitOptions splits a requirement line as pip's break_args_options does: the
// requirement ends before the first space-separated token that starts with
// "-" (per-requirement options such as --hash). It returns the end of the
// requirement (without trailing space) and the options text.
func splitOptions(s string) (reqEnd int, options string) {
	i := 0
	for i < len(s) {
		if s[i] == '-' && (i == 0 || s[i-1] == ' ') {
			end := i
			for end > 0 && isSpace(s[end-1]) {
				end--
			}
			return end, s[i:]
		}
		i++
	}
	return len(s), ""
}

// optionValue reads the value of an option line such as "-r base.txt",
// "-rbase.txt" or "--requirement=base.txt" whose option is one of names. It
// returns the option as written, its value (unquoted) and ok.
func optionValue(s string, short string, long string) (opt, val string, ok bool) {
	switch {
	case s == short || s == long:
		return s, "", true
	case strings.HasPrefix(s, long):
		rest := s[len(long):]
		switch {
		case strings.HasPrefix(rest, "="):
			return long, unquote(strings.TrimSpace(rest[1:])), true
		case rest != "" && isSpace(rest[0]):
			return long, unquote(strings.TrimSpace(rest)), true
		}
		return "", "", false
	case strings.HasPrefix(s, short) && !strings.HasPrefix(s, "--"):
		rest := strings.TrimPrefix(strings.TrimSpace(s[len(short):]), "=")
		return short, unquote(strings.TrimSpace(rest)), rest != ""
	}
	return "", "", false
}

func unquote(s string) string {
	if len(s) >= 2 && (s[0] == '"' || s[0] == '\'') && s[len(s)-1] == s[0] {
		return s[1 : len(s)-1]
	}
	if i := strings.IndexAny(s, " \t"); i >= 0 {
		return s[:i]
	}
	return s
}
