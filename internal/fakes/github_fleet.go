package fakes

import (
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// What the fleet needs of the fake GitHub: accounts (organisations and
// users), repository listings with GitHub's metadata (topics, archived,
// forks, private) and Link pagination, an App installation's repositories,
// and issues (list, search, create, update) numbered with the pull requests.

// RepoMeta is what GitHub's repository listings say about a repository.
type RepoMeta struct {
	Topics                  []string
	Archived, Fork, Private bool
	// FullName, when set, is the full_name listings give instead of the
	// name the repository was added under: a broken or hostile listing
	// (another owner's name, a name GitHub would not allow).
	FullName string
}

// SetRepoMeta sets what listings say about repo ("owner/name"), which must
// have been added.
func (g *GitHub) SetRepoMeta(repo string, m RepoMeta) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.repos[repo].meta = m
}

// AddUser makes login a user account. The owner of a repository is an
// organisation unless AddUser names it.
func (g *GitHub) AddUser(login string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.users[strings.ToLower(login)] = true
}

type ghIssue struct {
	Number                     int
	Title, Body, State, User   string
	Labels                     []string
	Created, Updated, ClosedAt string
}

// An IssueInfo is a snapshot of a fake issue.
type IssueInfo struct {
	Number             int
	Title, Body, State string
	Labels             []string
}

// Issues returns snapshots of repo's issues (not its pull requests), oldest
// first.
func (g *GitHub) Issues(repo string) []IssueInfo {
	g.mu.Lock()
	defer g.mu.Unlock()
	var out []IssueInfo
	for _, is := range g.repos[repo].issues {
		out = append(out, IssueInfo{Number: is.Number, Title: is.Title, Body: is.Body, State: is.State, Labels: slices.Clone(is.Labels)})
	}
	return out
}

// AddIssue opens an issue on repo as a person would and returns its number.
func (g *GitHub) AddIssue(repo, title, body string, labels ...string) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	r := g.repos[repo]
	is := &ghIssue{Number: r.next(), Title: title, Body: body, State: "open", User: "someone", Labels: labels, Created: stamp(), Updated: stamp()}
	r.issues = append(r.issues, is)
	return is.Number
}

// EditIssue changes issue n of repo as a person would: a nil labels keeps
// them, state "" keeps it.
func (g *GitHub) EditIssue(repo string, n int, state string, labels []string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	is := g.repos[repo].issue(n)
	if state != "" {
		is.State = state
	}
	if labels != nil {
		is.Labels = labels
	}
	is.Updated = stamp()
}

// next returns the number of the repository's next issue or pull request.
func (r *ghRepo) next() int { return len(r.pulls) + len(r.issues) + 1 }

// pull returns pull request n, or nil.
func (r *ghRepo) pull(n int) *ghPull {
	for _, p := range r.pulls {
		if p.Number == n {
			return p
		}
	}
	return nil
}

// issue returns issue n (not a pull request), or nil.
func (r *ghRepo) issue(n int) *ghIssue {
	for _, is := range r.issues {
		if is.Number == n {
			return is
		}
	}
	return nil
}

// paged is an answer's body that is one page of a list, with its Link header.
type paged struct {
	items any
	link  string
}

var reAccount = regexp.MustCompile(`^/(users|orgs)/([^/]+)(/repos|/installation)?$`)

// GitHub's page sizes: 30 unless per_page asks for up to 100.
const (
	maxPerPage     = 100
	defaultPerPage = 30
)

// accountRoute answers the requests about accounts: /users/NAME,
// /orgs/NAME/repos, /users/NAME/repos, /orgs|users/NAME/installation,
// /installation/repositories and /search/issues. ok is false for other
// paths. g.mu is held.
func (g *GitHub) accountRoute(r *http.Request, path, tok string) (answer, bool) {
	if r.Method != http.MethodGet {
		return answer{}, false
	}
	switch path {
	case "/installation/repositories":
		inst, ok := g.instTokens[tok]
		if !ok {
			return errAnswer(http.StatusForbidden, "This endpoint can only be accessed with an installation token", "apps/installations#list-repositories-accessible-to-the-app-installation"), true
		}
		var app *ghApp
		for _, a := range g.apps {
			if a.installation == inst {
				app = a
			}
		}
		account, _, _ := strings.Cut(app.repo, "/")
		items := g.listRepos(account, true)
		p := page(r, items)
		return answer{200, paged{map[string]any{"total_count": len(items), "repository_selection": "all", "repositories": p.items}, p.link}}, true
	case "/search/issues":
		return g.searchIssues(r, tok), true
	}
	m := reAccount.FindStringSubmatch(path)
	if m == nil {
		return answer{}, false
	}
	kind, login, rest := m[1], m[2], m[3]
	exists, isUser := g.account(login)
	if !exists || (kind == "orgs" && isUser) {
		return errAnswer(http.StatusNotFound, "Not Found", kind+"/"+kind+"#get-"+kind), true
	}
	switch rest {
	case "":
		typ := "Organization"
		if isUser {
			typ = "User"
		}
		u := user(login)
		u["type"] = typ
		return answer{200, u}, true
	case "/installation":
		app, err := g.verifyJWT(tok)
		if err != nil {
			return errAnswer(http.StatusUnauthorized, "A JSON web token could not be decoded", "apps/apps#get-an-organization-installation-for-the-authenticated-app"), true
		}
		if owner, _, _ := strings.Cut(app.repo, "/"); !strings.EqualFold(owner, login) {
			return errAnswer(http.StatusNotFound, "Not Found", "apps/apps#get-an-organization-installation-for-the-authenticated-app"), true
		}
		return answer{200, map[string]any{"id": app.installation, "app_id": app.id, "target_type": "Organization", "account": user(login)}}, true
	}
	// /orgs/NAME/repos lists every repository the token may see; a user's
	// listing, /users/NAME/repos, only the public ones.
	if kind == "orgs" {
		if _, ok := g.tokens[tok]; !ok {
			return errAnswer(http.StatusUnauthorized, "Requires authentication", "repos/repos#list-organization-repositories"), true
		}
	}
	return answer{200, page(r, g.listRepos(login, kind == "orgs"))}, true
}

