// Package probe proves that the private internals a project patches or calls
// (numba's FunctionIdentity._unique_ids, MLIR's private Context methods, ...) still
// exist and behave in a candidate release before its cap moves, and says what
// changed when they don't.
//
// Probes run dynamically, in an isolated, cached Python environment per package,
// version and interpreter (uv when on PATH, else python -m venv and pip), one
// sandboxed Python process per environment; or statically, by reading the .py
// files of a wheel with a small indentation-based scanner, answering unknown
// where reading cannot decide. See README.md for expect kinds, presets, the
// sandbox and the cache layout.
package probe

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/pinbot-dev/pinbot/internal/progress"
)

// A Status is a probe's result at one version.
type Status string

// Pass, Fail and Unknown are the statuses of a probe at one version.
const (
	Pass    Status = "pass"
	Fail    Status = "fail"
	Unknown Status = "unknown"
)

// A Verdict says what a probe, or a whole report, means for the bump.
type Verdict string

// Blocked, Warning, UpstreamFixed and OK are the verdicts, from most to least
// severe for a report.
const (
	Blocked       Verdict = "blocked"        // passes at baseline, fails at candidate: keep the cap
	Warning       Verdict = "warning"        // already broken at baseline, or undecided
	UpstreamFixed Verdict = "upstream-fixed" // a canary snippet now passes: the workaround can go
	OK            Verdict = "ok"
)

// A Side is a probe's result at one version.
type Side struct {
	Version string `json:"version"`
	Status  Status `json:"status"`
	Detail  string `json:"detail"`
}

// A Result is one probe's outcome at the baseline (nil when there is none) and at
// the candidate, with its verdict and a one-line explanation.
type Result struct {
	Spec      Spec    `json:"spec"`
	Name      string  `json:"name"`
	Baseline  *Side   `json:"baseline,omitempty"`
	Candidate Side    `json:"candidate"`
	Verdict   Verdict `json:"verdict"`
	Detail    string  `json:"detail"`
}

// A Report is the outcome of probing one package: every probe's result and the
// overall verdict (the most severe of them).
type Report struct {
	Package string `json:"package"`
	// CandidateDist is the candidate's distribution when it is not
	// Package (Options.CandidateDist).
	CandidateDist string `json:"candidate_distribution,omitempty"`
	Baseline      string `json:"baseline,omitempty"`
	Candidate     string `json:"candidate"`
	Mode          string `json:"mode"`             // "dynamic", "interpreter" (--no-install) or "static"
	Python        string `json:"python,omitempty"` // interpreter version in dynamic modes
	// Installed is the version of the package the interpreter has, with
	// NoInstall (--no-install): what was probed. Mismatch says why that is not
	// the candidate (another version, or none installed); the candidate's
	// results are then warnings.
	Installed string `json:"installed,omitempty"`
	Mismatch  string `json:"mismatch,omitempty"`
	// BaselineEnv and CandidateEnv are the environments dynamic probes ran in;
	// Constraints the project constraints their resolution honoured.
	BaselineEnv  *Environment `json:"baseline_environment,omitempty"`
	CandidateEnv *Environment `json:"candidate_environment,omitempty"`
	Constraints  []Constraint `json:"constraints,omitempty"`

	candRec      *resolveRecord // the candidate's resolution and its history
	candRequires []string       // the candidate's Requires-Dist, as installed
	Notes        []string       `json:"notes,omitempty"` // e.g. why static mode was used, truncated output
	Results      []Result       `json:"results"`
	// Uses are the results of Options.Uses, in their order.
	Uses    []UseResult `json:"uses,omitempty"`
	Verdict Verdict     `json:"verdict"`
}

// ModeDynamic, ModeInterpreter and ModeStatic are the modes of a Report.
const (
	ModeDynamic     = "dynamic"
	ModeInterpreter = "interpreter"
	ModeStatic      = "static"
)

// A Wheel is a wheel file for static mode: a local Path, or R (with Size) that the
// caller downloaded and verified against the index's digest (checks/artifact). Name is the wheel's file name,
// used in messages; it defaults to the base name of Path.
type Wheel struct {
	Path string
	R    io.ReaderAt
	Size int64
	Name string
}

func (w Wheel) isZero() bool { return w.Path == "" && w.R == nil }

