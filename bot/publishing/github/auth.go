package github

import (
	"context"
	"crypto/rsa"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/golang-jwt/jwt/v5"
	gh "github.com/google/go-github/v60/github"
	"golang.org/x/oauth2"
)

// AppOptions configure GitHub App authentication.
type AppOptions struct {
	// APIURL is the REST API base (default DefaultAPIURL).
	APIURL string
	// AppID is the App's id; the JWT's issuer.
	AppID int64
	// InstallationID is the App's installation; 0 looks it up from Repo.
	InstallationID int64
	// PrivateKey is the App's private key, PEM-encoded.
	PrivateKey []byte
	// Repo, "owner/name", finds the installation when InstallationID is 0;
	// with no Repo, Owner (an organisation or a user) does.
	Repo  string
	Owner string
	HTTP  *http.Client
	Clock Clock
	// Counter, when set, counts the requests made for tokens.
	Counter *Counter
	// Minted, when set, is given every credential AppTokens makes, each JWT
	// it signs and each installation token, renewals included, before the
	// credential is used: in Actions, Workflow.Mask.
	Minted func(secret string)
}

// ErrNoInstallation means the App is not installed on the owner named (or no
// such owner exists).
var ErrNoInstallation = errors.New("the App is not installed there")

// AppTokens returns a source of installation tokens for a GitHub App: it signs
// a short-lived JWT with the App's key, finds the installation on the
// repository if not given, and exchanges the JWT for an installation token
// (valid one hour), minting a new one shortly before it expires. It mints the
// first token at once, so that a bad key or id fails here.
func AppTokens(ctx context.Context, o AppOptions) (oauth2.TokenSource, error) {
	key, err := jwt.ParseRSAPrivateKeyFromPEM(o.PrivateKey)
	if err != nil {
		return nil, fmt.Errorf("github app: private key: %w", err)
	}
	if o.AppID <= 0 {
		return nil, errors.New("github app: no app id")
	}
	clock := o.Clock
	if clock == nil {
		clock = SystemClock
	}
	minted := o.Minted
	if minted == nil {
		minted = func(string) {}
	}
	jwts := &jwtSource{appID: o.AppID, key: key, clock: clock, minted: minted}
	api, err := apiURL(o.APIURL)
	if err != nil {
		return nil, err
	}
	c := gh.NewClient(httpClient(Options{HTTP: o.HTTP, Clock: clock, Tokens: jwts, Counter: o.Counter}, api))
	c.BaseURL = api
	id := o.InstallationID
	switch {
	case id != 0:
	case o.Repo == "" && o.Owner != "":
		if id, err = ownerInstallation(ctx, c, o.Owner); err != nil {
			return nil, fmt.Errorf("github app %d: finding its installation on %s: %w", o.AppID, o.Owner, err)
		}
	default:
		owner, repo, err := SplitRepo(o.Repo)
		if err != nil {
			return nil, err
		}
		inst, _, err := c.Apps.FindRepositoryInstallation(ctx, owner, repo)
		if err != nil {
			return nil, fmt.Errorf("github app %d: finding its installation on %s: %w", o.AppID, o.Repo, err)
		}
		id = inst.GetID()
	}
	src := &installationSource{ctx: ctx, client: c, id: id, appID: o.AppID, minted: minted}
	tok, err := src.Token()
	if err != nil {
		return nil, err
	}
	// Renew five minutes before expiry.
	return oauth2.ReuseTokenSourceWithExpiry(tok, src, 5*time.Minute), nil
}

// jwtSource signs the App's JWTs: issued a minute in the past against clock
// drift, valid nine minutes (GitHub allows ten).
type jwtSource struct {
	appID  int64
	key    *rsa.PrivateKey
	clock  Clock
	minted func(string)
	mu     sync.Mutex
	cur    *oauth2.Token
}

func (s *jwtSource) Token() (*oauth2.Token, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.clock.Now()
	if s.cur != nil && now.Before(s.cur.Expiry.Add(-time.Minute)) {
		return s.cur, nil
	}
	exp := now.Add(9 * time.Minute)
	claims := jwt.RegisteredClaims{
		Issuer:    strconv.FormatInt(s.appID, 10),
		IssuedAt:  jwt.NewNumericDate(now.Add(-time.Minute)),
		ExpiresAt: jwt.NewNumericDate(exp),
	}
	signed, err := jwt.NewWithClaims(jwt.SigningMethodRS256, claims).SignedString(s.key)
	if err != nil {
		return nil, fmt.Errorf("github app: signing the JWT: %w", err)
	}
	s.minted(signed)
	s.cur = &oauth2.Token{AccessToken: signed, TokenType: "Bearer", Expiry: exp}
	return s.cur, nil
}

// installationSource mints installation tokens.
type installationSource struct {
	ctx    context.Context
	client *gh.Client
	id     int64
	appID  int64
	minted func(string)
}

func (s *installationSource) Token() (*oauth2.Token, error) {
	it, _, err := s.client.Apps.CreateInstallationToken(s.ctx, s.id, nil)
	if err != nil {
		return nil, fmt.Errorf("github app %d: creating a token for installation %d: %w", s.appID, s.id, err)
	}
	s.minted(it.GetToken())
	return &oauth2.Token{AccessToken: it.GetToken(), TokenType: "Bearer", Expiry: it.GetExpiresAt().Time}, nil
}

// ownerInstallation finds the App's installation on an organisation, else
// on a user.
func ownerInstallation(ctx context.Context, c *gh.Client, owner string) (int64, error) {
	inst, _, err := c.Apps.FindOrganizationInstallation(ctx, owner)
	if status(err) == http.StatusNotFound {
		inst, _, err = c.Apps.FindUserInstallation(ctx, owner)
	}
	switch {
	case status(err) == http.StatusNotFound:
		return 0, fmt.Errorf("%w (is %s an organisation or a user the App is installed on?)", ErrNoInstallation, owner)
	case err != nil:
		return 0, err
	}
	return inst.GetID(), nil
}
