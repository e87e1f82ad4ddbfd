// Package progress tells people at a terminal what a long step is doing: a
// download's bytes against its size, an environment being installed. Lines,
// not a redrawn bar: several steps run at once, and a line that is printed
// stays true in a scrollback.
//
// A nil *Meter shows nothing, and so does the *Task it starts: code that
// takes one need not ask whether stderr is a terminal.
package progress

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/pinbot-dev/pinbot/internal/escape"
)

// Every is how often a running task with news says how far it is.
const Every = 2 * time.Second

// A Meter writes the progress of tasks to one writer (stderr), a line at a
// time. It is safe for concurrent use.
type Meter struct {
	w   io.Writer
	mu  sync.Mutex
	now func() time.Time
}

// New returns a Meter writing to w.
func New(w io.Writer) *Meter { return &Meter{w: w, now: time.Now} }

// A Task is one long step. Its methods may be called on nil.
type Task struct {
	m       *Meter
	label   string
	total   int64
	mu      sync.Mutex
	n       int64
	started time.Time
	shown   time.Time // when the last line was written
	shownN  int64
}

// Start begins a task: label says what it is ("downloading
// numba-0.67.0-cp312-manylinux_x86_64.whl", "installing numba==0.67.0"),
// total its size in bytes (0 when it has none, or none is known). Text from
// outside (file names) is escaped here.
func (m *Meter) Start(label string, total int64) *Task {
	if m == nil {
		return nil
	}
	t := &Task{m: m, label: escape.Text(label), total: total, started: m.now()}
	t.shown = t.started
	size := ""
	if total > 0 {
		size = " (" + Size(total) + ")"
	}
	m.printf("%s%s…\n", t.label, size)
	return t
}

// Add counts n more bytes done, and says how far the task is when Every has
// passed since it last did.
func (t *Task) Add(n int64) {
	if t == nil {
		return
	}
	t.mu.Lock()
	t.n += n
	now := t.m.now()
	due := now.Sub(t.shown) >= Every && t.n != t.shownN
	if due {
		t.shown, t.shownN = now, t.n
	}
	done := t.n
	t.mu.Unlock()
	if due {
		of := ""
		if t.total > 0 {
			of = fmt.Sprintf(" of %s (%d%%)", Size(t.total), done*100/t.total)
		}
		t.m.printf("  %s: %s%s\n", t.label, Size(done), of)
	}
}

// Write counts len(p) bytes: a Task is an io.Writer beside a download's file.
func (t *Task) Write(p []byte) (int, error) {
	t.Add(int64(len(p)))
	return len(p), nil
}

// Done ends the task, saying how long it took and, for bytes, how many; err
// says it failed (the error itself is reported elsewhere).
func (t *Task) Done(err error) {
	if t == nil {
		return
	}
	t.mu.Lock()
	took := t.m.now().Sub(t.started).Round(100 * time.Millisecond)
	n := t.n
	t.mu.Unlock()
	switch {
	case err != nil:
		t.m.printf("  %s: failed after %s\n", t.label, took)
	case n > 0:
		t.m.printf("  %s: done, %s in %s\n", t.label, Size(n), took)
	default:
		t.m.printf("  %s: done in %s\n", t.label, took)
	}
}

func (m *Meter) printf(format string, args ...any) {
	m.mu.Lock()
	defer m.mu.Unlock()
	fmt.Fprintf(m.w, format, args...)
}

// Size writes n bytes for people: "512 B", "1.5 kB", "12.3 MB", "1.1 GB"
// (powers of 1000, as pip and uv show them).
func Size(n int64) string {
	const unit = 1000
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	f, i := float64(n)/unit, 0
	for f >= unit && i < 3 {
		f /= unit
		i++
	}
	return fmt.Sprintf("%.1f %s", f, []string{"kB", "MB", "GB", "TB"}[i])
}
