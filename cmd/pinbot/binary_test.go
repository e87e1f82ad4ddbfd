package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// The real binary, built once per test run for the tests that run it as a
// separate process (the Action's scripts, process hardening).
var binary struct {
	once     sync.Once
	dir, bin string
	err      error
	out      []byte
}

func TestMain(m *testing.M) {
	code := m.Run()
	if binary.dir != "" {
		os.RemoveAll(binary.dir)
	}
	os.Exit(code)
}

// pinbotBinary builds cmd/pinbot into a directory every user can read (the
// hardening test runs it as nobody) and returns its path.
func pinbotBinary(t testing.TB) string {
	t.Helper()
	binary.once.Do(func() {
		goBin, err := exec.LookPath("go")
		if err != nil {
			binary.err = err
			return
		}
		if binary.dir, binary.err = os.MkdirTemp("", "pinbot-bin-*"); binary.err != nil {
			return
		}
		os.Chmod(binary.dir, 0o755)
		binary.bin = filepath.Join(binary.dir, "pinbot")
		binary.out, binary.err = exec.Command(goBin, "build", "-o", binary.bin, ".").CombinedOutput()
	})
	if binary.err != nil {
		t.Fatalf("building pinbot: %v\n%s", binary.err, binary.out)
	}
	return binary.bin
}
