package main

import (
	"archive/zip"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pinbot-dev/pinbot/internal/escape/inerttest"
	"github.com/pinbot-dev/pinbot/internal/fakes"
)

// Text from outside is inert in every output (issue 19, point 6): names with
// terminal escapes, Markdown, HTML, mentions and Slack's control sequences,
// driven through scan, check and run.

// TestScanHostileMemberName scans a wheel whose member is named with
// terminal escapes: the text report shows the name escaped.
func TestScanHostileMemberName(t *testing.T) {
	e := newEnv(t)
	path := filepath.Join(e.dir, "x-1.0-py3-none-any.whl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	z := zip.NewWriter(f)
	w, _ := z.Create("pkg/\x1b[2J\x1b]0;pwned\x07\u202e.so")
	w.Write([]byte("\x7fELF, then nothing of an ELF file"))
	z.Close()
	f.Close()
	code, out, stderr := e.run("scan", path)
	if code != exitFailure || !strings.Contains(out, `pkg/\x1b[2J\x1b]0;pwned\x07\u202e.so: `) {
		t.Errorf("exit %d\n%s\n%s", code, out, stderr)
	}
	inerttest.Text(t, out)
	inerttest.Text(t, stderr)
}

// hostileNames are file names a repository can hold (no "/" and no NUL).
var hostileNames = []string{
	"requirements-\x1b]0;pwned\x07\x1b[2J.txt",
	"requirements-@octocat-<img src=x onerror=alert(1)>.txt",
	"requirements-[x](https:--evil.example)-#12-\u202e.txt",
	"requirements-\r\nnumba: current.txt",
}

// TestCheckHostileFileNames checks a repository whose pin files have
// hostile names, one of which does not parse: the text report, the log and
// the errors show them escaped; the Markdown report, rendered as GitHub
// would, is text only.
func TestCheckHostileFileNames(t *testing.T) {
	e := newEnv(t)
	for _, name := range hostileNames {
		e.file(name, []byte("numba<=0.61.0\n"))
	}
	// A pin that does not parse is a warning; a file that does not parse
	// is an error: both name their file.
	e.file("requirements-\x1b[31mbroken.txt", []byte("numba<=0.61.0 @ \x1b[2J\n"))
	e.file("\x1b[31mbroken/pyproject.toml", []byte("[project\n\x1b[2J\n"))
	e.file(".pinbot.yml", []byte(numbaOnly))
	for _, format := range []string{"text", "markdown"} {
		code, out, stderr := e.run("-v", "check", "--dir", e.dir, "--format", format, "--write")
		if code != exitFailure || !strings.Contains(out, "0.67.0") {
			t.Fatalf("%s: exit %d\n%s\n%s", format, code, out, stderr)
		}
		inerttest.Text(t, stderr)
		if format == "text" {
			inerttest.Text(t, out)
			if !strings.Contains(out, `requirements-\x1b]0;pwned\x07\x1b[2J.txt:1`) {
				t.Errorf("text report lacks the escaped name:\n%s", out)
			}
		} else {
			inerttest.Markdown(t, out)
		}
	}
	code, out, stderr := e.run("--log-format", "json", "-v", "check", "--dir", e.dir)
	if code != exitFailure {
		t.Fatalf("json log: exit %d\n%s", code, stderr)
	}
	inerttest.Text(t, out)
	inerttest.Text(t, stderr)
}

// TestRunHostileNames runs the bot on a repository with a hostile pin-file
// name, then once more after someone whose name is a payload pushed to the
// pull request's branch: the pull request body, the conflict comment and the
// step summary are text only on GitHub, the Slack messages carry no mention
// or link pinbot did not write, and stdout shows everything escaped.
func TestRunHostileNames(t *testing.T) {
	hostile := "requirements-@octocat-<img src=x onerror=alert(1)>-\x1b[2J.txt"
	e := newRunEnvFiles(t, testConfig, map[string]string{hostile: "numba<=0.61.0\n"})
	summary := filepath.Join(e.dir, "..", "summary.md")
	e.vars["GITHUB_ACTIONS"] = "true"
	e.vars["GITHUB_STEP_SUMMARY"] = summary
	code, out, stderr := e.run()
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	pull := e.gh.Pulls(testRepo)[0]
	if !strings.Contains(pull.Body, "numba<=0.67.0") {
		t.Fatalf("the pull request does not carry the hostile file's pin:\n%s", pull.Body)
	}
	inerttest.Markdown(t, pull.Body, e.pypi.URL+"/project/numba/")
	inerttest.Text(t, pull.Title)

	author := "@octocat \x1b[2J <img src=x onerror=alert(1)> [x](https://evil.example) <!channel>"
	e.gh.Push(testRepo, branch, author, "mine", map[string]string{"README.md": "# pytensor\nnote\n"})
	e.pypi.Add("numba", append(fakes.NumbaReleases(), fakes.Release{Version: "0.68.0"})...)
	code, out, stderr = e.run()
	if code != 0 || !strings.Contains(out, "numba: conflict #1") {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	comments := e.gh.Comments(testRepo, 1)
	if len(comments) != 1 || !strings.Contains(comments[0], "octocat") {
		t.Fatalf("comments %q", comments)
	}
	inerttest.Markdown(t, comments[0])
	s, err := os.ReadFile(summary)
	if err != nil {
		t.Fatal(err)
	}
	inerttest.Markdown(t, string(s), "https://github.com/"+testRepo+"/pull/")
	for _, o := range e.outputs {
		inerttest.Text(t, o)
	}
	for _, m := range e.slack.Messages() {
		var msg struct {
			Text   string `json:"text"`
			Blocks []struct {
				Text *struct {
					Text string `json:"text"`
				} `json:"text"`
			} `json:"blocks"`
		}
		if err := json.Unmarshal(m, &msg); err != nil {
			t.Fatal(err)
		}
		texts := []string{msg.Text}
		for _, b := range msg.Blocks {
			if b.Text != nil {
				texts = append(texts, b.Text.Text)
			}
		}
		for _, text := range texts {
			for _, bad := range []string{"<!", "<@", "<img", "<https://evil"} {
				if strings.Contains(text, bad) {
					t.Errorf("slack text holds %q: %s", bad, text)
				}
			}
		}
	}
}