// Options configure Run.
type Options struct {
	Package   string // distribution name, as on the index
	Baseline  string // the currently capped release; empty for none
	Candidate string // the release to probe; with NoInstall, empty means whatever is installed
	Specs     []Spec // probes, presets allowed
	// Uses are names the project's code uses from the package, resolved
	// and judged in the same run, environments and process as Specs
	// (Specs may then be empty). An invalid use is a warning of its own,
	// never an error of the run.
	Uses []Use
	// With are releases installed beside the candidate, as name==version
	// ("llvmlite==0.50.1": a group's other targets, so that its members
	// are probed together). A release of With that LocalWheels holds is
	// installed from it, as the candidate is.
	With []string
	// BaselineWith are the releases installed beside the baseline, in the
	// same form: a group's other members at the releases their caps admit
	// now, so that the baseline is what the project runs today. Static
	// probes read neither With nor BaselineWith.
	BaselineWith []string

	// Index is a PIP_INDEX_URL-compatible URL or a local directory of wheels. Empty
	// means the caller's PIP_INDEX_URL / UV_INDEX_URL settings (from Environ), else PyPI.
	Index string
	// Python is the interpreter; empty means python3 on Environ's PATH. If there is
	// none, Run falls back to static mode.
	Python    string
	NoInstall bool   // probe what Python already has (--python PATH --no-install)
	Static    bool   // read wheels instead of running Python (--static)
	Installer string // "" (uv when on PATH, else venv + pip), "uv" or "pip"
	// Constraints are the project's requirements of other packages, applied
	// to dynamic environments as installer constraints (pip -c).
	Constraints []Constraint
	// HTTPClient revalidates the index pages a resolution read (nil: a client
	// with a 30 s timeout).
	HTTPClient *http.Client

	// CacheDir holds the environments between runs (see README.md for the layout);
	// empty means a temporary directory removed when Run returns.
	CacheDir string
	// TempDir is where per-process sandbox directories are made; empty means os.TempDir().
	TempDir string
	// Timeout bounds each probe process (zero: DefaultTimeout): at the
	// timeout its process group is killed and the probe in progress is
	// unknown. It does not bound resolving or installing the release.
	Timeout time.Duration
	// ResolveTimeout bounds each resolver process (zero:
	// DefaultResolveTimeout).
	ResolveTimeout time.Duration
	// InstallTimeout bounds each step that makes an environment: the
	// interpreter query, creating the venv, installing (zero:
	// DefaultInstallTimeout).
	InstallTimeout time.Duration
	MaxOutput      int64 // per process stream; zero means DefaultMaxOutput

	// LocalWheels are verified wheels on this machine that dynamic probes
	// install instead of downloading the same files from the index (see
	// LocalWheel): those of releases they install (the baseline, the
	// candidate, With's, BaselineWith's) that fit the interpreter.
	LocalWheels []LocalWheel
	// CandidateDist is the candidate's distribution name when it is not
	// Package: the same code published under another name (tf-nightly for
	// tensorflow). The baseline installs as Package, the candidate as
	// CandidateDist, each in its own environment; probes import modules by
	// their import names, which both share.
	CandidateDist string
	// Pinned are the distributions (the candidate's, With's names) whose
	// releases come from a source other than Index, a nightly build's:
	// dynamic probes install each from its LocalWheels file, with uv too,
	// never by name and version from the index, and a pinned release with
	// no local wheel that installs on the interpreter is an *InstallError.
	// The file's digest is then part of the environment's and the
	// resolution's keys: a build replaced under its version (nightly
	// indexes do that) is another environment.
	Pinned []string

	// BaselineWheel and CandidateWheel are the wheels for static mode. When zero and
	// Index is a local directory, the wheel is looked up there.
	BaselineWheel, CandidateWheel Wheel

	Environ []string // the caller's environment, filtered for each process; nil means os.Environ()
	Runner  Runner   // nil means ExecRunner{}
	// Progress shows each environment install as it goes (nil: not shown;
	// a terminal's stderr gets one).
	Progress *progress.Meter
}

// An InstallError is a release that could not be installed into its environment.
type InstallError struct {
	Package, Version string
	Output           string // the tail of the installer's output
	Err              error
}

// Error describes the failed install with the tail of the installer's output.
func (e *InstallError) Error() string {
	msg := fmt.Sprintf("installing %s==%s", e.Package, e.Version)
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	if e.Output != "" {
		msg += "\n" + e.Output
	}
	return msg
}

// Unwrap returns the underlying error.
func (e *InstallError) Unwrap() error { return e.Err }

