package publishing

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/pinbot-dev/pinbot/bot/planning"
	"github.com/pinbot-dev/pinbot/bot/planning/plan"
	"github.com/pinbot-dev/pinbot/bot/publishing/github"
	"github.com/pinbot-dev/pinbot/bot/publishing/slack"
	"github.com/pinbot-dev/pinbot/bot/publishing/state"
	"github.com/pinbot-dev/pinbot/bot/publishing/upstream"
	"github.com/pinbot-dev/pinbot/bot/report"
	"github.com/pinbot-dev/pinbot/config"
	"github.com/pinbot-dev/pinbot/web"
)

// A PullRequester opens or updates the pull request of one package;
// *github.Client is one.
type PullRequester interface {
	Sync(ctx context.Context, ch github.Change) (github.Result, error)
}

// A Notifier sends the run's message; *slack.Client is one.
type Notifier interface {
	Post(ctx context.Context, m slack.Message) error
}

// A Runner runs the bot job: the check, then one pull request per package
// whose caps move (carrying only that package's edits, computed in memory:
// the working tree is never written), then one Slack message when there is
// something to say, then the dashboard issue (foresight.go).
type Runner struct {
	Checker *planning.Checker
	// GitHub makes the pull requests; unused with DryRun.
	GitHub PullRequester
	// Slack sends the message; nil sends none.
	Slack Notifier
	// Repo ("owner/name") and Base (the base branch) name the target.
	Repo, Base string
	// RunURL links the message to the workflow run, if any.
	RunURL string
	// WorkflowToken is set when the token is a workflow's GITHUB_TOKEN: pull
	// request bodies then say that CI will not start.
	WorkflowToken bool
	// DryRun plans the pull requests and the message but sends nothing.
	DryRun bool
	Log    *slog.Logger
	// Adjust, when set, edits the report before pull requests are planned: a
	// seam for tests that put a package in a state (blocked, upstream fixed)
	// without building the releases that would lead the checks there.
	Adjust func(*report.Report)
	// State remembers what the last run alerted (lasting conditions, such
	// as a blocked release or a held package, with when), which packages
	// were held and which pre-releases were announced, so that each is
	// announced once (and reminded as notify.remind asks); nil announces
	// every one on every run. A dry run reads it but does not change it.
	State *state.Store
	// Issues keeps the dashboard issue (bot/publishing/dashboard; the configuration's
	// dashboard key); nil keeps none.
	Issues IssueKeeper
	// Previewer, when set, tells a dry run what Sync would do with each
	// pull request (Outcome.Pulls), from what Sync reads; *github.Client is
	// one. It only reads.
	Previewer Previewer
	// Tags finds an upstream's release tags for the compare view in pull
	// request bodies; nil links no compare view. It only reads, so a dry
	// run may have one.
	Tags TagFinder
}

// A Previewer says what Sync would do with a Change, writing nothing.
type Previewer interface {
	Preview(ctx context.Context, ch github.Change) (github.Result, error)
}

// A TagFinder finds the tag under which a repository on github.com
// ("owner/name") published a version ("" when none); *github.Client is one.
type TagFinder interface {
	Tag(ctx context.Context, repo, version string) (string, error)
}

// A ProjectLinker says what a release says of its project's pages (label →
// URL, hostile text); the PyPI source is one.
type ProjectLinker interface {
	ProjectURLs(ctx context.Context, pkg, version string) (map[string]string, error)
}

// RunOptions are the per-run choices of Run.
type RunOptions struct {
	// Packages limits the run to these packages (see CheckOptions).
	Packages []string
}

// An Outcome is what a run did.
type Outcome struct {
	Report *report.Report
	// Planned are the pull requests the run wanted, in package order.
	Planned []github.Change
	// Pulls are the results of the pull requests made; with DryRun, what
	// would be done (github.WouldOpen, github.WouldUpdate), or what the run
	// would report of a pull request it leaves alone (github.Respected,
	// github.Conflict).
	Pulls []github.Result
	// Failures are problems beyond the report, such as a pull request that
	// could not be made; each names its package.
	Failures []string
	// Message is the Slack message (nil when there was nothing to say, or
	// notify.on filtered everything out).
	Message *slack.Message
	// NotifyErr is the webhook's failure, if any; it stops nothing else.
	NotifyErr error
	// Dashboard is the dashboard's Markdown (bot/publishing/dashboard) under
	// DashboardTitle, for the step summary and a dry run; DashboardIssue
	// what was done to its issue (nil when none was kept).
	Dashboard, DashboardTitle string
	DashboardIssue            *github.IssueResult
}

