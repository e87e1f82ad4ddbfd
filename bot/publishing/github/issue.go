package github

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync"

	gh "github.com/google/go-github/v60/github"
)

// An Issue is an issue pinbot keeps up to date in place, one per marker and
// repository: the fleet's dashboard, a repository's dashboard. Its body
// starts with a hidden marker line, by which SyncIssue finds it again; a
// second issue is never opened while the first can be found.
type Issue struct {
	// Marker names the issue among pinbot's, such as "fleet-dashboard":
	// lower-case letters, digits, '.', '_', '-' and '/'.
	Marker string
	Title  string
	// Body is the issue's Markdown; SyncIssue puts the marker line before
	// it and keeps it under GitHub's limit.
	Body string
	// Labels are added when missing; labels someone else added stay.
	Labels []string
	// Same, when set, reports whether the body found (marker line
	// included) says what the body wanted says, so that SyncIssue leaves
	// the issue as it is, when its title and labels are right too: a
	// caller whose body carries what changes with the clock alone (the
	// run's time) compares without it, and a run that has nothing new to
	// say writes nothing. Nil compares the bytes.
	Same func(found, want string) bool
}

// An IssueResult is what SyncIssue did.
type IssueResult struct {
	// Action is Opened, Updated or Unchanged.
	Action Action
	Number int
	URL    string
	// Previous is the issue's body before the sync, marker line included
	// ("" when it was opened): what a caller compares to know whether the
	// state it records there changed.
	Previous string
}

