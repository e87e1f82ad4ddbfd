package planning_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pinbot-dev/pinbot/bot/planning"
	"github.com/pinbot-dev/pinbot/config"
	"github.com/pinbot-dev/pinbot/internal/fakes"
	"github.com/pinbot-dev/pinbot/pins/all"
	"github.com/pinbot-dev/pinbot/sources"
	"github.com/pinbot-dev/pinbot/sources/goproxy"
	schemes "github.com/pinbot-dev/pinbot/versions/all"
	"github.com/pinbot-dev/pinbot/web"
)

// probeSource answers after a pause, counting the lookups in flight; a lookup
// of a package in block waits for the context to end.
type probeSource struct {
	name           string
	pause          time.Duration
	block          map[string]bool
	inFlight, peak atomic.Int32
	mu             sync.Mutex
	asked          []string
	started        chan string
	scheme         string
}

func (s *probeSource) Name() string   { return s.name }
func (s *probeSource) Scheme() string { return s.scheme }

func (s *probeSource) Releases(ctx context.Context, pkg string) ([]sources.Release, error) {
	n := s.inFlight.Add(1)
	defer s.inFlight.Add(-1)
	for {
		p := s.peak.Load()
		if n <= p || s.peak.CompareAndSwap(p, n) {
			break
		}
	}
	s.mu.Lock()
	s.asked = append(s.asked, pkg)
	s.mu.Unlock()
	if s.started != nil {
		s.started <- pkg
	}
	wait := s.pause
	if s.block[pkg] {
		wait = time.Hour
	}
	select {
	case <-time.After(wait):
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return []sources.Release{{Version: "1.1.0", Files: []sources.File{{Name: pkg + "-1.1.0.tar.gz"}}}}, nil
}

// lookupRepo writes a pyproject.toml pinning n packages p00, p01, ... and
// returns a checker watching them, with its config from cfg.
func lookupRepo(t *testing.T, n int, cfg string, srcs ...*probeSource) *planning.Checker {
	dir := t.TempDir()
	var deps, watch []string
	for i := range n {
		deps = append(deps, fmt.Sprintf(`"p%02d>=1.0,<=1.0.0"`, i))
		watch = append(watch, fmt.Sprintf("  p%02d: {}\n", i))
	}
	doc := "[project]\nname = \"x\"\ndependencies = [" + strings.Join(deps, ", ") + "]\n"
	if err := os.WriteFile(filepath.Join(dir, "pyproject.toml"), []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	if cfg == "" {
		cfg = "packages:\n" + strings.Join(watch, "")
	}
	c, err := config.Parse(".pinbot.yml", []byte(cfg))
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]sources.Source{}
	for _, s := range srcs {
		m[s.name] = s
	}
	return &planning.Checker{Root: dir, Config: c, Formats: all.Formats(), Sources: m, Schemes: schemes.Schemes()}
}

func TestLookupBoundedConcurrency(t *testing.T) {
	src := &probeSource{name: "pypi", pause: 20 * time.Millisecond, scheme: "pep440"}
	c := lookupRepo(t, 12, "", src)
	c.Concurrency = 3
	rep, err := c.Check(context.Background(), planning.CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Packages) != 12 || len(src.asked) != 12 {
		t.Fatalf("%d packages reported, %d asked", len(rep.Packages), len(src.asked))
	}
	if p := src.peak.Load(); p > 3 || p < 2 {
		t.Errorf("peak of %d lookups in flight, want 2 or 3 (bounded by Concurrency, yet concurrent)", p)
	}
}

func TestLookupCancel(t *testing.T) {
	src := &probeSource{name: "pypi", pause: time.Second, block: map[string]bool{"p01": true}, started: make(chan string, 16), scheme: "pep440"}
	c := lookupRepo(t, 8, "", src)
	c.Concurrency = 2
	ctx, cancel := context.WithCancel(context.Background())
	// The lookups start in no set order (p01 may be the last to get a
	// slot), so what must hold is counted from the cancel: none starts
	// after it but those already past their check (at most Concurrency).
	askedAtCancel := make(chan int, 1)
	go func() {
		for pkg := range src.started {
			if pkg == "p01" {
				cancel() // Ctrl-C while a lookup hangs
				src.mu.Lock()
				askedAtCancel <- len(src.asked)
				src.mu.Unlock()
				return
			}
		}
	}()
	start := time.Now()
	rep, err := c.Check(ctx, planning.CheckOptions{})
	if !errors.Is(err, context.Canceled) || rep != nil {
		t.Errorf("Check = %v, %v; want context.Canceled and no report", rep, err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("cancelling took %v", d)
	}
	if n, at := len(src.asked), <-askedAtCancel; n-at > c.Concurrency {
		t.Errorf("%d lookups started after the cancel (%d of 8 had before it)", n-at, at)
	}
}

func TestLookupRequire(t *testing.T) {
	pypi := &probeSource{name: "pypi", scheme: "pep440"}
	forge := &probeSource{name: "conda-forge", scheme: "conda"}
	// The configuration names bioconda (its loader checks that), but no
	// source serves it: the lookup says so for that package alone.
	cfg := "sources:\n  conda:\n    channels: [conda-forge, bioconda]\npackages:\n  p00:\n    require: [pypi, conda-forge]\n  p01:\n    require: [pypi, bioconda]\n"
	c := lookupRepo(t, 2, cfg, pypi, forge)
	c.Sources["conda"] = forge // the alias conda pins without a channel use
	rep, err := c.Check(context.Background(), planning.CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(forge.asked) != 1 || forge.asked[0] != "p00" {
		t.Errorf("conda-forge was asked for %v, want [p00] though no pin follows it", forge.asked)
	}
	p00, p01 := rep.Packages[0], rep.Packages[1]
	if p00.Sources["conda-forge"] != "1.1.0" || p00.Sources["pypi"] != "1.1.0" || p00.Reason != "conda-forge and pypi have 1.1.0" {
		t.Errorf("p00 = %+v", p00)
	}
	if p01.Status != "error" || !strings.Contains(p01.Error, `no source "bioconda" is configured`) {
		t.Errorf("p01 = %+v", p01)
	}
}

// TestLookupGoProxy plans go.mod requirements from a fake module proxy: a
// version retracted by the latest go.mod is not a target, and a module whose
// proxy keeps failing is that module's error while the other is planned.
func TestLookupGoProxy(t *testing.T) {
	root := t.TempDir()
	gomod := "module example.com/m\n\ngo 1.26\n\nrequire (\n\tgolang.org/x/mod v0.41.0\n\tgithub.com/spf13/cobra v1.10.2\n)\n"
	if err := os.WriteFile(filepath.Join(root, "go.mod"), []byte(gomod), 0o644); err != nil {
		t.Fatal(err)
	}
	fake := fakes.NewGoProxy(t)
	fake.Add("golang.org/x/mod", fakes.GoVersion{Version: "v0.41.0"}, fakes.GoVersion{Version: "v0.42.0"},
		fakes.GoVersion{Version: "v0.43.0"}, fakes.GoVersion{Version: "v0.44.0", Retract: []string{"v0.44.0 // breaks modfile.Parse", "v0.43.0"}})
	fake.Add("github.com/spf13/cobra", fakes.GoVersion{Version: "v1.10.2"})
	for range web.DefaultPolicy.Attempts {
		fake.Fail("/github.com/spf13/cobra/@v/list", fakes.Fault{Status: 502, Body: "<html>bad gateway</html>"})
	}
	p := web.DefaultPolicy
	p.BaseDelay, p.MaxDelay = time.Millisecond, time.Millisecond
	gp, err := goproxy.New(goproxy.Options{GOPROXY: fake.URL + ",direct"}, &http.Client{Transport: web.NewTransport(nil, p, "test", nil)})
	if err != nil {
		t.Fatal(err)
	}
	cfg := &config.Config{Packages: map[string]*config.Package{"golang.org/x/mod": {}, "github.com/spf13/cobra": {}}}
	c := &planning.Checker{Root: root, Config: cfg, Formats: all.Formats(), Sources: map[string]sources.Source{"goproxy": gp}, Schemes: schemes.Schemes()}
	rep, err := c.Check(context.Background(), planning.CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, p := range rep.Packages {
		got[p.Name] = p.Status + " " + p.Newest + " " + p.Error
	}
	if got["golang.org/x/mod"] != "bump v0.42.0 " {
		t.Errorf("golang.org/x/mod: %q, want a bump to v0.42.0 (v0.43.0 and v0.44.0 are retracted)", got["golang.org/x/mod"])
	}
	if !strings.HasPrefix(got["github.com/spf13/cobra"], "error  goproxy: ") || !strings.Contains(got["github.com/spf13/cobra"], "502") {
		t.Errorf("github.com/spf13/cobra: %q", got["github.com/spf13/cobra"])
	}
}

// orderedSource answers a lookup only when the test says so, and says when
// it has answered, so that a test decides the order lookups finish in.
type orderedSource struct {
	name, scheme     string
	releases         []sources.Release
	asked            chan string
	answer, answered chan struct{}
}

func (s *orderedSource) Name() string   { return s.name }
func (s *orderedSource) Scheme() string { return s.scheme }

func (s *orderedSource) Releases(ctx context.Context, pkg string) ([]sources.Release, error) {
	s.asked <- s.name
	select {
	case <-s.answer:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer close(s.answered)
	return s.releases, nil
}

// TestLookupOrder: the report names the sources in one order, whatever
// order their lookups finish in: PyPI first, then conda-forge, and the
// other way round.
func TestLookupOrder(t *testing.T) {
	files := func(v string) []sources.File { return []sources.File{{Name: "numba-" + v + ".tar.gz"}} }
	var reports []string
	for _, first := range []string{"pypi", "conda-forge"} {
		dir := t.TempDir()
		for name, data := range map[string]string{
			"pyproject.toml":  "[project]\nname = \"x\"\ndependencies = [\"numba>=0.58,<=0.65.1\"]\n",
			"environment.yml": "channels: [conda-forge]\ndependencies:\n  - numba >=0.58,<=0.65.1\n",
		} {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		cfg, err := config.Parse(".pinbot.yml", []byte("packages:\n  numba:\n    require: [pypi, conda-forge]\n"))
		if err != nil {
			t.Fatal(err)
		}
		asked := make(chan string, 2)
		srcs := map[string]*orderedSource{
			"pypi": {name: "pypi", scheme: "pep440", asked: asked, answer: make(chan struct{}), answered: make(chan struct{}),
				releases: []sources.Release{{Version: "0.66.0", Files: files("0.66.0")}, {Version: "0.67.0", Files: files("0.67.0")}}},
			"conda-forge": {name: "conda-forge", scheme: "conda", asked: asked, answer: make(chan struct{}), answered: make(chan struct{}),
				releases: []sources.Release{{Version: "0.66.0", Files: files("0.66.0")}}},
		}
		c := &planning.Checker{Root: dir, Config: cfg, Formats: all.Formats(), Schemes: schemes.Schemes(), Concurrency: 2,
			Sources: map[string]sources.Source{"pypi": srcs["pypi"], "conda-forge": srcs["conda-forge"], "conda": srcs["conda-forge"]}}
		done := make(chan struct{})
		var out string
		go func() {
			defer close(done)
			rep, err := c.Check(context.Background(), planning.CheckOptions{})
			if err != nil {
				t.Error(err)
				return
			}
			p := rep.Packages[0]
			out = p.Status + " " + p.Newest + ": " + p.Reason
			for _, pin := range p.Pins {
				out += "\n" + pin.File + ": " + pin.Reason
			}
		}()
		<-asked
		<-asked // both lookups are in flight
		second := map[string]string{"pypi": "conda-forge", "conda-forge": "pypi"}[first]
		close(srcs[first].answer)
		<-srcs[first].answered // the first has answered
		close(srcs[second].answer)
		<-done
		reports = append(reports, out)
	}
	want := "bump 0.66.0: conda-forge has only 0.66.0, pypi has 0.67.0 → 0.66.0\n" +
		"environment.yml: 0.66.0 is newer than the cap <=0.65.1\n" +
		"pyproject.toml: 0.67.0 is on pypi, but the target is 0.66.0: conda-forge has not published 0.67.0 (environment.yml governs numba through conda-forge); 0.66.0 is newer than the cap <=0.65.1"
	for i, got := range reports {
		if got != want {
			t.Errorf("lookups finishing %s first:\n%s\nwant\n%s", []string{"pypi", "conda-forge"}[i], got, want)
		}
	}
}

// chanSource is a conda channel that answers from its maps: releases of a
// package, or an error; any other package is not found. It records what it
// was asked.
type chanSource struct {
	name     string
	releases map[string][]sources.Release
	errs     map[string]error
	mu       sync.Mutex
	asked    []string
}

func (s *chanSource) Name() string   { return s.name }
func (s *chanSource) Scheme() string { return "conda" }

func (s *chanSource) Releases(_ context.Context, pkg string) ([]sources.Release, error) {
	s.mu.Lock()
	s.asked = append(s.asked, pkg)
	s.mu.Unlock()
	if err := s.errs[pkg]; err != nil {
		return nil, err
	}
	if rs, ok := s.releases[pkg]; ok {
		return rs, nil
	}
	return nil, fmt.Errorf("GET /package/%s/%s: 404 Not Found: %w", s.name, pkg, sources.ErrNotFound)
}

// TestLookupChannelList: each conda pin is governed by the first channel
// of its file's list that has the package, each channel asked once per
// package whichever pins follow it: numba is on the numba channel, first
// (conda-forge, which no pin of numba reaches, is not asked); numpy, which
// the numba channel does not have, on conda-forge, which pixi's pin follows
// too; scipy's lookup on the numba channel fails, and that is its pin's
// failure: conda-forge is not asked. dask is on neither channel: its pin
// fails with both not-founds.
func TestLookupChannelList(t *testing.T) {
	dir := t.TempDir()
	for name, data := range map[string]string{
		"environment.yml": "channels: [numba, conda-forge]\ndependencies:\n  - numba>=0.61\n  - numpy>=1.24\n  - scipy>=1.10\n  - dask>=2024.1\n",
		"pixi.toml":       "[workspace]\nchannels = [\"conda-forge\"]\n[dependencies]\nnumpy = \">=1.24\"\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg, err := config.Parse(".pinbot.yml", []byte("packages:\n  numba: {}\n  numpy: {}\n  scipy: {}\n  dask: {}\n"))
	if err != nil {
		t.Fatal(err)
	}
	rel := func(v string) []sources.Release {
		return []sources.Release{{Version: v, Files: []sources.File{{Name: "x-" + v + ".conda", Kind: sources.KindConda}}}}
	}
	numba := &chanSource{name: "numba", releases: map[string][]sources.Release{"numba": rel("0.66.0")},
		errs: map[string]error{"scipy": errors.New("GET /package/numba/scipy: 503 Service Unavailable")}}
	forge := &chanSource{name: "conda-forge", releases: map[string][]sources.Release{"numba": rel("0.67.0"), "numpy": rel("2.5.1"), "scipy": rel("1.16.0")}}
	c := &planning.Checker{Root: dir, Config: cfg, Formats: all.Formats(), Schemes: schemes.Schemes(),
		Sources: map[string]sources.Source{"numba": numba, "conda-forge": forge, "conda": forge}}
	rep, err := c.Check(context.Background(), planning.CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, p := range rep.Packages {
		got[p.Name] = fmt.Sprintf("%s %v %s", p.Status, p.Sources, p.Error)
		for _, pin := range p.Pins {
			got[p.Name] += " | " + pin.File + ": " + pin.Reason
		}
	}
	want := map[string]string{
		"numba": "bump map[numba:0.66.0]  | environment.yml: no upper bound: capped at <=0.66.0",
		"numpy": "bump map[conda-forge:2.5.1]  | environment.yml: no upper bound: capped at <=2.5.1 | pixi.toml: no upper bound: capped at <=2.5.1",
		"scipy": "error map[] numba: GET /package/numba/scipy: 503 Service Unavailable | environment.yml: ",
		"dask": "error map[] numba, conda-forge: none of them has dask (numba: GET /package/numba/dask: 404 Not Found: file does not exist; " +
			"conda-forge: GET /package/conda-forge/dask: 404 Not Found: file does not exist) | environment.yml: ",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("packages (-want +got)\n%s", diff)
	}
	slices.Sort(numba.asked)
	slices.Sort(forge.asked)
	if !slices.Equal(numba.asked, []string{"dask", "numba", "numpy", "scipy"}) || !slices.Equal(forge.asked, []string{"dask", "numpy"}) {
		t.Errorf("numba was asked for %v, conda-forge for %v", numba.asked, forge.asked)
	}
}
