package mmap

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
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
