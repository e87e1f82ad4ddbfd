package fakes

import (
	"fmt"
	"net/http"
	"regexp"
	"strings"
)

var (
	reGitObject = regexp.MustCompile(`^/(blobs|trees|commits)/([0-9a-f]{40})$`)
	reGitRef    = regexp.MustCompile(`^/refs?/(.+)$`)
)

// gitRoute answers the git data API (path after /git); the lock is held.
func (g *GitHub) gitRoute(repo *ghRepo, method, path string, recursive bool, in map[string]any, login string) answer {
	git := repo.git
	base := fmt.Sprintf("https://api.github.com/repos/%s/%s/git", repo.owner, repo.name)
	if m := reGitObject.FindStringSubmatch(path); m != nil && method == http.MethodGet {
		sha := m[2]
		switch m[1] {
		case "blobs":
			if b, ok := git.blobs[sha]; ok {
				return answer{200, map[string]any{"sha": sha, "size": len(b), "encoding": "base64", "content": encodeBase64(b), "url": base + "/blobs/" + sha}}
			}
		case "trees":
			if _, ok := git.trees[sha]; ok {
				return answer{200, treeJSON(git, sha, recursive, base)}
			}
		case "commits":
			if c, ok := git.commits[sha]; ok {
				return answer{200, commitJSON(c, base, repo)}
			}
		}
		return errAnswer(http.StatusNotFound, "Not Found", "git/"+m[1])
	}
	switch {
	case path == "/blobs" && method == http.MethodPost:
		content, _ := in["content"].(string)
		enc, _ := in["encoding"].(string)
		data, err := decodeContent(content, enc)
		if err != nil {
			return errAnswer(http.StatusUnprocessableEntity, "Invalid Base64 content", "git/blobs#create-a-blob")
		}
		sha := git.putBlob(data)
		return answer{201, map[string]any{"sha": sha, "url": base + "/blobs/" + sha}}
	case path == "/trees" && method == http.MethodPost:
		flat := map[string]flatEntry{}
		if bt, _ := in["base_tree"].(string); bt != "" {
			if _, ok := git.trees[bt]; !ok {
				return errAnswer(http.StatusUnprocessableEntity, "Invalid tree info", "git/trees#create-a-tree")
			}
			git.flatten(bt, "", flat)
		}
		entries, _ := in["tree"].([]any)
		for _, x := range entries {
			e, _ := x.(map[string]any)
			p, _ := e["path"].(string)
			mode, _ := e["mode"].(string)
			if p == "" || strings.HasPrefix(p, "/") || mode == "" {
				return errAnswer(http.StatusUnprocessableEntity, "tree.path contains a malformed path component", "git/trees#create-a-tree")
			}
			sha, hasSHA := e["sha"]
			switch content, ok := e["content"].(string); {
			case ok:
				flat[p] = flatEntry{Mode: mode, Type: "blob", SHA: git.putBlob([]byte(content))}
			case hasSHA && sha == nil:
				delete(flat, p)
			default:
				s, _ := sha.(string)
				if _, ok := git.blobs[s]; !ok {
					return errAnswer(http.StatusUnprocessableEntity, "GitRPC::BadObjectState", "git/trees#create-a-tree")
				}
				flat[p] = flatEntry{Mode: mode, Type: "blob", SHA: s}
			}
		}
		sha := git.build(flat)
		return answer{201, treeJSON(git, sha, false, base)}
	case path == "/commits" && method == http.MethodPost:
		tree, _ := in["tree"].(string)
		if _, ok := git.trees[tree]; !ok {
			return errAnswer(http.StatusUnprocessableEntity, "Tree SHA does not exist", "git/commits#create-a-commit")
		}
		var parents []string
		for _, p := range asStrings(in["parents"]) {
			if git.commits[p] == nil {
				return errAnswer(http.StatusUnprocessableEntity, "Parent SHA does not exist or is not a commit object", "git/commits#create-a-commit")
			}
			parents = append(parents, p)
		}
		msg, _ := in["message"].(string)
		// The author defaults to the token's account, the committer to
		// the author, as GitHub's.
		author := ident{Name: login, Email: login + "@users.noreply.github.com", Date: stamp()}
		if a, ok := in["author"].(map[string]any); ok {
			author.Name, _ = a["name"].(string)
			author.Email, _ = a["email"].(string)
		}
		committer := author
		if c, ok := in["committer"].(map[string]any); ok {
			committer.Name, _ = c["name"].(string)
			committer.Email, _ = c["email"].(string)
		}
		c := &gitCommit{Tree: tree, Message: msg, Parents: parents, Author: author, Committer: committer}
		git.putCommit(c)
		return answer{201, commitJSON(c, base, repo)}
	case path == "/refs" && method == http.MethodPost:
		ref, _ := in["ref"].(string)
		sha, _ := in["sha"].(string)
		if !strings.HasPrefix(ref, "refs/") || strings.Count(ref, "/") < 2 {
			return errAnswer(http.StatusUnprocessableEntity, "Reference name is invalid", "git/refs#create-a-reference")
		}
		if _, ok := repo.refs[ref]; ok {
			return errAnswer(http.StatusUnprocessableEntity, "Reference already exists", "git/refs#create-a-reference")
		}
		if git.commits[sha] == nil {
			return errAnswer(http.StatusUnprocessableEntity, "Object does not exist", "git/refs#create-a-reference")
		}
		repo.refs[ref] = sha
		return answer{201, refJSON(repo, ref, base)}
	}
	m := reGitRef.FindStringSubmatch(path)
	if m == nil {
		return errAnswer(http.StatusNotFound, "Not Found", "git")
	}
	ref := "refs/" + m[1]
	old, exists := repo.refs[ref]
	switch {
	case method == http.MethodGet && strings.HasPrefix(path, "/ref/"):
		if !exists {
			return errAnswer(http.StatusNotFound, "Not Found", "git/refs#get-a-reference")
		}
		return answer{200, refJSON(repo, ref, base)}
	case method == http.MethodPatch && strings.HasPrefix(path, "/refs/"):
		if !exists {
			return errAnswer(http.StatusUnprocessableEntity, "Reference does not exist", "git/refs#update-a-reference")
		}
		sha, _ := in["sha"].(string)
		force, _ := in["force"].(bool)
		if git.commits[sha] == nil {
			return errAnswer(http.StatusUnprocessableEntity, "Object does not exist", "git/refs#update-a-reference")
		}
		if !force && !git.isAncestor(old, sha) {
			return errAnswer(http.StatusUnprocessableEntity, "Update is not a fast forward", "git/refs#update-a-reference")
		}
		repo.refs[ref] = sha
		for _, p := range repo.pulls {
			if p.State == "open" && "refs/heads/"+p.Head == ref {
				p.HeadSHA = sha
			}
		}
		return answer{200, refJSON(repo, ref, base)}
	case method == http.MethodDelete && strings.HasPrefix(path, "/refs/"):
		if !exists {
			return errAnswer(http.StatusUnprocessableEntity, "Reference does not exist", "git/refs#delete-a-reference")
		}
		delete(repo.refs, ref)
		for _, p := range repo.pulls {
			if p.State == "open" && "refs/heads/"+p.Head == ref {
				p.State, p.ClosedAt = "closed", stamp() // GitHub closes a PR whose head is deleted
			}
		}
		return answer{204, nil}
	}
	return errAnswer(http.StatusNotFound, "Not Found", "git/refs")
}

