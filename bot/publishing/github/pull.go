package github

import (
	"context"
	"crypto/sha1"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"unicode/utf8"

	gh "github.com/google/go-github/v60/github"

	"github.com/pinbot-dev/pinbot/internal/escape"
)

// A File is one file of a pull request's commit.
type File struct {
	// Path is slash-separated, relative to the repository root.
	Path string
	// Content is the file as the pull request should have it.
	Content []byte
	// Base is the file as pinbot read it. Sync refuses to commit when the base
	// branch holds something else: the change was planned from another state.
	Base []byte
}

// An Identity is a commit author or committer.
type Identity struct{ Name, Email string }

// A Change is the pull request pinbot wants for one package.
type Change struct {
	Package string // normalised name
	Target  string // the release the new caps admit
	Base    string // the base branch
	Files   []File
	Title   string
	// Body is the pull request's Markdown body; Sync adds a hidden marker
	// naming package, target and base, and keeps it under GitHub's limit.
	Body string
	// Message is the commit message; Sync adds trailers naming package and
	// target, by which it recognises its own commits.
	Message string
	// Draft opens the pull request as a draft (pull-requests.draft). Sync
	// never marks a draft ready for review unless it made it a draft itself
	// because a check failed.
	Draft bool
	// Blocked is set when a check failed: the pull request opens as a draft,
	// an open one that is ready for review becomes a draft, and once a later
	// Change is not blocked, Sync marks ready for review the draft it made
	// (unless Draft). A Body from Describe with Blocked set says so too, in
	// a hidden line, so a caller that passes such a body need not set it.
	Blocked           bool
	Labels            []string
	Reviewers         []string // "login" or "org/team"
	Assignees         []string
	ReopenClosed      bool
	Author, Committer *Identity
}

// Branch returns pinbot's branch for a package and base.
func Branch(base, pkg string) string { return "pinbot/" + base + "/" + pkg }

// An Action is what Sync did.
type Action string

// The actions of a Result.
const (
	Opened    Action = "opened"    // a new pull request
	Updated   Action = "updated"   // the branch moved, or the title or body changed
	Unchanged Action = "unchanged" // everything was already as wanted
	// Respected: a pull request for the same target was closed without
	// merging; pinbot leaves it closed.
	Respected Action = "closed-respected"
	// Conflict: the branch has commits pinbot did not make; pinbot left it
	// alone and commented on the pull request.
	Conflict Action = "conflict"
	// WouldOpen and WouldUpdate are what a dry run would do: open a pull
	// request, or update the open one.
	WouldOpen   Action = "open"
	WouldUpdate Action = "update"
)

// A Result is the outcome of Sync for one package.
type Result struct {
	Package, Target, Branch string
	// Title and Base are the pull request's, as Change had them.
	Title, Base string
	Action      Action
	Number      int
	URL         string
	Draft       bool
	// Detail explains a Respected or Conflict outcome, or a change of the
	// pull request's draft state.
	Detail string
	// Warnings are what went wrong without stopping the pull request, such
	// as a reviewer GitHub would not ask (not a collaborator).
	Warnings []string
}

// ErrStaleCheckout means the files pinbot read differ from the base branch.
var ErrStaleCheckout = errors.New("the checkout differs from the base branch")

// Trailers by which pinbot recognises its commits, and the body markers.
const (
	trailerPackage = "Pinbot-Package: "
	trailerTarget  = "Pinbot-Target: "
	markerPrefix   = "<!-- pinbot:v1 "
	// markerFailureDraft ends the marker line of a pull request that pinbot
	// made a draft because a check failed (marker.go).
	markerFailureDraft = "<!-- pinbot:draft reason=check-failed -->"
	// markerCheckFailed is in a body Describe wrote for a blocked package.
	markerCheckFailed = "<!-- pinbot:check-failed -->"
)

// ResetLabel is the label by which a person hands pinbot's branch back after
// pushing to it: on its next run pinbot replaces the branch with its own
// commit, removes the label and keeps the pull request up to date again.
const ResetLabel = "pinbot:reset"

// MaxBody is the most bytes a pull request body gets; GitHub refuses bodies
// over 65,536 characters.
const MaxBody = 65000

type baseState struct {
	name, sha, tree string
}

