package errw_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/pinbot-dev/pinbot/internal/errw"
)

// failAfter accepts n writes, then fails every write.
type failAfter struct {
	n   int
	got strings.Builder
}

var errFull = errors.New("disk full")

func (f *failAfter) Write(b []byte) (int, error) {
	if f.n == 0 {
		return 0, errFull
	}
	f.n--
	return f.got.Write(b)
}

func TestFirstErrorKept(t *testing.T) {
	f := &failAfter{n: 2}
	ew := errw.New(f)
	ew.Printf("a%d ", 1)
	ew.Printf("b%s ", "2")
	ew.Printf("c")
	if _, err := ew.Write([]byte("d")); !errors.Is(err, errFull) {
		t.Errorf("a write after the failure returned %v", err)
	}
	if !errors.Is(ew.Err, errFull) || f.got.String() != "a1 b2 " {
		t.Errorf("Err %v, written %q", ew.Err, f.got.String())
	}
	f.n = 5 // the writer recovers; errw does not write again
	ew.Printf("e")
	if f.got.String() != "a1 b2 " {
		t.Errorf("wrote after the first error: %q", f.got.String())
	}
}
