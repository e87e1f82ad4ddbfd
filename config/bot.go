package config

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
)

// DefaultAppKeyEnv is the environment variable that holds a GitHub App's private
// key (PEM) when github.app.private-key-env names none.
const DefaultAppKeyEnv = "PINBOT_APP_PRIVATE_KEY"

// GitHub configures how `pinbot run` talks to GitHub: the base branch, who
// authors the commits and, for GitHub App authentication, which App. Tokens
// and keys are never configuration: they come from the environment.
type GitHub struct {
	// Base is the branch pull requests target; --base overrides it and the
	// default is the repository's default branch.
	Base string `yaml:"base"`
	// Author and Committer of pinbot's commits (default: the token's account).
	Author    *Identity `yaml:"author"`
	Committer *Identity `yaml:"committer"`
	App       App       `yaml:"app"`
}

// Validate checks the base branch name.
func (g *GitHub) Validate() error {
	if g.Base != "" && !validBranch(g.Base) {
		return fmt.Errorf("base: %q is not a branch name", g.Base)
	}
	return nil
}

// An Identity is a git author or committer.
type Identity struct {
	Name  string `yaml:"name"`
	Email string `yaml:"email"`
}

// Validate requires both name and email.
func (i *Identity) Validate() error {
	if strings.TrimSpace(i.Name) == "" || !strings.Contains(i.Email, "@") {
		return fmt.Errorf("expected a name and an email address, found name %q, email %q", i.Name, i.Email)
	}
	return nil
}

// App configures GitHub App authentication: pinbot signs a JWT with the App's
// private key and exchanges it for an installation token, so that its pull
// requests start CI (a workflow's GITHUB_TOKEN does not).
type App struct {
	// ID is the App's numeric id; 0 means no App (use a token).
	ID int `yaml:"id"`
	// InstallationID is the installation on the repository's owner (default:
	// looked up from the repository).
	InstallationID int `yaml:"installation-id"`
	// PrivateKeyEnv names the environment variable holding the PEM private key
	// (default PINBOT_APP_PRIVATE_KEY).
	PrivateKeyEnv string `yaml:"private-key-env"`
}

// Validate checks the ids and the variable name.
func (a *App) Validate() error {
	if a.ID < 0 || a.InstallationID < 0 {
		return fmt.Errorf("expected positive ids")
	}
	if a.PrivateKeyEnv != "" && !botEnvRE().MatchString(a.PrivateKeyEnv) {
		return fmt.Errorf("private-key-env: %q is not an environment variable name", a.PrivateKeyEnv)
	}
	return nil
}

// KeyEnv returns the variable holding the App's private key.
func (a App) KeyEnv() string {
	if a.PrivateKeyEnv == "" {
		return DefaultAppKeyEnv
	}
	return a.PrivateKeyEnv
}

// What `pinbot run` does when a check fails for a package (on-failure).
const (
	// OnFailureDraft opens (or keeps) the pull request as a draft, capped at the
	// newest release that passed, with the evidence in its body.
	OnFailureDraft = "draft"
	// OnFailureAlertOnly opens no pull request; the Slack message and the
	// report carry the failure.
	OnFailureAlertOnly = "alert-only"
)

// PullRequests configures the pull requests `pinbot run` opens, globally and
// per package.
type PullRequests struct {
	// Labels are added to every pull request.
	Labels []string `yaml:"labels"`
	// Reviewers are requested: "login" for a user, "org/team" for a team.
	Reviewers []string `yaml:"reviewers"`
	// Assignees are assigned.
	Assignees []string `yaml:"assignees"`
	// Draft opens every pull request as a draft.
	Draft bool `yaml:"draft"`
	// OnFailure is "draft" (default) or "alert-only".
	OnFailure string `yaml:"on-failure"`
	// ReopenClosed opens a new pull request even when one for the same package
	// and target was closed without merging (default: respect the close).
	ReopenClosed bool `yaml:"reopen-closed"`
	// Packages override the settings above per package (keys are package
	// names, normalised, or group names for a group's pull request); a key
	// set there replaces the global value.
	Packages map[string]*PullRequestOverride `yaml:"packages"`
}

// Validate checks the values and normalises the package names.
func (p *PullRequests) Validate() error {
	if err := oneOf("on-failure", p.OnFailure, "", OnFailureDraft, OnFailureAlertOnly); err != nil {
		return err
	}
	if err := checkPeople(p.Reviewers, p.Assignees); err != nil {
		return err
	}
	norm := make(map[string]*PullRequestOverride, len(p.Packages))
	for _, name := range slices.Sorted(maps.Keys(p.Packages)) {
		n := Key(name)
		if _, dup := norm[n]; dup {
			return fmt.Errorf("packages: %s names the same package as another entry (%s)", name, n)
		}
		norm[n] = p.Packages[name]
	}
	if len(norm) > 0 {
		p.Packages = norm
	}
	return nil
}

// A PullRequestOverride is the per-package part of PullRequests; unset keys
// take the global value.
type PullRequestOverride struct {
	Labels    []string `yaml:"labels"`
	Reviewers []string `yaml:"reviewers"`
	Assignees []string `yaml:"assignees"`
	Draft     *bool    `yaml:"draft"`
	OnFailure string   `yaml:"on-failure"`
}

// Validate checks the values.
func (o *PullRequestOverride) Validate() error {
	if err := oneOf("on-failure", o.OnFailure, "", OnFailureDraft, OnFailureAlertOnly); err != nil {
		return err
	}
	return checkPeople(o.Reviewers, o.Assignees)
}