// Sync makes the pull request for ch exist as described: it creates or moves
// the branch with one commit on the base branch carrying ch.Files, opens or
// rewrites the pull request, sets its draft state, and adds missing labels,
// reviewers and assignees. It writes nothing that is already right, respects
// a pull request closed without merging for the same target (unless
// ch.ReopenClosed), and never moves a branch that carries someone else's
// commits: it stops and says so once in a comment, until a person hands the
// branch back with the ResetLabel label.
//
// Whose branch: the pull request's body records the commits pinbot put on the
// branch (marker.go), and a head that is none of them is someone else's,
// whatever its message says (an amend keeps pinbot's trailers). Before a move
// the body records the new commit beside the old, and only then does the
// branch move, so a run killed in between leaves a head the record names.
// Without a record (no open pull request yet, or one opened before pinbot
// kept records) a head is pinbot's when it looks it: one parent and pinbot's
// package trailer.
//
// Draft state: a blocked change (a check failed) makes a ready pull request a
// draft, recording in the body that pinbot did; a change that is not blocked
// marks such a draft ready for review again, unless ch.Draft. A draft pinbot
// did not make for a failure stays a draft. The record is written before the
// draft is made and dropped after it is marked ready, so a run killed between
// the two requests leaves what the next run completes.
func (c *Client) Sync(ctx context.Context, ch Change) (Result, error) {
	res := result(ch)
	base, err := c.base(ctx, ch.Base)
	if err != nil {
		return res, err
	}
	for _, f := range ch.Files {
		e, err := c.entryAt(ctx, base.tree, f.Path)
		if err != nil {
			return res, err
		}
		if e == nil || e.GetSHA() != BlobSHA(f.Base) {
			return res, fmt.Errorf("github: %s: %w %s (pinbot read a different %s; run it on a checkout of %s)", f.Path, ErrStaleCheckout, ch.Base, f.Path, ch.Base)
		}
	}
	failed := ch.failed()
	s, err := c.situation(ctx, ch)
	if err != nil {
		return res, err
	}
	if s.closed != nil {
		return respected(res, ch, s.closed), nil
	}
	if s.stopped() {
		return c.conflict(ctx, ch, res, s.open, s.head, s.rec)
	}
	branch, open, rec, reset, head, mine := res.Branch, s.open, s.rec, s.reset, s.head, s.mine
	fresh := false
	if head != nil && mine {
		if fresh, err = c.holds(ctx, head.GetTree().GetSHA(), ch.Files); err != nil {
			return res, err
		}
	}
	// commits is what the body records: the head when it stays (as
	// recorded, when it is), else the new commit and the head it replaces.
	var sha string
	var commits []string
	switch {
	case fresh && slices.Contains(rec, head.GetSHA()):
		sha, commits = head.GetSHA(), rec
	case fresh:
		sha, commits = head.GetSHA(), []string{head.GetSHA()}
	default:
		if sha, err = c.commit(ctx, ch, base); err != nil {
			return res, err
		}
		commits = []string{sha}
		if head != nil && mine {
			commits = append(commits, head.GetSHA())
		}
	}

	res.Action = Unchanged
	if open != nil {
		// The record of the new commit goes in before the branch moves.
		if open, err = c.update(ctx, ch, open, &res, commits); err != nil {
			res.Number, res.URL, res.Draft = open.GetNumber(), open.GetHTMLURL(), open.GetDraft()
			return res, err
		}
	}
	if !fresh {
		foreign, err := c.moveBranch(ctx, ch, branch, sha, head, rec, reset != "")
		if err != nil {
			return res, err
		}
		if foreign != nil {
			return c.conflict(ctx, ch, res, open, foreign, rec)
		}
		res.Action = Updated
	}

	if open == nil {
		pr, err := c.create(ctx, ch, branch, withMarker(ch, []string{sha}, failed))
		switch {
		case err == nil:
			res.Action = Opened
			open = pr
		case unprocessable(err, "already exists"):
			// Opened concurrently, or by a run whose answer was lost.
			prs, lerr := c.pulls(ctx, branch, "open")
			if lerr != nil {
				return res, lerr
			}
			if len(prs) == 0 {
				return res, c.wrap("opening the pull request", err) // the refusal, not the list's nil
			}
			if open, err = c.update(ctx, ch, prs[0], &res, []string{sha}); err != nil {
				res.Number, res.URL, res.Draft = open.GetNumber(), open.GetHTMLURL(), open.GetDraft()
				return res, err
			}
		default:
			return res, c.wrap("opening the pull request", err)
		}
	}
	res.Number, res.URL, res.Draft = open.GetNumber(), open.GetHTMLURL(), open.GetDraft()
	if reset != "" {
		// Last: a run killed before this finds the label and the branch
		// pinbot's, and only removes the label.
		if err := c.removeLabel(ctx, open.GetNumber(), reset); err != nil {
			return res, err
		}
		what := "the branch was pinbot's already"
		if !mine {
			what = "pinbot replaced the branch with its own commit"
		}
		res.Action = Updated
		res.Detail = strings.TrimPrefix(res.Detail+"; "+fmt.Sprintf("handed back with the %s label: %s, and removed the label", ResetLabel, what), "; ")
	}
	res.Warnings, err = c.decorate(ctx, ch, open)
	return res, err
}

