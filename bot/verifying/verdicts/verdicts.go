// Package verdicts reads the check verdicts of a `pinbot check --format json`
// report for `pinbot run --verdicts`, the publisher of the two-job layout: a
// job with no secret runs the checks (and so each new release's code), and a
// job with the secrets makes the pull requests and the Slack message from its
// report without running release code.
//
// The report comes from a machine where hostile code ran, so it is untrusted
// input: it is read through a size cap, validated strictly (schema, names,
// versions, the order of verdicts, the size of every text), and only its
// verdicts are used. The publisher plans again from the pin files and the
// package sources; a verdict counts only for the package and version that
// plan chose, against the same baseline. A report can therefore say whether a
// candidate is blocked, never what is written.
//
// It belongs to bot/verifying (it is a verifying.Recorded); of bot it
// imports only bot/verifying and bot/report, never planning or publishing.
package verdicts

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/pinbot-dev/pinbot/bot/report"
	"github.com/pinbot-dev/pinbot/bot/verifying"
	"github.com/pinbot-dev/pinbot/config"
	"github.com/pinbot-dev/pinbot/internal/diag"
	"github.com/pinbot-dev/pinbot/internal/repofs"
)

// MaxSize caps the report file: a check of hundreds of packages with every
// check's evidence fits in a few MiB.
const MaxSize = 16 << 20

// Limits on one package's entry; a real report stays far below them.
const (
	maxVerdicts = 16      // the target and its fallbacks (3 by default)
	maxChecks   = 1000    // probe and scan results
	maxText     = 1 << 16 // any one string
	maxEnvTexts = 1 << 16 // names and versions in one check's environment
)

// Verdicts are the packages' verdicts of one report. A *Verdicts is a
// verifying.Recorded.
type Verdicts struct {
	file string
	// repo is the repository the report names ("" for none).
	repo string
	pkgs map[string]*entry // by config.Key
}

var (
	_ verifying.Recorded           = (*Verdicts)(nil)
	_ verifying.PrereleaseRecorded = (*Verdicts)(nil)
	_ verifying.NightlyRecorded    = (*Verdicts)(nil)
)

type entry struct {
	name     string
	verdicts []report.Verdict
	checks   []report.Check
	err      string
	pre      *report.Prerelease
	nightly  *report.Nightly
}

// ReadFile reads and validates the report at path: a regular file (not a
// link, which a tampered artifact could point anywhere) of at most MaxSize
// bytes.
func ReadFile(path string) (*Verdicts, error) {
	data, err := repofs.ReadFileNoFollow(path, MaxSize)
	if errors.Is(err, repofs.ErrTooLarge) {
		return nil, fmt.Errorf("%s: more than the %d bytes a report may have", path, MaxSize)
	}
	if err != nil {
		return nil, err
	}
	return Parse(path, data)
}

// doc is the part of a report that Parse reads; other keys are ignored.
type doc struct {
	Schema     *int   `json:"schema"`
	Packages   *[]pkg `json:"packages"`
	Repository string `json:"repository"`
}

type pkg struct {
	Name     string           `json:"name"`
	Error    string           `json:"error"`
	Checks   []report.Check   `json:"checks"`
	Verdicts []report.Verdict `json:"verdicts"`
	// Prerelease is the early warning: the checks on a pre-release.
	Prerelease *report.Prerelease `json:"prerelease"`
	// Nightly is the early warning from nightly builds: the checks on one.
	Nightly *report.Nightly `json:"nightly"`
}

