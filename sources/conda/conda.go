// Package conda reads the releases of conda packages in one channel, from the
// anaconda.org package API (GET /package/CHANNEL/NAME, undocumented; shapes in
// pinbot's reference notes) or from CEP-16 sharded repodata
// (https://github.com/conda/ceps/blob/main/cep-0016.md) when a channel host
// serving it is configured.
//
// A Source is one channel and is named by it ("conda-forge"), so that
// configuration can require a release on a given channel. A file counts when it
// carries one of the configured labels (default "main"); a file labelled
// "broken" (conda-forge's way of pulling a build) is a yanked file, and a
// release whose counted files are all yanked is yanked. Each file carries its
// platform subdir ("linux-64", "osx-arm64", "noarch"). Versions are conda
// versions: compare them with versions/conda, not PEP 440.
package conda

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/pinbot-dev/pinbot/sources"
	"github.com/pinbot-dev/pinbot/web"
)

// Scheme is the version scheme of conda packages.
const Scheme = "conda"

// Defaults for Options.
const (
	DefaultAPIURL  = "https://api.anaconda.org"
	DefaultChannel = "conda-forge"
)

// Alias is the source name of conda pins whose file names no channel: it
// selects the first configured channel (README.md).
const Alias = "conda"

// maxDepends bounds the run requirements of one package file: real ones
// have tens.
const maxDepends = 4096

// DefaultSubdirs are the subdirs read from sharded repodata when none are
// configured.
var DefaultSubdirs = []string{"linux-64", "osx-arm64", "win-64", "noarch"}

// DefaultLabels are the labels that count when none are configured.
var DefaultLabels = []string{"main"}

// Options configure a Source.
type Options struct {
	// Channel is the channel, and the source's name (default conda-forge).
	Channel string
	// APIURL is the anaconda.org API (default DefaultAPIURL).
	APIURL string
	// Labels are the labels whose files count (default DefaultLabels).
	Labels []string
	// RepodataURL is a host serving CEP-16 sharded repodata for the channel at
	// RepodataURL/CHANNEL/SUBDIR/repodata_shards.msgpack.zst (such as
	// https://prefix.dev). When set it is used instead of the API; repodata
	// holds only the main label, so Labels does not apply.
	RepodataURL string
	// Subdirs are the subdirs read from sharded repodata (default
	// DefaultSubdirs); noarch is always read.
	Subdirs []string
	// Budget bounds one package's lookup, all its requests together (no
	// bound when zero). Set it to the HTTP client's web.Policy.WorstCase:
	// each request has a budget of its own, and a lookup of several (shard
	// indexes, then shards) would otherwise take a budget per request when
	// the channel hangs.
	Budget time.Duration
}

// A Source lists the releases of packages in one conda channel. It is safe for
// concurrent use; shard indexes are fetched once per Source and shared.
type Source struct {
	opts Options
	hc   *http.Client

	mu      sync.Mutex
	indexes map[string]*indexFetch // by subdir
}

var (
	_ sources.Source  = (*Source)(nil)
	_ sources.Schemer = (*Source)(nil)
)

// New returns a source for the channel o describes, fetching through hc.
func New(o Options, hc *http.Client) *Source {
	if o.Channel == "" {
		o.Channel = DefaultChannel
	}
	if o.APIURL == "" {
		o.APIURL = DefaultAPIURL
	}
	o.APIURL = strings.TrimRight(o.APIURL, "/")
	o.RepodataURL = strings.TrimRight(o.RepodataURL, "/")
	if len(o.Labels) == 0 {
		o.Labels = DefaultLabels
	}
	if _, label, ok := splitLabel(o.Channel); ok {
		o.Labels = []string{label} // the channel names the one label that counts
	}
	if len(o.Subdirs) == 0 {
		o.Subdirs = DefaultSubdirs
	}
	var subdirs []string
	for _, sd := range append(append([]string(nil), o.Subdirs...), "noarch") {
		if !contains(subdirs, sd) {
			subdirs = append(subdirs, sd)
		}
	}
	o.Subdirs = subdirs
	return &Source{opts: o, hc: hc, indexes: map[string]*indexFetch{}}
}

// Name returns the channel.
func (s *Source) Name() string { return s.opts.Channel }

