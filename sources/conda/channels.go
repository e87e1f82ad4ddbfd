package conda

import (
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"sync"

	"github.com/pinbot-dev/pinbot/sources"
)

// MaxNamed bounds how many channels the pin files of one run may name beyond
// the configured ones: a real repository names a few, and each is asked once
// per watched package, so a hostile tree naming thousands (one
// "chanN::numba" a line) cannot turn a run into as many requests.
const MaxNamed = 16

// channelName is the grammar of a channel pinbot asks by name: an
// anaconda.org owner, optionally with a label ("numba/label/dev").
var channelName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*(/label/[A-Za-z0-9._-]+)?$`)

// ValidChannel reports whether name is a channel pinbot can ask on a channel
// host: an owner such as conda-forge, or a label channel such as
// numba/label/dev. It is the one rule for configured channels and for those
// pin files name.
func ValidChannel(name string) bool { return len(name) <= 200 && channelName.MatchString(name) }

// Channels are the conda channels of one run, by name: the configured ones
// (sources.conda.channels) and, made on first use, any other a pin file names
// (an environment file's channels list, a "numba::numba" spec, a pixi
// dependency's channel), asked on the configured host with the configured
// options, as conda would ask it on that host. A name that is not a channel
// on the host (a URL of another host, a name outside ValidChannel) is never
// asked. Channels is a sources.Registry and safe for concurrent use; each
// channel is one Source, shared by all who ask for it, so its shard indexes
// are fetched once.
type Channels struct {
	opts Options // every option but Channel
	hc   *http.Client

	mu         sync.Mutex
	byName     map[string]*Source
	configured []*Source
	named      int // channels made for pin files
}

var _ sources.Registry = (*Channels)(nil)

// NewChannels returns the channels of a run: one Source per configured
// channel (default conda-forge), each made with o and its name, and the means
// to make others with o.
func NewChannels(o Options, configured []string, hc *http.Client) *Channels {
	if len(configured) == 0 {
		configured = []string{DefaultChannel}
	}
	o.Channel = ""
	c := &Channels{opts: o, hc: hc, byName: map[string]*Source{}}
	for _, name := range configured {
		if _, ok := c.byName[name]; ok {
			continue
		}
		src := c.make(name)
		c.byName[name] = src
		c.configured = append(c.configured, src)
	}
	return c
}

// Configured returns the sources of the configured channels, in the
// configuration's order: the first is what conda pins whose file names no
// channel follow (Alias).
func (c *Channels) Configured() []*Source { return c.configured }

// Source returns the channel's Source: a configured one, else one made on
// first use for a channel a pin file names. The error says why a name cannot
// be asked: a channel on another host, a name that is no channel, or more
// than MaxNamed channels named.
func (c *Channels) Source(name string) (sources.Source, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if src, ok := c.byName[name]; ok {
		return src, nil
	}
	switch {
	case strings.Contains(name, "://"):
		return nil, fmt.Errorf("%s is a channel on another host: pinbot asks channels only on the configured conda host (sources.conda.url, sources.conda.repodata-url)", name)
	case !ValidChannel(name):
		return nil, fmt.Errorf("%q is not a channel name pinbot asks (such as conda-forge, or numba/label/dev)", name)
	case c.named >= MaxNamed:
		return nil, fmt.Errorf("%s: the pin files name more than %d channels besides sources.conda.channels; the others are not asked", name, MaxNamed)
	}
	src := c.make(name)
	c.byName[name] = src
	c.named++
	return src, nil
}

func (c *Channels) make(name string) *Source {
	o := c.opts
	o.Channel = name
	return New(o, c.hc)
}
