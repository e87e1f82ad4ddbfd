package slack

import (
	"fmt"
	"strings"
	"unicode/utf8"

	esc "github.com/pinbot-dev/pinbot/internal/escape"
)

// Block Kit limits (https://api.slack.com/reference/block-kit/blocks).
const (
	MaxBlocks  = 50   // blocks in a message
	MaxHeader  = 150  // characters in a header's plain text
	MaxSection = 3000 // characters in a section's text
	maxText    = 3000 // the fallback text pinbot sends (Slack truncates at 40,000)
)

// A Kind is what a summary item is about; the names match notify.on.
type Kind string

// The kinds of Item.
const (
	KindPR            Kind = "pr"             // a pull request opened, updated, or waiting on a human
	KindFailure       Kind = "failure"        // a check failed
	KindUpstreamFixed Kind = "upstream-fixed" // a canary passes: upstream fixed what a workaround covers
	KindError         Kind = "error"          // a package or the run failed
	KindHeld          Kind = "held"           // a package held: its target is shut out and nothing moves
	KindEarlyWarning  Kind = "early-warning"  // a pre-release newer than the target fails a check, first seen
	KindNightly       Kind = "nightly"        // a nightly build's verdict changed: it fails, fails otherwise, or passes again
)

var kindMark = map[Kind]string{
	KindPR: ":arrow_up:", KindFailure: ":x:", KindUpstreamFixed: ":tada:", KindError: ":warning:", KindHeld: ":pause_button:",
	KindEarlyWarning: ":crystal_ball:", KindNightly: ":crescent_moon:",
}

// An Item is one piece of news.
type Item struct {
	Kind   Kind
	Title  string // one line, such as "numba: opened #12 Bump numba cap to 0.67.0"
	URL    string // where Title links to (a pull request), if anywhere
	Detail string // more lines, plain text
	// Package, Versions and Verdict, when set, are the section's fields:
	// the package or group (shown as code, as is its name at the start of
	// Title), the versions ("0.66.0 → 0.68.0") and the verdict ("blocked").
	Package, Versions, Verdict string
	// Links are more links, shown under the text: the release's page, its
	// release notes. Their URLs must be safe (bot/publishing/upstream.SafeURL) or
	// pinbot's own.
	Links []Link
	// Key names a condition that lasts from run to run (a blocked release:
	// "failure:numba"), by which the caller alerts it once; Build ignores
	// it.
	Key string
}

// A Link is a link with its text.
type Link struct{ Text, URL string }

// maxField is Block Kit's limit on a section field's text.
const maxField = 2000

// A Summary is everything a run has to say.
type Summary struct {
	Repo   string // owner/name
	RunURL string // the workflow run, if any
	Items  []Item
}

// Build returns the Block Kit message for s: a header, a count line, one
// section per item, and "…and N more" when the items do not fit in Slack's 50
// blocks. Every text is cut to Slack's limits; text from outside (titles,
// details) is escaped so that it cannot form links or mentions.
func Build(s Summary) Message {
	s = valid(s)
	counts := countLine(s.Items)
	m := Message{Text: fallback(s, counts)}
	m.Blocks = append(m.Blocks, Block{Type: "header", Text: &Text{Type: "plain_text", Text: cut("pinbot: "+oneLine(s.Repo), MaxHeader), Emoji: true}})
	summary := escape(counts)
	if s.RunURL != "" {
		summary += " · " + link(s.RunURL, "workflow run")
	}
	m.Blocks = append(m.Blocks, section(summary), Block{Type: "divider"})
	room := MaxBlocks - len(m.Blocks) - 1 // the context block at the end
	for i, it := range s.Items {
		if i == room-1 && len(s.Items) > room {
			more := fmt.Sprintf("…and %d more", len(s.Items)-i)
			if s.RunURL != "" {
				more += ": see the " + link(s.RunURL, "workflow run")
			}
			m.Blocks = append(m.Blocks, section(more))
			break
		}
		b := section(itemText(it))
		b.Fields = itemFields(it)
		m.Blocks = append(m.Blocks, b)
	}
	m.Blocks = append(m.Blocks, Block{Type: "context", Elements: []Text{{Type: "mrkdwn", Text: "Sent by pinbot", Verbatim: true}}})
	return m
}

// itemText renders one item as mrkdwn within MaxSection: the title (its
// package as code), the links, the detail.
func itemText(it Item) string {
	mark := kindMark[it.Kind]
	title := cut(oneLine(it.Title), 500)
	pkg, rest := "", title
	if r, ok := strings.CutPrefix(title, oneLine(it.Package)+": "); ok && it.Package != "" {
		pkg, rest = code(it.Package)+": ", r
	}
	head := mark + " " + pkg + "*" + escape(rest) + "*"
	if it.URL != "" {
		head = mark + " " + pkg + "*" + link(it.URL, rest) + "*"
	}
	var links []string
	for _, l := range it.Links {
		if l.URL != "" {
			links = append(links, link(l.URL, l.Text))
		}
	}
	if len(links) > 0 {
		head += "\n" + strings.Join(links, " · ")
	}
	if it.Detail == "" {
		return cutMrkdwn(head, MaxSection)
	}
	room := MaxSection - utf8.RuneCountInString(head) - 1
	if room < 20 {
		return cutMrkdwn(head, MaxSection)
	}
	return head + "\n" + cutMrkdwn(escape(it.Detail), room)
}

