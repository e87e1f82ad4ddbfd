package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/pinbot-dev/pinbot/bot/planning"
	"github.com/pinbot-dev/pinbot/bot/verifying"
	"github.com/pinbot-dev/pinbot/checks/probe"
	"github.com/pinbot-dev/pinbot/web"

	"github.com/spf13/pflag"

	"github.com/pinbot-dev/pinbot/checks/artifact"
	"github.com/pinbot-dev/pinbot/config"
	"github.com/pinbot-dev/pinbot/internal/progress"
	"github.com/pinbot-dev/pinbot/pins/all"
	"github.com/pinbot-dev/pinbot/sources/pypi"
	"github.com/pinbot-dev/pinbot/sources/wheel"
	schemes "github.com/pinbot-dev/pinbot/versions/all"
)

// jobFlags are the flags check and run share: the repository, its
// configuration, the report format, the packages, the probes and the cache.
type jobFlags struct {
	Dir        string
	ConfigPath string
	Format     string
	Packages   []string
	Probes     probeFlags
	// Timeout is --timeout: how long the whole command may take (0: no
	// limit).
	Timeout time.Duration
}

// register adds the flags to fl; dirHelp and packageHelp describe --dir and
// --package for the command. The cache flags set the Factory's.
func (j *jobFlags) register(fl *pflag.FlagSet, f *Factory, dirHelp, packageHelp string) {
	fl.StringVar(&j.Dir, "dir", ".", dirHelp)
	fl.StringVar(&j.ConfigPath, "config", "", "configuration file (default: .pinbot.yml or .github/pinbot.yml in --dir)")
	fl.StringVar(&j.Format, "format", "text", "report format on stdout: text, json or markdown")
	fl.StringSliceVar(&j.Packages, "package", nil, packageHelp)
	fl.DurationVar(&j.Timeout, "timeout", 0, "end the run after this long (such as 20m), reporting what was done by then, exit 1 (default: no limit)")
	j.Probes.register(fl)
	fl.StringVar(&f.CacheDir, "cache-dir", "", "cache directory for HTTP responses, artifacts and probe environments (default: $PINBOT_CACHE_DIR, else pinbot in the user cache directory)")
	fl.BoolVar(&f.NoCache, "no-cache", false, "cache nothing between runs")
	registerDefaults(fl, f)
}

// registerDefaults adds --defaults, the fleet's defaults every repository
// inherits (config.LoadWithDefaults), to fl; loadConfig reads it.
func registerDefaults(fl *pflag.FlagSet, f *Factory) {
	fl.StringVar(&f.Defaults, "defaults", "", "a .pinbot.yml-shaped file of defaults the repository's configuration overrides key by key (a fleet's)")
}

// validate checks the values a flag parser cannot.
func (j *jobFlags) validate() error {
	if _, ok := formats[j.Format]; !ok {
		return &usageError{fmt.Errorf("--format: expected text, json or markdown, found %q", j.Format)}
	}
	if j.Timeout < 0 {
		return &usageError{fmt.Errorf("--timeout: expected a positive duration, found %s", j.Timeout)}
	}
	return checkDir(j.Dir)
}

// deadline bounds ctx by --timeout: once it passes, every request and
// process of the run ends with a *timeoutError (web.ContextError).
func (j *jobFlags) deadline(ctx context.Context) (context.Context, context.CancelFunc) {
	if j.Timeout <= 0 {
		return ctx, func() {}
	}
	return context.WithTimeoutCause(ctx, j.Timeout, &timeoutError{j.Timeout})
}

// A timeoutError is a run --timeout ended; it is a
// context.DeadlineExceeded.
type timeoutError struct{ d time.Duration }

func (e *timeoutError) Error() string {
	return fmt.Sprintf("the run took longer than --timeout %s", e.d)
}
func (e *timeoutError) Unwrap() error { return context.DeadlineExceeded }

// cutShort is the error a check or run that returned its report with err
// exits with: a --timeout says what the output is, any other error is
// itself (bot returns a report with an error only when its deadline
// passed), none is none.
func cutShort(err error, what string) error {
	var te *timeoutError
	if errors.As(err, &te) {
		return fmt.Errorf("%w: %s", te, what)
	}
	return err
}

// checkDir reports a --dir that is not a directory as a usage error.
func checkDir(dir string) error {
	if info, err := os.Stat(dir); err != nil || !info.IsDir() {
		return &usageError{fmt.Errorf("--dir: %q is not a directory", dir)}
	}
	return nil
}

// probeFlags are the flags check and run share for the packages' checks.
type probeFlags struct {
	Static    bool
	NoInstall bool
	Python    string
	Timeout   time.Duration
}

func (p *probeFlags) register(fl *pflag.FlagSet) {
	fl.BoolVar(&p.Static, "static", false, "probe by reading the wheels' Python files instead of running Python")
	fl.StringVar(&p.Python, "python", "", "the Python interpreter probes run with (default: python3 on PATH)")
	fl.BoolVar(&p.NoInstall, "no-install", false, "probe what --python already has installed instead of installing each release")
	fl.DurationVar(&p.Timeout, "probe-timeout", 0, "the time a probe process may take (default 2m); resolving and installing a release have their own limits")
}

