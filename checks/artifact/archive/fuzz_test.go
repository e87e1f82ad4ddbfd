package archive_test

import (
	"bytes"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pinbot-dev/pinbot/checks/artifact/archive"
)

// fuzzLimits are small, so the fuzzer reaches them.
var fuzzLimits = archive.Limits{MaxMembers: 200, MaxMemberSize: 1 << 20, MaxTotalSize: 4 << 20, MaxRatio: 200}

// fuzzWalk walks data as kind and checks what any archive, however hostile,
// must give: no panic; member names inside the archive; links whose
// targets stay inside it; no member read past its size or the limits; and,
// for a conda package, SitePackages answering without panic.
func fuzzWalk(t *testing.T, data []byte, kind archive.Kind) {
	var total int64
	members := 0
	err := archive.Walk(bytes.NewReader(data), int64(len(data)), kind, fuzzLimits, func(m *archive.Member) error {
		members++
		if m.Name == "" || strings.HasPrefix(m.Name, "/") || strings.HasPrefix(m.Name, "./") || !filepath.IsLocal(m.Name) ||
			strings.Contains(m.Name, "\\") || strings.Contains("/"+m.Name+"/", "/../") {
			t.Errorf("member name %q is not inside the archive", m.Name)
		}
		switch m.Type {
		case archive.Symlink:
			if strings.HasPrefix(m.Link, "/") || strings.HasPrefix(filepath.ToSlash(filepath.Join(filepath.Dir(m.Name), m.Link)), "../") {
				t.Errorf("link %q -> %q leaves the archive", m.Name, m.Link)
			}
		case archive.Regular:
			if m.Err != nil {
				return nil
			}
			if m.Size > fuzzLimits.MaxMemberSize {
				t.Errorf("member %q of %d bytes offered past the limit", m.Name, m.Size)
			}
			n, err := io.Copy(io.Discard, m)
			total += n
			if n > m.Size {
				t.Errorf("member %q yielded %d bytes, its size is %d", m.Name, n, m.Size)
			}
			if err != nil {
				return err
			}
		}
		return nil
	})
	if members > fuzzLimits.MaxMembers {
		t.Errorf("%d members walked past the limit", members)
	}
	if total > fuzzLimits.MaxTotalSize {
		t.Errorf("%d bytes read past the limit", total)
	}
	_ = err // hostile input may well be an error; it must not be a panic
	if kind == archive.Conda || kind == archive.TarBz2 {
		archive.SitePackages(bytes.NewReader(data), int64(len(data)), kind, fuzzLimits)
	}
}

// FuzzConda walks .conda packages: the outer zip, its member names and the
// zstd tarballs inside. Seeds (testdata/fuzz/FuzzConda): a package with a
// library, a link and Python files; one whose member escapes; truncated.
func FuzzConda(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) { fuzzWalk(t, data, archive.Conda) })
}

// FuzzTarBz2 walks bzip2 tarballs (classic conda packages). Seeds: a conda
// package, an escaping link, a truncated stream.
func FuzzTarBz2(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) { fuzzWalk(t, data, archive.TarBz2) })
}

// FuzzTarGz walks gzip tarballs (C/C++ distributions). Seeds: a library
// with links, a hard link out, a truncated stream.
func FuzzTarGz(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) { fuzzWalk(t, data, archive.TarGz) })
}

// FuzzTarXz walks xz tarballs, container checks first. Seeds: a library
// with links, a block asking for a huge dictionary, a truncated stream.
func FuzzTarXz(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) { fuzzWalk(t, data, archive.TarXz) })
}

// FuzzTarZst walks zstd tarballs. Seeds: a library with links, an escaping
// name, a truncated stream.
func FuzzTarZst(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) { fuzzWalk(t, data, archive.TarZst) })
}

// FuzzZip walks zips (wheels) with links. Seeds: a wheel-like zip with a
// stored and a deflated member and a symbolic link; an escaping member.
func FuzzZip(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) { fuzzWalk(t, data, archive.Zip) })
}
