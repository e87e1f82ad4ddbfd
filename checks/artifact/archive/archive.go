// Package archive reads the members of release archives as streams, never
// unpacking them to disk: wheels and other zips (PEP 427), conda packages
// (.conda: a zip of pkg-*.tar.zst and info-*.tar.zst; the classic .tar.bz2)
// and the tarballs C and C++ libraries ship in (.tar.gz, .tgz, .tar.xz,
// .tar.zst, .tar).
//
// Archives come from indexes and channels, so every byte is hostile. Walk
// applies the same limits to every kind: the number of members, the size of
// one member, the uncompressed size of the whole archive, the compression
// ratio (per member in a zip, over the whole stream in a tarball), member
// names that would land outside the archive (absolute, "..", backslashes),
// and links: a symbolic or hard link is reported as a link, never followed,
// and one whose target leaves the archive refuses it. An xz stream whose
// dictionary is larger than MaxXZDict is refused before any is allocated.
//
// A zip is read in place: its members can be opened again after the walk,
// and a stored member is read where it lies. A tarball is one compressed
// stream read once from the start; a caller that needs a member's bytes
// later (debug/elf needs io.ReaderAt) keeps them in a Spool.
package archive

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path"
	"path/filepath"
	"strings"
)

// A Kind is an archive format.
type Kind string

// The kinds Walk reads.
const (
	Zip    Kind = "zip"     // a wheel, a zip
	Conda  Kind = "conda"   // a .conda package: a zip of zstd-compressed tarballs
	TarBz2 Kind = "tar.bz2" // a classic conda package, a tarball
	TarGz  Kind = "tar.gz"
	TarXz  Kind = "tar.xz"
	TarZst Kind = "tar.zst"
	Tar    Kind = "tar"
)

// suffixes maps file name endings to kinds, longest first where they share
// a tail.
var suffixes = []struct {
	suffix string
	kind   Kind
}{
	{".whl", Zip}, {".zip", Zip}, {".conda", Conda},
	{".tar.bz2", TarBz2}, {".tbz2", TarBz2}, {".tar.gz", TarGz}, {".tgz", TarGz},
	{".tar.xz", TarXz}, {".txz", TarXz}, {".tar.zst", TarZst}, {".tar", Tar},
}

// KindOf returns the kind a file name says ("" when it names none).
func KindOf(name string) Kind {
	lower := strings.ToLower(name)
	for _, s := range suffixes {
		if strings.HasSuffix(lower, s.suffix) {
			return s.kind
		}
	}
	return ""
}

// Sniff returns the kind the first bytes of a file say: a zip, a gzip,
// bzip2, xz or zstd stream (taken to hold a tarball), or an uncompressed
// tarball (at least 262 bytes needed); "" otherwise, for an ELF file say.
func Sniff(head []byte) Kind {
	switch {
	case bytes.HasPrefix(head, []byte("PK\x03\x04")), bytes.HasPrefix(head, []byte("PK\x05\x06")):
		return Zip
	case bytes.HasPrefix(head, []byte{0x1f, 0x8b}):
		return TarGz
	case bytes.HasPrefix(head, []byte("BZh")):
		return TarBz2
	case bytes.HasPrefix(head, []byte{0xfd, '7', 'z', 'X', 'Z', 0}):
		return TarXz
	case bytes.HasPrefix(head, []byte{0x28, 0xb5, 0x2f, 0xfd}):
		return TarZst
	case len(head) >= 262 && string(head[257:262]) == "ustar":
		return Tar
	}
	return ""
}

// SniffLen is how many leading bytes Sniff needs to recognise every kind.
const SniffLen = 262

// Detect returns the kind of a file from its name, else from its first bytes
// (Sniff): a wheel named .whl is a zip whatever it holds, and Walk says so
// when it is not one.
func Detect(name string, head []byte) Kind {
	if k := KindOf(name); k != "" {
		return k
	}
	return Sniff(head)
}

// Limits bound what walking one archive may cost. A zero field takes its
// value from DefaultLimits.
type Limits struct {
	// MaxMembers is the most members (files, directories, links) an
	// archive may have; a .conda's inner tarballs count theirs.
	MaxMembers int
	// MaxMemberSize is the largest uncompressed member whose content is
	// offered; a larger one comes with Member.Err set.
	MaxMemberSize int64
	// MaxTotalSize is the most uncompressed bytes one archive may hold: the
	// sizes of a zip's members, or the bytes a compressed tarball inflates to.
	MaxTotalSize int64
	// MaxRatio is the highest compression ratio (uncompressed to compressed)
	// accepted: per zip member larger than 1 MiB, and over a tarball's
	// stream once it has inflated to more than 1 MiB.
	MaxRatio int64
}

// DefaultLimits returns the limits used for zero fields: 100,000 members,
// 4 GiB per member, 16 GiB per archive and a ratio of 200.
func DefaultLimits() Limits {
	return Limits{MaxMembers: 100_000, MaxMemberSize: 4 << 30, MaxTotalSize: 16 << 30, MaxRatio: 200}
}

// WithDefaults returns l with its zero fields set from DefaultLimits.
func (l Limits) WithDefaults() Limits {
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
	return l
}

// RatioFloor is the size below which the compression ratio is not checked:
// small files padded with zeros compress very well.
const RatioFloor = 1 << 20

// ErrRefused is wrapped by the errors of archives Walk refuses: a limit
// exceeded, a name or link that leaves the archive.
var ErrRefused = errors.New("archive refused")

func refused(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrRefused, fmt.Sprintf(format, args...))
}

