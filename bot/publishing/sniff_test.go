package publishing_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pinbot-dev/pinbot/bot/publishing"
)

// TestRunFileFoundByContent opens the pull request of a pin in a conda
// environment file that only its content names one
// (ci/requirements/min-deps.yml): run finds the file's format again when it
// rewrites it.
func TestRunFileFoundByContent(t *testing.T) {
	dir := t.TempDir()
	env := "name: min\nchannels: [conda-forge]\ndependencies:\n  - numba>=0.58,<=0.66.0\n"
	p := filepath.Join(dir, "ci", "requirements", "min-deps.yml")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(env), 0o644); err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	r := &publishing.Runner{Checker: newChecker(dir), GitHub: rec, Slack: rec, Repo: "o/r", Base: "main"}
	if _, err := r.Run(context.Background(), publishing.RunOptions{}); err != nil {
		t.Fatal(err)
	}
	if len(rec.changes) != 1 || rec.changes[0].Package != "numba" || len(rec.changes[0].Files) != 1 {
		t.Fatalf("changes %+v", rec.changes)
	}
	f := rec.changes[0].Files[0]
	if want := strings.Replace(env, "<=0.66.0", "<=0.67.0", 1); f.Path != "ci/requirements/min-deps.yml" || string(f.Content) != want {
		t.Errorf("file %s:\n%s", f.Path, f.Content)
	}
}
