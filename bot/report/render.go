package report

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"
)

// Text writes r for people: per package a status line, then a table of its pins
// (file:line, before → after, why).
func Text(w io.Writer, r *Report) error {
	ew := &errWriter{w: w}
	if len(r.Packages) == 0 {
		ew.printf("no pins of watched packages found\n")
	}
	for i, p := range r.Packages {
		if i > 0 {
			ew.printf("\n")
		}
		ew.printf("%s: %s", p.Name, p.Status)
		if p.Newest != "" {
			ew.printf(" (target %s)", p.Newest)
		}
		ew.printf("\n")
		if p.Reason != "" {
			ew.printf("  %s\n", p.Reason)
		}
		if p.Error != "" {
			ew.printf("  error: %s\n", oneLine(p.Error))
		}
		tw := tabwriter.NewWriter(ew, 2, 4, 2, ' ', 0)
		for _, pin := range p.Pins {
			change := pin.Before
			if pin.After != pin.Before {
				change = pin.Before + " → " + pin.After
			}
			fmt.Fprintf(tw, "  %s:%d\t%s\t%s\n", pin.File, pin.Line, change, pin.Reason)
		}
		tw.Flush()
		if len(p.Drift) > 0 {
			ew.printf("  drift: the pins of %s disagree on the range:\n", p.Name)
			tw := tabwriter.NewWriter(ew, 2, 4, 2, ' ', 0)
			for _, d := range p.Drift {
				fmt.Fprintf(tw, "    %s\t%s%s\n", d.Range(), strings.Join(d.Pins, ", "), markerNote(d.Marker))
			}
			tw.Flush()
		}
		for _, c := range p.Checks {
			mark := "ok"
			if !c.OK {
				mark = "FAIL"
			}
			ew.printf("  check %s %s: %s (baseline %s, candidate %s) %s\n", c.Kind, c.Name, mark, c.Baseline, c.Candidate, c.Detail)
		}
	}
	for _, in := range r.Includes {
		ew.printf("included %s via %s\n", in.File, strings.Join(in.Chain, " → "))
	}
	for _, e := range r.Errors {
		ew.printf("error: %s\n", e)
	}
	if len(r.Written) > 0 {
		ew.printf("\nwrote %s\n", strings.Join(r.Written, ", "))
	}
	return ew.err
}

// Markdown writes r as GitHub-flavoured Markdown, for pull-request bodies and
// the Actions step summary.
func Markdown(w io.Writer, r *Report) error {
	ew := &errWriter{w: w}
	ew.printf("## pinbot\n\n")
	if len(r.Packages) == 0 {
		ew.printf("No pins of watched packages found.\n")
	}
	for _, p := range r.Packages {
		ew.printf("### %s: %s\n\n", mdEscape(p.Name), p.Status)
		if p.Newest != "" {
			ew.printf("Target: **%s**", mdEscape(p.Newest))
			if len(p.Sources) > 0 {
				var srcs []string
				for _, s := range slices.Sorted(maps.Keys(p.Sources)) {
					srcs = append(srcs, fmt.Sprintf("%s %s", s, mdEscape(p.Sources[s])))
				}
				ew.printf(" (newest: %s)", strings.Join(srcs, ", "))
			}
			ew.printf("\n\n")
		}
		if p.Error != "" {
			ew.printf("> **Error:** %s\n\n", mdEscape(oneLine(p.Error)))
		}
		if len(p.Pins) > 0 {
			ew.printf("| File | Before | After | Why |\n|---|---|---|---|\n")
			for _, pin := range p.Pins {
				after := "unchanged"
				if pin.After != pin.Before {
					after = "`" + mdCode(pin.After) + "`"
				}
				ew.printf("| `%s:%d` | `%s` | %s | %s |\n", mdCode(pin.File), pin.Line, mdCode(pin.Before), after, mdEscape(pin.Reason))
			}
			ew.printf("\n")
		}
		if len(p.Drift) > 0 {
			ew.printf("**Drift:** the pins of %s disagree on the range.\n\n| Range | Pins |\n|---|---|\n", mdEscape(p.Name))
			for _, d := range p.Drift {
				var at []string
				for _, pin := range d.Pins {
					at = append(at, "`"+mdCode(pin)+"`")
				}
				ew.printf("| `%s` | %s%s |\n", mdCode(d.Range()), strings.Join(at, ", "), mdEscape(markerNote(d.Marker)))
			}
			ew.printf("\n")
		}
		if len(p.Checks) > 0 {
			ew.printf("| Check | Result | Baseline | Candidate | Detail |\n|---|---|---|---|---|\n")
			for _, c := range p.Checks {
				mark := "✅ ok"
				if !c.OK {
					mark = "❌ failed"
				}
				ew.printf("| %s `%s` | %s | %s | %s | %s |\n", c.Kind, mdCode(c.Name), mark, mdEscape(c.Baseline), mdEscape(c.Candidate), mdEscape(c.Detail))
			}
			ew.printf("\n")
		}
	}
	if len(r.Includes) > 0 {
		ew.printf("### Included files\n\n")
		for _, in := range r.Includes {
			var chain []string
			for _, c := range in.Chain {
				chain = append(chain, "`"+mdCode(c)+"`")
			}
			ew.printf("- `%s` via %s\n", mdCode(in.File), strings.Join(chain, " → "))
		}
		ew.printf("\n")
	}
	if len(r.Errors) > 0 {
		ew.printf("### Errors\n\n")
		for _, e := range r.Errors {
			ew.printf("- %s\n", mdEscape(oneLine(e)))
		}
	}
	return ew.err
}

type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(b []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(b)
	e.err = err
	return n, err
}

func (e *errWriter) printf(format string, args ...any) { fmt.Fprintf(e, format, args...) }

// markerNote describes a drift group's environment marker.
func markerNote(m string) string {
	if m == "" {
		return ""
	}
	return " (marker " + m + ")"
}

func oneLine(s string) string { return strings.ReplaceAll(s, "\n", "; ") }

// mdEscape keeps table cells intact: pipes and newlines would end the cell.
func mdEscape(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ", "<", "&lt;", ">", "&gt;").Replace(s)
}

// mdCode keeps text inside `code` spans intact.
func mdCode(s string) string { return strings.NewReplacer("|", `\|`, "`", "'", "\n", " ").Replace(s) }