// account reports whether login owns a repository or is a registered user,
// and whether it is a user.
func (g *GitHub) account(login string) (exists, isUser bool) {
	isUser = g.users[strings.ToLower(login)]
	if isUser {
		return true, true
	}
	for _, r := range g.repos {
		if strings.EqualFold(r.owner, login) {
			return true, false
		}
	}
	return false, false
}

// listRepos returns the repositories of account, sorted by name; private
// ones only when private is set.
func (g *GitHub) listRepos(account string, private bool) []map[string]any {
	var rs []*ghRepo
	for _, r := range g.repos {
		if strings.EqualFold(r.owner, account) && (private || !r.meta.Private) {
			rs = append(rs, r)
		}
	}
	slices.SortFunc(rs, func(a, b *ghRepo) int { return strings.Compare(a.name, b.name) })
	out := []map[string]any{}
	for _, r := range rs {
		out = append(out, r.json())
	}
	return out
}

// page cuts one page (per_page, at most 100, default 30; page from 1) out of
// items, with GitHub's Link header.
func page(r *http.Request, items []map[string]any) paged {
	q := r.URL.Query()
	per, err := strconv.Atoi(q.Get("per_page"))
	if err != nil || per <= 0 {
		per = defaultPerPage
	}
	per = min(per, maxPerPage)
	n, err := strconv.Atoi(q.Get("page"))
	if err != nil || n <= 0 {
		n = 1
	}
	last := max((len(items)+per-1)/per, 1)
	from, to := min((n-1)*per, len(items)), min(n*per, len(items))
	link := func(p int, rel string) string {
		v := url.Values{}
		for k, vs := range q {
			v[k] = vs
		}
		v.Set("page", strconv.Itoa(p))
		v.Set("per_page", strconv.Itoa(per))
		return fmt.Sprintf(`<http://%s%s?%s>; rel="%s"`, r.Host, r.URL.Path, v.Encode(), rel)
	}
	var links []string
	if n < last {
		links = append(links, link(n+1, "next"), link(last, "last"))
	}
	if n > 1 {
		links = append(links, link(1, "first"), link(n-1, "prev"))
	}
	return paged{items[from:to], strings.Join(links, ", ")}
}

func (r *ghRepo) issueJSON(is *ghIssue) map[string]any {
	full := r.owner + "/" + r.name
	return map[string]any{"id": 2000000 + is.Number, "node_id": fmt.Sprintf("I_kwDOfake%dn%d", r.id, is.Number), "number": is.Number,
		"title": is.Title, "body": is.Body, "state": is.State, "labels": labelsJSON(is.Labels), "user": user(is.User),
		"html_url": fmt.Sprintf("https://github.com/%s/issues/%d", full, is.Number), "created_at": is.Created, "updated_at": is.Updated,
		"closed_at": nilIfEmpty(is.ClosedAt), "comments": len(r.comments[is.Number]), "repository_url": "https://api.github.com/repos/" + full}
}

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// listIssues answers GET /repos/O/R/issues: issues and pull requests (with a
// pull_request key), newest first, filtered by state (open by default),
// labels (all of them) and creator.
func (g *GitHub) listIssues(repo *ghRepo, r *http.Request) answer {
	q := r.URL.Query()
	state := q.Get("state")
	if state == "" {
		state = "open"
	}
	var want []string
	if l := q.Get("labels"); l != "" {
		want = strings.Split(l, ",")
	}
	match := func(st, creator string, labels []string) bool {
		if state != "all" && st != state {
			return false
		}
		if c := q.Get("creator"); c != "" && !strings.EqualFold(c, creator) {
			return false
		}
		for _, w := range want {
			if !slices.ContainsFunc(labels, func(l string) bool { return strings.EqualFold(l, strings.TrimSpace(w)) }) {
				return false
			}
		}
		return true
	}
	out := []map[string]any{}
	for n := repo.next() - 1; n >= 1; n-- {
		if is := repo.issue(n); is != nil && match(is.State, is.User, is.Labels) {
			out = append(out, repo.issueJSON(is))
		}
		if p := repo.pull(n); p != nil && match(p.State, p.User, p.Labels) {
			m := repo.issueJSON(&ghIssue{Number: p.Number, Title: p.Title, Body: p.Body, State: p.State, User: p.User, Labels: p.Labels,
				Created: p.Created, Updated: p.Updated})
			m["pull_request"] = map[string]any{"url": fmt.Sprintf("https://api.github.com/repos/%s/%s/pulls/%d", repo.owner, repo.name, p.Number)}
			out = append(out, m)
		}
	}
	return answer{200, page(r, out)}
}

