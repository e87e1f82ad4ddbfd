package fakes

import (
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// GitHub is a stateful fake of the GitHub REST API parts pinbot uses: repos
// with a default branch, the git data API (blobs, trees, commits, refs), pull
// requests (open, closed, merged, draft) with labels, assignees, requested
// reviewers and reviews, issue comments, and GitHub App installation tokens;
// and of the GraphQL API, the two mutations that change a pull request's draft
// state (github_graphql.go). It answers with GitHub's JSON shapes and status
// codes (201 on create, 404 and 422 bodies with documentation_url, GraphQL
// errors with 200), sends x-ratelimit-* headers, and can inject faults
// (secondary rate limits as 403 or 429 with Retry-After) and "kill" a client
// after N calls. It serves both a github.com-style base (/repos/…, /graphql)
// and a GitHub Enterprise Server-style one (/api/v3/repos/…, /api/graphql).
type GitHub struct {
	*httptest.Server

	mu        sync.Mutex
	repos     map[string]*ghRepo
	tokens    map[string]string // token -> login
	apps      map[int64]*ghApp
	faults    []ghFault
	calls     int
	killAfter int
	kill      func()
	requests  []GitHubRequest
	// creds are the credentials requests carried (Authorization without
	// its scheme), each once, in the order first seen.
	creds     []string
	remaining int
	// users are the accounts that are users, not organisations, and
	// instTokens the installation each minted token belongs to
	// (github_fleet.go).
	users      map[string]bool
	instTokens map[string]int64
	// outsiders are logins and org/team names that are no collaborators:
	// a review request naming one is refused whole, as GitHub does.
	outsiders map[string]bool
}

// A GitHubRequest is a request the fake received. Header holds every header but
// Authorization.
type GitHubRequest struct {
	Method, Path, Query, Body string
	Header                    http.Header
	Status                    int
}

type ghFault struct {
	method string
	path   *regexp.Regexp
	fault  Fault
}

type ghApp struct {
	id, installation int64
	key              *rsa.PublicKey
	repo             string
	minted           int
}

type ghRepo struct {
	id                         int // for node ids, unique in the fake
	owner, name, defaultBranch string
	git                        *gitStore
	refs                       map[string]string // "refs/heads/main" -> commit
	pulls                      []*ghPull
	comments                   map[int][]ghComment
	reviews                    map[int][]string
	// labels are the repository's labels, by lower-case name: GitHub
	// creates one when an issue is first labelled with it.
	labels map[string]string
	// meta is what listings show (github_fleet.go); issues share their
	// numbers with pulls, as on GitHub.
	meta   RepoMeta
	issues []*ghIssue
}

// A ghComment is a comment on an issue or pull request.
type ghComment struct{ Body, User string }

type ghPull struct {
	Number                     int
	State                      string
	Merged                     bool
	Title, Body, Head, Base    string
	Draft                      bool
	User                       string
	Labels, Assignees          []string
	Reviewers, Teams           []string
	HeadSHA                    string
	MaintainerCanModify        bool
	Created, Updated, ClosedAt string
	MergedAt, MergeCommitSHA   string
	baseSHAAtOpen              string
}

// A PullInfo is a snapshot of a fake pull request.
type PullInfo struct {
	Number                       int
	State                        string // open or closed
	Merged, Draft                bool
	Title, Body, Head, Base      string
	Labels, Assignees, Reviewers []string // Reviewers holds users and "org/team"
}

// NewGitHub starts a fake GitHub that is closed when the test ends.
func NewGitHub(t testing.TB) *GitHub {
	g := &GitHub{repos: map[string]*ghRepo{}, tokens: map[string]string{}, apps: map[int64]*ghApp{}, remaining: 5000,
		users: map[string]bool{}, instTokens: map[string]int64{}, outsiders: map[string]bool{}}
	g.Server = httptest.NewServer(http.HandlerFunc(g.serve))
	t.Cleanup(g.Close)
	return g
}

// AddToken makes token authenticate as login.
func (g *GitHub) AddToken(token, login string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.tokens[token] = login
}

// AddApp registers a GitHub App with its public key and one installation on
// repo ("owner/name").
func (g *GitHub) AddApp(id int64, key *rsa.PublicKey, installation int64, repo string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.apps[id] = &ghApp{id: id, installation: installation, key: key, repo: repo}
}

// AddRepo creates repository full ("owner/name") whose default branch holds
// one commit with files (path -> content).
func (g *GitHub) AddRepo(full, defaultBranch string, files map[string]string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	owner, name, _ := strings.Cut(full, "/")
	r := &ghRepo{id: len(g.repos) + 1, owner: owner, name: name, defaultBranch: defaultBranch, git: newGitStore(),
		refs: map[string]string{}, comments: map[int][]ghComment{}, reviews: map[int][]string{}, labels: map[string]string{}}
	flat := map[string]flatEntry{}
	for p, c := range files {
		flat[p] = flatEntry{Mode: "100644", Type: "blob", SHA: r.git.putBlob([]byte(c))}
	}
	who := ident{Name: "Maintainer", Email: "maintainer@example.com", Date: "2026-08-01T10:00:00Z"}
	sha := r.git.putCommit(&gitCommit{Tree: r.git.build(flat), Message: "Initial commit", Author: who, Committer: who})
	r.refs["refs/heads/"+defaultBranch] = sha
	g.repos[full] = r
}

// AddTag tags the head of repo's default branch as tag (a lightweight
// tag: refs/tags/TAG).
func (g *GitHub) AddTag(repo, tag string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	r := g.repos[repo]
	r.refs["refs/tags/"+tag] = r.refs["refs/heads/"+r.defaultBranch]
}

// Outsider makes login (a user, or "org/team") no collaborator of any
// repository: GitHub refuses to request its review with a 422.
func (g *GitHub) Outsider(login string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.outsiders[strings.ToLower(login)] = true
}

// Branch returns the commit at a branch of repo, or "".
func (g *GitHub) Branch(repo, branch string) string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.repos[repo].refs["refs/heads/"+branch]
}

