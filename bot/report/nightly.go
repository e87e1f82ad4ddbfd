package report

import (
	"cmp"
	"strings"
	"time"

	"github.com/pinbot-dev/pinbot/internal/errw"
	"github.com/pinbot-dev/pinbot/internal/escape"
)

// A Nightly is what the package's checks say of its newest nightly build
// (early-warning: {nightly: ...}: the scientific-python index, PyTorch's,
// tf-nightly, numba/label/dev), judged against Baseline as a target is, and
// since when: FirstFailing and LastPassing are the window pinbot run
// remembers from run to run. Like a pre-release it moves no cap, opens no
// pull request and changes no exit code.
type Nightly struct {
	Version string `json:"version"`
	// Uploaded is when the source says the build was uploaded (PEP 700's
	// upload-time, the conda timestamp: its newest file's); absent when it
	// does not say (a find-links page, a PEP 503 HTML page), and then
	// builds of one version are told apart by nothing else.
	Uploaded time.Time `json:"uploaded,omitzero"`
	// Source is where the nightly builds are: the index or page URL
	// (credentials removed), "tf-nightly on pypi", "numba/label/dev".
	Source string `json:"source"`
	// Distribution is the distribution the build installs as, when it is
	// not the package's own name (tf-nightly for tensorflow); its modules
	// keep their import names.
	Distribution string `json:"distribution,omitempty"`
	// Baseline is the release it was compared with: the newest the caps
	// admit once this run's plan is applied ("" for none).
	Baseline string `json:"baseline"`
	// Verdict is ok, blocked or warning, as a pre-release's.
	Verdict string `json:"verdict"`
	// Reason says what the verdict means in one sentence: "fails probe
	// numba-unique-ids (...)".
	Reason string  `json:"reason"`
	Checks []Check `json:"checks"`
	// FirstFailing is the first build seen failing since the last one seen
	// passing (this build when it is the first; null when this one does
	// not fail), and LastPassing the last build seen passing (null when
	// none is remembered).
	FirstFailing *NightlyBuild `json:"first_failing"`
	LastPassing  *NightlyBuild `json:"last_passing"`
	// Beside says what the checks installed beside the build, for a member
	// of a group: the other members' nightlies from the same source, or
	// their targets ("llvmlite 0.50.1 (its target: no nightly from the same
	// source)"). Absent for a package in no group.
	Beside []string `json:"beside,omitempty"`
	// Skipped lists the newer builds the package's gates (platforms,
	// python) held back, newest first, at most MaxPrereleaseSkipped.
	Skipped []PrereleaseSkip `json:"skipped,omitempty"`
}

// A NightlyUnseen is a nightly source that did not answer: its builds go
// unchecked in this run.
type NightlyUnseen struct {
	// Source names it as Nightly.Source does.
	Source string `json:"source"`
	// Reason says it in a sentence, as the report's warning does: "the
	// nightly source numba/label/dev did not answer (...): ...".
	Reason string `json:"reason"`
}

// A NightlyBuild names one nightly build: its version and, when the
// source says, its upload time.
type NightlyBuild struct {
	Version  string    `json:"version"`
	Uploaded time.Time `json:"uploaded,omitzero"`
}

// Build returns the build n judged.
func (n Nightly) Build() NightlyBuild { return NightlyBuild{Version: n.Version, Uploaded: n.Uploaded} }

// Same reports whether b and o are one build: the same version, uploaded
// at the same time (or neither time known).
func (b NightlyBuild) Same(o NightlyBuild) bool {
	return b.Version == o.Version && b.Uploaded.Equal(o.Uploaded)
}

// label names b among others: its version, with its upload day when a
// build of the same version is also named (builds replaced under one
// version, as the scientific-python index does).
func (b NightlyBuild) label(others ...*NightlyBuild) string {
	for _, o := range others {
		if o != nil && o.Version == b.Version && !o.Uploaded.Equal(b.Uploaded) && !b.Uploaded.IsZero() {
			return b.Version + " of " + b.Uploaded.UTC().Format("2006-01-02 15:04 UTC")
		}
	}
	return b.Version
}

