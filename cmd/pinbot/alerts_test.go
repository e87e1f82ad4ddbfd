package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/pinbot-dev/pinbot/bot/report"
)

// blockNumbaAt marks numba blocked as the checks do: 0.68.0 fails check
// name, which passes at the baseline 0.66.0.
func blockNumbaAt(name string) func(*report.Report) {
	return func(r *report.Report) {
		for i := range r.Packages {
			if p := &r.Packages[i]; p.Name == "numba" {
				p.Status = "blocked"
				p.Checks = []report.Check{{Kind: "probe", Name: name, OK: false, Baseline: "pass", Candidate: "fail", Verdict: "blocked",
					Detail: "FunctionIdentity._unique_ids is gone <!channel> & more"}}
				p.Verdicts = []report.Verdict{{Version: "0.68.0", Baseline: "0.66.0", Blocked: true}, {Version: "0.67.0", Baseline: "0.66.0"}}
			}
		}
	}
}

// slackTexts returns every mrkdwn text of a webhook message: the fallback,
// the sections and their fields.
func slackTexts(t *testing.T, raw []byte) string {
	t.Helper()
	var m struct {
		Text   string `json:"text"`
		Blocks []struct {
			Text   *struct{ Text string }  `json:"text"`
			Fields []struct{ Text string } `json:"fields"`
		} `json:"blocks"`
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	texts := []string{m.Text}
	for _, b := range m.Blocks {
		if b.Text != nil {
			texts = append(texts, b.Text.Text)
		}
		for _, f := range b.Fields {
			texts = append(texts, f.Text)
		}
	}
	return strings.Join(texts, "\n")
}

// TestRunAlertsOnce: a blocked release is alerted once, in Block Kit with
// package, versions, verdict and links; the same block on the next run
// says nothing; a changed verdict alerts again; notify.remind: weekly
// alerts an unchanged block again a week later.
func TestRunAlertsOnce(t *testing.T) {
	e := newRunEnv(t, testConfig+"notify:\n  remind: weekly\n")
	now := time.Date(2026, 9, 1, 8, 0, 0, 0, time.UTC)
	e.now = func() time.Time { return now }
	step := func(adjust func(*report.Report)) (int, string) {
		t.Helper()
		runHooks.adjust = adjust
		before := len(e.slack.Messages())
		code, out, stderr := e.run()
		if code != 3 {
			t.Fatalf("exit %d, want 3\n%s\n%s", code, out, stderr)
		}
		return len(e.slack.Messages()) - before, out
	}

	if n, _ := step(blockNumbaAt("unique-ids")); n != 1 {
		t.Fatalf("%d messages for a new block, want 1", n)
	}
	msg := slackTexts(t, e.slack.Messages()[0])
	for _, want := range []string{
		":x: `numba`: *<https://github.com/pymc-devs/pytensor/pull/1|a check failed>*",
		e.pypi.URL + "/project/numba/0.68.0/|numba 0.68.0 on pypi>",
		"probe `unique-ids` fails at 0.68.0 (passes at the baseline 0.66.0): FunctionIdentity._unique_ids is gone &lt;!channel&gt; &amp; more",
		"*Package*\n`numba`", "*Versions*\n0.66.0 → 0.68.0", "*Verdict*\nblocked: probe unique-ids",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %q:\n%s", want, msg)
		}
	}
	if strings.Contains(msg, "failed at fail") || strings.Contains(msg, "<!channel>") {
		t.Errorf("message:\n%s", msg)
	}

	now = now.Add(24 * time.Hour)
	if n, _ := step(blockNumbaAt("unique-ids")); n != 0 {
		t.Errorf("the same block alerted again the next day: %s", e.slack.Messages()[len(e.slack.Messages())-1])
	}
	now = now.Add(24 * time.Hour)
	if n, _ := step(blockNumbaAt("dispatcher-api")); n != 1 || !strings.Contains(slackTexts(t, e.slack.Messages()[1]), "blocked: probe dispatcher-api") {
		t.Errorf("a changed verdict: %d messages", n)
	}
	now = now.Add(6 * 24 * time.Hour)
	if n, _ := step(blockNumbaAt("dispatcher-api")); n != 0 {
		t.Errorf("reminded before a week passed")
	}
	now = now.Add(24 * time.Hour)
	if n, _ := step(blockNumbaAt("dispatcher-api")); n != 1 || !strings.Contains(slackTexts(t, e.slack.Messages()[2]), "Reminder: unchanged since it was alerted on 2026-09-03.") {
		t.Errorf("no weekly reminder: %d messages", n)
	}
	e.checkSecrets(t)

	t.Run("no reminders by default", func(t *testing.T) {
		e := newRunEnv(t, testConfig)
		now := time.Date(2026, 9, 1, 8, 0, 0, 0, time.UTC)
		e.now = func() time.Time { return now }
		for i := range 3 {
			runHooks.adjust = blockNumbaAt("unique-ids")
			e.run()
			if n := len(e.slack.Messages()); n != 1 {
				t.Errorf("run %d: %d messages, want the one", i, n)
			}
			now = now.Add(30 * 24 * time.Hour)
		}
	})
}
