package main

import (
	"context"
	"net/http"
	"slices"
	"time"

	"github.com/pinbot-dev/pinbot/config"
	"github.com/pinbot-dev/pinbot/sources"
	"github.com/pinbot-dev/pinbot/sources/conda"
	"github.com/pinbot-dev/pinbot/sources/findlinks"
	"github.com/pinbot-dev/pinbot/sources/goproxy"
	"github.com/pinbot-dev/pinbot/sources/pypi"
)

// condaAlias is the source name of conda pins whose file names no channel; it
// selects the first configured channel (sources/conda/README.md).
const condaAlias = conda.Alias

// newSources builds the release sources the configuration describes: "pypi"
// (the JSON API, or the simple API with sources.pypi.api: simple), one source
// per conda channel named by the channel (default conda-forge) plus the
// "conda" alias for the first, and "goproxy", which follows GOPROXY,
// GONOPROXY and GOPRIVATE from getenv unless sources.goproxy.url names the one
// proxy to use. The conda channels are those of the returned registry, which
// makes on first use any other channel a pin file names, with the same
// options (conda.Channels): planning and the checks ask it for channels the
// map does not hold. A conda lookup on a channel and a Go module's lookup on
// a proxy, several requests each, take at most lookup, the time one request
// of hc may take (web.Policy.WorstCase).
func newSources(cfg *config.Config, hc *http.Client, lookup time.Duration, getenv func(string) string) (map[string]sources.Source, *conda.Channels) {
	out := map[string]sources.Source{}
	if cfg.Sources.PyPI.API == pypi.SimpleAPI {
		out[pypi.Name] = pypi.NewSimple(cfg.Sources.PyPI.URL, hc)
	} else {
		out[pypi.Name] = pypi.New(cfg.Sources.PyPI.URL, hc)
	}

	cc := cfg.Sources.Conda
	// Shards are read for the platforms the packages require (conda's default
	// subdirs for a package that names none), and noarch.
	var subdirs []string
	for _, p := range cfg.Packages {
		platforms := conda.DefaultSubdirs
		if p != nil && len(p.Platforms) > 0 {
			platforms = p.Platforms
		}
		for _, pl := range platforms {
			if !slices.Contains(subdirs, pl) {
				subdirs = append(subdirs, pl)
			}
		}
	}
	slices.Sort(subdirs)
	channels := conda.NewChannels(conda.Options{APIURL: cc.URL, Labels: cc.Labels, RepodataURL: cc.RepodataURL, Subdirs: subdirs,
		Budget: lookup}, cc.Channels, hc)
	for i, src := range channels.Configured() {
		out[src.Name()] = src
		if i == 0 {
			out[condaAlias] = src
		}
	}

	noProxy := getenv("GONOPROXY")
	if noProxy == "" {
		noProxy = getenv("GOPRIVATE")
	}
	gp, err := goproxy.New(goproxy.Options{GOPROXY: getenv("GOPROXY"), NoProxy: noProxy, URL: cfg.Sources.GoProxy.URL,
		Budget: lookup}, hc)
	if err != nil {
		out[goproxy.Name] = failing{name: goproxy.Name, scheme: goproxy.Scheme, err: err}
	} else {
		out[goproxy.Name] = gp
	}
	return out, channels
}

// newNightlies builds the nightly source of each package that names one
// (early-warning: {nightly: ...}; config.Package.NightlySource), by
// package key: a PEP 503/691 index read by sources/pypi's simple API, a
// find-links page by sources/findlinks, the package's own PyPI source asked
// for another project (tf-nightly), or a conda channel of the run's
// registry (made on first use, shared with the checks, as a channel a pin
// file names is). Packages naming one place share its source. Every one
// reads through hc, with web's bounds, as the other sources do.
func newNightlies(cfg *config.Config, srcs map[string]sources.Source, channels sources.Registry, hc *http.Client) map[string]sources.Source {
	out := map[string]sources.Source{}
	made := map[config.Nightly]sources.Source{}
	for _, name := range cfg.Watched() {
		n, ok := cfg.Packages[name].NightlySource()
		if !ok {
			continue
		}
		src, ok := made[n]
		if !ok {
			switch n.Kind() {
			case config.NightlyIndex:
				src = pypi.NewSimple(n.Index, hc)
			case config.NightlyFindLinks:
				src = findlinks.New(n.FindLinks, hc)
			case config.NightlyProject:
				src = renamed{src: srcs[pypi.Name], project: n.Project}
			default:
				var err error
				if src, err = channels.Source(n.Channel); err != nil {
					src = failing{name: n.Channel, scheme: conda.Scheme, err: err}
				}
			}
			made[n] = src
		}
		out[name] = src
	}
	return out
}

// renamed asks its source for another project than the package's name: a
// package's nightly builds published on its own index under another name
// (tf-nightly for tensorflow).
type renamed struct {
	src     sources.Source
	project string
}

func (r renamed) Name() string   { return r.src.Name() }
func (r renamed) Scheme() string { return sources.SchemeOf(r.src) }
func (r renamed) Releases(ctx context.Context, _ string) ([]sources.Release, error) {
	return r.src.Releases(ctx, r.project)
}

// failing is a source that could not be set up: every lookup reports why, so
// only the packages that need it fail.
type failing struct {
	name, scheme string
	err          error
}

func (s failing) Name() string   { return s.name }
func (s failing) Scheme() string { return s.scheme }
func (s failing) Releases(context.Context, string) ([]sources.Release, error) {
	return nil, s.err
}
