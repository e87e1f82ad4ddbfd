package bench_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pinbot-dev/pinbot/bot/planning"
	"github.com/pinbot-dev/pinbot/config"
	"github.com/pinbot-dev/pinbot/internal/corpus"
	"github.com/pinbot-dev/pinbot/internal/fakes"
	"github.com/pinbot-dev/pinbot/pins"
	"github.com/pinbot-dev/pinbot/pins/all"
	"github.com/pinbot-dev/pinbot/sources"
	schemes "github.com/pinbot-dev/pinbot/versions/all"
)

// releases are the watched packages of the corpus and their releases.
var releases = map[string][]string{
	"numba":          {"0.53.1", "0.56.4", "0.57.1", "0.58.1", "0.59.1", "0.61.2", "0.62.1", "0.63.1", "0.64.0", "0.65.1", "0.66.0", "0.67.0"},
	"llvmlite":       {"0.41.1", "0.44.0", "0.48.0", "0.49.0"},
	"tensorflow":     {"2.15.1", "2.16.1", "2.19.1", "2.20.0"},
	"tensorflow-cpu": {"2.16.1", "2.20.0"},
	"protobuf":       {"5.29.3", "6.33.0"},
	"jax":            {"0.4.13", "0.8.1"},
	"jaxlib":         {"0.4.22", "0.8.1"},
	"libprotobuf":    {"5.29.3", "6.31.1"},
	"pytensor":       {"3.2.2", "3.5.0"},
	"flask":          {"2.3.3", "3.0.3", "3.1.0"},
}

// checker returns a checker over root watching the corpus's packages, with
// releases from memory.
func checker(root string) *planning.Checker {
	cfg := config.Default()
	for n := range releases {
		cfg.Packages[n] = &config.Package{}
	}
	srcs := map[string]sources.Source{}
	for _, n := range []string{"pypi", "conda", "conda-forge", "numba/label/dev", "goproxy"} {
		srcs[n] = fakes.Literal{Source: n, Versions: releases}
	}
	return &planning.Checker{Root: root, Config: cfg, Formats: all.Formats(), Sources: srcs, Schemes: schemes.Schemes()}
}

// corpusRepo writes a repository of n pin files: copies of the whole corpus
// (copyNN/owner__repo/path, so that a file's includes sit beside it), as
// many as it takes, the last one cut short. Files no format reads (a
// workflow) come along and are not counted.
func corpusRepo(tb testing.TB, n int) string {
	dir := tb.TempDir()
	var pinFiles, others []string
	for _, name := range corpus.Files(tb) {
		parts := strings.Split(name, "__")
		if pins.Detect(all.Formats(), strings.Join(parts[2:], "/"), corpus.Read(tb, name)) != nil {
			pinFiles = append(pinFiles, name)
		} else {
			others = append(others, name)
		}
	}
	if len(pinFiles) == 0 {
		tb.Fatal("no corpus file is read by any format")
	}
	write := func(copyDir, name string) {
		parts := strings.Split(name, "__")
		p := filepath.Join(dir, copyDir, parts[0]+"__"+parts[1], filepath.Join(parts[2:]...))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(p, corpus.Read(tb, name), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	for i, c := 0, 0; i < n; c++ {
		copyDir := fmt.Sprintf("copy%03d", c)
		for _, name := range pinFiles {
			if i == n {
				break
			}
			write(copyDir, name)
			i++
		}
		for _, name := range others {
			write(copyDir, name)
		}
	}
	return dir
}

// BenchmarkDiscoverAndPlan discovers, reads and plans 1,000 pin files made
// from the corpus, with releases from memory (no network, nothing written):
// planning over 1,000 pin files must stay under 1 s.
//
//	go test ./bench -run '^$' -bench BenchmarkDiscoverAndPlan -benchtime 10x -count 5 -benchmem
func BenchmarkDiscoverAndPlan(b *testing.B) {
	root := corpusRepo(b, 1000)
	c := checker(root)
	found, err := pins.Discover(root, c.Formats)
	if err != nil || len(found) != 1000 {
		b.Fatalf("discovered %d files (%v), want 1000", len(found), err)
	}
	ctx := context.Background()
	b.ResetTimer()
	for b.Loop() {
		rep, err := c.Check(ctx, planning.CheckOptions{})
		if err != nil {
			b.Fatal(err)
		}
		if len(rep.Packages) == 0 {
			b.Fatal("no packages planned")
		}
	}
}

// TestDiscoverAndPlanCorpus runs the benchmark's check once over two copies
// of the corpus, so that a broken corpus copy fails the tests rather than
// only the benchmark: every file is found, none fails, numba moves.
func TestDiscoverAndPlanCorpus(t *testing.T) {
	n := 0
	for _, name := range corpus.Files(t) {
		parts := strings.Split(name, "__")
		if pins.Detect(all.Formats(), strings.Join(parts[2:], "/"), corpus.Read(t, name)) != nil {
			n++
		}
	}
	root := corpusRepo(t, 2*n)
	if found, err := pins.Discover(root, all.Formats()); err != nil || len(found) != 2*n {
		t.Fatalf("discovered %d files (%v), want %d", len(found), err, 2*n)
	}
	rep, err := checker(root).Check(context.Background(), planning.CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Errors) > 0 {
		t.Errorf("errors: %v", rep.Errors)
	}
	status := map[string]string{}
	for _, p := range rep.Packages {
		status[p.Name] = p.Status
		if p.Error != "" {
			t.Errorf("%s: %s", p.Name, p.Error)
		}
	}
	if status["numba"] != "bump" {
		t.Errorf("numba: %q; report %+v", status["numba"], rep.Packages)
	}
}
