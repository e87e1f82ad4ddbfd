package probe

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// localWheel writes a wheel file named name into a new directory and returns
// it as a LocalWheel.
func localWheel(t *testing.T, name string) LocalWheel {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	data := []byte("PK\x03\x04 " + name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	return LocalWheel{Path: p, SHA256: hex.EncodeToString(sum[:])}
}

// TestFakeLocalWheels: a local wheel of the candidate that carries one of
// the interpreter's tags is what pip is asked for, as a direct reference
// with its digest, when it resolves and installs; the environment is the
// one a run from the index makes (same key). A wheel for another
// interpreter, or an interpreter whose tags are unknown, leaves NAME==VERSION.
func TestFakeLocalWheels(t *testing.T) {
	index := t.TempDir()
	run := func(t *testing.T, tags []string, local []LocalWheel) (installs [][]string, envs []string) {
		f := newFake(t)
		f.info.Tags = tags
		opts := fakeOpts(t, f)
		opts.Index, opts.LocalWheels = index, local
		var asked [][]string
		f.resolve = func(args []string) (*Output, error) {
			asked = append(asked, args)
			b, _ := json.Marshal(map[string]any{"install": []any{map[string]any{"metadata": map[string]string{"name": "numba", "version": "0.67.0"}}}})
			os.WriteFile(args[slices.Index(args, "--report")+1], b, 0o644)
			return &Output{}, nil
		}
		if _, err := Run(context.Background(), opts); err != nil {
			t.Fatal(err)
		}
		for _, d := range mustGlob(t, filepath.Join(opts.CacheDir, "envs", "*")) {
			envs = append(envs, filepath.Base(d))
		}
		return asked, envs
	}
	tags := []string{"cp311-cp311-manylinux_2_17_x86_64", "py3-none-any"}
	w := localWheel(t, "numba-0.67.0-py3-none-any.whl")
	other := localWheel(t, "numba-0.67.0-cp312-cp312-manylinux_2_17_x86_64.whl")
	_, fromIndex := run(t, tags, nil)
	want := "numba @ file://" + w.Path + "#sha256=" + w.SHA256
	installs, envs := run(t, tags, []LocalWheel{other, w, localWheel(t, "llvmlite-0.50.0-py3-none-any.whl")})
	if len(installs) != 1 || installs[0][len(installs[0])-1] != want {
		t.Errorf("pip was asked %q, want %s last", installs, want)
	}
	if len(envs) != 1 || !slices.Equal(envs, fromIndex) {
		t.Errorf("environments %q, from the index %q: the key must not depend on the file", envs, fromIndex)
	}
	for _, tc := range []struct {
		name  string
		tags  []string
		local []LocalWheel
	}{
		{"another interpreter's wheel", tags, []LocalWheel{other}},
		{"tags unknown", nil, []LocalWheel{w}},
	} {
		installs, _ := run(t, tc.tags, tc.local)
		if len(installs) != 1 || installs[0][len(installs[0])-1] != "numba==0.67.0" {
			t.Errorf("%s: pip was asked %q, want numba==0.67.0", tc.name, installs)
		}
	}
}

// TestLocalWheelsResolution: with a resolution recorded, the resolver and
// the --no-deps install both take the local file of the release, and other
// distributions by name.
func TestLocalWheelsResolution(t *testing.T) {
	f := newFake(t)
	f.info.Tags = []string{"py3-none-any"}
	f.info.Pip = "22.2" // resolves with --dry-run, installs without --python
	f.deps = map[string]string{"numpy": "2.4.6"}
	opts := fakeOpts(t, f)
	w := localWheel(t, "numba-0.67.0-py3-none-any.whl")
	opts.LocalWheels = []LocalWheel{w}
	var args [][]string
	f.resolve = func(a []string) (*Output, error) {
		args = append(args, a)
		b, _ := json.Marshal(map[string]any{"install": []any{
			map[string]any{"metadata": map[string]string{"name": "numba", "version": "0.67.0"}},
			map[string]any{"metadata": map[string]string{"name": "numpy", "version": "2.4.6"}},
		}})
		os.WriteFile(a[slices.Index(a, "--report")+1], b, 0o644)
		return &Output{}, nil
	}
	if _, err := Run(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	ref := "numba @ file://" + w.Path + "#sha256=" + w.SHA256
	if len(args) != 1 || !slices.Contains(args[0], "--dry-run") || args[0][len(args[0])-1] != ref {
		t.Errorf("resolver %q, want %s last", args, ref)
	}
	var install []string
	for _, c := range f.argv() {
		if slices.Contains(c, "--no-deps") {
			install = c
		}
	}
	if !slices.Equal(install[len(install)-2:], []string{ref, "numpy==2.4.6"}) {
		t.Errorf("install %q", install)
	}
}

// TestLocalWheelRefused: Run refuses a local wheel that is not a clean
// absolute path to a regular file named as a wheel, with a sha256 digest.
func TestLocalWheelRefused(t *testing.T) {
	w := localWheel(t, "numba-0.67.0-py3-none-any.whl")
	link := filepath.Join(t.TempDir(), filepath.Base(w.Path))
	os.Symlink(w.Path, link)
	notWheel := localWheel(t, "numba-0.67.0.tar.gz")
	for _, tc := range []struct {
		w    LocalWheel
		want string
	}{
		{LocalWheel{Path: "numba-0.67.0-py3-none-any.whl", SHA256: w.SHA256}, "not a clean absolute path"},
		{LocalWheel{Path: filepath.Dir(w.Path) + "/../x/" + filepath.Base(w.Path), SHA256: w.SHA256}, "not a clean absolute path"},
		{LocalWheel{Path: w.Path, SHA256: strings.ToUpper(w.SHA256)}, "not a sha256 digest"},
		{LocalWheel{Path: link, SHA256: w.SHA256}, "not a regular file"},
		{notWheel, "not a wheel filename"},
		{LocalWheel{Path: filepath.Join(t.TempDir(), "numba-0.67.0-py3-none-any.whl"), SHA256: w.SHA256}, "no such file"},
	} {
		f := newFake(t)
		opts := fakeOpts(t, f)
		opts.LocalWheels = []LocalWheel{tc.w}
		_, err := Run(context.Background(), opts)
		if err == nil || !strings.Contains(err.Error(), "probe: local wheel: ") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.w, err, tc.want)
		}
		if len(f.calls) != 0 {
			t.Errorf("%+v: ran %q", tc.w, f.argv())
		}
	}
}

