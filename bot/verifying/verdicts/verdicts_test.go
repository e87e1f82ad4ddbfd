package verdicts_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/pinbot-dev/pinbot/bot/verifying"
	"github.com/pinbot-dev/pinbot/bot/verifying/verdicts"
)

// good is the shape pinbot check --format json writes: numba's target 0.68.0
// blocked, 0.67.0 passed, both against 0.66.0.
const good = `{
  "schema": 1,
  "packages": [
    {"name": "numba", "newest": "0.67.0", "status": "blocked", "pins": [], "error": "",
     "checks": [{"kind": "probe", "name": "numba-unique-ids", "ok": false, "baseline": "pass", "candidate": "fail", "detail": "gone", "verdict": "blocked"}],
     "verdicts": [{"version": "0.68.0", "baseline": "0.66.0", "blocked": true}, {"version": "0.67.0", "baseline": "0.66.0", "blocked": false}],
     "some-future-key": {"ignored": true}},
    {"name": "Typing_Extensions", "checks": [], "verdicts": [{"version": "4.15.0", "baseline": "", "blocked": false}]},
    {"name": "llvmlite", "status": "error", "error": "checks: llvmlite 0.49.0 does not install\nsecond line", "checks": []}
  ],
  "errors": [], "written": []
}
`

func TestVerdict(t *testing.T) {
	v, err := verdicts.Parse("report.json", []byte(good))
	if err != nil {
		t.Fatal(err)
	}
	checks, blocked, err := v.Verdict("numba", "0.66.0", "0.68.0")
	if err != nil || !blocked || len(checks) != 1 || checks[0].Name != "numba-unique-ids" {
		t.Errorf("0.68.0: %v %v %v", checks, blocked, err)
	}
	checks, blocked, err = v.Verdict("numba", "0.66.0", "0.67.0")
	if err != nil || blocked || len(checks) != 0 {
		t.Errorf("0.67.0: %v %v %v (the evidence belongs to the first candidate only)", checks, blocked, err)
	}
	if _, _, err := v.Verdict("typing-extensions", "", "4.15.0"); err != nil {
		t.Errorf("names are compared in their PEP 503 form: %v", err)
	}
	for _, tt := range []struct{ pkg, baseline, version, want string }{
		{"numba", "0.66.0", "0.69.0", "judged 0.68.0, 0.67.0 of numba, not 0.69.0, the release this run plans: not checked, not bumped without its checks"},
		{"numba", "0.65.0", "0.67.0", "judged numba 0.67.0 against 0.66.0, this run compares with 0.65.0"},
		{"numba", "", "0.67.0", "this run compares with no baseline"},
		{"tensorflow", "2.19.1", "2.20.0", "has no verdicts for tensorflow"},
		{"llvmlite", "0.48.0", "0.49.0", `judged no release (it said "checks: llvmlite 0.49.0 does not install") of llvmlite`},
	} {
		if _, _, err := v.Verdict(tt.pkg, tt.baseline, tt.version); err == nil || !strings.Contains(err.Error(), tt.want) || !errors.Is(err, verifying.ErrNotJudged) {
			t.Errorf("%s %s: error %v, want %q wrapping verifying.ErrNotJudged", tt.pkg, tt.version, err, tt.want)
		}
	}
	if got := strings.Join(v.Packages(), " "); got != "Typing_Extensions llvmlite numba" {
		t.Errorf("packages %q", got)
	}
}

