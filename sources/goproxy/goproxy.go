// Package goproxy reads the versions of Go modules through the module proxy
// protocol (https://go.dev/ref/mod#goproxy-protocol): GET $GOPROXY/MODULE/@v/list
// for the versions, .../@v/VERSION.info for their times, and the latest
// version's .../@v/VERSION.mod for retractions, with module paths and versions
// case-escaped (golang.org/x/mod/module.EscapePath).
//
// The proxy list follows GOPROXY (https://go.dev/ref/mod#environment-variables):
// after a "," the next entry is tried only when the module is not found (404 or
// 410); after a "|", on any error. "off" forbids downloads and "direct" means
// version control, which pinbot does not reach: both end the walk with an error
// that says so. Modules matching GONOPROXY (or GOPRIVATE) never go to the
// GOPROXY list; they are read from Options.URL when set, else refused as
// private. A module's lookup on one proxy, all its requests together, takes at
// most Options.Budget; a proxy that runs out of it is an error, so the walk
// goes on only after a "|", and a timeout is never reported as not found.
// Versions are semantic versions with a "v" (compare them with
// versions/semver); pseudo-versions are skipped, and retracted versions are
// yanked with the retraction's rationale.
package goproxy

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
	"golang.org/x/mod/semver"

	"github.com/pinbot-dev/pinbot/sources"
	"github.com/pinbot-dev/pinbot/web"
)

// Name is the source's identifier.
const Name = "goproxy"

// maxGoMod bounds a go.mod read for retractions: real ones are kilobytes, and
// parsing costs a few hundred bytes a line.
const maxGoMod = 4 << 20

// Scheme is the version scheme of Go modules.
const Scheme = "semver"

// DefaultGOPROXY is the go command's default proxy list.
const DefaultGOPROXY = "https://proxy.golang.org,direct"

// Options configure a Source. They come from the environment the go command
// reads, passed in by the caller.
type Options struct {
	// GOPROXY is the proxy list (default DefaultGOPROXY).
	GOPROXY string
	// NoProxy is GONOPROXY, or GOPRIVATE when GONOPROXY is unset: comma-separated
	// glob patterns of module path prefixes that must not go through GOPROXY.
	NoProxy string
	// URL, when set, is the one proxy every module is read from, private ones
	// included (sources.goproxy.url); GOPROXY is then ignored.
	URL string
	// InfoLimit is how many of the newest versions get their .info fetched for
	// a release time (default 20); older releases have no time.
	InfoLimit int
	// Budget bounds one module's lookup on one proxy, all its requests
	// together (no bound when zero). Set it to the HTTP client's
	// web.Policy.WorstCase: each request has a budget of its own, and a
	// lookup of several (@v/list, then .info files, then a go.mod) would
	// otherwise take a budget per request when the proxy hangs. Each proxy
	// the GOPROXY list moves on to gets a Budget of its own, as the go
	// command gives each its own try.
	Budget time.Duration
}

// A proxy is one entry of the list.
type proxy struct {
	url string // a URL, "direct" or "off"
	// fallBackOnError: the entry was followed by "|", so any error moves on.
	fallBackOnError bool
}

// A Source lists module versions through module proxies. It is safe for
// concurrent use.
type Source struct {
	proxies []proxy
	private string // patterns; "" for none
	direct  string // Options.URL, for private modules
	limit   int
	budget  time.Duration
	hc      *http.Client
}

var (
	_ sources.Source  = (*Source)(nil)
	_ sources.Schemer = (*Source)(nil)
)

// New returns a source for o, or an error if GOPROXY does not parse.
func New(o Options, hc *http.Client) (*Source, error) {
	s := &Source{private: o.NoProxy, limit: o.InfoLimit, budget: o.Budget, hc: hc}
	if s.limit <= 0 {
		s.limit = 20
	}
	if o.URL != "" {
		s.direct = strings.TrimRight(o.URL, "/")
		s.proxies = []proxy{{url: s.direct}}
		return s, nil
	}
	list := o.GOPROXY
	if list == "" {
		list = DefaultGOPROXY
	}
	var err error
	if s.proxies, err = parseList(list); err != nil {
		return nil, err
	}
	return s, nil
}

