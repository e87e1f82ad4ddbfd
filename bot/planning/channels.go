package planning

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"

	"github.com/pinbot-dev/pinbot/bot/planning/plan"
	"github.com/pinbot-dev/pinbot/pins"
	"github.com/pinbot-dev/pinbot/sources"
	"github.com/pinbot-dev/pinbot/sources/conda"
	"github.com/pinbot-dev/pinbot/web"
)

// An asker asks each source for a package's releases once per lookup, at
// most Concurrency requests at a time, whoever asks: the pins whose channel
// lists share a channel share its answer.
type asker struct {
	c   *Checker
	ctx context.Context
	log *slog.Logger
	sem chan struct{}

	mu      sync.Mutex
	answers map[[2]string]*answer // by package and source
}

// An answer is what one source said of one package, once it has said it.
type answer struct {
	once sync.Once
	l    plan.Lookup
}

func (c *Checker) newAsker(ctx context.Context, log *slog.Logger) *asker {
	return &asker{c: c, ctx: ctx, log: log, sem: make(chan struct{}, max(cmp.Or(c.Concurrency, 4), 1)), answers: map[[2]string]*answer{}}
}

// ask returns what src says of pkg, asking it the first time. A cancelled
// context ends the lookups still waiting with its error.
func (a *asker) ask(pkg, src string) plan.Lookup {
	a.mu.Lock()
	an := a.answers[[2]string{pkg, src}]
	if an == nil {
		an = &answer{}
		a.answers[[2]string{pkg, src}] = an
	}
	a.mu.Unlock()
	an.once.Do(func() { an.l = a.fetch(pkg, src) })
	return an.l
}

func (a *asker) fetch(pkg, name string) plan.Lookup {
	l := plan.Lookup{Source: name}
	select {
	case a.sem <- struct{}{}:
	case <-a.ctx.Done():
		l.Err = web.ContextError(a.ctx)
		return l
	}
	defer func() { <-a.sem }()
	if a.ctx.Err() != nil {
		l.Err = web.ContextError(a.ctx)
		return l
	}
	src, err := a.c.source(name)
	if err != nil {
		l.Err = err
		return l
	}
	a.log.Info("looking up releases", "package", pkg, "source", name)
	l.Releases, l.Err = src.Releases(a.ctx, pkg)
	// A not-found is no failure yet: the next channel of a list may have
	// the package (resolve says which failed).
	if l.Err != nil && !errors.Is(l.Err, sources.ErrNotFound) {
		a.log.Warn("lookup failed", "package", pkg, "source", name, "err", l.Err)
	}
	return l
}

// A chainID names the chain a pin follows without reading it: the pins of
// one file share its channel list (Pin.Channels, whose first entry they all
// point to), so a list is walked once per package however long it is and
// however many pins follow it.
type chainID struct {
	list *pins.Channel
	n    int
	src  string // the pin's source, for a pin that follows no list
}

func chainOf(p pins.Pin) chainID {
	if len(p.Channels) > 0 {
		return chainID{list: &p.Channels[0], n: len(p.Channels)}
	}
	return chainID{src: p.Source}
}

// A chainWalk is one chain of a package's pins and the pins that follow it.
type chainWalk struct {
	chain   []pins.Channel
	pins    []int // indexes in the package's pins
	governs int   // the index in chain of the channel that governs them (govern)
}

// chain returns the sources a pin follows, in the order they are asked,
// each named as the source that answers to it is: the channels of its
// file's list (Pin.Channels, each channel once, named as its Source is);
// for a conda pin whose file names no channel (the "conda" alias), the
// configured channels (sources.conda.channels), which play the part of
// conda's own channel list; else the pin's one source.
func (c *Checker) chain(p pins.Pin) []pins.Channel {
	if len(p.Channels) > 0 {
		return p.Channels
	}
	if configured := c.Config.Sources.Conda.Channels; p.Source == conda.Alias && len(configured) > 1 {
		var out []pins.Channel
		for _, name := range configured {
			if !slices.ContainsFunc(out, func(o pins.Channel) bool { return o.Name == name }) {
				out = append(out, pins.Channel{Name: name})
			}
		}
		return out
	}
	return []pins.Channel{{Name: c.canonical(p.Source), At: p.SourceAt}}
}