// TestVerdictHeld: a target the check job's project pins held back is held
// for the publisher too, with the resolver's account; an older candidate
// that was held counts as blocked.
func TestVerdictHeld(t *testing.T) {
	v, err := verdicts.Parse("r.json", []byte(`{"schema": 1, "packages": [
		{"name": "numba", "status": "held", "verdicts": [{"version": "0.63.0b1", "baseline": "0.62.0", "held": "conflict: numpy<2"}]},
		{"name": "llvmlite", "verdicts": [{"version": "2", "baseline": "1", "blocked": true}, {"version": "1.5", "baseline": "1", "blocked": true, "held": "x"}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	_, blocked, err := v.Verdict("numba", "0.62.0", "0.63.0b1")
	var he *verifying.HeldError
	if blocked || !errors.As(err, &he) || he.Reason != "conflict: numpy<2" {
		t.Errorf("held target: %v %v", blocked, err)
	}
	if _, blocked, err := v.Verdict("llvmlite", "1", "1.5"); !blocked || err != nil {
		t.Errorf("held fallback: %v %v", blocked, err)
	}
}

func TestParseRejects(t *testing.T) {
	pkg := func(s string) string { return `{"schema": 1, "packages": [` + s + `]}` }
	for _, tt := range []struct{ name, data, want string }{
		{"syntax", "{\"schema\": 1,\n  \"packages\": [}\n", "r.json:2:16: not valid JSON"},
		{"truncated", `{"schema": 1, "packages": [`, "r.json: not valid JSON: the report ends early"},
		{"empty", ``, "not valid JSON"},
		{"type", "{\"schema\": \"1\", \"packages\": []}", "r.json:1:15: schema: expected int, found a JSON string"},
		{"trailing", `{"schema": 1, "packages": []} {"schema": 1}`, "r.json:1:31: data after the report"},
		{"array", `[]`, "expected verdicts.doc"},
		{"run output", `{"schema": 1, "report": {"schema": 1, "packages": []}}`, "not a report of pinbot check --format json"},
		{"schema", `{"schema": 2, "packages": []}`, "schema: 2: this pinbot reads schema 1"},
		{"name", pkg(`{"name": "numba\u001b[2J"}`), `packages[0]: "numba\x1b[2J": not a package name`},
		{"no name", pkg(`{"verdicts": []}`), `packages[0]: "": not a package name`},
		{"duplicate", pkg(`{"name": "numba"}, {"name": "Numba"}`), `packages[1]: "Numba": a second entry for numba`},
		{"version", pkg(`{"name": "numba", "verdicts": [{"version": "0.67.0; rm -rf /"}]}`), `verdicts[0].version: "0.67.0; rm -rf /" is not a version`},
		{"empty version", pkg(`{"name": "numba", "verdicts": [{"version": ""}]}`), `verdicts[0].version: "" is not a version`},
		{"baseline", pkg(`{"name": "numba", "verdicts": [{"version": "1", "baseline": "<script>"}]}`), `verdicts[0].baseline: "<script>" is not a version`},
		{"twice", pkg(`{"name": "numba", "verdicts": [{"version": "1", "blocked": true}, {"version": "1"}]}`), "verdicts[1]: 1 judged twice"},
		{"pass then more", pkg(`{"name": "numba", "verdicts": [{"version": "2"}, {"version": "1"}]}`), "verdicts[0]: 2 passed, yet later candidates follow"},
		{"baselines differ", pkg(`{"name": "numba", "verdicts": [{"version": "2", "baseline": "0", "blocked": true}, {"version": "1", "baseline": "0.5"}]}`), `verdicts[1]: baseline "0.5", not "0"`},
		{"too many", pkg(`{"name": "numba", "verdicts": [` + strings.Repeat(`{"version": "1", "blocked": true},`, 16) + `{"version": "0"}]}`), "17 verdicts, more than 16"},
		{"long detail", pkg(`{"name": "numba", "checks": [{"detail": "` + strings.Repeat("x", 1<<16+1) + `"}]}`), "checks[0]: a text longer than 65536 bytes"},
		{"blocked type", pkg(`{"name": "numba", "verdicts": [{"version": "1", "blocked": "no"}]}`), "packages.verdicts.blocked: expected bool"},
		{"held then more", pkg(`{"name": "numba", "verdicts": [{"version": "2", "held": "numpy<2"}, {"version": "1", "blocked": true}]}`), "verdicts[0]: 2 passed, yet later candidates follow"},
		{"held fallback", pkg(`{"name": "numba", "verdicts": [{"version": "2", "blocked": true}, {"version": "1", "held": "numpy<2"}]}`), "verdicts[1]: 1 held, but only the target can be"},
		{"long held", pkg(`{"name": "numba", "verdicts": [{"version": "1", "held": "` + strings.Repeat("x", 1<<16+1) + `"}]}`), "verdicts[0].held: longer than 65536 bytes"},
		{"repository", `{"schema": 1, "packages": [], "repository": "lab/../x"}`, `r.json: repository: "lab/../x": not owner/name`},
		{"long environment", pkg(`{"name": "numba", "checks": [{"environment": {"python": "` + strings.Repeat("x", 1<<16+1) + `"}}]}`), "checks[0].environment: a text longer than 65536 bytes"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := verdicts.Parse("r.json", []byte(tt.data))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want %q", err, tt.want)
			}
		})
	}
}

// TestFor: a report publishes only to the repository it names (in any
// case), or to any when it names none.
func TestFor(t *testing.T) {
	named, err := verdicts.Parse("r.json", []byte(`{"schema": 1, "packages": [], "repository": "lab/a"}`))
	if err != nil {
		t.Fatal(err)
	}
	if err := named.For("Lab/A"); err != nil {
		t.Errorf("its own repository: %v", err)
	}
	if err := named.For("lab/b"); err == nil || err.Error() != "r.json is the report of lab/a, not of lab/b, the repository this run publishes to: refused" {
		t.Errorf("another repository: %v", err)
	}
	unnamed, err := verdicts.Parse("r.json", []byte(good))
	if err != nil || unnamed.For("lab/b") != nil {
		t.Errorf("a report naming no repository: %v", err)
	}
}

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	ok := filepath.Join(dir, "report.json")
	os.WriteFile(ok, []byte(good), 0o644)
	if _, err := verdicts.ReadFile(ok); err != nil {
		t.Errorf("good report: %v", err)
	}
	big := filepath.Join(dir, "big.json")
	f, _ := os.Create(big)
	f.Truncate(verdicts.MaxSize + 1)
	f.Close()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink(ok, link); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		link:                               "not a regular file",
		big:                                "more than the 16777216 bytes",
		fifo:                               "not a regular file",
		dir:                                "not a regular file",
		"/dev/zero":                        "not a regular file",
		filepath.Join(dir, "missing.json"): "no such file",
	} {
		if _, err := verdicts.ReadFile(path); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want %q", path, err, want)
		}
	}
}
