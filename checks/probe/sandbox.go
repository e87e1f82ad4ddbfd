package probe

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"strings"
	"time"
)

// DefaultTimeout is how long one probe process (the Python process that imports
// the release and runs its probes) may take when Options.Timeout is zero.
const DefaultTimeout = 120 * time.Second

// DefaultResolveTimeout is how long one resolver process (pip install --dry-run,
// uv pip compile) may take when Options.ResolveTimeout is zero. A resolver
// downloads metadata and may backtrack: it is not bounded by the probe's timeout.
const DefaultResolveTimeout = 5 * time.Minute

// DefaultInstallTimeout is how long one step that makes an environment (asking
// the interpreter what it is, creating the venv, installing into it) may take
// when Options.InstallTimeout is zero. An install downloads and unpacks wheels
// (and may build an sdist): it is not bounded by the probe's timeout.
const DefaultInstallTimeout = 10 * time.Minute

// DefaultMaxOutput is how many bytes of stdout and of stderr are kept per process
// when Options.MaxOutput is zero; the rest is read and discarded.
const DefaultMaxOutput = 1 << 20

// A Command is one process to run: the exact program, arguments, working directory
// and complete environment (nothing is inherited), with limits.
type Command struct {
	Path      string
	Args      []string // not including the program name
	Dir       string
	Env       []string // the whole environment of the process
	Stdin     []byte
	Timeout   time.Duration // zero means DefaultTimeout
	MaxOutput int64         // per stream; zero means DefaultMaxOutput
}

// An Output is what a finished Command produced.
type Output struct {
	Stdout, Stderr []byte
	ExitCode       int  // -1 when killed by a signal
	TimedOut       bool // the process group was killed because Timeout passed
	Truncated      bool // some output beyond MaxOutput was discarded
}

// A Runner runs Commands. ExecRunner runs real processes; tests substitute a
// RunnerFunc. Run returns an error only when the process could not be started or
// ctx was cancelled; a non-zero exit status or a timeout is reported in Output.
type Runner interface {
	Run(ctx context.Context, c *Command) (*Output, error)
}

// RunnerFunc adapts a function to the Runner interface.
type RunnerFunc func(ctx context.Context, c *Command) (*Output, error)

// Run calls f(ctx, c).
func (f RunnerFunc) Run(ctx context.Context, c *Command) (*Output, error) { return f(ctx, c) }

// ExecRunner runs Commands as real processes, each in its own process group, which
// is killed (SIGKILL to the whole group) on timeout, on cancellation and, to reap
// stragglers, after the leader exits. Output beyond the cap is drained and dropped,
// so a process printing gigabytes neither blocks nor fills memory.
//
// A process that leaves its group (setsid, a double fork into a new group) escapes
// the kill; containing that needs cgroups or namespaces, which pinbot does not set up.
type ExecRunner struct{}

var _ Runner = ExecRunner{}

// Run starts c and waits for it, its timeout or the cancellation of ctx.
func (ExecRunner) Run(ctx context.Context, c *Command) (*Output, error) {
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	limit := c.MaxOutput
	if limit <= 0 {
		limit = DefaultMaxOutput
	}
	tctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	cmd := exec.CommandContext(tctx, c.Path, c.Args...)
	cmd.Dir = c.Dir
	cmd.Env = c.Env
	if cmd.Env == nil {
		cmd.Env = []string{} // never inherit
	}
	cmd.Stdin = bytes.NewReader(c.Stdin)
	stdout := &capped{max: limit}
	stderr := &capped{max: limit}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	setProcessGroup(cmd)
	cmd.Cancel = func() error { return killGroup(cmd) }
	// Once the leader is dead, stop waiting for pipes held open by its children.
	cmd.WaitDelay = 2 * time.Second

	if err := cmd.Start(); err != nil {
		return nil, err
	}
	werr := cmd.Wait()
	_ = killGroup(cmd) // children left behind by a leader that exited on its own

	out := &Output{
		Stdout:    stdout.buf.Bytes(),
		Stderr:    stderr.buf.Bytes(),
		ExitCode:  cmd.ProcessState.ExitCode(),
		Truncated: stdout.dropped > 0 || stderr.dropped > 0,
	}
	if ctx.Err() != nil {
		return out, ctx.Err()
	}
	if errors.Is(tctx.Err(), context.DeadlineExceeded) {
		out.TimedOut = true
		return out, nil
	}
	var exitErr *exec.ExitError
	if werr != nil && !errors.As(werr, &exitErr) && !errors.Is(werr, exec.ErrWaitDelay) {
		return out, werr
	}
	return out, nil
}