// issueMarkerRE is what an Issue.Marker may be, compiled when first
// used: its counted repetition costs every command's start otherwise.
var issueMarkerRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9][a-z0-9._/-]{0,99}$`) })

// IssueMarker returns the hidden first line of the body of the issue with
// marker.
func IssueMarker(marker string) string { return "<!-- pinbot:issue " + marker + " -->" }

// IssueRoom is how many bytes of an issue's body (Issue.Body, or what
// SyncIssueWith's body returns) SyncIssue keeps whole beside the marker
// line: a longer body is cut to it, at its end. A caller whose body may be
// longer fits it to IssueRoom itself, to choose what is left out.
func IssueRoom(marker string) int { return MaxBody - len(marker) - 40 }

// maxIssuePages bounds the pages of one label's issues read to find the
// marker.
const maxIssuePages = 50

// SyncIssue makes the issue with is.Marker in the client's repository say
// is.Title and is.Body and carry is.Labels. It finds the issue by its marker
// among the issues with the first label (the label pinbot gives it; newest
// first, every page), else, in case someone removed that label, by GitHub's
// issue search; opens it when neither finds it, and otherwise updates it only
// if something differs (is.Same decides for the body), open or closed as
// people left it. With several issues carrying the marker, the oldest is
// kept up to date.
func (c *Client) SyncIssue(ctx context.Context, is Issue) (IssueResult, error) {
	return c.SyncIssueWith(ctx, is, nil)
}

// SyncIssueWith is SyncIssue with the body made by body from the issue as
// found (its Number, URL and Previous body; zero when there is none yet),
// so that a caller can carry its own state from one sync to the next in
// hidden lines; a nil body uses is.Body.
func (c *Client) SyncIssueWith(ctx context.Context, is Issue, body func(found IssueResult) string) (IssueResult, error) {
	if !issueMarkerRE().MatchString(is.Marker) {
		return IssueResult{}, fmt.Errorf("github: issue marker %q: expected lower-case letters, digits, '.', '_', '-' and '/'", is.Marker)
	}
	if c.repo == "" {
		return IssueResult{}, fmt.Errorf("github: no repository for the issue %s", is.Marker)
	}
	found, err := c.findIssue(ctx, is)
	if err != nil {
		return IssueResult{}, err
	}
	text := is.Body
	if body != nil {
		text = body(IssueResult{Number: found.GetNumber(), URL: found.GetHTMLURL(), Previous: found.GetBody()})
	}
	full := IssueMarker(is.Marker) + "\n" + Truncate(text, IssueRoom(is.Marker),
		"\n\n_Cut to fit GitHub's limit on an issue's length._\n")
	if found == nil {
		created, _, err := c.gh.Issues.Create(ctx, c.owner, c.repo, &gh.IssueRequest{Title: &is.Title, Body: &full, Labels: &is.Labels})
		if err != nil {
			return IssueResult{}, c.issueWrap("opening the issue "+is.Marker, err)
		}
		return IssueResult{Action: Opened, Number: created.GetNumber(), URL: created.GetHTMLURL()}, nil
	}
	res := IssueResult{Action: Unchanged, Number: found.GetNumber(), URL: found.GetHTMLURL(), Previous: found.GetBody()}
	labels := []string{}
	for _, l := range found.Labels {
		labels = append(labels, l.GetName())
	}
	missing := false
	for _, l := range is.Labels {
		if !slices.ContainsFunc(labels, func(s string) bool { return strings.EqualFold(s, l) }) {
			labels, missing = append(labels, l), true
		}
	}
	same := found.GetBody() == full
	if !same && is.Same != nil {
		same = is.Same(found.GetBody(), full)
	}
	if found.GetTitle() == is.Title && same && !missing {
		return res, nil
	}
	req := &gh.IssueRequest{Title: &is.Title, Body: &full}
	if missing {
		req.Labels = &labels
	}
	if _, _, err := c.gh.Issues.Edit(ctx, c.owner, c.repo, found.GetNumber(), req); err != nil {
		return res, c.issueWrap(fmt.Sprintf("updating the issue #%d", found.GetNumber()), err)
	}
	res.Action = Updated
	return res, nil
}

// FindIssue returns the issue with is.Marker as SyncIssue would find it:
// its Number, URL and body (in Previous), with Action Unchanged; the zero
// IssueResult when there is none. It reads what a caller carries from one
// sync to the next before it decides what to say in the next.
func (c *Client) FindIssue(ctx context.Context, is Issue) (IssueResult, error) {
	if !issueMarkerRE().MatchString(is.Marker) {
		return IssueResult{}, fmt.Errorf("github: issue marker %q: expected lower-case letters, digits, '.', '_', '-' and '/'", is.Marker)
	}
	if c.repo == "" {
		return IssueResult{}, fmt.Errorf("github: no repository for the issue %s", is.Marker)
	}
	found, err := c.findIssue(ctx, is)
	if err != nil || found == nil {
		return IssueResult{}, err
	}
	return IssueResult{Action: Unchanged, Number: found.GetNumber(), URL: found.GetHTMLURL(), Previous: found.GetBody()}, nil
}

// issueWrap is wrap for a request that writes an issue, saying what a
// refusal usually means.
func (c *Client) issueWrap(what string, err error) error {
	if describeLimit(err) != "" {
		return c.wrap(what, err) // a rate limit, not a refusal
	}
	switch status(err) {
	case http.StatusForbidden, http.StatusNotFound:
		return fmt.Errorf("%w (the token needs the issues: write permission)", c.wrap(what, err))
	case http.StatusGone:
		return fmt.Errorf("%w (issues are turned off in this repository)", c.wrap(what, err))
	}
	return c.wrap(what, err)
}

// findIssue returns the oldest issue whose body starts with the marker, or
// nil.
func (c *Client) findIssue(ctx context.Context, is Issue) (*gh.Issue, error) {
	line := IssueMarker(is.Marker)
	var best *gh.Issue
	keep := func(cand *gh.Issue) {
		if !cand.IsPullRequest() && strings.HasPrefix(cand.GetBody(), line) && (best == nil || cand.GetNumber() < best.GetNumber()) {
			best = cand
		}
	}
	if len(is.Labels) > 0 {
		opts := &gh.IssueListByRepoOptions{State: "all", Labels: is.Labels[:1], ListOptions: gh.ListOptions{PerPage: 100}}
		for n := 0; n < maxIssuePages; n++ {
			page, resp, err := c.gh.Issues.ListByRepo(ctx, c.owner, c.repo, opts)
			if err != nil {
				return nil, c.wrap("listing the issues labelled "+is.Labels[0], err)
			}
			for _, cand := range page {
				keep(cand)
			}
			if resp == nil || resp.NextPage == 0 || resp.NextPage <= opts.Page {
				break
			}
			opts.Page = resp.NextPage
		}
		if best != nil {
			return best, nil
		}
	}
	q := fmt.Sprintf(`repo:%s/%s is:issue in:body "pinbot:issue %s"`, c.owner, c.repo, is.Marker)
	found, _, err := c.gh.Search.Issues(ctx, q, &gh.SearchOptions{ListOptions: gh.ListOptions{PerPage: 100}})
	if err != nil {
		return nil, c.wrap("searching for the issue "+is.Marker, err)
	}
	for _, cand := range found.Issues {
		keep(cand)
	}
	return best, nil
}
