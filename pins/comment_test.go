package pins_test

import (
	"testing"
	"unicode/utf8"

	"github.com/pinbot-dev/pinbot/pins"
)

// FuzzLineComment: whatever the bytes and wherever a pin claims to be,
// LineComment never panics, and what it returns is valid UTF-8 on one line,
// within MaxComment (and the ellipsis).
func FuzzLineComment(f *testing.F) {
	f.Add([]byte("protobuf<7  # 7 breaks things\n"), 0, 10, 10)
	f.Add([]byte("protobuf = \"<7\" # x # y\r\n"), 0, 24, 15)
	f.Add([]byte("  \"protobuf<7\",  # \xff\xfe\n"), 3, 10, 13)
	f.Fuzz(func(t *testing.T, data []byte, start, n, spanEnd int) {
		if start < 0 || n < 0 || start > len(data) || n > len(data)-start {
			return
		}
		p := pins.Pin{Text: string(data[start : start+n]), TextStart: start, Span: pins.Span{Start: start, End: spanEnd}}
		c := pins.LineComment(data, p)
		if !utf8.ValidString(c) || len(c) > pins.MaxComment+len("…") {
			t.Fatalf("comment %q", c)
		}
		for _, r := range c {
			if r == '\n' || r == '\r' {
				t.Fatalf("comment %q spans lines", c)
			}
		}
	})
}
