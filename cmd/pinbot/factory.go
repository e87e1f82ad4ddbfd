package main

import (
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"time"

	gh "github.com/pinbot-dev/pinbot/bot/publishing/github"
	"github.com/pinbot-dev/pinbot/config"
	"github.com/pinbot-dev/pinbot/internal/escape"
	"github.com/pinbot-dev/pinbot/internal/repofs"
	"github.com/pinbot-dev/pinbot/web"
)

// A Factory holds what commands need from the outside world, built once for the
// real program and replaced field by field in tests. The environment is read
// only through Getenv.
type Factory struct {
	Stdout, Stderr io.Writer
	Getenv         func(string) string
	// HTTPClient returns the client for outside services; tests point it at fakes
	// by setting URLs, or replace it to shorten retries.
	HTTPClient func() *http.Client
	// CacheDir is --cache-dir; with NoCache (--no-cache) no cache is used.
	CacheDir string
	NoCache  bool
	// Defaults is --defaults: a fleet's configuration defaults, which the
	// repository's configuration overrides key by key.
	Defaults string
	// UserCacheDir finds the default cache's parent (os.UserCacheDir).
	UserCacheDir func() (string, error)
	// Now is the clock min-age gates use.
	Now func() time.Time
	// Network is the configuration's network section, once loaded: the
	// default HTTPClient's timeouts.
	Network config.Network

	// Terminal reports whether w is a terminal, where the text report is
	// coloured and stderr shows progress (isTerminal); tests force or deny
	// one.
	Terminal func(w io.Writer) bool

	LogFormat string
	Verbose   bool
	Log       *slog.Logger

	workflowOnce sync.Once
	wf           *gh.Workflow
}

func newFactory(stdout, stderr io.Writer, getenv func(string) string) *Factory {
	f := &Factory{Stdout: stdout, Stderr: stderr, Getenv: getenv, Log: slog.New(slog.DiscardHandler),
		UserCacheDir: os.UserCacheDir, Now: time.Now, Terminal: isTerminal}
	f.HTTPClient = func() *http.Client {
		rt := web.NewTransport(nil, f.policy(), web.UserAgent(versionString()), f.Log)
		return &http.Client{Transport: f.cache(rt)}
	}
	return f
}

// inActions reports whether pinbot runs in a GitHub Actions step: it then
// writes workflow commands, the step summary and outputs.
func (f *Factory) inActions() bool {
	return f.Getenv("GITHUB_ACTIONS") == "true"
}

// workflow returns where workflow commands (masks, annotations) go in
// Actions: stderr, never stdout, which carries only the report asked for.
// Outside Actions it is nil, which writes nothing.
func (f *Factory) workflow() *gh.Workflow {
	f.workflowOnce.Do(func() {
		if f.inActions() {
			f.wf = gh.NewWorkflow(f.Stderr)
		}
	})
	return f.wf
}

// policy is web.DefaultPolicy with the configuration's network settings.
func (f *Factory) policy() web.Policy {
	p := web.DefaultPolicy
	if d := time.Duration(f.Network.AttemptTimeout); d > 0 {
		p.Timeout = d
	}
	if d := time.Duration(f.Network.RequestTimeout); d > 0 {
		p.Budget = d
	}
	return p
}

// cacheDir returns the HTTP cache directory: --cache-dir, else
// PINBOT_CACHE_DIR, else pinbot under the user cache directory; "" when
// caching is off (--no-cache, PINBOT_CACHE_DIR=off, or no user cache directory).
func (f *Factory) cacheDir() string {
	switch env := f.Getenv("PINBOT_CACHE_DIR"); {
	case f.NoCache:
		return ""
	case f.CacheDir != "":
		return f.CacheDir
	case env == "off":
		return ""
	case env != "":
		return env
	}
	dir, err := f.UserCacheDir()
	if err != nil {
		f.Log.Debug("no user cache directory; HTTP responses are not cached", "err", err)
		return ""
	}
	return filepath.Join(dir, "pinbot")
}

// cache wraps rt in the on-disk HTTP cache, unless caching is off.
func (f *Factory) cache(rt http.RoundTripper) http.RoundTripper {
	dir := f.cacheDir()
	if dir == "" {
		return rt
	}
	f.Log.Debug("HTTP cache", "dir", dir)
	return web.NewCache(dir, rt, f.Log)
}

