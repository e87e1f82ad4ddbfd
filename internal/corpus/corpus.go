// Package corpus gives tests the corpus of real pin files: verbatim copies of
// public projects' files (testdata/pinfiles, whose INDEX.md lists each watched
// pin with its line), kept in the repository so the tests run anywhere.
package corpus

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// Dir returns the corpus directory.
func Dir(t testing.TB) string {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("cannot locate the corpus package")
	}
	return filepath.Join(filepath.Dir(file), "testdata", "pinfiles")
}

// Read returns the bytes of a corpus file.
func Read(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(Dir(t), name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Files returns the names of the corpus files (INDEX.md excluded).
func Files(t testing.TB) []string {
	t.Helper()
	entries, err := os.ReadDir(Dir(t))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		if e.Name() != "INDEX.md" {
			names = append(names, e.Name())
		}
	}
	return names
}
