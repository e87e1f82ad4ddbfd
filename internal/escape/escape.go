// Package escape makes text from outside (names and messages from an index,
// an archive, a repository, a release's own code) inert in each kind of
// output pinbot writes: one function per kind, used by every renderer, so
// that a package name, a file name or an error message is shown as the
// characters it holds and never acts on the reader.
//
//   - Text, for terminals and logs: control characters, and characters that
//     reorder or hide text, are shown as Go escapes (\x1b, \n, \u202e), so no
//     terminal escape sequence, carriage return or bidi override takes effect;
//     TextLines is the same for a message whose line breaks are pinbot's.
//   - Markdown and Code, for GitHub (pull request bodies, comments, the step
//     summary): Markdown for running text, Code for names in a code span;
//     neither can open a link, a mention, an issue reference or HTML.
//   - Slack, for mrkdwn: &, < and >, the only characters Slack requires to be
//     escaped, so no <!channel>, <@user> or <url|link> can be smuggled in.
package escape

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Text returns s with every character that is not printable (C0 and C1
// controls, DEL, line and paragraph separators, format characters such as
// bidi overrides and zero-width joiners, unassigned code points) and every
// invalid UTF-8 byte written as a Go escape; everything else, non-ASCII
// letters and symbols included, is kept.
func Text(s string) string {
	if printable(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < utf8.RuneSelf && !unicode.IsPrint(r):
			fmt.Fprintf(&b, `\x%02x`, r)
		case !unicode.IsPrint(r) && r > 0xffff:
			fmt.Fprintf(&b, `\U%08x`, r)
		case !unicode.IsPrint(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
		i += size
	}
	return b.String()
}

// TextLines is Text for a message of several lines (an error list, a usage
// text): each line is escaped as Text escapes it, and the line breaks stay.
func TextLines(s string) string {
	if printable(strings.ReplaceAll(s, "\n", "")) {
		return s
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = Text(l)
	}
	return strings.Join(lines, "\n")
}

func printable(s string) bool {
	for i, r := range s {
		if r == utf8.RuneError {
			if _, size := utf8.DecodeRuneInString(s[i:]); size == 1 {
				return false
			}
		}
		if !unicode.IsPrint(r) {
			return false
		}
	}
	return true
}

// zwsp is a zero-width space, as an entity: set after "@", "#" and before
// "//" it breaks mentions, issue references and autolinks while reading the
// same.
const zwsp = "&#8203;"

// Markdown returns s as running text in GitHub-flavoured Markdown, table
// cells included, at the start of a line or inside one: line breaks
// become spaces, other control characters are
// escaped as Text does, HTML is escaped (&lt;), every punctuation character
// that could start emphasis, a link, an image, a table cell or code is
// backslash-escaped, and mentions (@name), issue references (#12), bare URLs
// (https://, www.) and e-mail addresses are broken by a zero-width space, so
// that nothing in s renders as anything but its characters.
func Markdown(s string) string {
	s = Text(oneLine(s))
	var b strings.Builder
	b.Grow(len(s) + 16)
	// At the start of a line, a few more characters open a block: an
	// indented code block, a heading, a list item, a thematic break.
	if s != "" && s[0] == ' ' {
		b.WriteString("&#32;") // text, not indentation
		s = s[1:]
	} else if n := strings.IndexFunc(s, func(r rune) bool { return r != '#' }); s != "" && s[0] == '#' && (n < 0 || n <= 6 && s[n] == ' ') {
		b.WriteByte('\\')
	} else if s != "" && (s[0] == '-' || s[0] == '+') && (len(s) == 1 || s[1] == ' ' || strings.Trim(s, "- ") == "") {
		b.WriteByte('\\')
	} else if n := leadingDigits(s); n > 0 && n <= 9 && n < len(s) && (s[n] == '.' || s[n] == ')') && (n+1 == len(s) || s[n+1] == ' ') {
		b.WriteString(s[:n] + "\\")
		s = s[n:]
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '<':
			b.WriteString("&lt;")
		case c == '>':
			b.WriteString("&gt;")
		case c == '&':
			b.WriteString("&amp;")
		case c == '@':
			b.WriteString("@" + zwsp)
		case c == '#' && i+1 < len(s) && isDigit(s[i+1]):
			b.WriteString("#" + zwsp)
		case c == ':' && strings.HasPrefix(s[i+1:], "//"):
			b.WriteString(":" + zwsp)
		case (c == 'w' || c == 'W') && len(s)-i >= 4 && strings.EqualFold(s[i:i+4], "www.") && (i == 0 || !isWord(s[i-1])):
			b.WriteString(s[i:i+3] + zwsp)
			i += 2
		case strings.IndexByte("\\`*_[]|~!", c) >= 0:
			b.WriteByte('\\')
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// Code returns s as a GitHub Markdown code span, delimiters included: a run
// of backticks in s gets a longer fence, "|" is escaped so that the span
// stays in its table cell, line breaks become spaces and other control
// characters are escaped as Text does. Nothing inside a code span is a link,
// a mention or HTML.
func Code(s string) string {
	s = strings.ReplaceAll(Text(oneLine(s)), "|", `\|`)
	longest, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	if s == "" {
		return "` `"
	}
	if s[0] == '`' || s[len(s)-1] == '`' || s[0] == ' ' && s[len(s)-1] == ' ' {
		s = " " + s + " " // CommonMark strips one space from each end
	}
	return fence + s + fence
}

// Slack returns s as literal mrkdwn text: &, < and > become entities, which
// is all Slack requires and all that makes links and mentions.
func Slack(s string) string {
	return slackReplacer.Replace(s)
}

var slackReplacer = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

// oneLine puts s on one line: each line break (\r\n, \n or \r) becomes a space.
func oneLine(s string) string {
	if !strings.ContainsAny(s, "\r\n") {
		return s
	}
	return strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(s)
}

func leadingDigits(s string) int {
	n := 0
	for n < len(s) && isDigit(s[n]) {
		n++
	}
	return n
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func isWord(c byte) bool { return isDigit(c) || 'a' <= c|0x20 && c|0x20 <= 'z' || c == '_' }