// canonical returns the name of the configured source a name selects (the
// "conda" alias selects the first configured channel), or the name itself:
// a channel a pin file names is its own name (Channels), and is made only
// when it is asked, so that the channels of a list after the one that
// answers count for nothing against conda.MaxNamed.
func (c *Checker) canonical(name string) string {
	if src, ok := c.Sources[name]; ok {
		return src.Name()
	}
	return name
}

// govern returns the index of the channel of chain that governs a pin of
// pkg, as conda and pixi (strict or flexible channel priority) take a
// package from the first channel that has it: a channel that does not have
// the package (an error wrapping sources.ErrNotFound: a 404) passes it to
// the next, as a "," in GOPROXY does; the first that answers, or that fails
// in any other way (an error status, a timeout, a channel pinbot does not
// ask), governs, and its failure is the pin's, never taken for a not-found.
// A chain of one channel is governed by it. When no channel of a longer
// chain has the package, govern returns -1.
func govern(chain []pins.Channel, ask func(string) plan.Lookup, log func(ch, next string)) int {
	for i, ch := range chain {
		l := ask(ch.Name)
		if l.Err == nil || !errors.Is(l.Err, sources.ErrNotFound) || len(chain) == 1 {
			return i
		}
		if i+1 < len(chain) {
			log(ch.Name, chain[i+1].Name)
		}
	}
	return -1
}

// chainKey names the failure of a chain none of whose channels has the
// package: its channels, as the failure reads ("numba, conda-forge").
func chainKey(chain []pins.Channel) string {
	names := make([]string, len(chain))
	for i, ch := range chain {
		names[i] = ch.Name
	}
	return strings.Join(names, ", ")
}

// listPlace is where a file names a chain: at its first entry, keyed by
// the list ("channels", "tool.pixi.workspace.channels"); the zero Place
// for the configured channels.
func listPlace(chain []pins.Channel) pins.Place {
	at := chain[0].At
	if i := strings.LastIndexByte(at.Key, '['); i > 0 {
		at.Key = at.Key[:i]
	}
	return at
}

// A notOnChannels is the failure of a pin none of whose channels has its
// package: each channel's not-found, which it wraps.
type notOnChannels struct {
	pkg  string
	errs []plan.Lookup
}

func (e *notOnChannels) Error() string {
	parts := make([]string, len(e.errs))
	for i, l := range e.errs {
		parts[i] = l.Source + ": " + l.Err.Error()
	}
	return fmt.Sprintf("none of them has %s (%s)", e.pkg, strings.Join(parts, "; "))
}

func (e *notOnChannels) Unwrap() []error {
	out := make([]error, len(e.errs))
	for i, l := range e.errs {
		out[i] = l.Err
	}
	return out
}

// resolve sets, in place, the Source of each pin of walks to the channel of
// its chain that governs it (govern), and the SourceAt of one that follows
// its file's list to where the list names that channel; it returns the
// lookups that speak for the package's pins and requirements: one per
// source, in source order. The pins of a chain none of whose channels has
// the package follow a source named by its channels (chainKey), placed at
// their file's list (listPlace), whose lookup fails with a *notOnChannels:
// those pins fail alone (plan.Make).
func (a *asker) resolve(pkg string, ps []pins.Pin, walks []*chainWalk, required []string) []plan.Lookup {
	var out []plan.Lookup
	add := func(l plan.Lookup) {
		if !slices.ContainsFunc(out, func(o plan.Lookup) bool { return o.Source == l.Source }) {
			out = append(out, l)
		}
	}
	for _, w := range walks {
		var src string
		var at pins.Place
		if g := w.governs; g >= 0 {
			src, at = w.chain[g].Name, w.chain[g].At
			add(a.ask(pkg, src))
		} else {
			src, at = chainKey(w.chain), listPlace(w.chain)
			failed := &notOnChannels{pkg: pkg}
			for _, ch := range w.chain {
				failed.errs = append(failed.errs, a.ask(pkg, ch.Name))
			}
			add(plan.Lookup{Source: src, Err: failed})
		}
		for _, i := range w.pins {
			ps[i].Source = src
			if len(ps[i].Channels) > 0 {
				ps[i].SourceAt = at // a pin that follows no list keeps its own
			}
		}
	}
	for _, r := range required {
		add(a.ask(pkg, r))
	}
	slices.SortFunc(out, func(x, y plan.Lookup) int { return strings.Compare(x.Source, y.Source) })
	for _, l := range out {
		if errors.Is(l.Err, sources.ErrNotFound) {
			a.log.Warn("lookup failed", "package", pkg, "source", l.Source, "err", l.Err)
		}
	}
	return out
}
