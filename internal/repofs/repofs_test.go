package repofs_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pinbot-dev/pinbot/internal/repofs"
)

// tree makes a repository with files, directories and links, and a directory
// beside it that is outside.
func tree(t *testing.T) (repo, outside string) {
	t.Helper()
	base := t.TempDir()
	repo, outside = filepath.Join(base, "repo"), filepath.Join(base, "elsewhere")
	for _, d := range []string{repo + "/reqs/deep", outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(p, s string) {
		if err := os.WriteFile(p, []byte(s), 0o640); err != nil {
			t.Fatal(err)
		}
	}
	write(repo+"/reqs/base.txt", "numba<=0.60\n")
	write(repo+"/reqs/deep/x.txt", "x\n")
	write(outside+"/requirements.txt", "secret\n")
	if err := os.MkdirAll(repo+"/.git", 0o755); err != nil {
		t.Fatal(err)
	}
	write(repo+"/.git/config", "[http \"https://github.com/\"]\n\textraheader = AUTHORIZATION: basic c2VjcmV0\n")
	link := func(target, name string) {
		if err := os.Symlink(target, filepath.Join(repo, name)); err != nil {
			t.Fatal(err)
		}
	}
	link("reqs/base.txt", "requirements.txt")          // a relative link inside
	link(repo+"/reqs/base.txt", "abs.txt")             // an absolute link inside
	link(outside, "out")                               // a directory outside
	link("../elsewhere/requirements.txt", "climb.txt") // a relative link climbing out
	link("/dev/zero", "zero.txt")
	link("deep/../base.txt", "reqs/alias.txt") // through .. inside
	link("loop.txt", "loop.txt")
	link(".git/config", "git.txt") // a link into .git
	return repo, outside
}

func open(t *testing.T, dir string) *repofs.Root {
	t.Helper()
	r, err := repofs.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

func TestResolve(t *testing.T) {
	repo, _ := tree(t)
	r := open(t, repo)
	for _, tc := range []struct {
		name, want string
		err        error
		detail     string
	}{
		{name: "reqs/base.txt", want: "reqs/base.txt"},
		{name: "requirements.txt", want: "reqs/base.txt"},
		{name: "abs.txt", want: "reqs/base.txt"},
		{name: "reqs/alias.txt", want: "reqs/base.txt"},
		{name: "reqs/../requirements.txt", want: "reqs/base.txt"},
		{name: "out/requirements.txt", err: repofs.ErrOutside, detail: "out -> "},
		{name: "climb.txt", err: repofs.ErrOutside, detail: "climb.txt -> ../elsewhere/requirements.txt"},
		{name: "zero.txt", err: repofs.ErrOutside, detail: "zero.txt -> /dev/zero"},
		{name: "../elsewhere/requirements.txt", err: repofs.ErrOutside, detail: "climbs above"},
		{name: "/etc/passwd", err: repofs.ErrOutside},
		{name: "loop.txt", err: repofs.ErrOutside, detail: "too many links"},
		{name: "missing.txt", err: fs.ErrNotExist},
	} {
		got, err := r.Resolve(tc.name)
		if tc.err == nil {
			if err != nil || got != tc.want {
				t.Errorf("Resolve(%q) = %q, %v; want %q", tc.name, got, err, tc.want)
			}
			continue
		}
		if !errors.Is(err, tc.err) || !strings.Contains(err.Error(), tc.detail) || !strings.HasPrefix(err.Error(), tc.name+": ") && tc.err != fs.ErrNotExist {
			t.Errorf("Resolve(%q) = %q, %v; want %v naming %q", tc.name, got, err, tc.err, tc.detail)
		}
	}
}

func TestReadFileRefuses(t *testing.T) {
	repo, _ := tree(t)
	if err := syscall.Mkfifo(filepath.Join(repo, "fifo.txt"), 0o644); err != nil {
		t.Fatal(err)
	}
	sparse, err := os.Create(filepath.Join(repo, "big.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if err := sparse.Truncate(2 << 30); err != nil {
		t.Fatal(err)
	}
	sparse.Close()
	r := open(t, repo)
	for _, tc := range []struct {
		name, want string
		err        error
	}{
		{"zero.txt", "zero.txt: refused: leads outside the repository (zero.txt -> /dev/zero)", repofs.ErrOutside},
		{"out/requirements.txt", "out/requirements.txt: refused: leads outside the repository", repofs.ErrOutside},
		{"fifo.txt", "fifo.txt: refused: not a regular file (a named pipe)", repofs.ErrNotRegular},
		{"reqs", "reqs: refused: not a regular file (a directory)", repofs.ErrNotRegular},
		{"big.txt", "big.txt: refused: larger than the 4 MiB limit on a repository file (2147483648 bytes)", repofs.ErrTooLarge},
		{".git/config", ".git/config: refused: inside .git, where git keeps its configuration and credentials", repofs.ErrGitDir},
		{"reqs/../.git/config", "reqs/../.git/config: refused: inside .git", repofs.ErrGitDir},
		{"git.txt", "git.txt: refused: inside .git, where git keeps its configuration and credentials (git.txt -> .git/config)", repofs.ErrGitDir},
	} {
		done := make(chan struct{})
		var data []byte
		var err error
		go func() { data, err = r.ReadFile(tc.name); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("ReadFile(%q) hangs", tc.name)
		}
		if !errors.Is(err, tc.err) || !strings.HasPrefix(err.Error(), tc.want) || data != nil {
			t.Errorf("ReadFile(%q) = %d bytes, %v; want %q", tc.name, len(data), err, tc.want)
		}
	}
	if _, err := repofs.ReadFile("/dev/zero"); !errors.Is(err, repofs.ErrNotRegular) {
		t.Errorf("ReadFile(/dev/zero) = %v, want ErrNotRegular", err)
	}
	os.MkdirAll(filepath.Join(repo, ".git", "info"), 0o755)
	os.WriteFile(filepath.Join(repo, ".git", "info", "exclude"), []byte("scratch/\n"), 0o644)
	if b, err := r.ReadFile(".git/info/exclude"); err != nil || string(b) != "scratch/\n" {
		t.Errorf("ReadFile(.git/info/exclude) = %q, %v: git's list of ignored paths is read", b, err)
	}
	for _, name := range []string{"requirements.txt", "abs.txt", "reqs/alias.txt"} {
		if b, err := r.ReadFile(name); err != nil || string(b) != "numba<=0.60\n" {
			t.Errorf("ReadFile(%q) = %q, %v", name, b, err)
		}
	}
}

// TestFS walks the repository as discovery does: listings report links as
// links, Resolve says where one leads (refusing those that lead out), and
// Stat and ReadFile follow links only inside, refusing what is not a regular
// file without waiting on it.
func TestFS(t *testing.T) {
	repo, _ := tree(t)
	if err := syscall.Mkfifo(filepath.Join(repo, "fifo.txt"), 0o644); err != nil {
		t.Fatal(err)
	}
	fsys := open(t, repo).FS()
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		t.Fatal(err)
	}
	links := map[string]bool{}
	for _, e := range entries {
		links[e.Name()] = e.Type()&fs.ModeSymlink != 0
	}
	if !links["requirements.txt"] || !links["out"] || links["reqs"] {
		t.Errorf("ReadDir: %v", links)
	}
	lr, ok := fsys.(interface{ Resolve(string) (string, error) })
	if !ok {
		t.Fatal("FS has no Resolve")
	}
	if got, err := lr.Resolve("requirements.txt"); err != nil || got != "reqs/base.txt" {
		t.Errorf("Resolve(requirements.txt) = %q, %v", got, err)
	}
	if _, err := lr.Resolve("climb.txt"); !errors.Is(err, repofs.ErrOutside) {
		t.Errorf("Resolve(climb.txt) = %v, want ErrOutside", err)
	}
	if info, err := fs.Stat(fsys, "abs.txt"); err != nil || !info.Mode().IsRegular() {
		t.Errorf("Stat(abs.txt) = %v, %v", info, err)
	}
	if b, err := fs.ReadFile(fsys, "requirements.txt"); err != nil || string(b) != "numba<=0.60\n" {
		t.Errorf("ReadFile(requirements.txt) = %q, %v", b, err)
	}
	for name, want := range map[string]error{"zero.txt": repofs.ErrOutside, "out/requirements.txt": repofs.ErrOutside, "fifo.txt": repofs.ErrNotRegular} {
		done := make(chan error, 1)
		go func() { _, err := fs.ReadFile(fsys, name); done <- err }()
		select {
		case err := <-done:
			if !errors.Is(err, want) {
				t.Errorf("ReadFile(%s) = %v, want %v", name, err, want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("ReadFile(%s) hangs", name)
		}
	}
}

// TestReadFileCap reads a file of exactly the limit, and refuses one byte more.
func TestReadFileCap(t *testing.T) {
	dir := t.TempDir()
	at := make([]byte, repofs.MaxFileSize)
	os.WriteFile(filepath.Join(dir, "at.txt"), at, 0o644)
	os.WriteFile(filepath.Join(dir, "over.txt"), append(at, 'x'), 0o644)
	r := open(t, dir)
	if b, err := r.ReadFile("at.txt"); err != nil || len(b) != repofs.MaxFileSize {
		t.Errorf("at the limit: %d bytes, %v", len(b), err)
	}
	if _, err := r.ReadFile("over.txt"); !errors.Is(err, repofs.ErrTooLarge) {
		t.Errorf("over the limit: %v", err)
	}
}

func TestWriteFileThroughLink(t *testing.T) {
	repo, outside := tree(t)
	r := open(t, repo)
	if err := r.WriteFile("requirements.txt", []byte("numba<=0.61\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if target, err := os.Readlink(filepath.Join(repo, "requirements.txt")); err != nil || target != "reqs/base.txt" {
		t.Errorf("the link became %q, %v; want it to stay a link to reqs/base.txt", target, err)
	}
	info, _ := os.Stat(filepath.Join(repo, "reqs", "base.txt"))
	if b, _ := os.ReadFile(filepath.Join(repo, "reqs", "base.txt")); string(b) != "numba<=0.61\n" || info.Mode().Perm() != 0o640 {
		t.Errorf("target = %q, %v; want the new text with mode 0640", b, info.Mode())
	}
	for _, name := range []string{"out/requirements.txt", "climb.txt", "zero.txt"} {
		if err := r.WriteFile(name, []byte("pwned\n"), 0o644); !errors.Is(err, repofs.ErrOutside) {
			t.Errorf("WriteFile(%q) = %v, want ErrOutside", name, err)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(outside, "requirements.txt")); string(b) != "secret\n" {
		t.Errorf("outside file = %q", b)
	}
	if err := r.WriteFile("new/x.txt", nil, 0o644); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing directory: %v", err)
	}
	if err := r.WriteFile(".pinbot.yml", []byte("packages: {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if info, err := os.Lstat(filepath.Join(repo, ".pinbot.yml")); err != nil || info.Mode().Perm() != 0o644 {
		t.Errorf("a new file: %v, %v", info, err)
	}
	assertNoTemp(t, repo)
}

func TestRemoveStale(t *testing.T) {
	repo, _ := tree(t)
	for _, n := range []string{".base.txt.pinbot-123", ".base.txt.pinbot-0a1b2c3d4e5f6a7b", ".other.txt.pinbot-1", "base.txt.pinbot-1", ".base.txt.pinbot-"} {
		os.WriteFile(filepath.Join(repo, "reqs", n), nil, 0o644)
	}
	os.Mkdir(filepath.Join(repo, "reqs", ".base.txt.pinbot-dir"), 0o755)
	r := open(t, repo)
	removed, err := r.RemoveStale("requirements.txt") // a link: its target's directory is swept
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(removed)
	if want := []string{"reqs/.base.txt.pinbot-0a1b2c3d4e5f6a7b", "reqs/.base.txt.pinbot-123"}; !slices.Equal(removed, want) {
		t.Errorf("removed %v, want %v", removed, want)
	}
	entries, _ := os.ReadDir(filepath.Join(repo, "reqs"))
	var left []string
	for _, e := range entries {
		left = append(left, e.Name())
	}
	if want := []string{".base.txt.pinbot-", ".base.txt.pinbot-dir", ".other.txt.pinbot-1", "alias.txt", "base.txt", "base.txt.pinbot-1", "deep"}; !slices.Equal(left, want) {
		t.Errorf("left %v, want %v", left, want)
	}

	// The directory was listed once; a second file in it still has its own
	// temporaries removed, from that listing, and the first file's sweep
	// finds nothing more.
	removed, err = r.RemoveStale("reqs/other.txt")
	if err != nil || !slices.Equal(removed, []string{"reqs/.other.txt.pinbot-1"}) {
		t.Errorf("second file in the directory: removed %v, %v", removed, err)
	}
	if _, err := os.Stat(filepath.Join(repo, "reqs", ".other.txt.pinbot-1")); !os.IsNotExist(err) {
		t.Errorf("the second file's temporary is still there: %v", err)
	}
	if removed, err := r.RemoveStale("reqs/base.txt"); err != nil || len(removed) != 0 {
		t.Errorf("sweeping again: removed %v, %v", removed, err)
	}
}

func assertNoTemp(t *testing.T, dir string) {
	t.Helper()
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.Contains(d.Name(), ".pinbot-") {
			t.Errorf("temporary file left: %s", p)
		}
		return nil
	})
}
