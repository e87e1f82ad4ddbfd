package symbols

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
)

// Limits bound what reading a wheel may cost. A zero field takes its value
// from DefaultLimits.
type Limits struct {
	// MaxMembers is the most members a wheel may have.
	MaxMembers int
	// MaxMemberSize is the largest uncompressed shared object read from a
	// wheel.
	MaxMemberSize int64
	// MaxTotalSize is the most uncompressed bytes of shared objects read
	// from one wheel.
	MaxTotalSize int64
	// MaxRatio is the highest compression ratio (uncompressed to compressed)
	// accepted for a member larger than 1 MiB.
	MaxRatio int64
	// MaxInMemory is the largest member held in memory; larger ones are
	// copied to a temporary file in Options.TempDir.
	MaxInMemory int64
	// MaxBody is the largest symbol whose bytes are compared; larger ones
	// are compared by size only.
	MaxBody int64
}

// DefaultLimits returns the limits used for zero fields: 100,000 members,
// 4 GiB per shared object, 16 GiB per wheel, a ratio of 200, 64 MiB in
// memory and 1 MiB per symbol body.
func DefaultLimits() Limits {
	return Limits{
		MaxMembers:    100_000,
		MaxMemberSize: 4 << 30,
		MaxTotalSize:  16 << 30,
		MaxRatio:      200,
		MaxInMemory:   64 << 20,
		MaxBody:       1 << 20,
	}
}

func (l Limits) withDefaults() Limits {
	d := DefaultLimits()
	if l.MaxMembers <= 0 {
		l.MaxMembers = d.MaxMembers
	}
	if l.MaxMemberSize <= 0 {
		l.MaxMemberSize = d.MaxMemberSize
	}
	if l.MaxTotalSize <= 0 {
		l.MaxTotalSize = d.MaxTotalSize
	}
	if l.MaxRatio <= 0 {
		l.MaxRatio = d.MaxRatio
	}
	if l.MaxInMemory <= 0 {
		l.MaxInMemory = d.MaxInMemory
	}
	if l.MaxBody <= 0 {
		l.MaxBody = d.MaxBody
	}
	return l
}

// ratioFloor is the size below which the compression ratio is not checked:
// small objects padded with zeros compress very well.
const ratioFloor = 1 << 20

// A readerAt is an opened shared object.
type readerAt interface {
	io.ReaderAt
	io.Closer
}

type memReader struct{ *bytes.Reader }

func (memReader) Close() error { return nil }

// isSharedObject reports whether a file name looks like a shared object:
// "x.so", "libx.so.1.2".
func isSharedObject(name string) bool {
	base := path.Base(name)
	return strings.HasSuffix(base, ".so") || strings.Contains(base, ".so.")
}

// isWheelName reports whether a path names a wheel or zip archive.
func isWheelName(p string) bool {
	return strings.HasSuffix(p, ".whl") || strings.HasSuffix(p, ".zip")
}

// checkMemberName refuses member names that would land outside the
// directory the archive is unpacked in.
func checkMemberName(name string) error {
	switch {
	case name == "":
		return errors.New("member with an empty name")
	case strings.HasPrefix(name, "/"), strings.Contains(name, "\\"),
		len(name) > 1 && name[1] == ':',
		!filepath.IsLocal(name):
		return fmt.Errorf("member %q escapes the archive (absolute path or ..): refusing the wheel", name)
	}
	for _, elem := range strings.Split(name, "/") {
		if elem == ".." {
			return fmt.Errorf("member %q escapes the archive (absolute path or ..): refusing the wheel", name)
		}
	}
	return nil
}

// addWheel lists the shared objects of the wheel at p as sources. Members are
// not unpacked to disk; each is read when it is scanned. A member name that
// escapes the archive, or too many members, refuses the whole wheel; a member
// over a size or ratio limit is refused alone.
func (s *scanner) addWheel(p string, role Role) {
	f, err := os.Open(p)
	if err != nil {
		s.inputError(p, err)
		return
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		s.inputError(p, err)
		return
	}
	// Count the members from the end record before archive/zip reads the
	// whole central directory into memory.
	if n, ok := zipEntryCount(f, st.Size()); ok && n > uint64(s.lim.MaxMembers) {
		f.Close()
		s.inputError(p, fmt.Errorf("wheel has %d members (limit %d): refusing it", n, s.lim.MaxMembers))
		return
	}
	zr, err := zip.NewReader(f, st.Size())
	if err != nil && !errors.Is(err, zip.ErrInsecurePath) {
		f.Close()
		s.inputError(p, fmt.Errorf("not a readable wheel (zip): %w", err))
		return
	}
	if len(zr.File) > s.lim.MaxMembers {
		f.Close()
		s.inputError(p, fmt.Errorf("wheel has %d members (limit %d): refusing it", len(zr.File), s.lim.MaxMembers))
		return
	}
	for _, zf := range zr.File {
		if err := checkMemberName(zf.Name); err != nil {
			f.Close()
			s.inputError(p, err)
			return
		}
	}
	s.closers = append(s.closers, f)
	var total int64
	for _, zf := range zr.File {
		if !isSharedObject(zf.Name) || !zf.Mode().IsRegular() {
			continue
		}
		member := p + "!" + zf.Name
		if s.seen[member] {
			continue
		}
		s.seen[member] = true
		if err := s.checkMember(zf); err != nil {
			s.inputError(member, err)
			continue
		}
		total += int64(zf.UncompressedSize64)
		if total > s.lim.MaxTotalSize {
			s.inputError(p, fmt.Errorf("shared objects in the wheel exceed %d bytes uncompressed: the rest is not scanned", s.lim.MaxTotalSize))
			return
		}
		src := &source{path: member, base: path.Base(zf.Name), key: libraryKey(zf.Name), role: role, size: int64(zf.UncompressedSize64)}
		src.open = func() (readerAt, error) { return s.extract(src, zf) }
		s.sources = append(s.sources, src)
	}
}

