package symbols

import (
	"io"
	"os"
)

// SetArchiveReader makes Scan read archives through wrap(file), for tests
// that count what is read; it returns the function that restores the
// default.
func SetArchiveReader(wrap func(io.ReaderAt) io.ReaderAt) (restore func()) {
	old := readArchive
	readArchive = func(f *os.File) io.ReaderAt { return wrap(f) }
	return func() { readArchive = old }
}

// SetPairing turns the pairer (lockstep comparison before hashing) on or
// off; it returns the function that restores the default.
func SetPairing(on bool) (restore func()) {
	old := pairing
	pairing = on
	return func() { pairing = old }
}
