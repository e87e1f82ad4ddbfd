package main

import (
	"context"
	"fmt"

	"golang.org/x/oauth2"

	gh "github.com/pinbot-dev/pinbot/bot/publishing/github"
)

// githubLogin is how a command authenticates to GitHub: a token read from a
// variable, or a GitHub App whose installation tokens are minted from its
// private key. pinbot run and the fleet commands both decide through it, so
// that which credential wins, what is masked in Actions and what a missing
// secret says are the same everywhere.
type githubLogin struct {
	Token, TokenEnv       string // the token, and the variable it was read from (named in errors)
	AppID, InstallationID int64  // an App id wins over the token
	AppKey, AppKeyEnv     string // the App's PEM key, and its variable
	APIURL                string
	Owner, Repo           string // the installation to mint for: the repository's, or the owner's
	Counter               *gh.Counter
}

// tokens returns the credentials: App installation tokens when an App id is
// given, else the static token. A missing secret is a usage error naming the
// variable to set. In Actions every JWT and installation token minted is
// masked before it is used; the token and the key, given through the
// environment, are the runner's to mask, and are never echoed.
func (l githubLogin) tokens(ctx context.Context, f *Factory) (oauth2.TokenSource, error) {
	if l.AppID == 0 {
		if l.Token == "" {
			return nil, &usageError{fmt.Errorf("no GitHub token: set %s, pass --token-env NAME, or configure a GitHub App (--app-id)", l.TokenEnv)}
		}
		return gh.StaticToken(l.Token), nil
	}
	if l.AppKey == "" {
		return nil, &usageError{fmt.Errorf("GitHub App %d: no private key in %s (--app-key-env)", l.AppID, l.AppKeyEnv)}
	}
	return gh.AppTokens(ctx, gh.AppOptions{APIURL: l.APIURL, AppID: l.AppID, InstallationID: l.InstallationID,
		PrivateKey: []byte(l.AppKey), Owner: l.Owner, Repo: l.Repo, HTTP: f.HTTPClient(), Clock: runHooks.clock, Counter: l.Counter,
		Minted: f.workflow().Mask})
}
