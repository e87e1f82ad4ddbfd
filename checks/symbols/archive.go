package symbols

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/pinbot-dev/pinbot/checks/artifact/archive"
	"github.com/pinbot-dev/pinbot/internal/mmap"
)

// Limits bound what reading an archive (a wheel, a conda package, a
// tarball: see checks/artifact/archive) may cost. A zero field takes its
// value from DefaultLimits.
type Limits struct {
	// MaxMembers is the most members an archive may have.
	MaxMembers int
	// MaxMemberSize is the largest uncompressed shared object read from an
	// archive.
	MaxMemberSize int64
	// MaxTotalSize is the most uncompressed bytes one archive may hold (a
	// zip's members, or what a tarball's stream inflates to).
	MaxTotalSize int64
	// MaxRatio is the highest compression ratio (uncompressed to compressed)
	// accepted for a zip member, or a tarball's stream, past 1 MiB.
	MaxRatio int64
	// MaxInMemory is the largest zip member held in memory, and the most
	// bytes of a tarball's shared objects held in memory in all; the rest
	// is kept in one temporary file in Options.TempDir, unlinked at once.
	MaxInMemory int64
	// MaxBody is the largest symbol whose bytes are compared; larger ones
	// are compared by size only.
	MaxBody int64
}

// DefaultLimits returns the limits used for zero fields: 100,000 members,
// 4 GiB per shared object, 16 GiB per archive, a ratio of 200, 64 MiB in
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

// A readerAt is an opened shared object.
type readerAt interface {
	io.ReaderAt
	io.Closer
}

// memReader reads an object held in memory: a slice of a mapped archive
// (a stored wheel member) or a member decompressed into the heap.
type memReader struct{ data []byte }

