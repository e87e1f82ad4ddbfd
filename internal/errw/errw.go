// Package errw is a writer that keeps its first error, so that a renderer
// can print line after line and check once at the end, as bufio.Writer
// does, without buffering.
package errw

import (
	"fmt"
	"io"
)

// A Writer writes to W until a write fails; after that it writes nothing and
// Err holds the first error.
type Writer struct {
	W   io.Writer
	Err error
}

// New returns a Writer on w.
func New(w io.Writer) *Writer { return &Writer{W: w} }

// Write writes b unless an earlier write failed.
func (e *Writer) Write(b []byte) (int, error) {
	if e.Err != nil {
		return 0, e.Err
	}
	n, err := e.W.Write(b)
	e.Err = err
	return n, err
}

// Printf formats and writes unless an earlier write failed.
func (e *Writer) Printf(format string, args ...any) { fmt.Fprintf(e, format, args...) }
