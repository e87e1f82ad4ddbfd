package main

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pinbot-dev/pinbot/internal/fakes"
)

// debianFile returns the first file of a Debian package whose path contains
// sub; without the package the test skips, or fails under PINBOT_INTEGRATION.
func debianFile(t *testing.T, pkg, sub string) string {
	t.Helper()
	out, err := exec.Command("dpkg", "-L", pkg).Output()
	if err == nil {
		for _, f := range strings.Split(string(out), "\n") {
			if info, err := os.Lstat(f); err == nil && info.Mode().IsRegular() && strings.Contains(filepath.Base(f), sub) {
				return f
			}
		}
	}
	if os.Getenv("PINBOT_INTEGRATION") != "" {
		t.Fatalf("Debian package %s (a file named *%s*) is not installed", pkg, sub)
	}
	t.Skipf("Debian package %s is not installed", pkg)
	return ""
}

// TestScanDebianProtobuf scans Debian's real python3-protobuf extension against
// libprotobuf: the extension exports google::protobuf symbols, and
// MapIterator's destructor is defined by both with different sizes.
func TestScanDebianProtobuf(t *testing.T) {
	message := debianFile(t, "python3-protobuf", "_message.cpython")
	lib := debianFile(t, "libprotobuf32", "libprotobuf.so.32")
	e := newEnv(t)
	code, out, stderr := e.run("scan", "--forbid", "google::protobuf::*", "--against", lib, "--format", "json", message)
	if code != exitCheck {
		t.Fatalf("exit %d, want 3\n%s", code, stderr)
	}
	var r struct {
		Forbidden []struct {
			Library string `json:"library"`
			Exports int    `json:"exports"`
		} `json:"forbidden"`
		Clashes []struct {
			Demangled string `json:"demangled"`
			Body      string `json:"body"`
			Copies    []struct {
				Library string `json:"library"`
				Size    int    `json:"size"`
			} `json:"copies"`
		} `json:"clashes"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Forbidden) != 1 || r.Forbidden[0].Library != message || r.Forbidden[0].Exports < 200 {
		t.Errorf("forbidden = %+v, want _message exporting google::protobuf symbols", r.Forbidden)
	}
	found := false
	for _, c := range r.Clashes {
		if c.Demangled == "google::protobuf::MapIterator::~MapIterator()" && c.Body == "different" && len(c.Copies) == 2 {
			sizes := map[string]int{c.Copies[0].Library: c.Copies[0].Size, c.Copies[1].Library: c.Copies[1].Size}
			found = sizes[message] == 51 && sizes[lib] == 59
		}
	}
	if !found {
		t.Errorf("no MapIterator::~MapIterator() clash with sizes 51 and 59 in:\n%s", out)
	}
}

func TestScanBadInput(t *testing.T) {
	e := newEnv(t)
	notELF := e.file("lib/fake.so", []byte("#!/bin/sh\necho not an ELF file\n"))
	code, out, stderr := e.run("scan", "--forbid", "llvm::*", notELF)
	if code != exitFailure || !strings.Contains(out+stderr, "fake.so") {
		t.Errorf("non-ELF .so: exit %d\n%s\n%s", code, out, stderr)
	}
	for _, args := range [][]string{
		{"scan"},
		{"scan", "--forbid", "google::[", notELF},
		{"scan", "--preset", "no-such-preset", notELF},
		{"scan", "--format", "xml", notELF},
	} {
		if code, _, stderr := e.run(args...); code != exitUsage || stderr == "" {
			t.Errorf("%v: exit %d (%s), want 2", args, code, stderr)
		}
	}
}

// archiveKinds builds one archive of each kind users install from, holding
// lib at lib/libtensorflow.so.2 (with a symbolic link libtensorflow.so to
// it where the format has links), a linker script named like a library, and
// a Python file; it returns the files by name.
func archiveKinds(t *testing.T, dir string, lib []byte) map[string]string {
	t.Helper()
	members := []fakes.ArchiveMember{
		{Name: "lib/libtensorflow.so.2", Data: lib},
		{Name: "lib/libtensorflow.so", Symlink: "libtensorflow.so.2"},
		{Name: "lib/libc_nonshared.so", Data: []byte("/* GNU ld script */\nINPUT(-lc)\n")},
		{Name: "lib/python3.12/site-packages/tf/__init__.py", Data: []byte("VERSION = '2.20.0'\n")},
	}
	files := map[string][]byte{
		"tensorflow-2.20.0.tar.gz":  fakes.Tarball("tar.gz", members),
		"tensorflow-2.20.0.tgz":     fakes.Tarball("tar.gz", members),
		"tensorflow-2.20.0.tar.xz":  fakes.Tarball("tar.xz", members),
		"tensorflow-2.20.0.tar.zst": fakes.Tarball("tar.zst", members),
		"tensorflow-2.20.0.tar":     fakes.Tarball("tar", members),
	}
	for _, bz2 := range []bool{false, true} {
		p := fakes.CondaPackage{Name: "libtensorflow", Version: "2.20.0", Build: "cpu_h1234_0", Members: members, TarBz2: bz2}
		files[p.Filename()] = p.Bytes()
	}
	whl, data := fakes.Wheel("tensorflow", "2.20.0", "cp312-cp312-manylinux_2_17_x86_64", map[string][]byte{
		"lib/libtensorflow.so.2": lib, "lib/libc_nonshared.so": []byte("INPUT(-lc)\n"),
	})
	files[whl] = data
	var zipped bytes.Buffer
	zw := zip.NewWriter(&zipped)
	w, _ := zw.CreateHeader(&zip.FileHeader{Name: "lib/libtensorflow.so.2", Method: zip.Store})
	w.Write(lib)
	zw.Close()
	files["libtensorflow-cpu-linux-x86_64.zip"] = zipped.Bytes()
	out := map[string]string{}
	for name, b := range files {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		out[name] = p
	}
	return out
}

// TestScanArchiveKinds scans a library compiled here from every archive kind
// pinbot reads: each yields the one ELF library (the link to it and the
// linker script named like a library are not libraries), whose exported
// google::protobuf symbol is forbidden (exit 3); the same library built
// with hidden visibility passes (exit 0).
func TestScanArchiveKinds(t *testing.T) {
	exported, hidden := tfLibrary(t, false), tfLibrary(t, true)
	e := newEnv(t)
	for name, p := range archiveKinds(t, t.TempDir(), exported) {
		t.Run(name, func(t *testing.T) {
			code, out, stderr := e.run("scan", "--forbid", "google::protobuf::*", "--format", "json", p)
			if code != exitCheck {
				t.Fatalf("exit %d, want 3\n%s\n%s", code, out, stderr)
			}
			var r struct {
				Libraries []struct{ Path, Key, Error string }
				Forbidden []struct {
					Library string
					Exports int
				}
				Warnings []struct{ Path, Warning string }
			}
			if err := json.Unmarshal([]byte(out), &r); err != nil {
				t.Fatal(err)
			}
			if len(r.Libraries) != 1 || r.Libraries[0].Path != p+"!lib/libtensorflow.so.2" || r.Libraries[0].Key != "lib/libtensorflow.so" || r.Libraries[0].Error != "" {
				t.Errorf("libraries = %+v, want lib/libtensorflow.so.2 alone", r.Libraries)
			}
			if len(r.Forbidden) != 1 || r.Forbidden[0].Exports != 1 || len(r.Warnings) != 0 {
				t.Errorf("forbidden = %+v, warnings %+v", r.Forbidden, r.Warnings)
			}
		})
	}
	for name, p := range archiveKinds(t, t.TempDir(), hidden) {
		if code, out, stderr := e.run("scan", "--forbid", "google::protobuf::*", p); code != 0 || !strings.Contains(out, "1 library") {
			t.Errorf("%s, hidden: exit %d\n%s\n%s", name, code, out, stderr)
		}
	}
}

// TestScanNothingToScan: an archive that holds no ELF shared object (a pure
// Python wheel, a conda metapackage) is a warning, in the text, on stderr
// and in the exit code (4), never a silent pass; an archive whose member
// leaves it is an input error (exit 1).
func TestScanNothingToScan(t *testing.T) {
	e := newEnv(t)
	dir := t.TempDir()
	whl, data := fakes.Wheel("numba", "0.67.0", "py3-none-any", map[string][]byte{"numba/__init__.py": nil})
	pure := filepath.Join(dir, whl)
	os.WriteFile(pure, data, 0o644)
	meta := fakes.CondaPackage{Name: "tensorflow", Version: "2.18.0", Build: "cpu_py312h0_0", Depends: []string{"tensorflow-base 2.18.0 cpu_py312h0_0"}}
	metaPath := filepath.Join(dir, meta.Filename())
	os.WriteFile(metaPath, meta.Bytes(), 0o644)
	for _, p := range []string{pure, metaPath} {
		code, out, stderr := e.run("scan", "--forbid", "google::protobuf::*", p)
		if code != exitEmpty || !strings.Contains(out, "holds no ELF shared object") || !strings.Contains(out, "not checked") ||
			strings.Contains(out, ": none") || !strings.Contains(stderr, "nothing was checked") {
			t.Errorf("%s: exit %d, want 4\n%s\n%s", filepath.Base(p), code, out, stderr)
		}
		code, out, _ = e.run("scan", "--format", "json", p)
		if code != exitEmpty || !strings.Contains(out, `"warning": "the `) {
			t.Errorf("%s json: exit %d\n%s", filepath.Base(p), code, out)
		}
	}
	bad := filepath.Join(dir, "escape.tar.gz")
	os.WriteFile(bad, fakes.Tarball("tar.gz", []fakes.ArchiveMember{{Name: "../../x.so", Data: []byte("\x7fELF")}}), 0o644)
	if code, out, stderr := e.run("scan", bad); code != exitFailure || !strings.Contains(out, "escapes the archive") {
		t.Errorf("escaping member: exit %d\n%s\n%s", code, out, stderr)
	}
}