// setupLog makes the logger on stderr: warnings and errors only, the report
// on stdout says the rest; -v adds every step and request.
func (f *Factory) setupLog() error {
	level := slog.LevelWarn
	if f.Verbose {
		level = slog.LevelDebug
	}
	opts := &slog.HandlerOptions{Level: level}
	switch f.LogFormat {
	case "text":
		// The text handler quotes a value holding anything unprintable
		// (strconv.Quote), so names from outside reach the terminal escaped.
		f.Log = slog.New(slog.NewTextHandler(f.Stderr, opts))
	case "json":
		// JSON escapes only C0 controls: the rest (DEL, C1, bidi overrides)
		// is escaped as text is, for whoever reads the log on a terminal.
		opts.ReplaceAttr = escapeAttr
		f.Log = slog.New(slog.NewJSONHandler(f.Stderr, opts))
	default:
		return &usageError{fmt.Errorf("--log-format: expected text or json, found %q", f.LogFormat)}
	}
	return nil
}

// escapeAttr escapes a log attribute's string or error as escape.Text does.
func escapeAttr(_ []string, a slog.Attr) slog.Attr {
	switch v := a.Value.Resolve(); {
	case v.Kind() == slog.KindString:
		a.Value = slog.StringValue(escape.Text(v.String()))
	case v.Kind() == slog.KindAny:
		if err, ok := v.Any().(error); ok {
			a.Value = slog.StringValue(escape.Text(err.Error()))
		}
	}
	return a
}

// loadConfig reads the configuration named by path, or the one found in dir, or
// the defaults, then applies environment overrides. Any problem is a usage error.
// The configuration found in dir, and the files it lists, come from the
// repository: they are reached through it, confined to it (repofs); a
// --config path is the user's own and is read wherever it is.
func (f *Factory) loadConfig(dir, path string) (*config.Config, error) {
	repo, err := repofs.Open(dir)
	if err != nil {
		return nil, &usageError{err}
	}
	defer repo.Close()
	cfg := config.Default()
	switch {
	case path != "" && f.Defaults != "":
		if cfg, err = config.LoadWithDefaults(f.Defaults, path); err != nil {
			return nil, &usageError{err}
		}
	case path != "":
		if cfg, err = config.Load(path); err != nil {
			return nil, &usageError{err}
		}
	default:
		// FindAllIn's first is FindIn's answer: an error past it is moot.
		all, err := config.FindAllIn(repo)
		if err != nil && len(all) == 0 {
			return nil, &usageError{err}
		}
		var name string
		if len(all) > 0 {
			name = all[0]
		}
		// Only the first is read: a second is a file someone edits in vain.
		if len(all) > 1 {
			f.Log.Warn(fmt.Sprintf("%s configuration files: %s; using %s", countWord(len(all)), andList(all), name))
		}
		file := filepath.Join(dir, filepath.FromSlash(name))
		switch {
		case f.Defaults != "":
			// A repository with no configuration of its own is guarded
			// with the defaults alone.
			if cfg, err = config.LoadInWithDefaults(f.Defaults, repo, name, file); err != nil {
				return nil, &usageError{err}
			}
		case name != "":
			if cfg, err = config.LoadIn(repo, name, file); err != nil {
				return nil, &usageError{err}
			}
		}
	}
	if u := f.Getenv("PINBOT_PYPI_URL"); u != "" {
		cfg.Sources.PyPI.URL = u
	}
	if u := f.Getenv("PINBOT_CONDA_URL"); u != "" {
		cfg.Sources.Conda.URL = u
	}
	if u := f.Getenv("PINBOT_GOPROXY_URL"); u != "" {
		cfg.Sources.GoProxy.URL = u
	}
	for _, file := range cfg.Files {
		if _, err := repo.Stat(filepath.ToSlash(filepath.Clean(file))); err != nil {
			return nil, &usageError{fmt.Errorf("%s: files: %w", cfg.File, err)}
		}
	}
	if err := cfg.CheckHosts(dir); err != nil {
		return nil, &usageError{err}
	}
	f.Network = cfg.Network
	return cfg, nil
}
