// Package report holds the result of a pinbot run and renders it: text for
// people, Markdown for pull-request bodies and the GitHub step summary, JSON for
// machines. Renderers are pure functions of one Report value.
//
// The JSON keys are a contract that users' scripts read: add keys, never rename
// or drop them.
//
// It is shared by the three rooms of bot (planning, verifying, publishing)
// and by fleet, and imports none of them.
package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/pinbot-dev/pinbot/internal/envdiff"
)

// SchemaVersion is the version of the JSON layout.
const SchemaVersion = 1

// A Report is the outcome of one check over a repository.
type Report struct {
	Schema   int       `json:"schema"`
	Packages []Package `json:"packages"`
	// Errors are problems not tied to one package, such as a pin file that
	// does not parse.
	Errors []string `json:"errors"`
	// Warnings are problems that hide nothing else, such as one entry of a
	// pin file that pinbot cannot read ("requirements.txt:4:1: ...: skipped"):
	// the file's other pins are planned. Absent when there are none.
	Warnings []string `json:"warnings,omitempty"`
	// Written lists the files rewritten by --write, relative to the root.
	Written []string `json:"written"`
	// Includes lists the files read because a requirements file includes them
	// (-r, -c), with the chain of include lines that leads to each.
	Includes []Include `json:"includes"`
	// Repository is the repository checked, "owner/name" (from
	// GITHUB_REPOSITORY or --repository; "" when unknown), by which a fleet's
	// reports are told apart.
	Repository string `json:"repository"`
	// APIRequests counts the GitHub API requests made for the repository
	// (0 for pinbot check, which makes none).
	APIRequests int `json:"api_requests"`
	// Groups are the configured groups with a member in the run; absent
	// when there are none.
	Groups []Group `json:"groups,omitempty"`
}

// An Include is a file read because a requirements file includes it.
type Include struct {
	File string `json:"file"`
	// Chain is the include lines that lead to the file, outermost first, each
	// as "requirements-dev.txt:1: -r base.txt".
	Chain []string `json:"chain"`
}

// A Package is the outcome for one watched package.
type Package struct {
	Name string `json:"name"`
	// Newest is the release the caps move to admit: the target.
	Newest string `json:"newest"`
	// Status is current (every pin admits the target), bump, blocked, held
	// (nothing moves, yet the target is shut out or cannot be tried) or
	// error.
	Status string `json:"status"`
	// Sources maps each source to its newest acceptable release.
	Sources map[string]string `json:"sources"`
	// Reason says why the target is what it is.
	Reason string  `json:"reason"`
	Pins   []Pin   `json:"pins"`
	Checks []Check `json:"checks"`
	Error  string  `json:"error"`
	// Drift lists the ranges the package's pins disagree on after the plan,
	// one entry per range; empty when they agree.
	Drift []Drift `json:"drift"`
	// Verdicts are what the checks decided about each candidate they judged,
	// in the order tried; absent when no check ran. They are all that
	// `pinbot run --verdicts` takes from a check job's report.
	Verdicts []Verdict `json:"verdicts,omitempty"`
	// Hold says why a held package is held and what would move it; "" for
	// the other statuses.
	Hold string `json:"hold"`
	// Admits is the newest acceptable release every pin admits as written,
	// before the plan ("" when none does, or the target is unknown), and
	// Behind how many acceptable releases are newer, up to the target: how
	// far the caps lag (0 when they admit the target).
	Admits string `json:"admits"`
	Behind int    `json:"behind"`
	// Prerelease is the early warning: the package's checks run against a
	// pre-release newer than the target. Absent when none was checked (no
	// such pre-release, no checks, or early-warning: false).
	Prerelease *Prerelease `json:"prerelease,omitempty"`
	// PrereleaseSkipped lists the pre-releases newer than the one checked
	// (all of them newer than the target, when none was) that the package's
	// release gates hold back from the early warning, newest first, at most
	// MaxPrereleaseSkipped: a pre-release too young for min-age, or without
	// a wheel or build for a platform the package needs, is not checked, and
	// the report says so rather than nothing. Absent when none is held.
	PrereleaseSkipped []PrereleaseSkip `json:"prerelease_skipped,omitempty"`
	// Nightly is the early warning from the package's nightly builds
	// (early-warning: {nightly: ...}): its checks against the newest
	// nightly build, with since when the verdict holds. Absent when no
	// nightly source is configured, or none was checked (a source that did
	// not answer is one of the report's warnings).
	Nightly *Nightly `json:"nightly,omitempty"`
	// NightlyUnseen says, when the package's nightly source did not answer
	// in this run (no nightly, and one of the report's warnings), which
	// source and why: what earlier runs saw of its builds stands (pinbot
	// run keeps it, and the dashboard shows it). Absent otherwise.
	NightlyUnseen *NightlyUnseen `json:"nightly_unseen,omitempty"`
	// HoldsBack is what the caps cost: each other package the release they
	// admit holds below its newest release, which the target would let go
	// further (bot/planning/holds); when another source or a gate holds the
	// target below the newest release of the source whose dependency
	// metadata is read (PyPI's 0.67.0 while conda-forge has only 0.66.0),
	// the cost is measured against that release. Empty when the caps admit
	// it; absent when it could not be told (no target, no dependency
	// metadata: a warning says why).
	HoldsBack []HoldBack `json:"holds_back,omitzero"`
	// Group names the group the package moves with (groups:), if any.
	Group string `json:"group,omitempty"`
	// Solve is what a real resolver said of the project's requirements
	// with the new caps (solve: true); absent when none was asked.
	Solve *Solve `json:"solve,omitempty"`
}