// zipEntryCount reads the number of entries from a zip's end of central
// directory record (or its zip64 version).
func zipEntryCount(r io.ReaderAt, size int64) (uint64, bool) {
	const eocdLen, maxComment = 22, 65535
	n := min(size, eocdLen+maxComment)
	if n < eocdLen {
		return 0, false
	}
	buf := make([]byte, n)
	if _, err := r.ReadAt(buf, size-n); err != nil {
		return 0, false
	}
	i := bytes.LastIndex(buf, []byte("PK\x05\x06"))
	if i < 0 || len(buf)-i < eocdLen {
		return 0, false
	}
	count := uint64(binary.LittleEndian.Uint16(buf[i+10:]))
	if count != 0xffff || i < 20 || string(buf[i-20:i-16]) != "PK\x06\x07" {
		return count, true
	}
	// Zip64: the locator points at the zip64 end record.
	var rec [56]byte
	off := int64(binary.LittleEndian.Uint64(buf[i-20+8:]))
	if off < 0 || off > size-56 {
		return 0, false
	}
	if _, err := r.ReadAt(rec[:], off); err != nil || string(rec[:4]) != "PK\x06\x06" {
		return 0, false
	}
	return binary.LittleEndian.Uint64(rec[32:]), true
}

// checkMember applies the size and ratio limits to a member's header.
func (s *scanner) checkMember(zf *zip.File) error {
	n, c := zf.UncompressedSize64, zf.CompressedSize64
	if n > uint64(s.lim.MaxMemberSize) {
		return fmt.Errorf("member is %d bytes uncompressed (limit %d)", n, s.lim.MaxMemberSize)
	}
	if n > ratioFloor && (c == 0 || n/c > uint64(s.lim.MaxRatio)) {
		return fmt.Errorf("member compresses %d:1 (limit %d:1): refusing a likely zip bomb", n/max(c, 1), s.lim.MaxRatio)
	}
	return nil
}

// extract opens a wheel member for reading at random offsets: in memory up
// to Limits.MaxInMemory, else in a temporary file kept until the scan ends.
// It reads at most the size the header declares and fails if there is more.
func (s *scanner) extract(src *source, zf *zip.File) (readerAt, error) {
	if src.temp != "" {
		return os.Open(src.temp)
	}
	rc, err := zf.Open()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	n := int64(zf.UncompressedSize64)
	if n <= s.lim.MaxInMemory {
		buf := make([]byte, n)
		if _, err := io.ReadFull(rc, buf); err != nil {
			return nil, fmt.Errorf("reading member: %w", err)
		}
		if k, _ := rc.Read(make([]byte, 1)); k > 0 {
			return nil, errors.New("member is larger than its header says")
		}
		return memReader{bytes.NewReader(buf)}, nil
	}
	tmp, err := os.CreateTemp(s.opts.TempDir, "pinbot-symbols-*.so")
	if err != nil {
		return nil, fmt.Errorf("member of %d bytes needs a temporary file: %w", n, err)
	}
	s.addTemp(tmp.Name())
	written, err := io.Copy(tmp, io.LimitReader(rc, n+1))
	if err == nil && written != n {
		err = fmt.Errorf("member has %d bytes, its header says %d", written, n)
	}
	if err != nil {
		tmp.Close()
		return nil, fmt.Errorf("copying member to %s: %w", s.opts.TempDir, err)
	}
	src.temp = tmp.Name()
	return tmp, nil
}

var (
	// soSuffix matches what follows a library's base name: an auditwheel
	// hash, a Python ABI tag, ".so" and version numbers.
	soSuffix = regexp.MustCompile(`(-[0-9a-f]{8})?(\.(cpython|pypy)[^.]*|\.abi3)?\.so(\.[^/]*)?$`)
	dataDir  = regexp.MustCompile(`^[^/]+\.data/(purelib|platlib)/`)
)

// libraryKey returns the release-independent identity of a library from its
// path relative to what was scanned.
func libraryKey(rel string) string {
	rel = dataDir.ReplaceAllString(filepath.ToSlash(rel), "")
	dir, base := path.Split(rel)
	if loc := soSuffix.FindStringIndex(base); loc != nil && loc[0] > 0 {
		base = base[:loc[0]] + ".so"
	}
	return dir + base
}
