package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/pinbot-dev/pinbot/bot/planning/plan"
	"github.com/pinbot-dev/pinbot/bot/publishing"
	gh "github.com/pinbot-dev/pinbot/bot/publishing/github"
	"github.com/pinbot-dev/pinbot/bot/report"
	"github.com/pinbot-dev/pinbot/internal/escape"
)

// What pinbot shows people at a terminal and nobody else: colour in the
// text report, progress on stderr. Scripts, CI logs and files get neither.

// isTerminal reports whether w is a terminal (a character device): the
// Factory's Terminal, which tests replace to force or deny one.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}

// color reports whether output to w may be coloured: w is a terminal, and
// the user did not set NO_COLOR (https://no-color.org) or TERM=dumb.
func (f *Factory) color(w io.Writer) bool {
	return f.Terminal(w) && f.Getenv("NO_COLOR") == "" && f.Getenv("TERM") != "dumb"
}

// render returns the renderer of a --format: the text report coloured when
// stdout is a terminal that takes colour.
func (f *Factory) render(format string) func(io.Writer, *report.Report) error {
	if format == "text" && f.color(f.Stdout) {
		return func(w io.Writer, r *report.Report) error {
			return report.TextWith(w, r, report.TextOptions{Color: true})
		}
	}
	return formats[format]
}

// nextSteps says, after a text report, what the reader does next: one line
// for each kind of package that asks for something, that no pin of a watched
// package was found, or that nothing does.
// applied lists the moves already made and how to follow them up: "run with
// --write" for check, the pull requests for run.
func nextSteps(w io.Writer, rep *report.Report, moves string) {
	byStatus := map[plan.Status][]string{}
	for _, p := range rep.Packages {
		s := plan.Status(p.Status)
		byStatus[s] = append(byStatus[s], escape.Text(p.Name))
	}
	var steps []string
	if moves != "" {
		steps = append(steps, moves)
	}
	if ps := byStatus[plan.Blocked]; len(ps) > 0 {
		steps = append(steps, fmt.Sprintf("read the failed checks of %s above: their caps stay at the newest release that passed", strings.Join(ps, ", ")))
	}
	if ps := byStatus[plan.Held]; len(ps) > 0 {
		steps = append(steps, fmt.Sprintf("read why %s %s held above, and what would move it", strings.Join(ps, ", "), isAre(len(ps))))
	}
	if ps := byStatus[plan.Error]; len(ps) > 0 || len(rep.Errors) > 0 {
		what := "the errors above"
		if len(ps) > 0 {
			what = "the errors of " + strings.Join(ps, ", ") + " above"
		}
		steps = append(steps, "fix "+what+" and run again")
	}
	if len(rep.Packages) == 0 {
		// Nothing was planned because nothing was found: saying that every
		// cap admits the newest release would claim what was never checked.
		steps = append(steps, "no pin of a watched package was found: watch the packages this repository pins (pinbot init writes a .pinbot.yml watching them)")
	}
	if len(steps) == 0 && uncappedOnly(rep) {
		// "Every cap admits" would claim caps that are not there.
		steps = append(steps, "nothing to do: no pin of a watched package has a cap, and add-cap is off (add-cap: true caps them at the newest release)")
	}
	if len(steps) == 0 {
		steps = append(steps, "nothing to do: every cap admits the newest release")
	}
	fmt.Fprintln(w)
	for _, s := range steps {
		fmt.Fprintf(w, "next: %s\n", s)
	}
}

// uncappedOnly reports whether every pin the report planned has no upper
// bound with add-cap off (skipped pins aside), and there is at least one.
func uncappedOnly(rep *report.Report) bool {
	n := 0
	for _, p := range rep.Packages {
		for _, pin := range p.Pins {
			switch {
			case pin.Skip != "":
			case !pin.Uncapped:
				return false
			default:
				n++
			}
		}
	}
	return n > 0
}

func isAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}

// checkMoves is check's next step for the caps that move: apply them, or,
// once applied, review them.
func checkMoves(rep *report.Report, written bool) string {
	switch {
	case len(rep.Written) > 0:
		return "review the rewritten files and commit them"
	case written:
		return "" // --write had nothing to do
	}
	for _, p := range rep.Packages {
		if p.Changed() {
			return "run with --write to apply the new caps (pinbot check --write)"
		}
	}
	return ""
}

// runMoves is run's next step for the caps that move: the pull requests to
// look at (a draft's a check failed for), or, in a dry run, to make.
func runMoves(opts *RunOptions, out *publishing.Outcome) string {
	if opts.DryRun {
		if len(out.Planned) > 0 {
			return "run without --dry-run to open or update the pull requests above"
		}
		return ""
	}
	var ready, drafts []string
	for _, p := range out.Pulls {
		if p.Action == gh.Respected || p.URL == "" {
			continue
		}
		if p.Draft {
			drafts = append(drafts, escape.Text(p.URL))
		} else {
			ready = append(ready, escape.Text(p.URL))
		}
	}
	var steps []string
	if len(ready) > 0 {
		steps = append(steps, "review the pull request"+plural(len(ready), "", "s")+" "+strings.Join(ready, ", "))
	}
	if len(drafts) > 0 {
		steps = append(steps, "see the draft pull request"+plural(len(drafts), "", "s")+" "+strings.Join(drafts, ", "))
	}
	return strings.Join(steps, "; ")
}
