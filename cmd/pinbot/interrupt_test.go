package main

import (
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// temps lists the temporary files of writes under dir.
func temps(t *testing.T, dir string) []string {
	t.Helper()
	var found []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.Contains(d.Name(), ".pinbot-") {
			rel, _ := filepath.Rel(dir, p)
			found = append(found, filepath.ToSlash(rel))
		}
		return nil
	})
	return found
}

// TestStaleTempsRemoved: the temporary files a killed --write left beside
// the pin files it was writing are removed by the next run (a check without
// --write too), through links to their targets' directories; nothing else is.
func TestStaleTempsRemoved(t *testing.T) {
	e := newEnv(t)
	e.file("requirements.txt", []byte("numba<=0.61.0\n"))
	e.file("sub/requirements-dev.txt", []byte("numba<=0.61.0\n"))
	e.file("reqs/requirements-base.txt", []byte("numba<=0.61.0\n"))
	e.link("reqs/requirements-base.txt", "requirements-linked.txt")
	for _, p := range []string{
		".requirements.txt.pinbot-123456", // os.CreateTemp's names, before repofs
		".requirements.txt.pinbot-0a1b2c3d4e5f6a7b",
		"sub/.requirements-dev.txt.pinbot-77",
		"reqs/.requirements-base.txt.pinbot-ffffffffffffffff",
	} {
		e.file(p, []byte("numba<=0.6"))
	}
	keep := []string{".requirements.txt.orig", "sub/.other.txt.pinbot-1", "notes.pinbot-1"}
	for _, p := range keep {
		e.file(p, []byte("mine"))
	}
	e.file(".pinbot.yml", []byte(numbaOnly+"files: [requirements.txt, sub/requirements-dev.txt, requirements-linked.txt]\n"))
	code, stdout, stderr := e.run("-v", "check", "--dir", e.dir)
	if code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	if left := temps(t, e.dir); !slices.Equal(left, []string{"notes.pinbot-1", "sub/.other.txt.pinbot-1"}) {
		t.Errorf("left %v, want only the files no write of pinbot's makes", left)
	}
	for _, p := range keep {
		if e.read(p) != "mine" {
			t.Errorf("%s changed", p)
		}
	}
	if n := strings.Count(stderr, "removed a temporary file an interrupted write left"); n != 4 {
		t.Errorf("%d removals logged, want 4:\n%s", n, stderr)
	}
}

// TestKilledWrites SIGKILLs a real `pinbot check --write` process (the built
// binary) again and again, each time as soon as its first
// temporary file appears, while it rewrites 120 pin files. After each kill
// every pin file holds either its old text or its new one, never a part;
// the next run, a plain check, leaves no temporary file behind.
func TestKilledWrites(t *testing.T) {
	if testing.Short() {
		t.Skip("starts 16 processes")
	}
	e := newEnv(t)
	const files = 120
	const old, new = "numba<=0.61.0\n", "numba<=0.67.0\n"
	var names []string
	for i := range files {
		name := fmt.Sprintf("reqs/requirements-%03d.txt", i)
		names = append(names, name)
		e.file(name, []byte(old))
	}
	e.file(".pinbot.yml", []byte(numbaOnly))
	exe := pinbotBinary(t)
	reqs := filepath.Join(e.dir, "reqs")
	killedMidWrite := 0
	for round := range 16 {
		for _, name := range names {
			e.file(name, []byte(old))
		}
		before := temps(t, e.dir)
		cmd := exec.Command(exe, "check", "--dir", e.dir, "--write", "--no-cache")
		cmd.Env = append(os.Environ(), "PINBOT_PYPI_URL="+e.pypi.URL)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		// Kill as soon as a new temporary file shows, or at a random moment
		// when the process is too quick to be seen writing.
		deadline := time.Now().Add(time.Duration(rand.IntN(400)) * time.Millisecond)
	wait:
		for {
			select {
			case <-exited:
				break wait
			default:
			}
			entries, _ := os.ReadDir(reqs)
			fresh := slices.ContainsFunc(entries, func(d fs.DirEntry) bool {
				return strings.Contains(d.Name(), ".pinbot-") && !slices.Contains(before, "reqs/"+d.Name())
			})
			if fresh || time.Now().After(deadline) {
				cmd.Process.Signal(syscall.SIGKILL)
				<-exited
				break
			}
		}
		if left := temps(t, e.dir); len(left) > len(before) {
			killedMidWrite++
		}
		for _, name := range names {
			if got := e.read(name); got != old && got != new {
				t.Fatalf("round %d: %s holds %q, neither the old text nor the new", round, name, got)
			}
		}
	}
	t.Logf("%d of 16 kills left temporary files (%d now)", killedMidWrite, len(temps(t, e.dir)))
	code, stdout, stderr := e.run("check", "--dir", e.dir)
	if code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	if left := temps(t, e.dir); len(left) > 0 {
		t.Errorf("the next run left %v", left)
	}
}