// Run probes opts.Package at opts.Baseline and opts.Candidate and judges each
// probe and use. It returns an error for bad options or specs, an environment
// that cannot be made (an *InstallError for a failed install) or a cancelled
// ctx; probe and use failures are results, not errors.
func Run(ctx context.Context, opts Options) (*Report, error) {
	specs, err := Expand(opts.Specs)
	if err != nil {
		return nil, err
	}
	if len(specs) == 0 && len(opts.Uses) == 0 {
		return nil, errors.New("probe: no probes or uses configured")
	}
	if err := checkOptions(&opts); err != nil {
		return nil, err
	}
	rep := &Report{Package: opts.Package, CandidateDist: opts.CandidateDist, Baseline: opts.Baseline, Candidate: opts.Candidate}
	us := newUseSet(opts.Uses)
	var base, cand *sideSet
	switch {
	case opts.Static:
		rep.Mode = ModeStatic
		base, cand, err = runStatic(opts, specs, us.uniq)
	default:
		if opts.Python == "" {
			if p := lookPath("python3", opts.Environ); p != "" {
				opts.Python = p
			} else if p := lookPath("python", opts.Environ); p != "" {
				opts.Python = p
			}
		}
		if opts.Python == "" && !opts.NoInstall {
			rep.Mode = ModeStatic
			rep.Notes = append(rep.Notes, "no Python interpreter on PATH: probed statically")
			base, cand, err = runStatic(opts, specs, us.uniq)
			break
		}
		if opts.Python == "" {
			return nil, errors.New("probe: --no-install needs a Python interpreter")
		}
		rep.Mode = ModeDynamic
		if opts.NoInstall {
			rep.Mode = ModeInterpreter
		}
		base, cand, err = runDynamic(ctx, &opts, specs, us.uniq, rep)
	}
	if err != nil {
		return nil, err
	}
	for i, s := range specs {
		r := Result{Spec: s, Name: s.DisplayName(), Candidate: cand.probes[i]}
		if base != nil {
			b := base.probes[i]
			r.Baseline = &b
		}
		r.Verdict, r.Detail = judge(&r)
		if (r.Verdict == Blocked || r.Verdict == Warning) && r.Candidate.Status == Fail {
			if why := movedBlame(rep.candRec, specKey(&specs[i]), distOf(&opts, opts.Candidate), opts.Candidate, rep.candRequires); why != "" {
				r.Detail += "; " + why
			}
		}
		if rep.Mode == ModeInterpreter {
			r.Verdict, r.Detail = judgeInstalled(rep, r.Verdict, r.Detail)
		}
		rep.Results = append(rep.Results, r)
	}
	var baseUses []UseSide
	if base != nil {
		baseUses = base.uses
	}
	rep.Uses = us.results(opts.Uses, baseUses, cand.uses, rep.Candidate, opts.Baseline)
	for i := range rep.Uses {
		r := &rep.Uses[i]
		if (r.Verdict == Blocked || r.Verdict == Warning) && r.Candidate.Status == Fail && us.of[i] >= 0 {
			if why := movedBlame(rep.candRec, useKey(&opts.Uses[i]), opts.Package, opts.Candidate, rep.candRequires); why != "" {
				r.Detail += "; " + why
			}
		}
		if rep.Mode == ModeInterpreter {
			r.Verdict, r.Detail = judgeInstalled(rep, r.Verdict, r.Detail)
		}
		r.Detail = sanitize(r.Detail)
	}
	rep.Verdict = overall(rep.Results, rep.Uses)
	return rep, nil
}

func checkOptions(o *Options) error {
	if !validName(o.Package) {
		return fmt.Errorf("probe: %q is not a valid package name", o.Package)
	}
	for _, v := range []string{o.Baseline, o.Candidate} {
		if v != "" && !validVersion(v) {
			return fmt.Errorf("probe: %q is not a valid version", v)
		}
	}
	for _, c := range o.Constraints {
		if err := checkConstraint(c.Requirement); err != nil {
			return fmt.Errorf("probe: constraint %s: %w", c, err)
		}
	}
	if o.Candidate == "" && !o.NoInstall {
		return errors.New("probe: no candidate version")
	}
	if o.CandidateDist != "" && (!validName(o.CandidateDist) || o.Baseline == o.Candidate) {
		return fmt.Errorf("probe: candidate distribution %q: not a name, or the baseline is the same version", o.CandidateDist)
	}
	for _, p := range o.Pinned {
		if !validName(p) {
			return fmt.Errorf("probe: pinned: %q is not a name", p)
		}
	}
	for _, w := range o.With {
		name, version, ok := strings.Cut(w, "==")
		if !ok || !validName(name) || !validVersion(version) {
			return fmt.Errorf("probe: with: %q is not name==version", w)
		}
	}
	for _, w := range o.BaselineWith {
		name, version, ok := strings.Cut(w, "==")
		if !ok || !validName(name) || !validVersion(version) {
			return fmt.Errorf("probe: baseline with: %q is not name==version", w)
		}
	}
	for _, w := range o.LocalWheels {
		if err := checkLocalWheel(w); err != nil {
			return fmt.Errorf("probe: local wheel: %w", err)
		}
	}
	if o.NoInstall && o.Static {
		return errors.New("probe: --no-install and --static exclude each other")
	}
	if o.Environ == nil {
		o.Environ = os.Environ()
	}
	if o.Index != "" && isLocalDir(o.Index) {
		abs, err := filepath.Abs(strings.TrimPrefix(o.Index, "file://"))
		if err != nil {
			return fmt.Errorf("probe: index: %w", err)
		}
		o.Index = abs // processes run in their own directories
	}
	if o.Runner == nil {
		o.Runner = ExecRunner{}
	}
	o.setLimits()
	switch o.Installer {
	case "", "uv", "pip":
	default:
		return fmt.Errorf("probe: unknown installer %q (want uv or pip)", o.Installer)
	}
	return nil
}

