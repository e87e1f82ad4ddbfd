package main

import (
	"strings"
	"testing"
	"time"

	"github.com/pinbot-dev/pinbot/internal/fakes"
)

// TestCheckGoMod watches a Go module through the configuration and --package:
// its path is kept as written (not PEP 503-normalised), the Go proxy governs
// it, and --write raises the requirement byte-exactly.
func TestCheckGoMod(t *testing.T) {
	e := newEnv(t)
	proxy := fakes.NewGoProxy(t)
	day := func(s string) time.Time { d, _ := time.Parse(time.DateOnly, s); return d }
	proxy.Add("github.com/Masterminds/semver/v3",
		fakes.GoVersion{Version: "v3.4.0", Time: day("2025-06-01")},
		fakes.GoVersion{Version: "v3.5.0", Time: day("2026-09-01")},
		fakes.GoVersion{Version: "v3.6.0-rc.1", Time: day("2026-10-01")})
	e.vars["GOPROXY"] = proxy.URL
	gomod := "module example.com/app\n\ngo 1.26\n\nrequire (\n\tgithub.com/Masterminds/semver/v3 v3.4.0 // keep this comment\n\tgolang.org/x/text v0.3.0 // indirect\n)\n"
	e.file("go.mod", []byte(gomod))
	e.file(".pinbot.yml", []byte("packages:\n  github.com/Masterminds/semver/v3: {}\n"))

	code, out, stderr := e.run("check", "--dir", e.dir, "--format", "json", "--write")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	for _, want := range []string{`"name": "github.com/Masterminds/semver/v3"`, `"goproxy": "v3.5.0"`, `"status": "bump"`} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %s:\n%s", want, out)
		}
	}
	want := strings.Replace(gomod, "semver/v3 v3.4.0 // keep", "semver/v3 v3.5.0 // keep", 1)
	if got := e.read("go.mod"); got != want {
		t.Errorf("go.mod = %q, want %q", got, want)
	}

	// --package names a module the configuration does not watch.
	code, out, _ = e.run("check", "--dir", e.dir, "--format", "json", "--package", "github.com/Masterminds/semver/v3")
	if code != 0 || !strings.Contains(out, `"status": "current"`) {
		t.Errorf("--package: exit %d\n%s", code, out)
	}
}