// A Solve is a resolver's answer on the project's own requirements with a
// package's new caps.
type Solve struct {
	// Resolver names it: "pip 24.0", "uv" ("" when none could be asked).
	Resolver string `json:"resolver"`
	// OK is set when the requirements resolve with the new caps.
	OK bool `json:"ok"`
	// Picked maps each distribution the resolver would install to its
	// version; absent when they do not resolve.
	Picked map[string]string `json:"picked,omitempty"`
	// Detail says what it picked of the package, or why it did not
	// resolve.
	Detail string `json:"detail"`
}

// A Group is packages that move together: one plan, one pull request, one
// verdict.
type Group struct {
	Name string `json:"name"`
	// Packages are its members the run planned, in the configuration's
	// order.
	Packages []string `json:"packages"`
	// Status is the group's one status: the first of error, blocked, bump,
	// held and current that any member has.
	Status string `json:"status"`
	// Targets maps each member to its target, chosen consistently with the
	// others' dependency metadata.
	Targets map[string]string `json:"targets"`
	// Reason says what the consistent set changed, or why the group is
	// held or blocked ("" when every member moves to its own target).
	Reason string `json:"reason"`
}

// A HoldBack is one package a cap holds back: "numba 0.65.1 holds
// numpy<2.5 while numpy 2.5.1 is out".
type HoldBack struct {
	// Package is the package held back.
	Package string `json:"package"`
	// Constraint is what shuts its newest release out ("<2.5"), with the
	// requirement's environment marker after ";" when the configured
	// Pythons do not decide it.
	Constraint string `json:"constraint"`
	// RequiredBy is the release that requires it, the newest the caps
	// admit: "numba 0.65.1".
	RequiredBy string `json:"required_by"`
	// Newest is the held package's newest release.
	Newest string `json:"newest"`
	// Reason says it in a sentence, with what the target admits instead.
	Reason string `json:"reason"`
}

