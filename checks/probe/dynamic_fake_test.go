package probe

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// fakePython stands in for python, pip and uv: it records every Command and
// answers the interpreter query, environment creation, installs and probe runs.
type fakePython struct {
	t       *testing.T
	calls   []*Command
	info    pyInfo
	install *Output                              // nil: success
	resolve func(args []string) (*Output, error) // nil: resolve to the package and deps
	deps    map[string]string                    // further distributions every resolution has
	version string                               // the installed version the probe reports, as JSON; "" for "0.67.0"
}

func (f *fakePython) Run(_ context.Context, c *Command) (*Output, error) {
	f.calls = append(f.calls, c)
	args := c.Args
	switch {
	case len(args) >= 2 && args[0] == "-I" && args[1] == "-c":
		b, _ := json.Marshal(f.info)
		return &Output{Stdout: b}, nil
	case slices.Contains(args, "venv"):
		venv := args[len(args)-1]
		os.MkdirAll(filepath.Join(venv, "bin"), 0o755)
		os.WriteFile(filepath.Join(venv, "bin", "python"), nil, 0o755)
		return &Output{}, nil
	case slices.Contains(args, "--report"), slices.Contains(args, "compile"):
		if f.resolve != nil {
			return f.resolve(args)
		}
		if f.install != nil {
			return f.install, nil
		}
		if f.install != nil && !slices.Contains(args, "--dry-run") && !slices.Contains(args, "compile") {
			return f.install, nil // an install that reports what it installed
		}
		name, version, _ := strings.Cut(args[len(args)-1], "==")
		if slices.Contains(args, "compile") {
			b, _ := os.ReadFile(args[len(args)-1])
			name, version, _ = strings.Cut(strings.TrimSpace(string(b)), "==")
		}
		dists := []Dist{{name, version}}
		for n, v := range f.deps {
			dists = append(dists, Dist{n, v})
		}
		if slices.Contains(args, "compile") {
			var lines []string
			for _, d := range dists {
				lines = append(lines, d.Name+"=="+d.Version+"\n    # via pinbot")
			}
			os.WriteFile(args[slices.Index(args, "-o")+1], []byte(strings.Join(lines, "\n")+"\n"), 0o644)
			return &Output{}, nil
		}
		var rep struct {
			Install []map[string]map[string]string `json:"install"`
		}
		for _, d := range dists {
			rep.Install = append(rep.Install, map[string]map[string]string{"metadata": {"name": d.Name, "version": d.Version}})
		}
		b, _ := json.Marshal(rep)
		os.WriteFile(args[slices.Index(args, "--report")+1], b, 0o644)
		return &Output{}, nil
	case slices.Contains(args, "install"):
		if f.install != nil {
			return f.install, nil
		}
		return &Output{}, nil
	case len(args) == 4 && strings.HasSuffix(args[3], "pinbot_probe.py"):
		var req struct {
			Package string
			Probes  []struct{ I int }
			Uses    []struct {
				I    int
				Call bool
			}
		}
		if err := json.Unmarshal(c.Stdin, &req); err != nil {
			f.t.Fatalf("probe stdin: %v", err)
		}
		version := `"0.67.0"`
		if f.version != "" {
			version = f.version
		}
		out := `{"python": "3.11.7", "executable": "x", "version": ` + version + `}` + "\n"
		for _, p := range req.Probes {
			b, _ := json.Marshal(map[string]any{"i": p.I, "status": "pass", "detail": "ok"})
			out += string(b) + "\n"
		}
		for _, u := range req.Uses {
			b, _ := json.Marshal(map[string]any{"u": u.I, "status": "pass", "kind": "function", "detail": "found f", "callable": true, "sig": []string{"1x", "3=y"}})
			out += fmt.Sprintf("{\"ustart\": %d}\n%s\n", u.I, b)
		}
		return &Output{Stdout: []byte(out + `{"done": true}` + "\n")}, nil
	}
	f.t.Fatalf("unexpected command %s %q", c.Path, args)
	return nil, nil
}

func (f *fakePython) argv() [][]string {
	var out [][]string
	for _, c := range f.calls {
		out = append(out, append([]string{c.Path}, c.Args...))
	}
	return out
}

