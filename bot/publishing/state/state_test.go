package state_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pinbot-dev/pinbot/bot/publishing/state"
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

// nightly is numba's nightly window as a run leaves it.
var nightly = state.Nightly{Version: "0.69.0.dev20261130", Uploaded: time.Date(2026, 11, 30, 3, 0, 0, 0, time.UTC), Source: "numba/label/dev",
	Verdict: "blocked", Failing: []string{"probe numba-unique-ids"}, FirstFailing: &state.Build{Version: "0.69.0.dev20261124"},
	LastPassing: &state.Build{Version: "0.69.0.dev20261117", Uploaded: time.Date(2026, 11, 17, 3, 0, 0, 0, time.UTC)}}

// TestLatest: pinbot check, which knows no base branch, reads the newest
// scope of the repository, in any case.
func TestLatest(t *testing.T) {
	s, _ := state.Open(filepath.Join(t.TempDir(), "state.json"))
	now := time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)
	old := state.Scope{Updated: now.Add(-time.Hour), Nightlies: map[string]state.Nightly{"numba": {Version: "old"}}}
	s.SetScope("lab/a@main", old)
	s.SetScope("lab/a@release", state.Scope{Updated: now, Nightlies: map[string]state.Nightly{"numba": nightly}})
	s.SetScope("lab/ab@main", state.Scope{Updated: now.Add(time.Hour)})
	if sc, ok := s.Latest("Lab/A"); !ok || sc.Nightlies["numba"].Version != nightly.Version {
		t.Errorf("Latest = %+v, %v", sc, ok)
	}
	if _, ok := s.Latest("lab/b"); ok {
		t.Error("a repository with no scope has one")
	}
}

// TestScope: a scope's parts are kept apart (SetHeld keeps the others) and
// round-trip through the file and through Encode, the dashboard's line.
func TestScope(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	s, _ := state.Open(path)
	now := time.Date(2026, 8, 21, 8, 0, 0, 0, time.UTC)
	sc := s.Scope("a/b@main")
	if !sc.Updated.IsZero() || sc.Held == nil || sc.Warned == nil || sc.Seen == nil {
		t.Fatalf("an empty scope: %+v", sc)
	}
	sc.Updated, sc.SeenAt = now, now
	sc.Warned["numba"] = "0.68.0rc1"
	sc.Seen["numba"] = state.Seen{Status: "bump", Target: "0.67.0", Pull: 12, Prerelease: "0.68.0rc1", PrereleaseVerdict: "blocked"}
	sc.Alerted["failure:numba"] = state.Alert{Release: "0.68.0", Verdict: "probe unique-ids", At: now}
	sc.Nightlies["numba"] = nightly
	s.SetScope("a/b@main", sc)
	sc.Warned["numba"] = "changed after SetScope"
	s.SetHeld("a/b@main", map[string]string{"protobuf": "6.33.0"}, now)
	if err := s.Save(now); err != nil {
		t.Fatal(err)
	}
	s, err := state.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	got := s.Scope("a/b@main")
	want := state.Scope{Updated: now, SeenAt: now, Held: map[string]string{"protobuf": "6.33.0"}, Warned: map[string]string{"numba": "0.68.0rc1"},
		Seen:      map[string]state.Seen{"numba": {Status: "bump", Target: "0.67.0", Pull: 12, Prerelease: "0.68.0rc1", PrereleaseVerdict: "blocked"}},
		Alerted:   map[string]state.Alert{"failure:numba": {Release: "0.68.0", Verdict: "probe unique-ids", At: now}},
		Nightlies: map[string]state.Nightly{"numba": nightly}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("reopened (-want +got):\n%s", diff)
	}
	line := state.Encode(got)
	if strings.ContainsAny(line, "-> \n") {
		t.Errorf("Encode = %q: not safe in an HTML comment", line)
	}
	back, err := state.Decode(line)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, back); diff != "" {
		t.Errorf("decoded (-want +got):\n%s", diff)
	}
	for _, bad := range []string{"not base64!", "bm90IGpzb24", strings.Repeat("A", 1<<16+1)} {
		if sc, err := state.Decode(bad); err == nil || !sc.Updated.IsZero() || sc.Warned == nil {
			t.Errorf("Decode(%.20q) = %+v, %v; want an error and an empty scope", bad, sc, err)
		}
	}
}