// A Prerelease is what the package's checks say of a pre-release newer than
// the target (PyPI a, b, rc and .dev releases; conda label channels such
// as numba/label/dev), judged against Baseline as a target is. It moves no
// cap and opens no pull request: it says what will break when the final
// release ships.
type Prerelease struct {
	Version string `json:"version"`
	// Source is where the pre-release was found ("pypi",
	// "numba/label/dev").
	Source string `json:"source"`
	// Baseline is the release it was compared with: the newest the caps
	// admit once this run's plan is applied ("" for none).
	Baseline string `json:"baseline"`
	// Verdict is ok, blocked (a check that passes at the baseline fails at
	// the pre-release) or warning (the checks could not decide, or could
	// not read the pre-release; Reason says why).
	Verdict string `json:"verdict"`
	// Reason says, in one sentence, what the verdict means, such as
	// "fails probe numba-unique-ids (...): the cap will hold when 0.68.0
	// ships".
	Reason string  `json:"reason"`
	Checks []Check `json:"checks"`
}

// MaxPrereleaseSkipped bounds Package.PrereleaseSkipped: a label channel of
// nightly builds can hold many pre-releases that a platform gate holds back.
const MaxPrereleaseSkipped = 5

// A PrereleaseSkip is a pre-release the early warning did not check because
// it fails the package's release gates (min-age, platforms, python), as a
// target would.
type PrereleaseSkip struct {
	Version string `json:"version"`
	// Source is where it was found ("pypi", "numba/label/dev").
	Source string `json:"source"`
	// Reason is why the gates hold it, as the target's reason words it:
	// "0.68.0rc2 is 2 hours old, min-age 3d", "0.68.0rc2 has no wheel for
	// osx-arm64".
	Reason string `json:"reason"`
}

// A Verdict is the checks' decision on one candidate release: the target
// first, then, while blocked, older releases after the baseline.
type Verdict struct {
	Version string `json:"version"`
	// Baseline is the release the candidate was compared with ("" when no
	// release satisfied the pins).
	Baseline string `json:"baseline"`
	// Blocked is set when a check that passed at the baseline failed at the
	// candidate.
	Blocked bool `json:"blocked"`
	// Held, when set, says why the project's own pins of other packages hold
	// the candidate back (the resolver's account): the target is then held,
	// an older candidate counts as blocked.
	Held string `json:"held,omitempty"`
}

// A Drift is one range of a package's pins where its pins disagree, such as
// environment.yml's numba>=0.57 beside pyproject's numba>=0.58,<=0.66.0.
type Drift struct {
	// Lower and Upper are the bounds (">=0.58", "<=0.67.0"; "" for none).
	Lower string `json:"lower"`
	Upper string `json:"upper"`
	// Marker is the environment marker the pins share, if any.
	Marker string `json:"marker,omitempty"`
	// Pins are the places with this range, as "file:line".
	Pins []string `json:"pins"`
}

// Range returns the drift's range as one constraint, such as ">=0.58,<=0.67.0",
// or "any version".
func (d Drift) Range() string {
	switch {
	case d.Lower != "" && d.Upper != "":
		return d.Lower + "," + d.Upper
	case d.Lower+d.Upper != "":
		return d.Lower + d.Upper
	}
	return "any version"
}

// A Pin is one requirement of the package and what happens to it.
type Pin struct {
	File   string `json:"file"` // relative to the checked directory
	Line   int    `json:"line"`
	Key    string `json:"key"`
	Before string `json:"before"`
	After  string `json:"after"` // equals Before when the pin does not change
	Reason string `json:"reason"`
	// Narrows is set when the new cap admits less than the old one did.
	Narrows bool `json:"narrows,omitempty"`
	// Skip says why pinbot does not edit this pin.
	Skip string `json:"skip,omitempty"`
	// RaisesLower is set when the rewrite raises the lower bound (cap:
	// preserve moving ==, ~=, ^ or ~; unify; a go.mod minimum).
	RaisesLower bool `json:"raises_lower,omitempty"`
	// Yanked is set when the pin's cap names a yanked release.
	Yanked bool `json:"yanked,omitempty"`
	// Held is set when the pin, after the plan, shuts out the target; Fix
	// names the configuration that would move it ("cap: preserve").
	Held bool   `json:"held,omitempty"`
	Fix  string `json:"fix,omitempty"`
	// Major is set when the pin's cap moves across a major version;
	// absent otherwise.
	Major *Major `json:"major,omitempty"`
	// Uncapped is set when the pin has no upper bound and add-cap is off
	// for its package: nothing caps it, on purpose.
	Uncapped bool `json:"uncapped,omitempty"`
}