// Preview says what Sync would do with ch without writing anything, from the
// same reads and the same decision (situation): leave a pull request closed
// without merging for the same target closed (Respected), leave a branch
// with someone else's commit alone (Conflict, with the open pull request's
// number, URL and draft state), update the open pull request from pinbot's
// branch (WouldUpdate, likewise), or open one (WouldOpen). It does not
// compare the files with the base branch, as Sync does first.
func (c *Client) Preview(ctx context.Context, ch Change) (Result, error) {
	s, err := c.situation(ctx, ch)
	switch {
	case err != nil:
		return Planned(ch), err
	case s.closed != nil:
		return respected(result(ch), ch, s.closed), nil
	case s.stopped():
		return stopped(result(ch), s.open, s.head), nil
	case s.open != nil:
		res := result(ch)
		res.Action, res.Number, res.URL, res.Draft = WouldUpdate, s.open.GetNumber(), s.open.GetHTMLURL(), s.open.GetDraft() || ch.failed()
		return res, nil
	}
	return Planned(ch), nil
}

// Planned is what a dry run that reads no pull request says of ch: it would
// open one, as a draft when ch asks for one or a check failed.
func Planned(ch Change) Result {
	res := result(ch)
	res.Action, res.Draft = WouldOpen, ch.Draft || ch.failed()
	return res
}

// result is the Result for ch before anything is decided.
func result(ch Change) Result {
	return Result{Package: ch.Package, Target: ch.Target, Branch: Branch(ch.Base, ch.Package), Title: ch.Title, Base: ch.Base}
}

// A situation is what Sync reads of ch's branch before it writes anything,
// and decides from: Sync acts on it, Preview reports it.
type situation struct {
	// open is the branch's open pull request, or nil.
	open *gh.PullRequest
	// closed, when set, is the newest pull request from the branch, closed
	// without merging for ch's target (closedFor), which pinbot leaves
	// closed; nothing else is read then.
	closed *gh.PullRequest
	// rec are the commits open's body records as pinbot's on the branch.
	rec []string
	// reset is the name under which open carries ResetLabel, or "".
	reset string
	// head is the branch's head, or nil when there is no branch.
	head *gh.Commit
	// mine is set when there is no head or it is pinbot's to replace.
	mine bool
}

// situation reads ch's branch and its pull requests.
func (c *Client) situation(ctx context.Context, ch Change) (situation, error) {
	var s situation
	branch := Branch(ch.Base, ch.Package)
	prs, err := c.pulls(ctx, branch, "all")
	if err != nil {
		return s, err
	}
	for _, pr := range prs {
		if pr.GetState() == "open" {
			s.open = pr
			break
		}
	}
	if s.open == nil && len(prs) > 0 && !ch.ReopenClosed && closedFor(prs[0], ch) { // newest first
		s.closed = prs[0]
		return s, nil
	}
	if s.open != nil {
		s.rec = recorded(s.open.GetBody(), ch)
	}
	s.reset = resetLabel(s.open)
	if s.head, err = c.head(ctx, branch); err != nil {
		return s, err
	}
	s.mine = s.head == nil || isMine(s.head, s.rec, ch.Package)
	return s, nil
}

// stopped reports whether pinbot leaves the branch alone: its head is
// someone else's, and nobody handed it back with ResetLabel.
func (s situation) stopped() bool { return !s.mine && s.reset == "" }

// closedFor reports whether pr is a pull request for ch's target that was
// closed without merging. What pinbot recorded decides, never what the body
// mentions (release notes, links, a maintainer's note all name versions):
// the marker on the body's first line, which names package, target and base
// (a marker for another package or base is no record of this one); failing
// that (a person rewrote the body, or edited it in the web interface, which
// writes CRLF line ends the strict marker does not read), the title pinbot
// gave it, which names the target, a check failure's note aside.
func closedFor(pr *gh.PullRequest, ch Change) bool {
	if pr.GetState() != "closed" || pr.GetMerged() || pr.MergedAt != nil {
		return false
	}
	if m, ok := parseMarker(pr.GetBody()); ok {
		return m.Package == ch.Package && m.Base == ch.Base && m.Target == ch.Target
	}
	title := func(t string) string { return strings.TrimSuffix(t, failedTitle) }
	return ch.Title != "" && title(pr.GetTitle()) == title(ch.Title)
}

// respected is res for a pull request closed without merging for ch's
// target, which pinbot leaves closed.
func respected(res Result, ch Change, closed *gh.PullRequest) Result {
	res.Action, res.Number, res.URL = Respected, closed.GetNumber(), closed.GetHTMLURL()
	res.Detail = fmt.Sprintf("#%d for %s %s was closed without merging", closed.GetNumber(), ch.Package, ch.Target)
	return res
}