// PullRequestSettings are the effective settings for one package's pull
// request.
type PullRequestSettings struct {
	Labels, Reviewers, Assignees []string
	Draft                        bool
	OnFailure                    string
	ReopenClosed                 bool
}

// For returns the settings for the package named pkg (normalised).
func (p PullRequests) For(pkg string) PullRequestSettings {
	s := PullRequestSettings{
		Labels: p.Labels, Reviewers: p.Reviewers, Assignees: p.Assignees,
		Draft: p.Draft, OnFailure: p.OnFailure, ReopenClosed: p.ReopenClosed,
	}
	if o := p.Packages[Key(pkg)]; o != nil {
		if o.Labels != nil {
			s.Labels = o.Labels
		}
		if o.Reviewers != nil {
			s.Reviewers = o.Reviewers
		}
		if o.Assignees != nil {
			s.Assignees = o.Assignees
		}
		if o.Draft != nil {
			s.Draft = *o.Draft
		}
		if o.OnFailure != "" {
			s.OnFailure = o.OnFailure
		}
	}
	if s.OnFailure == "" {
		s.OnFailure = OnFailureDraft
	}
	return s
}

// ForGroup returns the settings of a group's pull request:
// pull-requests.packages.GROUP when the configuration names the group there,
// else those of its first member.
func (p PullRequests) ForGroup(group string, members []string) PullRequestSettings {
	if _, ok := p.Packages[Key(group)]; ok || len(members) == 0 {
		return p.For(group)
	}
	return p.For(members[0])
}

// The events notify.on selects.
const (
	NotifyFailure       = "failure"        // a check failed (a package is blocked)
	NotifyPR            = "pr"             // a pull request was opened or updated, or needs a human
	NotifyUpstreamFixed = "upstream-fixed" // a canary says upstream fixed what a workaround covers
	NotifyError         = "error"          // a package or the run failed
	NotifyHeld          = "held"           // a package held (its target shut out, nothing moves)
	NotifyEarlyWarning  = "early-warning"  // a pre-release newer than the target fails a check, first seen
	NotifyNightly       = "nightly"        // a nightly build's verdict changed: it fails, fails otherwise, or passes again
)

// NotifyEvents are every event, the default of notify.on.
var NotifyEvents = []string{NotifyFailure, NotifyPR, NotifyUpstreamFixed, NotifyError, NotifyHeld, NotifyEarlyWarning, NotifyNightly}

// Notify configures the Slack message of `pinbot run`. The webhook URL is a
// secret and comes only from SLACK_WEBHOOK_URL.
type Notify struct {
	// On lists the events worth a message (default: all of NotifyEvents).
	On []string `yaml:"on"`
	// Remind is how often a condition that lasts (a blocked release, a
	// branch that needs a human, a held package) is alerted again while
	// nothing about it changes: RemindNever (the default: once) or
	// RemindWeekly.
	Remind string `yaml:"remind"`
}

// The values of notify.remind.
const (
	RemindNever  = "never"
	RemindWeekly = "weekly"
)

// Validate checks the event names and the reminder.
func (n *Notify) Validate() error {
	for i, e := range n.On {
		if !slices.Contains(NotifyEvents, e) {
			return fmt.Errorf("on[%d]: unknown event %q (expected any of: %s)", i, e, strings.Join(NotifyEvents, ", "))
		}
	}
	if n.Remind != "" && n.Remind != RemindNever && n.Remind != RemindWeekly {
		return fmt.Errorf("remind: expected %s or %s, found %q", RemindNever, RemindWeekly, n.Remind)
	}
	return nil
}

// RemindEvery is how long after an alert a lasting condition is alerted
// again (0: never).
func (n Notify) RemindEvery() time.Duration {
	if n.Remind == RemindWeekly {
		return 7 * 24 * time.Hour
	}
	return 0
}

// Wants reports whether event is worth a message.
func (n Notify) Wants(event string) bool {
	if n.On == nil {
		return true
	}
	return slices.Contains(n.On, event)
}

func checkPeople(reviewers, assignees []string) error {
	for i, r := range reviewers {
		if !botLoginRE().MatchString(r) && !botTeamRE().MatchString(r) {
			return fmt.Errorf("reviewers[%d]: %q is not a GitHub login or org/team", i, r)
		}
	}
	for i, a := range assignees {
		if !botLoginRE().MatchString(a) {
			return fmt.Errorf("assignees[%d]: %q is not a GitHub login", i, a)
		}
	}
	return nil
}

// validBranch reports whether b is usable as a branch name (a subset of git's
// check-ref-format rules that catches typos).
func validBranch(b string) bool {
	return botBranchRE().MatchString(b) && !strings.Contains(b, "..") && !strings.Contains(b, "//") &&
		!strings.HasSuffix(b, "/") && !strings.HasSuffix(b, ".lock") && !strings.HasSuffix(b, ".")
}

// The shapes of an environment variable name, a GitHub login, an org/team
// and a branch name, compiled when first used: only a config with an app,
// reviewers, assignees or a branch needs them, and botLoginRE's counted
// repetition would cost every command's start.
var (
	botEnvRE    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`) })
	botLoginRE  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})(?:\[bot\])?$`) })
	botTeamRE   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9-]*/[A-Za-z0-9._-]+$`) })
	botBranchRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9._][A-Za-z0-9._/-]*$`) })
)
