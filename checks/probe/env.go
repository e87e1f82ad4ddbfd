package probe

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// distsText is a resolution as the cache key and metadata write it.
func distsText(ds []Dist) string {
	lines := make([]string, len(ds))
	for i, d := range ds {
		lines[i] = normName(d.Name) + "==" + d.Version
	}
	return strings.Join(lines, "\n")
}

// envKey is the cache key of an environment: the interpreter, the index, the
// installer and the resolved distributions (every name and version), so a
// different resolution is a different environment.
func envKey(opts *Options, py *pyInfo, version string, dists []Dist) (dirName string, meta map[string]string) {
	meta = map[string]string{
		"schema":         cacheSchema,
		"package":        normName(distOf(opts, version)),
		"version":        version,
		"python":         py.Executable,
		"python_version": py.Full,
		"index":          effectiveIndex(opts),
		"installer":      installerName(opts),
		"distributions":  distsText(dists),
	}
	if files := pinnedFiles(opts, py, version); files != "" {
		meta["pinned"] = files
	}
	b, _ := json.Marshal(meta)
	sum := sha256.Sum256(b)
	meta["index"] = redactURL(meta["index"])
	mm := py.Version
	if parts := strings.SplitN(py.Version, ".", 3); len(parts) >= 2 {
		mm = parts[0] + "." + parts[1]
	}
	return fmt.Sprintf("%s-%s-py%s-%s", normName(distOf(opts, version)), version, mm, hex.EncodeToString(sum[:8])), meta
}

// withFor returns the releases installed beside version: opts.With for
// the candidate, opts.BaselineWith for the baseline.
func withFor(opts *Options, version string) []string {
	if version != opts.Candidate {
		return opts.BaselineWith
	}
	return opts.With
}

// withRequirements is how the installer is asked for the releases installed
// beside version (withFor): each through requirement, so that a group
// member's wheel the caller holds (LocalWheels) is installed from it, as the
// candidate's is. withFor, not this, keys resolutions: the key names
// releases, not where their files come from.
func withRequirements(opts *Options, py *pyInfo, version string) []string {
	with := withFor(opts, version)
	out := make([]string, len(with))
	for i, w := range with {
		name, v, _ := strings.Cut(w, "==") // checkOptions made sure of the form
		out[i] = requirement(opts, py, name, v)
	}
	return out
}

// envDir is where the environment of a resolution is (or would be).
func envDir(opts *Options, py *pyInfo, version string, dists []Dist) string {
	name, _ := envKey(opts, py, version, dists)
	return filepath.Join(opts.CacheDir, "envs", name)
}

// canResolve reports whether the installer can say what it would install
// without installing: uv, or pip 22.2 or later (--dry-run --report).
func canResolve(opts *Options, py *pyInfo) bool {
	if _, ok := useUV(opts); ok {
		return true
	}
	return pipAtLeast(py.Pip, 22, 2)
}

