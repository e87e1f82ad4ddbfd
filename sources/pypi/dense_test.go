package pypi

import (
	"net/url"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pinbot-dev/pinbot/web"
)

// peakHeap samples HeapAlloc while fn runs.
func peakHeap(fn func()) uint64 {
	runtime.GC()
	var peak uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapAlloc)
			select {
			case <-done:
				return
			case <-time.After(time.Millisecond):
			}
		}
	})
	fn()
	close(done)
	wg.Wait()
	return peak
}

// TestDenseDocuments decodes the costliest documents the JSON caps admit
// (as many small file objects or versions as allowed) and checks that the
// heap stays well under 400 MB, and that more objects are refused.
func TestDenseDocuments(t *testing.T) {
	if testing.Short() {
		t.Skip("decodes documents at the caps")
	}
	files := web.MaxJSONContainers/2 - 10 // a file and its digests
	page, _ := url.Parse("https://pypi.example/simple/numba/")
	tests := []struct {
		name   string
		doc    string
		decode func([]byte) error
	}{
		{"JSON API files", `{"info":{"name":"numba"},"releases":{"1.0":[` +
			strings.Repeat(`{"filename":"numba-1.0.tar.gz","url":"https://x/y","digests":{"sha256":"a"}},`, files) + `{}]}}`,
			func(b []byte) error { _, err := decodeProject("u", b); return err }},
		{"PEP 691 files", `{"meta":{"api-version":"1.1"},"files":[` +
			strings.Repeat(`{"filename":"numba-1.0.tar.gz","url":"y","hashes":{"sha256":"a"}},`, files) + `{}]}`,
			func(b []byte) error { _, err := decodeSimple(page, "numba", b); return err }},
		{"PEP 700 versions", `{"meta":{"api-version":"1.1"},"files":[],"versions":[` +
			strings.Repeat(`"1",`, web.MaxJSONValues-10) + `"2"]}`,
			func(b []byte) error { _, err := decodeSimple(page, "numba", b); return err }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := []byte(tt.doc)
			peak := peakHeap(func() { tt.decode(doc) })
			if peak > 300<<20 {
				t.Errorf("decoding %d MB peaked at %d MB", len(doc)>>20, peak>>20)
			}
			t.Logf("%d MB document, peak heap %d MB", len(doc)>>20, peak>>20)
		})
	}
	over := []byte(`{"meta":{"api-version":"1.1"},"files":[` + strings.Repeat(`{},`, web.MaxJSONContainers) + `{}]}`)
	if _, err := decodeSimple(page, "numba", over); err == nil || !strings.Contains(err.Error(), "objects and arrays") {
		t.Errorf("over the cap: %v", err)
	}
}