// Run runs the job. Problems with one package are in the outcome and do not
// stop the others; the error return is for failures that leave no outcome
// (the check failed, or ctx was cancelled). When ctx's deadline passes, Run
// returns the outcome so far (the report, the pull requests made) with the
// deadline's cause, and sends nothing more.
func (r *Runner) Run(ctx context.Context, opts RunOptions) (*Outcome, error) {
	log := r.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if !r.DryRun && r.GitHub == nil {
		return nil, errors.New("bot: a Runner needs GitHub unless DryRun is set")
	}
	rep, err := r.Checker.Check(ctx, planning.CheckOptions{Packages: opts.Packages})
	if err != nil {
		if rep != nil { // the deadline passed: what the check did
			return &Outcome{Report: rep}, err
		}
		return nil, err
	}
	if r.Adjust != nil {
		r.Adjust(rep)
	}
	out := &Outcome{Report: rep}
	cfg := r.Checker.Config
	var items []slack.Item
	scope := r.Repo + "@" + r.Base
	partial := len(opts.Packages) > 0
	last, issue := r.lastRun(ctx, log, scope, partial)
	// Since when each nightly's verdict holds, from what earlier runs saw,
	// before anything renders the report.
	nightliesNow := NightlyWindows(rep, last.Nightlies, r.keepsNightly(rep, partial))
	// heldNow records which packages are held (the dashboard reads it);
	// whether a hold is news is alertNews's to decide, as for every lasting
	// condition.
	heldNow := maps.Clone(last.Held)
	if !partial {
		heldNow = map[string]string{} // every package was checked: the last run's list is replaced
	}
	for _, p := range rep.Packages {
		status := plan.Status(p.Status)
		delete(heldNow, p.Name)
		if status == plan.Held {
			heldNow[p.Name] = p.Newest
			it := heldItem(p)
			adoptHeld(last, it, r.now())
			items = append(items, it)
		}
		if status == plan.Error {
			items = append(items, slack.Item{Kind: slack.KindError, Title: p.Name + ": " + firstLine(p.Error)})
			continue
		}
		for _, c := range p.Checks {
			if UpstreamFixed(c) {
				items = append(items, slack.Item{Kind: slack.KindUpstreamFixed,
					Title: fmt.Sprintf("%s: upstream fixed (%s %s)", p.Name, c.Kind, c.Name), Detail: c.Detail,
					Package: p.Name, Versions: p.Newest, Verdict: "upstream fixed", Key: conditionKey("upstream-fixed", p.Name, c.Kind+" "+c.Name)})
			}
		}
		if p.Group != "" {
			continue // the group's pull request carries it, below
		}
		more, err := r.publish(ctx, log, out, unit{name: p.Name, status: status, packages: []report.Package{p}, settings: cfg.PullRequests.For(p.Name)})
		if err != nil {
			return cut(out, err)
		}
		items = append(items, more...)
	}
	for _, g := range rep.Groups {
		u := groupUnit(cfg, rep, g)
		more, err := r.publish(ctx, log, out, u)
		if err != nil {
			return cut(out, err)
		}
		items = append(items, more...)
	}
	warnings, warnedNow := prereleaseNews(rep.Packages, last.Warned, partial)
	for _, w := range warnings {
		w.URL = issue.URL // the dashboard, when it exists already
		items = append(items, w)
	}
	for _, it := range nightlyItems(rep.Packages, last.Alerted, last.Nightlies) {
		it.URL = issue.URL // the dashboard, when it exists already
		items = append(items, it)
	}
	for _, e := range rep.Errors {
		items = append(items, slack.Item{Kind: slack.KindError, Title: firstLine(e)})
	}

	items = slices.DeleteFunc(items, func(it slack.Item) bool { return !cfg.Notify.Wants(string(it.Kind)) })
	unchecked, undecided := uncheckedBy(rep, partial), nightlyUndecided(rep)
	kept := func(key string) bool { return undecided(key) || (unchecked != nil && unchecked(key)) }
	items, alertedNow := alertNews(items, last.Alerted, r.now(), cfg.Notify.RemindEvery(), kept)
	if len(items) > 0 {
		m := slack.Build(slack.Summary{Repo: r.Repo, RunURL: r.RunURL, Items: items})
		out.Message = &m
		if !r.DryRun && r.Slack != nil {
			if out.NotifyErr = r.Slack.Post(ctx, m); out.NotifyErr != nil {
				log.Error("slack message failed", "err", out.NotifyErr)
			}
		}
	}
	r.keepDashboard(ctx, log, out, scope, last, news{held: heldNow, warned: warnedNow, alerted: alertedNow, nightlies: nightliesNow}, partial)
	return out, nil
}