// Parse validates data, the report read from file (named in errors).
func Parse(file string, data []byte) (*Verdicts, error) {
	if len(data) > MaxSize {
		return nil, diag.Errorf(file, 0, 0, "", "more than the %d bytes a report may have", MaxSize)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	var d doc
	if err := dec.Decode(&d); err != nil {
		return nil, decodeError(file, data, err)
	}
	if rest := bytes.TrimLeft(data[dec.InputOffset():], " \t\r\n"); len(rest) > 0 {
		line, col := diag.Position(data, len(data)-len(rest))
		return nil, diag.Errorf(file, line, col, "", "data after the report")
	}
	switch {
	case d.Schema == nil || d.Packages == nil:
		return nil, diag.Errorf(file, 0, 0, "", "not a report of pinbot check --format json (no schema or packages)")
	case *d.Schema != report.SchemaVersion:
		return nil, diag.Errorf(file, 0, 0, "schema", "%d: this pinbot reads schema %d (run the same pinbot in both jobs)", *d.Schema, report.SchemaVersion)
	}
	if d.Repository != "" && !report.ValidRepository(d.Repository) {
		return nil, diag.Errorf(file, 0, 0, "repository", "%s: not owner/name", quote(d.Repository))
	}
	v := &Verdicts{file: file, repo: d.Repository, pkgs: map[string]*entry{}}
	for i, p := range *d.Packages {
		key := fmt.Sprintf("packages[%d]", i)
		if err := p.validate(); err != nil {
			return nil, diag.Errorf(file, 0, 0, key, "%s: %v", quote(p.Name), err)
		}
		k := config.Key(p.Name)
		if prev, ok := v.pkgs[k]; ok {
			return nil, diag.Errorf(file, 0, 0, key, "%s: a second entry for %s", quote(p.Name), prev.name)
		}
		v.pkgs[k] = &entry{name: p.Name, verdicts: p.Verdicts, checks: p.Checks, err: p.Error, pre: p.Prerelease, nightly: p.Nightly}
	}
	return v, nil
}

// validate checks one package's entry.
func (p *pkg) validate() error {
	switch {
	case !report.ValidName(p.Name):
		return errors.New("not a package name")
	case len(p.Verdicts) > maxVerdicts:
		return fmt.Errorf("%d verdicts, more than %d", len(p.Verdicts), maxVerdicts)
	case len(p.Checks) > maxChecks:
		return fmt.Errorf("%d checks, more than %d", len(p.Checks), maxChecks)
	case len(p.Error) > maxText:
		return errors.New("error: too long")
	}
	seen := map[string]bool{}
	for i, v := range p.Verdicts {
		switch {
		case !report.ValidVersion(v.Version):
			return fmt.Errorf("verdicts[%d].version: %s is not a version", i, quote(v.Version))
		case v.Baseline != "" && !report.ValidVersion(v.Baseline):
			return fmt.Errorf("verdicts[%d].baseline: %s is not a version", i, quote(v.Baseline))
		case seen[v.Version]:
			return fmt.Errorf("verdicts[%d]: %s judged twice", i, v.Version)
		case !v.Blocked && i < len(p.Verdicts)-1:
			// The checks stop at the first candidate that passes.
			return fmt.Errorf("verdicts[%d]: %s passed, yet later candidates follow", i, v.Version)
		case i > 0 && v.Baseline != p.Verdicts[0].Baseline:
			return fmt.Errorf("verdicts[%d]: baseline %s, not %s as the others", i, quote(v.Baseline), quote(p.Verdicts[0].Baseline))
		}
		seen[v.Version] = true
	}
	for i, v := range p.Verdicts {
		switch {
		case len(v.Held) > maxText:
			return fmt.Errorf("verdicts[%d].held: longer than %d bytes", i, maxText)
		case v.Held != "" && !v.Blocked && i > 0:
			return fmt.Errorf("verdicts[%d]: %s held, but only the target can be", i, v.Version)
		case v.Held != "" && !v.Blocked && i < len(p.Verdicts)-1:
			return fmt.Errorf("verdicts[%d]: %s held, yet later candidates follow", i, v.Version)
		}
	}
	if err := checkTexts("checks", p.Checks); err != nil {
		return err
	}
	if pr := p.Prerelease; pr != nil {
		if err := validEarly("prerelease", pr.Version, pr.Baseline, pr.Verdict, pr.Checks, pr.Source, pr.Reason); err != nil {
			return err
		}
	}
	if n := p.Nightly; n != nil {
		if err := validNightly(n); err != nil {
			return err
		}
	}
	return nil
}

// validEarly checks what an early warning (key: the report's prerelease or
// nightly) says of its candidate: a version, a baseline, a verdict of
// ok, blocked or warning, checks and texts within bounds.
func validEarly(key, version, baseline, verdict string, checks []report.Check, texts ...string) error {
	switch {
	case !report.ValidVersion(version):
		return fmt.Errorf("%s.version: %s is not a version", key, quote(version))
	case baseline != "" && !report.ValidVersion(baseline):
		return fmt.Errorf("%s.baseline: %s is not a version", key, quote(baseline))
	case !slices.Contains([]string{"ok", "blocked", "warning"}, verdict):
		return fmt.Errorf("%s.verdict: %s is not ok, blocked or warning", key, quote(verdict))
	case len(checks) > maxChecks:
		return fmt.Errorf("%s: %d checks, more than %d", key, len(checks), maxChecks)
	case slices.ContainsFunc(texts, func(s string) bool { return len(s) > maxText }):
		return errors.New(key + ": a text too long")
	}
	return checkTexts(key+".checks", checks)
}

// validNightly checks a package's nightly: only what NightlyVerdict
// reads and the publisher shows is taken, each bounded.
func validNightly(n *report.Nightly) error {
	if err := validEarly("nightly", n.Version, n.Baseline, n.Verdict, n.Checks, n.Source, n.Reason, n.Distribution); err != nil {
		return err
	}
	switch {
	case n.Distribution != "" && !report.ValidName(n.Distribution):
		return fmt.Errorf("nightly.distribution: %s is not a package name", quote(n.Distribution))
	case len(n.Beside) > maxVerdicts || len(n.Skipped) > report.MaxPrereleaseSkipped:
		return errors.New("nightly: more builds beside it or skipped than a report holds")
	}
	for i, b := range []*report.NightlyBuild{n.FirstFailing, n.LastPassing} {
		if b != nil && !report.ValidVersion(b.Version) {
			return fmt.Errorf("nightly.%s.version: %s is not a version", []string{"first_failing", "last_passing"}[i], quote(b.Version))
		}
	}
	for _, s := range n.Beside {
		if len(s) > maxText {
			return errors.New("nightly.beside: a text too long")
		}
	}
	for _, s := range n.Skipped {
		if !report.ValidVersion(s.Version) || len(s.Source) > maxText || len(s.Reason) > maxText {
			return errors.New("nightly.skipped: not a version, or a text too long")
		}
	}
	return nil
}

// checkTexts bounds the texts of checks, the report's key.
func checkTexts(key string, checks []report.Check) error {
	for i, c := range checks {
		for _, s := range []string{c.Kind, c.Name, c.Baseline, c.Candidate, c.Detail, c.Verdict} {
			if len(s) > maxText {
				return fmt.Errorf("%s[%d]: a text longer than %d bytes", key, i, maxText)
			}
		}
		if len(c.Broken) > verifying.MaxBroken || c.Uses < 0 {
			return fmt.Errorf("%s[%d]: %d references listed, more than a usage check lists (%d)", key, i, len(c.Broken), verifying.MaxBroken)
		}
		for j, r := range c.Broken {
			if r.Line < 0 || r.Col < 0 {
				return fmt.Errorf("%s[%d].broken[%d]: a place before the start of its file", key, i, j)
			}
			for _, s := range []string{r.Name, r.Kind, r.File, r.Baseline, r.Candidate, r.Verdict, r.Detail} {
				if len(s) > maxText {
					return fmt.Errorf("%s[%d].broken[%d]: a text longer than %d bytes", key, i, j, maxText)
				}
			}
		}
		if env := c.Environment; env != nil {
			texts := append([]string{env.Python}, env.Constraints...)
			for _, d := range append(slices.Clone(env.Candidate), env.Baseline...) {
				texts = append(texts, d.Name, d.Version)
			}
			for _, ch := range env.Changes {
				texts = append(texts, ch.Name, ch.From, ch.To)
			}
			if len(texts) > maxEnvTexts {
				return fmt.Errorf("%s[%d].environment: more than %d names and versions", key, i, maxEnvTexts)
			}
			for _, s := range texts {
				if len(s) > maxText {
					return fmt.Errorf("%s[%d].environment: a text longer than %d bytes", key, i, maxText)
				}
			}
		}
	}
	return nil
}

// decodeError places a JSON error in the file.
func decodeError(file string, data []byte, err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		// Offset counts the bytes read, the offending one included.
		line, col := diag.Position(data, max(int(se.Offset)-1, 0))
		return diag.Errorf(file, line, col, "", "not valid JSON: %v", se)
	case errors.As(err, &te):
		line, col := diag.Position(data, int(te.Offset))
		return diag.Errorf(file, line, col, te.Field, "expected %s, found a JSON %s", te.Type, te.Value)
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return diag.Errorf(file, 0, 0, "", "not valid JSON: the report ends early")
	}
	return diag.Errorf(file, 0, 0, "", "%v", err)
}