// parseList reads a GOPROXY value.
func parseList(list string) ([]proxy, error) {
	var out []proxy
	for list != "" {
		entry, sep := list, byte(0)
		if i := strings.IndexAny(list, ",|"); i >= 0 {
			entry, sep, list = list[:i], list[i], list[i+1:]
		} else {
			list = ""
		}
		entry = strings.TrimSpace(entry)
		if entry == "" {
			continue
		}
		if entry != "direct" && entry != "off" {
			if !strings.Contains(entry, "://") {
				entry = "https://" + entry
			}
			u, err := url.Parse(entry)
			if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
				return nil, fmt.Errorf("GOPROXY: %q is not an http(s) proxy URL, direct or off", web.Redact(entry))
			}
			entry = strings.TrimRight(entry, "/")
		}
		out = append(out, proxy{url: entry, fallBackOnError: sep == '|'})
	}
	if len(out) == 0 {
		return nil, errors.New("GOPROXY lists no proxy")
	}
	return out, nil
}

// Name returns "goproxy".
func (*Source) Name() string { return Name }

// Scheme returns "semver".
func (*Source) Scheme() string { return Scheme }

// Releases returns the tagged versions of the module at path, newest times
// first filled in. A module no proxy has gives an error wrapping
// sources.ErrNotFound; one that a proxy failed to answer for (an error, a
// timeout) does not, whatever the proxies after it say. The lookup on each
// proxy takes at most Options.Budget; past it, the error is a
// *web.BudgetError naming the module and the proxy.
func (s *Source) Releases(ctx context.Context, path string) ([]sources.Release, error) {
	esc, err := module.EscapePath(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	proxies := s.proxies
	if s.private != "" && module.MatchPrefixPatterns(s.private, path) {
		if s.direct == "" {
			return nil, fmt.Errorf("%s is a private module (GONOPROXY/GOPRIVATE %q matches it), and pinbot reads modules only through a proxy: set sources.goproxy.url or PINBOT_GOPROXY_URL to a proxy that serves it", path, s.private)
		}
		proxies = []proxy{{url: s.direct}}
	}
	var failed error // what the proxies tried so far said
	for _, p := range proxies {
		switch p.url {
		case "off":
			return nil, join(fmt.Errorf("%s: GOPROXY=off forbids module downloads", path), failed)
		case "direct":
			return nil, join(fmt.Errorf("%s: GOPROXY continues with direct, which pinbot does not support (it reads modules through a proxy, never from version control)", path), failed)
		}
		rs, err := s.fromProxy(ctx, p.url, path, esc)
		if err == nil {
			return rs, nil
		}
		failed = then(failed, err)
		if ctx.Err() != nil || !(p.fallBackOnError || errors.Is(err, fs.ErrNotExist)) {
			return nil, failed
		}
	}
	return nil, failed
}

// then returns what a walk reports after a proxy failed with err, the proxies
// before it with prev. As in the go command, a proxy's failure to answer (an
// error, a timeout) outranks a not-found: the module may well be on that
// proxy, so the result wraps sources.ErrNotFound only when every proxy said
// not found (a "|" list moving on from a hung proxy to one that does not
// have the module is an error, not a module that does not exist, which
// dependency checks would skip). The later proxies' answers are kept in the
// text.
func then(prev, err error) error {
	switch {
	case prev == nil, errors.Is(prev, fs.ErrNotExist):
		return err // the last not-found, or the failure a "," walk ends with
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%w; then %s", prev, err.Error()) // not wrapped: not a not-found
	default:
		return join(err, prev)
	}
}

// join puts the error that led to the end of the list after err.
func join(err, prev error) error {
	if prev == nil {
		return err
	}
	return fmt.Errorf("%w; before that: %w", err, prev)
}

// fromProxy looks path up on the proxy at base, within the lookup's budget.
func (s *Source) fromProxy(ctx context.Context, base, path, esc string) ([]sources.Release, error) {
	lookup, cancel := web.WithBudget(ctx, s.budget, fmt.Sprintf("the lookup of %s on the Go module proxy %s", path, web.Redact(base)))
	defer cancel()
	rs, err := s.read(lookup, base, path, esc)
	return rs, web.BudgetEnded(lookup, ctx, err)
}

// read fetches path's list, times and retractions from the proxy at base.
func (s *Source) read(ctx context.Context, base, path, esc string) ([]sources.Release, error) {
	u := base + "/" + esc + "/@v/list"
	body, err := web.GetWithin(ctx, s.hc, u, nil)
	if err != nil {
		return nil, err
	}
	vs, err := decodeList(u, body)
	if err != nil {
		return nil, err
	}
	semver.Sort(vs)
	out := make([]sources.Release, len(vs))
	for i, v := range vs {
		ev, _ := module.EscapeVersion(v)
		out[i] = sources.Release{Version: v, Files: []sources.File{{
			Name: v + ".zip", URL: base + "/" + esc + "/@v/" + ev + ".zip", Kind: sources.KindZip,
		}}}
	}
	if len(out) == 0 {
		return out, nil
	}
	if err := s.times(ctx, base, esc, out); err != nil {
		return nil, err
	}
	if err := s.retractions(ctx, base, path, esc, out); err != nil {
		return nil, err
	}
	return out, nil
}

// times fetches the .info of the newest releases (rs is sorted ascending).
func (s *Source) times(ctx context.Context, base, esc string, rs []sources.Release) error {
	// The first failure stops the rest: a proxy that hangs costs one
	// request's time, not one per version.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	outer := ctx
	sem := make(chan struct{}, 4)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	for i := len(rs) - 1; i >= max(0, len(rs)-s.limit); i-- {
		r := &rs[i]
		wg.Go(func() {
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				return
			}
			defer func() { <-sem }()
			ev, _ := module.EscapeVersion(r.Version)
			u := base + "/" + esc + "/@v/" + ev + ".info"
			body, err := web.GetWithin(ctx, s.hc, u, nil)
			if err == nil {
				var t time.Time
				if t, err = decodeInfo(u, r.Version, body); err == nil {
					r.Time, r.Files[0].Time = t, t
					return
				}
			}
			if errors.Is(err, fs.ErrNotExist) {
				return // listed but not served: no time, as for older versions
			}
			mu.Lock()
			defer mu.Unlock()
			if firstErr == nil {
				firstErr = err
				cancel()
			}
		})
	}
	wg.Wait()
	if firstErr != nil {
		return firstErr
	}
	return web.ContextError(outer) // the cause: a lookup's budget, a run's --timeout
}