func mustGlob(t *testing.T, pattern string) []string {
	t.Helper()
	m, err := filepath.Glob(pattern)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestLocalWheelsWith: a release installed beside the candidate (With, a
// group's other member) whose local wheel fits the interpreter is asked of
// the resolver and of the --no-deps install as a direct reference, as the
// candidate is; the resolution's key names it by version alone. A local
// wheel of another version of it, or for another interpreter, leaves
// NAME==VERSION.
func TestLocalWheelsWith(t *testing.T) {
	index := t.TempDir()
	run := func(t *testing.T, local []LocalWheel) (resolver, install []string, records []string) {
		f := newFake(t)
		f.info.Tags = []string{"cp311-cp311-manylinux_2_17_x86_64", "py3-none-any"}
		f.info.Pip = "22.2" // resolves with --dry-run, installs without --python
		opts := fakeOpts(t, f)
		opts.Index, opts.With, opts.LocalWheels = index, []string{"llvmlite==0.50.1"}, local
		f.resolve = func(a []string) (*Output, error) {
			// Two requirements: pip reads them from a file.
			b, err := os.ReadFile(a[slices.Index(a, "-r")+1])
			if err != nil {
				t.Fatal(err)
			}
			resolver = strings.Fields(strings.ReplaceAll(string(b), " @ ", "@"))
			b, _ = json.Marshal(map[string]any{"install": []any{
				map[string]any{"metadata": map[string]string{"name": "numba", "version": "0.67.0"}},
				map[string]any{"metadata": map[string]string{"name": "llvmlite", "version": "0.50.1"}},
			}})
			os.WriteFile(a[slices.Index(a, "--report")+1], b, 0o644)
			return &Output{}, nil
		}
		if _, err := Run(context.Background(), opts); err != nil {
			t.Fatal(err)
		}
		for _, c := range f.argv() {
			if slices.Contains(c, "--no-deps") {
				install = c[slices.Index(c, "--no-deps")+1:]
			}
		}
		for _, r := range mustGlob(t, filepath.Join(opts.CacheDir, "resolutions", "*.json")) {
			records = append(records, filepath.Base(r))
		}
		return resolver, install, records
	}
	_, _, fromIndex := run(t, nil)
	w := localWheel(t, "llvmlite-0.50.1-py3-none-any.whl")
	ref := "llvmlite @ file://" + w.Path + "#sha256=" + w.SHA256
	resolver, install, records := run(t, []LocalWheel{localWheel(t, "llvmlite-0.50.0-py3-none-any.whl"), w})
	if !slices.Equal(resolver, []string{"numba==0.67.0", strings.ReplaceAll(ref, " @ ", "@")}) {
		t.Errorf("resolver asked for %q, want numba==0.67.0 and %s", resolver, ref)
	}
	if !slices.Equal(install, []string{ref, "numba==0.67.0"}) {
		t.Errorf("install %q, want %s and numba==0.67.0", install, ref)
	}
	if len(records) != 1 || !slices.Equal(records, fromIndex) {
		t.Errorf("resolution records %q, from the index %q: the key must not depend on the file", records, fromIndex)
	}
	for _, local := range [][]LocalWheel{
		{localWheel(t, "llvmlite-0.50.0-py3-none-any.whl")},
		{localWheel(t, "llvmlite-0.50.1-cp312-cp312-manylinux_2_17_x86_64.whl")},
	} {
		resolver, install, _ := run(t, local)
		if !slices.Equal(resolver, []string{"numba==0.67.0", "llvmlite==0.50.1"}) || !slices.Equal(install, []string{"llvmlite==0.50.1", "numba==0.67.0"}) {
			t.Errorf("with %s: resolver %q, install %q, want llvmlite==0.50.1", filepath.Base(local[0].Path), resolver, install)
		}
	}
}

// TestFakePinned: a nightly build published under another name
// (tf-nightly for tensorflow) is installed as that distribution from its
// own file, in its own environment; the baseline is the index's
// tensorflow. A build replaced under the same version is another
// environment; a pinned build with no file for the interpreter is an
// InstallError, never taken from the index.
func TestFakePinned(t *testing.T) {
	f := newFake(t)
	f.info.Tags = []string{"cp311-cp311-manylinux_2_17_x86_64", "py3-none-any"}
	var asked []string
	f.resolve = func(args []string) (*Output, error) {
		last := args[len(args)-1]
		asked = append(asked, last)
		name, version, ok := strings.Cut(last, "==")
		if !ok { // name @ file:///.../tf_nightly-VERSION-tags.whl#sha256=...
			name, _, _ = strings.Cut(last, " @ ")
			version = strings.Split(filepath.Base(last), "-")[1]
		}
		b, _ := json.Marshal(map[string]any{"install": []any{map[string]any{"metadata": map[string]string{"name": name, "version": version}}}})
		os.WriteFile(args[slices.Index(args, "--report")+1], b, 0o644)
		return &Output{}, nil
	}
	opts := fakeOpts(t, f)
	opts.Package, opts.Baseline, opts.Candidate = "tensorflow", "2.20.0", "2.21.0.dev20261130"
	opts.CandidateDist, opts.Pinned = "tf-nightly", []string{"tf-nightly"}
	w := localWheel(t, "tf_nightly-2.21.0.dev20261130-py3-none-any.whl")
	opts.LocalWheels = []LocalWheel{w}
	envs := func() []string {
		var out []string
		for _, d := range mustGlob(t, filepath.Join(opts.CacheDir, "envs", "*")) {
			out = append(out, filepath.Base(d))
		}
		return out
	}
	rep, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"tensorflow==2.20.0", "tf-nightly @ file://" + w.Path + "#sha256=" + w.SHA256}
	if !slices.Equal(asked, want) {
		t.Errorf("pip was asked %q, want %q", asked, want)
	}
	if got := envs(); len(got) != 2 || !strings.HasPrefix(got[0], "tensorflow-2.20.0-") || !strings.HasPrefix(got[1], "tf-nightly-2.21.0.dev20261130-") {
		t.Errorf("environments %q", got)
	}
	if rep.CandidateDist != "tf-nightly" {
		t.Errorf("report %+v", rep)
	}
	var probed []string
	for _, c := range f.calls {
		if len(c.Args) == 4 && strings.HasSuffix(c.Args[3], "pinbot_probe.py") {
			var req struct{ Package string }
			json.Unmarshal(c.Stdin, &req)
			probed = append(probed, req.Package)
		}
	}
	if !slices.Equal(probed, []string{"tensorflow", "tf-nightly"}) {
		t.Errorf("the probe processes asked the versions of %q", probed)
	}

	// The build replaced under its version: another file, another
	// environment (the first stays for its own build).
	rebuilt := localWheel(t, "tf_nightly-2.21.0.dev20261130-py3-none-any.whl")
	data := []byte("PK\x03\x04 rebuilt")
	os.WriteFile(rebuilt.Path, data, 0o644)
	sum := sha256.Sum256(data)
	rebuilt.SHA256 = hex.EncodeToString(sum[:])
	opts.LocalWheels = []LocalWheel{rebuilt}
	if _, err := Run(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	if got := envs(); len(got) != 3 {
		t.Errorf("a replaced build reused an environment: %q", got)
	}

	// A wheel for another interpreter only: refused, not asked of the index.
	opts.LocalWheels = []LocalWheel{localWheel(t, "tf_nightly-2.21.0.dev20261130-cp313-cp313-manylinux_2_17_x86_64.whl")}
	asked = nil
	_, err = Run(context.Background(), opts)
	var ie *InstallError
	if !errors.As(err, &ie) || ie.Package != "tf-nightly" || !strings.Contains(err.Error(), "from its own source installs on this interpreter") {
		t.Errorf("err = %v, want an InstallError for tf-nightly", err)
	}
	if slices.ContainsFunc(asked, func(a string) bool { return strings.HasPrefix(a, "tf-nightly") }) {
		t.Errorf("pip was asked %q", asked)
	}
}