// update brings an open pull request's title, body and draft state to ch, its
// body recording commits as pinbot's on the branch, and returns it as it is
// now.
func (c *Client) update(ctx context.Context, ch Change, open *gh.PullRequest, res *Result, commits []string) (*gh.PullRequest, error) {
	failed, draft, made := ch.failed(), open.GetDraft(), madeDraft(open.GetBody())
	toDraft := failed && !draft
	toReady := !failed && draft && made && !ch.Draft
	// The record stays while the draft is pinbot's and the check fails;
	// it goes in before the conversion, and out after marking ready.
	body := withMarker(ch, commits, failed && (toDraft || made))
	if toReady {
		if err := c.setDraft(ctx, open, false); err != nil {
			return open, err
		}
		open.Draft = gh.Bool(false)
		res.Action, res.Detail = Updated, fmt.Sprintf("marked ready for review: the checks of %s %s pass", ch.Package, ch.Target)
	}
	if open.GetTitle() != ch.Title || open.GetBody() != body {
		edit := &gh.PullRequest{Title: gh.String(ch.Title), Body: gh.String(body)}
		pr, _, err := c.gh.PullRequests.Edit(ctx, c.owner, c.repo, open.GetNumber(), edit)
		if err != nil {
			return open, c.wrap(fmt.Sprintf("updating #%d", open.GetNumber()), err)
		}
		open, res.Action = pr, Updated
	}
	if toDraft {
		if err := c.setDraft(ctx, open, true); err != nil {
			return open, err
		}
		open.Draft = gh.Bool(true)
		res.Action, res.Detail = Updated, fmt.Sprintf("converted to a draft: a check failed for %s", ch.Package)
	}
	return open, nil
}

// moveBranch points branch at the commit sha: it creates the branch when
// head is nil, else moves it (forced: pinbot's commit replaces pinbot's, or
// with reset a person's). When the branch turns out to exist already, it is
// taken over only if its head is pinbot's (or reset); else that head is
// returned and nothing was written.
func (c *Client) moveBranch(ctx context.Context, ch Change, branch, sha string, head *gh.Commit, rec []string, reset bool) (foreign *gh.Commit, err error) {
	ref := &gh.Reference{Ref: gh.String("refs/heads/" + branch), Object: &gh.GitObject{SHA: gh.String(sha)}}
	if head == nil {
		_, _, err = c.gh.Git.CreateRef(ctx, c.owner, c.repo, ref)
		if err == nil {
			return nil, nil
		}
		if !unprocessable(err, "Reference already exists") {
			return nil, c.wrap("creating branch "+branch, err)
		}
		// The branch appeared since we looked: take it over only if it is ours.
		c.log.Info("branch exists already; re-reading it", "branch", branch)
		if head, err = c.head(ctx, branch); err != nil {
			return nil, err
		}
		if head == nil {
			return nil, fmt.Errorf("github: creating branch %s: it exists and does not", branch)
		}
		if !reset && !isMine(head, rec, ch.Package) {
			return head, nil
		}
	}
	if _, _, err := c.gh.Git.UpdateRef(ctx, c.owner, c.repo, ref, true); err != nil {
		return nil, c.wrap("moving branch "+branch, err)
	}
	return nil, nil
}

// base returns the base branch's commit and tree, read once per client.
func (c *Client) base(ctx context.Context, name string) (*baseState, error) {
	if b, ok := c.bases[name]; ok {
		return b, nil
	}
	ref, _, err := c.gh.Git.GetRef(ctx, c.owner, c.repo, "heads/"+name)
	if err != nil {
		if status(err) == http.StatusNotFound {
			return nil, fmt.Errorf("github: base branch %q not found in %s/%s", name, c.owner, c.repo)
		}
		return nil, c.wrap("reading base branch "+name, err)
	}
	sha := ref.GetObject().GetSHA()
	commit, _, err := c.gh.Git.GetCommit(ctx, c.owner, c.repo, sha)
	if err != nil {
		return nil, c.wrap("reading base commit "+sha, err)
	}
	b := &baseState{name: name, sha: sha, tree: commit.GetTree().GetSHA()}
	c.bases[name] = b
	return b, nil
}

// head returns the commit at the tip of branch, or nil if there is no branch.
func (c *Client) head(ctx context.Context, branch string) (*gh.Commit, error) {
	ref, _, err := c.gh.Git.GetRef(ctx, c.owner, c.repo, "heads/"+branch)
	if status(err) == http.StatusNotFound {
		return nil, nil
	}
	if err != nil {
		return nil, c.wrap("reading branch "+branch, err)
	}
	if ref.GetRef() != "refs/heads/"+branch {
		// Old API versions answered a prefix match with a list; a different
		// ref is not our branch.
		return nil, nil
	}
	commit, _, err := c.gh.Git.GetCommit(ctx, c.owner, c.repo, ref.GetObject().GetSHA())
	if err != nil {
		return nil, c.wrap("reading the head of "+branch, err)
	}
	return commit, nil
}

// isMine reports whether head, the tip of pinbot's branch for pkg, is
// pinbot's to replace: one of the commits rec, the open pull request's
// record, names; without a record, a commit that looks like pinbot's (ours).
// A person who amends pinbot's commit keeps its trailers, not its id.
func isMine(head *gh.Commit, rec []string, pkg string) bool {
	if len(rec) > 0 {
		return slices.Contains(rec, head.GetSHA())
	}
	return ours(head, pkg)
}

