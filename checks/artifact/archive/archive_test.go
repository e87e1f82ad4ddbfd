package archive_test

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pinbot-dev/pinbot/checks/artifact/archive"
	"github.com/pinbot-dev/pinbot/internal/fakes"
)

// seen is what a walk met: each member as "type name" (with "-> link" or
// "= content"), in order.
func walk(t *testing.T, data []byte, kind archive.Kind, lim archive.Limits) ([]string, error) {
	t.Helper()
	var got []string
	err := archive.Walk(bytes.NewReader(data), int64(len(data)), kind, lim, func(m *archive.Member) error {
		switch m.Type {
		case archive.Regular:
			if m.Err != nil {
				got = append(got, "refused "+m.Name+": "+m.Err.Error())
				return nil
			}
			b, err := io.ReadAll(m)
			if err != nil {
				return err
			}
			if int64(len(b)) != m.Size {
				t.Errorf("%s: read %d bytes, size %d", m.Name, len(b), m.Size)
			}
			got = append(got, "file "+m.Name+" = "+string(b))
		case archive.Dir:
			got = append(got, "dir "+m.Name)
		case archive.Symlink:
			got = append(got, "symlink "+m.Name+" -> "+m.Link)
		case archive.Hardlink:
			got = append(got, "hardlink "+m.Name+" -> "+m.Link)
		default:
			got = append(got, "other "+m.Name)
		}
		return nil
	})
	return got, err
}

var members = []fakes.ArchiveMember{
	{Name: "lib", Dir: true},
	{Name: "lib/libx.so.1.2", Data: []byte("\x7fELF a library")},
	{Name: "lib/libx.so.1", Symlink: "libx.so.1.2"},
	{Name: "lib/python3.12/site-packages/x/__init__.py", Data: []byte("VERSION = 1\n")},
	{Name: "./share/doc.txt", Data: []byte("docs")},
}

