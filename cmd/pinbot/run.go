package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/pinbot-dev/pinbot/bot/planning"
	"github.com/pinbot-dev/pinbot/bot/planning/plan"
	"github.com/pinbot-dev/pinbot/bot/publishing"
	gh "github.com/pinbot-dev/pinbot/bot/publishing/github"
	"github.com/pinbot-dev/pinbot/bot/publishing/slack"
	"github.com/pinbot-dev/pinbot/bot/publishing/state"
	"github.com/pinbot-dev/pinbot/bot/report"
	"github.com/pinbot-dev/pinbot/bot/verifying/verdicts"
	"github.com/pinbot-dev/pinbot/config"
	"github.com/pinbot-dev/pinbot/internal/errw"
	"github.com/pinbot-dev/pinbot/internal/escape"
)

// RunOptions are the flags and dependencies of `pinbot run`.
type RunOptions struct {
	Factory *Factory

	jobFlags
	Repo, Base     string
	TokenEnv       string
	AppID          int64
	InstallationID int64
	AppKeyEnv      string
	// WorkflowToken is "auto" (guess), "true" or "false".
	WorkflowToken string
	DryRun        bool
	// Verdicts is the check job's report (--verdicts): publish from its
	// verdicts and run no check (publish.go).
	Verdicts string
	// WritesPerMinute paces content-creating requests (default 80, GitHub's
	// secondary limit; a fleet's parallel jobs share it).
	WritesPerMinute int
	// FailOn is --fail-on: what makes the exit code non-zero (failOnLevels).
	FailOn string
	// requests counts the GitHub requests for the report's api_requests.
	requests gh.Counter
}

// runHooks are seams for tests; the program leaves them zero.
var runHooks struct {
	clock  gh.Clock                                   // paces GitHub requests
	sleep  func(context.Context, time.Duration) error // waits between Slack retries
	adjust func(*report.Report)                       // edits the report before pull requests are planned
}