// ours reports whether commit is a pinbot commit for pkg: one parent and the
// package trailer in its message.
func ours(commit *gh.Commit, pkg string) bool {
	return len(commit.Parents) == 1 && slices.Contains(strings.Split(commit.GetMessage(), "\n"), trailerPackage+pkg)
}

// resetLabel returns the name under which pr carries ResetLabel (labels
// match in any case), or "".
func resetLabel(pr *gh.PullRequest) string {
	if pr == nil {
		return ""
	}
	for _, l := range pr.Labels {
		if strings.EqualFold(l.GetName(), ResetLabel) {
			return l.GetName()
		}
	}
	return ""
}

// removeLabel takes label off pull request n; one already gone is fine.
func (c *Client) removeLabel(ctx context.Context, n int, label string) error {
	_, err := c.gh.Issues.RemoveLabelForIssue(ctx, c.owner, c.repo, n, label)
	if err != nil && status(err) != http.StatusNotFound {
		return c.wrap(fmt.Sprintf("removing the label %s from #%d", label, n), err)
	}
	return nil
}

// holds reports whether the tree has every file with the wanted content.
func (c *Client) holds(ctx context.Context, tree string, files []File) (bool, error) {
	for _, f := range files {
		e, err := c.entryAt(ctx, tree, f.Path)
		if err != nil {
			return false, err
		}
		if e == nil || e.GetSHA() != BlobSHA(f.Content) {
			return false, nil
		}
	}
	return true, nil
}

// entryAt returns the blob entry at path in tree, walking one directory a
// request (trees are cached: they never change), or nil.
func (c *Client) entryAt(ctx context.Context, tree, path string) (*gh.TreeEntry, error) {
	parts := strings.Split(path, "/")
	for i, name := range parts {
		t, ok := c.trees[tree]
		if !ok {
			var err error
			if t, _, err = c.gh.Git.GetTree(ctx, c.owner, c.repo, tree, false); err != nil {
				return nil, c.wrap("reading tree "+tree, err)
			}
			c.trees[tree] = t
		}
		var found *gh.TreeEntry
		for _, e := range t.Entries {
			if e.GetPath() == name {
				found = e
				break
			}
		}
		switch {
		case found == nil:
			return nil, nil
		case i == len(parts)-1:
			if found.GetType() != "blob" {
				return nil, nil
			}
			return found, nil
		case found.GetType() != "tree":
			return nil, nil
		}
		tree = found.GetSHA()
	}
	return nil, nil
}

// Git's modes of tree entries that are not files.
const (
	modeSymlink   = "120000"
	modeSubmodule = "160000"
)

// modeName says what a tree entry of mode is, for errors.
func modeName(mode string) string {
	if mode == modeSymlink {
		return "symbolic link"
	}
	return "submodule"
}

// commit writes a tree and a commit with ch.Files on base and returns the
// commit's SHA. Text files go inline in the tree request; others as blobs.
func (c *Client) commit(ctx context.Context, ch Change, base *baseState) (string, error) {
	var entries []*gh.TreeEntry
	for _, f := range ch.Files {
		mode := "100644"
		if e, err := c.entryAt(ctx, base.tree, f.Path); err == nil && e != nil && e.GetMode() != "" {
			mode = e.GetMode()
		}
		if mode == modeSymlink || mode == modeSubmodule {
			// The rewrite commits a link's target, never the link: new
			// text here would become where the link points.
			return "", fmt.Errorf("github: %s is a %s on %s, not a file: pinbot does not write it", f.Path, modeName(mode), ch.Base)
		}
		e := &gh.TreeEntry{Path: gh.String(f.Path), Mode: gh.String(mode), Type: gh.String("blob")}
		if utf8.Valid(f.Content) {
			e.Content = gh.String(string(f.Content))
		} else {
			blob, _, err := c.gh.Git.CreateBlob(ctx, c.owner, c.repo, &gh.Blob{
				Content: gh.String(base64.StdEncoding.EncodeToString(f.Content)), Encoding: gh.String("base64"),
			})
			if err != nil {
				return "", c.wrap("creating a blob for "+f.Path, err)
			}
			e.SHA = blob.SHA
		}
		entries = append(entries, e)
	}
	tree, _, err := c.gh.Git.CreateTree(ctx, c.owner, c.repo, base.tree, entries)
	if err != nil {
		return "", c.wrap("creating a tree", err)
	}
	commit := &gh.Commit{
		Message: gh.String(withTrailers(ch)),
		Tree:    &gh.Tree{SHA: tree.SHA},
		Parents: []*gh.Commit{{SHA: gh.String(base.sha)}},
	}
	if ch.Author != nil {
		commit.Author = &gh.CommitAuthor{Name: gh.String(ch.Author.Name), Email: gh.String(ch.Author.Email)}
	}
	if ch.Committer != nil {
		commit.Committer = &gh.CommitAuthor{Name: gh.String(ch.Committer.Name), Email: gh.String(ch.Committer.Email)}
	}
	made, _, err := c.gh.Git.CreateCommit(ctx, c.owner, c.repo, commit, nil)
	if err != nil {
		return "", c.wrap("creating a commit", err)
	}
	return made.GetSHA(), nil
}

