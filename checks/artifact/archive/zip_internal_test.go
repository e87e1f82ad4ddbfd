package archive

import (
	"archive/zip"
	"bytes"
	"strconv"
	"testing"
)

func TestZipEntryCount(t *testing.T) {
	for _, n := range []int{0, 1, 12, 70000} { // 70000 needs the zip64 end record
		var buf bytes.Buffer
		zw := zip.NewWriter(&buf)
		for i := range n {
			if _, err := zw.CreateHeader(&zip.FileHeader{Name: strconv.Itoa(i), Method: zip.Store}); err != nil {
				t.Fatal(err)
			}
		}
		zw.SetComment("a comment before which the end record hides")
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
		got, ok := zipEntryCount(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
		if !ok || got != uint64(n) {
			t.Errorf("%d members: zipEntryCount = %d, %v", n, got, ok)
		}
	}
	if _, ok := zipEntryCount(bytes.NewReader([]byte("not a zip at all, long enough to look")), 37); ok {
		t.Error("counted members of a non-zip")
	}
}