// Scheme returns "conda".
func (*Source) Scheme() string { return Scheme }

// Releases returns every release of pkg in the channel. A package the channel
// does not have gives an error wrapping sources.ErrNotFound. The lookup takes
// at most Options.Budget, all its requests included; past it, the error is a
// *web.BudgetError naming the package and the channel.
func (s *Source) Releases(ctx context.Context, pkg string) ([]sources.Release, error) {
	pkg = strings.ToLower(pkg)
	lookup, cancel := web.WithBudget(ctx, s.opts.Budget, fmt.Sprintf("the lookup of %s on the conda channel %s", pkg, s.opts.Channel))
	defer cancel()
	var rs []sources.Release
	var err error
	if s.opts.RepodataURL != "" {
		rs, err = s.fromShards(lookup, ctx, pkg)
	} else {
		rs, err = s.fromAPI(lookup, pkg)
	}
	err = web.BudgetEnded(lookup, ctx, err)
	for i := range rs {
		for j := range rs[i].Files {
			rs[i].Files[j].Channel = s.opts.Channel
		}
	}
	return rs, err
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// group makes one release per version from files, keeping first-seen order,
// plus a release without files for each listed version that has none.
func group(files []sources.File, versionOf func(int) string, listed []string) []sources.Release {
	byV := map[string]int{}
	var out []sources.Release
	for i, f := range files {
		v := versionOf(i)
		if v == "" {
			continue
		}
		j, ok := byV[v]
		if !ok {
			j = len(out)
			byV[v] = j
			out = append(out, sources.Release{Version: v})
		}
		out[j].Files = append(out[j].Files, f)
	}
	for _, v := range listed {
		if _, ok := byV[v]; !ok && v != "" {
			byV[v] = len(out)
			out = append(out, sources.Release{Version: v})
		}
	}
	for i := range out {
		r := &out[i]
		r.Yanked = len(r.Files) > 0
		for _, f := range r.Files {
			if !f.Yanked {
				r.Yanked = false
			}
			if !f.Time.IsZero() && (r.Time.IsZero() || f.Time.Before(r.Time)) {
				r.Time = f.Time
			}
		}
		if r.Yanked {
			r.YankedReason = "every build is labelled broken"
		}
	}
	return out
}

// millis reads a repodata timestamp: epoch milliseconds, or seconds in old
// records (conda's own rule: values above year 9999 in seconds are ms).
func millis(v int64) time.Time {
	if v <= 0 {
		return time.Time{}
	}
	if v > 253402300799 {
		return time.UnixMilli(v).UTC()
	}
	return time.Unix(v, 0).UTC()
}

// splitFilename reads name, version and build from a conda package filename
// ("numba-0.61.0-py312h6e6e5ba_0.conda").
func splitFilename(fn string) (name, version, build string, ok bool) {
	fn = path.Base(fn)
	for _, ext := range []string{".conda", ".tar.bz2"} {
		if stem, found := strings.CutSuffix(fn, ext); found {
			b := strings.LastIndexByte(stem, '-')
			if b <= 0 {
				return "", "", "", false
			}
			v := strings.LastIndexByte(stem[:b], '-')
			if v <= 0 {
				return "", "", "", false
			}
			name, version, build = stem[:v], stem[v+1:b], stem[b+1:]
			return name, version, build, version != "" && build != ""
		}
	}
	return "", "", "", false
}

// splitLabel splits a label channel ("numba/label/dev": the files of owner
// numba labelled dev, such as pre-releases) into its owner and label.
func splitLabel(channel string) (owner, label string, ok bool) {
	owner, label, ok = strings.Cut(channel, "/label/")
	return owner, label, ok && owner != "" && label != "" && !strings.Contains(label, "/")
}

// owner is the anaconda.org owner whose packages the channel lists.
func (s *Source) owner() string {
	if owner, _, ok := splitLabel(s.opts.Channel); ok {
		return owner
	}
	return s.opts.Channel
}

// channelPath is the channel as a URL path: each segment escaped.
func (s *Source) channelPath() string {
	parts := strings.Split(s.opts.Channel, "/")
	for i, p := range parts {
		parts[i] = url.PathEscape(p)
	}
	return strings.Join(parts, "/")
}
