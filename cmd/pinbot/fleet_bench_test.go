package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/pinbot-dev/pinbot/bot/report"
	"github.com/pinbot-dev/pinbot/internal/fakes"
	"github.com/pinbot-dev/pinbot/web"
)

// BenchmarkFleetPlan: pinbot fleet plan over an organisation of 1,000
// repositories (a third with the topic, some archived, some forks) on the
// in-process fake GitHub, through the CLI. Targets: at most 15 GitHub
// requests and under 2 s.
//
//	go test ./cmd/pinbot -run '^$' -bench FleetPlan -benchtime 10x
func BenchmarkFleetPlan(b *testing.B) {
	gh := fakes.NewGitHub(b)
	gh.AddToken(testToken, "bot")
	for i := range 1000 {
		full := fmt.Sprintf("lab/service-%04d", i)
		gh.AddRepo(full, "main", nil)
		m := fakes.RepoMeta{Archived: i%10 == 0, Fork: i%13 == 0}
		if i%3 == 0 {
			m.Topics = []string{"ml"}
		}
		gh.SetRepoMeta(full, m)
	}
	vars := map[string]string{"GITHUB_API_URL": gh.URL, "GITHUB_TOKEN": testToken}
	b.ResetTimer()
	for range b.N {
		before := len(gh.Requests())
		var stdout, stderr bytes.Buffer
		f := newFactory(&stdout, &stderr, func(k string) string { return vars[k] })
		f.HTTPClient = func() *http.Client {
			return &http.Client{Transport: web.NewTransport(nil, web.DefaultPolicy, web.UserAgent("bench"), f.Log)}
		}
		if code := run(context.Background(), []string{"fleet", "plan", "--owner", "lab", "--topic", "ml"}, f); code != 0 {
			b.Fatalf("exit %d\n%s", code, stderr.String())
		}
		b.ReportMetric(float64(len(gh.Requests())-before), "requests/op")
	}
}

// fleetReportFiles writes n run reports, each of three packages with pins,
// checks and a pull request, as the fleet's publish jobs leave them.
func fleetReportFiles(b testing.TB, dir string, n int) {
	statuses := []string{"bump", "current", "blocked", "current", "held", "error"}
	for i := range n {
		repo := fmt.Sprintf("lab/service-%04d", i)
		var pkgs []report.Package
		for j, name := range []string{"numba", "protobuf", "tensorflow"} {
			st := statuses[(i+j)%len(statuses)]
			p := report.Package{Name: name, Newest: "0.67.0", Status: st, Sources: map[string]string{"pypi": "0.67.0"},
				Reason: "pypi has 0.67.0", Admits: "0.66.0", Behind: (i + j) % 5}
			for k := range 3 {
				p.Pins = append(p.Pins, report.Pin{File: fmt.Sprintf("requirements/%d.txt", k), Line: 3 + k, Key: "requirements",
					Before: name + ">=0.58,<=0.66.0", After: name + ">=0.58,<=0.67.0", Reason: "0.67.0 is newer than the cap <=0.66.0"})
			}
			if st == "blocked" {
				p.Checks = []report.Check{{Kind: "probe", Name: "numba-unique-ids", Baseline: "pass", Candidate: "fail", Verdict: "blocked",
					Detail: "numba.core.bytecode.FunctionIdentity._unique_ids: missing"}}
			}
			if st == "error" {
				p.Error = "pypi: 503 Service Unavailable"
			}
			pkgs = append(pkgs, p)
		}
		var rb bytes.Buffer
		report.JSON(&rb, &report.Report{Packages: pkgs, Repository: repo, APIRequests: 12})
		doc := map[string]any{"schema": 1, "report": json.RawMessage(rb.Bytes()), "notified": false, "failures": []string{},
			"pull_requests": []map[string]any{{"package": "numba", "action": "opened", "number": 7, "url": "https://github.com/" + repo + "/pull/7",
				"branch": "pinbot/main/numba", "draft": false}}}
		data, _ := json.MarshalIndent(doc, "", "  ")
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("lab__service-%04d.json", i)), data, 0o644); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFleetReport: pinbot fleet report over 1,000 run reports, run as
// its own process so that its peak memory (max RSS) is its own. Targets:
// under 2 s and 200 MB.
//
//	go test ./cmd/pinbot -run '^$' -bench FleetReport -benchtime 5x
func BenchmarkFleetReport(b *testing.B) {
	dir := b.TempDir()
	fleetReportFiles(b, dir, 1000)
	bin := pinbotBinary(b)
	b.ResetTimer()
	var peak int64
	for range b.N {
		cmd := exec.Command(bin, "fleet", "report", "--reports", dir)
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + b.TempDir()}
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		start := time.Now()
		if err := cmd.Run(); err != nil {
			b.Fatalf("%v\n%s", err, stderr.String())
		}
		b.ReportMetric(float64(time.Since(start).Milliseconds()), "wall-ms/op")
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			peak = max(peak, ru.Maxrss) // KiB on Linux
		}
		if !bytes.Contains(stdout.Bytes(), []byte("1000 repositories")) {
			b.Fatalf("dashboard:\n%.500s", stdout.String())
		}
	}
	b.ReportMetric(float64(peak)/1024, "peak-RSS-MB")
}