// Verdict returns the recorded verdict on pkg's candidate version against
// baseline, with the checks' evidence when the candidate is the report's
// first (the target the check job planned). Anything else is an error that
// says what the report judged instead: a candidate the report did not judge,
// or judged against another baseline, was not checked.
func (v *Verdicts) Verdict(pkg, baseline, version string) ([]report.Check, bool, error) {
	e, ok := v.pkgs[config.Key(pkg)]
	if !ok {
		return nil, false, fmt.Errorf("the report %s has no verdicts for %s: %w, not bumped without its checks", v.file, pkg, verifying.ErrNotJudged)
	}
	i := slices.IndexFunc(e.verdicts, func(r report.Verdict) bool { return r.Version == version })
	if i < 0 {
		var judged []string
		for _, r := range e.verdicts {
			judged = append(judged, r.Version)
		}
		why := "judged " + strings.Join(judged, ", ")
		if len(judged) == 0 {
			why = "judged no release"
			if e.err != "" {
				why += " (it said " + quote(firstLine(e.err)) + ")"
			}
		}
		return nil, false, fmt.Errorf("the report %s %s of %s, not %s, the release this run plans: %w, not bumped without its checks "+
			"(the package sources changed between the jobs, or the report is not this run's)", v.file, why, pkg, version, verifying.ErrNotJudged)
	}
	r := e.verdicts[i]
	if r.Baseline != baseline {
		return nil, false, fmt.Errorf("the report %s judged %s %s against %s, this run compares with %s: %w, not bumped without its checks",
			v.file, pkg, version, orNone(r.Baseline), orNone(baseline), verifying.ErrNotJudged)
	}
	var checks []report.Check
	if i == 0 {
		checks = e.checks
	}
	if r.Held != "" && !r.Blocked {
		return checks, false, &verifying.HeldError{Package: pkg, Version: version, Reason: r.Held}
	}
	return checks, r.Blocked, nil
}

