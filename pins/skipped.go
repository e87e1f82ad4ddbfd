package pins

import (
	"errors"
	"fmt"
	"slices"

	"github.com/pinbot-dev/pinbot/internal/diag"
)

// Skipped is the error Extract returns beside the pins of a file that it
// read, when some entries of the file could not be read: each one with its
// place and why. The pins returned with it are every other entry of the
// file, so one bad entry never hides a file: callers warn about the entries
// and go on with the pins. Any other error from Extract is about the whole
// file (it does not parse, its top level is of the wrong kind), and comes
// with no pins.
type Skipped struct {
	Entries diag.List
}

func (s *Skipped) Error() string { return s.Entries.Error() }

// Unwrap returns the entries' errors, so errors.As finds each *diag.Error.
func (s *Skipped) Unwrap() []error { return s.Entries.Unwrap() }

// Skip returns the error Extract gives for the entries it could not read:
// nil when there are none, else a *Skipped holding them.
func Skip(entries diag.List) error {
	if len(entries) == 0 {
		return nil
	}
	return &Skipped{Entries: slices.Clip(entries)}
}

// SkippedEntries returns the entries a *Skipped err names, and ok when err is
// one (so that the file was read and its pins stand); ok is false for nil and
// for any other error.
func SkippedEntries(err error) (entries diag.List, ok bool) {
	var s *Skipped
	if errors.As(err, &s) {
		return s.Entries, true
	}
	return nil, false
}

// ReadFile runs f.Extract on data, the file at path, as Extract does, and
// splits its outcome: the pins read, the entries skipped (each a warning),
// and an error about the whole file, which comes with no pins.
func ReadFile(f Format, path string, data []byte) (ps []Pin, skipped diag.List, err error) {
	ps, err = safeExtract(f, path, data)
	if entries, ok := SkippedEntries(err); ok {
		return ps, entries, nil
	}
	if err != nil {
		return nil, nil, err
	}
	return ps, nil, nil
}

// sameSkips checks that a rewrite left the file's unreadable entries as they
// were: as many, each with the same key and reason. Their lines may move (new
// hash options add lines), so lines are not compared.
func sameSkips(path string, before, after diag.List) error {
	if len(before) != len(after) {
		return fmt.Errorf("%s: rewrite changed the number of unreadable entries from %d to %d (nothing written)", path, len(before), len(after))
	}
	for i, b := range before {
		a := after[i]
		if a.Key != b.Key || a.Err.Error() != b.Err.Error() {
			return fmt.Errorf("%s: rewrite changed an unreadable entry: %v became %v (nothing written)", path, b, a)
		}
	}
	return nil
}
