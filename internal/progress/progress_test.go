package progress

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"
)

// TestTask: a download says its size when it starts, how far it is at most
// every Every while bytes arrive, and how much in how long when it ends; a
// failed step says so; a label from outside is escaped; a nil Meter
// writes nothing.
func TestTask(t *testing.T) {
	var buf bytes.Buffer
	clock := time.Unix(0, 0)
	m := New(&buf)
	m.now = func() time.Time { return clock }

	d := m.Start("downloading numba-0.67.0.whl", 12_300_000)
	d.Write(make([]byte, 1000))
	clock = clock.Add(time.Second)
	d.Add(1_000_000) // before Every: no line
	clock = clock.Add(Every)
	d.Add(5_150_000)
	clock = clock.Add(Every)
	d.Add(0) // no news: no line
	d.Add(6_149_000)
	d.Done(nil)

	in := m.Start("installing numba==0.67.0\x1b[2J", 0)
	clock = clock.Add(14 * time.Second)
	in.Done(errors.New("pip failed"))
	in2 := m.Start("installing numba==0.66.0", 0)
	in2.Done(nil)

	want := `downloading numba-0.67.0.whl (12.3 MB)…
  downloading numba-0.67.0.whl: 6.2 MB of 12.3 MB (50%)
  downloading numba-0.67.0.whl: 12.3 MB of 12.3 MB (100%)
  downloading numba-0.67.0.whl: done, 12.3 MB in 5s
installing numba==0.67.0\x1b[2J…
  installing numba==0.67.0\x1b[2J: failed after 14s
installing numba==0.66.0…
  installing numba==0.66.0: done in 0s
`
	if got := buf.String(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}

	var nilMeter *Meter
	task := nilMeter.Start("x", 1)
	task.Add(1)
	task.Write([]byte("x"))
	task.Done(nil)
}

func TestSize(t *testing.T) {
	for n, want := range map[int64]string{0: "0 B", 999: "999 B", 1000: "1.0 kB", 1_536: "1.5 kB", 12_300_000: "12.3 MB", 2 << 30: "2.1 GB", 5e15: "5000.0 TB"} {
		if got := Size(n); got != want {
			t.Errorf("Size(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestEscape(t *testing.T) {
	var buf bytes.Buffer
	New(&buf).Start("a\rb", 0)
	if strings.Contains(buf.String(), "\r") {
		t.Errorf("%q", buf.String())
	}
}