// pulls lists the pull requests from branch in state ("open", "all"), newest
// first. The owner: prefix is required, else GitHub ignores the filter.
func (c *Client) pulls(ctx context.Context, branch, state string) ([]*gh.PullRequest, error) {
	opts := &gh.PullRequestListOptions{State: state, Head: c.owner + ":" + branch, Sort: "created", Direction: "desc"}
	prs, _, err := c.gh.PullRequests.List(ctx, c.owner, c.repo, opts)
	if err != nil {
		return nil, c.wrap("listing pull requests of "+branch, err)
	}
	var out []*gh.PullRequest
	for _, pr := range prs {
		if pr.GetHead().GetRef() == branch { // in case a server ignores the filter
			out = append(out, pr)
		}
	}
	return out, nil
}

func (c *Client) create(ctx context.Context, ch Change, branch, body string) (*gh.PullRequest, error) {
	pr, _, err := c.gh.PullRequests.Create(ctx, c.owner, c.repo, &gh.NewPullRequest{
		Title: gh.String(ch.Title), Head: gh.String(branch), Base: gh.String(ch.Base),
		Body: gh.String(body), Draft: gh.Bool(ch.Draft || ch.failed()), MaintainerCanModify: gh.Bool(true),
	})
	return pr, err
}

// decorate adds the labels, assignees and reviewers pr lacks. A reviewer who
// has reviewed already is not asked again.
func (c *Client) decorate(ctx context.Context, ch Change, pr *gh.PullRequest) ([]string, error) {
	n := pr.GetNumber()
	have := map[string]bool{}
	for _, l := range pr.Labels {
		have[strings.ToLower(l.GetName())] = true
	}
	var labels []string
	for _, l := range ch.Labels {
		if !have[strings.ToLower(l)] {
			labels = append(labels, l)
		}
	}
	if len(labels) > 0 {
		if _, _, err := c.gh.Issues.AddLabelsToIssue(ctx, c.owner, c.repo, n, labels); err != nil {
			return nil, c.wrap(fmt.Sprintf("labelling #%d", n), err)
		}
	}
	assigned := map[string]bool{}
	for _, a := range pr.Assignees {
		assigned[strings.ToLower(a.GetLogin())] = true
	}
	var assignees []string
	for _, a := range ch.Assignees {
		if !assigned[strings.ToLower(a)] {
			assignees = append(assignees, a)
		}
	}
	if len(assignees) > 0 {
		if _, _, err := c.gh.Issues.AddAssignees(ctx, c.owner, c.repo, n, assignees); err != nil {
			return nil, c.wrap(fmt.Sprintf("assigning #%d", n), err)
		}
	}
	return c.requestReviews(ctx, ch, pr)
}

// requestReviews asks the reviewers pr lacks. GitHub refuses a request
// naming anyone who is not a collaborator (422 "Reviews may only be
// requested from collaborators") whole, without saying who: pinbot then asks
// each alone, and each refusal is a warning, not a failure.
func (c *Client) requestReviews(ctx context.Context, ch Change, pr *gh.PullRequest) ([]string, error) {
	n := pr.GetNumber()
	asked := map[string]bool{strings.ToLower(pr.GetUser().GetLogin()): true} // authors cannot review
	for _, u := range pr.RequestedReviewers {
		asked[strings.ToLower(u.GetLogin())] = true
	}
	for _, t := range pr.RequestedTeams {
		asked[strings.ToLower(c.owner+"/"+t.GetSlug())] = true
	}
	var missing []string
	for _, r := range ch.Reviewers {
		if !asked[strings.ToLower(r)] {
			missing = append(missing, r)
		}
	}
	if len(missing) == 0 {
		return nil, nil
	}
	reviews, _, err := c.gh.PullRequests.ListReviews(ctx, c.owner, c.repo, n, &gh.ListOptions{PerPage: 100})
	if err != nil {
		return nil, c.wrap(fmt.Sprintf("listing reviews of #%d", n), err)
	}
	var req gh.ReviewersRequest
	for _, r := range missing {
		if org, team, ok := strings.Cut(r, "/"); ok {
			if len(reviews) == 0 && strings.EqualFold(org, c.owner) {
				req.TeamReviewers = append(req.TeamReviewers, team)
			}
			continue
		}
		if !slices.ContainsFunc(reviews, func(rv *gh.PullRequestReview) bool { return strings.EqualFold(rv.GetUser().GetLogin(), r) }) {
			req.Reviewers = append(req.Reviewers, r)
		}
	}
	if len(req.Reviewers)+len(req.TeamReviewers) == 0 {
		return nil, nil
	}
	_, _, err = c.gh.PullRequests.RequestReviewers(ctx, c.owner, c.repo, n, req)
	if err == nil {
		return nil, nil
	}
	if !unprocessable(err, notCollaborator) {
		return nil, c.wrap(fmt.Sprintf("requesting reviews on #%d", n), err)
	}
	var one []gh.ReviewersRequest
	for _, r := range req.Reviewers {
		one = append(one, gh.ReviewersRequest{Reviewers: []string{r}})
	}
	for _, t := range req.TeamReviewers {
		one = append(one, gh.ReviewersRequest{TeamReviewers: []string{t}})
	}
	var warnings []string
	for _, r := range one {
		if len(one) > 1 {
			_, _, err = c.gh.PullRequests.RequestReviewers(ctx, c.owner, c.repo, n, r)
		}
		switch {
		case err == nil:
		case unprocessable(err, notCollaborator):
			who := strings.Join(r.Reviewers, "")
			if len(r.TeamReviewers) > 0 {
				who = c.owner + "/" + r.TeamReviewers[0]
			}
			warnings = append(warnings, fmt.Sprintf("#%d: GitHub would not request a review from %s: reviews may only be requested from collaborators "+
				"(give them access to %s/%s, or drop them from pull-requests.reviewers)", n, who, c.owner, c.repo))
		default:
			return warnings, c.wrap(fmt.Sprintf("requesting reviews on #%d", n), err)
		}
	}
	return warnings, nil
}

