package report

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/pinbot-dev/pinbot/internal/errw"
	"github.com/pinbot-dev/pinbot/internal/escape"
)

// Text writes r for people, without colour: TextWith's zero options.
func Text(w io.Writer, r *Report) error { return TextWith(w, r, TextOptions{}) }

// TextOptions say how Text draws a report.
type TextOptions struct {
	// Color marks statuses and check results with ANSI colours: for a
	// terminal only, and never when the user set NO_COLOR (the caller
	// decides).
	Color bool
}

// TextWith writes r for people: first the Summary, then per package a status
// line and a table of its pins (file:line, before → after, why). Every string
// from the report is shown through escape.Text: names, pins and messages come
// from indexes, repositories and release code, and must not reach the
// terminal as control characters. Colour codes are pinbot's own, added
// around escaped text.
func TextWith(w io.Writer, r *Report, o TextOptions) error {
	ew := errw.New(w)
	t := escape.Text
	paint := func(code, s string) string {
		if !o.Color || code == "" {
			return s
		}
		return "\x1b[" + code + "m" + s + "\x1b[0m"
	}
	ew.Printf("%s\n\n", Summary(r))
	if len(r.Packages) == 0 {
		ew.Printf("no pins of watched packages found\n")
	}
	for i, p := range r.Packages {
		if i > 0 {
			ew.Printf("\n")
		}
		ew.Printf("%s: %s", t(p.Name), paint(statusColors[p.Status], t(p.Status)))
		if p.Newest != "" {
			ew.Printf(" (target %s)", t(p.Newest))
		}
		if p.Group != "" {
			ew.Printf(" [group %s]", t(p.Group))
		}
		ew.Printf("\n")
		if p.Reason != "" {
			ew.Printf("  %s\n", t(p.Reason))
		}
		if p.Error != "" {
			ew.Printf("  %s %s\n", paint(statusColors["error"], "error:"), t(oneLine(p.Error)))
		}
		if p.Hold != "" {
			ew.Printf("  held: %s\n", t(oneLine(p.Hold)))
		}
		tw := tabwriter.NewWriter(ew, 2, 4, 2, ' ', 0)
		for _, pin := range p.Pins {
			change := t(pin.Before)
			if pin.After != pin.Before {
				change = t(pin.Before) + " → " + t(pin.After)
			}
			fmt.Fprintf(tw, "  %s:%d\t%s\t%s\n", t(pin.File), pin.Line, change, t(pin.Reason))
		}
		tw.Flush()
		if len(p.Drift) > 0 {
			ew.Printf("  drift: the pins of %s disagree on the range:\n", t(p.Name))
			tw := tabwriter.NewWriter(ew, 2, 4, 2, ' ', 0)
			for _, d := range p.Drift {
				fmt.Fprintf(tw, "    %s\t%s%s\n", t(d.Range()), t(strings.Join(d.Pins, ", ")), t(markerNote(d.Marker)))
			}
			tw.Flush()
		}
		for _, c := range p.Checks {
			mark, _ := checkMark(c)
			ew.Printf("  check %s %s: %s (baseline %s, candidate %s) %s\n", t(c.Kind), t(c.Name), paint(markColors[mark], mark), t(c.Baseline), t(c.Candidate), t(c.Detail))
			referencesText(ew, c, "    ", t)
		}
		if env := p.environment(); env != nil {
			ew.Printf("  probe environment: %s\n", envSummary(env, t, t))
		}
		for _, s := range p.PrereleaseSkipped {
			ew.Printf("  early warning: %s %s (%s): not checked (the package's gates): %s\n", t(p.Name), t(s.Version), t(s.Source), t(oneLine(s.Reason)))
		}
		if pr := p.Prerelease; pr != nil {
			ew.Printf("  early warning: %s %s (%s): %s: %s\n", t(p.Name), t(pr.Version), t(pr.Source), t(pr.Verdict), t(oneLine(pr.Reason)))
			for _, c := range pr.Checks {
				mark, _ := checkMark(c)
				ew.Printf("    check %s %s: %s (baseline %s, pre-release %s) %s\n", t(c.Kind), t(c.Name), paint(markColors[mark], mark), t(c.Baseline), t(c.Candidate), t(c.Detail))
				referencesText(ew, c, "      ", t)
			}
		}
		nightlyText(ew, p, paint)
		for _, h := range p.HoldsBack {
			ew.Printf("  holds back %s: %s\n", t(h.Package), t(h.Reason))
		}
		if s := p.Solve; s != nil {
			ew.Printf("  solve: %s%s\n", solveMark(s), t(s.Detail))
		}
	}
	for _, g := range r.Groups {
		ew.Printf("\ngroup %s: %s (%s)\n", t(g.Name), t(g.Status), t(groupTargets(g)))
		if g.Reason != "" {
			ew.Printf("  %s\n", t(oneLine(g.Reason)))
		}
	}
	for _, in := range r.Includes {
		ew.Printf("included %s via %s\n", t(in.File), t(strings.Join(in.Chain, " → ")))
	}
	for _, w := range r.Warnings {
		ew.Printf("%s %s\n", paint(statusColors["held"], "warning:"), t(w))
	}
	for _, e := range r.Errors {
		ew.Printf("%s %s\n", paint(statusColors["error"], "error:"), t(e))
	}
	if len(r.Written) > 0 {
		ew.Printf("\nwrote %s\n", t(strings.Join(r.Written, ", ")))
	}
	return ew.Err
}

