// Package mmap maps files read-only into memory, so that large files (a
// 1 GB shared object) are read where they lie: the kernel pages in what
// is touched, nothing is copied to the heap, and the pages stay
// reclaimable.
//
// A fault on a mapped page (the file truncated while mapped) raises
// SIGBUS; a goroutine that reads a mapping should call
// debug.SetPanicOnFault(true) and recover, which Guard does.
package mmap

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"syscall"
)

// ErrNotRegular is returned for files that cannot be mapped (pipes,
// devices, empty files): read those with ReadAt.
var ErrNotRegular = errors.New("not a regular non-empty file")

// A Map is a read-only, shared mapping of a whole file.
type Map struct {
	data []byte
}

// Open maps the file at path. It fails with ErrNotRegular for a file that
// is not regular or is empty, and with the system's error when mapping is
// not possible.
func Open(path string) (*Map, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close() // the mapping outlives the descriptor
	return File(f)
}

// File maps the whole of the open file f (which the caller still closes).
func File(f *os.File) (*Map, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() || st.Size() <= 0 {
		return nil, fmt.Errorf("%s: %w", f.Name(), ErrNotRegular)
	}
	if int64(int(st.Size())) != st.Size() {
		return nil, fmt.Errorf("%s: %d bytes do not fit in the address space", f.Name(), st.Size())
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(st.Size()), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("mapping %s: %w", f.Name(), err)
	}
	return &Map{data: data}, nil
}

// Bytes returns the mapped file. It must not be written to (the pages are
// read-only: a write faults) nor used after Close.
func (m *Map) Bytes() []byte { return m.data }

// Len is the mapped length.
func (m *Map) Len() int64 { return int64(len(m.data)) }

// ReadAt copies from the mapping, as a file's ReadAt would.
func (m *Map) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, errors.New("mmap: negative offset")
	}
	if off >= int64(len(m.data)) {
		return 0, io.EOF
	}
	n := copy(p, m.data[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// Release tells the kernel the pages of [off, off+n) are not needed for
// now (madvise MADV_DONTNEED): they leave the process's resident set, and
// the page cache, which still holds them, serves them again if they are
// read. The mapping stays valid. Pages partly outside the range are kept.
func (m *Map) Release(off, n int64) {
	size := int64(len(m.data))
	page := int64(os.Getpagesize())
	start := (max(off, 0) + page - 1) / page * page
	end := min(off+n, size)
	if end < size {
		end = end / page * page // the kernel rounds the length up: the last page goes only with the file's end
	}
	if start >= end {
		return
	}
	_ = syscall.Madvise(m.data[start:end], syscall.MADV_DONTNEED)
}

// Close unmaps the file; it is safe to call more than once.
func (m *Map) Close() error {
	if m.data == nil {
		return nil
	}
	data := m.data
	m.data = nil
	return syscall.Munmap(data)
}

// Guard makes a fault on a mapped page a panic in the calling goroutine
// (rather than a crash of the process) until the returned function is
// called; use it as defer mmap.Guard()() around code that reads a mapping
// and recovers from panics.
func Guard() func() {
	old := debug.SetPanicOnFault(true)
	return func() { debug.SetPanicOnFault(old) }
}