func (g *GitHub) listPulls(repo *ghRepo, r *http.Request) answer {
	q := r.URL.Query()
	state := q.Get("state")
	if state == "" {
		state = "open"
	}
	head := q.Get("head")
	owner, branch, hasOwner := strings.Cut(head, ":")
	out := []map[string]any{}
	for i := len(repo.pulls) - 1; i >= 0; i-- { // created, newest first
		p := repo.pulls[i]
		if state != "all" && p.State != state {
			continue
		}
		// Without "owner:" GitHub ignores the head filter.
		if head != "" && hasOwner && (owner != repo.owner || branch != p.Head) {
			continue
		}
		if b := q.Get("base"); b != "" && b != p.Base {
			continue
		}
		out = append(out, repo.pullJSON(p, false))
	}
	return answer{200, out}
}

func (g *GitHub) createPull(repo *ghRepo, in map[string]any, login string) answer {
	title, _ := in["title"].(string)
	head, _ := in["head"].(string)
	base, _ := in["base"].(string)
	body, _ := in["body"].(string)
	draft, _ := in["draft"].(bool)
	mcm, _ := in["maintainer_can_modify"].(bool)
	if i := strings.Index(head, ":"); i >= 0 {
		head = head[i+1:]
	}
	headSHA, baseSHA := repo.refs["refs/heads/"+head], repo.refs["refs/heads/"+base]
	switch {
	case title == "":
		return errAnswer(http.StatusUnprocessableEntity, "Validation Failed", "pulls/pulls#create-a-pull-request",
			map[string]any{"resource": "PullRequest", "field": "title", "code": "missing_field"})
	case headSHA == "":
		return errAnswer(http.StatusUnprocessableEntity, "Validation Failed", "pulls/pulls#create-a-pull-request",
			map[string]any{"resource": "PullRequest", "field": "head", "code": "invalid"})
	case baseSHA == "":
		return errAnswer(http.StatusUnprocessableEntity, "Validation Failed", "pulls/pulls#create-a-pull-request",
			map[string]any{"resource": "PullRequest", "field": "base", "code": "invalid"})
	case len(body) > 65536:
		return validation("body is too long (maximum is 65536 characters)", "pulls/pulls#create-a-pull-request")
	}
	for _, p := range repo.pulls {
		if p.State == "open" && p.Head == head && p.Base == base {
			return validation(fmt.Sprintf("A pull request already exists for %s:%s.", repo.owner, head), "pulls/pulls#create-a-pull-request")
		}
	}
	if repo.git.isAncestor(headSHA, baseSHA) {
		return validation(fmt.Sprintf("No commits between %s and %s", base, head), "pulls/pulls#create-a-pull-request")
	}
	p := &ghPull{Number: repo.next(), State: "open", Title: title, Head: head, Base: base, Body: body, Draft: draft,
		User: login, HeadSHA: headSHA, MaintainerCanModify: mcm, Created: stamp(), Updated: stamp(), baseSHAAtOpen: baseSHA}
	repo.pulls = append(repo.pulls, p)
	return answer{201, repo.pullJSON(p, true)}
}

