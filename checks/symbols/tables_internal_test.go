package symbols

import (
	"os"
	"sync"
	"testing"
	"time"
)

// TestDoneWaitsForLoadTables: a library's tables loaded first, on one
// worker, while another worker finishes the library's last class (its
// classes needed no table) and drops them: the drop waits for the load, so
// the tables are gone afterwards and were never written while being dropped
// (go test -race sees the old overlap).
func TestDoneWaitsForLoadTables(t *testing.T) {
	lib := "/usr/lib/x86_64-linux-gnu/libLLVM-14.so.1" // large tables: a load takes milliseconds
	st, err := os.Stat(lib)
	if err != nil {
		if os.Getenv("PINBOT_INTEGRATION") == "1" { // as needDebian: fail, not skip
			t.Fatalf("PINBOT_INTEGRATION=1 but %s is missing (apt-get install -y libllvm14): %v", lib, err)
		}
		t.Skipf("%s not installed", lib)
	}
	src := &source{path: lib, size: st.Size(), open: func() (readerAt, error) { return openFile(lib) }}
	r, err := src.open()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	o, err := parseObject(r, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		b, err := openBodies(o, src, nil)
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		wg.Go(b.loadTables)
		time.Sleep(200 * time.Microsecond) // done while the load runs, most of the time
		b.done()
		wg.Wait()
		if b.addrs != nil || b.relocs != nil || b.runs != nil || b.eh != nil {
			t.Errorf("tables left after done: %d addresses, %d relocations, %d runs, eh %v", len(b.addrs), len(b.relocs), len(b.runs), b.eh != nil)
		}
		b.close()
	}
}