// keepsNightly says which remembered nightlies a run with no nightly
// judged for their package keeps (NightlyWindows): those of packages that
// still name a nightly source and were checked (or not checked at all: a
// run of other packages).
func (r *Runner) keepsNightly(rep *report.Report, partial bool) func(string) bool {
	reported := map[string]bool{}
	for _, p := range rep.Packages {
		reported[p.Name] = true
	}
	return func(pkg string) bool {
		_, names := r.Checker.Config.Packages[pkg].NightlySource()
		return names && (partial || reported[pkg])
	}
}

// now is the run's clock.
func (r *Runner) now() time.Time { return r.Checker.Clock() }

// fromTo is "from → to", or to alone when from is unknown or the same.
func fromTo(from, to string) string {
	if from == "" || from == to {
		return to
	}
	return from + " → " + to
}

// cut ends a run that ctx ended while publishing: with the outcome so far
// when its deadline passed, with none when it was cancelled.
func cut(out *Outcome, err error) (*Outcome, error) {
	if errors.Is(err, context.DeadlineExceeded) {
		return out, err
	}
	return nil, err
}

// publish opens or updates the pull request of one unit (a package, or a
// group of packages that move together) when its caps move, and returns
// what the message says of it. The error is the context's, which ends the
// run.
func (r *Runner) publish(ctx context.Context, log *slog.Logger, out *Outcome, u unit) ([]slack.Item, error) {
	if u.status != plan.Bump && u.status != plan.Blocked {
		return nil, nil
	}
	var items []slack.Item
	blocked := u.status == plan.Blocked
	var failure *slack.Item
	if blocked {
		failure = &slack.Item{Kind: slack.KindFailure, Title: u.name + ": a check failed", Detail: u.failedChecks(),
			Package: u.name, Versions: u.blockedVersions(), Verdict: failedVerdict(u.packages), Key: conditionKey("failure", u.name), Links: r.releaseLinks(u)}
	}
	if blocked && (u.settings.OnFailure == config.OnFailureAlertOnly || !u.changed()) {
		failure.Detail = strings.TrimSpace(failure.Detail + "\nNo pull request (" + noPRReason(u.settings) + ").")
		return append(items, *failure), nil
	}
	ch, err := r.change(ctx, log, u, blocked)
	if err != nil {
		out.Failures = append(out.Failures, u.name+": "+err.Error())
		return append(items, slack.Item{Kind: slack.KindError, Title: u.name + ": " + firstLine(err.Error())}), nil
	}
	out.Planned = append(out.Planned, ch)
	if r.DryRun {
		res := github.Planned(ch)
		if r.Previewer != nil {
			if res, err = r.Previewer.Preview(ctx, ch); err != nil {
				log.Warn("reading the pull requests failed; the dry run assumes none", "package", u.name, "err", err)
				res = github.Planned(ch)
			}
		}
		out.Pulls = append(out.Pulls, res)
		switch res.Action {
		case github.WouldOpen, github.WouldUpdate:
			items = append(items, slack.Item{Kind: slack.KindPR, Title: fmt.Sprintf("%s: would open or update %q on %s", u.name, ch.Title, github.Branch(ch.Base, u.name))})
		default: // what the run would say of a pull request it leaves alone
			if it, ok := pullItem(u, res); ok {
				items = append(items, it)
			}
		}
		if failure != nil {
			items = append(items, *failure)
		}
		return items, nil
	}
	res, err := r.GitHub.Sync(ctx, ch)
	if ctx.Err() != nil {
		return nil, web.ContextError(ctx)
	}
	if err != nil {
		log.Error("pull request failed", "package", u.name, "err", err)
		out.Failures = append(out.Failures, u.name+": "+err.Error())
		items = append(items, slack.Item{Kind: slack.KindError, Title: u.name + ": pull request failed", Detail: err.Error()})
		if failure != nil {
			items = append(items, *failure)
		}
		return items, nil
	}
	log.Info("pull request", "package", u.name, "action", res.Action, "number", res.Number, "url", res.URL)
	for _, w := range res.Warnings {
		log.Warn(w, "package", u.name)
	}
	out.Pulls = append(out.Pulls, res)
	if it, ok := pullItem(u, res); ok {
		items = append(items, it)
	}
	if failure != nil {
		failure.URL = res.URL
		items = append(items, *failure)
	}
	return items, nil
}

