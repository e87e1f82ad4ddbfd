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
	if len(rep.Results) == 0 && len(rep.Uses) > 0 {
		title = fmt.Sprintf("Uses of %s", mdEscape(rep.Package))
	}
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
	if len(rep.Results) > 0 || len(rep.Uses) == 0 {
		rep.probesMarkdown(&b)
	}
	rep.usesMarkdown(&b)
	for _, n := range rep.Notes {
		fmt.Fprintf(&b, "\n_Note: %s_\n", mdEscape(n))
	}
	return b.String()
}

func (rep *Report) probesMarkdown(b *strings.Builder) {
	rep.tableHeader(b, "Probe")
	for i := range rep.Results {
		r := &rep.Results[i]
		var base *Status
		if r.Baseline != nil {
			base = &r.Baseline.Status
		}
		rep.tableRow(b, r.Name, base, r.Candidate.Status, r.Verdict, r.Detail)
	}
}

// tableHeader starts a table of probes or uses: a column per version.
func (rep *Report) tableHeader(b *strings.Builder, what string) {
	if rep.Baseline != "" {
		fmt.Fprintf(b, "| %s | %s | %s | Verdict | Detail |\n|---|---|---|---|---|\n", what, mdEscape(rep.Baseline), mdEscape(rep.Candidate))
	} else {
		fmt.Fprintf(b, "| %s | %s | Verdict | Detail |\n|---|---|---|---|\n", what, mdEscape(rep.Candidate))
	}
}

// tableRow writes one probe or use; base is nil when it has no baseline
// side.
func (rep *Report) tableRow(b *strings.Builder, name string, base *Status, cand Status, v Verdict, detail string) {
	fmt.Fprintf(b, "| %s |", mdEscape(name))
	if rep.Baseline != "" {
		st := ""
		if base != nil {
			st = statusLabel(*base)
		}
		fmt.Fprintf(b, " %s |", st)
	}
	fmt.Fprintf(b, " %s | %s | %s |\n", statusLabel(cand), verdictLabel(v), mdEscape(clipText(detail, 400)))
}

// maxUseRows bounds the uses a Markdown report lists: the blocked first,
// then the warnings; ok uses are counted, not listed.
const maxUseRows = 50

func (rep *Report) usesMarkdown(b *strings.Builder) {
	if len(rep.Uses) == 0 {
		return
	}
	count := map[Verdict]int{}
	var rows []*UseResult
	for _, v := range []Verdict{Blocked, Warning} {
		for i := range rep.Uses {
			if r := &rep.Uses[i]; r.Verdict == v {
				rows = append(rows, r)
			}
		}
	}
	for i := range rep.Uses {
		count[rep.Uses[i].Verdict]++
	}
	if len(rep.Results) > 0 {
		b.WriteString("\n")
	}
	fmt.Fprintf(b, "%d uses checked: %d blocked, %d warnings, %d ok\n", len(rep.Uses), count[Blocked], count[Warning], count[OK])
	if len(rows) == 0 {
		return
	}
	b.WriteString("\n")
	rep.tableHeader(b, "Use")
	for i, r := range rows {
		if i == maxUseRows {
			fmt.Fprintf(b, "\n_... and %d more_\n", len(rows)-maxUseRows)
			break
		}
		var base *Status
		if r.Baseline != nil {
			base = &r.Baseline.Status
		}
		rep.tableRow(b, r.Name, base, r.Candidate.Status, r.Verdict, r.Detail)
	}
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
