package main

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
)

func TestVersion(t *testing.T) {
	e := newEnv(t)
	code, out, _ := e.run("version")
	// A test binary has no module version and no VCS stamp.
	if code != 0 || !strings.HasPrefix(out, "pinbot dev\ncommit unknown\n") || !strings.Contains(out, "go1.") {
		t.Errorf("exit %d: %q", code, out)
	}
	code, flag, _ := e.run("--version")
	if code != 0 || flag != out {
		t.Errorf("--version: exit %d: %q; want what version prints, %q", code, flag, out)
	}
}

func TestStampOf(t *testing.T) {
	stamped := &debug.BuildInfo{
		Main: debug.Module{Path: "github.com/pinbot-dev/pinbot", Version: "v1.4.0"},
		Settings: []debug.BuildSetting{
			{Key: "vcs", Value: "git"},
			{Key: "vcs.revision", Value: "0123456789abcdef0123456789abcdef01234567"},
			{Key: "vcs.time", Value: "2026-03-02T10:00:00Z"},
			{Key: "vcs.modified", Value: "true"},
		},
	}
	tests := []struct {
		name               string
		ldVersion, ldCommt string
		info               *debug.BuildInfo
		want               buildStamp
		firstLines         string
	}{
		{"go install MODULE@VERSION", "dev", "", &debug.BuildInfo{Main: debug.Module{Version: "v1.4.0"}},
			buildStamp{Version: "v1.4.0", Revision: "unknown"}, "pinbot v1.4.0\ncommit unknown\n"},
		{"go build in a checkout", "dev", "", stamped,
			buildStamp{Version: "v1.4.0", Revision: "0123456789abcdef0123456789abcdef01234567", Time: "2026-03-02T10:00:00Z", Modified: true},
			"pinbot v1.4.0\ncommit 0123456789abcdef0123456789abcdef01234567 (2026-03-02T10:00:00Z, modified)\n"},
		{"the linker's version wins", "v9.9.9", "", stamped,
			buildStamp{Version: "v9.9.9", Revision: "0123456789abcdef0123456789abcdef01234567", Time: "2026-03-02T10:00:00Z", Modified: true}, "pinbot v9.9.9\n"},
		{"the linker's commit wins and drops another revision's state", "v9.9.9", "abc123", stamped,
			buildStamp{Version: "v9.9.9", Revision: "abc123"}, "pinbot v9.9.9\ncommit abc123\n"},
		{"(devel) is no version", "dev", "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}},
			buildStamp{Version: "dev", Revision: "unknown"}, "pinbot dev\ncommit unknown\n"},
		{"no build information", "dev", "", nil, buildStamp{Version: "dev", Revision: "unknown"}, "pinbot dev\ncommit unknown\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := stampOf(tt.ldVersion, tt.ldCommt, tt.info)
			if got != tt.want {
				t.Errorf("stampOf = %+v, want %+v", got, tt.want)
			}
			if !strings.HasPrefix(got.String(), tt.firstLines) {
				t.Errorf("String() = %q, want it to start %q", got.String(), tt.firstLines)
			}
		})
	}
}

// TestVersionStamp builds pinbot with go build in a copy of the module that
// is a git repository of one commit, as a user's clone is, and checks that
// the binary names that commit and a version, not "dev".
func TestVersionStamp(t *testing.T) {
	if testing.Short() {
		t.Skip("builds pinbot")
	}
	t.Parallel()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git command")
	}
	src, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	err = filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		switch {
		case d.Name() == ".git": // a worktree's .git is a file naming another repository
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		case d.IsDir():
			return os.MkdirAll(filepath.Join(dir, rel), 0o755)
		case !d.Type().IsRegular():
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=pinbot test", "-c", "user.email=test@example.com", "-c", "commit.gpgsign=false"}, args...)...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	git("init", "-q")
	git("add", "-A")
	git("commit", "-q", "-m", "pinbot at one commit")
	rev := git("rev-parse", "HEAD")

	bin := filepath.Join(t.TempDir(), "pinbot")
	build := exec.Command(goBin, "build", "-buildvcs=true", "-o", bin, "./cmd/pinbot")
	build.Dir = dir
	build.Env = append(os.Environ(), "GOFLAGS=", "GOWORK=off")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	for _, arg := range []string{"version", "--version"} {
		out, err := exec.Command(bin, arg).Output()
		if err != nil {
			t.Fatalf("pinbot %s: %v", arg, err)
		}
		lines := strings.Split(string(out), "\n")
		if len(lines) < 3 || !strings.HasPrefix(lines[1], "commit "+rev+" (") || strings.Contains(lines[1], "modified") {
			t.Errorf("pinbot %s does not name the commit %s, unmodified:\n%s", arg, rev, out)
		}
		// go build stamps a pseudo-version of the commit: v0.0.0-DATE-REV12.
		if !strings.HasPrefix(lines[0], "pinbot v") || !strings.HasSuffix(lines[0], rev[:12]) {
			t.Errorf("pinbot %s does not give the commit's pseudo-version:\n%s", arg, out)
		}
	}
}