// Files returns the files (path -> content) at the tip of a branch of repo.
func (g *GitHub) Files(repo, branch string) map[string]string {
	g.mu.Lock()
	defer g.mu.Unlock()
	r := g.repos[repo]
	c := r.git.commits[r.refs["refs/heads/"+branch]]
	if c == nil {
		return nil
	}
	return r.git.files(c.Tree)
}

// Commit returns the message, parents and author name of a commit of repo.
func (g *GitHub) Commit(repo, sha string) (message string, parents []string, author string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	c := g.repos[repo].git.commits[sha]
	if c == nil {
		return "", nil, ""
	}
	return c.Message, c.Parents, c.Author.Name
}

// Push adds a commit by author on top of branch that sets files, as a person
// pushing to the branch would.
func (g *GitHub) Push(repo, branch, author, message string, files map[string]string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	r := g.repos[repo]
	parent := r.git.commits[r.refs["refs/heads/"+branch]]
	who := ident{Name: author, Email: author + "@example.com", Date: "2026-08-25T10:00:00Z"}
	sha := r.git.putCommit(&gitCommit{Tree: r.git.withFiles(parent.Tree, files), Message: message, Parents: []string{parent.SHA}, Author: who, Committer: who})
	r.refs["refs/heads/"+branch] = sha
}

// AddLink adds a commit on top of branch that makes name a symbolic link to
// target (a mode 120000 entry whose blob holds target, as git stores a
// link), as a person committing the link would.
func (g *GitHub) AddLink(repo, branch, name, target string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	r := g.repos[repo]
	parent := r.git.commits[r.refs["refs/heads/"+branch]]
	flat := map[string]flatEntry{}
	r.git.flatten(parent.Tree, "", flat)
	flat[name] = flatEntry{Mode: "120000", Type: "blob", SHA: r.git.putBlob([]byte(target))}
	who := ident{Name: "Maintainer", Email: "maintainer@example.com", Date: "2026-08-01T10:05:00Z"}
	sha := r.git.putCommit(&gitCommit{Tree: r.git.build(flat), Message: "Link " + name, Parents: []string{parent.SHA}, Author: who, Committer: who})
	r.refs["refs/heads/"+branch] = sha
}