// ensureEnv returns the cache directory of a ready environment holding exactly
// dists (installed with --no-deps: the resolution is the environment), making
// it if needed, and whether it was there already. With dists nil it installs
// opts.Package==version with the constraints: with report set, pip's
// installation report then says what was installed, which keys the
// environment and is returned (a first resolution costs no separate dry run);
// without it (an installer that cannot report) the environment goes into a
// directory of its own that the caller removes. An environment is built in a
// temporary sibling directory and renamed into place when complete, so an
// interrupted build or a concurrent run never leaves a half-made entry.
func ensureEnv(ctx context.Context, opts *Options, py *pyInfo, version string, dists []Dist, report bool) (dir string, reused bool, installed []Dist, err error) {
	uv, withUV := useUV(opts)
	if opts.Installer == "uv" && !withUV {
		return "", false, nil, errors.New("probe: installer uv requested but uv is not on PATH")
	}
	report = report && dists == nil && !withUV && pipAtLeast(py.Pip, 22, 3) && py.Venv
	name, meta := envKey(opts, py, version, dists)
	envs := filepath.Join(opts.CacheDir, "envs")
	final := filepath.Join(envs, name)
	if dists != nil && envReady(final) {
		now := time.Now()
		_ = os.Chtimes(filepath.Join(final, "pinbot-env.json"), now, now) // for LRU pruning
		return final, true, dists, nil
	}
	if err := os.MkdirAll(envs, 0o755); err != nil {
		return "", false, nil, err
	}
	dist := distOf(opts, version)
	task := opts.Progress.Start(fmt.Sprintf("installing %s==%s into a probe environment", dist, version), 0)
	defer func() { task.Done(err) }()
	removeStaleBuilds(envs)
	build, err := os.MkdirTemp(envs, ".build-"+name+"-")
	if err != nil {
		return "", false, nil, err
	}
	keep := false
	defer func() {
		if !keep {
			os.RemoveAll(build)
		}
	}()
	venv := filepath.Join(build, "venv")
	vpy := filepath.Join(venv, "bin", "python")

	// What to install: the resolution, exactly; or, unresolved, the release
	// with the project's constraints.
	installArgs := func(dir string) ([]string, error) {
		a := indexArgs(opts)
		if dists != nil {
			a = append(a, "--no-deps")
			for _, d := range dists {
				a = append(a, requirement(opts, py, d.Name, d.Version))
			}
			return a, nil
		}
		c, err := constraintArgs(dir, opts.Constraints)
		if err != nil {
			return nil, err
		}
		a = append(a, c...)
		if report {
			a = append(a, "--report", filepath.Join(dir, "report.json"))
		}
		return append(append(a, requirement(opts, py, dist, version)), withRequirements(opts, py, version)...), nil
	}
	pipCache := filepath.Join(opts.CacheDir, "pip")
	pipFlags := []string{"--disable-pip-version-check", "--no-input", "--cache-dir", pipCache, "--prefer-binary"}
	var create []string
	var install func(dir string) ([]string, error)
	switch {
	case withUV:
		create = []string{uv, "venv", "--no-config", "--quiet", "--python", py.Executable, venv}
		install = func(dir string) ([]string, error) {
			a, err := installArgs(dir)
			return append([]string{uv, "pip", "install", "--no-config", "--python", vpy, "--cache-dir", filepath.Join(opts.CacheDir, "uv")}, a...), err
		}
	case pipAtLeast(py.Pip, 22, 3) && py.Venv:
		// A bare venv plus the base interpreter's pip (pip --python, pip >= 22.3):
		// much faster than bootstrapping pip into every environment.
		create = []string{py.Executable, "-m", "venv", "--without-pip", venv}
		install = func(dir string) ([]string, error) {
			a, err := installArgs(dir)
			return append(append([]string{py.Executable, "-m", "pip", "--python", vpy, "install"}, pipFlags...), a...), err
		}
	case py.Venv && py.Ensurepip:
		create = []string{py.Executable, "-m", "venv", venv}
		install = func(dir string) ([]string, error) {
			a, err := installArgs(dir)
			return append(append([]string{vpy, "-m", "pip", "install"}, pipFlags...), a...), err
		}
	default:
		return "", false, nil, fmt.Errorf("probe: %s can make neither a virtual environment with pip nor use uv "+
			"(on Debian: apt-get install python3-venv python3-pip)", py.Executable)
	}
	fixed := func(argv []string) func(string) ([]string, error) {
		return func(string) ([]string, error) { return argv, nil }
	}
	readReport := func(dir string) error {
		if !report {
			return nil
		}
		var err error
		installed, err = readPipReport(filepath.Join(dir, "report.json"))
		return err
	}
	for i, step := range []func(string) ([]string, error){fixed(create), install} {
		after := readReport
		if i == 0 {
			after = nil
		}
		if err := runSandboxed(ctx, opts, withUV, opts.InstallTimeout, step, after); err != nil {
			ie := &InstallError{Package: dist, Version: version, Err: err}
			var se *stepError
			if errors.As(err, &se) {
				ie.Err, ie.Output = se.err, se.output
			}
			if i == 0 {
				ie.Err = fmt.Errorf("creating the environment: %w", ie.Err)
			}
			return "", false, nil, ie
		}
	}
	switch {
	case report:
		// The installer said what it installed: that is the environment's key.
		dists = installed
		name, meta = envKey(opts, py, version, dists)
		final = filepath.Join(envs, name)
	case dists == nil:
		keep = true
		return build, false, nil, nil // not cached: nothing says what it holds
	}
	meta["created"] = time.Now().UTC().Format(time.RFC3339)
	b, _ := json.MarshalIndent(meta, "", "  ")
	if err := os.WriteFile(filepath.Join(build, "pinbot-env.json"), append(b, '\n'), 0o644); err != nil {
		return "", false, nil, err
	}
	if err := os.Rename(build, final); err != nil {
		if envReady(final) { // another run finished the same environment first
			return final, false, dists, nil
		}
		os.RemoveAll(final) // an incomplete entry (e.g. a partial cache restore)
		if err := os.Rename(build, final); err != nil {
			return "", false, nil, err
		}
	}
	return final, false, dists, nil
}