// newChecker builds the check job for dir with the configuration's sources,
// every pin-file format and version scheme, and the verifier for the
// packages' probes and symbol scans. Downloads and probe environments live in
// the cache directory, or in tmp when caching is off.
func (f *Factory) newChecker(dir string, cfg *config.Config, pf probeFlags, tmp string) (*planning.Checker, *verifying.Verifier) {
	hc := f.HTTPClient()
	srcs, channels := newSources(cfg, hc, f.policy().WorstCase(), f.Getenv)
	nightlies := newNightlies(cfg, srcs, channels, hc)
	store := f.cacheDir()
	if store == "" {
		store = tmp
	}
	var meter *progress.Meter
	if f.Terminal(f.Stderr) && f.LogFormat != "json" { // plain lines would break a JSON log stream
		meter = progress.New(f.Stderr)
	}
	v := &verifying.Verifier{
		Artifacts: &artifact.Store{Dir: filepath.Join(store, artifactsDir), HTTP: hc, Log: f.Log, MaxSize: int64(cfg.Network.MaxArtifactSize),
			Progress: meter},
		Progress: meter,
		Releases: srcs[pypi.Name].Releases,
		Root:     dir,
		Python:   pf.Python, NoInstall: pf.NoInstall, Static: pf.Static, Timeout: pf.Timeout,
		EnvCache:   filepath.Join(store, probeEnvsDir),
		HTTPClient: hc,
		TempDir:    tmp,
		Log:        f.Log,
	}
	if hasChecks(cfg) {
		v.Wheel.Platform = f.nativePlatform()
	}
	if src, ok := srcs[pypi.Name].(*pypi.Source); ok {
		v.Index = src.IndexURL()
	}
	// Planning and the checks ask one registry for the conda channels, so a
	// channel a pin file names (or a nightly source) is made once and
	// reached by both.
	v.Channels = channels
	return &planning.Checker{
		Root: dir, Config: cfg, Formats: all.Formats(), Sources: srcs, Channels: channels, Nightlies: nightlies, Schemes: schemes.Schemes(),
		Verifier: v, Log: f.Log, Now: f.Now,
	}, v
}

// Where the checks keep their files in the cache directory, beside the HTTP
// cache's entries.
const (
	artifactsDir = "artifacts"
	probeEnvsDir = "probe-envs"
	// stateFile is what pinbot run remembers between runs (bot/publishing/state).
	stateFile = "state.json"
)

// cacheMaxAge is how long cache entries stay unused before pruneCache removes
// them: four weekly runs.
const cacheMaxAge = 28 * 24 * time.Hour

// pruneCache removes what the cache directory holds that no run has used for
// cacheMaxAge (HTTP entries, verified artifacts, probe environments), so that
// a cache a weekly Action keeps between runs does not grow without bound.
func (f *Factory) pruneCache() {
	dir := f.cacheDir()
	if dir == "" {
		return
	}
	now := time.Now()
	if f.Now != nil {
		now = f.Now()
	}
	cutoff := now.Add(-cacheMaxAge)
	var counts [3]int
	var errs [3]error
	counts[0], errs[0] = web.NewCache(dir, nil, f.Log).Prune(cutoff)
	counts[1], errs[1] = (&artifact.Store{Dir: filepath.Join(dir, artifactsDir)}).Prune(cutoff)
	counts[2], errs[2] = probe.PruneCache(filepath.Join(dir, probeEnvsDir), cutoff)
	if err := errors.Join(errs[:]...); err != nil {
		f.Log.Warn("pruning the cache", "dir", dir, "err", err)
	}
	f.Log.Debug("pruned the cache", "dir", dir, "http", counts[0], "artifacts", counts[1], "probe-envs", counts[2])
}

// runTemp makes the directory a command's checks may use for the run; the
// returned function removes it.
func runTemp() (string, func(), error) {
	dir, err := os.MkdirTemp("", "pinbot-run-*")
	if err != nil {
		return "", nil, err
	}
	return dir, func() { os.RemoveAll(dir) }, nil
}

// hasChecks reports whether any watched package may be checked: it asks
// for probes or a scan, or its usage checks are on (the default), which
// judge the names the repository's code uses from it.
func hasChecks(cfg *config.Config) bool {
	for _, p := range cfg.Packages {
		if p.HasChecks() || p.UsageOn() {
			return true
		}
	}
	return false
}

// nativePlatform returns this machine's wheel platform (sources/wheel): Go's
// GOOS and GOARCH, and on Linux the C library, from `getconf
// GNU_LIBC_VERSION` ("glibc 2.36") or a musl loader. A system without
// binary wheels gets manylinux x86_64, the most common.
func (f *Factory) nativePlatform() wheel.Platform {
	libc := ""
	if runtime.GOOS == "linux" {
		if musl, _ := filepath.Glob("/lib/ld-musl-*.so.1"); len(musl) > 0 {
			libc = "musl"
		} else if out, err := exec.Command("getconf", "GNU_LIBC_VERSION").Output(); err == nil {
			libc = strings.TrimSpace(string(out))
		}
	}
	p, ok := wheel.NativePlatform(runtime.GOOS, runtime.GOARCH, libc)
	if !ok {
		p = wheel.Platform{Family: "manylinux", Arch: "x86_64"}
	}
	f.Log.Debug("wheels are chosen for this machine", "platform", p.String())
	return p
}
