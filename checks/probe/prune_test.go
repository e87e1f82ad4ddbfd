package probe_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/pinbot-dev/pinbot/checks/probe"
)

func TestPruneCache(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	mk := func(name string, used time.Time, meta bool) {
		p := filepath.Join(dir, "envs", name)
		os.MkdirAll(filepath.Join(p, "venv", "bin"), 0o755)
		if meta {
			f := filepath.Join(p, "pinbot-env.json")
			os.WriteFile(f, []byte("{}"), 0o644)
			os.Chtimes(f, used, used)
		}
	}
	mk("numba-0.66.0-py3.11-aaaa", now.AddDate(0, 0, -40), true)
	mk("numba-0.67.0-py3.11-bbbb", now.AddDate(0, 0, -2), true)
	mk("broken-1.0-py3.11-cccc", now, false) // never completed
	mk(".build-numba-0.68.0-py3.11-dddd-1", now.AddDate(0, 0, -40), false)
	os.MkdirAll(filepath.Join(dir, "resolutions"), 0o755)
	for name, used := range map[string]time.Time{"numba-0.66.0-old.json": now.AddDate(0, 0, -40), "numba-0.67.0-new.json": now.AddDate(0, 0, -2)} {
		f := filepath.Join(dir, "resolutions", name)
		os.WriteFile(f, []byte("{}"), 0o644)
		os.Chtimes(f, used, used)
	}
	n, err := probe.PruneCache(dir, now.AddDate(0, 0, -28))
	if err != nil || n != 2 {
		t.Fatalf("PruneCache = %d, %v; want 2 removed", n, err)
	}
	for name, want := range map[string]bool{
		"numba-0.66.0-py3.11-aaaa": false, "numba-0.67.0-py3.11-bbbb": true,
		"broken-1.0-py3.11-cccc": false, ".build-numba-0.68.0-py3.11-dddd-1": true,
	} {
		if _, err := os.Stat(filepath.Join(dir, "envs", name)); (err == nil) != want {
			t.Errorf("%s kept = %v, want %v", name, err == nil, want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "resolutions", "numba-0.66.0-old.json")); err == nil {
		t.Error("a resolution unused for 40 days was kept")
	}
	if _, err := os.Stat(filepath.Join(dir, "resolutions", "numba-0.67.0-new.json")); err != nil {
		t.Error("a resolution used 2 days ago was removed")
	}
	if n, err := probe.PruneCache(t.TempDir(), now); n != 0 || err != nil {
		t.Errorf("empty cache: %d, %v", n, err)
	}
}
