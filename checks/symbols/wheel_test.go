package symbols_test

import (
	"archive/zip"
	"bytes"
	"debug/elf"
	"encoding/binary"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/pinbot-dev/pinbot/checks/symbols"
	"github.com/pinbot-dev/pinbot/internal/fakes"
)

// rawZip writes a zip with the given members verbatim (names unchecked) and
// returns its path.
func rawZip(t *testing.T, dir, name string, members []zipMember) string {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, m := range members {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: m.name, Method: zip.Deflate})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(m.data); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

type zipMember struct {
	name string
	data []byte
}

// TestBadInput feeds broken files and hostile wheels to Scan: each gives a
// clear error in the result, no panic, and nothing is written outside the
// temporary directory (which is empty again afterwards).
func TestBadInput(t *testing.T) {
	good := readFixture(t, "vers/libv0.so")
	many := make([]zipMember, 12)
	for i := range many {
		many[i] = zipMember{name: "pkg/f" + strings.Repeat("x", i) + ".py", data: []byte("x")}
	}
	tests := []struct {
		name    string
		file    string // a plain file, written with data
		data    []byte
		members []zipMember // or a wheel
		limits  symbols.Limits
		// wantInput is a substring of an input error; wantLib of a library
		// error.
		wantInput, wantLib string
	}{
		{name: "truncated ELF", file: "libcut.so", data: good[:len(good)/2], wantLib: "truncated ELF"},
		{name: "truncated tables", file: "libcut2.so", data: cutTables(t, good), wantLib: "truncated ELF: section"},
		{name: "ELF header only", file: "libhead.so", data: good[:80], wantLib: "truncated ELF"},
		{name: "not ELF", file: "libtext.so", data: []byte("INPUT(-lfoo)\n"), wantLib: "not an ELF file"},
		{name: "empty", file: "libempty.so", data: nil, wantLib: "not an ELF file"},
		{name: "zip bomb", members: []zipMember{{"pkg/libbomb.so", make([]byte, 8<<20)}}, wantInput: "zip bomb"},
		{name: "too many members", members: many, limits: symbols.Limits{MaxMembers: 10}, wantInput: "12 members (limit 10)"},
		{name: "parent traversal", members: []zipMember{{"../../etc/x.so", good}}, wantInput: `"../../etc/x.so" escapes the archive`},
		{name: "absolute path", members: []zipMember{{"/etc/x.so", good}}, wantInput: `"/etc/x.so" escapes the archive`},
		{name: "backslash path", members: []zipMember{{`..\..\x.so`, good}}, wantInput: "escapes the archive"},
		{name: "member too large", members: []zipMember{{"pkg/libbig.so", good}}, limits: symbols.Limits{MaxMemberSize: 1000}, wantInput: "limit 1000"},
		{name: "truncated ELF in wheel", members: []zipMember{{"pkg/libcut.so", good[:len(good)/3]}}, wantLib: "truncated ELF"},
		{name: "not a zip", file: "bad.whl", data: []byte("PK\x03\x04 but not really a zip"), wantInput: "not a readable wheel"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			tmp := t.TempDir()
			var p string
			if tt.members != nil {
				p = rawZip(t, dir, "x-1.0-py3-none-any.whl", tt.members)
			} else {
				p = filepath.Join(dir, tt.file)
				if err := os.WriteFile(p, tt.data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			r := scan(t, []string{p}, symbols.Options{Limits: tt.limits, TempDir: tmp})
			var inputs, libs []string
			for _, e := range r.Errors {
				inputs = append(inputs, e.Path+": "+e.Error)
			}
			for _, l := range r.Failed() {
				libs = append(libs, l.Path+": "+l.Error)
			}
			if tt.wantInput != "" && !strings.Contains(strings.Join(inputs, "\n"), tt.wantInput) {
				t.Errorf("input errors %q, want one containing %q", inputs, tt.wantInput)
			}
			if tt.wantLib != "" && !strings.Contains(strings.Join(libs, "\n"), tt.wantLib) {
				t.Errorf("library errors %q, want one containing %q", libs, tt.wantLib)
			}
			if v := symbols.Compare(nil, r); v.OK {
				t.Errorf("an unreadable candidate passed: %+v", v)
			}
			if left, _ := os.ReadDir(tmp); len(left) > 0 {
				t.Errorf("temporary directory not empty: %v", left)
			}
			if _, err := os.Stat(filepath.Join(dir, "..", "..", "etc", "x.so")); err == nil {
				t.Errorf("a member was written outside the archive")
			}
		})
	}
}

// TestLargeMemberUsesTempFile: a member over the in-memory limit is copied
// to the given temporary directory, scanned like any other, and removed.
func TestLargeMemberUsesTempFile(t *testing.T) {
	dir, tmp := t.TempDir(), t.TempDir()
	wheel := writeWheel(t, dir, "big-1.0-cp311-cp311-linux_x86_64.whl", map[string][]byte{
		"big/libv1.so": readFixture(t, "vers/libv1.so"),
		"big/libv0.so": readFixture(t, "vers/libv0.so"),
	})
	r := scan(t, []string{wheel}, symbols.Options{Limits: symbols.Limits{MaxInMemory: 1024}, TempDir: tmp})
	if len(r.Errors)+len(r.Failed()) > 0 {
		t.Fatalf("errors: %+v %+v", r.Errors, r.Failed())
	}
	if c := clash(r, "ver_fn", "V1"); c == nil || c.Body != symbols.BodyDifferent {
		t.Errorf("clash = %+v, want ver_fn@V1 with different bodies (read back from the temp file)", c)
	}
	if left, _ := os.ReadDir(tmp); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
	// Unset TempDir falls back to the system's; a missing one is an error
	// for that member, not a panic.
	r = scan(t, []string{wheel}, symbols.Options{Limits: symbols.Limits{MaxInMemory: 1024}, TempDir: filepath.Join(tmp, "missing")})
	if len(r.Failed()) != 2 || !strings.Contains(r.Failed()[0].Error, "temporary file") {
		t.Errorf("failed = %+v, want both members failing on the temporary file", r.Failed())
	}
}

func TestMissingPath(t *testing.T) {
	r := scan(t, []string{filepath.Join(t.TempDir(), "nope.whl")}, symbols.Options{})
	if len(r.Errors) != 1 || !strings.Contains(r.Errors[0].Error, "no such file") {
		t.Errorf("errors = %+v", r.Errors)
	}
}

// cutTables returns an ELF whose .dynstr section header claims more bytes
// than the file has, as when a file is cut and its headers patched.
func cutTables(t *testing.T, good []byte) []byte {
	f, err := elf.NewFile(bytes.NewReader(good))
	if err != nil {
		t.Fatal(err)
	}
	if f.Class != elf.ELFCLASS64 {
		t.Skip("64-bit fixture expected")
	}
	out := append([]byte(nil), good...)
	shoff := binary.LittleEndian.Uint64(good[0x28:])
	for i, s := range f.Sections {
		if s.Name == ".dynstr" {
			binary.LittleEndian.PutUint64(out[int(shoff)+64*i+32:], uint64(2*len(good)))
			return out
		}
	}
	t.Skip("fixture without .dynstr")
	return nil
}

// TestTarballMembers scans conda packages and tarballs: their shared
// objects pass once, kept in memory up to MaxInMemory in all and beyond it
// in one spool file that has no name in TempDir; clashes between them are
// judged from the kept bytes; a link to a library is that library; of a
// member given twice the last is scanned; a refused archive yields nothing.
func TestTarballMembers(t *testing.T) {
	v1, v2, v0 := readFixture(t, "vers/libv1.so"), readFixture(t, "vers/libv2.so"), readFixture(t, "vers/libv0.so")
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	members := []fakes.ArchiveMember{
		{Name: "lib/libv0.so", Data: v2}, // replaced below: the last copy counts
		{Name: "lib/libv1.so.1", Data: v1},
		{Name: "lib/libv1.so", Symlink: "libv1.so.1"},
		{Name: "lib/libv0.so", Data: v0},
	}
	conda := write("v-1.0-h0_0.conda", fakes.CondaPackage{Name: "v", Version: "1.0", Build: "h0_0", Members: members}.Bytes())
	bz2 := write("v-1.0-h0_0.tar.bz2", fakes.CondaPackage{Name: "v", Version: "1.0", Build: "h0_0", Members: members, TarBz2: true}.Bytes())
	xz := write("v2.tar.xz", fakes.Tarball("tar.xz", []fakes.ArchiveMember{{Name: "libv1.so", Data: v2}}))
	for _, target := range []string{conda, bz2} {
		tmp := t.TempDir()
		r := scan(t, []string{target}, symbols.Options{Against: []string{xz}, TempDir: tmp, Limits: symbols.Limits{MaxInMemory: int64(len(v0)) + 10}})
		if len(r.Errors)+len(r.Failed())+len(r.Warnings) > 0 {
			t.Fatalf("errors %+v %+v %+v", r.Errors, r.Failed(), r.Warnings)
		}
		var paths []string
		for _, l := range r.Libraries {
			paths = append(paths, strings.TrimPrefix(l.Path, dir+"/"))
		}
		want := []string{filepath.Base(target) + "!lib/libv0.so", filepath.Base(target) + "!lib/libv1.so.1", "v2.tar.xz!libv1.so"}
		if strings.Join(paths, " ") != strings.Join(want, " ") {
			t.Errorf("libraries %q, want %q", paths, want)
		}
		// ver_fn@V1 (libv1) and ver_fn@V2 (the against libv2) do not clash;
		// the unversioned ver_fn of libv0 clashes with both.
		if c := clash(r, "ver_fn", "V2"); c == nil || c.Body != symbols.BodyDifferent || len(c.Copies) != 2 {
			t.Errorf("%s: clash ver_fn@V2 = %+v, want libv0 against the tarball's libv2", filepath.Base(target), c)
		}
		if left, _ := os.ReadDir(tmp); len(left) > 0 {
			t.Errorf("temporary files left: %v", left)
		}
	}
	bad := write("bad.tar.gz", fakes.Tarball("tar.gz", []fakes.ArchiveMember{{Name: "lib/libv0.so", Data: v0}, {Name: "lib/x", Symlink: "/etc/passwd"}}))
	r := scan(t, []string{bad}, symbols.Options{})
	if len(r.Libraries) != 0 || len(r.Errors) != 1 || !strings.Contains(r.Errors[0].Error, "points outside the archive") {
		t.Errorf("refused archive: libraries %+v, errors %+v", r.Libraries, r.Errors)
	}
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.ReaderAt
	n atomic.Int64
}

func (c *countingReader) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.r.ReadAt(p, off)
	c.n.Add(int64(n))
	return n, err
}

