package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
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
