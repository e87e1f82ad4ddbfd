package probe

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// TestResolve asks the real pip of the test interpreter, against the test
// index, what a set of requirements resolves to, and whether it does.
func TestResolve(t *testing.T) {
	t.Parallel() // slow (environments, subprocesses): overlaps the other tests
	f := getFixtures(t)
	opts := Options{Index: f.indexURL, Python: testPython(t), Installer: "pip", TempDir: t.TempDir(), Timeout: 90 * time.Second}
	res, err := Resolve(context.Background(), opts, []string{"numba>=0.58,<=0.67.0", `mlir; python_version < "2"`})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(res.Resolver, "pip ") || res.Version("Numba") != "0.67.0" || res.Version("mlir") != "" {
		t.Errorf("resolution %+v", res)
	}
	_, err = Resolve(context.Background(), opts, []string{"numba>=0.67", "numba<0.67"})
	var ue *UnresolvableError
	if !errors.As(err, &ue) || !strings.Contains(ue.Message, "numba") || strings.Contains(ue.Message, "To fix") {
		t.Errorf("conflicting requirements: %v", err)
	}
	// The local index is also a --find-links directory.
	opts.Index = f.dir
	if res, err := Resolve(context.Background(), opts, []string{"numba==0.66.0"}); err != nil || res.Version("numba") != "0.66.0" {
		t.Errorf("find-links: %+v %v", res, err)
	}
}

func TestResolveRefuses(t *testing.T) {
	for _, reqs := range [][]string{nil, {""}, {"--index-url=https://evil/simple"}, {"numba\n-r /etc/passwd"}} {
		if _, err := Resolve(context.Background(), Options{Runner: newFake(t)}, reqs); err == nil {
			t.Errorf("%q: no error", reqs)
		}
	}
	f := newFake(t)
	f.info.Pip = "21.0"
	_, err := Resolve(context.Background(), Options{Python: "/opt/py/bin/python3", Installer: "pip", Runner: f, TempDir: t.TempDir(), Environ: []string{"PATH=/nonexistent"}}, []string{"numba"})
	if err == nil || !strings.Contains(err.Error(), `pip "21.0", which cannot say what it would install`) {
		t.Errorf("old pip: %v", err)
	}
}
