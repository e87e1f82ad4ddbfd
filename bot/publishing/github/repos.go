package github

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	gh "github.com/google/go-github/v60/github"
	"github.com/pinbot-dev/pinbot/bot/report"
)

// Listing an owner's repositories, for the fleet (fleet/): one request per
// 100 repositories, each with the metadata the fleet filters on (topics,
// archived, fork), so a filter needs no request per repository.

// A Repository is what a listing says about one repository.
type Repository struct {
	// FullName is "owner/name".
	FullName      string
	DefaultBranch string
	Topics        []string
	Archived      bool
	Fork          bool
	Private       bool
}

// ErrNoOwner means no organisation or user has the name.
var ErrNoOwner = errors.New("no such organisation or user")

// maxPages bounds a listing: 100,000 repositories, far more than a matrix
// takes, and an end to a server that always says "next".
const maxPages = 1000

// Repositories lists the repositories of owner: for an organisation, every
// one the token may see (GET /orgs/OWNER/repos); for a user, their public
// ones (GET /users/OWNER/repos). One request first asks which owner is
// (GET /users/OWNER); an owner that does not exist is ErrNoOwner.
func (c *Client) Repositories(ctx context.Context, owner string) ([]Repository, error) {
	if !report.ValidOwner(owner) {
		return nil, fmt.Errorf("github: %q is not an organisation or user name", owner)
	}
	u, _, err := c.gh.Users.Get(ctx, owner)
	if status(err) == http.StatusNotFound {
		return nil, fmt.Errorf("github: %s: %w", owner, ErrNoOwner)
	}
	if err != nil {
		return nil, c.wrap("reading the owner "+owner, err)
	}
	org := u.GetType() == "Organization"
	return c.listAll(ctx, "listing the repositories of "+owner, func(page int) ([]*gh.Repository, *gh.Response, error) {
		lo := gh.ListOptions{PerPage: 100, Page: page}
		if org {
			return c.gh.Repositories.ListByOrg(ctx, owner, &gh.RepositoryListByOrgOptions{Type: "all", Sort: "full_name", ListOptions: lo})
		}
		return c.gh.Repositories.ListByUser(ctx, owner, &gh.RepositoryListByUserOptions{Type: "owner", Sort: "full_name", ListOptions: lo})
	})
}

// InstallationRepositories lists the repositories of the GitHub App
// installation the client's token belongs to (GET /installation/repositories).
func (c *Client) InstallationRepositories(ctx context.Context) ([]Repository, error) {
	return c.listAll(ctx, "listing the App installation's repositories", func(page int) ([]*gh.Repository, *gh.Response, error) {
		l, resp, err := c.gh.Apps.ListRepos(ctx, &gh.ListOptions{PerPage: 100, Page: page})
		if l == nil {
			return nil, resp, err
		}
		return l.Repositories, resp, err
	})
}

// listAll follows a listing's pages ("Link: rel=next").
func (c *Client) listAll(ctx context.Context, what string, list func(page int) ([]*gh.Repository, *gh.Response, error)) ([]Repository, error) {
	var out []Repository
	page := 1
	for n := 0; ; n++ {
		if n == maxPages {
			return nil, fmt.Errorf("github: %s: more than %d pages", what, maxPages)
		}
		rs, resp, err := list(page)
		if err != nil {
			return nil, c.wrap(what, err)
		}
		for _, r := range rs {
			out = append(out, Repository{FullName: r.GetFullName(), DefaultBranch: r.GetDefaultBranch(), Topics: r.Topics,
				Archived: r.GetArchived(), Fork: r.GetFork(), Private: r.GetPrivate()})
		}
		if resp == nil || resp.NextPage == 0 || resp.NextPage <= page {
			return out, nil
		}
		page = resp.NextPage
	}
}
