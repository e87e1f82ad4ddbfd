package publishing

import (
	"context"
	"log/slog"
	"maps"
	"strings"

	"github.com/pinbot-dev/pinbot/bot/publishing/dashboard"
	"github.com/pinbot-dev/pinbot/bot/publishing/github"
	"github.com/pinbot-dev/pinbot/bot/publishing/state"
)

// An IssueKeeper keeps one issue by its hidden marker; *github.Client is
// one.
type IssueKeeper interface {
	FindIssue(ctx context.Context, is github.Issue) (github.IssueResult, error)
	SyncIssueWith(ctx context.Context, is github.Issue, body func(found github.IssueResult) string) (github.IssueResult, error)
}

// dashboardIssue describes the run's dashboard issue, and reports whether
// the run keeps one: the dashboard is on, there is somewhere to keep it,
// the run writes (no DryRun), and it checked every package (a dashboard of
// some packages would drop the others). The issue is left as it is when it
// says what this run would but for the clock (dashboard.Same).
func (r *Runner) dashboardIssue(partial bool) (github.Issue, bool) {
	cfg, on := r.Checker.Config.DashboardIssue()
	is := github.Issue{Marker: dashboard.Marker(r.Base), Title: cfg.Title, Labels: cfg.Labels, Same: dashboard.Same}
	return is, on && r.Issues != nil && !r.DryRun && !partial
}

// lastRun returns what the last run of this repository and base branch
// left: from the state file, or from the dashboard issue's hidden line,
// whichever is newer (the issue is the one record a job without a cache
// keeps), and the dashboard issue as found. A record that cannot be read
// is no record: at worst a message is sent again.
func (r *Runner) lastRun(ctx context.Context, log *slog.Logger, key string, partial bool) (state.Scope, github.IssueResult) {
	last := state.Scope{}.Clone()
	if r.State != nil {
		last = r.State.Scope(key)
	}
	is, keep := r.dashboardIssue(partial)
	if !keep {
		return last, github.IssueResult{}
	}
	found, err := r.Issues.FindIssue(ctx, is)
	if err != nil {
		log.Warn("reading the dashboard issue failed; what the last run left is taken from the cache alone", "err", err)
		return last, github.IssueResult{}
	}
	if rec, ok := dashboard.Recorded(found.Previous); ok && rec.Updated.After(last.Updated) {
		log.Debug("what the last run left is read from the dashboard issue", "number", found.Number)
		last = rec
	}
	return last, found
}

// news is what this run announced, or still holds announced: the held
// packages, the pre-releases warned of, the lasting conditions alerted.
type news struct {
	held, warned map[string]string
	alerted      map[string]state.Alert
	// nightlies is what the runs saw of the nightlies (NightlyWindows):
	// what was seen, not what was said, kept whether or not the message
	// went out.
	nightlies map[string]state.Nightly
}

// keepDashboard renders the run's dashboard into out.Dashboard, writes it
// to its issue when the run keeps one, and records the state this run
// leaves (in the issue's hidden line and in the state file): what each
// package looked like (when every package was checked), and, unless the
// message that announced them failed, which packages are held, which
// pre-releases' failures were announced and which lasting conditions were
// alerted, so that the next run announces only news. An issue that says
// all of it already, but for what changes with the clock alone, is left as
// it is (dashboard.Same): its record keeps the times of the run that wrote
// it, which say only which record is newer and since when nothing changed
// (the state file takes this run's); an alert's time, from which a
// reminder is due, is compared, so a reminder sent is recorded.
func (r *Runner) keepDashboard(ctx context.Context, log *slog.Logger, out *Outcome, key string, last state.Scope, n news, partial bool) {
	now := r.now()
	d := &dashboard.Dashboard{Repo: r.Repo, Base: r.Base, RunURL: r.RunURL, Time: now, Report: out.Report, Pulls: map[string]dashboard.Pull{}, Last: last}
	for _, p := range out.Pulls {
		if p.Number > 0 {
			d.Pulls[p.Package] = dashboard.Pull{Number: p.Number, URL: p.URL, Draft: p.Draft, Action: string(p.Action)}
		}
	}
	next := last
	next.Updated, next.Nightlies = now, maps.Clone(n.nightlies)
	if out.NotifyErr == nil {
		next.Held, next.Warned, next.Alerted = maps.Clone(n.held), maps.Clone(n.warned), maps.Clone(n.alerted)
	}
	if !partial {
		next.Seen, next.SeenAt = d.Seen(), now
	}
	var md strings.Builder
	d.Markdown(&md) // a strings.Builder does not fail
	out.Dashboard = md.String()
	is, keep := r.dashboardIssue(partial)
	out.DashboardTitle = is.Title
	if r.DryRun {
		return
	}
	if keep {
		res, err := r.Issues.SyncIssueWith(ctx, is, func(github.IssueResult) string { return d.Body(next) })
		if err != nil {
			log.Error("dashboard issue failed", "err", err)
			out.Failures = append(out.Failures, "dashboard: "+err.Error())
		} else {
			log.Info("dashboard issue", "action", res.Action, "number", res.Number, "url", res.URL)
			out.DashboardIssue = &res
		}
	}
	if r.State != nil {
		r.State.SetScope(key, next)
		if err := r.State.Save(now); err != nil {
			log.Warn("saving what this run saw failed; held packages and early warnings may be announced again", "err", err)
		}
	}
}
