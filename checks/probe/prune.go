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
// which every use touches, and the resolutions last used before cutoff. It
// returns how many environments it removed. A weekly job that keeps its cache
// calls it so the cache holds only what recent runs used.
func PruneCache(cacheDir string, cutoff time.Time) (int, error) {
	if records, err := os.ReadDir(filepath.Join(cacheDir, "resolutions")); err == nil {
		for _, e := range records {
			p := filepath.Join(cacheDir, "resolutions", e.Name())
			if info, err := os.Stat(p); err == nil && info.ModTime().Before(cutoff) {
				os.Remove(p)
			}
		}
	}
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
