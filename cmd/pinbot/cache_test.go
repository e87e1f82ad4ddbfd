package main

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestCachePruned: a check leaves in the cache directory only what runs used
// in the last four weeks: stale HTTP entries, artifacts and probe
// environments go; the ones this run used stay.
func TestCachePruned(t *testing.T) {
	e := newEnv(t)
	cache := t.TempDir()
	e.vars["PINBOT_CACHE_DIR"] = cache
	e.file("pyproject.toml", []byte("[project]\nname = \"x\"\ndependencies = [\"numba>=0.58,<=0.66.0\"]\n"))
	long := time.Now().AddDate(0, 0, -60)
	stale := map[string]string{
		"http":     "ab/cdef0123456789",
		"artifact": "artifacts/sha256/12/1234/old-1.0-py3-none-any.whl",
		"env":      "probe-envs/envs/numba-0.60.0-py3.11-0123456789abcdef/pinbot-env.json",
	}
	for _, p := range stale {
		full := filepath.Join(cache, filepath.FromSlash(p))
		os.MkdirAll(filepath.Dir(full), 0o755)
		os.WriteFile(full, []byte("x"), 0o644)
		os.Chtimes(full, long, long)
	}
	if code, out, stderr := e.run("check", "--dir", e.dir); code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	for what, p := range stale {
		if _, err := os.Stat(filepath.Join(cache, filepath.FromSlash(p))); err == nil {
			t.Errorf("the stale %s entry %s is still there", what, p)
		}
	}
}
