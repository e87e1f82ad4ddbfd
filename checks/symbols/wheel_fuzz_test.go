package symbols_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pinbot-dev/pinbot/checks/symbols"
)

// FuzzReadWheel feeds arbitrary bytes to the scan as a wheel: the zip reader
// (end record, central directory, member names, sizes, compression ratios),
// then whatever shared objects it yields. A wheel comes from an index, so
// nothing may panic, an unreadable wheel is reported in the result rather
// than returned as an error, no member is written outside the temporary
// directory, and every temporary file is removed. The seeds
// (testdata/fuzz/FuzzReadWheel) are a wheel holding a small shared object,
// deflated and stored, one whose member escapes with "..", one truncated,
// one whose central directory lies about a member's size, and bytes that are
// no zip at all.
func FuzzReadWheel(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		tmp := filepath.Join(dir, "tmp")
		if err := os.Mkdir(tmp, 0o755); err != nil {
			t.Fatal(err)
		}
		wheel := filepath.Join(dir, "pkg-1.0-cp312-cp312-manylinux_2_17_x86_64.whl")
		if err := os.WriteFile(wheel, data, 0o644); err != nil {
			t.Fatal(err)
		}
		lim := symbols.Limits{MaxMembers: 1000, MaxMemberSize: 8 << 20, MaxTotalSize: 16 << 20, MaxInMemory: 1 << 20}
		res, err := symbols.Scan(context.Background(), []string{wheel}, symbols.Options{TempDir: tmp, Limits: lim, Workers: 1})
		if err != nil {
			t.Fatalf("Scan returned an error for a bad wheel instead of reporting it: %v", err)
		}
		for _, l := range res.Libraries {
			if !strings.HasPrefix(l.Path, wheel+"!") {
				t.Errorf("library %q is not a member of the wheel", l.Path)
			}
		}
		if left, _ := os.ReadDir(tmp); len(left) != 0 {
			t.Errorf("temporary files left: %v", left)
		}
		if all, _ := os.ReadDir(dir); len(all) != 2 {
			t.Errorf("files written beside the wheel: %v", all)
		}
	})
}