func (g *GitHub) createIssue(repo *ghRepo, in map[string]any, login string) answer {
	title, _ := in["title"].(string)
	body, _ := in["body"].(string)
	if title == "" {
		return errAnswer(http.StatusUnprocessableEntity, "Validation Failed", "issues/issues#create-an-issue",
			map[string]any{"resource": "Issue", "field": "title", "code": "missing_field"})
	}
	if len(body) > 65536 {
		return validation("body is too long (maximum is 65536 characters)", "issues/issues#create-an-issue")
	}
	is := &ghIssue{Number: repo.next(), Title: title, Body: body, State: "open", User: login, Labels: asStrings(in["labels"]),
		Created: stamp(), Updated: stamp()}
	repo.useLabels(is.Labels)
	repo.issues = append(repo.issues, is)
	return answer{201, repo.issueJSON(is)}
}

// issueRoute answers /repos/O/R/issues/N[/sub] for an issue.
func (g *GitHub) issueRoute(repo *ghRepo, is *ghIssue, sub, method string, in map[string]any, body []byte) answer {
	switch sub + " " + method {
	case " GET":
		return answer{200, repo.issueJSON(is)}
	case " PATCH":
		if v, ok := in["title"].(string); ok {
			if v == "" {
				return errAnswer(http.StatusUnprocessableEntity, "Validation Failed", "issues/issues#update-an-issue")
			}
			is.Title = v
		}
		if v, ok := in["body"].(string); ok {
			if len(v) > 65536 {
				return validation("body is too long (maximum is 65536 characters)", "issues/issues#update-an-issue")
			}
			is.Body = v
		}
		if v, ok := in["state"].(string); ok {
			is.State = v
		}
		if _, ok := in["labels"]; ok {
			is.Labels = asStrings(in["labels"])
			repo.useLabels(is.Labels)
		}
		is.Updated = stamp()
		return answer{200, repo.issueJSON(is)}
	case "/comments GET":
		return answer{200, repo.commentsJSON(is.Number, "issues")}
	}
	return errAnswer(http.StatusNotFound, "Not Found", "issues")
}

var reSearchPhrase = regexp.MustCompile(`"([^"]*)"`)

// searchIssues answers GET /search/issues for the queries pinbot makes:
// repo:O/R, is:issue, in:body and one quoted phrase the body must contain.
func (g *GitHub) searchIssues(r *http.Request, tok string) answer {
	if _, ok := g.tokens[tok]; !ok {
		return errAnswer(http.StatusUnauthorized, "Requires authentication", "search/search#search-issues-and-pull-requests")
	}
	q := r.URL.Query().Get("q")
	phrase := ""
	if m := reSearchPhrase.FindStringSubmatch(q); m != nil {
		phrase = m[1]
	}
	rest := reSearchPhrase.ReplaceAllString(q, " ")
	var repo *ghRepo
	for _, f := range strings.Fields(rest) {
		if name, ok := strings.CutPrefix(f, "repo:"); ok {
			repo = g.repos[name]
		}
	}
	if repo == nil {
		return errAnswer(http.StatusUnprocessableEntity, "Validation Failed", "search/search#search-issues-and-pull-requests",
			map[string]any{"message": "The listed users and repositories cannot be searched either because the resources do not exist or you do not have permission to view them.", "resource": "Search", "field": "q", "code": "invalid"})
	}
	items := []map[string]any{}
	for _, is := range repo.issues {
		if phrase == "" || strings.Contains(strings.ToLower(is.Body), strings.ToLower(phrase)) {
			items = append(items, repo.issueJSON(is))
		}
	}
	return answer{200, map[string]any{"total_count": len(items), "incomplete_results": false, "items": items}}
}