// Entry returns the mode and blob id of the file at name at the tip of a
// branch of repo, or "" and "" when there is none. Files says what the blob
// holds; a link (mode 120000) holds its target.
func (g *GitHub) Entry(repo, branch, name string) (mode, sha string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	r := g.repos[repo]
	c := r.git.commits[r.refs["refs/heads/"+branch]]
	if c == nil {
		return "", ""
	}
	flat := map[string]flatEntry{}
	r.git.flatten(c.Tree, "", flat)
	e := flat[name]
	return e.Mode, e.SHA
}

// withFiles returns the tree that is tree with files (path -> content) set,
// as a person's commit of them makes it.
func (g *gitStore) withFiles(tree string, files map[string]string) string {
	flat := map[string]flatEntry{}
	g.flatten(tree, "", flat)
	for p, c := range files {
		flat[p] = flatEntry{Mode: "100644", Type: "blob", SHA: g.putBlob([]byte(c))}
	}
	return g.build(flat)
}

// Amend replaces the commit at the tip of branch with one that has the same
// parents, message and author but sets files and names committer as the
// committer, as `git commit --amend` and a force push by that person do.
func (g *GitHub) Amend(repo, branch, committer string, files map[string]string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	r := g.repos[repo]
	old := r.git.commits[r.refs["refs/heads/"+branch]]
	who := ident{Name: committer, Email: committer + "@example.com", Date: "2026-08-25T11:00:00Z"}
	sha := r.git.putCommit(&gitCommit{Tree: r.git.withFiles(old.Tree, files), Message: old.Message, Parents: slices.Clone(old.Parents), Author: old.Author, Committer: who})
	r.refs["refs/heads/"+branch] = sha
}

// MergePull squash-merges pull request n of repo: the base branch gets a commit
// with the head's tree, and the pull request is closed as merged.
func (g *GitHub) MergePull(repo string, n int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	r := g.repos[repo]
	p := r.pull(n)
	head := r.git.commits[r.refs["refs/heads/"+p.Head]]
	who := ident{Name: "Maintainer", Email: "maintainer@example.com", Date: "2026-08-26T10:00:00Z"}
	sha := r.git.putCommit(&gitCommit{Tree: head.Tree, Message: p.Title + fmt.Sprintf(" (#%d)", n),
		Parents: []string{r.refs["refs/heads/"+p.Base]}, Author: who, Committer: who})
	r.refs["refs/heads/"+p.Base] = sha
	p.State, p.Merged, p.MergedAt, p.ClosedAt, p.MergeCommitSHA = "closed", true, stamp(), stamp(), sha
}

// ClosePull closes pull request n of repo without merging.
func (g *GitHub) ClosePull(repo string, n int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	p := g.repos[repo].pull(n)
	p.State, p.ClosedAt = "closed", stamp()
}

// EditPull sets the title and body of pull request n of repo, as a person
// does in the web interface (which writes CRLF line ends: pass them in body).
func (g *GitHub) EditPull(repo string, n int, title, body string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	p := g.repos[repo].pull(n)
	p.Title, p.Body, p.Updated = title, body, stamp()
}

// SetDraft converts pull request n of repo to a draft or marks it ready for
// review, as a person does in the web interface.
func (g *GitHub) SetDraft(repo string, n int, draft bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	p := g.repos[repo].pull(n)
	p.Draft, p.Updated = draft, stamp()
}

// Review records a review by login on pull request n, which drops login from
// the requested reviewers as GitHub does.
func (g *GitHub) Review(repo string, n int, login string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	r := g.repos[repo]
	r.reviews[n] = append(r.reviews[n], login)
	p := r.pull(n)
	p.Reviewers = slices.DeleteFunc(p.Reviewers, func(s string) bool { return strings.EqualFold(s, login) })
}

// Pulls returns snapshots of repo's pull requests, oldest first.
func (g *GitHub) Pulls(repo string) []PullInfo {
	g.mu.Lock()
	defer g.mu.Unlock()
	var out []PullInfo
	for _, p := range g.repos[repo].pulls {
		rev := slices.Clone(p.Reviewers)
		for _, t := range p.Teams {
			rev = append(rev, g.repos[repo].owner+"/"+t)
		}
		out = append(out, PullInfo{Number: p.Number, State: p.State, Merged: p.Merged, Draft: p.Draft, Title: p.Title, Body: p.Body,
			Head: p.Head, Base: p.Base, Labels: slices.Clone(p.Labels), Assignees: slices.Clone(p.Assignees), Reviewers: rev})
	}
	return out
}