// setLimits gives every process limit left zero its default.
func (o *Options) setLimits() {
	for _, l := range []struct {
		d   *time.Duration
		def time.Duration
	}{{&o.Timeout, DefaultTimeout}, {&o.ResolveTimeout, DefaultResolveTimeout}, {&o.InstallTimeout, DefaultInstallTimeout}} {
		if *l.d <= 0 {
			*l.d = l.def
		}
	}
	if o.MaxOutput <= 0 {
		o.MaxOutput = DefaultMaxOutput
	}
}

// judge decides one probe's verdict from its results.
func judge(r *Result) (Verdict, string) {
	c, b := r.Candidate, r.Baseline
	at := func(s *Side) string { return s.Version }
	switch {
	case c.Status == Unknown:
		return Warning, fmt.Sprintf("undecided at %s: %s", at(&c), c.Detail)
	case r.Spec.Canary() && c.Status == Fail:
		if b != nil && b.Status == Fail {
			return UpstreamFixed, fmt.Sprintf("the canary already passed at %s and still does at %s: upstream fixed, the workaround can go", at(b), at(&c))
		}
		return UpstreamFixed, fmt.Sprintf("the canary passes at %s: upstream fixed, the workaround can go", at(&c))
	case c.Status == Pass:
		if b != nil && b.Status == Fail && !r.Spec.Canary() {
			return OK, fmt.Sprintf("fixed at %s (failed at %s: %s)", at(&c), at(b), b.Detail)
		}
		return OK, c.Detail
	case b == nil:
		return Blocked, fmt.Sprintf("fails at %s: %s", at(&c), c.Detail)
	case b.Status == Fail:
		return Warning, fmt.Sprintf("already broken at %s: %s", at(b), b.Detail)
	case b.Status == Unknown:
		return Blocked, fmt.Sprintf("fails at %s (undecided at %s): %s", at(&c), at(b), c.Detail)
	default:
		return Blocked, fmt.Sprintf("passes at %s, fails at %s: %s", at(b), at(&c), c.Detail)
	}
}

// judgeInstalled qualifies a verdict reached on an installed interpreter
// (--no-install): the detail names what was probed, and when that is not the
// candidate release no verdict about the candidate can be ok or blocked.
func judgeInstalled(rep *Report, v Verdict, detail string) (Verdict, string) {
	if rep.Mismatch != "" {
		return Warning, fmt.Sprintf("%s, so the candidate was not probed (%s: %s)", rep.Mismatch, v, detail)
	}
	return v, fmt.Sprintf("installed %s %s probed: %s", rep.Package, rep.Installed, detail)
}

// overall is the most severe verdict of the probes and uses.
func overall(rs []Result, us []UseResult) Verdict {
	rank := map[Verdict]int{OK: 0, UpstreamFixed: 1, Warning: 2, Blocked: 3}
	v := OK
	for _, r := range rs {
		if rank[r.Verdict] > rank[v] {
			v = r.Verdict
		}
	}
	for _, r := range us {
		if rank[r.Verdict] > rank[v] {
			v = r.Verdict
		}
	}
	return v
}

// validName reports whether s is a PEP 508 distribution name.
func validName(s string) bool {
	if s == "" || len(s) > 200 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		alnum := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
		if alnum {
			continue
		}
		if (c == '.' || c == '_' || c == '-') && i > 0 && i < len(s)-1 {
			continue
		}
		return false
	}
	return true
}

// validVersion reports whether s looks like a PEP 440 version (safe to put in a
// requirement, a file name and a directory name).
func validVersion(s string) bool {
	if s == "" || len(s) > 100 || s[0] == '-' || s[0] == '.' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '+' || c == '!' || c == '_' || c == '-' {
			continue
		}
		return false
	}
	return true
}