// PrereleaseVerdict returns the recorded early warning on pkg's pre-release
// version against baseline: its checks, and whether a check blocked it. A
// pre-release the report did not judge, or judged against another
// baseline, is an error wrapping verifying.ErrNotJudged; one the check job could
// not decide is an error carrying the job's reason, so that the publisher
// says the same.
func (v *Verdicts) PrereleaseVerdict(pkg, baseline, version string) ([]report.Check, bool, error) {
	e, ok := v.pkgs[config.Key(pkg)]
	switch {
	case !ok || e.pre == nil:
		return nil, false, fmt.Errorf("the report %s has no early warning for %s: %w", v.file, pkg, verifying.ErrNotJudged)
	case e.pre.Version != version:
		return nil, false, fmt.Errorf("the report %s checked %s %s, not %s, the pre-release this run found: %w", v.file, pkg, quote(e.pre.Version), version, verifying.ErrNotJudged)
	case e.pre.Baseline != baseline:
		return nil, false, fmt.Errorf("the report %s judged %s %s against %s, this run compares with %s: %w",
			v.file, pkg, version, orNone(e.pre.Baseline), orNone(baseline), verifying.ErrNotJudged)
	case e.pre.Verdict == "warning" && !slices.ContainsFunc(e.pre.Checks, func(c report.Check) bool { return c.Verdict == "warning" }):
		return nil, false, fmt.Errorf("the check job's report says %s", quote(firstLine(e.pre.Reason)))
	}
	return e.pre.Checks, e.pre.Verdict == "blocked", nil
}

