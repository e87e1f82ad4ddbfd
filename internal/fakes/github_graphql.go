package fakes

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
)

// The fake's GraphQL API (https://docs.github.com/graphql): POST /graphql, or
// /api/graphql beside a GitHub Enterprise Server-style /api/v3. It knows the
// two mutations that change a pull request's draft state, which REST cannot:
//
//	mutation($id: ID!) { convertPullRequestToDraft(input: {pullRequestId: $id}) { pullRequest { number isDraft } } }
//	mutation($id: ID!) { markPullRequestReadyForReview(input: {pullRequestId: $id}) { pullRequest { number isDraft } } }
//
// The node id may also be a string literal. Like GitHub, it answers 401 with a
// REST-style body for bad credentials, and everything else with 200: data, or
// an errors list (with data null for the field that failed) for an unknown
// node id, an unknown field or a malformed request. Closed pull requests are
// not refused (GitHub's behaviour there is unverified).

// graphQLDoc is the documentation_url of GraphQL's REST-style errors.
const graphQLDoc = "https://docs.github.com/graphql"

var (
	reMutation = regexp.MustCompile(`^\s*mutation\b[^{]*\{\s*(\w+)\s*\(\s*input\s*:\s*\{\s*pullRequestId\s*:\s*(\$\w+|"[^"]*")\s*\}\s*\)\s*\{\s*pullRequest\s*\{([^{}]*)\}\s*\}\s*\}\s*$`)
	reField    = regexp.MustCompile(`\w+`)
)

// isGraphQL reports whether a request path is the GraphQL endpoint.
func isGraphQL(path string) bool { return path == "/graphql" || path == "/api/graphql" }

// nodeID is a pull request's global node id, unique in the fake.
func (r *ghRepo) nodeID(p *ghPull) string { return fmt.Sprintf("PR_kwDOfake%dn%d", r.id, p.Number) }

// gqlError is one entry of a GraphQL answer's errors.
type gqlError struct {
	Type      string           `json:"type,omitempty"`
	Path      []string         `json:"path,omitempty"`
	Locations []map[string]int `json:"locations,omitempty"`
	Message   string           `json:"message"`
}

func gqlErrors(data any, errs ...gqlError) answer {
	a := map[string]any{"errors": errs}
	if data != nil {
		a["data"] = data
	}
	return answer{http.StatusOK, a}
}

// graphQL answers a GraphQL request; the lock is held.
func (g *GitHub) graphQL(tok string, body []byte) answer {
	if _, ok := g.tokens[tok]; !ok || tok == "" {
		return answer{http.StatusUnauthorized, map[string]any{"message": "Bad credentials", "documentation_url": graphQLDoc}}
	}
	var in struct {
		Query     *string        `json:"query"`
		Variables map[string]any `json:"variables"`
	}
	if err := json.Unmarshal(body, &in); err != nil {
		return answer{http.StatusBadRequest, map[string]any{"message": "Problems parsing JSON", "documentation_url": graphQLDoc}}
	}
	if in.Query == nil {
		return gqlErrors(nil, gqlError{Message: "A query attribute must be specified and must be a string."})
	}
	q := *in.Query
	m := reMutation.FindStringSubmatch(q)
	if m == nil {
		return gqlErrors(nil, gqlError{Message: "Parse error: the fake knows only convertPullRequestToDraft and markPullRequestReadyForReview on a pull request id",
			Locations: []map[string]int{{"line": 1, "column": 1}}})
	}
	name, arg, selection := m[1], m[2], reField.FindAllString(m[3], -1)
	at := []map[string]int{{"line": 1, "column": strings.Index(q, name) + 1}}
	if name != "convertPullRequestToDraft" && name != "markPullRequestReadyForReview" {
		return gqlErrors(nil, gqlError{Type: "undefinedField", Path: []string{"mutation", name}, Locations: at,
			Message: fmt.Sprintf("Field '%s' doesn't exist on type 'Mutation'", name)})
	}
	id := strings.Trim(arg, `"`)
	if strings.HasPrefix(arg, "$") {
		v, ok := in.Variables[arg[1:]].(string)
		if !ok {
			return gqlErrors(nil, gqlError{Type: "variableMismatch", Locations: at,
				Message: fmt.Sprintf("Variable %s of type ID! was provided invalid value", arg)})
		}
		id = v
	}
	var repo *ghRepo
	var pull *ghPull
	for _, r := range g.repos {
		for _, p := range r.pulls {
			if r.nodeID(p) == id {
				repo, pull = r, p
			}
		}
	}
	if pull == nil {
		return gqlErrors(map[string]any{name: nil}, gqlError{Type: "NOT_FOUND", Path: []string{name}, Locations: at,
			Message: fmt.Sprintf("Could not resolve to a node with the global id of '%s'", id)})
	}
	fields := map[string]any{}
	for _, f := range selection {
		switch f {
		case "id":
			fields[f] = id
		case "number":
			fields[f] = pull.Number
		case "isDraft":
			fields[f] = name == "convertPullRequestToDraft"
		case "url":
			fields[f] = fmt.Sprintf("https://github.com/%s/%s/pull/%d", repo.owner, repo.name, pull.Number)
		case "state":
			fields[f] = strings.ToUpper(pull.State)
		case "title":
			fields[f] = pull.Title
		default:
			return gqlErrors(nil, gqlError{Type: "undefinedField", Path: []string{"mutation", name, "pullRequest", f}, Locations: at,
				Message: fmt.Sprintf("Field '%s' doesn't exist on type 'PullRequest'", f)})
		}
	}
	pull.Draft, pull.Updated = name == "convertPullRequestToDraft", stamp()
	return answer{http.StatusOK, map[string]any{"data": map[string]any{name: map[string]any{"pullRequest": fields}}}}
}
