package slack

import (
	"fmt"
	"strings"
)

// A FleetSummary is a fleet's state in one message (pinbot fleet report): a
// line per package, such as "numba 0.67.0: 37 bumped, 3 blocked, 2 held".
type FleetSummary struct {
	// Fleet names it: the owners of its repositories.
	Fleet        string
	Repositories int
	// URL is the dashboard (an issue), RunURL the workflow run; either may
	// be empty.
	URL, RunURL string
	Lines       []FleetLine
}

// A FleetLine is one package's state.
type FleetLine struct {
	Text string
	// Alert marks a package a person should look at (a blocked bump, an
	// error).
	Alert bool
}

// BuildFleet returns the Block Kit message for s: a header, a line with the
// number of repositories and the links, and the packages' lines, cut to
// Slack's limits like Build's. Text from outside is escaped, in the blocks
// and in the fallback text alike (Slack reads both as mrkdwn).
func BuildFleet(s FleetSummary) Message {
	fix := func(t string) string { return strings.ToValidUTF8(t, "\uFFFD") }
	s.Fleet, s.URL, s.RunURL = fix(s.Fleet), fix(s.URL), fix(s.RunURL)
	head := "pinbot: fleet"
	if s.Fleet != "" {
		head += " " + oneLine(s.Fleet)
	}
	intro := fmt.Sprintf("%d repositories", s.Repositories)
	if s.URL != "" {
		intro += " · " + link(s.URL, "dashboard")
	}
	if s.RunURL != "" {
		intro += " · " + link(s.RunURL, "workflow run")
	}
	m := Message{}
	m.Blocks = append(m.Blocks, Block{Type: "header", Text: &Text{Type: "plain_text", Text: cut(head, MaxHeader), Emoji: true}},
		section(intro), Block{Type: "divider"})
	var text strings.Builder
	fmt.Fprintf(&text, "%s: %d repositories", escape(head), s.Repositories)
	room := MaxBlocks - len(m.Blocks) - 1
	for i, l := range s.Lines {
		line := oneLine(fix(l.Text))
		text.WriteString("\n- " + escape(line))
		if i == room-1 && len(s.Lines) > room {
			m.Blocks = append(m.Blocks, section(fmt.Sprintf("…and %d more packages", len(s.Lines)-i)))
			room = -1
			continue
		}
		if room < 0 {
			continue
		}
		mark := kindMark[KindPR]
		if l.Alert {
			mark = kindMark[KindFailure]
		}
		m.Blocks = append(m.Blocks, section(mark+" "+escape(cut(line, 500))))
	}
	if s.URL != "" {
		text.WriteString("\n" + s.URL)
	}
	m.Text = cut(text.String(), maxText)
	m.Blocks = append(m.Blocks, Block{Type: "context", Elements: []Text{{Type: "mrkdwn", Text: "Sent by pinbot fleet report"}}})
	return m
}
