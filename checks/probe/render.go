package probe

import (
	"fmt"
	"strings"
)

// A CheckEntry is one probe as a report check: Baseline and Candidate are the
// statuses ("pass", "fail", "unknown"; Baseline is "" without a baseline). OK is
// false for a blocked or warning verdict; Detail starts with the verdict. Name and
// Detail hold no control characters but newline and tab.
type CheckEntry struct {
	Kind      string `json:"kind"`
	Name      string `json:"name"`
	OK        bool   `json:"ok"`
	Baseline  string `json:"baseline"`
	Candidate string `json:"candidate"`
	Detail    string `json:"detail"`
}

// CheckKind is the Kind of every CheckEntry made by this package.
const CheckKind = "probe"

// Check returns r as a report check entry.
func (r *Result) Check() CheckEntry {
	e := CheckEntry{
		Kind:      CheckKind,
		Name:      sanitize(r.Name),
		OK:        r.Verdict == OK || r.Verdict == UpstreamFixed,
		Candidate: string(r.Candidate.Status),
		Detail:    sanitize(string(r.Verdict) + ": " + r.Detail),
	}
	if r.Baseline != nil {
		e.Baseline = string(r.Baseline.Status)
	}
	return e
}

// Checks returns every result of the report as a check entry, in probe order.
func (rep *Report) Checks() []CheckEntry {
	out := make([]CheckEntry, len(rep.Results))
	for i := range rep.Results {
		out[i] = rep.Results[i].Check()
	}
	return out
}

// Markdown renders the report as a heading line and a table, for a pull request
// body or an Actions step summary. Text from the probed code is escaped.
func (rep *Report) Markdown() string {
	var b strings.Builder
	title := fmt.Sprintf("Internal-API probes for %s", mdEscape(rep.Package))
	if rep.Baseline != "" {
		title += fmt.Sprintf(" %s → %s", mdEscape(rep.Baseline), mdEscape(rep.Candidate))
	} else if rep.Candidate != "" {
		title += " " + mdEscape(rep.Candidate)
	}
	mode := rep.Mode
	if rep.Python != "" {
		mode += ", Python " + mdEscape(rep.Python)
	}
	fmt.Fprintf(&b, "**%s** (%s): %s\n\n", title, mode, verdictLabel(rep.Verdict))
	if rep.Baseline != "" {
		fmt.Fprintf(&b, "| Probe | %s | %s | Verdict | Detail |\n|---|---|---|---|---|\n", mdEscape(rep.Baseline), mdEscape(rep.Candidate))
	} else {
		fmt.Fprintf(&b, "| Probe | %s | Verdict | Detail |\n|---|---|---|---|\n", mdEscape(rep.Candidate))
	}
	for i := range rep.Results {
		r := &rep.Results[i]
		fmt.Fprintf(&b, "| %s |", mdEscape(r.Name))
		if rep.Baseline != "" {
			st := ""
			if r.Baseline != nil {
				st = statusLabel(r.Baseline.Status)
			}
			fmt.Fprintf(&b, " %s |", st)
		}
		fmt.Fprintf(&b, " %s | %s | %s |\n", statusLabel(r.Candidate.Status), verdictLabel(r.Verdict), mdEscape(clipText(r.Detail, 400)))
	}
	for _, n := range rep.Notes {
		fmt.Fprintf(&b, "\n_Note: %s_\n", mdEscape(n))
	}
	return b.String()
}

func statusLabel(s Status) string {
	if s == Fail {
		return "**fail**"
	}
	return string(s)
}

func verdictLabel(v Verdict) string {
	switch v {
	case Blocked:
		return "**blocked**"
	case UpstreamFixed:
		return "upstream fixed"
	}
	return string(v)
}

// mdEscape makes text safe inside a Markdown table cell: no line breaks, pipes,
// HTML or emphasis from the probed code.
func mdEscape(s string) string {
	var b strings.Builder
	for _, r := range sanitize(s) {
		switch r {
		case '\n':
			b.WriteString("<br>")
		case '\t':
			b.WriteByte(' ')
		case '|', '\\', '`', '*', '_', '<', '>', '[', ']', '#', '~':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '&':
			b.WriteString("&amp;")
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