// notCollaborator is GitHub's 422 for a review request naming someone who
// is not a collaborator of the repository.
const notCollaborator = "Reviews may only be requested from collaborators"

// conflict handles a branch whose head is someone else's: pinbot leaves the
// branch and the pull request alone and says so once on the pull request,
// with how to hand the branch back (ResetLabel), which it creates for the
// purpose. Once per hand-over, not per release: the comment's hidden mark
// names the last commit pinbot recorded, which stays until the branch is
// handed back. Only pinbot's own comments count (the pull request's author,
// or a bot account: an App or a workflow token, which only the repository's
// admins install), so that nobody else's comment can silence it.
func (c *Client) conflict(ctx context.Context, ch Change, res Result, open *gh.PullRequest, head *gh.Commit, rec []string) (Result, error) {
	res = stopped(res, open, head)
	if open == nil {
		return res, nil
	}
	who, sha := pusher(head)
	since := "none"
	if len(rec) > 0 {
		since = rec[0]
	}
	mark := fmt.Sprintf("<!-- pinbot:stopped since=%s -->", since)
	said, err := c.commented(ctx, open, mark)
	if err != nil || said {
		return res, err
	}
	if w := c.createResetLabel(ctx); w != "" {
		res.Warnings = append(res.Warnings, w)
	}
	var files []string
	for _, f := range ch.Files {
		files = append(files, escape.Code(f.Path))
	}
	// Names, the branch and the commit's author come from outside: code
	// spans and escaped text, so that none is a link, a mention or HTML.
	body := fmt.Sprintf("%s\npinbot has stopped updating this pull request: %s has a commit pinbot did not make (head %s by %s), "+
		"and pinbot does not overwrite other people's work. It will not move the branch, edit this pull request or comment here again, "+
		"also when newer releases of **%s** come out (the caps would now admit **%s**).\n\n"+
		"- **To keep the changes**, finish this pull request yourselves; to take the newest caps too, change them in %s (%s does it).\n"+
		"- **To hand the branch back to pinbot**, add the label %s to this pull request. On its next run pinbot replaces the branch "+
		"with its own commit (the commits pushed to it are dropped), removes the label and keeps this pull request up to date again.\n",
		mark, escape.Code(res.Branch), escape.Code(sha), escape.Markdown(who), escape.Markdown(ch.Package), escape.Markdown(ch.Target),
		strings.Join(files, ", "), escape.Code("pinbot check --package "+ch.Package+" --write"), escape.Code(ResetLabel))
	if _, _, err := c.gh.Issues.CreateComment(ctx, c.owner, c.repo, open.GetNumber(), &gh.IssueComment{Body: gh.String(body)}); err != nil {
		return res, c.wrap(fmt.Sprintf("commenting on #%d", open.GetNumber()), err)
	}
	res.Detail += fmt.Sprintf(" (said so on #%d)", open.GetNumber())
	return res, nil
}

// stopped is res for a branch whose head is someone else's: the Conflict,
// with the open pull request's number, URL and draft state, and a Detail
// naming the commit and who pushed it.
func stopped(res Result, open *gh.PullRequest, head *gh.Commit) Result {
	who, sha := pusher(head)
	res.Action = Conflict
	res.Detail = fmt.Sprintf("%s has a commit pinbot did not make (%s by %s); pinbot stopped updating it", res.Branch, sha, who)
	if open == nil {
		res.Detail += " (no open pull request to comment on; delete the branch to let pinbot start it afresh)"
		return res
	}
	res.Detail += fmt.Sprintf(" until the %s label hands it back", ResetLabel)
	res.Number, res.URL, res.Draft = open.GetNumber(), open.GetHTMLURL(), open.GetDraft()
	return res
}