// change describes the pull request of u.
func (r *Runner) change(ctx context.Context, log *slog.Logger, u unit, blocked bool) (github.Change, error) {
	files, err := r.packageFiles(ctx, log, u.packages)
	if err != nil {
		return github.Change{}, err
	}
	if len(files) == 0 {
		return github.Change{}, errors.New("no file changes")
	}
	cfg := r.Checker.Config
	d := github.Describe{Package: u.packages[0], Base: r.Base, Blocked: blocked, WorkflowToken: r.WorkflowToken, SourceURLs: r.sourceURLs(),
		Upstream: map[string]upstream.Links{}}
	for _, p := range u.packages {
		if l := r.upstreamLinks(ctx, log, p); !l.Empty() {
			d.Upstream[p.Name] = l
		}
	}
	target := u.packages[0].Newest
	if u.group != nil {
		d.Group, d.Members = u.group, u.packages
		target = u.target()
	}
	s := u.settings
	ch := github.Change{
		Package: u.name, Target: target, Base: r.Base, Files: files,
		Title: d.Title(), Body: d.Body(), Message: d.Message(),
		Draft: s.Draft || blocked, Blocked: blocked, Labels: s.Labels, Reviewers: s.Reviewers, Assignees: s.Assignees,
		ReopenClosed: s.ReopenClosed,
	}
	if a := cfg.GitHub.Author; a != nil {
		ch.Author = &github.Identity{Name: a.Name, Email: a.Email}
	}
	if c := cfg.GitHub.Committer; c != nil {
		ch.Committer = &github.Identity{Name: c.Name, Email: c.Email}
	}
	return ch, nil
}

// sourceURLs maps a source to its base URL when it is not the public
// default (a PyPI mirror), for release links.
func (r *Runner) sourceURLs() map[string]string {
	urls := map[string]string{}
	if u := r.Checker.Config.Sources.PyPI.URL; u != "" && u != config.DefaultPyPIURL {
		urls["pypi"] = web.Redact(u) // a private index URL may carry credentials
	}
	return urls
}

// releaseLinks links the release pages of u's packages: the release each
// one's checks failed at, else its target.
func (r *Runner) releaseLinks(u unit) []slack.Link {
	var links []slack.Link
	urls := r.sourceURLs()
	for _, p := range u.packages {
		version := p.Newest
		if c, _ := blockedAt(p); c != "" {
			version = c
		}
		for _, src := range slices.Sorted(maps.Keys(p.Sources)) {
			if l := github.ReleaseURL(src, urls[src], p.Name, version); l != "" {
				links = append(links, slack.Link{Text: p.Name + " " + version + " on " + src, URL: l})
				break
			}
		}
	}
	return links
}