// itemFields are an item's package, versions and verdict as section
// fields, or none.
func itemFields(it Item) []Text {
	var fields []Text
	add := func(name, value string) {
		if value != "" {
			fields = append(fields, Text{Type: "mrkdwn", Text: cutMrkdwn("*"+name+"*\n"+value, maxField), Verbatim: true})
		}
	}
	if it.Package != "" {
		add("Package", code(it.Package))
	}
	add("Versions", escape(cut(oneLine(it.Versions), 200)))
	add("Verdict", escape(cut(oneLine(it.Verdict), 200)))
	return fields
}

// Code returns s as a mrkdwn code span: on one line, escaped, its
// backticks (which would end the span) shown as ˋ.
func Code(s string) string {
	return "`" + strings.ReplaceAll(oneLine(s), "`", "ˋ") + "`"
}

// code is Code, escaped for mrkdwn and cut to a sane length.
func code(s string) string { return escape(Code(cut(s, 200))) }

func section(text string) Block {
	return Block{Type: "section", Text: &Text{Type: "mrkdwn", Text: cutMrkdwn(text, MaxSection), Verbatim: true}}
}

// countLine says how many items of each kind there are.
func countLine(items []Item) string {
	n := map[Kind]int{}
	for _, it := range items {
		n[it.Kind]++
	}
	var parts []string
	add := func(k Kind, one, many string) {
		switch n[k] {
		case 0:
		case 1:
			parts = append(parts, "1 "+one)
		default:
			parts = append(parts, fmt.Sprintf("%d %s", n[k], many))
		}
	}
	add(KindPR, "pull request", "pull requests")
	add(KindFailure, "failed check", "failed checks")
	add(KindUpstreamFixed, "upstream fix", "upstream fixes")
	add(KindHeld, "held package", "held packages") // a reminder is not new
	add(KindEarlyWarning, "early warning", "early warnings")
	add(KindNightly, "nightly build", "nightly builds")
	add(KindError, "error", "errors")
	if len(parts) == 0 {
		return "nothing to report"
	}
	return strings.Join(parts, ", ")
}

// fallback is the notification text: the count line, then the item titles.
// Slack reads it as mrkdwn too (a <!channel> in it would notify), so titles
// are escaped like the blocks; URLs are pinbot's own links.
func fallback(s Summary, counts string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "pinbot (%s): %s", escape(oneLine(s.Repo)), counts)
	for _, it := range s.Items {
		line := "\n- " + escape(oneLine(it.Title))
		if it.URL != "" {
			line += " " + it.URL
		}
		b.WriteString(line)
	}
	return cut(b.String(), maxText)
}

// escape makes text literal in mrkdwn: &, < and > are Slack's control
// characters (links, mentions). It is escape.Slack, the one escaping of
// Slack text.
func escape(s string) string { return esc.Slack(s) }

// link returns a mrkdwn link; the text is escaped and may not hold "|".
func link(u, text string) string {
	u = strings.NewReplacer("|", "%7C", ">", "%3E", "<", "%3C", " ", "%20").Replace(u)
	return "<" + u + "|" + strings.ReplaceAll(escape(text), "|", "¦") + ">"
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// cut shortens s to at most n characters, marking the cut with "…".
func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// cutMrkdwn is cut that does not split an entity (&amp;) or a link (<…>).
func cutMrkdwn(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)[:n-1]
	for i := len(r) - 1; i >= 0 && i >= len(r)-12; i-- {
		if r[i] == ';' || r[i] == '>' {
			break
		}
		if r[i] == '&' {
			r = r[:i]
			break
		}
	}
	if open := lastIndex(r, '<'); open >= 0 && lastIndex(r, '>') < open {
		r = r[:open]
	}
	return string(r) + "…"
}

func lastIndex(r []rune, c rune) int {
	for i := len(r) - 1; i >= 0; i-- {
		if r[i] == c {
			return i
		}
	}
	return -1
}

// valid returns s with invalid UTF-8 replaced, so that every limit counts the
// characters Slack will see.
func valid(s Summary) Summary {
	fix := func(t string) string { return strings.ToValidUTF8(t, "\uFFFD") }
	out := Summary{Repo: fix(s.Repo), RunURL: fix(s.RunURL), Items: make([]Item, len(s.Items))}
	for i, it := range s.Items {
		// A copy, so that a field added later is kept; its text fixed.
		it.Title, it.URL, it.Detail, it.Package, it.Versions, it.Verdict =
			fix(it.Title), fix(it.URL), fix(it.Detail), fix(it.Package), fix(it.Versions), fix(it.Verdict)
		links := it.Links
		it.Links = nil
		for _, l := range links {
			it.Links = append(it.Links, Link{Text: fix(l.Text), URL: fix(l.URL)})
		}
		out.Items[i] = it
	}
	return out
}
