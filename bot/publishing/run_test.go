package publishing_test

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pinbot-dev/pinbot/bot/planning"
	"github.com/pinbot-dev/pinbot/bot/publishing"
	"github.com/pinbot-dev/pinbot/bot/publishing/github"
	"github.com/pinbot-dev/pinbot/bot/publishing/slack"
	"github.com/pinbot-dev/pinbot/bot/report"
	"github.com/pinbot-dev/pinbot/config"
	"github.com/pinbot-dev/pinbot/internal/fakes"
	"github.com/pinbot-dev/pinbot/pins/all"
	"github.com/pinbot-dev/pinbot/sources"
	"github.com/pinbot-dev/pinbot/sources/pypi"
	schemes "github.com/pinbot-dev/pinbot/versions/all"
)

// recorder is a PullRequester and Notifier that records what it was given.
type recorder struct {
	changes  []github.Change
	messages []slack.Message
	syncErr  error
	postErr  error
}

func (r *recorder) Sync(ctx context.Context, ch github.Change) (github.Result, error) {
	r.changes = append(r.changes, ch)
	if r.syncErr != nil {
		return github.Result{}, r.syncErr
	}
	return github.Result{Package: ch.Package, Target: ch.Target, Branch: github.Branch(ch.Base, ch.Package), Action: github.Opened,
		Number: len(r.changes), URL: "https://github.com/o/r/pull/1", Draft: ch.Draft}, nil
}

func (r *recorder) Post(ctx context.Context, m slack.Message) error {
	r.messages = append(r.messages, m)
	return r.postErr
}

const doc = `[project]
name = "x"
dependencies = [
  "numba>=0.58,<=0.66.0",
  "llvmlite<0.48",
]
`

func runner(t *testing.T, cfgText string) (*publishing.Runner, *recorder, string) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "pyproject.toml"), []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	fake := fakes.NewPyPI(t)
	fake.Add("numba", fakes.NumbaReleases()...)
	fake.Add("llvmlite", fakes.Release{Version: "0.48.0"}, fakes.Release{Version: "0.49.0"})
	cfg, err := config.Parse(".pinbot.yml", []byte(cfgText))
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	r := &publishing.Runner{
		Checker: &planning.Checker{Root: dir, Config: cfg, Formats: all.Formats(), Schemes: schemes.Schemes(),
			Sources: map[string]sources.Source{pypi.Name: pypi.New(fake.URL, http.DefaultClient)}},
		GitHub: rec, Slack: rec, Repo: "o/r", Base: "main",
	}
	return r, rec, dir
}

// TestRunOnePackagePerPR checks that each pull request carries only its own
// package's edits, and that the working tree is not written.
func TestRunOnePackagePerPR(t *testing.T) {
	r, rec, dir := runner(t, "packages: {numba: {}, llvmlite: {}}\n")
	out, err := r.Run(context.Background(), publishing.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.changes) != 2 || len(out.Pulls) != 2 {
		t.Fatalf("%d changes", len(rec.changes))
	}
	want := map[string]string{
		"llvmlite": strings.Replace(doc, `"llvmlite<0.48"`, `"llvmlite<=0.49.0"`, 1),
		"numba":    strings.Replace(doc, `<=0.66.0`, `<=0.67.0`, 1),
	}
	for _, ch := range rec.changes {
		if len(ch.Files) != 1 || string(ch.Files[0].Content) != want[ch.Package] || string(ch.Files[0].Base) != doc {
			t.Errorf("%s: files %+v", ch.Package, ch.Files)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "pyproject.toml")); string(b) != doc {
		t.Error("the working tree was written")
	}
	if len(rec.messages) != 1 || !strings.Contains(rec.messages[0].Text, "2 pull requests") {
		t.Errorf("messages %+v", rec.messages)
	}
}

func TestRunFailuresDoNotStop(t *testing.T) {
	r, rec, _ := runner(t, "packages: {numba: {}, llvmlite: {}}\n")
	rec.syncErr = errors.New("github: boom")
	rec.postErr = errors.New("slack webhook: 404 channel_not_found")
	out, err := r.Run(context.Background(), publishing.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.changes) != 2 || len(out.Failures) != 2 || out.NotifyErr == nil {
		t.Errorf("changes %d, failures %v, notify %v", len(rec.changes), out.Failures, out.NotifyErr)
	}
}

func TestRunUpstreamFixed(t *testing.T) {
	r, rec, _ := runner(t, "packages: {numba: {}}\nnotify: {on: [upstream-fixed]}\n")
	r.Adjust = func(rep *report.Report) {
		rep.Packages[0].Checks = []report.Check{{Kind: "probe", Name: "fork-cache", OK: true, Detail: "the canary passes at 0.67.0: upstream fixed, the workaround can go", Verdict: "upstream-fixed"}}
	}
	if _, err := r.Run(context.Background(), publishing.RunOptions{}); err != nil {
		t.Fatal(err)
	}
	if len(rec.messages) != 1 || !strings.Contains(rec.messages[0].Text, "numba: upstream fixed (probe fork-cache)") || strings.Contains(rec.messages[0].Text, "pull request") {
		t.Errorf("messages %+v", rec.messages)
	}
}

func TestRunDryRun(t *testing.T) {
	r, rec, _ := runner(t, "packages: {numba: {}}\n")
	r.DryRun = true
	out, err := r.Run(context.Background(), publishing.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.changes) != 0 || len(rec.messages) != 0 || len(out.Planned) != 1 || out.Message == nil {
		t.Errorf("dry run: %d syncs, %d posts, %d planned", len(rec.changes), len(rec.messages), len(out.Planned))
	}
}