// The ANSI colours (SGR parameters) of statuses and check marks: green
// moves, red stops, yellow asks for a look, dim needs nothing.
var (
	statusColors = map[string]string{"bump": "32", "blocked": "31", "error": "1;31", "held": "33", "current": "2"}
	markColors   = map[string]string{"ok": "32", "FAIL": "31", "WARNING": "33", "upstream fixed": "36"}
)

// summaryStatuses are the statuses Summary always counts, in its order;
// error, the fifth, is counted when a package has it.
var summaryStatuses = []string{"bump", "blocked", "held", "current"}

// Summary says in one line what r holds: "3 packages: 2 bump, 1 blocked, 0
// held, 0 current", then ", 1 error" when packages are in error, then the
// errors outside packages (files that could not be read) and the
// warnings, when there are any. A status no package of pinbot has is
// counted under its own name, so that the counts always add up.
func Summary(r *Report) string {
	counts := map[string]int{}
	for _, p := range r.Packages {
		counts[p.Status]++
	}
	parts := make([]string, 0, len(summaryStatuses)+1)
	for _, s := range summaryStatuses {
		parts = append(parts, fmt.Sprintf("%d %s", counts[s], s))
		delete(counts, s)
	}
	for _, s := range slices.Sorted(maps.Keys(counts)) {
		parts = append(parts, fmt.Sprintf("%d %s", counts[s], escape.Text(s)))
	}
	line := plural(len(r.Packages), "package") + ": " + strings.Join(parts, ", ")
	if n := len(r.Errors); n > 0 {
		line += "; " + plural(n, "file error")
	}
	if n := len(r.Warnings); n > 0 {
		line += "; " + plural(n, "warning")
	}
	return line
}

// Markdown writes r as GitHub-flavoured Markdown, for pull-request bodies and
// the Actions step summary. Names and pins are code spans (escape.Code),
// messages running text (escape.Markdown): nothing from the report can open
// a link, a mention or HTML.
func Markdown(w io.Writer, r *Report) error {
	ew := errw.New(w)
	ew.Printf("## pinbot\n\n")
	if len(r.Packages) == 0 {
		ew.Printf("No pins of watched packages found.\n")
	}
	for _, p := range r.Packages {
		ew.Printf("### %s: %s\n\n", escape.Markdown(p.Name), escape.Markdown(p.Status))
		packageMarkdown(ew, p)
	}
	if len(r.Groups) > 0 {
		ew.Printf("### Groups\n\n| Group | Status | Targets | Why |\n|---|---|---|---|\n")
		for _, g := range r.Groups {
			ew.Printf("| %s | %s | %s | %s |\n", escape.Code(g.Name), escape.Markdown(g.Status), escape.Code(groupTargets(g)), escape.Markdown(oneLine(g.Reason)))
		}
		ew.Printf("\n")
	}
	if len(r.Includes) > 0 {
		ew.Printf("### Included files\n\n")
		for _, in := range r.Includes {
			var chain []string
			for _, c := range in.Chain {
				chain = append(chain, escape.Code(c))
			}
			ew.Printf("- %s via %s\n", escape.Code(in.File), strings.Join(chain, " → "))
		}
		ew.Printf("\n")
	}
	if len(r.Warnings) > 0 {
		ew.Printf("### Warnings\n\n")
		for _, w := range r.Warnings {
			ew.Printf("- %s\n", escape.Markdown(oneLine(w)))
		}
		ew.Printf("\n")
	}
	if len(r.Errors) > 0 {
		ew.Printf("### Errors\n\n")
		for _, e := range r.Errors {
			ew.Printf("- %s\n", escape.Markdown(oneLine(e)))
		}
	}
	return ew.Err
}

