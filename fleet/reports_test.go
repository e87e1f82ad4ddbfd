package fleet_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pinbot-dev/pinbot/fleet"
)

const checkReport = `{"schema": 1, "repository": "lab/a", "api_requests": 0,
 "packages": [{"name": "numba", "newest": "0.67.0", "status": "blocked", "reason": "pypi has 0.67.0; checks failed on 0.67.0",
   "admits": "0.66.0", "behind": 1,
   "checks": [{"kind": "probe", "name": "numba-unique-ids", "ok": false, "detail": "_unique_ids is gone", "verdict": "blocked"}]}],
 "errors": [], "written": []}`

const runReport = `{"schema": 1,
 "report": {"schema": 1, "repository": "lab/b", "api_requests": 12,
   "packages": [{"name": "Numba", "newest": "0.67.0", "status": "bump", "admits": "0.65.0", "behind": 2}], "errors": []},
 "pull_requests": [{"package": "numba", "action": "opened", "number": 7, "url": "https://github.com/lab/b/pull/7", "branch": "pinbot/main/numba", "draft": false}],
 "notified": false, "failures": ["numba: something"]}`

func TestParseShapes(t *testing.T) {
	r, err := fleet.Parse([]byte(checkReport))
	if err != nil || r.Repository != "lab/a" || len(r.Packages) != 1 || r.Packages[0].Behind != 1 || len(r.Pulls) != 0 {
		t.Errorf("check report: %+v %v", r, err)
	}
	r, err = fleet.Parse([]byte(runReport))
	if err != nil || r.Repository != "lab/b" || r.APIRequests != 12 || len(r.Pulls) != 1 || r.Pulls[0].Number != 7 || len(r.Errors) != 1 {
		t.Errorf("run report: %+v %v", r, err)
	}
}

func TestParseRefuses(t *testing.T) {
	for _, tt := range []struct{ doc, want string }{
		{`not json`, "not valid JSON"},
		{`{"hello": "world"}`, "no schema or packages"},
		{`{"schema": 2, "packages": [], "repository": "a/b"}`, "schema 2"},
		{`{"schema": 1, "packages": []}`, "names no repository"},
		{`{"schema": 1, "packages": [], "repository": "../etc/passwd"}`, "not owner/name"},
		{`{"schema": 1, "packages": [{"name": "<img src=x>", "status": "bump"}], "repository": "a/b"}`, "not a package name"},
		{`{"schema": 1, "packages": [{"name": "numba", "status": "bump", "newest": "1.0 <b>"}], "repository": "a/b"}`, "is not a version"},
		{`{"schema": 1, "packages": [{"name": "numba", "status": "BUMP!"}], "repository": "a/b"}`, "status"},
		{`{"schema": 1, "packages": {"numba": 1}, "repository": "a/b"}`, "not a pinbot report"},
		{`{"schema": 1, "report": {"schema": 1, "packages": [], "repository": "a/b"}, "pull_requests": [{"package": "numba", "action": "x y", "number": 1}]}`, "pull_requests[0]"},
	} {
		if _, err := fleet.Parse([]byte(tt.doc)); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want %q", tt.doc, err, tt.want)
		}
	}
}

// TestRead: every file under the directory is read as the report of the
// repository its name binds it to (OWNER__NAME.json); one that is not a
// report (or a link), is named for no repository, or claims another
// repository than its name's is named in a warning and the others are
// still read.
func TestRead(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "batch-2"), 0o755)
	os.WriteFile(filepath.Join(dir, "lab__a.json"), []byte(checkReport), 0o644)
	os.WriteFile(filepath.Join(dir, "batch-2", "LAB__B.json"), []byte(runReport), 0o644)
	os.WriteFile(filepath.Join(dir, "batch-2", "lab__c.json"), []byte(runReport), 0o644) // lab/b's, claimed by lab/c's job
	os.WriteFile(filepath.Join(dir, "lab__notes.json"), []byte("hello"), 0o644)
	os.WriteFile(filepath.Join(dir, "a.json"), []byte(checkReport), 0o644)
	os.WriteFile(filepath.Join(dir, "lab__...json"), []byte(checkReport), 0o644)
	os.Symlink("/etc/passwd", filepath.Join(dir, "link.json"))
	rs, warnings, err := fleet.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 2 || rs[0].File != filepath.Join("batch-2", "LAB__B.json") || rs[0].Repository != "lab/b" || rs[1].File != "lab__a.json" {
		t.Errorf("reports %+v", rs)
	}
	want := []string{
		"a.json: skipped: its name does not say whose report it is",
		filepath.Join("batch-2", "lab__c.json") + ": skipped: it claims to be the report of lab/b, but it is lab/c's",
		"lab__...json: skipped: its name does not say whose report it is",
		"lab__notes.json: skipped: not a pinbot report",
		"link.json: skipped: not a regular file",
	}
	if len(warnings) != len(want) {
		t.Fatalf("warnings %q", warnings)
	}
	for i, w := range want {
		if !strings.HasPrefix(warnings[i], w) {
			t.Errorf("warning %q, want %q", warnings[i], w)
		}
	}
	if _, _, err := fleet.Read(filepath.Join(dir, "missing")); err == nil {
		t.Error("a missing directory was read")
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(checkReport))
	f.Add([]byte(runReport))
	f.Add([]byte(`{"schema":1,"report":{"report":{"schema":1}}}`))
	f.Add([]byte(`{"schema":1,"repository":"lab/a","packages":[{"name":"numba","status":"current","nightly":{"version":"0.69.0.dev1","source":"x","verdict":"blocked","first_failing":{"version":"0.69.0.dev0"},"last_passing":null}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := fleet.Parse(data)
		if err != nil {
			return
		}
		// What Parse accepts renders without failing.
		d, _ := fleet.Summarize([]fleet.Report{r})
		if err := d.Markdown(&strings.Builder{}); err != nil {
			t.Fatal(err)
		}
	})
}