// TestWheelReadsOnlyELFMembers checks that a wheel is read where it lies
// (#16): of a wheel holding 16 MB of compressed data that is no shared
// object (one member named like one), only the shared objects and the
// first bytes of the impostor are read, and nothing is written to disk.
func TestWheelReadsOnlyELFMembers(t *testing.T) {
	lib := readFixture(t, "bodies/liba.so")
	noise := make([]byte, 8<<20)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < len(noise); i += 8 {
		binary.LittleEndian.PutUint64(noise[i:], rng.Uint64())
	}
	dir := t.TempDir()
	whl := writeWheel(t, dir, "big-1.0-cp311-cp311-linux_x86_64.whl", map[string][]byte{
		"big/data.bin":   noise, // not named like a shared object: never read
		"big/libfake.so": noise, // named like one, not ELF: its head only
		"big/liba.so":    lib,
	})
	var c *countingReader
	restore := symbols.SetArchiveReader(func(r io.ReaderAt) io.ReaderAt {
		c = &countingReader{r: r}
		return c
	})
	defer restore()
	tmp := t.TempDir()
	r := scan(t, []string{whl}, symbols.Options{TempDir: tmp})
	if len(r.Libraries) != 1 || !strings.HasSuffix(r.Libraries[0].Path, "!big/liba.so") || r.Libraries[0].Error != "" {
		t.Fatalf("libraries = %+v, want big/liba.so alone", r.Libraries)
	}
	// The central directory, liba.so (decompressed once to parse it) and
	// the impostor's first deflate block.
	if limit := int64(len(lib)) + 1<<20; c.n.Load() > limit {
		t.Errorf("read %d bytes of the wheel, want at most %d: members that are no shared object were read", c.n.Load(), limit)
	}
	if left, _ := os.ReadDir(tmp); len(left) > 0 {
		t.Errorf("files left in the temporary directory: %v", left)
	}
	t.Logf("read %d bytes of a %d-byte wheel", c.n.Load(), fileSize(t, whl))
}

func fileSize(t *testing.T, p string) int64 {
	st, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return st.Size()
}
