package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pinbot-dev/pinbot/internal/fakes"
)

// heldRepo is a repository whose numba cap moves while exact pins on
// protobuf (==5.29.3), tensorflow (==2.19.0) and, in Poetry's bare-version
// spelling, llvmlite ("0.48.0", as mlwrap's tensorflow "2.8.2") shut out
// their newest releases under the inclusive strategy. (A one-clause range
// such as ^0.48.0 or ~=2.19.0 is expanded and moves: TestCheckExpands.)
var heldRepo = map[string]string{
	"requirements.txt": "numba>=0.58,<=0.66.0\nprotobuf==5.29.3\ntensorflow==2.19.0\n",
	"pyproject.toml":   "[tool.poetry]\nname = \"x\"\n\n[tool.poetry.dependencies]\nllvmlite = \"0.48.0\"\n",
}

const heldConfig = "packages:\n  numba: {}\n  protobuf: {}\n  tensorflow: {}\n  llvmlite: {}\n"

// TestCheckHeld: a cap the strategy does not rewrite and that shuts out the
// target is held, not current, in JSON, text and Markdown, with the reason
// and the configuration that would move it; held does not change the exit
// code. With cap: preserve the same pins move.
func TestCheckHeld(t *testing.T) {
	e := newEnv(t)
	for name, data := range heldRepo {
		e.file(name, []byte(data))
	}
	e.file(".pinbot.yml", []byte(heldConfig))
	code, out, stderr := e.run("check", "--dir", e.dir, "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	var rep struct{ Packages []checksPackage }
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	want := map[string]struct{ status, hold string }{
		"numba":      {"bump", ""},
		"protobuf":   {"held", "requirements.txt:2 protobuf==5.29.3 shuts out 6.33.0: exact pin ==5.29.3; the inclusive strategy does not move exact pins (cap: preserve does)"},
		"llvmlite":   {"held", `pyproject.toml:5 llvmlite = "0.48.0" shuts out 0.49.0: exact pin 0.48.0; the inclusive strategy does not move exact pins (cap: preserve does)`},
		"tensorflow": {"held", "requirements.txt:3 tensorflow==2.19.0 shuts out 2.20.0: exact pin ==2.19.0"},
	}
	for _, p := range rep.Packages {
		w := want[p.Name]
		if p.Status != w.status || !strings.HasPrefix(p.Hold, w.hold) || (w.hold == "") != (p.Hold == "") {
			t.Errorf("%s: %s %q, want %s %q", p.Name, p.Status, p.Hold, w.status, w.hold)
		}
		if w.status == "held" && (len(p.Pins) != 1 || !p.Pins[0].Held || p.Pins[0].Fix != "cap: preserve") {
			t.Errorf("%s: pins %+v, want held with fix cap: preserve", p.Name, p.Pins)
		}
	}
	_, text, _ := e.run("check", "--dir", e.dir)
	_, md, _ := e.run("check", "--dir", e.dir, "--format", "markdown")
	for _, w := range []string{"protobuf: held (target 6.33.0)", "  held: requirements.txt:2 protobuf==5.29.3 shuts out 6.33.0"} {
		if !strings.Contains(text, w) {
			t.Errorf("text lacks %q:\n%s", w, text)
		}
	}
	for _, w := range []string{"### protobuf: held", "> **Held:** requirements.txt:2 protobuf==5.29.3 shuts out 6.33.0"} {
		if !strings.Contains(md, w) {
			t.Errorf("markdown lacks %q:\n%s", w, md)
		}
	}

	e.file(".pinbot.yml", []byte("packages:\n  protobuf: {cap: preserve}\n  llvmlite: {cap: preserve}\n"))
	code, out, _ = e.run("check", "--dir", e.dir, "--format", "json")
	if code != 0 || strings.Contains(out, `"status": "held"`) || strings.Count(out, `"status": "bump"`) != 2 {
		t.Errorf("cap: preserve: exit %d\n%s", code, out)
	}
}

// TestRunHeld: pinbot run sends a Slack alert for a newly held package,
// once, shows held packages in the step summary (the dashboard) with an
// annotation, and exits as it would without them; a newer release shut out
// again is news.
func TestRunHeld(t *testing.T) {
	e := newRunEnvFiles(t, heldConfig, heldRepo)
	summary := filepath.Join(e.dir, "..", "summary.md")
	e.vars["GITHUB_ACTIONS"] = "true"
	e.vars["GITHUB_STEP_SUMMARY"] = summary
	code, out, stderr := e.run()
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	msgs := e.slack.Messages()
	if len(msgs) != 1 {
		t.Fatalf("%d slack messages", len(msgs))
	}
	m := string(msgs[0])
	for _, w := range []string{"3 held packages", "protobuf: held, 6.33.0 is shut out", "tensorflow: held, 2.20.0 is shut out",
		"llvmlite: held, 0.49.0 is shut out", "cap: preserve", "numba: opened #1"} {
		if !strings.Contains(m, w) {
			t.Errorf("slack message lacks %q:\n%s", w, m)
		}
	}
	s, _ := os.ReadFile(summary)
	for _, w := range []string{"### protobuf: held", "| protobuf | ⏸️ held | 5.29.3 (1 behind) | 6.33.0 |", "> **Held:** requirements.txt:2 protobuf==5.29.3 shuts out 6.33.0"} {
		if !strings.Contains(string(s), w) {
			t.Errorf("step summary lacks %q:\n%s", w, s)
		}
	}
	if !strings.Contains(stderr, "::warning file=requirements.txt,line=2,title=pinbot%3A protobuf is held::") {
		t.Errorf("no annotation for the held pin:\n%s", stderr)
	}

	// The next run: nothing new, no message.
	if code, out, stderr := e.run(); code != 0 || len(e.slack.Messages()) != 1 {
		t.Fatalf("second run: exit %d, %d messages\n%s\n%s", code, len(e.slack.Messages()), out, stderr)
	}
	// protobuf 6.34.0 is out and still shut out: news again, for protobuf only.
	e.pypi.Add("protobuf", fakes.Release{Version: "5.29.3"}, fakes.Release{Version: "6.33.0"}, fakes.Release{Version: "6.34.0"})
	if code, _, stderr := e.run(); code != 0 || len(e.slack.Messages()) != 2 {
		t.Fatalf("third run: exit %d, %d messages\n%s", code, len(e.slack.Messages()), stderr)
	}
	m = string(e.slack.Messages()[1])
	if !strings.Contains(m, "protobuf: held, 6.34.0 is shut out") || strings.Contains(m, "tensorflow: held") {
		t.Errorf("third message:\n%s", m)
	}
}

// heldAlertConfig watches two packages that requirements.txt holds, with
// weekly reminders and no dashboard issue (the state file alone remembers).
const heldAlertConfig = "packages:\n  protobuf: {}\n  tensorflow: {}\ndashboard: false\nnotify:\n  remind: weekly\n"

// heldAlertEnv is a run environment whose requirements.txt pins protobuf
// and tensorflow so that both are held, and whose clock the test moves.
func heldAlertEnv(t *testing.T) (*runTestEnv, *time.Time) {
	e := newRunEnvFiles(t, heldAlertConfig, map[string]string{"requirements.txt": "protobuf==5.29.3\ntensorflow==2.19.0\n"})
	now := time.Date(2026, 9, 1, 8, 0, 0, 0, time.UTC)
	e.now = func() time.Time { return now }
	return e, &now
}

// heldStep runs pinbot (with args) and returns the Slack message it sent,
// "" for none.
func heldStep(t *testing.T, e *runTestEnv, args ...string) string {
	t.Helper()
	before := len(e.slack.Messages())
	code, out, stderr := e.run(args...)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	switch msgs := e.slack.Messages(); len(msgs) - before {
	case 0:
		return ""
	case 1:
		return slackTexts(t, msgs[before])
	default:
		t.Fatalf("%d messages in one run", len(msgs)-before)
		return ""
	}
}

// TestRunHeldAlerts: a held package is a lasting condition like a blocked
// release: alerted once, not again while it stays held as it was (a pin
// moved to another line is the same hold), reminded under notify.remind:
// weekly, alerted again when a newer release is shut out or another pin
// holds it; a package no longer held is forgotten, by a full run or by a
// --package run that checked it, so that held again it is news again, while
// a --package run keeps the alerts of the packages it did not check. The
// state file keeps recording which packages are held.
func TestRunHeldAlerts(t *testing.T) {
	e, now := heldAlertEnv(t)
	day := 24 * time.Hour
	requirements := func(text string) { e.file("requirements.txt", []byte(text)) }
	held := func(msg, pkg string) bool { return strings.Contains(msg, pkg+"`: *held, ") }

	m := heldStep(t, e)
	for _, want := range []string{"2 held packages", "protobuf: held, 6.33.0 is shut out", "*Versions*\n6.33.0", "*Verdict*\nheld: protobuf==5.29.3",
		"tensorflow: held, 2.20.0 is shut out", "*Verdict*\nheld: tensorflow==2.19.0", "requirements.txt:1 protobuf==5.29.3 shuts out 6.33.0"} {
		if !strings.Contains(m, want) {
			t.Errorf("first run: message lacks %q:\n%s", want, m)
		}
	}

	*now = now.Add(day)
	if m := heldStep(t, e); m != "" {
		t.Errorf("held as before, alerted again the next day:\n%s", m)
	}
	requirements("# pins\nprotobuf==5.29.3\ntensorflow==2.19.0\n")
	if m := heldStep(t, e); m != "" {
		t.Errorf("the same pins on other lines, alerted again:\n%s", m)
	}

	*now = now.Add(5 * day)
	if m := heldStep(t, e); m != "" {
		t.Errorf("reminded before a week passed:\n%s", m)
	}
	*now = now.Add(day)
	m = heldStep(t, e)
	if !held(m, "protobuf") || !held(m, "tensorflow") || strings.Count(m, "Reminder: unchanged since it was alerted on 2026-09-01.") != 2 {
		t.Errorf("a week on, no reminder of both holds:\n%s", m)
	}

	// A newer release shut out: news for protobuf alone, and no reminder.
	*now = now.Add(day)
	e.pypi.Add("protobuf", fakes.Release{Version: "5.29.3"}, fakes.Release{Version: "6.33.0"}, fakes.Release{Version: "6.34.0"})
	m = heldStep(t, e)
	if !strings.Contains(m, "protobuf: held, 6.34.0 is shut out") || held(m, "tensorflow") || strings.Contains(m, "Reminder") {
		t.Errorf("a new target:\n%s", m)
	}
	// Another pin holds tensorflow at the same target: news.
	*now = now.Add(day)
	requirements("# pins\nprotobuf==5.29.3\ntensorflow==2.19.1\n")
	m = heldStep(t, e)
	if !strings.Contains(m, "*Verdict*\nheld: tensorflow==2.19.1") || held(m, "protobuf") {
		t.Errorf("a new reason:\n%s", m)
	}

	// tensorflow is let through and checked alone: its alert is forgotten,
	// protobuf's kept.
	*now = now.Add(day)
	requirements("# pins\nprotobuf==5.29.3\ntensorflow<=2.20.0\n")
	if m := heldStep(t, e, "--package", "tensorflow"); m != "" {
		t.Errorf("tensorflow let through:\n%s", m)
	}
	requirements("# pins\nprotobuf==5.29.3\ntensorflow==2.19.1\n")
	m = heldStep(t, e)
	if !strings.Contains(m, "tensorflow: held, 2.20.0 is shut out") || strings.Contains(m, "Reminder") || held(m, "protobuf") {
		t.Errorf("held again after a --package run let it through, or the run forgot protobuf:\n%s", m)
	}
	// A --package run of tensorflow keeps protobuf's alert...
	*now = now.Add(day)
	if m := heldStep(t, e, "--package", "tensorflow"); m != "" {
		t.Errorf("--package tensorflow:\n%s", m)
	}
	if m := heldStep(t, e); m != "" {
		t.Errorf("after a --package run, the other package alerted again:\n%s", m)
	}
	// (kept as it was alerted: reminded a week after that)
	*now = time.Date(2026, 9, 16, 8, 0, 0, 0, time.UTC)
	m = heldStep(t, e)
	if !held(m, "protobuf") || !strings.Contains(m, "Reminder: unchanged since it was alerted on 2026-09-09.") || held(m, "tensorflow") {
		t.Errorf("a week after protobuf's alert, through a --package run:\n%s", m)
	}
	// ...and a full run that finds protobuf no longer held forgets it.
	requirements("# pins\nprotobuf<=6.34.0\ntensorflow==2.19.1\n")
	if m := heldStep(t, e); m != "" {
		t.Errorf("protobuf let through:\n%s", m)
	}
	requirements("# pins\nprotobuf==5.29.3\ntensorflow==2.19.1\n")
	m = heldStep(t, e)
	if !strings.Contains(m, "protobuf: held, 6.34.0 is shut out") || strings.Contains(m, "Reminder") || held(m, "tensorflow") {
		t.Errorf("held again after a full run let it through:\n%s", m)
	}

	var st struct {
		Scopes map[string]struct {
			Held    map[string]string `json:"held"`
			Alerted map[string]struct {
				Release, Verdict string
			} `json:"alerted"`
		} `json:"scopes"`
	}
	b, err := os.ReadFile(filepath.Join(e.vars["PINBOT_CACHE_DIR"], "state.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatal(err)
	}
	sc := st.Scopes[testRepo+"@main"]
	if len(sc.Held) != 2 || sc.Held["protobuf"] != "6.34.0" || sc.Held["tensorflow"] != "2.20.0" {
		t.Errorf("held %v", sc.Held)
	}
	if a := sc.Alerted["held:protobuf"]; a.Release != "6.34.0" || a.Verdict != "held: protobuf==5.29.3" {
		t.Errorf("alerted %+v", sc.Alerted)
	}
	e.checkSecrets(t)
}

// TestRunHeldAlertsUpgrade: a state file written by an earlier pinbot,
// which recorded held packages (held) and no alert for them, re-alerts
// none on upgrading: a package still held at the recorded target counts as
// alerted at that file's last run, so a weekly reminder comes a week after
// it; one held at another target is news.
func TestRunHeldAlertsUpgrade(t *testing.T) {
	e, now := heldAlertEnv(t)
	old := `{"schema": 1, "scopes": {"` + testRepo + `@main": {"updated": "2026-08-30T08:00:00Z",` +
		`"held": {"protobuf": "6.33.0", "tensorflow": "2.19.1"}, "warned": {}}}}`
	if err := os.WriteFile(filepath.Join(e.vars["PINBOT_CACHE_DIR"], "state.json"), []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	m := heldStep(t, e)
	if !strings.Contains(m, "tensorflow: held, 2.20.0 is shut out") || strings.Contains(m, "protobuf") {
		t.Errorf("upgrading: %s", m)
	}
	*now = now.Add(24 * time.Hour)
	if m := heldStep(t, e); m != "" {
		t.Errorf("the run after the upgrade:\n%s", m)
	}
	*now = time.Date(2026, 9, 6, 8, 0, 0, 0, time.UTC) // a week after the old file's last run
	m = heldStep(t, e)
	if !strings.Contains(m, "protobuf: held, 6.33.0 is shut out") || !strings.Contains(m, "Reminder: unchanged since it was alerted on 2026-08-30.") ||
		strings.Contains(m, "tensorflow") {
		t.Errorf("the reminder a week after the old file's last run:\n%s", m)
	}
}
