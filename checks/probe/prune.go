package probe

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// PruneCache removes the environments under cacheDir (see README.md's cache
// layout) last used before cutoff, by the mtime of their pinbot-env.json,
// which every use touches. It returns how many it removed. A weekly job that
// keeps its cache calls it so the cache holds only what recent runs used.
func PruneCache(cacheDir string, cutoff time.Time) (int, error) {
	envs := filepath.Join(cacheDir, "envs")
	entries, err := os.ReadDir(envs)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	removed := 0
	for _, e := range entries {
		if !e.IsDir() || e.Name()[0] == '.' {
			continue // builds in progress are removeStaleBuilds' to clear
		}
		info, err := os.Stat(filepath.Join(envs, e.Name(), "pinbot-env.json"))
		if err == nil && !info.ModTime().Before(cutoff) {
			continue
		}
		if err := os.RemoveAll(filepath.Join(envs, e.Name())); err != nil {
			return removed, err
		}
		removed++
	}
	return removed, nil
}
