// Package inerttest checks, in tests, that rendered output shows text from
// outside as text: Markdown is rendered as GitHub would (GFM, autolinks, raw
// HTML let through) and must hold no tag, link, mention or reference but the
// renderer's own; terminal text must hold no control character but line
// breaks.
package inerttest

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/renderer/html"
)

// Hostile are names and messages an attacker would choose: terminal
// escapes, line breaks, bidi overrides, invalid UTF-8, mentions, references,
// links, images, HTML, Markdown, Slack's control sequences.
var Hostile = []string{
	"\x1b[2J\x1b]0;pwned\x07name",
	"numba\r\nprotobuf: current",
	"evil\u202egnp.exe",
	"\x9b31m C1 CSI as a byte, \u009b[31m as a character",
	"bad \xff\xfe bytes",
	"@octocat and @org/team please",
	"fixes #12 and owner/repo#34",
	"see https://evil.example/x and www.evil.example",
	"[click](https://evil.example) ![img](https://evil.example/i.png)",
	"<img src=x onerror=alert(1)> <!-- hidden --> &lt;b&gt;",
	"**bold** _em_ ~~strike~~ `code` | cell | \\",
	"mail me: a@b.example",
	"<!channel> <@U123> <https://evil.example|click> &amp;",
	"```\ncode\n```",
	"    indented code",
	"# heading",
}

var md = goldmark.New(goldmark.WithExtensions(extension.GFM), goldmark.WithRendererOptions(html.WithUnsafe()))

var (
	tagRE      = regexp.MustCompile(`<(/?)([a-zA-Z][a-zA-Z0-9]*)([^>]*)>|<!--(.*?)-->`)
	hrefRE     = regexp.MustCompile(`href="([^"]*)"`)
	codeRE     = regexp.MustCompile(`(?s)<code>.*?</code>|<pre>.*?</pre>|<a [^>]*>.*?</a>`) // checked on their own
	languageRE = regexp.MustCompile(`^class="language-[a-z]+"$`)                            // a fence's info string
	mentionRE  = regexp.MustCompile(`@[A-Za-z0-9]|#[0-9]|://|(?i)\bwww\.`)
)

// allowed are the tags pinbot's own Markdown makes.
var allowed = map[string]bool{
	"p": true, "h1": true, "h2": true, "h3": true, "h4": true, "h5": true, "h6": true,
	"table": true, "thead": true, "tbody": true, "tr": true, "th": true, "td": true,
	"code": true, "pre": true, "strong": true, "em": true, "blockquote": true,
	"ul": true, "ol": true, "li": true, "sub": true, "br": true, "hr": true, "a": true,
}

// Markdown fails t when doc, rendered as GitHub would, holds a tag pinbot
// does not write, a link whose target does not start with one of links, an
// HTML comment that is not pinbot's marker, or a mention, issue reference or
// URL in its text outside code.
func Markdown(t testing.TB, doc string, links ...string) {
	t.Helper()
	var b bytes.Buffer
	if err := md.Convert([]byte(doc), &b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, m := range tagRE.FindAllStringSubmatch(out, -1) {
		if m[0][1] == '!' {
			if !strings.HasPrefix(strings.TrimSpace(m[4]), "pinbot:") {
				t.Errorf("an HTML comment from outside: %s\nin\n%s", m[0], out)
			}
			continue
		}
		name := strings.ToLower(m[2])
		if !allowed[name] {
			t.Errorf("a <%s> tag: %s\nin\n%s", name, m[0], out)
			continue
		}
		if name == "a" && m[1] == "" {
			href := hrefRE.FindStringSubmatch(m[3])
			if href == nil || !hasAnyPrefix(href[1], links) {
				t.Errorf("a link pinbot did not make: %s\nin\n%s", m[0], out)
			}
		} else if attrs := strings.TrimSpace(m[3]); attrs != "" && name != "a" && !(name == "th" || name == "td") && !(name == "code" && languageRE.MatchString(attrs)) {
			t.Errorf("a tag with attributes: %s\nin\n%s", m[0], out)
		}
	}
	text := tagRE.ReplaceAllString(codeRE.ReplaceAllString(out, ""), "")
	for _, line := range strings.Split(text, "\n") {
		if m := mentionRE.FindString(line); m != "" {
			t.Errorf("a live mention, reference or URL (%q) in %q\nin\n%s", m, line, out)
		}
	}
}

func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// Text fails t when s holds a character a terminal would act on: anything
// not printable but a line break.
func Text(t testing.TB, s string) {
	t.Helper()
	for i, r := range s {
		if r != '\n' && !unicode.IsPrint(r) {
			t.Errorf("%U at byte %d reaches the terminal: %q", r, i, s)
			return
		}
	}
	if !utf8.ValidString(s) {
		t.Errorf("invalid UTF-8 reaches the terminal: %q", s)
	}
}