// Comments returns the bodies of the comments on issue or pull request n.
func (g *GitHub) Comments(repo string, n int) []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	var out []string
	for _, c := range g.repos[repo].comments[n] {
		out = append(out, c.Body)
	}
	return out
}

// Comment posts a comment by login on issue or pull request n, as a person
// would.
func (g *GitHub) Comment(repo string, n int, login, body string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	r := g.repos[repo]
	r.comments[n] = append(r.comments[n], ghComment{Body: body, User: login})
}

// Label adds label to pull request n of repo, as a person does in the web
// interface (creating the repository's label if it has none of that name).
func (g *GitHub) Label(repo string, n int, label string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	r := g.repos[repo]
	p := r.pull(n)
	if !slices.ContainsFunc(p.Labels, func(s string) bool { return strings.EqualFold(s, label) }) {
		p.Labels = append(p.Labels, label)
	}
	r.useLabels([]string{label})
}

// RepoLabels returns the names of repo's labels, sorted.
func (g *GitHub) RepoLabels(repo string) []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	var out []string
	for _, l := range g.repos[repo].labels {
		out = append(out, l)
	}
	slices.Sort(out)
	return out
}

// useLabels creates the repository labels of names it lacks, as GitHub does
// when an issue is labelled with a name it does not know.
func (r *ghRepo) useLabels(names []string) {
	for _, l := range names {
		if _, ok := r.labels[strings.ToLower(l)]; !ok {
			r.labels[strings.ToLower(l)] = l
		}
	}
}

// Fail queues faults for the next requests whose method is method (any when
// "") and whose path matches the regular expression pathRE.
func (g *GitHub) Fail(method, pathRE string, fs ...Fault) {
	g.mu.Lock()
	defer g.mu.Unlock()
	re := regexp.MustCompile(pathRE)
	for _, f := range fs {
		g.faults = append(g.faults, ghFault{method: method, path: re, fault: f})
	}
}

// SecondaryLimitBody is GitHub's answer to a secondary rate limit.
const SecondaryLimitBody = `{"message":"You have exceeded a secondary rate limit. Please wait a few minutes before you try again.","documentation_url":"https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits"}`

// SecondaryLimit is a secondary rate limit answered with status (403 or 429)
// and Retry-After: 60.
func SecondaryLimit(status int) Fault {
	return Fault{Status: status, Header: map[string]string{"Retry-After": "60", "Content-Type": "application/json; charset=utf-8"}, Body: SecondaryLimitBody}
}

// KillAfter calls kill once the n-th request (faults not counted) has been
// handled, before its answer is written: a process killed between two calls.
// n <= 0 disables it.
func (g *GitHub) KillAfter(n int, kill func()) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.calls, g.killAfter, g.kill = 0, n, kill
}

// Calls returns the number of requests handled since the last KillAfter.
func (g *GitHub) Calls() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.calls
}

// Credentials returns every credential requests carried (the token or the
// App's JWT of an Authorization header, without its scheme), each once, in
// the order first seen: what the request log leaves out.
func (g *GitHub) Credentials() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Clone(g.creds)
}

// Requests returns every request received.
func (g *GitHub) Requests() []GitHubRequest {
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Clone(g.requests)
}

func stamp() string { return time.Now().UTC().Format(time.RFC3339) }

// apiError is GitHub's error body.
type apiError struct {
	Message string           `json:"message"`
	Errors  []map[string]any `json:"errors,omitempty"`
	DocURL  string           `json:"documentation_url"`
	Status  string           `json:"status,omitempty"`
}

type answer struct {
	status int
	body   any
}

func errAnswer(status int, msg, doc string, errs ...map[string]any) answer {
	return answer{status, apiError{Message: msg, Errors: errs, DocURL: "https://docs.github.com/rest/" + doc, Status: strconv.Itoa(status)}}
}

func validation(msg, doc string) answer {
	return errAnswer(http.StatusUnprocessableEntity, "Validation Failed", doc, map[string]any{"resource": "PullRequest", "code": "custom", "message": msg})
}