// envSummary says what matters of a probe environment in one line: the
// interpreter, the distributions that differ between the baseline's and the
// candidate's environments, and the constraints applied; code quotes names.
func envSummary(env *Environment, code, text func(string) string) string {
	parts := []string{"Python " + text(env.Python)}
	switch {
	case len(env.Changes) > 0:
		var cs []string
		for _, c := range env.Changes {
			cs = append(cs, code(c.String()))
		}
		parts = append(parts, "baseline → candidate: "+strings.Join(cs, ", "))
	case len(env.Baseline) > 0:
		parts = append(parts, "the baseline's and the candidate's environments differ only in the package")
	}
	if len(env.Constraints) > 0 {
		var cs []string
		for _, c := range env.Constraints {
			cs = append(cs, code(c))
		}
		parts = append(parts, "project constraints: "+strings.Join(cs, ", "))
	}
	parts = append(parts, fmt.Sprintf("%d distributions installed for the candidate", len(env.Candidate)))
	return strings.Join(parts, "; ")
}

// PackageMarkdown writes the Markdown of one package, everything under its
// heading: the target, the error or the hold, the pins, the drift, the
// checks and the early warning (the pre-release's and the nightly's).
// Markdown writes it under "### NAME: STATUS"; the dashboard
// (bot/publishing/dashboard) writes the same under its own heading, so what
// a package shows is decided here once.
func PackageMarkdown(w io.Writer, p Package) error {
	ew := errw.New(w)
	packageMarkdown(ew, p)
	return ew.Err
}

func packageMarkdown(ew *errw.Writer, p Package) {
	if p.Newest != "" {
		ew.Printf("Target: **%s**", escape.Markdown(p.Newest))
		if len(p.Sources) > 0 {
			var srcs []string
			for _, s := range slices.Sorted(maps.Keys(p.Sources)) {
				srcs = append(srcs, escape.Markdown(s)+" "+escape.Markdown(p.Sources[s]))
			}
			ew.Printf(" (newest: %s)", strings.Join(srcs, ", "))
		}
		ew.Printf("\n\n")
	}
	if p.Error != "" {
		ew.Printf("> **Error:** %s\n\n", escape.Markdown(oneLine(p.Error)))
	}
	if p.Hold != "" {
		ew.Printf("> **Held:** %s\n\n", escape.Markdown(oneLine(p.Hold)))
	}
	if len(p.Pins) > 0 {
		ew.Printf("| File | Before | After | Why |\n|---|---|---|---|\n")
		for _, pin := range p.Pins {
			after := "unchanged"
			if pin.After != pin.Before {
				after = escape.Code(pin.After)
			}
			ew.Printf("| %s | %s | %s | %s |\n", escape.Code(fmt.Sprintf("%s:%d", pin.File, pin.Line)), escape.Code(pin.Before), after, escape.Markdown(pin.Reason))
		}
		ew.Printf("\n")
	}
	if len(p.Drift) > 0 {
		ew.Printf("**Drift:** the pins of %s disagree on the range.\n\n| Range | Pins |\n|---|---|\n", escape.Markdown(p.Name))
		for _, d := range p.Drift {
			var at []string
			for _, pin := range d.Pins {
				at = append(at, escape.Code(pin))
			}
			note := ""
			if d.Marker != "" {
				note = " (marker " + escape.Markdown(d.Marker) + ")"
			}
			ew.Printf("| %s | %s%s |\n", escape.Code(d.Range()), strings.Join(at, ", "), note)
		}
		ew.Printf("\n")
	}
	if len(p.HoldsBack) > 0 {
		ew.Printf("**What the caps cost:** they hold back %s.\n\n", escape.Markdown(plural(len(p.HoldsBack), "package")))
		for _, h := range p.HoldsBack {
			ew.Printf("- %s: %s\n", escape.Code(h.Package), escape.Markdown(h.Reason))
		}
		ew.Printf("\n")
	}
	if s := p.Solve; s != nil {
		ew.Printf("**Solve:** %s%s\n\n", solveMark(s), escape.Markdown(oneLine(s.Detail)))
	}
	if len(p.Checks) > 0 {
		checksTable(ew, p.Checks, "Candidate")
		if env := p.environment(); env != nil {
			ew.Printf("Probe environment: %s\n\n", envSummary(env, escape.Code, escape.Markdown))
		}
	}
	for _, s := range p.PrereleaseSkipped {
		ew.Printf("**Early warning:** %s %s (%s) not checked (the package's gates): %s\n\n", escape.Markdown(p.Name), escape.Markdown(s.Version), escape.Markdown(s.Source), escape.Markdown(oneLine(s.Reason)))
	}
	if pr := p.Prerelease; pr != nil {
		ew.Printf("**Early warning:** %s %s (%s): %s\n\n", escape.Markdown(p.Name), escape.Markdown(pr.Version), escape.Markdown(pr.Source), escape.Markdown(oneLine(pr.Reason)))
		checksTable(ew, pr.Checks, "Pre-release")
	}
	nightlyMarkdown(ew, p)
}

