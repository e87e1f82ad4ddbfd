package github

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	gh "github.com/google/go-github/v60/github"

	"github.com/pinbot-dev/pinbot/web"
)

// GitHub's REST API cannot change a pull request's draft state; its GraphQL
// API (https://docs.github.com/graphql/reference/mutations) can, with the
// mutations convertPullRequestToDraft and markPullRequestReadyForReview. go-github
// v60 speaks no GraphQL, so the client posts the two mutations itself, through
// the same *http.Client as the REST requests: the token (oauth2), the pacing of
// content-creating requests (a mutation is a POST) and web.Transport's waits on
// 403 and 429 rate limits.

// The mutations, each selecting the pull request's state after the change.
const (
	mutationToDraft = `mutation($id: ID!) { convertPullRequestToDraft(input: {pullRequestId: $id}) { pullRequest { number isDraft } } }`
	mutationToReady = `mutation($id: ID!) { markPullRequestReadyForReview(input: {pullRequestId: $id}) { pullRequest { number isDraft } } }`
)

// maxGraphQLAnswer bounds the bytes read of a GraphQL answer.
const maxGraphQLAnswer = 1 << 20

// graphQLURL returns the GraphQL endpoint of a REST API base URL:
// https://api.github.com/graphql for https://api.github.com, and
// https://HOST/api/graphql for GitHub Enterprise Server's https://HOST/api/v3.
func graphQLURL(rest *url.URL) string {
	u := *rest
	p := strings.TrimSuffix(u.Path, "/")
	if strings.HasSuffix(p, "/api/v3") {
		p = strings.TrimSuffix(p, "/v3")
	}
	u.Path, u.RawPath, u.RawQuery, u.Fragment = p+"/graphql", "", "", ""
	return u.String()
}

// A graphQLError is a GraphQL answer that carries errors. GitHub sends them
// with status 200 (a node id it cannot resolve, a missing permission, a
// primary rate limit), so they are failures only if read.
type graphQLError struct {
	Errors []struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	}
}

func (e *graphQLError) Error() string {
	var msgs []string
	for _, x := range e.Errors {
		m := web.Sanitize([]byte(x.Message))
		if m == "" {
			m = "(an unprintable message)"
		}
		if x.Type != "" {
			m = x.Type + ": " + m
		}
		msgs = append(msgs, m)
	}
	return "GraphQL error: " + strings.Join(msgs, "; ")
}

// graphQL posts a query with variables and decodes the answer's data into
// out. An HTTP status other than 200 or an answer with errors is an error.
func (c *Client) graphQL(ctx context.Context, query string, vars map[string]any, out any) error {
	payload, err := json.Marshal(map[string]any{"query": query, "variables": vars})
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.graphQLURL, bytes.NewReader(payload))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxGraphQLAnswer))
	if err != nil {
		return fmt.Errorf("POST %s: reading the answer: %w", web.ShownURL(req), err)
	}
	if resp.StatusCode != http.StatusOK {
		herr := &web.HTTPError{URL: web.ShownURL(req), StatusCode: resp.StatusCode, Status: resp.Status, Detail: web.Sanitize(body)}
		var msg struct{ Message string }
		if json.Unmarshal(body, &msg) == nil && msg.Message != "" {
			herr.Detail = web.Sanitize([]byte(msg.Message))
		}
		return herr
	}
	var answer struct {
		Data   json.RawMessage `json:"data"`
		Errors json.RawMessage `json:"errors"`
	}
	if err := json.Unmarshal(body, &answer); err != nil {
		return fmt.Errorf("POST %s: not a GraphQL answer: %.80q", web.ShownURL(req), body)
	}
	if len(answer.Errors) > 0 && string(answer.Errors) != "null" {
		e := &graphQLError{}
		if err := json.Unmarshal(answer.Errors, &e.Errors); err != nil || len(e.Errors) == 0 {
			return fmt.Errorf("POST %s: GraphQL errors that are not a list: %.80s", web.ShownURL(req), answer.Errors)
		}
		return e
	}
	if len(answer.Data) == 0 || string(answer.Data) == "null" {
		return fmt.Errorf("POST %s: a GraphQL answer without data", web.ShownURL(req))
	}
	return json.Unmarshal(answer.Data, out)
}

// setDraft converts pr to a draft (draft true) or marks it ready for review,
// and checks that GitHub says it is so now.
func (c *Client) setDraft(ctx context.Context, pr *gh.PullRequest, draft bool) error {
	n := pr.GetNumber()
	name, query, what := "convertPullRequestToDraft", mutationToDraft, fmt.Sprintf("converting #%d to a draft", n)
	if !draft {
		name, query, what = "markPullRequestReadyForReview", mutationToReady, fmt.Sprintf("marking #%d ready for review", n)
	}
	if pr.GetNodeID() == "" {
		return fmt.Errorf("github: %s: the pull request has no node_id", what)
	}
	var data map[string]*struct {
		PullRequest *struct {
			Number  int  `json:"number"`
			IsDraft bool `json:"isDraft"`
		} `json:"pullRequest"`
	}
	if err := c.graphQL(ctx, query, map[string]any{"id": pr.GetNodeID()}, &data); err != nil {
		return c.wrap(what, err)
	}
	got := data[name]
	switch {
	case got == nil || got.PullRequest == nil:
		return fmt.Errorf("github: %s: the answer names no pull request", what)
	case got.PullRequest.IsDraft != draft:
		return fmt.Errorf("github: %s: GitHub answered that #%d has isDraft %v", what, got.PullRequest.Number, got.PullRequest.IsDraft)
	}
	c.log.Info("pull request draft state changed", "number", n, "draft", draft)
	return nil
}
