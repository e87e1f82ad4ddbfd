package bot_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pinbot-dev/pinbot/bot"
	"github.com/pinbot-dev/pinbot/config"
	"github.com/pinbot-dev/pinbot/internal/corpus"
	"github.com/pinbot-dev/pinbot/pins"
	"github.com/pinbot-dev/pinbot/pins/all"
	"github.com/pinbot-dev/pinbot/sources"
	schemes "github.com/pinbot-dev/pinbot/versions/all"
)

// literal is a release source that answers from memory.
type literal struct {
	name     string
	releases map[string][]string // package -> versions
}

func (l literal) Name() string { return l.name }

func (l literal) Releases(_ context.Context, pkg string) ([]sources.Release, error) {
	vs, ok := l.releases[pkg]
	if !ok {
		return nil, fmt.Errorf("%s: %w", pkg, sources.ErrNotFound)
	}
	var rs []sources.Release
	for _, v := range vs {
		r := sources.Release{Version: v, Files: []sources.File{{Name: pkg + "-" + v + ".whl"}}}
		if y, ok := strings.CutSuffix(v, "!yanked"); ok {
			r.Version, r.Yanked = y, true
		}
		rs = append(rs, r)
	}
	return rs, nil
}

var pythonReleases = map[string][]string{
	"numba":          {"0.56.4", "0.57.1", "0.58.1", "0.59.1", "0.60.0", "0.61.2", "0.62.1", "0.63.0b1", "0.63.1", "0.64.0", "0.65.1", "0.66.0", "0.67.0rc1", "0.67.0"},
	"llvmlite":       {"0.41.1", "0.44.0", "0.48.0", "0.49.0"},
	"tensorflow":     {"2.15.1", "2.16.1", "2.19.1", "2.20.0", "2.21.0rc0"},
	"tensorflow-cpu": {"2.16.1", "2.20.0"},
	"protobuf":       {"5.29.3", "6.33.0"},
	"jax":            {"0.4.13", "0.8.1"},
	"jaxlib":         {"0.4.22", "0.8.1"},
	"libprotobuf":    {"5.29.3", "6.31.1"},
}

// newChecker returns a checker over root watching the corpus's packages, with
// literal release sources.
func newChecker(root string) *bot.Checker {
	cfg := config.Default()
	for n := range pythonReleases {
		cfg.Packages[n] = &config.Package{}
	}
	srcs := map[string]sources.Source{}
	for _, n := range []string{"pypi", "conda", "conda-forge", "goproxy"} {
		srcs[n] = literal{name: n, releases: pythonReleases}
	}
	return &bot.Checker{Root: root, Config: cfg, Formats: all.Formats(), Sources: srcs, Schemes: schemes.Schemes()}
}

// corpusRepo writes n pin files into a temporary directory, copies of the
// corpus files some format reads, each in its own directory under its path in
// the original repository.
func corpusRepo(tb testing.TB, n int) string {
	dir := tb.TempDir()
	var files []string
	for _, name := range corpus.Files(tb) {
		parts := strings.Split(name, "__")
		if pins.Lookup(all.Formats(), strings.Join(parts[2:], "/")) != nil {
			files = append(files, name)
		}
	}
	if len(files) == 0 {
		tb.Fatal("no corpus file is read by any format")
	}
	for i := range n {
		name := files[i%len(files)]
		parts := strings.Split(name, "__")
		p := filepath.Join(dir, fmt.Sprintf("p%04d", i), filepath.Join(parts[2:]...))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(p, corpus.Read(tb, name), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	return dir
}

// BenchmarkDiscoverAndPlan discovers, reads and plans 1,000 pin files made
// from the corpus, with releases from memory (no network, nothing written).
//
//	go test ./bot -run '^$' -bench BenchmarkDiscoverAndPlan -benchtime 10x
func BenchmarkDiscoverAndPlan(b *testing.B) {
	root := corpusRepo(b, 1000)
	c := newChecker(root)
	found, err := pins.Discover(root, c.Formats)
	if err != nil || len(found) != 1000 {
		b.Fatalf("discovered %d files (%v), want 1000", len(found), err)
	}
	ctx := context.Background()
	b.ResetTimer()
	for b.Loop() {
		rep, err := c.Check(ctx, bot.CheckOptions{})
		if err != nil {
			b.Fatal(err)
		}
		if len(rep.Packages) == 0 {
			b.Fatal("no packages planned")
		}
	}
}

// TestDiscoverAndPlanCorpus runs the benchmark's check once, so that a broken
// corpus copy fails the tests rather than only the benchmark.
func TestDiscoverAndPlanCorpus(t *testing.T) {
	root := corpusRepo(t, 40)
	rep, err := newChecker(root).Check(context.Background(), bot.CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]string{}
	for _, p := range rep.Packages {
		names[p.Name] = p.Status
	}
	if names["numba"] != "bump" {
		t.Errorf("numba: %q; report %+v", names["numba"], rep.Packages)
	}
}