// upstreamLinks returns the links of p's new release, from what its release
// on PyPI says of the project, with the compare view between the tags of
// the release the caps admitted (p.Admits) and the new one when the source
// is a github.com repository and both tags are found. Links are a courtesy:
// a failure to read them costs the links only.
func (r *Runner) upstreamLinks(ctx context.Context, log *slog.Logger, p report.Package) upstream.Links {
	linker, ok := r.Checker.Sources["pypi"].(ProjectLinker)
	if _, fromPyPI := p.Sources["pypi"]; !ok || !fromPyPI || p.Newest == "" {
		return upstream.Links{}
	}
	urls, err := linker.ProjectURLs(ctx, p.Name, p.Newest)
	if err != nil {
		log.Info("reading the project URLs of the release failed; the pull request links no changelog", "package", p.Name, "version", p.Newest, "err", err)
		return upstream.Links{}
	}
	l := upstream.Pick(urls)
	if l.Repo == "" || r.Tags == nil || p.Admits == "" || p.Admits == p.Newest {
		return l
	}
	newTag, err := r.Tags.Tag(ctx, l.Repo, p.Newest)
	if err != nil || newTag == "" {
		log.Info("no tag found for the release; the pull request links no compare view", "package", p.Name, "repo", l.Repo, "version", p.Newest, "err", err)
		return l
	}
	oldTag, err := r.Tags.Tag(ctx, l.Repo, p.Admits)
	if err != nil || oldTag == "" {
		log.Info("no tag found for the release the caps admitted; the pull request links no compare view", "package", p.Name, "repo", l.Repo, "version", p.Admits, "err", err)
		return l
	}
	l.Compare = upstream.Compare(l.Repo, oldTag, newTag)
	return l
}

// packageFiles returns the files p's pull request changes, rewritten in
// memory by planning (Checker.Rewrite) as the report says.
func (r *Runner) packageFiles(ctx context.Context, log *slog.Logger, ps []report.Package) ([]github.File, error) {
	rewritten, err := r.Checker.Rewrite(ctx, log, ps)
	if err != nil {
		return nil, err
	}
	files := make([]github.File, len(rewritten))
	for i, f := range rewritten {
		files[i] = github.File{Path: f.Path, Content: f.Content, Base: f.Base}
	}
	return files, nil
}

// UpstreamFixed reports whether a check says upstream fixed what a workaround
// covers: a canary probe (expect: fail) that now passes.
func UpstreamFixed(c report.Check) bool {
	return c.Verdict == "upstream-fixed"
}

// pullItem is what the message says of u's pull request after res, if
// anything.
func pullItem(u unit, res github.Result) (slack.Item, bool) {
	it, ok := prItem(res)
	if !ok {
		return it, false
	}
	it.Package, it.Versions, it.Verdict = u.name, u.versions(), u.verdict()
	if res.Action == github.Conflict {
		// It lasts until a person acts: alerted once per target.
		it.Key, it.Versions, it.Verdict = conditionKey("conflict", u.name), res.Target, "conflict"
	}
	return it, true
}

// prItem is the message line for a pull request result, if it is news.
func prItem(res github.Result) (slack.Item, bool) {
	var what string
	switch res.Action {
	case github.Opened:
		what = "opened"
		if res.Draft {
			what = "opened draft"
		}
	case github.Updated:
		what = "updated"
	case github.Conflict:
		title := fmt.Sprintf("%s: #%d needs a human", res.Package, res.Number)
		if res.Number == 0 {
			title = fmt.Sprintf("%s: branch %s needs a human", res.Package, res.Branch)
		}
		return slack.Item{Kind: slack.KindPR, URL: res.URL, Title: title, Detail: res.Detail}, true
	default:
		return slack.Item{}, false
	}
	// Detail says what else changed, such as a draft converted after a
	// failure, and what went wrong without stopping it.
	detail := strings.Join(append([]string{res.Detail}, res.Warnings...), "\n")
	return slack.Item{Kind: slack.KindPR, URL: res.URL, Title: fmt.Sprintf("%s: %s #%d for %s", res.Package, what, res.Number, res.Target),
		Detail: strings.TrimSpace(detail)}, true
}