var (
	reRepo     = regexp.MustCompile(`^/repos/([^/]+)/([^/]+)(/.*)?$`)
	reToken    = regexp.MustCompile(`^/app/installations/(\d+)/access_tokens$`)
	reNumbered = regexp.MustCompile(`^/(pulls|issues)/(\d+)(/[a-z_]+)?$`)
	reLabel    = regexp.MustCompile(`^/issues/(\d+)/labels/(.+)$`)
)

func (g *GitHub) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	hdr := r.Header.Clone()
	hdr.Del("Authorization")
	req := GitHubRequest{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Body: string(body), Header: hdr}

	g.mu.Lock()
	if _, cred, ok := strings.Cut(r.Header.Get("Authorization"), " "); ok && !slices.Contains(g.creds, cred) {
		g.creds = append(g.creds, cred)
	}
	var fault *Fault
	for i, f := range g.faults {
		if (f.method == "" || f.method == r.Method) && f.path.MatchString(r.URL.Path) {
			fault = &f.fault
			g.faults = slices.Delete(g.faults, i, i+1)
			break
		}
	}
	var a answer
	if fault == nil {
		a = g.route(r, body)
		g.calls++
		g.remaining = max(g.remaining-1, 1)
	}
	kill := g.kill != nil && g.killAfter > 0 && g.calls == g.killAfter && fault == nil
	remaining := g.remaining
	if fault != nil {
		req.Status = max(fault.Status, 200)
	} else {
		req.Status = a.status
	}
	g.requests = append(g.requests, req)
	g.mu.Unlock()

	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("X-GitHub-Api-Version-Selected", "2022-11-28")
	h.Set("X-RateLimit-Limit", "5000")
	h.Set("X-RateLimit-Remaining", strconv.Itoa(remaining))
	h.Set("X-RateLimit-Used", strconv.Itoa(5000-remaining))
	h.Set("X-RateLimit-Reset", strconv.FormatInt(time.Now().Add(time.Hour).Unix(), 10))
	if isGraphQL(r.URL.Path) {
		h.Set("X-RateLimit-Resource", "graphql")
	} else {
		h.Set("X-RateLimit-Resource", "core")
	}
	if fault != nil {
		for k, v := range fault.Header {
			h.Set(k, v)
		}
		w.WriteHeader(max(fault.Status, http.StatusOK))
		io.WriteString(w, fault.Body)
		return
	}
	if kill {
		g.kill()
	}
	if p, ok := a.body.(paged); ok {
		if p.link != "" {
			h.Set("Link", p.link)
		}
		a.body = p.items
	}
	w.WriteHeader(a.status)
	if a.body != nil {
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		enc.Encode(a.body)
	}
}

