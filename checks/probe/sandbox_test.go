package probe

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestExecRunnerTimeoutKillsGroup: at the timeout the whole group is
// killed, the background child that holds stdout open included, so Run
// returns long before the child's sleep would end. The timeout leaves the
// shell ample time to start its child on a loaded machine.
func TestExecRunnerTimeoutKillsGroup(t *testing.T) {
	t.Parallel() // it waits out the timeout
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pid")
	start := time.Now()
	out, err := ExecRunner{}.Run(context.Background(), &Command{
		Path: "/bin/sh", Args: []string{"-c", `sleep 300 & echo $! > "$1"; wait`, "sh", pidFile},
		Env: []string{"PATH=/usr/bin:/bin"}, Timeout: 5 * time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	if !out.TimedOut || out.ExitCode != -1 {
		t.Errorf("TimedOut %v ExitCode %d, want true -1", out.TimedOut, out.ExitCode)
	}
	if d := time.Since(start); d > 150*time.Second {
		t.Errorf("took %s: Run waited for the child's sleep", d)
	}
	b, _ := os.ReadFile(pidFile)
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	waitDead(t, pid, "child survived the timeout")
}

// TestExecRunnerReapsStragglers: when the leader exits, its group is killed,
// so a background child holding stdout open does not keep Run waiting (for
// its 300 s sleep, or the 10 min timeout).
func TestExecRunnerReapsStragglers(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pid")
	start := time.Now()
	// The leader exits at once; its background child keeps stdout open.
	out, err := ExecRunner{}.Run(context.Background(), &Command{
		Path: "/bin/sh", Args: []string{"-c", `sleep 300 & echo $! > "$1"; echo started`, "sh", pidFile},
		Env: []string{"PATH=/usr/bin:/bin"}, Timeout: 10 * time.Minute,
	})
	if err != nil {
		t.Fatal(err)
	}
	if out.TimedOut || out.ExitCode != 0 || strings.TrimSpace(string(out.Stdout)) != "started" {
		t.Errorf("output %+v", out)
	}
	if d := time.Since(start); d > 150*time.Second {
		t.Errorf("took %s: Run waited for the background child", d)
	}
	b, _ := os.ReadFile(pidFile)
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	waitDead(t, pid, "background child survived its leader")
}

func TestExecRunnerCapsOutput(t *testing.T) {
	out, err := ExecRunner{}.Run(context.Background(), &Command{
		Path: "/bin/sh", Args: []string{"-c", "head -c 100000000 /dev/zero; head -c 5000 /dev/zero >&2; exit 3"},
		Env: []string{"PATH=/usr/bin:/bin"}, MaxOutput: 4096,
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Stdout) != 4096 || len(out.Stderr) != 4096 || !out.Truncated || out.ExitCode != 3 {
		t.Errorf("stdout %d stderr %d truncated %v exit %d", len(out.Stdout), len(out.Stderr), out.Truncated, out.ExitCode)
	}
}

func TestExecRunnerEnvIsExactly(t *testing.T) {
	t.Setenv("GITHUB_TOKEN", "ghp_secret")
	out, err := ExecRunner{}.Run(context.Background(), &Command{
		Path: "/usr/bin/env", Env: []string{"A=1"}, Stdin: []byte("in"), Dir: t.TempDir(),
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(string(out.Stdout)); got != "A=1" {
		t.Errorf("env = %q, want only A=1", got)
	}
	if _, err := (ExecRunner{}).Run(context.Background(), &Command{Path: "/nonexistent"}); err == nil {
		t.Error("no error starting a missing program")
	}
}

func TestSandboxEnv(t *testing.T) {
	parent := []string{
		"PATH=/usr/bin", "LANG=de_DE.UTF-8", "GITHUB_TOKEN=x", "SLACK_WEBHOOK_URL=x", "AWS_ACCESS_KEY_ID=x",
		"GOOGLE_CREDENTIALS=x", "AZURE_TENANT=x", "NPM_TOKEN=x", "MY_SECRET=x", "PGPASSWORD=x", "API_KEY=x",
		"PIP_INDEX_URL=https://u:p@idx/simple", "PIP_CERT=/ca.pem", "HOME=/root", "TMPDIR=/tmp", "EDITOR=vi",
	}
	probeEnv := sandboxEnv(parent, "/sb", "/venv/bin", nil)
	want := []string{"PATH=/venv/bin:/usr/bin", "HOME=/sb", "TMPDIR=/sb/tmp", "PYTHONNOUSERSITE=1",
		"PYTHONDONTWRITEBYTECODE=1", "PYTHONIOENCODING=utf-8", "LANG=de_DE.UTF-8"}
	if !slices.Equal(probeEnv, want) {
		t.Errorf("probe env\n got %q\nwant %q", probeEnv, want)
	}
	installEnv := sandboxEnv(parent, "/sb", "", append(append([]string{"GITHUB_TOKEN", "MY_SECRET"}, installPassThrough...), indexVars...))
	for _, kv := range installEnv {
		k, _, _ := strings.Cut(kv, "=")
		if secretName(k) {
			t.Errorf("install env has %s", kv)
		}
	}
	for _, kv := range []string{"PIP_INDEX_URL=https://u:p@idx/simple", "PIP_CERT=/ca.pem", "LANG=de_DE.UTF-8"} {
		if !slices.Contains(installEnv, kv) {
			t.Errorf("install env lacks %s: %q", kv, installEnv)
		}
	}
	if env := sandboxEnv(nil, "/sb", "", nil); !slices.Contains(env, "LANG=C.UTF-8") || !strings.HasPrefix(env[0], "PATH=/usr/local/bin") {
		t.Errorf("defaults: %q", env)
	}
}
