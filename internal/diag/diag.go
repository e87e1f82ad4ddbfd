// Package diag defines errors that point at a place in a file: the pin files pinbot
// edits and its own configuration both report "file:line:col: key: message".
package diag

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
)

// An Error is a problem at a place in a file. Line and Col are 1-based; zero means
// unknown. Key names the element at fault (a config key path such as
// "packages.numba.cap", or a pin's location such as "project.dependencies[0]").
type Error struct {
	File string
	Line int
	Col  int
	Key  string
	Err  error
}

// Errorf returns an *Error at file:line:col for key with a formatted message.
func Errorf(file string, line, col int, key, format string, args ...any) *Error {
	return &Error{File: file, Line: line, Col: col, Key: key, Err: fmt.Errorf(format, args...)}
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
		if e.Col > 0 {
			fmt.Fprintf(&b, ":%d", e.Col)
		}
	}
	b.WriteString(": ")
	if e.Key != "" {
		b.WriteString(e.Key)
		b.WriteString(": ")
	}
	b.WriteString(e.Err.Error())
	return b.String()
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// A List is every error found in one or more files, in the order found.
type List []*Error

func (l List) Error() string {
	msgs := make([]string, len(l))
	for i, e := range l {
		msgs[i] = e.Error()
	}
	return strings.Join(msgs, "\n")
}

// Unwrap returns the errors of the list, so errors.Is and errors.As see each one.
func (l List) Unwrap() []error {
	errs := make([]error, len(l))
	for i, e := range l {
		errs[i] = e
	}
	return errs
}

// Err returns l as an error, or nil when l is empty.
func (l List) Err() error {
	if len(l) == 0 {
		return nil
	}
	return l
}

// Position reports the 1-based line and column (in bytes) of offset off in data.
func Position(data []byte, off int) (line, col int) {
	if off > len(data) {
		off = len(data)
	}
	line = 1 + bytes.Count(data[:off], []byte{'\n'})
	start := bytes.LastIndexByte(data[:off], '\n') + 1
	return line, off - start + 1
}

// As reports whether err holds an *Error, and returns the first one.
func As(err error) (*Error, bool) {
	var e *Error
	ok := errors.As(err, &e)
	return e, ok
}
