//go:build linux

package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/pinbot-dev/pinbot/internal/fakes"
)

// walker is a hostile release's __init__: it walks its ancestors, reads each
// one's /proc/PID/environ, then every /proc/*/environ it can open, looking for
// the secret, and appends what it found to REPORT, one line per process.
const walker = `import os
REPORT = %q
SECRET = b"FAKE-SECRET-"
def _walk():
    lines, me = [], os.getpid()
    pid = me
    while pid > 1:
        try:
            st = open("/proc/%%d/status" %% pid).read().splitlines()
        except OSError as e:
            lines.append("ancestor %%d ? %%s" %% (pid, type(e).__name__))
            break
        field = lambda k: [l.split(None, 1)[1] for l in st if l.startswith(k + ":")][0].strip()
        if pid != me:
            try:
                env = open("/proc/%%d/environ" %% pid, "rb").read()
                res = "read-secret" if SECRET in env else "read-clean"
            except OSError as e:
                res = "denied-" + type(e).__name__
            lines.append("ancestor %%d %%s %%s" %% (pid, field("Name"), res))
        pid = int(field("PPid"))
    for d in os.listdir("/proc"):
        if d.isdigit() and int(d) != me:
            try:
                if SECRET in open("/proc/%%s/environ" %% d, "rb").read():
                    lines.append("secret-in %%s" %% d)
            except OSError:
                pass
    with open(REPORT, "a") as f:
        f.write("\n".join(lines) + "\n--\n")
_walk()
`

// TestReleaseCannotReadPinbotsEnvironment builds the real binary and runs
// pinbot check with a fake GITHUB_TOKEN and SLACK_WEBHOOK_URL in its
// environment against a release whose __init__ walks its ancestors'
// /proc/PID/environ (the numba attack of the hostile-release issue). pinbot is
// among the ancestors and its environment is denied; the secret is found
// nowhere. A control runs the same walker under a shell holding the secret:
// the shell's environment is read, so the walker would have seen pinbot's.
// Under root, which reads every process, pinbot and the control run as nobody.
func TestReleaseCannotReadPinbotsEnvironment(t *testing.T) {
	python := "/usr/bin/python3"
	if os.Getuid() != 0 {
		if p, err := exec.LookPath("python3"); err == nil {
			python = p
		}
	}
	if _, err := os.Stat(python); err != nil || exec.Command(python, "-c", "import venv, ensurepip").Run() != nil {
		if os.Getenv("PINBOT_INTEGRATION") != "" {
			t.Fatalf("%s with venv and ensurepip is needed", python)
		}
		t.Skip("no python3 with venv")
	}
	// One tree everybody involved can use; t.TempDir's parents are 0700.
	root, err := os.MkdirTemp("", "pinbot-harden-*")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	dirs := map[string]string{}
	for _, d := range []string{"repo", "home", "tmp", "out"} {
		dirs[d] = filepath.Join(root, d)
		if err := os.Mkdir(dirs[d], 0o777); err != nil {
			t.Fatal(err)
		}
		os.Chmod(dirs[d], 0o777) // past the umask
	}
	os.Chmod(root, 0o755)
	bin := pinbotBinary(t)

	report := filepath.Join(dirs["out"], "walk.txt")
	init := []byte(strings.ReplaceAll(walker, "%%", "%"))
	init = []byte(strings.Replace(string(init), "%q", `"`+report+`"`, 1))
	pypi := fakes.NewPyPI(t)
	var rs []fakes.Release
	for _, v := range []string{"1.0.0", "1.1.0"} {
		fn, data := fakes.Wheel("evilpkg", v, "py3-none-any", map[string][]byte{"evilpkg/__init__.py": init})
		rs = append(rs, fakes.Release{Version: v, Artifacts: map[string][]byte{fn: data}})
	}
	pypi.Add("evilpkg", rs...)
	for name, data := range map[string]string{
		"pyproject.toml": "[project]\nname = \"victim\"\ndependencies = [\"evilpkg<=1.0.0\"]\n",
		".pinbot.yml":    "packages:\n  evilpkg:\n    probes:\n      - path: evilpkg\n        expect: module\n",
	} {
		if err := os.WriteFile(filepath.Join(dirs["repo"], name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	secretEnv := []string{
		"GITHUB_TOKEN=ghp_FAKE-SECRET-token", "SLACK_WEBHOOK_URL=https://hooks.slack.com/services/FAKE-SECRET-hook",
		"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + dirs["home"], "TMPDIR=" + dirs["tmp"], "PINBOT_PYPI_URL=" + pypi.URL,
	}
	asUser := func(cmd *exec.Cmd) {
		cmd.Env, cmd.Dir = secretEnv, root
		if os.Getuid() == 0 {
			cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		}
	}

	cmd := exec.Command(bin, "check", "--dir", dirs["repo"], "--python", python, "--no-cache", "--format", "json")
	asUser(cmd)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("pinbot check: %v\n%s\n%s", err, out, stderr.String())
	}
	var rep checksReport
	if err := json.Unmarshal(out, &rep); err != nil || len(rep.Packages) != 1 || rep.Packages[0].Status != "bump" {
		t.Fatalf("report %s (%v)\n%s", out, err, stderr.String())
	}
	walked, err := os.ReadFile(report)
	if err != nil {
		t.Fatalf("the release's __init__ never ran: %v\n%s", err, stderr.String())
	}
	if n := strings.Count(string(walked), "--\n"); n != 2 {
		t.Errorf("the release ran %d times, want 2 (baseline and candidate):\n%s", n, walked)
	}
	if strings.Contains(string(walked), "secret") {
		t.Errorf("the release read the secret:\n%s", walked)
	}
	for _, block := range strings.SplitAfter(strings.TrimSuffix(string(walked), "--\n"), "--\n") {
		if !strings.Contains(block, " pinbot denied-PermissionError") {
			t.Errorf("pinbot is not among the ancestors with its environment denied:\n%s", block)
		}
	}

	// The control: the same walker, under a shell that holds the secret and
	// did nothing to protect it.
	control := filepath.Join(dirs["out"], "control.txt")
	script := filepath.Join(dirs["out"], "walker.py")
	if err := os.WriteFile(script, []byte(strings.Replace(string(init), report, control, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd = exec.Command("/bin/sh", "-c", python+" "+script+"; true")
	asUser(cmd)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("control: %v\n%s", err, out)
	}
	got, err := os.ReadFile(control)
	if err != nil || !strings.Contains(string(got), " sh read-secret") || !strings.Contains(string(got), "secret-in ") {
		t.Errorf("control: the walker did not find the shell's secret (%v):\n%s", err, got)
	}
}