// retractions reads the retract directives of the latest version's go.mod (the
// highest release, or the highest pre-release if there is none) and yanks the
// versions they cover.
func (s *Source) retractions(ctx context.Context, base, path, esc string, rs []sources.Release) error {
	latest := rs[len(rs)-1].Version
	for i := len(rs) - 1; i >= 0; i-- {
		if semver.Prerelease(rs[i].Version) == "" {
			latest = rs[i].Version
			break
		}
	}
	ev, _ := module.EscapeVersion(latest)
	u := base + "/" + esc + "/@v/" + ev + ".mod"
	body, err := web.GetWithin(ctx, s.hc, u, nil)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if be := (*web.BudgetError)(nil); errors.As(err, &be) {
		return err // names the lookup and the go.mod left unanswered
	}
	if err != nil {
		return fmt.Errorf("reading retractions: %w", err)
	}
	if len(body) > maxGoMod {
		return fmt.Errorf("reading retractions: %s: a go.mod of %d bytes (limit %d)", web.Redact(u), len(body), maxGoMod)
	}
	f, err := modfile.ParseLax(web.Redact(u), body, nil)
	if err != nil {
		return fmt.Errorf("reading retractions: %w", err)
	}
	for _, rt := range f.Retract {
		for i := range rs {
			v := rs[i].Version
			if semver.Compare(v, rt.Low) >= 0 && semver.Compare(v, rt.High) <= 0 {
				rs[i].Yanked = true
				rs[i].YankedReason = "retracted in " + latest
				if rt.Rationale != "" {
					rs[i].YankedReason += ": " + rt.Rationale
				}
				rs[i].Files[0].Yanked = true
			}
		}
	}
	return nil
}
