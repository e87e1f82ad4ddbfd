package mmap

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"
)

func TestMap(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	want := bytes.Repeat([]byte("0123456789"), 1000)
	if err := os.WriteFile(p, want, 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(m.Bytes(), want) || m.Len() != int64(len(want)) {
		t.Fatalf("mapped %d bytes, want the file's %d", len(m.Bytes()), len(want))
	}
	buf := make([]byte, 5)
	if n, err := m.ReadAt(buf, 9997); n != 3 || err != io.EOF || string(buf[:3]) != "789" {
		t.Errorf("ReadAt at the end = %d %v %q", n, err, buf[:n])
	}
	if err := m.Close(); err != nil || m.Close() != nil {
		t.Errorf("Close: %v", err)
	}
}

func TestNotRegular(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty")
	os.WriteFile(empty, nil, 0o644)
	for _, p := range []string{empty, dir} {
		if _, err := Open(p); !errors.Is(err, ErrNotRegular) {
			t.Errorf("Open(%s) = %v, want ErrNotRegular", p, err)
		}
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	if _, err := File(r); !errors.Is(err, ErrNotRegular) {
		t.Errorf("File(pipe) = %v, want ErrNotRegular", err)
	}
}

// TestGuard checks that reading a page past a truncated file's end is a
// panic the reader can recover, not a crash.
func TestGuard(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, make([]byte, 3*os.Getpagesize()), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if err := os.Truncate(p, 0); err != nil {
		t.Fatal(err)
	}
	recovered := func() (p any) {
		defer func() { p = recover() }()
		defer Guard()()
		sink = m.Bytes()[2*os.Getpagesize()]
		return nil
	}()
	if recovered == nil {
		t.Fatal("reading a truncated mapping did not panic")
	}
}

var sink byte

// TestRelease checks that released pages leave the resident set and read
// back unchanged.
func TestRelease(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	page := os.Getpagesize()
	want := bytes.Repeat([]byte("abcdefgh"), 64*page/8)
	if err := os.WriteFile(p, want, 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	sum := 0
	for _, c := range m.Bytes() {
		sum += int(c)
	}
	if r := resident(t, m); r != 64 || sum == 0 {
		t.Fatalf("%d pages resident after reading all 64", r)
	}
	m.Release(int64(page)+1, int64(10*page)) // pages 2 to 10 whole
	if r := resident(t, m); r != 64-9 {
		t.Errorf("%d pages resident after releasing 9 of 64, want 55", r)
	}
	m.Release(0, m.Len())
	if r := resident(t, m); r != 0 {
		t.Errorf("%d pages resident after releasing all", r)
	}
	if !bytes.Equal(m.Bytes(), want) {
		t.Error("the mapping reads otherwise after Release")
	}
}

// resident counts the pages of m in this process's resident set (mincore
// reports the page cache, so the process's own count is read from
// /proc/self/smaps).
func resident(t *testing.T, m *Map) int {
	t.Helper()
	smaps, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		t.Skip(err)
	}
	start := fmt.Sprintf("%x-", uintptr(unsafe.Pointer(&m.Bytes()[0])))
	lines := strings.Split(string(smaps), "\n")
	for i, l := range lines {
		if !strings.HasPrefix(l, start) {
			continue
		}
		for _, f := range lines[i+1:] {
			if rest, ok := strings.CutPrefix(f, "Rss:"); ok {
				var kb int
				if _, err := fmt.Sscan(rest, &kb); err != nil {
					t.Fatalf("%q: %v", f, err)
				}
				return kb * 1024 / os.Getpagesize()
			}
		}
	}
	t.Fatalf("mapping %s not in /proc/self/smaps", start)
	return 0
}