// NightlyVerdict returns the recorded nightly of pkg: the checks on the
// build of version uploaded at uploaded (zero: the source said no time)
// against baseline, and whether a check blocked it. Another build, or
// another baseline, is an error wrapping verifying.ErrNotJudged; a build the
// check job could not decide is an error carrying the job's reason, so
// that the publisher says the same.
func (v *Verdicts) NightlyVerdict(pkg, baseline, version string, uploaded time.Time) ([]report.Check, bool, error) {
	e, ok := v.pkgs[config.Key(pkg)]
	switch {
	case !ok || e.nightly == nil:
		return nil, false, fmt.Errorf("the report %s has no nightly for %s: %w", v.file, pkg, verifying.ErrNotJudged)
	case e.nightly.Version != version || !e.nightly.Uploaded.Equal(uploaded):
		return nil, false, fmt.Errorf("the report %s checked %s nightly %s, not %s, the build this run found: %w",
			v.file, pkg, quote(buildName(e.nightly.Build())), buildName(report.NightlyBuild{Version: version, Uploaded: uploaded}), verifying.ErrNotJudged)
	case e.nightly.Baseline != baseline:
		return nil, false, fmt.Errorf("the report %s judged %s nightly %s against %s, this run compares with %s: %w",
			v.file, pkg, version, orNone(e.nightly.Baseline), orNone(baseline), verifying.ErrNotJudged)
	case e.nightly.Verdict == "warning" && !slices.ContainsFunc(e.nightly.Checks, func(c report.Check) bool { return c.Verdict == "warning" }):
		return nil, false, fmt.Errorf("the check job's report says %s", quote(firstLine(e.nightly.Reason)))
	}
	return e.nightly.Checks, e.nightly.Verdict == "blocked", nil
}

// buildName names a build in an error: its version, and its upload time
// when known.
func buildName(b report.NightlyBuild) string {
	if b.Uploaded.IsZero() {
		return b.Version
	}
	return b.Version + " uploaded " + b.Uploaded.UTC().Format(time.RFC3339)
}

// For returns nil when the report may be published to repo ("owner/name"):
// it names repo, in any case, or names no repository (pinbot check run
// without --repository or GITHUB_REPOSITORY). A report made for another
// repository is an error naming both: the job of one repository, where
// release code ran, must not publish another's verdicts.
func (v *Verdicts) For(repo string) error {
	if v.repo == "" || report.SameRepository(v.repo, repo) {
		return nil
	}
	return fmt.Errorf("%s is the report of %s, not of %s, the repository this run publishes to: refused", v.file, v.repo, repo)
}

// Packages returns the names of the report's packages, sorted.
func (v *Verdicts) Packages() []string {
	var names []string
	for _, e := range v.pkgs {
		names = append(names, e.name)
	}
	slices.Sort(names)
	return names
}

// quote shows text from the report in one line, cut to 120 bytes, with
// anything unprintable escaped (%q), so it cannot act on a terminal.
func quote(s string) string {
	if len(s) > 120 {
		s = strings.ToValidUTF8(s[:120], "") + "…"
	}
	return fmt.Sprintf("%q", s)
}

func orNone(v string) string {
	if v == "" {
		return "no baseline"
	}
	return v
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}