// A Major says that a pin's cap moves across a major version: the old cap
// shut out a major version the new one admits ("<7" to "<8"). Such a cap
// often sits on the boundary on purpose, so the pull request says so in
// its title and at the top of its body.
type Major struct {
	// From and To are the upper bounds before and after, spelled out
	// ("<7", "<=7.0.1"; ~=6.31 is "<7").
	From string `json:"from"`
	To   string `json:"to"`
	// Comment is the comment written beside the pin on its line, the
	// repository's own text, which often says why the cap is there; ""
	// when there is none.
	Comment string `json:"comment,omitempty"`
}

// A Check is the result of one check (an internal-API probe, a symbol scan)
// against the target release, compared with the currently capped one.
type Check struct {
	Kind      string `json:"kind"` // "probe", "symbols" or "usage"
	Name      string `json:"name"`
	OK        bool   `json:"ok"`
	Baseline  string `json:"baseline"`
	Candidate string `json:"candidate"`
	Detail    string `json:"detail"`
	// Verdict is ok, blocked (failed at the candidate, passed at the
	// baseline), warning (already failing at the baseline, or undecided) or
	// upstream-fixed (a canary that expected a bug passes).
	Verdict string `json:"verdict,omitempty"`
	// Environment is, for a dynamic probe, the Python environments it ran
	// in; nil for symbol scans and static probes.
	Environment *Environment `json:"environment,omitempty"`
	// Uses is, for a usage check (kind "usage"), how many of the
	// repository's references to the package were checked. It and Broken
	// are always in a usage check's JSON, never in another's (MarshalJSON).
	Uses int `json:"uses,omitempty"`
	// Broken lists, for a usage check, the references whose verdict is not
	// ok: those that resolve at the baseline and not at the candidate
	// (blocked, or a warning when the code guards them), those that cannot
	// be decided and those already unresolved at the baseline; in the
	// order of their places.
	Broken []Reference `json:"broken,omitempty"`
}

// UsageKind is the kind of a usage check (Check.Kind).
const UsageKind = "usage"