// route answers a request; g.mu is held.
func (g *GitHub) route(r *http.Request, body []byte) answer {
	auth := r.Header.Get("Authorization")
	tok := strings.TrimPrefix(strings.TrimPrefix(auth, "Bearer "), "token ")
	path := r.URL.Path
	if strings.HasPrefix(path, "/api/v3/") { // GitHub Enterprise Server
		path = strings.TrimPrefix(path, "/api/v3")
	}
	if isGraphQL(r.URL.Path) {
		if r.Method != http.MethodPost {
			return errAnswer(http.StatusNotFound, "Not Found", "")
		}
		return g.graphQL(tok, body)
	}
	if m := reToken.FindStringSubmatch(path); m != nil && r.Method == http.MethodPost {
		return g.mintToken(tok, m[1])
	}
	if a, ok := g.accountRoute(r, path, tok); ok {
		return a
	}
	m := reRepo.FindStringSubmatch(path)
	if m == nil {
		return errAnswer(http.StatusNotFound, "Not Found", "")
	}
	full, rest := m[1]+"/"+m[2], m[3]
	if rest == "/installation" && r.Method == http.MethodGet {
		return g.installation(tok, full)
	}
	login, ok := g.tokens[tok]
	if !ok || tok == "" {
		return errAnswer(http.StatusUnauthorized, "Bad credentials", "")
	}
	repo := g.repos[full]
	if repo == nil {
		return errAnswer(http.StatusNotFound, "Not Found", "repos/repos#get-a-repository")
	}
	var in map[string]any
	if len(body) > 0 {
		if err := json.Unmarshal(body, &in); err != nil && !strings.HasPrefix(strings.TrimSpace(string(body)), "[") {
			return errAnswer(http.StatusBadRequest, "Problems parsing JSON", "")
		}
	}
	switch {
	case rest == "" && r.Method == http.MethodGet:
		return answer{200, repo.json()}
	case strings.HasPrefix(rest, "/git/"):
		return g.gitRoute(repo, r.Method, strings.TrimPrefix(rest, "/git"), r.URL.Query().Get("recursive") != "", in, login)
	case rest == "/pulls" && r.Method == http.MethodGet:
		return g.listPulls(repo, r)
	case rest == "/pulls" && r.Method == http.MethodPost:
		return g.createPull(repo, in, login)
	case rest == "/issues" && r.Method == http.MethodGet:
		return g.listIssues(repo, r)
	case rest == "/issues" && r.Method == http.MethodPost:
		return g.createIssue(repo, in, login)
	case rest == "/labels" && r.Method == http.MethodPost:
		return createLabel(repo, in)
	}
	if m := reLabel.FindStringSubmatch(rest); m != nil && r.Method == http.MethodDelete {
		num, _ := strconv.Atoi(m[1])
		return removeLabel(repo, num, m[2])
	}
	n := reNumbered.FindStringSubmatch(rest)
	if n == nil {
		return errAnswer(http.StatusNotFound, "Not Found", "")
	}
	num, _ := strconv.Atoi(n[2])
	if is := repo.issue(num); is != nil && n[1] == "issues" {
		return g.issueRoute(repo, is, n[3], r.Method, in, body)
	}
	p := repo.pull(num)
	if p == nil {
		return errAnswer(http.StatusNotFound, "Not Found", "pulls/pulls#get-a-pull-request")
	}
	switch n[1] + n[3] + " " + r.Method {
	case "pulls GET":
		return answer{200, repo.pullJSON(p, true)}
	case "pulls PATCH":
		if v, ok := in["title"].(string); ok {
			p.Title = v
		}
		if v, ok := in["body"].(string); ok {
			if len(v) > 65536 {
				return validation("body is too long (maximum is 65536 characters)", "pulls/pulls#update-a-pull-request")
			}
			p.Body = v
		}
		if v, ok := in["state"].(string); ok && !p.Merged {
			p.State = v
		}
		p.Updated = stamp()
		return answer{200, repo.pullJSON(p, true)}
	case "issues/labels POST":
		var labels []string
		if err := json.Unmarshal(body, &labels); err != nil {
			labels = asStrings(in["labels"])
		}
		for _, l := range labels {
			if !slices.ContainsFunc(p.Labels, func(s string) bool { return strings.EqualFold(s, l) }) {
				p.Labels = append(p.Labels, l)
			}
		}
		repo.useLabels(labels)
		return answer{200, labelsJSON(p.Labels)}
	case "issues/assignees POST":
		for _, a := range asStrings(in["assignees"]) {
			if !slices.Contains(p.Assignees, a) {
				p.Assignees = append(p.Assignees, a)
			}
		}
		return answer{201, repo.pullJSON(p, false)}
	case "pulls/requested_reviewers POST":
		users, teams := asStrings(in["reviewers"]), asStrings(in["team_reviewers"])
		if slices.ContainsFunc(users, func(s string) bool { return strings.EqualFold(s, p.User) }) {
			return validation("Review cannot be requested from pull request author.", "pulls/review-requests#request-reviewers-for-a-pull-request")
		}
		for _, u := range users {
			if g.outsiders[strings.ToLower(u)] {
				return errAnswer(http.StatusUnprocessableEntity, "Reviews may only be requested from collaborators. One or more of the users or teams you specified is not a collaborator of the "+
					repo.owner+"/"+repo.name+" repository.", "pulls/review-requests#request-reviewers-for-a-pull-request")
			}
		}
		for _, t := range teams {
			if g.outsiders[strings.ToLower(repo.owner+"/"+t)] {
				return errAnswer(http.StatusUnprocessableEntity, "Reviews may only be requested from collaborators. One or more of the users or teams you specified is not a collaborator of the "+
					repo.owner+"/"+repo.name+" repository.", "pulls/review-requests#request-reviewers-for-a-pull-request")
			}
		}
		for _, u := range users {
			if !slices.Contains(p.Reviewers, u) {
				p.Reviewers = append(p.Reviewers, u)
			}
		}
		for _, t := range teams {
			if !slices.Contains(p.Teams, t) {
				p.Teams = append(p.Teams, t)
			}
		}
		return answer{201, repo.pullJSON(p, false)}
	case "pulls/reviews GET":
		var out []map[string]any
		for i, u := range repo.reviews[num] {
			out = append(out, map[string]any{"id": 80 + i, "user": user(u), "state": "COMMENTED", "body": ""})
		}
		return answer{200, orEmpty(out)}
	case "issues/comments GET":
		return answer{200, page(r, repo.commentsJSON(num, "pull"))}
	case "issues/comments POST":
		c, _ := in["body"].(string)
		if c == "" {
			return errAnswer(http.StatusUnprocessableEntity, "Validation Failed", "issues/comments#create-an-issue-comment")
		}
		repo.comments[num] = append(repo.comments[num], ghComment{Body: c, User: login})
		return answer{201, map[string]any{"id": 1000 + len(repo.comments[num]) - 1, "body": c, "user": user(login)}}
	}
	return errAnswer(http.StatusNotFound, "Not Found", "")
}

