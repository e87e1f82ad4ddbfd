package state_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/pinbot-dev/pinbot/bot/state"
)

func TestStore(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cache", "state.json")
	s, err := state.Open(path)
	if err != nil || len(s.Held("a/b@main")) != 0 {
		t.Fatalf("a missing file: %v %v", s.Held("a/b@main"), err)
	}
	now := time.Date(2026, 8, 21, 8, 0, 0, 0, time.UTC)
	s.SetHeld("a/b@main", map[string]string{"numba": "0.67.0"}, now)
	s.SetHeld("old/repo@main", map[string]string{"jax": "0.7.1"}, now.Add(-29*24*time.Hour))
	if err := s.Save(now); err != nil {
		t.Fatal(err)
	}
	s, err = state.Open(path)
	if err != nil || s.Held("a/b@main")["numba"] != "0.67.0" || len(s.Held("old/repo@main")) != 0 {
		t.Errorf("reopened: %v %v %v", s.Held("a/b@main"), s.Held("old/repo@main"), err)
	}
	// A file that is not pinbot's is an empty state, with a reason, and is
	// replaced on save.
	os.WriteFile(path, []byte("{not json"), 0o644)
	if s, err = state.Open(path); err == nil || len(s.Held("a/b@main")) != 0 {
		t.Errorf("corrupt: %v %v", s.Held("a/b@main"), err)
	}
	if err := s.Save(now); err != nil {
		t.Fatal(err)
	}
	if _, err := state.Open(path); err != nil {
		t.Errorf("after save: %v", err)
	}
}
