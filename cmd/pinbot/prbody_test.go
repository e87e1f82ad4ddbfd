package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/pinbot-dev/pinbot/internal/fakes"
)

// withProjectURLs serves numba 0.67.0 with project URLs, one of them
// hostile, and numba's repository on the fake GitHub with its tags.
func (e *runTestEnv) withProjectURLs(urls map[string]string, tags ...string) {
	rs := fakes.NumbaReleases()
	for i := range rs {
		if rs[i].Version == "0.67.0" {
			rs[i].ProjectURLs = urls
		}
	}
	e.pypi.Add("numba", rs...)
	e.gh.AddRepo("numba/numba", "main", map[string]string{"README.rst": "Numba\n"})
	for _, tag := range tags {
		e.gh.AddTag("numba/numba", tag)
	}
}

// TestRunPullRequestBody: the body has the table of pins changed, the
// upstream's release notes and source from the release's project URLs
// (hostile ones dropped), and the compare view between the tags.
func TestRunPullRequestBody(t *testing.T) {
	e := newRunEnv(t, testConfig)
	e.withProjectURLs(map[string]string{
		"Homepage": "https://numba.pydata.org", "Source": "https://github.com/numba/numba",
		"release-notes": "https://numba.readthedocs.io/en/stable/release-notes.html?x=<b>", "Changelog": "javascript:alert(1)",
	}, "0.66.0", "0.67.0")
	code, out, stderr := e.run()
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	body := e.gh.Pulls(testRepo)[0].Body
	for _, want := range []string{
		"| File | Before | After | Why |", "| `pyproject.toml:53` | `numba>=0.58,<=0.66.0` | `numba>=0.58,<=0.67.0` |",
		"#### What changed upstream",
		"- `numba` 0.67.0: [release notes](https://numba.readthedocs.io/en/stable/release-notes.html?x=%3Cb%3E) · [source](https://github.com/numba/numba) · [compare 0.66.0...0.67.0](https://github.com/numba/numba/compare/0.66.0...0.67.0)",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("body lacks %q:\n%s", want, body)
		}
	}
	if strings.Contains(body, "javascript") || strings.Contains(body, "changelog](") {
		t.Errorf("a hostile link got in:\n%s", body)
	}
	e.checkSecrets(t)

	t.Run("v tags", func(t *testing.T) {
		e := newRunEnv(t, testConfig)
		e.withProjectURLs(map[string]string{"Repository": "https://github.com/numba/numba.git"}, "v0.66.0", "v0.67.0", "0.67.0")
		if code, out, stderr := e.run(); code != 0 {
			t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
		}
		if body := e.gh.Pulls(testRepo)[0].Body; !strings.Contains(body, "(https://github.com/numba/numba/compare/v0.66.0...v0.67.0)") {
			t.Errorf("no compare link with v tags:\n%s", body)
		}
	})
	t.Run("no tags, not on GitHub", func(t *testing.T) {
		e := newRunEnv(t, testConfig)
		e.withProjectURLs(map[string]string{"Source": "https://gitlab.com/numba/numba", "Changelog": "https://numba.pydata.org/changes"})
		if code, out, stderr := e.run(); code != 0 {
			t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
		}
		body := e.gh.Pulls(testRepo)[0].Body
		if strings.Contains(body, "compare") || !strings.Contains(body, "[changelog](https://numba.pydata.org/changes) · [source](https://gitlab.com/numba/numba)") {
			t.Errorf("body:\n%s", body)
		}
	})
}

// TestRunDryRunFormats: --dry-run --format json lists the pull requests it
// would open or update; --format markdown writes Markdown only.
func TestRunDryRunFormats(t *testing.T) {
	e := newRunEnv(t, testConfig)
	code, out, stderr := e.run("--dry-run", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	type pr struct {
		Package, Action, Branch, Title, Base, URL string
		Number                                    int
		Draft                                     bool
	}
	var doc struct {
		Pulls []pr `json:"pull_requests"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	want := pr{Package: "numba", Action: "open", Branch: branch, Title: "Bump numba cap to 0.67.0", Base: "main"}
	if len(doc.Pulls) != 1 || doc.Pulls[0] != want {
		t.Errorf("pull_requests %+v, want %+v", doc.Pulls, want)
	}
	if w := e.writes(); len(w) != 0 {
		t.Errorf("a dry run wrote %q", w)
	}

	// Once the pull request exists, the dry run says it would update it.
	if code, out, stderr := e.run(); code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	before := len(e.writes())
	_, out, _ = e.run("--dry-run", "--format", "json")
	doc.Pulls = nil
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	want.Action, want.Number, want.URL = "update", 1, "https://github.com/pymc-devs/pytensor/pull/1"
	if len(doc.Pulls) != 1 || doc.Pulls[0] != want {
		t.Errorf("pull_requests %+v, want %+v", doc.Pulls, want)
	}

	code, out, stderr = e.run("--dry-run", "--format", "markdown")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	if !strings.HasPrefix(out, "## pinbot\n") || !strings.Contains(out, "## Pull request (dry run, would update #1): Bump numba cap to 0.67.0") ||
		!strings.Contains(out, "#### Reproduce locally") || !strings.Contains(out, "## Slack message (dry run)\n\n```json\n{") {
		t.Errorf("markdown:\n%s", out)
	}
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "===") || strings.HasPrefix(line, "--- ") || strings.Contains(line, "level=") || strings.Contains(line, "msg=") {
			t.Errorf("not Markdown: %q", line)
		}
	}
	if n := len(e.writes()); n != before {
		t.Errorf("dry runs wrote %q", e.writes()[before:])
	}
	e.checkSecrets(t)
}