// pusher returns who put head on the branch and its abbreviated id. The
// committer is who pushed an amend or a cherry-pick; the author wrote the
// commit.
func pusher(head *gh.Commit) (who, sha string) {
	who = head.GetCommitter().GetName()
	if who == "" {
		who = head.GetAuthor().GetName()
	}
	sha = head.GetSHA()
	if len(sha) > 12 {
		sha = sha[:12]
	}
	return who, sha
}

// commented reports whether pinbot has commented on pr with mark: a comment
// holding it by pr's author (pinbot opened it) or by a bot account. It reads
// every page of the comments.
func (c *Client) commented(ctx context.Context, pr *gh.PullRequest, mark string) (bool, error) {
	author := pr.GetUser().GetLogin()
	opts := &gh.IssueListCommentsOptions{ListOptions: gh.ListOptions{PerPage: 100}}
	for page := 0; page < maxCommentPages; page++ {
		comments, resp, err := c.gh.Issues.ListComments(ctx, c.owner, c.repo, pr.GetNumber(), opts)
		if err != nil {
			return false, c.wrap(fmt.Sprintf("listing comments of #%d", pr.GetNumber()), err)
		}
		for _, cm := range comments {
			u := cm.GetUser()
			if (strings.EqualFold(u.GetLogin(), author) || u.GetType() == "Bot") && strings.Contains(cm.GetBody(), mark) {
				return true, nil
			}
		}
		if resp.NextPage == 0 {
			return false, nil
		}
		opts.Page = resp.NextPage
	}
	return false, nil
}

// maxCommentPages bounds the comments read on one pull request (100 a page).
const maxCommentPages = 50

// createResetLabel creates the repository's ResetLabel, so that a person can
// pick it from the list of labels; one that exists already is fine. A
// failure is a warning: the person can create it.
func (c *Client) createResetLabel(ctx context.Context) string {
	_, _, err := c.gh.Issues.CreateLabel(ctx, c.owner, c.repo, &gh.Label{Name: gh.String(ResetLabel), Color: gh.String("fbca04"),
		Description: gh.String("Hands pinbot's branch back: its next run replaces the branch with pinbot's own commit")})
	if err == nil || unprocessable(err, "already_exists") {
		return ""
	}
	return fmt.Sprintf("creating the label %s failed (create it to hand the branch back): %v", ResetLabel, c.wrap("creating a label", err))
}

// BlobSHA returns the git object id of a blob with content data, as
// `git hash-object` computes it.
func BlobSHA(data []byte) string {
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00", len(data))
	h.Write(data)
	return fmt.Sprintf("%x", h.Sum(nil))
}

// withTrailers returns ch's commit message with pinbot's trailers.
func withTrailers(ch Change) string {
	msg := strings.TrimRight(ch.Message, "\n")
	return msg + "\n\n" + trailerPackage + ch.Package + "\n" + trailerTarget + ch.Target + "\n"
}

// failed reports whether a check failed for ch's package.
func (ch Change) failed() bool {
	return ch.Blocked || strings.Contains(ch.Body, markerCheckFailed)
}

// madeDraft reports whether a pull request body records that pinbot made the
// pull request a draft because a check failed.
func madeDraft(body string) bool {
	m, ok := parseMarker(body)
	return ok && m.FailureDraft
}

// withMarker returns ch's body with the hidden marker first, cut to MaxBody:
// the marker records commits as pinbot's on the branch and, with
// failureDraft, that pinbot made the pull request a draft because a check
// failed.
func withMarker(ch Change, commits []string, failureDraft bool) string {
	marker := marker{Package: ch.Package, Target: ch.Target, Base: ch.Base, Commits: commits, FailureDraft: failureDraft}.String() + "\n"
	return marker + Truncate(ch.Body, MaxBody-len(marker), "\n\n_The rest of this report was cut to fit GitHub's size limit; run `pinbot check --package "+ch.Package+"` for all of it._\n")
}

// Truncate returns s if it has at most max bytes, else s cut at a line
// boundary (or a rune boundary for one long line) with note appended, the whole
// within max bytes.
func Truncate(s string, max int, note string) string {
	if len(s) <= max {
		return s
	}
	keep := max - len(note)
	if keep <= 0 {
		return note[:max]
	}
	cut := s[:keep]
	if i := strings.LastIndexByte(cut, '\n'); i > keep/2 {
		cut = cut[:i+1]
	}
	for !utf8.ValidString(cut) {
		cut = cut[:len(cut)-1]
	}
	return cut + note
}