// failedChecks says, a line each, which checks of p failed, where, and
// why: "probe `unique-ids` fails at 0.68.0 (passes at the baseline
// 0.66.0): FunctionIdentity._unique_ids is gone". Names are code spans.
func failedChecks(p report.Package) string {
	candidate, baseline := blockedAt(p)
	var lines []string
	for _, c := range p.Checks {
		if !c.OK {
			base := outcome(c.Baseline, "") + " at the baseline" + prefixed(" ", baseline)
			lines = append(lines, fmt.Sprintf("%s %s %s (%s): %s", c.Kind, slack.Code(c.Name), outcome(c.Candidate, candidate), base, c.Detail))
		}
	}
	return strings.Join(lines, "\n")
}

// prefixed is s after prefix, or "" when s is.
func prefixed(prefix, s string) string {
	if s == "" {
		return ""
	}
	return prefix + s
}

// A unit is what one pull request carries: a package, or a group of
// packages that move together (named after the group).
type unit struct {
	name     string
	status   plan.Status
	packages []report.Package
	settings config.PullRequestSettings
	group    *report.Group
}

// groupUnit is the pull request unit of group g: its members' report
// entries, its one status and the group's pull request settings.
func groupUnit(cfg *config.Config, rep *report.Report, g report.Group) unit {
	u := unit{name: g.Name, status: plan.Status(g.Status), group: &g, settings: cfg.PullRequests.ForGroup(g.Name, g.Packages)}
	for _, m := range g.Packages {
		for _, p := range rep.Packages {
			if p.Name == m {
				u.packages = append(u.packages, p)
			}
		}
	}
	return u
}

// versions says what the unit moves from and to: "0.66.0 → 0.67.0", a
// group's members joined with commas.
func (u unit) versions() string {
	return u.join(func(p report.Package) (string, string) { return p.Admits, p.Newest })
}

// blockedVersions says what a blocked unit's checks judged: "0.66.0 →
// 0.68.0", from the baseline to the release that failed (the target when
// the verdicts do not say).
func (u unit) blockedVersions() string {
	return u.join(func(p report.Package) (string, string) {
		if c, b := blockedAt(p); c != "" {
			return b, c
		}
		return p.Admits, p.Newest
	})
}

// join is "from → to" of each package, by name in a group, comma-separated.
func (u unit) join(span func(report.Package) (from, to string)) string {
	var parts []string
	for _, p := range u.packages {
		v := fromTo(span(p))
		if u.group != nil {
			v = p.Name + " " + v
		}
		parts = append(parts, v)
	}
	return strings.Join(parts, ", ")
}

// verdict is what the unit's checks say, in a word or two.
func (u unit) verdict() string {
	switch {
	case u.status == plan.Blocked:
		return failedVerdict(u.packages)
	case !slices.ContainsFunc(u.packages, func(p report.Package) bool { return len(p.Checks) > 0 }):
		return "no checks configured"
	}
	for _, p := range u.packages {
		for _, c := range p.Checks {
			if c.Verdict == "warning" {
				return "warning: a check could not decide"
			}
		}
	}
	return "checks pass"
}

// changed reports whether any pin of the unit changes.
func (u unit) changed() bool {
	return slices.ContainsFunc(u.packages, report.Package.Changed)
}

// failedChecks lists the unit's failed checks, each line naming its
// package in a group.
func (u unit) failedChecks() string {
	var lines []string
	for _, p := range u.packages {
		if f := failedChecks(p); f != "" {
			if u.group != nil {
				f = p.Name + ": " + strings.ReplaceAll(f, "\n", "\n"+p.Name+": ")
			}
			lines = append(lines, f)
		}
	}
	return strings.Join(lines, "\n")
}

// target names a group's targets, as a pull request's marker and trailer
// record them: "numba==0.67.0,llvmlite==0.50.1".
func (u unit) target() string {
	var parts []string
	for _, p := range u.packages {
		parts = append(parts, p.Name+"=="+p.Newest)
	}
	return strings.Join(parts, ",")
}

func noPRReason(s config.PullRequestSettings) string {
	if s.OnFailure == config.OnFailureAlertOnly {
		return "on-failure: alert-only"
	}
	return "no newer release passed the checks"
}

func firstLine(s string) string {
	first, _, _ := strings.Cut(s, "\n")
	return first
}