// MarshalJSON writes a check with the keys of its kind: a usage check
// always has uses and broken ([] when no reference breaks), so that a
// script reads them without checking; other checks never have them.
func (c Check) MarshalJSON() ([]byte, error) {
	type plain Check // without the method
	var v any = plain(c)
	if c.Kind == UsageKind {
		broken := c.Broken
		if broken == nil {
			broken = []Reference{}
		}
		v = struct {
			plain
			Uses   int         `json:"uses"`
			Broken []Reference `json:"broken"`
		}{plain(c), c.Uses, broken}
	}
	// As JSON writes the report: text from outside keeps its < > &; an
	// encoder that escapes them escapes this too.
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// A Reference is one place where the repository's code uses a name of the
// package, as a usage check judged it.
type Reference struct {
	Name    string `json:"name"`
	Kind    string `json:"kind"` // import, attribute, call, assign, delete, subclass, instance, base
	File    string `json:"file"`
	Line    int    `json:"line"`
	Col     int    `json:"col"`
	Private bool   `json:"private"`
	Guarded bool   `json:"guarded"`
	// Baseline and Candidate say how the name resolves at each version
	// ("passes", "missing", "undecided", the call's failure), or what it
	// is at each when that changed ("a class", "a function").
	Baseline  string `json:"baseline"`
	Candidate string `json:"candidate"`
	// Verdict is blocked or warning; Detail the resolver's account.
	Verdict string `json:"verdict"`
	Detail  string `json:"detail"`
}

// Place is how a usage check names a reference, the project's place first:
// "pytensor/link/numba/cache.py:49 replaces
// numba.core.bytecode.FunctionIdentity._unique_ids".
func (r Reference) Place() string {
	s := fmt.Sprintf("%s:%d %s %s", r.File, r.Line, r.Verb(), r.Name)
	if r.Guarded {
		s += " (guarded)"
	}
	return s
}

// Verb says what the code does with the name: "replaces" (a
// monkeypatch), "calls", "imports", "uses".
func (r Reference) Verb() string {
	verb := map[string]string{
		"import": "imports", "call": "calls", "assign": "replaces", "delete": "deletes",
		"subclass": "uses, through a subclass,", "instance": "uses, on an instance,", "base": "subclasses",
	}[r.Kind]
	if verb == "" {
		verb = "uses"
	}
	return verb
}

// MaxListed is how many references of a usage check the text and Markdown
// reports list (a pull request body included); the rest are counted, and
// the JSON report has them all.
const MaxListed = 20

// An Environment describes the environments of a dynamic probe: the
// interpreter, every distribution installed for the candidate (and the
// baseline), what differs between them, and the project's constraints their
// resolution honoured.
type Environment struct {
	Python    string         `json:"python"` // version and executable
	Candidate []Distribution `json:"candidate"`
	Baseline  []Distribution `json:"baseline"`
	// Changes are the distributions other than the package itself whose
	// versions differ from the baseline's environment to the candidate's.
	Changes []Change `json:"changes"`
	// Constraints are the project's pins of other packages applied as
	// installer constraints, each with the place it comes from.
	Constraints []string `json:"constraints"`
	// Reused is set when the candidate's environment came from the cache
	// (its resolution unchanged); false when this run built it.
	Reused bool `json:"reused"`
}

// A Distribution is one installed distribution.
type Distribution struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// A Change is a distribution whose version differs between two
// environments (envdiff.Change): the probes' type, reported as it is.
type Change = envdiff.Change

// environment returns the environment of a package's dynamic probes (they
// share one), or nil.
func (p Package) environment() *Environment {
	for _, c := range p.Checks {
		if c.Environment != nil {
			return c.Environment
		}
	}
	return nil
}

// Changed reports whether any pin of p changes.
func (p Package) Changed() bool {
	for _, pin := range p.Pins {
		if pin.Before != pin.After {
			return true
		}
	}
	return false
}

// JSON writes r as indented JSON.
func JSON(w io.Writer, r *Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(normalized(r))
}

// normalized returns r with nil slices and maps made empty, so JSON shows []
// and {} rather than null: scripts can iterate without checks.
func normalized(r *Report) *Report {
	c := *r
	c.Schema = SchemaVersion
	if c.Errors == nil {
		c.Errors = []string{}
	}
	if c.Written == nil {
		c.Written = []string{}
	}
	if c.Includes == nil {
		c.Includes = []Include{}
	}
	c.Packages = make([]Package, len(r.Packages))
	for i, p := range r.Packages {
		if p.Sources == nil {
			p.Sources = map[string]string{}
		}
		if p.Pins == nil {
			p.Pins = []Pin{}
		}
		if p.Checks == nil {
			p.Checks = []Check{}
		}
		if p.Drift == nil {
			p.Drift = []Drift{}
		}
		if p.Prerelease != nil && p.Prerelease.Checks == nil {
			pr := *p.Prerelease
			pr.Checks = []Check{}
			p.Prerelease = &pr
		}
		if p.Nightly != nil && p.Nightly.Checks == nil {
			n := *p.Nightly
			n.Checks = []Check{}
			p.Nightly = &n
		}
		c.Packages[i] = p
	}
	return &c
}
