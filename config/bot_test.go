package config_test

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pinbot-dev/pinbot/config"
)

func TestBotKeys(t *testing.T) {
	cfg, err := config.Parse(".pinbot.yml", []byte(`
github:
  base: maintenance/3.0.x
  author: {name: pinbot, email: pinbot@example.com}
  app: {id: 12345, private-key-env: MY_APP_KEY}
pull-requests:
  labels: [dependencies]
  reviewers: [alice, pymc-devs/core]
  assignees: bob
  on-failure: draft
  packages:
    Numba:
      labels: [numba, dependencies]
      on-failure: alert-only
      draft: true
notify:
  on: [failure, error]
  remind: weekly
`))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.GitHub.Base != "maintenance/3.0.x" || cfg.GitHub.Author.Email != "pinbot@example.com" || cfg.GitHub.App.ID != 12345 || cfg.GitHub.App.KeyEnv() != "MY_APP_KEY" {
		t.Errorf("github = %+v", cfg.GitHub)
	}
	want := config.PullRequestSettings{
		Labels: []string{"numba", "dependencies"}, Reviewers: []string{"alice", "pymc-devs/core"},
		Assignees: []string{"bob"}, Draft: true, OnFailure: config.OnFailureAlertOnly,
	}
	if diff := cmp.Diff(want, cfg.PullRequests.For("numba")); diff != "" {
		t.Errorf("numba settings (-want +got):\n%s", diff)
	}
	other := cfg.PullRequests.For("protobuf")
	if other.OnFailure != config.OnFailureDraft || other.Draft || len(other.Labels) != 1 {
		t.Errorf("protobuf settings %+v", other)
	}
	if !cfg.Notify.Wants("failure") || cfg.Notify.Wants("pr") || cfg.Notify.RemindEvery() != 7*24*time.Hour || config.Default().Notify.RemindEvery() != 0 {
		t.Errorf("notify = %+v", cfg.Notify)
	}
	if d := config.Default(); !d.Notify.Wants("upstream-fixed") || d.PullRequests.For("x").OnFailure != "draft" || d.GitHub.App.KeyEnv() != "PINBOT_APP_PRIVATE_KEY" {
		t.Errorf("defaults: %+v", d)
	}
}

func TestBotKeyErrors(t *testing.T) {
	tests := []struct{ doc, want string }{
		{"pull-requests:\n  on-failure: ignore\n", `.pinbot.yml:2:15: pull-requests.on-failure: unknown value "ignore"`},
		{"pull-requests:\n  reviewers: [\"not a login\"]\n", `.pinbot.yml:2:15: pull-requests.reviewers[0]: "not a login" is not a GitHub login`},
		{"pull-requests:\n  packages:\n    numba: {draft: maybe}\n", `pull-requests.packages.numba.draft: expected true or false`},
		{"pull-requests:\n  packages:\n    numba: {}\n    Numba: {}\n", `names the same package`},
		{"notify:\n  on: [prs]\n", `.pinbot.yml:2:8: notify.on[0]: unknown event "prs"`},
		{"notify:\n  remind: daily\n", `.pinbot.yml:2:11: notify.remind: expected never or weekly, found "daily"`},
		{"github:\n  author: {name: pinbot}\n", `github.author: expected a name and an email address`},
		{"github:\n  base: \"main..x\"\n", `.pinbot.yml:2:9: github.base: "main..x" is not a branch name`},
		{"github:\n  app: {private-key-env: \"a b\"}\n", `.pinbot.yml:2:26: github.app.private-key-env: "a b" is not an environment variable name`},
		{"github:\n  token: abc\n", `github.token: unknown key`},
	}
	for _, tt := range tests {
		_, err := config.Parse(".pinbot.yml", []byte(tt.doc))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: error %v, want %q", tt.doc, err, tt.want)
		}
	}
}