func fakeOpts(t *testing.T, f *fakePython) Options {
	return Options{
		Package: "numba", Candidate: "0.67.0", Specs: []Spec{{Preset: "numba-unique-ids"}},
		Python: "/opt/py/bin/python3", CacheDir: t.TempDir(), TempDir: t.TempDir(), Index: t.TempDir(),
		Environ: []string{"PATH=" + t.TempDir(), "GITHUB_TOKEN=ghp_x", "AWS_SECRET_ACCESS_KEY=y", "PIP_INDEX_URL=https://env/simple"},
		Runner:  f,
		// No network in these tests: index pages cannot be revalidated.
		HTTPClient: &http.Client{Transport: roundTripFunc(func(*http.Request) (*http.Response, error) {
			return nil, errors.New("no network in this test")
		})},
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func newFake(t *testing.T) *fakePython {
	return &fakePython{t: t, info: pyInfo{Version: "3.11.7", Full: "3.11.7 (main)", Executable: "/opt/py/bin/python3.11", Pip: "23.2.1", Venv: true, Ensurepip: true}}
}

func envOf(c *Command, name string) (string, bool) {
	for _, kv := range c.Env {
		if k, v, _ := strings.Cut(kv, "="); k == name {
			return v, true
		}
	}
	return "", false
}

func TestFakeInstallAndCache(t *testing.T) {
	f := newFake(t)
	opts := fakeOpts(t, f)
	rep, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Verdict != OK || len(rep.Results) != 3 || rep.Python != "3.11.7" {
		t.Fatalf("report %+v", rep)
	}
	argv := f.argv()
	if len(argv) != 4 {
		t.Fatalf("commands %q", argv)
	}
	// No resolution recorded yet: make a venv, install the release and let pip
	// report what it installed (the resolution), probe.
	build := argv[1][len(argv[1])-1]
	report := argv[2][slices.Index(argv[2], "--report")+1]
	pipCache := filepath.Join(opts.CacheDir, "pip")
	want := [][]string{
		{"/opt/py/bin/python3", "-I", "-c", queryScript},
		{"/opt/py/bin/python3.11", "-m", "venv", "--without-pip", build},
		{"/opt/py/bin/python3.11", "-m", "pip", "--python", build + "/bin/python", "install", "--disable-pip-version-check",
			"--no-input", "--cache-dir", pipCache, "--prefer-binary", "--no-index", "--find-links", opts.Index, "--report", report, "numba==0.67.0"},
	}
	for i := range want {
		if !slices.Equal(argv[i], want[i]) {
			t.Errorf("command %d\n got %q\nwant %q", i, argv[i], want[i])
		}
	}
	envs, _ := filepath.Glob(filepath.Join(opts.CacheDir, "envs", "numba-0.67.0-py3.11-*"))
	if len(envs) != 1 || argv[3][0] != filepath.Join(envs[0], "venv", "bin", "python") {
		t.Fatalf("cache entries %q, probe ran %q", envs, argv[3])
	}
	if meta, err := os.ReadFile(filepath.Join(envs[0], "pinbot-env.json")); err != nil || !strings.Contains(string(meta), `"version": "0.67.0"`) {
		t.Errorf("pinbot-env.json: %s %v", meta, err)
	}
	for i, c := range f.calls {
		home, _ := envOf(c, "HOME")
		if !strings.HasPrefix(home, opts.TempDir) || c.Dir != home {
			t.Errorf("command %d: HOME %q, dir %q, want a sandbox in %s", i, home, c.Dir, opts.TempDir)
		}
		for _, kv := range c.Env {
			if k, _, _ := strings.Cut(kv, "="); secretName(k) || k == "PIP_INDEX_URL" {
				t.Errorf("command %d has %s", i, kv)
			}
		}
		if c.Timeout != stepLimit[stepKind(c)] || c.MaxOutput != DefaultMaxOutput {
			t.Errorf("command %d (%s) limits %s %d", i, stepKind(c), c.Timeout, c.MaxOutput)
		}
	}
	if v, _ := envOf(f.calls[2], "PIP_CONFIG_FILE"); v != os.DevNull {
		t.Errorf("pip runs with PIP_CONFIG_FILE=%q, want %s", v, os.DevNull)
	}
	if p, _ := envOf(f.calls[3], "PATH"); !strings.HasPrefix(p, filepath.Join(envs[0], "venv", "bin")+":") {
		t.Errorf("probe PATH %q", p)
	}
	if rep.CandidateEnv == nil || rep.CandidateEnv.Reused {
		t.Errorf("cold environment %+v", rep.CandidateEnv)
	}

	// Warm: the wheel directory is unchanged, so the resolution stands and
	// the environment is reused: nothing is resolved or installed.
	f.calls = nil
	if rep, err = Run(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	if argv := f.argv(); len(argv) != 2 || argv[1][0] != filepath.Join(envs[0], "venv", "bin", "python") {
		t.Errorf("warm run commands %q", argv)
	}
	if !rep.CandidateEnv.Reused {
		t.Errorf("warm environment %+v", rep.CandidateEnv)
	}
	// A new file in the wheel directory: ask pip again, without installing.
	// It resolves the same, so the environment is still reused.
	os.WriteFile(filepath.Join(opts.Index, "numba-0.68.0-py3-none-any.whl"), nil, 0o644)
	f.calls = nil
	if _, err := Run(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	argv = f.argv()
	if len(argv) != 3 || !slices.Contains(argv[1], "--dry-run") {
		t.Fatalf("changed index commands %q", argv)
	}
	report = argv[1][slices.Index(argv[1], "--report")+1]
	if want := []string{"/opt/py/bin/python3.11", "-m", "pip", "install", "--dry-run", "--ignore-installed", "--report", report,
		"--disable-pip-version-check", "--no-input", "--prefer-binary", "--cache-dir", pipCache,
		"--no-index", "--find-links", opts.Index, "numba==0.67.0"}; !slices.Equal(argv[1], want) {
		t.Errorf("resolution\n got %q\nwant %q", argv[1], want)
	}
	// A dependency resolves differently: a new environment.
	f.deps = map[string]string{"numpy": "2.5.2"}
	os.WriteFile(filepath.Join(opts.Index, "numpy-2.5.2-py3-none-any.whl"), nil, 0o644)
	f.calls = nil
	if rep, err = Run(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	if argv := f.argv(); len(argv) != 5 || !slices.Equal(argv[3][len(argv[3])-3:], []string{"--no-deps", "numba==0.67.0", "numpy==2.5.2"}) {
		t.Errorf("new resolution commands %q", argv)
	}
	if rep.CandidateEnv == nil || rep.CandidateEnv.Reused {
		t.Errorf("a new resolution reused an environment: %+v", rep.CandidateEnv)
	}
	if envs, _ := filepath.Glob(filepath.Join(opts.CacheDir, "envs", "numba-0.67.0-py3.11-*")); len(envs) != 2 {
		t.Errorf("cache entries %q, want one per resolution", envs)
	}
	f.deps = nil
	// Another index is another resolution and another environment.
	opts.Index = "https://user:pw@idx.example/simple"
	f.calls = nil
	if _, err := Run(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	if argv := f.argv(); len(argv) != 4 || !slices.Contains(argv[2], "--index-url") || !slices.Contains(argv[2], opts.Index) {
		t.Errorf("index URL commands %q", argv)
	}
	envs, _ = filepath.Glob(filepath.Join(opts.CacheDir, "envs", "numba-*"))
	if len(envs) != 3 {
		t.Errorf("cache entries %q, want 3", envs)
	}
	var all string
	for _, pattern := range []string{"envs/*/pinbot-env.json", "resolutions/*.json"} {
		files, _ := filepath.Glob(filepath.Join(opts.CacheDir, pattern))
		for _, f := range files {
			b, _ := os.ReadFile(f)
			all += string(b)
		}
	}
	if strings.Contains(all, "pw@") || !strings.Contains(all, "numpy==2.5.2") {
		t.Errorf("cache metadata has credentials or lacks the resolution: %s", all)
	}
}

// stepKind names the step a command of the fake runner is: "query",
// "venv", "resolve", "install" or "probe".
func stepKind(c *Command) string {
	switch args := c.Args; {
	case len(args) >= 2 && args[0] == "-I" && args[1] == "-c":
		return "query"
	case slices.Contains(args, "venv"):
		return "venv"
	case slices.Contains(args, "--dry-run"), slices.Contains(args, "compile"):
		return "resolve"
	case slices.Contains(args, "install"):
		return "install"
	case len(args) == 4 && strings.HasSuffix(args[3], "pinbot_probe.py"):
		return "probe"
	}
	return "other"
}

// stepLimit is each step's timeout with Options' limits left zero.
var stepLimit = map[string]time.Duration{"query": DefaultInstallTimeout, "venv": DefaultInstallTimeout,
	"resolve": DefaultResolveTimeout, "install": DefaultInstallTimeout, "probe": DefaultTimeout}

// TestFakeEachStepHasItsOwnLimit: Options.Timeout bounds the probe process
// alone; resolving and installing have limits of their own (#27: a 5 s
// probe timeout also bounded pip's resolution, which a loaded machine
// needed longer for).
func TestFakeEachStepHasItsOwnLimit(t *testing.T) {
	f := newFake(t)
	opts := fakeOpts(t, f)
	opts.Timeout = 5 * time.Second
	run := func(what string, want map[string]time.Duration) {
		t.Helper()
		f.calls = nil
		if _, err := Run(context.Background(), opts); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		seen := map[string]bool{}
		for _, c := range f.calls {
			k := stepKind(c)
			seen[k] = true
			if d, ok := want[k]; !ok || c.Timeout != d {
				t.Errorf("%s: %s step %q has timeout %s, want %s", what, k, c.Args, c.Timeout, d)
			}
		}
		for k := range want {
			if !seen[k] {
				t.Errorf("%s: no %s step among %q", what, k, f.argv())
			}
		}
	}
	probe := 5 * time.Second
	run("cold", map[string]time.Duration{"query": DefaultInstallTimeout, "venv": DefaultInstallTimeout, "install": DefaultInstallTimeout, "probe": probe})
	// A new file in the wheel directory: pip resolves again.
	os.WriteFile(filepath.Join(opts.Index, "numba-0.68.0-py3-none-any.whl"), nil, 0o644)
	run("resolving", map[string]time.Duration{"query": DefaultInstallTimeout, "resolve": DefaultResolveTimeout, "probe": probe})
	opts.ResolveTimeout, opts.InstallTimeout = 7*time.Minute, 3*time.Minute
	os.WriteFile(filepath.Join(opts.Index, "numba-0.69.0-py3-none-any.whl"), nil, 0o644)
	run("resolving with limits", map[string]time.Duration{"query": 3 * time.Minute, "resolve": 7 * time.Minute, "probe": probe})

	// An install that times out says which limit it hit.
	opts.CacheDir = t.TempDir()
	f.install = &Output{Stderr: []byte("Downloading numba"), TimedOut: true, ExitCode: -1}
	_, err := Run(context.Background(), opts)
	var ie *InstallError
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), "timed out after 3m0s") {
		t.Errorf("install timing out: %v, want an InstallError that timed out after 3m0s", err)
	}

	// Resolve alone: the resolver gets the resolution's limit, not Timeout.
	f.install, f.calls = nil, nil
	if _, err := Resolve(context.Background(), Options{Python: opts.Python, Index: opts.Index, Runner: f, TempDir: opts.TempDir,
		Environ: opts.Environ, Installer: "pip", Timeout: probe}, []string{"numba==0.67.0"}); err != nil {
		t.Fatal(err)
	}
	for _, c := range f.calls {
		if k := stepKind(c); c.Timeout != stepLimit[k] {
			t.Errorf("Resolve: %s step has timeout %s, want %s", k, c.Timeout, stepLimit[k])
		}
	}
	if len(f.calls) != 2 {
		t.Errorf("Resolve ran %q", f.argv())
	}
}

func TestFakeInterpreterQueryCached(t *testing.T) {
	f := newFake(t)
	opts := fakeOpts(t, f)
	opts.Python = filepath.Join(t.TempDir(), "python3")
	os.WriteFile(opts.Python, []byte("\x7fELF fake interpreter"), 0o755)
	run := func() [][]string {
		t.Helper()
		f.calls = nil
		if _, err := Run(context.Background(), opts); err != nil {
			t.Fatal(err)
		}
		return f.argv()
	}
	if argv := run(); len(argv) != 4 {
		t.Fatalf("cold run %q", argv)
	}
	if argv := run(); len(argv) != 1 || !strings.HasSuffix(argv[0][0], "/venv/bin/python") {
		t.Errorf("warm run with an unchanged interpreter: %q, want the probe only", argv)
	}
	later := time.Now().Add(time.Minute)
	os.Chtimes(opts.Python, later, later) // the interpreter was replaced
	if argv := run(); len(argv) != 2 || argv[0][0] != opts.Python {
		t.Errorf("warm run after the interpreter changed: %q, want query and probe", argv)
	}
	opts.Candidate = "0.68.0" // a resolution and an environment that are not there: query afresh, then build
	if argv := run(); len(argv) != 4 || argv[0][0] != opts.Python {
		t.Errorf("run needing a new environment: %q", argv)
	}
	os.WriteFile(opts.Python, []byte("#!/bin/sh\nexec pyenv exec python3 \"$@\"\n"), 0o755)
	opts.Candidate = "0.67.0"
	if argv := run(); len(argv) != 2 {
		t.Errorf("a shim is queried every time: %q", argv)
	}
}

func TestFakeBaselineAndCandidate(t *testing.T) {
	f := newFake(t)
	opts := fakeOpts(t, f)
	opts.Baseline = "0.66.0"
	rep, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	var installs []string
	for _, a := range f.argv() {
		if slices.Contains(a, "install") && !slices.Contains(a, "--dry-run") {
			installs = append(installs, a[len(a)-1])
		}
	}
	if !slices.Equal(installs, []string{"numba==0.66.0", "numba==0.67.0"}) {
		t.Errorf("installs %q", installs)
	}
	if r := rep.Results[0]; r.Baseline == nil || r.Baseline.Version != "0.66.0" || r.Candidate.Version != "0.67.0" {
		t.Errorf("result %+v", r)
	}
}

func TestFakeIndexFromEnvironment(t *testing.T) {
	f := newFake(t)
	opts := fakeOpts(t, f)
	opts.Index = ""
	if _, err := Run(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	install, probe := f.calls[2], f.calls[3]
	for _, c := range []*Command{install} {
		if v, _ := envOf(c, "PIP_INDEX_URL"); v != "https://env/simple" || slices.Contains(c.Args, "--index-url") {
			t.Errorf("install: PIP_INDEX_URL=%q args %q", v, c.Args)
		}
		if _, ok := envOf(c, "PIP_CONFIG_FILE"); ok {
			t.Error("PIP_CONFIG_FILE set without an explicit index")
		}
	}
	// The index comes from settings pinbot cannot follow (pip's configuration
	// files may add indexes): pip is asked again on the next run.
	f.calls = nil
	if _, err := Run(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	if argv := f.argv(); len(argv) != 3 || !slices.Contains(argv[1], "--dry-run") {
		t.Errorf("second run %q, want query, resolve, probe", argv)
	} else if v, _ := envOf(f.calls[1], "PIP_INDEX_URL"); v != "https://env/simple" {
		t.Errorf("resolve: PIP_INDEX_URL=%q", v)
	}
	if _, ok := envOf(probe, "PIP_INDEX_URL"); ok {
		t.Error("the probe process sees PIP_INDEX_URL")
	}
}

func TestFakeUV(t *testing.T) {
	f := newFake(t)
	opts := fakeOpts(t, f)
	bin := t.TempDir()
	uv := filepath.Join(bin, "uv")
	os.WriteFile(uv, []byte("#!/bin/sh\n"), 0o755)
	opts.Environ = append(opts.Environ, "PATH="+bin)
	if _, err := Run(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	argv := f.argv()
	build := argv[2][len(argv[2])-1]
	out := argv[1][slices.Index(argv[1], "-o")+1]
	in := filepath.Join(filepath.Dir(out), "requirements.in")
	uvCache := filepath.Join(opts.CacheDir, "uv")
	if want := []string{uv, "pip", "compile", "--no-config", "--quiet", "--no-header", "--no-annotate", "--python", "/opt/py/bin/python3.11",
		"--cache-dir", uvCache, "-o", out, "--no-index", "--find-links", opts.Index, in}; !slices.Equal(argv[1], want) {
		t.Errorf("uv pip compile\n got %q\nwant %q", argv[1], want)
	}
	if want := []string{uv, "venv", "--no-config", "--quiet", "--python", "/opt/py/bin/python3.11", build}; !slices.Equal(argv[2], want) {
		t.Errorf("uv venv\n got %q\nwant %q", argv[2], want)
	}
	if want := []string{uv, "pip", "install", "--no-config", "--python", build + "/bin/python", "--cache-dir", uvCache,
		"--no-index", "--find-links", opts.Index, "--no-deps", "numba==0.67.0"}; !slices.Equal(argv[3], want) {
		t.Errorf("uv pip install\n got %q\nwant %q", argv[3], want)
	}
	for _, i := range []int{1, 3} {
		if v, _ := envOf(f.calls[i], "UV_PYTHON_DOWNLOADS"); v != "never" {
			t.Errorf("UV_PYTHON_DOWNLOADS=%q", v)
		}
	}
	// uv's output lists every distribution: a dependency is installed too.
	f.deps = map[string]string{"numpy": "2.4.6"}
	opts.CacheDir = t.TempDir()
	f.calls = nil
	if _, err := Run(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	if a := f.argv()[3]; !slices.Equal(a[len(a)-2:], []string{"numba==0.67.0", "numpy==2.4.6"}) {
		t.Errorf("uv pip install %q", a)
	}
	f.deps = nil

	f.calls = nil
	opts.Installer = "pip"
	opts.CacheDir = t.TempDir()
	if _, err := Run(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	if a := f.argv(); a[1][0] != "/opt/py/bin/python3.11" || !slices.Contains(a[2], "--report") {
		t.Errorf("installer pip ran %q", a[1])
	}

	opts.Installer = "uv"
	opts.Environ = []string{"PATH=" + t.TempDir()}
	opts.CacheDir = t.TempDir()
	if _, err := Run(context.Background(), opts); err == nil || !strings.Contains(err.Error(), "uv is not on PATH") {
		t.Errorf("installer uv without uv: %v", err)
	}
}

func TestFakeWithoutHostPip(t *testing.T) {
	f := newFake(t)
	f.info.Pip = "21.0"
	opts := fakeOpts(t, f)
	if _, err := Run(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	// pip 21 can neither resolve without installing nor install for another
	// interpreter: a venv with its own pip, the release and its constraints,
	// not cached, and a note saying so.
	argv := f.argv()
	build := argv[1][len(argv[1])-1]
	if !slices.Equal(argv[1], []string{"/opt/py/bin/python3.11", "-m", "venv", build}) || argv[2][0] != build+"/bin/python" ||
		argv[2][len(argv[2])-1] != "numba==0.67.0" || slices.Contains(argv[2], "--no-deps") {
		t.Errorf("commands %q", argv)
	}
	if entries, _ := os.ReadDir(filepath.Join(opts.CacheDir, "envs")); len(entries) != 0 {
		t.Errorf("an unresolved environment was kept: %v", entries)
	}
	rep, err := Run(context.Background(), opts)
	if err != nil || len(rep.Notes) == 0 || !strings.Contains(rep.Notes[0], "pip 21.0 cannot say what it would install") {
		t.Errorf("notes %q, %v", rep.Notes, err)
	}
	f.info.Ensurepip, f.info.Pip = false, ""
	opts.CacheDir = t.TempDir()
	if _, err := Run(context.Background(), opts); err == nil || !strings.Contains(err.Error(), "python3-venv") {
		t.Errorf("no pip, no ensurepip: %v", err)
	}
}

func TestFakeInstallError(t *testing.T) {
	f := newFake(t)
	f.install = &Output{ExitCode: 1, Stderr: []byte("Looking in indexes: https://user:pw@idx.example/simple\nERROR: No matching distribution found for numba==0.67.0")}
	opts := fakeOpts(t, f)
	_, err := Run(context.Background(), opts)
	var ie *InstallError
	if !errors.As(err, &ie) || !strings.Contains(ie.Output, "No matching distribution") || strings.Contains(err.Error(), "pw@") {
		t.Fatalf("err = %v", err)
	}
	if entries, _ := os.ReadDir(filepath.Join(opts.CacheDir, "envs")); len(entries) != 0 {
		t.Errorf("a failed build left %d cache entries", len(entries))
	}
	f.install = &Output{TimedOut: true, ExitCode: -1}
	if _, err := Run(context.Background(), opts); !errors.As(err, &ie) || !strings.Contains(err.Error(), "timed out") {
		t.Errorf("timeout: %v", err)
	}
}

func TestFakeRelativeIndex(t *testing.T) {
	f := newFake(t)
	opts := fakeOpts(t, f)
	opts.Index = "testdata"
	if _, err := Run(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	abs, _ := filepath.Abs("testdata")
	if args := f.calls[2].Args; !slices.Contains(args, abs) {
		t.Errorf("install args %q do not name %s", args, abs)
	}
}

func TestFakeNoInstall(t *testing.T) {
	f := newFake(t)
	opts := fakeOpts(t, f)
	opts.NoInstall, opts.Candidate = true, "0.66.0"
	rep, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Installed != "0.67.0" || rep.Mismatch != "installed numba 0.67.0 is not the candidate 0.66.0" {
		t.Errorf("installed %q mismatch %q", rep.Installed, rep.Mismatch)
	}
	// The probes pass on what is installed, but that says nothing about the
	// candidate: warnings, never ok.
	for _, r := range rep.Results {
		wantResult(t, r, "", Pass, Warning, "installed numba 0.67.0 is not the candidate 0.66.0, so the candidate was not probed (ok: ok)")
	}
	if rep.Verdict != Warning {
		t.Errorf("verdict %s", rep.Verdict)
	}
	opts.Candidate = "0.67"
	if rep, err = Run(context.Background(), opts); err != nil || rep.Verdict != OK || rep.Mismatch != "" ||
		!strings.Contains(rep.Results[0].Detail, "installed numba 0.67.0 probed: ok") {
		t.Errorf("0.67 is 0.67.0: %v %+v", err, rep)
	}
	f.version = "null"
	if rep, err = Run(context.Background(), opts); err != nil || rep.Verdict != Warning ||
		rep.Mismatch != "numba is not installed in /opt/py/bin/python3" {
		t.Errorf("not installed: %v %+v", err, rep)
	}
	f.version = ""
	f.calls = nil
	opts.Candidate = ""
	rep, err = Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if argv := f.argv(); len(argv) != 1 || argv[0][0] != opts.Python {
		t.Errorf("commands %q", argv)
	}
	if rep.Candidate != "0.67.0" || rep.Mode != ModeInterpreter || rep.Results[0].Candidate.Version != "0.67.0" {
		t.Errorf("report %+v", rep)
	}
	if p, _ := envOf(f.calls[0], "PATH"); p != strings.TrimPrefix(opts.Environ[0], "PATH=") {
		t.Errorf("PATH %q", p)
	}
}

func TestCheckOptions(t *testing.T) {
	base := Options{Package: "numba", Candidate: "0.67.0", Specs: []Spec{{Path: "numba"}}, Runner: newFake(t)}
	for _, tt := range []struct {
		mod  func(*Options)
		want string
	}{
		{func(o *Options) { o.Package = "--index-url=x" }, "not a valid package name"},
		{func(o *Options) { o.Candidate = "1.0 ; rm" }, "not a valid version"},
		{func(o *Options) { o.Baseline = "../x" }, "not a valid version"},
		{func(o *Options) { o.Candidate = "" }, "no candidate"},
		{func(o *Options) { o.NoInstall, o.Static = true, true }, "exclude each other"},
		{func(o *Options) { o.Installer = "conda" }, "unknown installer"},
		{func(o *Options) { o.Specs = nil }, "no probes"},
		{func(o *Options) { o.Specs = []Spec{{Path: "a-b"}} }, "probes[0]: path"},
		{func(o *Options) { o.NoInstall, o.Environ = true, []string{"PATH=/nonexistent"} }, "needs a Python"},
		{func(o *Options) { o.With = []string{"llvmlite>=0.50"} }, "not name==version"},
		{func(o *Options) { o.With = []string{"--index-url=x==1"} }, "not name==version"},
	} {
		o := base
		tt.mod(&o)
		if _, err := Run(context.Background(), o); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("error %v, want %q", err, tt.want)
		}
	}
}

// TestFakeInstallWith: the releases With names are installed beside the
// candidate, not the baseline, and the candidate's environment is another
// one than without them.
func TestFakeInstallWith(t *testing.T) {
	f := newFake(t)
	opts := fakeOpts(t, f)
	opts.Baseline = "0.66.0"
	if _, err := Run(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	opts.With = []string{"llvmlite==0.50.1"}
	f.calls = nil
	if _, err := Run(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	var installs [][]string
	for _, a := range f.argv() {
		if slices.Contains(a, "install") {
			installs = append(installs, a)
		}
	}
	// The baseline's environment is reused; the candidate's is new.
	if len(installs) != 1 || !slices.Equal(installs[0][len(installs[0])-2:], []string{"numba==0.67.0", "llvmlite==0.50.1"}) {
		t.Errorf("installs %q", installs)
	}
	envs, _ := filepath.Glob(filepath.Join(opts.CacheDir, "envs", "numba-0.67.0-*"))
	if len(envs) != 2 {
		t.Errorf("candidate environments %q, want one without and one with llvmlite", envs)
	}
}

func TestParseProbeOutput(t *testing.T) {
	specs := []Spec{{Path: "a"}, {Path: "b"}, {Path: "c"}}
	hdr := `{"python": "3.11.7", "executable": "/x", "version": null}` + "\n"
	tests := []struct {
		name   string
		out    Output
		status []Status
		detail []string
	}{
		{"timeout in the second probe",
			Output{Stdout: []byte(hdr + `{"start": 0}` + "\n" + `{"i": 0, "status": "pass", "detail": "ok"}` + "\n" + `{"start": 1}` + "\n"), Stderr: []byte("Traceback: stuck"), TimedOut: true, ExitCode: -1},
			[]Status{Pass, Unknown, Unknown}, []string{"ok", "timed out after 2s while running this probe; stderr: Traceback: stuck", "not run: the probe process timed out"}},
		{"crash in the first probe",
			Output{Stdout: []byte(hdr + `{"start": 0}` + "\n"), Stderr: []byte("Segmentation fault"), ExitCode: -1},
			[]Status{Fail, Unknown, Unknown}, []string{"died (exit status -1) while running this probe; stderr: Segmentation fault", "exited early", "exited early"}},
		{"garbage and hostile text",
			Output{Stdout: []byte(hdr + "not json\n" + `{"i": 2, "status": "weird", "detail": "x\u001b[2Jy"}` + "\n" + `{"i": 9, "status": "pass"}` + "\n" + `{"i": 0, "status": "fail", "detail": "gone"}` + "\n" + `{"i": 1, "status": "pass", "detail": ""}` + "\n" + `{"done": true}`)},
			[]Status{Fail, Pass, Unknown}, []string{"gone", "", "x\uFFFD[2Jy"}},
	}
	for _, tt := range tests {
		set, _, err := parseProbeOutput(&tt.out, specs, nil, "1.0", 2*time.Second)
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		sides := set.probes
		for i := range specs {
			if sides[i].Status != tt.status[i] || !strings.Contains(sides[i].Detail, tt.detail[i]) || sides[i].Version != "1.0" {
				t.Errorf("%s: probe %d = %+v, want %s containing %q", tt.name, i, sides[i], tt.status[i], tt.detail[i])
			}
		}
	}
	if _, _, err := parseProbeOutput(&Output{Stderr: []byte("No module named encodings"), ExitCode: 1}, specs, nil, "1.0", time.Second); err == nil || !strings.Contains(err.Error(), "No module named encodings") {
		t.Errorf("no header: %v", err)
	}
	if s := sanitize("TypeError: x\n" + strings.Repeat("é", 3000)); len(s) > detailMax+3 || !strings.HasPrefix(s, "TypeError: x\né") ||
		!strings.HasSuffix(s, "é...") || !utf8.ValidString(s) {
		t.Errorf("sanitize cut %q...%q", s[:20], s[len(s)-10:])
	}
}

func TestHelpers(t *testing.T) {
	for in, want := range map[string]string{"Numba": "numba", "ruamel.yaml": "ruamel-yaml", "a__b-_c": "a-b-c"} {
		if got := normName(in); got != want {
			t.Errorf("normName(%q) = %q", in, got)
		}
	}
	for in, want := range map[string]bool{"22.3": true, "23.2.1": true, "22.2.2": false, "9": false, "": false, "x.y": false} {
		if got := pipAtLeast(in, 22, 3); got != want {
			t.Errorf("pipAtLeast(%q, 22, 3) = %v", in, got)
		}
	}
	if got := redactURL("PIP_INDEX_URL=https://u:secret@h/simple"); strings.Contains(got, "secret") {
		t.Errorf("redactURL = %q", got)
	}
	if got := redactText("from https://u:secret@h/simple/x?token=t ok"); got != "from https://h/simple/x ok" {
		t.Errorf("redactText = %q", got)
	}
}