// commentsJSON lists the comments on issue or pull request n, oldest
// first, each with its author; kind ("pull" or "issues") makes the links.
func (r *ghRepo) commentsJSON(n int, kind string) []map[string]any {
	out := []map[string]any{}
	for i, c := range r.comments[n] {
		out = append(out, map[string]any{"id": 1000 + i, "body": c.Body, "user": user(c.User), "author_association": "NONE",
			"html_url": fmt.Sprintf("https://github.com/%s/%s/%s/%d#issuecomment-%d", r.owner, r.name, kind, n, 1000+i)})
	}
	return out
}

// createLabel answers POST /repos/O/R/labels: 201 with the label, or 422
// already_exists when the repository has one of that name (in any case).
func createLabel(repo *ghRepo, in map[string]any) answer {
	name, _ := in["name"].(string)
	color, _ := in["color"].(string)
	desc, _ := in["description"].(string)
	switch {
	case name == "":
		return errAnswer(http.StatusUnprocessableEntity, "Validation Failed", "issues/labels#create-a-label",
			map[string]any{"resource": "Label", "field": "name", "code": "missing_field"})
	case repo.labels[strings.ToLower(name)] != "":
		return errAnswer(http.StatusUnprocessableEntity, "Validation Failed", "issues/labels#create-a-label",
			map[string]any{"resource": "Label", "field": "name", "code": "already_exists"})
	case color != "" && !reColor.MatchString(color):
		return errAnswer(http.StatusUnprocessableEntity, "Validation Failed", "issues/labels#create-a-label",
			map[string]any{"resource": "Label", "field": "color", "code": "invalid"})
	case len([]rune(desc)) > 100:
		return errAnswer(http.StatusUnprocessableEntity, "Validation Failed", "issues/labels#create-a-label",
			map[string]any{"resource": "Label", "field": "description", "code": "invalid"})
	}
	repo.labels[strings.ToLower(name)] = name
	return answer{201, map[string]any{"id": 600 + len(repo.labels), "name": name, "color": color, "description": desc, "default": false}}
}

var reColor = regexp.MustCompile(`^[0-9a-fA-F]{6}$`)

// removeLabel answers DELETE /repos/O/R/issues/N/labels/NAME: 200 with the
// labels left, 404 "Label does not exist" when the issue does not carry it.
func removeLabel(repo *ghRepo, n int, name string) answer {
	labels := &[]string{}
	if p := repo.pull(n); p != nil {
		labels = &p.Labels
	} else if is := repo.issue(n); is != nil {
		labels = &is.Labels
	} else {
		return errAnswer(http.StatusNotFound, "Not Found", "issues/labels#remove-a-label-from-an-issue")
	}
	i := slices.IndexFunc(*labels, func(l string) bool { return strings.EqualFold(l, name) })
	if i < 0 {
		return errAnswer(http.StatusNotFound, "Label does not exist", "issues/labels#remove-a-label-from-an-issue")
	}
	*labels = slices.Delete(*labels, i, i+1)
	return answer{200, labelsJSON(*labels)}
}

