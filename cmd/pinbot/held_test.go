package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pinbot-dev/pinbot/internal/fakes"
)

// heldRepo is a repository whose numba cap moves while protobuf (==5.29.3),
// a Poetry caret on llvmlite (^0.48.0, as mlwrap's ^0.56.0 on numba) and a
// ~= on tensorflow shut out their newest releases under the inclusive
// strategy.
var heldRepo = map[string]string{
	"requirements.txt": "numba>=0.58,<=0.66.0\nprotobuf==5.29.3\ntensorflow~=2.19.0\n",
	"pyproject.toml":   "[tool.poetry]\nname = \"x\"\n\n[tool.poetry.dependencies]\nllvmlite = \"^0.48.0\"\n",
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
		"llvmlite":   {"held", `pyproject.toml:5 llvmlite = "^0.48.0" shuts out 0.49.0: ^0.48.0 caps below 0.49.0; the inclusive strategy does not rewrite it (cap: preserve does)`},
		"tensorflow": {"held", "requirements.txt:3 tensorflow~=2.19.0 shuts out 2.20.0: ~=2.19.0 caps below 2.20.0"},
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
	for _, w := range []string{"3 packages newly held", "protobuf: held, 6.33.0 is shut out", "tensorflow: held, 2.20.0 is shut out",
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
	if !strings.Contains(out, "::warning file=requirements.txt,line=2,title=pinbot%3A protobuf is held::") {
		t.Errorf("no annotation for the held pin:\n%s", out)
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
