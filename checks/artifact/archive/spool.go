package archive

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
)

// A Spool keeps the content of members for reading at random offsets after
// a walk (debug/elf reads a shared object with io.ReaderAt, and a tarball's
// members can be read only as the stream passes them): in memory while the
// Spool holds at most MaxMemory bytes there, else appended to one temporary
// file in Dir. The file is removed from Dir as soon as it is made where the
// system allows (it lives on as an open file only), else on Close, so no
// member is ever visible on disk under a name of its own. A Spool is safe
// for concurrent use.
type Spool struct {
	// Dir is where the temporary file is made ("" is os.TempDir()).
	Dir string
	// MaxMemory bounds the bytes kept in memory; 0 keeps everything in the
	// file.
	MaxMemory int64

	mu     sync.Mutex
	inMem  int64
	f      *os.File
	name   string // the file's name while it still has one
	size   int64
	closed bool
}

// Keep reads exactly size bytes from r and returns a reader of them; more
// or fewer bytes is an error.
func (s *Spool) Keep(r io.Reader, size int64) (io.ReaderAt, error) {
	if size < 0 {
		return nil, fmt.Errorf("negative size %d", size)
	}
	s.mu.Lock()
	mem := s.MaxMemory-s.inMem >= size
	if mem {
		s.inMem += size
	}
	s.mu.Unlock()
	if mem {
		buf := make([]byte, size)
		if _, err := io.ReadFull(r, buf); err != nil {
			s.release(size)
			return nil, fmt.Errorf("reading member: %w", err)
		}
		if err := expectEOF(r, size); err != nil {
			s.release(size)
			return nil, err
		}
		return bytes.NewReader(buf), nil
	}
	return s.KeepFile(r, size)
}

func (s *Spool) release(n int64) {
	s.mu.Lock()
	s.inMem -= n
	s.mu.Unlock()
}

// KeepFile is Keep, always into the temporary file.
func (s *Spool) KeepFile(r io.Reader, size int64) (io.ReaderAt, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, errors.New("spool closed")
	}
	if s.f == nil {
		f, err := os.CreateTemp(s.Dir, "pinbot-spool-*")
		if err != nil {
			return nil, fmt.Errorf("member of %d bytes needs a temporary file: %w", size, err)
		}
		s.f = f
		if os.Remove(f.Name()) != nil {
			s.name = f.Name() // removed on Close instead
		}
	}
	off := s.size
	n, err := io.Copy(s.f, io.LimitReader(r, size))
	if err == nil && n != size {
		err = fmt.Errorf("member has %d bytes, its header says %d", n, size)
	}
	if err == nil {
		err = expectEOF(r, size)
	}
	if err != nil {
		// Drop what was written: the next member starts where this one did.
		s.f.Truncate(off)
		s.f.Seek(off, io.SeekStart)
		return nil, fmt.Errorf("copying member to a temporary file: %w", err)
	}
	s.size += size
	return io.NewSectionReader(s.f, off, size), nil
}

// expectEOF fails when r holds more than the size read from it.
func expectEOF(r io.Reader, size int64) error {
	var one [1]byte
	for range 16 { // a reader that keeps returning nothing is taken as ended
		n, err := r.Read(one[:])
		if n > 0 {
			return fmt.Errorf("member is larger than its header says (%d bytes)", size)
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// Close closes and removes the temporary file; readers Keep returned from
// it fail afterwards.
func (s *Spool) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	if s.f == nil {
		return nil
	}
	err := s.f.Close()
	if s.name != "" {
		if rerr := os.Remove(s.name); err == nil {
			err = rerr
		}
	}
	s.f = nil
	return err
}
