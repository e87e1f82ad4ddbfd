package main

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The attacks of issue 19 on paths and sizes, driven through `pinbot check`:
// what is refused, what is neither read nor written, and the bound that held.

const numbaOnly = "packages:\n  numba: {}\n"

// outsideDir makes a directory beside the repository holding a pin file that
// must stay untouched, and returns it with the file's content.
func (e *env) outsideDir() (string, string) {
	e.t.Helper()
	dir := filepath.Join(filepath.Dir(e.dir), filepath.Base(e.dir)+"-elsewhere")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { os.RemoveAll(dir) })
	const private = "# private: outside the repository\nnumba<=0.60.0\n"
	if err := os.WriteFile(filepath.Join(dir, "requirements.txt"), []byte(private), 0o644); err != nil {
		e.t.Fatal(err)
	}
	return dir, private
}

func (e *env) link(target, name string) {
	e.t.Helper()
	p := filepath.Join(e.dir, filepath.FromSlash(name))
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.Symlink(target, p); err != nil {
		e.t.Fatal(err)
	}
}

// runBounded runs pinbot and fails the test when the run takes more than a
// minute (a hang) or allocates more than limit bytes.
func (e *env) runBounded(limit uint64, args ...string) (int, string, string) {
	e.t.Helper()
	type result struct {
		code        int
		out, stderr string
		alloc       uint64
	}
	done := make(chan result, 1)
	go func() {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		code, out, stderr := e.run(args...)
		runtime.ReadMemStats(&after)
		done <- result{code, out, stderr, after.TotalAlloc - before.TotalAlloc}
	}()
	select {
	case r := <-done:
		if r.alloc > limit {
			e.t.Errorf("pinbot %s allocated %d MB, want at most %d MB", strings.Join(args, " "), r.alloc>>20, limit>>20)
		}
		return r.code, r.out, r.stderr
	case <-time.After(time.Minute):
		e.t.Fatalf("pinbot %s hangs", strings.Join(args, " "))
		return 0, "", ""
	}
}

