package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	gh "github.com/pinbot-dev/pinbot/bot/publishing/github"
	"github.com/pinbot-dev/pinbot/bot/publishing/slack"
	"github.com/pinbot-dev/pinbot/fleet"
)

// FleetReportOptions are the flags and dependencies of `pinbot fleet report`.
type FleetReportOptions struct {
	Factory   *Factory
	Reports   string
	IssueRepo string
	Auth      ghAuth
}

// fleetMarker names the fleet's dashboard issue among pinbot's issues.
const fleetMarker = "fleet-dashboard"

// fleetLabel is the label the dashboard issue gets, by which it is found.
const fleetLabel = "pinbot"

func newFleetReportCmd(f *Factory, runF func(context.Context, *FleetReportOptions) error) *cobra.Command {
	opts := &FleetReportOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "report",
		Short: "Read a fleet's JSON reports and write its dashboard",
		Long: `Report reads every pinbot check or pinbot run JSON report under --reports and
writes the fleet's dashboard: per package, the newest release and the
repositories bumped, blocked, held, current and in error, with their pull
requests and the reason for each block, and a Mermaid chart of how far each
repository's caps lag. It goes to stdout, to GITHUB_STEP_SUMMARY when set, and
with --issue-repo into one issue there, updated in place. With SLACK_WEBHOOK_URL
set it posts one summary when the fleet's state changed since the last one the
issue records. A file that is not a pinbot report is named in a warning and
skipped.`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			if info, err := os.Stat(opts.Reports); err != nil || !info.IsDir() {
				return &usageError{fmt.Errorf("--reports: %q is not a directory", opts.Reports)}
			}
			if opts.IssueRepo != "" {
				if _, _, err := gh.SplitRepo(opts.IssueRepo); err != nil {
					return &usageError{fmt.Errorf("--issue-repo: %w", err)}
				}
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return fleetReportRun(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Reports, "reports", "", "the directory of JSON reports (pinbot check or run --format json) (required)")
	fl.StringVar(&opts.IssueRepo, "issue-repo", "", "keep the dashboard in one issue of this repository, owner/name")
	opts.Auth.register(fl, false)
	return cmd
}

func fleetReportRun(ctx context.Context, opts *FleetReportOptions) error {
	f := opts.Factory
	// The webhook is the runner's to mask, never echoed here.
	webhook := f.Getenv("SLACK_WEBHOOK_URL")
	reports, warnings, err := fleet.Read(opts.Reports)
	if err != nil {
		return &usageError{fmt.Errorf("--reports: %w", err)}
	}
	d, dups := fleet.Summarize(reports)
	d.Server = f.Getenv("GITHUB_SERVER_URL")
	for _, w := range append(warnings, dups...) {
		f.Log.Warn(w)
		f.workflow().Annotate(gh.Annotation{Level: "warning", Title: "pinbot fleet report", Text: w})
	}
	var md strings.Builder
	if err := d.Markdown(&md); err != nil {
		return err
	}
	if _, err := fmt.Fprint(f.Stdout, md.String()); err != nil {
		return err
	}
	var errs []error
	if s := f.Getenv("GITHUB_STEP_SUMMARY"); s != "" {
		if err := gh.AppendSummary(s, md.String()); err != nil {
			f.Log.Warn("writing the step summary failed", "err", err)
		}
	}
	runURL := ""
	if srv, repo, id := f.Getenv("GITHUB_SERVER_URL"), f.Getenv("GITHUB_REPOSITORY"), f.Getenv("GITHUB_RUN_ID"); srv != "" && repo != "" && id != "" {
		runURL = srv + "/" + repo + "/actions/runs/" + id
	}
	// notify posts the summary when the state differs from the one Slack
	// was last told of, and returns the state it now knows.
	state := d.State()
	notify := func(last, issueURL string) string {
		if webhook == "" || last == state {
			if webhook != "" {
				f.Log.Info("the fleet's state is unchanged: no Slack message", "state", state)
			}
			return last
		}
		c := &slack.Client{URL: webhook, HTTP: f.HTTPClient(), Sleep: runHooks.sleep}
		if err := c.Post(ctx, slack.BuildFleet(d.SlackSummary(issueURL, runURL))); err != nil {
			errs = append(errs, err)
			return last
		}
		f.Log.Info("posted the fleet's summary to Slack", "state", state)
		return state
	}
	if opts.IssueRepo == "" {
		if webhook != "" {
			f.Log.Warn("without --issue-repo pinbot keeps no record of the last summary: posting it whatever changed")
		}
		notify("", "")
		return errors.Join(errs...)
	}
	tokens, err := opts.Auth.tokens(ctx, f, "", nil)
	if err != nil {
		return err
	}
	client, err := gh.New(gh.Options{APIURL: f.Getenv("GITHUB_API_URL"), Repo: opts.IssueRepo, Tokens: tokens, HTTP: f.HTTPClient(),
		Clock: runHooks.clock, Log: f.Log})
	if err != nil {
		return &usageError{err}
	}
	res, err := client.SyncIssueWith(ctx, gh.Issue{Marker: fleetMarker, Title: d.Title(), Labels: []string{fleetLabel}}, func(found gh.IssueResult) string {
		// A first message, sent before the issue exists, links the run
		// alone.
		return d.Body(notify(fleet.NotifiedOf(found.Previous), found.URL), gh.IssueRoom(fleetMarker))
	})
	if err != nil {
		errs = append(errs, err)
	} else {
		f.Log.Info("dashboard issue", "action", res.Action, "number", res.Number, "url", res.URL)
	}
	return errors.Join(errs...)
}