// TestWalkKinds walks each kind built from the same members: every member
// arrives, in order, with its type, link target and content; "./" is
// dropped from names.
func TestWalkKinds(t *testing.T) {
	want := []string{
		"dir lib", "file lib/libx.so.1.2 = \x7fELF a library", "symlink lib/libx.so.1 -> libx.so.1.2",
		"file lib/python3.12/site-packages/x/__init__.py = VERSION = 1\n", "file share/doc.txt = docs",
	}
	for _, kind := range []archive.Kind{archive.Tar, archive.TarGz, archive.TarBz2, archive.TarXz, archive.TarZst} {
		t.Run(string(kind), func(t *testing.T) {
			data := fakes.Tarball(string(kind), members)
			if got := archive.Sniff(data); got != kind {
				t.Errorf("Sniff = %q", got)
			}
			got, err := walk(t, data, kind, archive.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("members (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("conda", func(t *testing.T) {
		pkg := fakes.CondaPackage{Name: "x", Version: "1.0", Build: "h1_0", Members: members}
		data := pkg.Bytes()
		if archive.Detect(pkg.Filename(), data) != archive.Conda || archive.Sniff(data) != archive.Zip {
			t.Errorf("Detect = %q, Sniff = %q", archive.Detect(pkg.Filename(), data), archive.Sniff(data))
		}
		// A .conda named as a plain zip is still walked as one.
		for _, kind := range []archive.Kind{archive.Conda, archive.Zip} {
			got, err := walk(t, data, kind, archive.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			info := slices.IndexFunc(got, func(s string) bool { return strings.HasPrefix(s, "file info/index.json = ") })
			if info < 0 || !strings.Contains(got[info], `"name": "x"`) {
				t.Errorf("%s: no info/index.json in %q", kind, got)
			}
			if diff := cmp.Diff(want, got[3:]); diff != "" {
				t.Errorf("%s: members (-want +got):\n%s", kind, diff)
			}
		}
	})
	t.Run("tar.bz2 conda", func(t *testing.T) {
		pkg := fakes.CondaPackage{Name: "x", Version: "1.0", Build: "h1_0", Members: members, TarBz2: true}
		got, err := walk(t, pkg.Bytes(), archive.Detect(pkg.Filename(), nil), archive.Limits{})
		if err != nil || len(got) != 8 || got[0] != "file info/index.json = "+got[0][len("file info/index.json = "):] {
			t.Errorf("walk = %q, %v", got, err)
		}
	})
	t.Run("zip", func(t *testing.T) {
		data := zipOf(t, map[string][]byte{"pkg/libx.so": []byte("\x7fELF"), "pkg/__init__.py": nil}, zip.Store)
		got, err := walk(t, data, archive.Zip, archive.Limits{})
		want := []string{"file pkg/__init__.py = ", "file pkg/libx.so = \x7fELF"}
		if err != nil || !cmp.Equal(want, got) {
			t.Errorf("walk = %q, %v", got, err)
		}
	})
}

// zipOf builds a zip of files, sorted by name, with the given method.
func zipOf(t *testing.T, files map[string][]byte, method uint16) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: n, Method: method})
		if err != nil {
			t.Fatal(err)
		}
		w.Write(files[n])
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestZipInPlace: a stored zip member is read where it lies, and any member
// can be opened again after the walk.
func TestZipInPlace(t *testing.T) {
	for _, method := range []uint16{zip.Store, zip.Deflate} {
		data := zipOf(t, map[string][]byte{"lib/liba.so": []byte("\x7fELF stored or deflated")}, method)
		var kept *archive.Member
		err := archive.Walk(bytes.NewReader(data), int64(len(data)), archive.Zip, archive.Limits{}, func(m *archive.Member) error {
			kept = m
			return nil
		})
		if err != nil || kept == nil {
			t.Fatal(err)
		}
		if (kept.Stored != nil) != (method == zip.Store) {
			t.Errorf("method %d: Stored = %v", method, kept.Stored)
		}
		if kept.Stored != nil {
			b := make([]byte, kept.Size)
			if _, err := kept.Stored.ReadAt(b, 0); err != nil || string(b) != "\x7fELF stored or deflated" {
				t.Errorf("Stored read %q, %v", b, err)
			}
		}
		rc, err := kept.Reopen()
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil || string(b) != "\x7fELF stored or deflated" {
			t.Errorf("method %d: Reopen read %q, %v", method, b, err)
		}
	}
}

// TestHostile: every kind refuses names and links that leave the archive,
// too many members, too many bytes and bombs; a member over the size limit
// is refused alone.
func TestHostile(t *testing.T) {
	lib := []byte("\x7fELF")
	tests := []struct {
		name    string
		members []fakes.ArchiveMember
		lim     archive.Limits
		want    string // in Walk's error; "" means no error
		member  string // in the walk's output
	}{
		{name: "parent", members: []fakes.ArchiveMember{{Name: "../../etc/x.so", Data: lib}}, want: `"../../etc/x.so" escapes the archive`},
		{name: "inner parent", members: []fakes.ArchiveMember{{Name: "lib/../../x.so", Data: lib}}, want: "escapes the archive"},
		{name: "absolute", members: []fakes.ArchiveMember{{Name: "/etc/x.so", Data: lib}}, want: `"/etc/x.so" escapes the archive`},
		{name: "backslash", members: []fakes.ArchiveMember{{Name: `..\x.so`, Data: lib}}, want: "escapes the archive"},
		{name: "symlink out", members: []fakes.ArchiveMember{{Name: "lib/libc.so", Symlink: "../../../usr/lib/libc.so"}}, want: `link "lib/libc.so" points outside the archive`},
		{name: "absolute symlink", members: []fakes.ArchiveMember{{Name: "lib/libc.so", Symlink: "/usr/lib/libc.so"}}, want: "points outside the archive"},
		{name: "hardlink out", members: []fakes.ArchiveMember{{Name: "lib/x.so", Hardlink: "../x.so"}}, want: `hard link "lib/x.so" points outside the archive`},
		{name: "symlink inside", members: []fakes.ArchiveMember{{Name: "lib/a/libc.so", Symlink: "../libc.so.6"}, {Name: "lib/libc.so.6", Data: lib}},
			member: "symlink lib/a/libc.so -> ../libc.so.6"},
		{name: "too many", members: []fakes.ArchiveMember{{Name: "a", Data: lib}, {Name: "b", Data: lib}, {Name: "c", Data: lib}},
			lim: archive.Limits{MaxMembers: 2}, want: "members (limit 2)"},
		{name: "member too large", members: []fakes.ArchiveMember{{Name: "big.so", Data: make([]byte, 5000)}, {Name: "ok.so", Data: lib}},
			lim: archive.Limits{MaxMemberSize: 1000}, member: "refused big.so: member is 5000 bytes uncompressed (limit 1000)"},
		{name: "total", members: []fakes.ArchiveMember{{Name: "a.so", Data: bytes.Repeat([]byte("abcdefgh"), 1000)}},
			lim: archive.Limits{MaxTotalSize: 4096}, want: "inflates to more than 4096 bytes"},
		{name: "bomb", members: []fakes.ArchiveMember{{Name: "zeros.so", Data: make([]byte, 8<<20)}}, want: "decompression bomb"},
	}
	for _, tt := range tests {
		for _, kind := range []archive.Kind{archive.TarGz, archive.TarBz2, archive.TarXz, archive.TarZst, archive.Conda} {
			t.Run(tt.name+"/"+string(kind), func(t *testing.T) {
				var data []byte
				if kind == archive.Conda {
					data = fakes.CondaPackage{Name: "x", Version: "1", Build: "0", Members: tt.members}.Bytes()
				} else {
					data = fakes.Tarball(string(kind), tt.members)
				}
				if tt.name == "bomb" && kind == archive.TarBz2 {
					t.Skip("bzip2 caps its own ratio (run-length encoding before compression)")
				}
				got, err := walk(t, data, kind, tt.lim)
				switch {
				case tt.want == "" && err != nil:
					t.Errorf("error %v", err)
				case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
					t.Errorf("error %v, want one containing %q", err, tt.want)
				case tt.want != "" && !errors.Is(err, archive.ErrRefused):
					t.Errorf("error %v does not wrap ErrRefused", err)
				}
				if tt.member != "" && !slices.Contains(got, tt.member) {
					t.Errorf("members %q, want %q among them", got, tt.member)
				}
			})
		}
	}
}

// TestZipHostile: a zip refuses escaping names and links, more members than
// the end record allows, and too many bytes; a bomb member and a member over
// the size limit are refused alone.
func TestZipHostile(t *testing.T) {
	rawZip := func(entries ...func(zw *zip.Writer)) []byte {
		var buf bytes.Buffer
		zw := zip.NewWriter(&buf)
		for _, e := range entries {
			e(zw)
		}
		zw.Close()
		return buf.Bytes()
	}
	file := func(name string, data []byte) func(*zip.Writer) {
		return func(zw *zip.Writer) {
			w, _ := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Deflate})
			w.Write(data)
		}
	}
	link := func(name, target string) func(*zip.Writer) {
		return func(zw *zip.Writer) {
			h := &zip.FileHeader{Name: name, Method: zip.Store}
			h.SetMode(os.ModeSymlink | 0o777)
			w, _ := zw.CreateHeader(h)
			w.Write([]byte(target))
		}
	}
	tests := []struct {
		name   string
		data   []byte
		lim    archive.Limits
		want   string
		member string
	}{
		{name: "parent", data: rawZip(file("../x.so", []byte("x"))), want: `"../x.so" escapes`},
		{name: "symlink out", data: rawZip(link("pkg/x.so", "../../x.so")), want: "points outside the archive"},
		{name: "symlink in", data: rawZip(link("pkg/x.so", "libx.so.1"), file("pkg/libx.so.1", []byte("\x7fELF"))), member: "symlink pkg/x.so -> libx.so.1"},
		{name: "members", data: rawZip(file("a", nil), file("b", nil), file("c", nil)), lim: archive.Limits{MaxMembers: 2}, want: "3 members (limit 2)"},
		{name: "total", data: rawZip(file("a", make([]byte, 3000)), file("b", make([]byte, 3000))), lim: archive.Limits{MaxTotalSize: 5000}, want: "more than 5000 bytes"},
		{name: "bomb", data: rawZip(file("pkg/libbomb.so", make([]byte, 8<<20))), member: "refused pkg/libbomb.so: member compresses"},
		{name: "large", data: rawZip(file("pkg/big.so", make([]byte, 2000))), lim: archive.Limits{MaxMemberSize: 1000}, member: "refused pkg/big.so: member is 2000 bytes uncompressed (limit 1000)"},
		{name: "not a zip", data: []byte("PK\x03\x04 but not really a zip"), want: "not a readable wheel (zip)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := walk(t, tt.data, archive.Zip, tt.lim)
			if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
				t.Errorf("error %v, want %q", err, tt.want)
			}
			if tt.member != "" && !strings.Contains(strings.Join(got, "\n"), tt.member) {
				t.Errorf("members %q, want %q among them", got, tt.member)
			}
		})
	}
	// A zip that is no conda package is not walked as one.
	if _, err := walk(t, rawZip(file("a.txt", nil)), archive.Conda, archive.Limits{}); err == nil || !strings.Contains(err.Error(), "not a conda package") {
		t.Errorf("plain zip as conda: %v", err)
	}
}