// assertUntouched fails when the file at path no longer holds want, or a
// temporary file of a write appeared beside it.
func assertUntouched(t *testing.T, path, want string) {
	t.Helper()
	if b, err := os.ReadFile(path); err != nil || string(b) != want {
		t.Errorf("%s was changed: %q, %v", path, b, err)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	for _, e := range entries {
		if strings.Contains(e.Name(), ".pinbot-") {
			t.Errorf("a write reached %s: %s", filepath.Dir(path), e.Name())
		}
	}
}

const mib = 1 << 20

// TestCheckRefusesPathsOutside: a files: entry or an -r include through a
// link that leads out of the repository (a linked directory, a relative
// link that climbs, a link to /dev/zero) is an error naming it; the file
// behind it is neither read (its pins are in no report) nor written.
func TestCheckRefusesPathsOutside(t *testing.T) {
	t.Run("files entry through a linked directory", func(t *testing.T) {
		e := newEnv(t)
		out, private := e.outsideDir()
		e.link(out, "link")
		e.file(".pinbot.yml", []byte(numbaOnly+"files: [link/requirements.txt]\n"))
		code, stdout, stderr := e.runBounded(100*mib, "check", "--dir", e.dir, "--write")
		want := "files: link/requirements.txt: refused: leads outside the repository (link -> " + out + ")"
		if code != exitUsage || !strings.Contains(stderr, want) || strings.Contains(stdout, "numba") {
			t.Errorf("exit %d, want 2 and %q\n%s\n%s", code, want, stdout, stderr)
		}
		assertUntouched(t, filepath.Join(out, "requirements.txt"), private)
	})
	for _, tc := range []struct {
		name, target, want string
	}{
		{"-r through a linked directory", "", "requirements.txt:1:1: -r: -r link/requirements.txt: link/requirements.txt: refused: leads outside the repository (link -> "},
		{"-r through a climbing link", "../", "requirements.txt:1:1: -r: -r link/requirements.txt: link/requirements.txt: refused: leads outside the repository (link -> ../"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			out, private := e.outsideDir()
			target := out
			if tc.target != "" {
				target = tc.target + filepath.Base(out)
			}
			e.link(target, "link")
			const own = "-r link/requirements.txt\nnumba<=0.61.0\n"
			e.file("requirements.txt", []byte(own))
			e.file(".pinbot.yml", []byte(numbaOnly))
			code, stdout, stderr := e.runBounded(100*mib, "check", "--dir", e.dir, "--write")
			if code != exitFailure || !strings.Contains(stdout, "error: "+tc.want) {
				t.Errorf("exit %d, want 1 and an error %q\n%s\n%s", code, tc.want, stdout, stderr)
			}
			if strings.Contains(stdout, "included link/requirements.txt") || strings.Contains(stdout, "0.60.0") || strings.Contains(stdout, "wrote") {
				t.Errorf("the file outside was read, or something written:\n%s", stdout)
			}
			assertUntouched(t, filepath.Join(out, "requirements.txt"), private)
			assertUntouched(t, filepath.Join(e.dir, "requirements.txt"), own) // broken by its include: left alone
		})
	}
	t.Run("a pin file linked to /dev/zero", func(t *testing.T) {
		e := newEnv(t)
		e.link("/dev/zero", "zero-requirements.txt")
		e.file(".pinbot.yml", []byte(numbaOnly+"files: [zero-requirements.txt]\n"))
		code, _, stderr := e.runBounded(100*mib, "check", "--dir", e.dir)
		if want := "files: zero-requirements.txt: refused: leads outside the repository (zero-requirements.txt -> /dev/zero)"; code != exitUsage || !strings.Contains(stderr, want) {
			t.Errorf("exit %d, want 2 and %q\n%s", code, want, stderr)
		}
		e = newEnv(t)
		e.link("/dev/zero", "zero.txt")
		e.file("requirements.txt", []byte("-r zero.txt\nnumba<=0.61.0\n"))
		e.file(".pinbot.yml", []byte(numbaOnly))
		code, stdout, stderr := e.runBounded(100*mib, "check", "--dir", e.dir, "--write")
		if want := "error: requirements.txt:1:1: -r: -r zero.txt: zero.txt: refused: leads outside the repository (zero.txt -> /dev/zero)"; code != exitFailure || !strings.Contains(stdout, want) {
			t.Errorf("exit %d, want 1 and %q\n%s\n%s", code, want, stdout, stderr)
		}
	})
	t.Run("the configuration linked outside", func(t *testing.T) {
		e := newEnv(t)
		out, _ := e.outsideDir()
		os.WriteFile(filepath.Join(out, "pinbot.yml"), []byte(numbaOnly), 0o644)
		e.link(filepath.Join(out, "pinbot.yml"), ".pinbot.yml")
		code, _, stderr := e.runBounded(100*mib, "check", "--dir", e.dir)
		if want := ".pinbot.yml: refused: leads outside the repository"; code != exitUsage || !strings.Contains(stderr, want) {
			t.Errorf("exit %d, want 2 and %q\n%s", code, want, stderr)
		}
	})
}

// TestCheckRefusesGitDir: nothing under .git is read, whatever names it (a
// files: entry, a -r include, a link): actions/checkout leaves the workflow's
// token in .git/config, and a repository could otherwise have pinbot quote it
// in a warning or an error.
func TestCheckRefusesGitDir(t *testing.T) {
	const secret = "AUTHORIZATION: basic c2VjcmV0"
	gitConfig := []byte("[http \"https://github.com/\"]\n\textraheader = " + secret + "\nnumba<=0.61.0\n")
	for _, tc := range []struct {
		name, config, requirements, want string
		code                             int
		stream                           string
	}{
		{"files entry", numbaOnly + "files: [.git/config]\n", "", "files: .git/config: refused: inside .git", exitUsage, "stderr"},
		{"-r include", numbaOnly, "-r .git/config\nnumba<=0.61.0\n", "-r .git/config: .git/config: refused: inside .git", exitFailure, "stdout"},
		{"-c include through a link", numbaOnly, "-c git.txt\nnumba<=0.61.0\n", "git.txt: refused: inside .git, where git keeps its configuration and credentials (git.txt -> .git/config)", exitFailure, "stdout"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			e.file(".git/config", gitConfig)
			e.link(".git/config", "git.txt")
			if tc.requirements != "" {
				e.file("requirements.txt", []byte(tc.requirements))
			}
			e.file(".pinbot.yml", []byte(tc.config))
			code, stdout, stderr := e.runBounded(100*mib, "check", "--dir", e.dir, "--format", "json")
			got := map[string]string{"stdout": stdout, "stderr": stderr}[tc.stream]
			if code != tc.code || !strings.Contains(got, tc.want) {
				t.Errorf("exit %d, want %d and %q on %s\n%s\n%s", code, tc.code, tc.want, tc.stream, stdout, stderr)
			}
			if strings.Contains(stdout+stderr, "c2VjcmV0") || strings.Contains(stdout+stderr, "extraheader") {
				t.Errorf("the credential in .git/config was quoted:\n%s\n%s", stdout, stderr)
			}
			assertUntouched(t, filepath.Join(e.dir, ".git", "config"), string(gitConfig))
		})
	}
}

