package escape_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"

	"github.com/pinbot-dev/pinbot/internal/escape"
	"github.com/pinbot-dev/pinbot/internal/escape/inerttest"
)

func TestText(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"numba-0.67.0", "numba-0.67.0"},
		{"numba → 0.67 ✓ é", "numba → 0.67 ✓ é"},
		{"\x1b[2J\x1b]0;t\x07", `\x1b[2J\x1b]0;t\x07`},
		{"a\r\nb\tc", `a\r\nb\tc`},
		{"\x7f\u0085\u009b", `\x7f\u0085\u009b`},
		{"evil\u202egnp\u2066\u200b\ufeff", `evil\u202egnp\u2066\u200b\ufeff`},
		{"\U000e0041 tag", `\U000e0041 tag`},
		{"bad\xffbyte", `bad\xffbyte`},
	} {
		if got := escape.Text(tc.in); got != tc.want {
			t.Errorf("Text(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestTextLines(t *testing.T) {
	if got, want := escape.TextLines("2 failure(s):\n  a\x1b[2J\n  b\r"), "2 failure(s):\n  a\\x1b[2J\n  b\\r"; got != want {
		t.Errorf("TextLines = %q, want %q", got, want)
	}
}

func TestMarkdown(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"numba 0.67.0 is newer than the cap <=0.66.0", `numba 0.67.0 is newer than the cap &lt;=0.66.0`},
		{"@octocat", "@&#8203;octocat"},
		{"#12", "#&#8203;12"}, {"fixes #12", "fixes #&#8203;12"}, {"1. x", `1\. x`}, {"- x", `\- x`}, {"---", `\---`}, {"0.67.0", "0.67.0"}, {"-1", "-1"}, {"## h", `\## h`}, {"#x", "#x"},
		{"https://x.example", "https:&#8203;//x.example"},
		{"WWW.x.example", "WWW&#8203;.x.example"},
		{"[a](b)", `\[a\](b)`},
		{"<b>&", "&lt;b&gt;&amp;"},
		{"a|b\nc", `a\|b c`},
		{"\x1b[31m", `\\x1b\[31m`},
	} {
		if got := escape.Markdown(tc.in); got != tc.want {
			t.Errorf("Markdown(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestCode(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"numba>=0.58,<=0.66.0", "`numba>=0.58,<=0.66.0`"},
		{"tensorflow|x", "`tensorflow\\|x`"},
		{"a`b", "``a`b``"},
		{"`x``", "``` `x`` ```"},
		{"", "` `"},
		{"a\nb", "`a b`"},
	} {
		if got := escape.Code(tc.in); got != tc.want {
			t.Errorf("Code(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestSlack(t *testing.T) {
	if got, want := escape.Slack("<!channel> <@U1> <https://x|y> &amp;"), "&lt;!channel&gt; &lt;@U1&gt; &lt;https://x|y&gt; &amp;amp;"; got != want {
		t.Errorf("Slack = %q, want %q", got, want)
	}
}

// TestMarkdownRendersInert renders hostile text as GitHub would, as a
// paragraph and in a table cell, and finds nothing but text.
func TestMarkdownRendersInert(t *testing.T) {
	for _, s := range inerttest.Hostile {
		inerttest.Markdown(t, escape.Markdown(s))
		table := "| a | b |\n|---|---|\n| " + escape.Code(s) + " | " + escape.Markdown(s) + " |\n"
		inerttest.Markdown(t, table)
		if html := render(t, table); strings.Count(html, "<td>") != 2 {
			t.Errorf("Code/Markdown(%q) break their table cell: %s", s, html)
		}
	}
}

var gfm = goldmark.New(goldmark.WithExtensions(extension.GFM))

func render(t *testing.T, md string) string {
	t.Helper()
	var b bytes.Buffer
	if err := gfm.Convert([]byte(md), &b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func FuzzMarkdown(f *testing.F) {
	for _, s := range inerttest.Hostile {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		inerttest.Markdown(t, escape.Markdown(s))
		table := "| a | b |\n|---|---|\n| " + escape.Code(s) + " | " + escape.Markdown(s) + " |\n"
		inerttest.Markdown(t, table)
		if html := render(t, table); strings.Count(html, "<td>") != 2 {
			t.Fatalf("Code/Markdown(%q) break their table cell: %s", s, html)
		}
	})
}

func FuzzText(f *testing.F) {
	for _, s := range inerttest.Hostile {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := escape.Text(s)
		if strings.Contains(out, "\n") && !strings.Contains(s, "\n") {
			t.Fatalf("Text(%q) = %q adds a line break", s, out)
		}
		inerttest.Text(t, out)
		if strings.ContainsAny(escape.Slack(s), "<>") {
			t.Fatalf("Slack(%q) holds < or >", s)
		}
	})
}