// checksTable writes checks as a table; candidate names the column of the
// release judged. A usage check's references that break follow it.
func checksTable(ew *errw.Writer, checks []Check, candidate string) {
	if len(checks) == 0 {
		return
	}
	ew.Printf("| Check | Result | Baseline | %s | Detail |\n|---|---|---|---|---|\n", candidate)
	for _, c := range checks {
		_, mark := checkMark(c)
		ew.Printf("| %s %s | %s | %s | %s | %s |\n", escape.Markdown(c.Kind), escape.Code(c.Name), mark, escape.Markdown(c.Baseline), escape.Markdown(c.Candidate), escape.Markdown(c.Detail))
	}
	ew.Printf("\n")
	for _, c := range checks {
		referencesMarkdown(ew, c)
	}
}

// referencesText lists, under a usage check, its references that do not
// pass: at most MaxListed, the rest counted.
func referencesText(ew *errw.Writer, c Check, indent string, t func(string) string) {
	for i, r := range c.Broken {
		if i == MaxListed {
			ew.Printf("%s… and %s (the JSON report lists them)\n", indent, plural(len(c.Broken)-MaxListed, "more reference"))
			break
		}
		ew.Printf("%s%s: %s: %s → %s\n", indent, t(r.Verdict), t(r.Place()), t(r.Baseline), t(r.Candidate))
	}
}

// referencesMarkdown lists a usage check's references that do not pass,
// as a list under its table: at most MaxListed (a pull request body stays
// readable), the rest counted.
func referencesMarkdown(ew *errw.Writer, c Check) {
	if len(c.Broken) == 0 {
		return
	}
	what := "could not be decided or were broken already"
	if c.Verdict == "blocked" {
		what = "break"
	}
	ew.Printf("**The code's references that %s** (%d of %s checked):\n\n", what, len(c.Broken), plural(c.Uses, "reference"))
	for i, r := range c.Broken {
		if i == MaxListed {
			ew.Printf("- … and %s (the JSON report lists them)\n", plural(len(c.Broken)-MaxListed, "more reference"))
			break
		}
		mark := "⚠️"
		if r.Verdict == "blocked" {
			mark = "❌"
		}
		var tags []string
		if r.Private {
			tags = append(tags, "private")
		}
		if r.Guarded {
			tags = append(tags, "guarded")
		}
		tag := ""
		if len(tags) > 0 {
			tag = " (" + strings.Join(tags, ", ") + ")"
		}
		ew.Printf("- %s %s:%d %s %s%s: %s → %s\n", mark, escape.Code(r.File), r.Line, escape.Markdown(r.Verb()), escape.Code(r.Name), tag,
			escape.Markdown(r.Baseline), escape.Markdown(r.Candidate))
	}
	ew.Printf("\n")
}

// checkMark is how a check's verdict reads in text and in Markdown: a
// warning (undecided, already broken, could not see all it needed) is
// neither a pass nor a failure.
func checkMark(c Check) (text, md string) {
	switch {
	case c.Verdict == "warning":
		return "WARNING", "⚠️ warning"
	case c.Verdict == "upstream-fixed":
		return "upstream fixed", "🎉 upstream fixed"
	case c.Verdict == "blocked" || !c.OK:
		return "FAIL", "❌ failed"
	}
	return "ok", "✅ ok"
}

// markerNote describes a drift group's environment marker.
func markerNote(m string) string {
	if m == "" {
		return ""
	}
	return " (marker " + m + ")"
}

// solveMark says whether a resolver found the requirements resolve.
func solveMark(s *Solve) string {
	if s.OK {
		return "ok: "
	}
	return "FAIL: "
}

// groupTargets lists a group's members with their targets, in the
// group's order: "numba 0.67.0, llvmlite 0.50.1".
func groupTargets(g Group) string {
	var parts []string
	for _, m := range g.Packages {
		if v := g.Targets[m]; v != "" {
			parts = append(parts, m+" "+v)
		} else {
			parts = append(parts, m)
		}
	}
	return strings.Join(parts, ", ")
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

func oneLine(s string) string { return strings.ReplaceAll(s, "\n", "; ") }