// A Type is what a member is.
type Type int

// The member types.
const (
	Regular Type = iota
	Dir
	Symlink
	Hardlink
	Other // devices, FIFOs, sparse files: never read
)

// A Member is one member of an archive, as Walk meets it.
type Member struct {
	// Name is the member's path in the archive, slash-separated, without a
	// leading "./" (for a .conda, its path in the inner tarball:
	// "lib/libx.so.1", "info/index.json").
	Name string
	Type Type
	// Link is a link's target: for a symbolic link as written, relative to
	// the link's directory; for a hard link, the member it names.
	Link string
	// Size is a regular member's uncompressed size.
	Size int64
	// Err, when set, is why the member's content is not offered (a limit it
	// exceeds alone); the walk goes on.
	Err error
	// Stored, when not nil, reads the member where it lies: a zip member
	// stored without compression. It stays valid after the walk, as long
	// as the archive's reader does.
	Stored io.ReaderAt
	// Reopen, when not nil, opens the member again after the walk (zip
	// members), as long as the archive's reader is valid; each stream
	// stops at Size and fails if the member holds more.
	Reopen func() (io.ReadCloser, error)

	open   func() (io.ReadCloser, error) // the stream during the walk, opened on first Read
	stream io.Reader
	closer io.Closer
}

// Read reads the member's content during the call to Walk's function; it
// fails for members whose Err is set and for members that are not regular
// files.
func (m *Member) Read(p []byte) (int, error) {
	if m.stream == nil {
		switch {
		case m.Err != nil:
			return 0, m.Err
		case m.Type != Regular || m.open == nil:
			return 0, fmt.Errorf("%s: not a regular file", m.Name)
		}
		rc, err := m.open()
		if err != nil {
			return 0, err
		}
		m.stream, m.closer = rc, rc
	}
	return m.stream.Read(p)
}

func (m *Member) close() {
	if m.closer != nil {
		m.closer.Close()
	}
	m.stream, m.closer, m.open = nil, nil, nil
}

// Head reads up to n leading bytes of the member's content during the walk,
// and returns them with a reader of the whole content (those bytes first),
// so a caller can look at a member's magic number and still read it all.
func (m *Member) Head(n int) ([]byte, io.Reader, error) {
	buf := make([]byte, n)
	k, err := io.ReadFull(m, buf)
	if err == io.ErrUnexpectedEOF || err == io.EOF {
		err = nil
	}
	buf = buf[:k]
	return buf, io.MultiReader(bytes.NewReader(buf), m), err
}

// Walk reads the archive r (size bytes, of the given kind) and calls fn for
// every member in archive order: regular files, directories and links.
// fn reads a regular member's content through the Member (a tarball's only
// then: once fn returns, the stream moves on). An error from fn stops the
// walk and is returned as it is. An archive that cannot be read, or that a
// limit or a name refuses, is an error (refusals wrap ErrRefused); members
// already passed to fn were read from it, so a caller that must not use a
// refused archive drops them.
func Walk(r io.ReaderAt, size int64, kind Kind, lim Limits, fn func(*Member) error) error {
	w := &walker{lim: lim.WithDefaults(), fn: fn}
	switch kind {
	case Zip, Conda:
		return w.zip(r, size, kind)
	case TarBz2, TarGz, TarXz, TarZst, Tar:
		return w.tarball(r, size, kind)
	}
	return fmt.Errorf("not an archive pinbot reads (%q)", kind)
}

// walker is the state of one Walk.
type walker struct {
	lim     Limits
	fn      func(*Member) error
	members int
}

// count counts one more member against MaxMembers.
func (w *walker) count() error {
	w.members++
	if w.members > w.lim.MaxMembers {
		return refused("at least %d members (limit %d)", w.lim.MaxMembers+1, w.lim.MaxMembers)
	}
	return nil
}

// call passes m to fn and closes its stream afterwards.
func (w *walker) call(m *Member) error {
	defer m.close()
	return w.fn(m)
}

// cleanName returns a member name without leading "./", or an error when it
// would land outside the directory the archive is unpacked in.
func cleanName(name string) (string, error) {
	for strings.HasPrefix(name, "./") {
		name = strings.TrimLeft(name[2:], "/")
	}
	trimmed := strings.TrimSuffix(name, "/")
	switch {
	case name == "" || trimmed == "." || trimmed == "":
		return "", nil // the archive's root
	case strings.HasPrefix(name, "/"), strings.Contains(name, "\\"), strings.ContainsRune(name, 0),
		len(name) > 1 && name[1] == ':',
		!filepath.IsLocal(trimmed):
		return "", refused("member %q escapes the archive (absolute path or ..)", name)
	}
	for _, elem := range strings.Split(trimmed, "/") {
		if elem == ".." {
			return "", refused("member %q escapes the archive (absolute path or ..)", name)
		}
	}
	return name, nil
}

// checkSymlink refuses a symbolic link whose target, taken from the link's
// directory, leaves the archive.
func checkSymlink(name, target string) error {
	if target == "" || strings.HasPrefix(target, "/") || strings.Contains(target, "\\") || strings.ContainsRune(target, 0) ||
		len(target) > 1 && target[1] == ':' {
		return refused("link %q points outside the archive (%q)", name, target)
	}
	joined := path.Join(path.Dir(strings.TrimSuffix(name, "/")), target)
	if joined == ".." || strings.HasPrefix(joined, "../") {
		return refused("link %q points outside the archive (%q)", name, target)
	}
	return nil
}