// removeStaleBuilds deletes build directories left by runs that were killed
// (a build takes minutes at most; these are hours old).
func removeStaleBuilds(envs string) {
	entries, _ := os.ReadDir(envs)
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), ".build-") {
			continue
		}
		if fi, err := e.Info(); err == nil && time.Since(fi.ModTime()) > 6*time.Hour {
			os.RemoveAll(filepath.Join(envs, e.Name()))
		}
	}
}

func envReady(dir string) bool {
	_, err1 := os.Stat(filepath.Join(dir, "pinbot-env.json"))
	_, err2 := os.Lstat(filepath.Join(dir, "venv", "bin", "python"))
	return err1 == nil && err2 == nil
}

type stepError struct {
	err    error
	output string
}

func (e *stepError) Error() string { return e.err.Error() }

// runSandboxed runs one installer step in a fresh sandbox directory, for at
// most timeout (the step's own limit: a resolution's or an install's, never
// the probe's): argv builds the command there (it may write input files into
// it), after reads what the step wrote before the directory is removed.
func runSandboxed(ctx context.Context, opts *Options, uv bool, timeout time.Duration, argv func(dir string) ([]string, error), after func(dir string) error) error {
	dir, done, err := sandbox(opts)
	if err != nil {
		return err
	}
	defer done()
	args, err := argv(dir)
	if err != nil {
		return err
	}
	extra := installPassThrough
	if opts.Index == "" {
		extra = append(append([]string(nil), extra...), indexVars...)
	}
	env := sandboxEnv(opts.Environ, dir, "", extra)
	if uv {
		env = append(env, "UV_PYTHON_DOWNLOADS=never", "UV_CACHE_DIR="+filepath.Join(dir, "uv-cache"))
	} else {
		env = append(env, "PIP_DISABLE_PIP_VERSION_CHECK=1", "PIP_NO_INPUT=1")
		if opts.Index != "" {
			env = append(env, "PIP_CONFIG_FILE="+os.DevNull) // only the index we were given
		}
	}
	out, err := opts.Runner.Run(ctx, &Command{
		Path: args[0], Args: args[1:], Dir: dir, Env: env, Timeout: timeout, MaxOutput: opts.MaxOutput,
	})
	if err != nil {
		return fmt.Errorf("running %s: %w", filepath.Base(args[0]), err)
	}
	switch {
	case out.TimedOut:
		return &stepError{fmt.Errorf("timed out after %s", timeout), redactText(tail(out.Stderr, 1500))}
	case out.ExitCode != 0:
		msg := tail(append(append([]byte(nil), out.Stdout...), out.Stderr...), 1500)
		return &stepError{fmt.Errorf("%s exited with status %d", filepath.Base(args[0]), out.ExitCode), redactText(msg)}
	}
	if after != nil {
		return after(dir)
	}
	return nil
}

// pipAtLeast reports whether a pip version is major.minor or later (22.3 has
// --python; 22.2 has --dry-run --report).
func pipAtLeast(v string, major, minor int) bool {
	parts := strings.Split(v, ".")
	if len(parts) < 2 {
		return false
	}
	ma, err1 := strconv.Atoi(parts[0])
	mi, err2 := strconv.Atoi(parts[1])
	if err1 != nil || err2 != nil {
		return false
	}
	return ma > major || ma == major && mi >= minor
}