// Window says since when n's verdict holds, as the text and Markdown put it
// after the verdict: "blocked since 0.69.0.dev20261124 (first failing
// seen), last passing 0.69.0.dev20261117"; a passing build says only its
// verdict, an undecided one the last build that passed.
func (n Nightly) Window() string {
	this := n.Build()
	s := n.Verdict
	if f := n.FirstFailing; f != nil && n.Verdict == "blocked" {
		s += " since " + f.label(&this, n.LastPassing) + " (first failing seen)"
	}
	if p := n.LastPassing; p != nil && n.Verdict != "ok" {
		s += ", last passing " + p.label(&this, n.FirstFailing)
	}
	return s
}

// nightlyText writes p's nightly in the text report: the verdict with its
// window and reason, the builds held back, what was installed beside it,
// then each check.
func nightlyText(ew *errw.Writer, p Package, paint func(code, s string) string) {
	n := p.Nightly
	if n == nil {
		return
	}
	t := escape.Text
	for _, s := range n.Skipped {
		ew.Printf("  early warning: %s nightly %s (%s): not checked (the package's gates): %s\n", t(p.Name), t(s.Version), t(n.Source), t(oneLine(s.Reason)))
	}
	ew.Printf("  early warning: %s nightly %s (%s): %s: %s\n", t(p.Name), t(nightlyName(*n)), t(n.Source), t(n.Window()), t(oneLine(n.Reason)))
	if len(n.Beside) > 0 {
		ew.Printf("    installed beside it: %s\n", t(strings.Join(n.Beside, ", ")))
	}
	for _, c := range n.Checks {
		mark, _ := checkMark(c)
		ew.Printf("    check %s %s: %s (baseline %s, nightly %s) %s\n", t(c.Kind), t(c.Name), paint(markColors[mark], mark), t(c.Baseline), t(c.Candidate), t(c.Detail))
	}
}

// nightlyMarkdown writes p's nightly in the Markdown report, as
// nightlyText does.
func nightlyMarkdown(ew *errw.Writer, p Package) {
	n := p.Nightly
	if n == nil {
		return
	}
	m := escape.Markdown
	for _, s := range n.Skipped {
		ew.Printf("**Early warning:** %s nightly %s (%s) not checked (the package's gates): %s\n\n", m(p.Name), m(s.Version), m(n.Source), m(oneLine(s.Reason)))
	}
	ew.Printf("**Early warning:** %s nightly %s (%s): %s: %s\n\n", m(p.Name), m(nightlyName(*n)), m(n.Source), m(n.Window()), m(oneLine(n.Reason)))
	if len(n.Beside) > 0 {
		var bs []string
		for _, b := range n.Beside {
			bs = append(bs, m(b))
		}
		ew.Printf("Installed beside it: %s.\n\n", strings.Join(bs, ", "))
	}
	checksTable(ew, n.Checks, "Nightly")
}

// nightlyName is the build as the reports name it: its version, with the
// distribution it installs as when that is not the package's
// ("2.21.0.dev20261130 (as tf-nightly)"), and its upload day when the
// window names another build of the same version.
func nightlyName(n Nightly) string {
	s := n.Build().label(n.FirstFailing, n.LastPassing)
	if n.Distribution != "" {
		s += " as " + n.Distribution
	}
	return s
}

// NightlyCell is the dashboards' short form of a nightly: "❌ 0.69.0.dev20261130
// blocked since 0.69.0.dev20261124", Markdown-escaped.
func NightlyCell(n *Nightly) string {
	if n == nil {
		return ""
	}
	mark := map[string]string{"ok": "✅", "blocked": "❌", "warning": "⚠️"}[n.Verdict]
	since := ""
	if f := n.FirstFailing; f != nil && n.Verdict == "blocked" && !f.Same(n.Build()) {
		since = " since " + f.Version
	}
	return strings.TrimSpace(cmp.Or(mark, "") + " " + escape.Markdown("nightly "+n.Version+" "+n.Verdict+since))
}