// capped keeps the first max bytes written to it and counts the rest.
type capped struct {
	max     int64
	buf     bytes.Buffer
	dropped int64
}

func (w *capped) Write(p []byte) (int, error) {
	room := w.max - int64(w.buf.Len())
	switch {
	case room <= 0:
		w.dropped += int64(len(p))
	case int64(len(p)) > room:
		w.buf.Write(p[:room])
		w.dropped += int64(len(p)) - room
	default:
		w.buf.Write(p)
	}
	return len(p), nil
}

// sandboxEnv builds the whole environment of an untrusted Python process from the
// caller's environment: an allow-list, never a deny-list, plus fixed values. HOME
// and TMPDIR point into the process's own temporary directory. pathPrefix, if not
// empty, is put in front of PATH (a virtual environment's bin directory). extra
// names further variables to pass through (the install step's index settings).
func sandboxEnv(parent []string, home, pathPrefix string, extra []string) []string {
	get := func(name string) (string, bool) {
		for i := len(parent) - 1; i >= 0; i-- {
			if k, v, ok := strings.Cut(parent[i], "="); ok && k == name {
				return v, true
			}
		}
		return "", false
	}
	path, _ := get("PATH")
	if path == "" {
		path = "/usr/local/bin:/usr/bin:/bin"
	}
	if pathPrefix != "" {
		path = pathPrefix + ":" + path
	}
	env := []string{
		"PATH=" + path,
		"HOME=" + home,
		"TMPDIR=" + home + "/tmp",
		"PYTHONNOUSERSITE=1",
		"PYTHONDONTWRITEBYTECODE=1",
		"PYTHONIOENCODING=utf-8",
	}
	for _, name := range []string{"LANG", "LC_ALL", "LC_CTYPE"} {
		if v, ok := get(name); ok {
			env = append(env, name+"="+v)
		}
	}
	if _, ok := get("LANG"); !ok {
		env = append(env, "LANG=C.UTF-8")
	}
	for _, name := range extra {
		if secretName(name) {
			continue
		}
		if v, ok := get(name); ok {
			env = append(env, name+"="+v)
		}
	}
	return env
}

// installPassThrough are the variables an install step may see besides the base
// set: where to download from and how to reach it. indexVars are passed only when
// the caller did not name an index itself.
var (
	installPassThrough = []string{
		"PIP_CERT", "PIP_CLIENT_CERT", "PIP_DEFAULT_TIMEOUT", "PIP_RETRIES",
		"SSL_CERT_FILE", "SSL_CERT_DIR", "REQUESTS_CA_BUNDLE", "UV_NATIVE_TLS",
		"HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "ALL_PROXY",
		"http_proxy", "https_proxy", "no_proxy", "all_proxy",
	}
	indexVars = []string{
		"PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "PIP_FIND_LINKS", "PIP_NO_INDEX", "PIP_TRUSTED_HOST",
		"UV_INDEX_URL", "UV_EXTRA_INDEX_URL", "UV_DEFAULT_INDEX", "UV_INDEX", "UV_FIND_LINKS",
	}
)

// secretName reports whether an environment variable name looks like it holds a
// credential or belongs to a cloud or CI account; such variables never reach a
// probe or install process even when allow-listed by mistake.
func secretName(name string) bool {
	u := strings.ToUpper(name)
	for _, p := range []string{"GITHUB_", "SLACK_", "AWS_", "GOOGLE_", "AZURE_", "ACTIONS_"} {
		if strings.HasPrefix(u, p) {
			return true
		}
	}
	for _, s := range []string{"TOKEN", "SECRET", "PASSWORD", "PASSWD", "KEY", "CREDENTIAL", "AUTH", "WEBHOOK"} {
		if strings.Contains(u, s) {
			return true
		}
	}
	return false
}