func newRunCmd(f *Factory, runF func(context.Context, *RunOptions) error) *cobra.Command {
	opts := &RunOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Open or update one pull request per package and alert Slack",
		Long: `Run does for real what check plans: for every package whose caps move, one pull
request on the branch pinbot/<base>/<package> carrying the new caps in every file
(one commit through the GitHub API: no local git, the working tree is not
written), with the check's evidence in its body; then one Slack message when
something happened. --dry-run prints the pull requests and the message instead.

--verdicts REPORT publishes from a check job's report (pinbot check --format
json, run where no secret is): the plan is made again from the pin files and
the package sources, no probe or scan runs, and only the report's verdicts
are used, matched by package and version; a package whose target the report
did not judge is not bumped.

Environment: GITHUB_REPOSITORY (or --repo), GITHUB_TOKEN (or --token-env NAME),
GITHUB_API_URL (GitHub Enterprise), SLACK_WEBHOOK_URL, and for a GitHub App the
private key in PINBOT_APP_PRIVATE_KEY (or github.app.private-key-env).`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := opts.validate(); err != nil {
				return err
			}
			if err := validateVerdicts(cmd, opts); err != nil {
				return err
			}
			if opts.WritesPerMinute < 1 || opts.WritesPerMinute > gh.DefaultPerMinute {
				return &usageError{fmt.Errorf("--writes-per-minute: expected 1 to %d, found %d", gh.DefaultPerMinute, opts.WritesPerMinute)}
			}
			if opts.WorkflowToken != "auto" && opts.WorkflowToken != "true" && opts.WorkflowToken != "false" {
				return &usageError{fmt.Errorf("--workflow-token: expected auto, true or false, found %q", opts.WorkflowToken)}
			}
			if !slices.Contains(failOnLevels, opts.FailOn) {
				return &usageError{fmt.Errorf("--fail-on: expected error, blocked or never, found %q", opts.FailOn)}
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runRun(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	opts.register(fl, f, "the checkout of the base branch", "run only for this package (repeatable)")
	fl.StringVar(&opts.Repo, "repo", "", "the repository, owner/name (default $GITHUB_REPOSITORY)")
	fl.StringVar(&opts.Base, "base", "", "the base branch (default github.base, else the repository's default branch)")
	fl.StringVar(&opts.TokenEnv, "token-env", "GITHUB_TOKEN", "the environment variable holding the token")
	fl.Int64Var(&opts.AppID, "app-id", 0, "authenticate as this GitHub App (default github.app.id)")
	fl.Int64Var(&opts.InstallationID, "app-installation-id", 0, "the App's installation (default: looked up)")
	fl.StringVar(&opts.AppKeyEnv, "app-key-env", "", "the environment variable holding the App's PEM key (default github.app.private-key-env)")
	fl.StringVar(&opts.WorkflowToken, "workflow-token", "auto", "whether the token is a workflow's GITHUB_TOKEN: auto, true or false")
	fl.BoolVar(&opts.DryRun, "dry-run", false, "print the pull requests and the Slack message; write nothing (with a token, read which pull requests are open)")
	fl.StringVar(&opts.Verdicts, "verdicts", "", "publish from this check job's report (pinbot check --format json): take its verdicts, run no probe or scan")
	fl.StringVar(&opts.Repo, "repository", "", "same as --repo")
	fl.IntVar(&opts.WritesPerMinute, "writes-per-minute", gh.DefaultPerMinute, "the most content-creating GitHub requests a minute (jobs running at once share GitHub's 80)")
	fl.StringVar(&opts.FailOn, "fail-on", failBlocked, "what fails the run (a non-zero exit): error (failures only), blocked (failures and blocked bumps) or never")
	return cmd
}

// runEnv is what runRun takes from the environment, secrets included.
type runEnv struct {
	repo, apiURL, token, webhook, appKey string
	actions                              bool
	summary, output, runURL              string
}

func readRunEnv(f *Factory, opts *RunOptions, cfg *config.Config) runEnv {
	e := runEnv{
		repo: opts.Repo, apiURL: f.Getenv("GITHUB_API_URL"), webhook: f.Getenv("SLACK_WEBHOOK_URL"),
		actions: f.inActions(), summary: f.Getenv("GITHUB_STEP_SUMMARY"), output: f.Getenv("GITHUB_OUTPUT"),
	}
	if e.repo == "" {
		e.repo = f.Getenv("GITHUB_REPOSITORY")
	}
	if opts.TokenEnv != "" {
		e.token = f.Getenv(opts.TokenEnv)
	}
	e.appKey = f.Getenv(appKeyEnv(opts, cfg))
	if srv, id := f.Getenv("GITHUB_SERVER_URL"), f.Getenv("GITHUB_RUN_ID"); srv != "" && id != "" && e.repo != "" {
		e.runURL = srv + "/" + e.repo + "/actions/runs/" + id
	}
	return e
}

func runRun(ctx context.Context, opts *RunOptions) error {
	ctx, cancel := opts.deadline(ctx)
	defer cancel()
	f := opts.Factory
	cfg, err := f.loadConfig(opts.Dir, opts.ConfigPath)
	if err != nil {
		return err
	}
	// The token, the webhook and the App's key are never masked here: the
	// runner masks the secrets it hands a step, and echoing one would put
	// it wherever the stream goes (githubLogin masks what pinbot mints).
	env := readRunEnv(f, opts, cfg)
	var recorded *verdicts.Verdicts
	if opts.Verdicts != "" {
		if recorded, err = readVerdicts(opts.Verdicts); err != nil {
			return err
		}
	}
	appID, inst := opts.AppID, opts.InstallationID
	if appID == 0 {
		appID = int64(cfg.GitHub.App.ID)
	}
	if inst == 0 {
		inst = int64(cfg.GitHub.App.InstallationID)
	}
	if env.repo != "" {
		if _, _, err := gh.SplitRepo(env.repo); err != nil {
			return &usageError{fmt.Errorf("--repo: %w", err)}
		}
		if recorded != nil {
			if err := recorded.For(env.repo); err != nil {
				return &usageError{fmt.Errorf("--verdicts: %w", err)}
			}
		}
	}
	base := opts.Base
	if base == "" {
		base = cfg.GitHub.Base
	}
	hc := f.HTTPClient()
	tmp, cleanup, err := runTemp()
	if err != nil {
		return err
	}
	defer cleanup()
	defer f.pruneCache()
	checker, verifier := f.newChecker(opts.Dir, cfg, opts.Probes, tmp)
	if recorded != nil {
		verifier.Recorded = recorded
	} else {
		warnReleaseCode(f, opts, cfg, env, verifier)
	}
	runner := &publishing.Runner{
		Checker: checker,
		Repo:    env.repo, RunURL: env.runURL, DryRun: opts.DryRun, Log: f.Log, Adjust: runHooks.adjust,
		WorkflowToken: workflowToken(opts.WorkflowToken, env, opts.TokenEnv, appID),
	}
	if dir := f.cacheDir(); dir != "" {
		st, err := state.Open(filepath.Join(dir, stateFile))
		if err != nil {
			f.Log.Warn("reading what the last run held", "err", err)
		}
		runner.State = st
	}
	newClient := func() (*gh.Client, error) {
		tokens, err := githubLogin{Token: env.token, TokenEnv: opts.TokenEnv, AppID: appID, InstallationID: inst,
			AppKey: env.appKey, AppKeyEnv: appKeyEnv(opts, cfg), APIURL: env.apiURL, Repo: env.repo,
			Counter: &opts.requests}.tokens(ctx, f)
		if err != nil {
			return nil, err
		}
		client, err := gh.New(gh.Options{APIURL: env.apiURL, Repo: env.repo, Tokens: tokens, HTTP: hc, Clock: runHooks.clock, Log: f.Log,
			Counter: &opts.requests, PerMinute: opts.WritesPerMinute})
		if err != nil {
			return nil, &usageError{err}
		}
		return client, nil
	}
	if opts.DryRun {
		// With a token, a dry run reads (never writes) GitHub: which pull
		// requests are open, and the upstreams' tags.
		if env.repo != "" && (env.token != "" && appID == 0) {
			client, err := newClient()
			if err != nil {
				return err
			}
			runner.Previewer, runner.Tags = client, client
			if base == "" {
				if base, err = client.DefaultBranch(ctx); err != nil {
					return err
				}
			}
		}
		if base == "" {
			base = "main"
			f.Log.Warn("--dry-run asks no base branch: assuming main (pass --base)")
		}
	} else {
		if env.repo == "" {
			return &usageError{errors.New("no repository: set GITHUB_REPOSITORY or pass --repo owner/name")}
		}
		client, err := newClient()
		if err != nil {
			return err
		}
		if base == "" {
			if base, err = client.DefaultBranch(ctx); err != nil {
				return err
			}
		}
		runner.GitHub, runner.Issues, runner.Tags = client, client, client
		if env.webhook != "" {
			runner.Slack = &slack.Client{URL: env.webhook, HTTP: hc, Sleep: runHooks.sleep}
		}
	}
	runner.Base = base
	out, err := runner.Run(ctx, publishing.RunOptions{Packages: opts.Packages})
	var unknown *planning.UnknownPackageError
	switch {
	case errors.As(err, &unknown):
		return &usageError{fmt.Errorf("--package %w", err)}
	case err != nil && out == nil:
		return err
	}
	out.Report.Repository, out.Report.APIRequests = env.repo, opts.requests.N()
	if recorded != nil {
		warnUnused(f, recorded, out.Report)
	}
	if err := printRun(f.Stdout, opts, out); err != nil {
		return err
	}
	if env.actions {
		if err := actionsReport(f.workflow(), env, out); err != nil {
			f.Log.Warn("writing the Actions summary or outputs failed", "err", err)
		}
	}
	if err := cutShort(err, "the report and the pull requests listed are what was done by then"); err != nil {
		return err
	}
	return runOutcome(f.Stderr, out, opts.FailOn)
}

// workflowToken decides whether the token is a workflow's GITHUB_TOKEN. The
// action passes it exactly; otherwise: in Actions, read from GITHUB_TOKEN,
// no App, and shaped like an installation token (ghs_).
func workflowToken(flag string, env runEnv, tokenEnv string, appID int64) bool {
	if flag != "auto" {
		return flag == "true"
	}
	return env.actions && appID == 0 && tokenEnv == "GITHUB_TOKEN" && strings.HasPrefix(env.token, "ghs_")
}

// printRun writes the report and the pull requests (or, with --dry-run, what
// would be sent) to w.
func printRun(w io.Writer, opts *RunOptions, out *publishing.Outcome) error {
	if opts.Format == "json" {
		type pr struct {
			Package string `json:"package"`
			// Group is set when the pull request moves a group (Package
			// is then the group's name too).
			Group  string `json:"group,omitempty"`
			Action string `json:"action"`
			Number int    `json:"number"`
			URL    string `json:"url"`
			Branch string `json:"branch"`
			Title  string `json:"title"`
			Base   string `json:"base"`
			Draft  bool   `json:"draft"`
			Detail string `json:"detail,omitempty"`
			// Warnings went wrong without stopping the pull request (a
			// reviewer GitHub would not ask).
			Warnings []string `json:"warnings,omitempty"`
		}
		type issue struct {
			Action string `json:"action"`
			Number int    `json:"number"`
			URL    string `json:"url"`
		}
		doc := struct {
			Schema   int             `json:"schema"`
			Report   json.RawMessage `json:"report"`
			Pulls    []pr            `json:"pull_requests"`
			Notified bool            `json:"notified"`
			Failures []string        `json:"failures"`
			// Dashboard is the dashboard issue, when one was kept.
			Dashboard *issue `json:"dashboard,omitempty"`
		}{Schema: 1, Pulls: []pr{}, Failures: runFailures(out)}
		if d := out.DashboardIssue; d != nil {
			doc.Dashboard = &issue{string(d.Action), d.Number, d.URL}
		}
		var rb strings.Builder
		if err := report.JSON(&rb, out.Report); err != nil {
			return err
		}
		doc.Report = json.RawMessage(rb.String())
		for _, p := range out.Pulls {
			group := ""
			if slices.ContainsFunc(out.Report.Groups, func(g report.Group) bool { return g.Name == p.Package }) {
				group = p.Package
			}
			doc.Pulls = append(doc.Pulls, pr{p.Package, group, string(p.Action), p.Number, p.URL, p.Branch, p.Title, p.Base, p.Draft, p.Detail, p.Warnings})
		}
		doc.Notified = out.Message != nil && out.NotifyErr == nil && !opts.DryRun
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(doc)
	}
	if err := opts.Factory.render(opts.Format)(w, out.Report); err != nil {
		return err
	}
	if opts.DryRun && opts.Format == "markdown" {
		return dryRunMarkdown(w, out)
	}
	if opts.Format == "text" {
		defer nextSteps(w, out.Report, runMoves(opts, out))
	}
	if opts.DryRun {
		// What would be sent, shown on a terminal: escaped line by line.
		t, lines := escape.Text, escape.TextLines
		for i, ch := range out.Planned {
			fmt.Fprintf(w, "\n=== pull request (dry run): %s\nwould: %s\n", t(ch.Title), wouldDo(out, i))
			if i < len(out.Pulls) && out.Pulls[i].Detail != "" {
				fmt.Fprintf(w, "detail: %s\n", t(out.Pulls[i].Detail))
			}
			fmt.Fprintf(w, "branch: %s -> %s\ndraft: %v\n", t(gh.Branch(ch.Base, ch.Package)), t(ch.Base), ch.Draft)
			for _, fl := range ch.Files {
				fmt.Fprintf(w, "file: %s\n", t(fl.Path))
			}
			fmt.Fprintf(w, "labels: %s\nreviewers: %s\nassignees: %s\n--- commit message\n%s--- body\n%s", t(strings.Join(ch.Labels, ", ")),
				t(strings.Join(ch.Reviewers, ", ")), t(strings.Join(ch.Assignees, ", ")), lines(ch.Message), lines(ch.Body))
		}
		fmt.Fprintf(w, "\n=== dashboard issue (dry run): %s\n%s", t(out.DashboardTitle), lines(out.Dashboard))
		if out.Message != nil {
			b, _ := json.MarshalIndent(out.Message, "", "  ")
			fmt.Fprintf(w, "\n=== slack message (dry run)\n%s\n--- blocks\n%s\n", lines(out.Message.Text), lines(string(b)))
		} else {
			fmt.Fprintf(w, "\n=== slack message (dry run): none, nothing to say\n")
		}
		return nil
	}
	if len(out.Pulls) > 0 {
		fmt.Fprintf(w, "\npull requests:\n")
		for _, p := range out.Pulls {
			fmt.Fprintf(w, "  %s: %s #%d %s (%s)\n", escape.Text(p.Package), p.Action, p.Number, escape.Text(p.URL), escape.Text(p.Branch))
			if p.Detail != "" {
				fmt.Fprintf(w, "    %s\n", escape.Text(p.Detail))
			}
			for _, warning := range p.Warnings {
				fmt.Fprintf(w, "    warning: %s\n", escape.Text(warning))
			}
		}
	}
	if d := out.DashboardIssue; d != nil {
		fmt.Fprintf(w, "\ndashboard: %s #%d %s\n", d.Action, d.Number, escape.Text(d.URL))
	}
	if out.Message != nil && out.NotifyErr == nil {
		fmt.Fprintf(w, "\nslack: sent\n")
	}
	return nil
}

// wouldDo says what a dry run would do with the i-th pull request it
// planned: "open", "update #1", "leave #1 closed" (closed-respected),
// "leave #1 alone" (conflict), or "open or update" when it read none.
func wouldDo(out *publishing.Outcome, i int) string {
	if i >= len(out.Pulls) {
		return "open or update"
	}
	switch p := out.Pulls[i]; p.Action {
	case gh.WouldOpen:
		return "open"
	case gh.WouldUpdate:
		return fmt.Sprintf("update #%d", p.Number)
	case gh.Respected:
		return fmt.Sprintf("leave #%d closed", p.Number)
	case gh.Conflict:
		if p.Number == 0 {
			return "leave the branch alone"
		}
		return fmt.Sprintf("leave #%d alone", p.Number)
	}
	return "open or update"
}

// dryRunMarkdown writes, after the report's Markdown, what a dry run would
// send as Markdown too: each pull request (its body as GitHub would show
// it), the dashboard and the Slack message in a fenced block.
func dryRunMarkdown(w io.Writer, out *publishing.Outcome) error {
	ew := errw.New(w)
	md, code := escape.Markdown, escape.Code
	for i, ch := range out.Planned {
		ew.Printf("\n---\n\n## Pull request (dry run, would %s): %s\n\n", wouldDo(out, i), md(ch.Title))
		var files []string
		for _, fl := range ch.Files {
			files = append(files, code(fl.Path))
		}
		ew.Printf("- Branch: %s → %s\n- Draft: %v\n- Files: %s\n", code(gh.Branch(ch.Base, ch.Package)), code(ch.Base), ch.Draft, strings.Join(files, ", "))
		for _, l := range []struct {
			name string
			v    []string
		}{{"Labels", ch.Labels}, {"Reviewers", ch.Reviewers}, {"Assignees", ch.Assignees}} {
			if len(l.v) > 0 {
				var vs []string
				for _, v := range l.v {
					vs = append(vs, code(v))
				}
				ew.Printf("- %s: %s\n", l.name, strings.Join(vs, ", "))
			}
		}
		ew.Printf("\n%s\n", ch.Body)
	}
	ew.Printf("\n---\n\n## Dashboard issue (dry run): %s\n\n%s\n", md(out.DashboardTitle), out.Dashboard)
	if out.Message == nil {
		ew.Printf("\n---\n\n## Slack message (dry run)\n\nNone: nothing to say.\n")
		return ew.Err
	}
	b, _ := json.MarshalIndent(out.Message, "", "  ")
	fence := "```"
	for strings.Contains(string(b), fence) {
		fence += "`"
	}
	ew.Printf("\n---\n\n## Slack message (dry run)\n\n%sjson\n%s\n%s\n", fence, b, fence)
	return ew.Err
}

// placeRE finds the file:line an annotation's text starts with, compiled
// when first used: only a run inside GitHub Actions annotates.
var placeRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^([^\s:]+):(\d+)(?::\d+)?: `) })

// actionsReport writes the annotations (to wf: stderr), the step summary
// and the outputs.
func actionsReport(wf *gh.Workflow, env runEnv, out *publishing.Outcome) error {
	annotate := func(level, title, text string) {
		a := gh.Annotation{Level: level, Title: title, Text: text}
		if m := placeRE().FindStringSubmatch(a.Text); m != nil {
			a.File, a.Line = m[1], atoi(m[2])
		}
		wf.Annotate(a)
	}
	blocked := 0
	for _, p := range out.Report.Packages {
		switch plan.Status(p.Status) {
		case plan.Error:
			annotate("error", "pinbot: "+p.Name, p.Error)
		case plan.Blocked:
			blocked++
			a := gh.Annotation{Level: "warning", Title: "pinbot: a check failed for " + p.Name, Text: p.Name + ": a check failed; the cap stays at the newest release that passed"}
			for _, pin := range p.Pins {
				if pin.Before != pin.After || len(p.Pins) == 1 {
					a.File, a.Line = pin.File, pin.Line
					break
				}
			}
			wf.Annotate(a)
		}
	}
	for _, e := range out.Report.Errors {
		annotate("error", "pinbot", e)
	}
	for _, w := range out.Report.Warnings {
		annotate("warning", "pinbot: skipped", w)
	}
	for _, p := range out.Report.Packages {
		if plan.Status(p.Status) != plan.Held {
			continue
		}
		a := gh.Annotation{Level: "warning", Title: "pinbot: " + p.Name + " is held", Text: p.Name + ": " + p.Hold}
		for _, pin := range p.Pins {
			if pin.Held {
				a.File, a.Line = pin.File, pin.Line
				break
			}
		}
		wf.Annotate(a)
	}
	for _, e := range out.Failures {
		annotate("error", "pinbot: pull request", e)
	}
	for _, p := range out.Pulls {
		if p.Action == gh.Conflict {
			annotate("warning", "pinbot: "+p.Package, p.Detail)
		}
		for _, w := range p.Warnings {
			annotate("warning", "pinbot: "+p.Package, w)
		}
	}
	if out.NotifyErr != nil {
		annotate("error", "pinbot: slack", out.NotifyErr.Error())
	}
	var errs []error
	if env.summary != "" {
		// The dashboard: what the dashboard issue says, every package's
		// pins, checks, pull request and early warning.
		errs = append(errs, gh.AppendSummary(env.summary, "# "+escape.Markdown(out.DashboardTitle)+"\n\n"+out.Dashboard))
	}
	if env.output != "" {
		type pr struct {
			Package string `json:"package"`
			Action  string `json:"action"`
			Number  int    `json:"number"`
			URL     string `json:"url"`
		}
		prs := []pr{}
		for _, p := range out.Pulls {
			if p.Action == gh.Opened || p.Action == gh.Updated {
				prs = append(prs, pr{p.Package, string(p.Action), p.Number, p.URL})
			}
		}
		b, _ := json.Marshal(prs)
		errs = append(errs, gh.SetOutputs(env.output, [][2]string{
			{"pull-requests", string(b)},
			{"failures", strconv.Itoa(len(runFailures(out)))},
			{"blocked", strconv.Itoa(blocked)},
		}))
	}
	return errors.Join(errs...)
}

// runFailures lists everything that makes the run fail (exit 1).
func runFailures(out *publishing.Outcome) []string {
	failures := []string{}
	failures = append(failures, out.Report.Errors...)
	for _, p := range out.Report.Packages {
		if plan.Status(p.Status) == plan.Error {
			failures = append(failures, p.Name+": "+p.Error)
		}
	}
	failures = append(failures, out.Failures...)
	if out.NotifyErr != nil {
		failures = append(failures, out.NotifyErr.Error())
	}
	return failures
}

// The --fail-on levels: what makes a run's exit code non-zero. A blocked
// bump is an alert and a draft pull request; a workflow that must not turn red
// for it each week runs with error.
const (
	failError   = "error"   // failures (exit 1)
	failBlocked = "blocked" // failures (exit 1), then blocked bumps (exit 3)
	failNever   = "never"   // neither: the report, annotations and outputs say what happened
)

var failOnLevels = []string{failError, failBlocked, failNever}

// runOutcome is the run's error: exit 1 for failures (a failed webhook
// included), else exit 3 when a check blocked a bump, as far as failOn
// lets them fail the run. What failOn forgives is said on stderr.
func runOutcome(stderr io.Writer, out *publishing.Outcome, failOn string) error {
	err := outcome(out.Report)
	if failures := runFailures(out); len(failures) > 0 {
		for i, f := range failures {
			failures[i] = escape.Text(f)
		}
		err = fmt.Errorf("%d failure(s):\n  %s", len(failures), strings.Join(failures, "\n  "))
	}
	var blocked checkFailedError
	switch {
	case err == nil:
		return nil
	case failOn == failNever, failOn == failError && errors.As(err, &blocked):
		what := err.Error()
		if errors.As(err, &blocked) {
			what = fmt.Sprintf("%d bump(s) blocked by a failed check", blocked.Blocked)
		}
		fmt.Fprintf(stderr, "pinbot: %s (exit 0: --fail-on %s)\n", what, failOn)
		return nil
	}
	return err
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}
