package github

import (
	"context"
	"net/http"

	"github.com/pinbot-dev/pinbot/bot/publishing/upstream"
)

// Tag returns the tag under which repo ("owner/name", another repository
// than the client's, such as an upstream's) published version: the first of
// upstream.TagNames that exists ("v1.2.3", then "1.2.3"), or "" when none
// does. Reading another repository needs only the public read every token
// has; a 404 or 403 is "not found", not an error, since the repository may
// be private or elsewhere (GitHub Enterprise Server's API does not serve
// github.com's repositories).
func (c *Client) Tag(ctx context.Context, repo, version string) (string, error) {
	owner, name, err := SplitRepo(repo)
	if err != nil {
		return "", err
	}
	for _, tag := range upstream.TagNames(version) {
		ref, _, err := c.gh.Git.GetRef(ctx, owner, name, "tags/"+tag)
		switch s := status(err); {
		case err == nil && ref.GetRef() == "refs/tags/"+tag:
			return tag, nil
		case err == nil, s == http.StatusNotFound:
			continue
		case s == http.StatusForbidden || s == http.StatusUnauthorized:
			return "", nil
		default:
			return "", c.wrap("reading the tags of "+repo, err)
		}
	}
	return "", nil
}