// pullJSON renders a pull request; the list endpoint leaves out "merged", as
// GitHub's does (merged_at tells).
func (r *ghRepo) pullJSON(p *ghPull, full bool) map[string]any {
	full_ := r.owner + "/" + r.name
	html := fmt.Sprintf("https://github.com/%s/pull/%d", full_, p.Number)
	var assignees, reviewers, teams []map[string]any
	for _, a := range p.Assignees {
		assignees = append(assignees, user(a))
	}
	for _, u := range p.Reviewers {
		reviewers = append(reviewers, user(u))
	}
	for _, t := range p.Teams {
		teams = append(teams, map[string]any{"slug": t, "name": t})
	}
	nilIfEmpty := func(s string) any {
		if s == "" {
			return nil
		}
		return s
	}
	headSHA := p.HeadSHA
	if p.State == "open" {
		headSHA = r.refs["refs/heads/"+p.Head]
	}
	m := map[string]any{
		"url": "https://api.github.com/repos/" + full_ + fmt.Sprintf("/pulls/%d", p.Number), "id": 1000000 + p.Number,
		"node_id": r.nodeID(p), "html_url": html, "number": p.Number, "state": p.State,
		"locked": false, "title": p.Title, "user": user(p.User), "body": p.Body, "labels": labelsJSON(p.Labels),
		"created_at": p.Created, "updated_at": p.Updated, "closed_at": nilIfEmpty(p.ClosedAt), "merged_at": nilIfEmpty(p.MergedAt),
		"merge_commit_sha": nilIfEmpty(p.MergeCommitSHA), "assignees": orEmpty(assignees), "requested_reviewers": orEmpty(reviewers),
		"requested_teams": orEmpty(teams), "draft": p.Draft,
		"head":               map[string]any{"label": r.owner + ":" + p.Head, "ref": p.Head, "sha": headSHA, "user": user(r.owner), "repo": r.json()},
		"base":               map[string]any{"label": r.owner + ":" + p.Base, "ref": p.Base, "sha": r.refs["refs/heads/"+p.Base], "user": user(r.owner), "repo": r.json()},
		"author_association": "NONE",
	}
	if full {
		m["merged"] = p.Merged
		m["maintainer_can_modify"] = p.MaintainerCanModify
		m["mergeable_state"] = "unknown"
	}
	return m
}

func refJSON(repo *ghRepo, ref, base string) map[string]any {
	sha := repo.refs[ref]
	return map[string]any{"ref": ref, "node_id": "REF_fake", "url": base + "/" + ref,
		"object": map[string]any{"sha": sha, "type": "commit", "url": base + "/commits/" + sha}}
}

func commitJSON(c *gitCommit, base string, repo *ghRepo) map[string]any {
	var parents []map[string]any
	for _, p := range c.Parents {
		parents = append(parents, map[string]any{"sha": p, "url": base + "/commits/" + p,
			"html_url": fmt.Sprintf("https://github.com/%s/%s/commit/%s", repo.owner, repo.name, p)})
	}
	who := func(i ident) map[string]any { return map[string]any{"name": i.Name, "email": i.Email, "date": i.Date} }
	return map[string]any{"sha": c.SHA, "node_id": "C_fake", "url": base + "/commits/" + c.SHA,
		"html_url": fmt.Sprintf("https://github.com/%s/%s/commit/%s", repo.owner, repo.name, c.SHA),
		"author":   who(c.Author), "committer": who(c.Committer), "message": c.Message,
		"tree": map[string]any{"sha": c.Tree, "url": base + "/trees/" + c.Tree}, "parents": orEmpty(parents),
		"verification": map[string]any{"verified": false, "reason": "unsigned", "signature": nil, "payload": nil}}
}

func treeJSON(git *gitStore, sha string, recursive bool, base string) map[string]any {
	var entries []map[string]any
	var walk func(tree, prefix string)
	walk = func(tree, prefix string) {
		for _, e := range git.trees[tree] {
			p := e.Name
			if prefix != "" {
				p = prefix + "/" + e.Name
			}
			m := map[string]any{"path": p, "mode": e.Mode, "type": e.Type, "sha": e.SHA, "url": base + "/" + e.Type + "s/" + e.SHA}
			if e.Type == "blob" {
				m["size"] = len(git.blobs[e.SHA])
			}
			entries = append(entries, m)
			if recursive && e.Type == "tree" {
				walk(e.SHA, p)
			}
		}
	}
	walk(sha, "")
	return map[string]any{"sha": sha, "url": base + "/trees/" + sha, "tree": orEmpty(entries), "truncated": false}
}
