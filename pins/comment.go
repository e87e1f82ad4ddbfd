package pins

import (
	"bytes"
	"strings"
	"unicode/utf8"
)

// MaxComment bounds what LineComment returns, in bytes: a comment is a
// maintainer's note, and one in a hostile file is no place for a novel.
const MaxComment = 200

// LineComment returns the comment that ends the pin's line in data, without
// its "#" and the spaces around it, as maintainers write one beside a cap to
// say why it is there ("protobuf<7  # 7 breaks the generated code", or
// `"protobuf<7",  # ...` in a TOML list, or `protobuf = "<7"  # ...` in a
// Poetry table, whose text is the line); "" when there is none. Only
// spaces, closing quotes and brackets and a comma may stand between the
// pin's text and the "#", and one of them must: a "#" inside the next
// requirement of the line, or one written against the text, is not a
// comment. Every format pinbot reads but go.mod starts comments with "#"
// (go.mod's are "//" and never match). The text is cut to MaxComment bytes
// and made valid UTF-8; it is the repository's, to be escaped where it is
// shown.
func LineComment(data []byte, p Pin) string {
	end := p.TextStart + len(p.Text)
	if p.Text == "" || p.TextStart < 0 || end > len(data) || string(data[p.TextStart:end]) != p.Text {
		return ""
	}
	if strings.Contains(p.Text, "#") {
		// A text that runs over the comment (a Poetry table's line): the
		// comment follows the constraint.
		if p.Span.End < p.TextStart || p.Span.End > end {
			return ""
		}
		end = p.Span.End
	}
	rest := data[end:]
	if i := bytes.IndexAny(rest, "\r\n"); i >= 0 {
		rest = rest[:i]
	}
	i := 0
	for i < len(rest) && strings.IndexByte(" \t\"'],})", rest[i]) >= 0 {
		i++
	}
	if i == 0 || i == len(rest) || rest[i] != '#' {
		return ""
	}
	c := strings.ToValidUTF8(strings.TrimSpace(strings.TrimLeft(string(rest[i:]), "#")), "\uFFFD")
	if len(c) > MaxComment {
		n := MaxComment
		for n > 0 && !utf8.RuneStart(c[n]) {
			n--
		}
		c = c[:n] + "…"
	}
	return c
}
