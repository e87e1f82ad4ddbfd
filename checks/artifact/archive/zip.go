package archive

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
)

// maxLinkTarget bounds the target a zip symbolic link member may hold.
const maxLinkTarget = 4096

// zip walks a zip archive in place. A zip laid out as a conda package (a
// metadata.json and pkg-*.tar.zst / info-*.tar.zst members) is walked
// through its inner tarballs, whatever its name says.
func (w *walker) zip(r io.ReaderAt, size int64, kind Kind) error {
	what := "wheel (zip)"
	if kind == Conda {
		what = "conda package (a zip)"
	}
	// Count the members from the end record before archive/zip reads the
	// whole central directory into memory.
	if n, ok := zipEntryCount(r, size); ok && n > uint64(w.lim.MaxMembers) {
		return refused("%d members (limit %d)", n, w.lim.MaxMembers)
	}
	zr, err := zip.NewReader(r, size)
	if err != nil && !errors.Is(err, zip.ErrInsecurePath) {
		return fmt.Errorf("not a readable %s: %w", what, err)
	}
	if len(zr.File) > w.lim.MaxMembers {
		return refused("%d members (limit %d)", len(zr.File), w.lim.MaxMembers)
	}
	var total uint64
	names := make([]string, len(zr.File))
	for i, zf := range zr.File {
		if names[i], err = cleanName(zf.Name); err != nil {
			return err
		}
		if total += zf.UncompressedSize64; total > uint64(w.lim.MaxTotalSize) || total < zf.UncompressedSize64 {
			return refused("members hold more than %d bytes uncompressed", w.lim.MaxTotalSize)
		}
	}
	if isCondaLayout(names) {
		return w.condaZip(zr, names)
	}
	if kind == Conda {
		return fmt.Errorf("not a conda package: no pkg-*.tar.zst member")
	}
	for i, zf := range zr.File {
		if names[i] == "" {
			continue
		}
		if err := w.count(); err != nil {
			return err
		}
		m, err := w.zipMember(r, zf, names[i])
		if err != nil {
			return err
		}
		if err := w.call(m); err != nil {
			return err
		}
	}
	return nil
}

// zipMember describes one zip member; a symbolic link's target is read and
// checked here.
func (w *walker) zipMember(r io.ReaderAt, zf *zip.File, name string) (*Member, error) {
	m := &Member{Name: strings.TrimSuffix(name, "/"), Size: int64(zf.UncompressedSize64)}
	mode := zf.Mode()
	switch {
	case strings.HasSuffix(name, "/") || mode.IsDir():
		m.Type = Dir
		return m, nil
	case mode&fs.ModeSymlink != 0:
		m.Type = Symlink
		if zf.UncompressedSize64 > maxLinkTarget {
			return nil, refused("link %q has a %d-byte target", name, zf.UncompressedSize64)
		}
		rc, err := zf.Open()
		if err != nil {
			return nil, fmt.Errorf("link %q: %w", name, err)
		}
		target, err := io.ReadAll(io.LimitReader(rc, maxLinkTarget))
		rc.Close()
		if err != nil {
			return nil, fmt.Errorf("link %q: %w", name, err)
		}
		m.Link = string(target)
		return m, checkSymlink(name, m.Link)
	case !mode.IsRegular():
		m.Type = Other
		return m, nil
	}
	n, c := zf.UncompressedSize64, zf.CompressedSize64
	switch {
	case n > uint64(w.lim.MaxMemberSize):
		m.Err = fmt.Errorf("member is %d bytes uncompressed (limit %d)", n, w.lim.MaxMemberSize)
		return m, nil
	case n > RatioFloor && (c == 0 || n/c > uint64(w.lim.MaxRatio)):
		m.Err = fmt.Errorf("member compresses %d:1 (limit %d:1): refusing a likely zip bomb", n/max(c, 1), w.lim.MaxRatio)
		return m, nil
	}
	m.Reopen = func() (io.ReadCloser, error) {
		rc, err := zf.Open()
		if err != nil {
			return nil, fmt.Errorf("member %s: %w", name, err)
		}
		return rc, nil
	}
	m.open = m.Reopen
	if zf.Method == zip.Store && zf.Flags&0x1 == 0 && c == n {
		if off, err := zf.DataOffset(); err == nil && off >= 0 {
			m.Stored = io.NewSectionReader(r, off, int64(n))
		}
	}
	return m, nil
}

// isCondaLayout reports whether a zip's members are a conda package's: a
// metadata.json and zstd tarballs named pkg-* or info-*.
func isCondaLayout(names []string) bool {
	meta, pkg := false, false
	for _, n := range names {
		switch {
		case n == "metadata.json":
			meta = true
		case isCondaTarball(n) && strings.HasPrefix(n, "pkg-"):
			pkg = true
		}
	}
	return meta && pkg
}

func isCondaTarball(name string) bool {
	return !strings.Contains(name, "/") && (strings.HasPrefix(name, "pkg-") || strings.HasPrefix(name, "info-")) &&
		strings.HasSuffix(name, ".tar.zst")
}

// condaZip walks the inner tarballs of a .conda, info first as the
// format orders them; metadata.json and any other member are skipped.
func (w *walker) condaZip(zr *zip.Reader, names []string) error {
	for i, zf := range zr.File {
		if err := w.count(); err != nil {
			return err
		}
		if !isCondaTarball(names[i]) {
			continue
		}
		if !zf.Mode().IsRegular() {
			return fmt.Errorf("%s is not a regular member", names[i])
		}
		rc, err := zf.Open()
		if err != nil {
			return fmt.Errorf("%s: %w", names[i], err)
		}
		err = w.stream(rc, TarZst)
		rc.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", names[i], err)
		}
	}
	return nil
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
