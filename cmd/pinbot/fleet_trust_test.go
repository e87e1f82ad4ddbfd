package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/pinbot-dev/pinbot/internal/fakes"
)

// What the fleet takes from its jobs, and from GitHub's listing, is
// untrusted: a report is bound to the repository it was made for, its links
// and texts cannot reach beyond their cells, the dashboard's hidden records
// survive any cut and any report, and the matrix holds only real
// repository names.

// TestFleetPlanNames: the matrix holds only names GitHub allows for a
// repository of the owner asked for; a listing's other names are skipped
// with a warning naming each.
func TestFleetPlanNames(t *testing.T) {
	e := newRunEnv(t, testConfig)
	good := []string{"lab/Good.v2_x-y", "lab/good", "lab/" + strings.Repeat("a", 100)}
	for _, full := range good {
		e.gh.AddRepo(full, "main", nil)
	}
	bad := []string{"lab/$(touch${IFS}pwned)", "lab/../../etc", "lab/..", "lab/.", "lab/with space", "lab/new\nline", "lab/-flag",
		"lab/" + strings.Repeat("a", 101), "lab/ünï"}
	for _, full := range bad {
		e.gh.AddRepo(full, "main", nil)
	}
	e.gh.AddRepo("lab/stolen", "main", nil)
	e.gh.SetRepoMeta("lab/stolen", fakes.RepoMeta{FullName: "other/stolen"})
	e.gh.AddRepo("lab/nameless", "main", nil)
	e.gh.SetRepoMeta("lab/nameless", fakes.RepoMeta{FullName: "lab"})
	code, out, stderr := e.pinbot(t.Context(), "fleet", "plan", "--owner", "lab")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	var got []string
	for _, j := range planOutput(t, out).Include {
		got = append(got, strings.Fields(j.Repositories)...)
	}
	if strings.Join(got, " ") != "lab/Good.v2_x-y lab/"+strings.Repeat("a", 100)+" lab/good" {
		t.Errorf("matrix %s", out)
	}
	for _, full := range append(bad, "lab") {
		want := fmt.Sprintf("%q: not a repository name GitHub allows", full)
		if len(full) > 80 {
			want = fmt.Sprintf("%q", full[:80])
			want = want[:len(want)-1] + "…\": not a repository name GitHub allows"
		}
		// The log quotes the message again.
		if q := strconv.Quote(want); !strings.Contains(stderr, q[1:len(q)-1]) {
			t.Errorf("no warning %s:\n%s", want, stderr)
		}
	}
	if !strings.Contains(stderr, `\"other/stolen\": not a repository of lab`) {
		t.Errorf("no warning for another owner's repository:\n%s", stderr)
	}
}

// TestFleetPlanOutputLimit: a matrix larger than a job may output (1 MB,
// counted in UTF-16 as GitHub counts it) fails the plan with an error that
// says so and what to do, and writes no output.
func TestFleetPlanOutputLimit(t *testing.T) {
	e := newRunEnv(t, testConfig)
	for i := range 5200 {
		e.gh.AddRepo(fmt.Sprintf("lab/%04d-%s", i, strings.Repeat("x", 95)), "main", nil)
	}
	output := filepath.Join(t.TempDir(), "output")
	e.vars["GITHUB_OUTPUT"] = output
	code, out, stderr := e.pinbot(t.Context(), "fleet", "plan", "--owner", "lab")
	if code != exitFailure || out != "" || !strings.Contains(stderr, "more than the 1 MB GitHub allows a job's outputs") ||
		!strings.Contains(stderr, "--topic, --include or --exclude") {
		t.Errorf("exit %d, %d bytes of stdout\n%.2000s", code, len(out), stderr)
	}
	if _, err := os.Stat(output); err == nil {
		t.Error("the plan wrote its outputs")
	}
}