func (g *GitHub) installation(jwtTok, full string) answer {
	app, err := g.verifyJWT(jwtTok)
	if err != nil {
		return errAnswer(http.StatusUnauthorized, "A JSON web token could not be decoded", "apps/apps#find-a-repository-installation-for-the-authenticated-app")
	}
	if app.repo != full {
		return errAnswer(http.StatusNotFound, "Not Found", "apps/apps#get-a-repository-installation-for-the-authenticated-app")
	}
	return answer{200, map[string]any{"id": app.installation, "app_id": app.id, "target_type": "Organization", "account": user(strings.Split(full, "/")[0])}}
}

func (g *GitHub) mintToken(jwtTok, id string) answer {
	app, err := g.verifyJWT(jwtTok)
	if err != nil {
		return errAnswer(http.StatusUnauthorized, "A JSON web token could not be decoded", "apps/apps#create-an-installation-access-token-for-an-app")
	}
	if strconv.FormatInt(app.installation, 10) != id {
		return errAnswer(http.StatusNotFound, "Not Found", "apps/apps#create-an-installation-access-token-for-an-app")
	}
	app.minted++
	tok := fmt.Sprintf("ghs_fakeInstallation%dToken%d", app.installation, app.minted)
	g.tokens[tok] = fmt.Sprintf("app-%d[bot]", app.id)
	g.instTokens[tok] = app.installation
	return answer{201, map[string]any{"token": tok, "expires_at": time.Now().Add(time.Hour).UTC().Format(time.RFC3339),
		"permissions": map[string]string{"contents": "write", "pull_requests": "write", "issues": "write"}, "repository_selection": "selected"}}
}

// verifyJWT checks an App JWT: RS256 signed by a registered App's key, issuer
// its id, valid for at most ten minutes.
func (g *GitHub) verifyJWT(s string) (*ghApp, error) {
	var app *ghApp
	claims := &jwt.RegisteredClaims{}
	_, err := jwt.ParseWithClaims(s, claims, func(t *jwt.Token) (any, error) {
		iss, _ := t.Claims.GetIssuer()
		id, _ := strconv.ParseInt(iss, 10, 64)
		if app = g.apps[id]; app == nil {
			return nil, fmt.Errorf("unknown app %q", iss)
		}
		return app.key, nil
	}, jwt.WithValidMethods([]string{"RS256"}), jwt.WithIssuedAt(), jwt.WithExpirationRequired())
	if err != nil {
		return nil, err
	}
	if claims.ExpiresAt.Sub(claims.IssuedAt.Time) > 10*time.Minute+time.Second {
		return nil, fmt.Errorf("JWT valid for too long")
	}
	return app, nil
}

func asStrings(v any) []string {
	var out []string
	if l, ok := v.([]any); ok {
		for _, x := range l {
			if s, ok := x.(string); ok {
				out = append(out, s)
			}
		}
	}
	return out
}

func orEmpty(v []map[string]any) []map[string]any {
	if v == nil {
		return []map[string]any{}
	}
	return v
}

func user(login string) map[string]any {
	typ := "User"
	if strings.HasSuffix(login, "[bot]") {
		typ = "Bot"
	}
	return map[string]any{"login": login, "id": len(login) * 1000, "type": typ, "html_url": "https://github.com/" + login}
}

func labelsJSON(labels []string) []map[string]any {
	out := []map[string]any{}
	for i, l := range labels {
		out = append(out, map[string]any{"id": 500 + i, "name": l, "color": "0366d6", "default": false})
	}
	return out
}

func (r *ghRepo) json() map[string]any {
	topics := r.meta.Topics
	if topics == nil {
		topics = []string{}
	}
	full := r.owner + "/" + r.name
	if r.meta.FullName != "" {
		full = r.meta.FullName
	}
	return map[string]any{"id": 1296268 + r.id, "name": r.name, "full_name": full, "owner": user(r.owner),
		"private": r.meta.Private, "archived": r.meta.Archived, "fork": r.meta.Fork, "topics": topics,
		"default_branch": r.defaultBranch, "html_url": "https://github.com/" + r.owner + "/" + r.name}
}

// decodeContent turns a blob request's content into bytes.
func decodeContent(content, encoding string) ([]byte, error) {
	if encoding == "base64" {
		return base64.StdEncoding.DecodeString(content)
	}
	return []byte(content), nil
}