// TestCheckRefusesWhatIsNotAPinFile: a named pipe, a directory and a 2 GB
// (sparse) file where a pin file should be are errors naming them, within a
// minute and 100 MB, and the other files are still checked.
func TestCheckRefusesWhatIsNotAPinFile(t *testing.T) {
	e := newEnv(t)
	if err := syscall.Mkfifo(filepath.Join(e.dir, "fifo-requirements.txt"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Mkdir(filepath.Join(e.dir, "dir-requirements.txt"), 0o755)
	big, err := os.Create(filepath.Join(e.dir, "requirements.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if err := big.Truncate(2 << 30); err != nil {
		t.Skipf("no sparse 2 GB file here: %v", err)
	}
	big.Close()
	e.file("pyproject.toml", []byte("[project]\nname = \"x\"\ndependencies = [\"numba<=0.61.0\"]\n"))
	e.file(".pinbot.yml", []byte(numbaOnly+"files: [fifo-requirements.txt, dir-requirements.txt, requirements.txt, pyproject.toml]\n"))
	code, stdout, stderr := e.runBounded(100*mib, "check", "--dir", e.dir)
	for _, want := range []string{
		"error: fifo-requirements.txt: refused: not a regular file (a named pipe)",
		"error: dir-requirements.txt: refused: not a regular file (a directory)",
		"error: requirements.txt: refused: larger than the 4 MiB limit on a repository file (2147483648 bytes)",
		"pyproject.toml:3  numba<=0.61.0 → numba<=0.67.0",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if code != exitFailure {
		t.Errorf("exit %d, want 1\n%s\n%s", code, stdout, stderr)
	}
	// Discovery reads the 2 GB file too, since it is a regular file; the
	// named pipe it never picks.
	os.WriteFile(filepath.Join(e.dir, ".pinbot.yml"), []byte(numbaOnly), 0o644)
	code, stdout, _ = e.runBounded(100*mib, "check", "--dir", e.dir)
	if code != exitFailure || !strings.Contains(stdout, "error: requirements.txt: refused: larger than") || strings.Contains(stdout, "fifo") {
		t.Errorf("discovered: exit %d\n%s", code, stdout)
	}
}

// TestWriteThroughLinks: a link inside the repository to a file inside it is
// read and written through: the target is rewritten in place and the link
// stays a link, whether the link is a files: entry, an -r include, or the
// target is also listed itself (then it is planned and written once).
func TestWriteThroughLinks(t *testing.T) {
	e := newEnv(t)
	e.file("reqs/requirements-base.txt", []byte("numba<=0.61.0\n"))
	e.file("reqs/extra.txt", []byte("numba>=0.58,<=0.61.0\n"))
	e.link("reqs/requirements-base.txt", "requirements.txt")
	e.link("reqs/extra.txt", "extra.txt")
	e.link(filepath.Join(e.dir, "reqs", "requirements-base.txt"), "abs-requirements.txt") // absolute, but inside
	e.file("requirements-dev.txt", []byte("-r extra.txt\n"))
	e.file(".pinbot.yml", []byte(numbaOnly+"files: [requirements.txt, requirements-dev.txt, abs-requirements.txt, reqs/requirements-base.txt]\n"))
	code, stdout, stderr := e.runBounded(100*mib, "check", "--dir", e.dir, "--write")
	if code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	if want := "\nwrote extra.txt, requirements.txt\n"; !strings.Contains(stdout, want) {
		t.Errorf("report\n%s\nlacks %q", stdout, want)
	}
	for name, target := range map[string]string{"requirements.txt": "reqs/requirements-base.txt", "extra.txt": "reqs/extra.txt"} {
		if got, err := os.Readlink(filepath.Join(e.dir, name)); err != nil || got != target {
			t.Errorf("%s is no longer a link to %s: %q, %v", name, target, got, err)
		}
	}
	if got := e.read("reqs/requirements-base.txt"); got != "numba<=0.67.0\n" {
		t.Errorf("reqs/requirements-base.txt = %q", got)
	}
	if got := e.read("reqs/extra.txt"); got != "numba>=0.58,<=0.67.0\n" {
		t.Errorf("reqs/extra.txt = %q", got)
	}
	if n := strings.Count(stdout, "numba<=0.61.0 → numba<=0.67.0"); n != 1 {
		t.Errorf("the linked file is planned %d times, want once:\n%s", n, stdout)
	}
}

// TestDiscoveredLinks: discovery reads a link found under a pin file's name
// whose target is a regular file inside the repository, whatever the target
// is called (requirements.txt -> deps/base.txt), under the link's name, and
// --write writes through it; a file reached under several names (two links,
// or a link and the file's own name) is planned and written once, under its
// own name when discovery finds it so; a link that leads out of the
// repository or into .git is not read, nor is a linked directory entered.
func TestDiscoveredLinks(t *testing.T) {
	e := newEnv(t)
	out, private := e.outsideDir()
	e.file("deps/base.txt", []byte("numba>=0.58,<=0.61.0\n"))
	e.file("requirements-dev.txt", []byte("numba<=0.61.0  # dev\n"))
	e.file("lib/requirements-lib.txt", []byte("numba>=0.57,<=0.61.0\n"))
	e.file(".git/config", []byte("[http]\n\textraheader = AUTHORIZATION: basic c2VjcmV0\n"))
	e.link("deps/base.txt", "requirements.txt")
	e.link("../deps/base.txt", "tests/requirements.txt")
	e.link("requirements-dev.txt", "constraints.txt")
	e.link(filepath.Join(out, "requirements.txt"), "requirements-outside.txt")
	e.link(".git/config", "requirements-git.txt")
	e.link("lib", "linked")
	e.file(".pinbot.yml", []byte(numbaOnly))
	code, stdout, stderr := e.runBounded(100*mib, "check", "--dir", e.dir, "--write")
	if code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	spaced := strings.Join(strings.Fields(stdout), " ")
	for _, want := range []string{
		" requirements.txt:1 numba>=0.58,<=0.61.0 → numba>=0.58,<=0.67.0 ",
		" requirements-dev.txt:1 numba<=0.61.0 → numba<=0.67.0 ",
		" lib/requirements-lib.txt:1 numba>=0.57,<=0.61.0 → numba>=0.57,<=0.67.0 ",
		" wrote lib/requirements-lib.txt, requirements-dev.txt, requirements.txt ",
	} {
		if !strings.Contains(spaced, want) {
			t.Errorf("report lacks %q:\n%s", want, stdout)
		}
	}
	for _, not := range []string{"tests/requirements.txt", "constraints.txt", "requirements-outside", "0.60.0", "requirements-git", "AUTHORIZATION", "linked/"} {
		if strings.Contains(stdout, not) {
			t.Errorf("report mentions %q:\n%s", not, stdout)
		}
	}
	for name, want := range map[string]string{
		"deps/base.txt": "numba>=0.58,<=0.67.0\n", "requirements-dev.txt": "numba<=0.67.0  # dev\n",
		"lib/requirements-lib.txt": "numba>=0.57,<=0.67.0\n",
	} {
		if got := e.read(name); got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
	for name, target := range map[string]string{"requirements.txt": "deps/base.txt", "tests/requirements.txt": "../deps/base.txt", "constraints.txt": "requirements-dev.txt"} {
		if got, err := os.Readlink(filepath.Join(e.dir, filepath.FromSlash(name))); err != nil || got != target {
			t.Errorf("%s is no longer a link to %s: %q, %v", name, target, got, err)
		}
	}
	assertUntouched(t, filepath.Join(out, "requirements.txt"), private)
	if code, stdout, _ := e.run("check", "--dir", e.dir, "--write", "--format", "json"); code != exitOK || !strings.Contains(stdout, `"written": []`) {
		t.Errorf("second --write: exit %d\n%s", code, stdout)
	}
}