// TestXZDictionary: an xz stream whose block asks for a dictionary larger
// than MaxXZDict is refused before decoding; so are broken containers.
func TestXZDictionary(t *testing.T) {
	good := fakes.Tarball("tar.xz", members)
	if _, err := walk(t, good, archive.TarXz, archive.Limits{}); err != nil {
		t.Fatal(err)
	}
	// The first block header follows the 12-byte stream header: its size
	// byte, flags, then the LZMA2 filter (id 0x21, 1 byte of properties).
	big := slices.Clone(good)
	size := (int(big[12]) + 1) * 4
	h := big[12 : 12+size]
	i := bytes.Index(h, []byte{0x21, 0x01})
	if i < 0 {
		t.Fatalf("no LZMA2 filter in the block header % x", h)
	}
	h[i+2] = 36 // 1.5 GiB... well, 2^(36/2+12) = 1 GiB
	binary.LittleEndian.PutUint32(h[size-4:], crc32.ChecksumIEEE(h[:size-4]))
	_, err := walk(t, big, archive.TarXz, archive.Limits{})
	if err == nil || !strings.Contains(err.Error(), "dictionary") || !errors.Is(err, archive.ErrRefused) {
		t.Errorf("huge dictionary: %v", err)
	}
	for name, data := range map[string][]byte{
		"truncated":  good[:len(good)-7],
		"no footer":  append(slices.Clone(good[:len(good)-2]), 'X', 'X'),
		"bad header": append([]byte{0xfd, '7', 'z', 'X', 'Z', 0, 0, 9}, good[8:]...),
	} {
		if _, err := walk(t, data, archive.TarXz, archive.Limits{}); err == nil || !strings.Contains(err.Error(), "xz") {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestTruncated: a cut stream of any kind is an error, never a panic or a
// silent short walk.
func TestTruncated(t *testing.T) {
	for _, kind := range []archive.Kind{archive.TarGz, archive.TarBz2, archive.TarZst, archive.Tar} {
		data := fakes.Tarball(string(kind), members)
		if _, err := walk(t, data[:len(data)*2/3], kind, archive.Limits{}); err == nil {
			t.Errorf("%s: a truncated stream walked without error", kind)
		}
	}
	pkg := fakes.CondaPackage{Name: "x", Version: "1", Build: "0", Members: members}.Bytes()
	if _, err := walk(t, pkg[:len(pkg)-30], archive.Conda, archive.Limits{}); err == nil {
		t.Error("a truncated .conda walked without error")
	}
}

// TestRealTools walks tarballs made by tar with gzip, bzip2, xz and zstd,
// as distributions and conda-build make them.
func TestRealTools(t *testing.T) {
	tarBin, err := exec.LookPath("tar")
	if err != nil {
		t.Skip("no tar")
	}
	src := t.TempDir()
	os.MkdirAll(filepath.Join(src, "lib"), 0o755)
	os.WriteFile(filepath.Join(src, "lib", "libx.so.1.2"), []byte("\x7fELF real"), 0o644)
	os.Symlink("libx.so.1.2", filepath.Join(src, "lib", "libx.so.1"))
	for kind, flag := range map[archive.Kind]string{archive.TarGz: "-z", archive.TarBz2: "-j", archive.TarXz: "-J", archive.TarZst: "--zstd"} {
		out := filepath.Join(t.TempDir(), "x."+string(kind))
		if b, err := exec.Command(tarBin, "-c", flag, "-f", out, "-C", src, "lib").CombinedOutput(); err != nil {
			if os.Getenv("PINBOT_INTEGRATION") != "" {
				t.Fatalf("%s: %v\n%s", kind, err, b)
			}
			t.Logf("%s: %v (compressor missing?)", kind, err)
			continue
		}
		data, _ := os.ReadFile(out)
		got, err := walk(t, data, archive.Detect(out, data), archive.Limits{})
		if err != nil || !slices.Contains(got, "file lib/libx.so.1.2 = \x7fELF real") || !slices.Contains(got, "symlink lib/libx.so.1 -> libx.so.1.2") {
			t.Errorf("%s: %q, %v", kind, got, err)
		}
	}
}

// TestSpool: members stay in memory up to MaxMemory in all, then go to one
// file that has no name in the directory; short and long members fail.
func TestSpool(t *testing.T) {
	dir := t.TempDir()
	s := &archive.Spool{Dir: dir, MaxMemory: 10}
	var rs []io.ReaderAt
	for _, content := range []string{"12345678", "abcdefgh", "ABCDEFGH"} {
		r, err := s.Keep(strings.NewReader(content), int64(len(content)))
		if err != nil {
			t.Fatal(err)
		}
		rs = append(rs, r)
	}
	if _, ok := rs[0].(*bytes.Reader); !ok {
		t.Errorf("first member not in memory: %T", rs[0])
	}
	if _, ok := rs[1].(*io.SectionReader); !ok {
		t.Errorf("second member not in the file: %T", rs[1])
	}
	for i, want := range []string{"12345678", "abcdefgh", "ABCDEFGH"} {
		b := make([]byte, 3)
		if _, err := rs[i].ReadAt(b, 2); err != nil || string(b) != want[2:5] {
			t.Errorf("member %d: %q, %v", i, b, err)
		}
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("the spool file has a name in the directory: %v", left)
	}
	if _, err := s.Keep(strings.NewReader("short"), 9); err == nil {
		t.Error("a short member was kept")
	}
	if _, err := s.Keep(strings.NewReader("longer than said"), 4); err == nil {
		t.Error("a long member was kept")
	}
	if _, err := s.KeepFile(strings.NewReader("longer than said"), 4); err == nil {
		t.Error("a long member was kept in the file")
	}
	r, err := s.KeepFile(strings.NewReader("after"), 5)
	if err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 5)
	if _, err := r.ReadAt(b, 0); err != nil || string(b) != "after" {
		t.Errorf("after a failed member: %q, %v", b, err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := rs[2].ReadAt(b, 0); err == nil {
		t.Error("a reader worked after Close")
	}
	missing := &archive.Spool{Dir: filepath.Join(dir, "missing")}
	if _, err := missing.Keep(strings.NewReader("x"), 1); err == nil || !strings.Contains(err.Error(), "temporary file") {
		t.Errorf("missing directory: %v", err)
	}
}

// TestSitePackages: a conda package's Python files are laid out as in a
// wheel; compiled modules are listed; a package with no Python module says
// so.
func TestSitePackages(t *testing.T) {
	for _, tt := range []struct {
		name, prefix string
		tarBz2       bool
	}{{"linux", "lib/python3.12/site-packages/", false}, {"noarch", "site-packages/", true}, {"windows", "Lib/site-packages/", false}} {
		pkg := fakes.CondaPackage{Name: "x", Version: "1", Build: "0", TarBz2: tt.tarBz2, Members: []fakes.ArchiveMember{
			{Name: tt.prefix + "x/__init__.py", Data: []byte("from .core import f\n")},
			{Name: tt.prefix + "x/core.py", Data: []byte("def f(): pass\n")},
			{Name: tt.prefix + "x/_ext.cpython-312-x86_64-linux-gnu.so", Data: []byte("\x7fELF")},
			{Name: tt.prefix + "x-1.dist-info/METADATA", Data: []byte("Name: x\n")},
			{Name: "lib/libx.so", Data: []byte("\x7fELF")},
		}}
		data := pkg.Bytes()
		py, err := archive.SitePackages(bytes.NewReader(data), int64(len(data)), archive.Detect(pkg.Filename(), data), archive.Limits{})
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if py.Prefix != tt.prefix || py.Files != 2 {
			t.Errorf("%s: prefix %q, %d files", tt.name, py.Prefix, py.Files)
		}
		zr, err := zip.NewReader(bytes.NewReader(py.Zip), int64(len(py.Zip)))
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, f := range zr.File {
			names = append(names, f.Name)
		}
		if want := []string{"x/__init__.py", "x/core.py", "x/_ext.cpython-312-x86_64-linux-gnu.so"}; !cmp.Equal(want, names) {
			t.Errorf("%s: zip holds %q, want %q", tt.name, names, want)
		}
	}
	pkg := fakes.CondaPackage{Name: "libx", Version: "1", Build: "0", Members: []fakes.ArchiveMember{{Name: "lib/libx.so", Data: []byte("\x7fELF")}}}.Bytes()
	if _, err := archive.SitePackages(bytes.NewReader(pkg), int64(len(pkg)), archive.Conda, archive.Limits{}); err == nil || !strings.Contains(err.Error(), "no Python module") {
		t.Errorf("C library: %v", err)
	}
}