func (m memReader) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 || off >= int64(len(m.data)) {
		return 0, io.EOF
	}
	n := copy(p, m.data[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

func (memReader) Close() error    { return nil }
func (m memReader) Bytes() []byte { return m.data }

// nopCloser is a reader at a part of something closed by someone else: a
// stored wheel member, a spooled tarball member.
type nopCloser struct{ io.ReaderAt }

func (nopCloser) Close() error { return nil }

// isSharedObject reports whether a file name looks like a shared object:
// "x.so", "libx.so.1.2".
func isSharedObject(name string) bool {
	base := path.Base(name)
	return strings.HasSuffix(base, ".so") || strings.Contains(base, ".so.")
}

// archiveLimits are the limits Walk applies.
func (l Limits) archiveLimits() archive.Limits {
	return archive.Limits{MaxMembers: l.MaxMembers, MaxMemberSize: l.MaxMemberSize, MaxTotalSize: l.MaxTotalSize, MaxRatio: l.MaxRatio}
}

// elfMagic starts every ELF file.
const elfMagic = "\x7fELF"

// addArchive lists the ELF shared objects of the archive at p as sources:
// members named like shared objects whose content starts as an ELF file
// does (a linker script named libx.so is not one). Nothing is unpacked to
// disk. A zip member is read where it lies when stored, else decompressed
// when scanned; a tarball's members pass once, so the shared objects are
// kept in a spool as they pass (in memory up to Limits.MaxInMemory in all,
// then in one unlinked temporary file). Links are never read: a link to a
// member is that member, scanned once. A member that a limit refuses alone
// is an error of its own; an archive that a limit or a name refuses is an
// error, and none of its members are scanned. An archive with no ELF
// shared object is a warning.
func (s *scanner) addArchive(p string, kind archive.Kind, role Role) {
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
	spool := &archive.Spool{Dir: s.opts.TempDir, MaxMemory: s.lim.MaxInMemory}
	s.closers = append(s.closers, f, spool)
	// Stored members are read in place, through a mapping of the archive
	// when it can be mapped.
	var whole []byte
	if m, err := mmap.File(f); err == nil {
		s.closers = append(s.closers, m)
		whole = m.Bytes()
	}
	first := len(s.sources)
	byName := map[string]int{} // member → its index in s.sources
	var memberErrs []InputError
	regular := 0
	err = archive.Walk(readArchive(f), st.Size(), kind, s.lim.archiveLimits(), func(m *archive.Member) error {
		if m.Type != archive.Regular {
			return nil
		}
		regular++
		if !isSharedObject(m.Name) {
			return nil
		}
		member := p + "!" + m.Name
		if m.Err != nil {
			memberErrs = append(memberErrs, InputError{Path: member, Error: m.Err.Error(), Role: role})
			return nil
		}
		src := &source{path: member, base: path.Base(m.Name), key: libraryKey(m.Name), role: role, size: m.Size}
		var head []byte
		switch {
		case m.Stored != nil:
			head = make([]byte, len(elfMagic))
			n, _ := m.Stored.ReadAt(head, 0)
			head = head[:n]
			stored := m.Stored
			src.open = func() (readerAt, error) { return nopCloser{stored}, nil }
			if sr, ok := stored.(*io.SectionReader); ok && whole != nil {
				if _, off, n := sr.Outer(); off >= 0 && n >= 0 && off <= int64(len(whole)) && n <= int64(len(whole))-off {
					in := whole[off : off+n : off+n]
					src.open = func() (readerAt, error) { return memReader{in}, nil }
				}
			}
		case m.Reopen != nil:
			h, _, err := m.Head(len(elfMagic))
			if err != nil {
				memberErrs = append(memberErrs, InputError{Path: member, Error: err.Error(), Role: role})
				return nil
			}
			head = h
			reopen, size := m.Reopen, m.Size
			src.open = func() (readerAt, error) { return s.extract(src, spool, reopen, size) }
		default:
			h, all, err := m.Head(len(elfMagic))
			if err != nil {
				memberErrs = append(memberErrs, InputError{Path: member, Error: err.Error(), Role: role})
				return nil
			}
			if head = h; string(head) != elfMagic {
				break
			}
			kept, err := spool.Keep(all, m.Size)
			if err != nil {
				if errors.Is(err, archive.ErrRefused) {
					return err
				}
				memberErrs = append(memberErrs, InputError{Path: member, Error: err.Error(), Role: role})
				return nil
			}
			src.open = func() (readerAt, error) { return nopCloser{kept}, nil }
		}
		if string(head) != elfMagic {
			return nil // not a shared object, whatever its name
		}
		if i, dup := byName[member]; dup {
			s.sources[i] = src // the last copy is the one unpacking leaves
			return nil
		}
		byName[member] = len(s.sources)
		s.sources = append(s.sources, src)
		return nil
	})
	if err != nil {
		s.sources = s.sources[:first]
		s.inputError(p, err)
		return
	}
	s.inputs = append(s.inputs, memberErrs...)
	if len(s.sources) == first && len(memberErrs) == 0 {
		s.warn(p, fmt.Sprintf("%s holds no ELF shared object (%d file%s): nothing to scan", describeKind(kind), regular, plural(regular)))
	}
}

// readArchive is what archives are walked and compressed members
// decompressed through: the file itself, or in tests a reader that counts
// what is read (SetArchiveReader).
var readArchive = func(f *os.File) io.ReaderAt { return f }

// describeKind names an archive kind for messages.
func describeKind(k archive.Kind) string {
	switch k {
	case archive.Zip:
		return "the wheel (zip)"
	case archive.Conda:
		return "the conda package"
	}
	return "the ." + string(k) + " archive"
}

// extract opens a compressed zip member for reading at random offsets: in
// memory up to Limits.MaxInMemory, else kept once in the spool's file for
// the rest of the scan. It reads the size the header declares and fails if
// there is more or less.
func (s *scanner) extract(src *source, spool *archive.Spool, reopen func() (io.ReadCloser, error), n int64) (readerAt, error) {
	src.mu.Lock()
	defer src.mu.Unlock()
	if src.kept != nil {
		return nopCloser{src.kept}, nil
	}
	rc, err := reopen()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	if n <= s.lim.MaxInMemory {
		buf := make([]byte, n)
		if _, err := io.ReadFull(rc, buf); err != nil {
			return nil, fmt.Errorf("reading member: %w", err)
		}
		if k, _ := rc.Read(make([]byte, 1)); k > 0 {
			return nil, errors.New("member is larger than its header says")
		}
		return memReader{buf}, nil
	}
	kept, err := spool.KeepFile(rc, n)
	if err != nil {
		return nil, err
	}
	src.kept = kept
	return nopCloser{kept}, nil
}

// soSuffix matches what follows a library's base name: an auditwheel hash,
// a Python ABI tag, ".so" and version numbers. Compiled when first used:
// only a scan needs it, not every command.
var soSuffix = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(-[0-9a-f]{8})?(\.(cpython|pypy)[^.]*|\.abi3)?\.so(\.[^/]*)?$`)
})

// installDir returns what rel's install location adds before its import
// path: a wheel's NAME.data/purelib/ or platlib/, else a conda package's
// site-packages prefix (archive.SitePackagesPrefix); "" for none.
func installDir(rel string) string {
	if data, rest, ok := strings.Cut(rel, "/"); ok && strings.HasSuffix(data, ".data") && data != ".data" {
		for _, scheme := range []string{"purelib/", "platlib/"} {
			if strings.HasPrefix(rest, scheme) {
				return data + "/" + scheme
			}
		}
	}
	return archive.SitePackagesPrefix(rel)
}

// libraryKey returns the release-independent identity of a library from its
// path relative to what was scanned: without its installDir, so a library has
// one key whichever Python's build holds it, and without soSuffix.
func libraryKey(rel string) string {
	rel = filepath.ToSlash(rel)
	rel = strings.TrimPrefix(rel, installDir(rel))
	dir, base := path.Split(rel)
	if loc := soSuffix().FindStringIndex(base); loc != nil && loc[0] > 0 {
		base = base[:loc[0]] + ".so"
	}
	return dir + base
}
