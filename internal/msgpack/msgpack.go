// Package msgpack reads MessagePack
// (https://github.com/msgpack/msgpack/blob/master/spec.md) from a byte slice
// without trusting it. Every declared length of an array, map, string or
// binary is checked against the bytes that remain before anything is
// allocated (each element takes at least one byte), and Skip walks nested
// values with a counter instead of recursion, so a few bytes can neither make
// the reader allocate gigabytes nor exhaust the stack. General decoders
// (github.com/vmihailenco/msgpack among them) size slices and maps from the
// declared length: a 29-byte document declaring 3.6 billion items asks for
// tens of gigabytes.
//
// The reader decodes no document by itself: a caller walks the values it
// expects into its own typed structures, in order, and skips the rest.
package msgpack

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strconv"
)

// ErrTruncated is wrapped by errors for documents that end early or declare
// more than the bytes that remain.
var ErrTruncated = errors.New("msgpack: truncated, or a length longer than the document")

// A TypeError is a value of another type than the caller asked for.
type TypeError struct {
	Want string // "a map"
	Code byte   // the value's first byte
	Off  int    // its offset in the document
}

func (e *TypeError) Error() string {
	return fmt.Sprintf("msgpack: expected %s at offset %d, found %s", e.Want, e.Off, kindName(e.Code))
}

// A Reader reads values from a document in order.
type Reader struct {
	b   []byte
	off int
}

// NewReader returns a Reader over b; b is not copied, and strings and byte
// slices the Reader returns share its memory.
func NewReader(b []byte) *Reader { return &Reader{b: b} }

// Remaining returns how many bytes are left to read.
func (r *Reader) Remaining() int { return len(r.b) - r.off }

// Offset returns how many bytes were read.
func (r *Reader) Offset() int { return r.off }

func (r *Reader) truncated(what string) error {
	return fmt.Errorf("%w: %s at offset %d", ErrTruncated, what, r.off)
}

func (r *Reader) peek() (byte, error) {
	if r.off >= len(r.b) {
		return 0, r.truncated("no value")
	}
	return r.b[r.off], nil
}

// take returns the next n bytes.
func (r *Reader) take(n uint64, what string) ([]byte, error) {
	if n > uint64(r.Remaining()) {
		return nil, r.truncated(fmt.Sprintf("%s of %d bytes", what, n))
	}
	p := r.b[r.off : r.off+int(n)]
	r.off += int(n)
	return p, nil
}

// uint reads a big-endian unsigned integer of size bytes.
func (r *Reader) uint(size int, what string) (uint64, error) {
	p, err := r.take(uint64(size), what)
	if err != nil {
		return 0, err
	}
	switch size {
	case 1:
		return uint64(p[0]), nil
	case 2:
		return uint64(binary.BigEndian.Uint16(p)), nil
	case 4:
		return uint64(binary.BigEndian.Uint32(p)), nil
	}
	return binary.BigEndian.Uint64(p), nil
}

// IsNil reports whether the next value is nil, and reads it if so.
func (r *Reader) IsNil() bool {
	if r.off < len(r.b) && r.b[r.off] == 0xc0 {
		r.off++
		return true
	}
	return false
}

// MapLen reads a map header and returns its number of key/value pairs (0
// for nil), after checking that the document has room for them.
func (r *Reader) MapLen() (int, error) {
	if r.IsNil() {
		return 0, nil
	}
	c, err := r.peek()
	if err != nil {
		return 0, err
	}
	var n uint64
	switch {
	case c >= 0x80 && c <= 0x8f:
		r.off++
		n = uint64(c & 0x0f)
	case c == 0xde || c == 0xdf:
		r.off++
		if n, err = r.uint(2<<(c-0xde), "map header"); err != nil {
			return 0, err
		}
	default:
		return 0, &TypeError{Want: "a map", Code: c, Off: r.off}
	}
	if n > uint64(r.Remaining())/2 {
		return 0, r.truncated(fmt.Sprintf("map of %d entries", n))
	}
	return int(n), nil
}

// ArrayLen reads an array header and returns its number of elements (0 for
// nil), after checking that the document has room for them.
func (r *Reader) ArrayLen() (int, error) {
	if r.IsNil() {
		return 0, nil
	}
	c, err := r.peek()
	if err != nil {
		return 0, err
	}
	var n uint64
	switch {
	case c >= 0x90 && c <= 0x9f:
		r.off++
		n = uint64(c & 0x0f)
	case c == 0xdc || c == 0xdd:
		r.off++
		if n, err = r.uint(2<<(c-0xdc), "array header"); err != nil {
			return 0, err
		}
	default:
		return 0, &TypeError{Want: "an array", Code: c, Off: r.off}
	}
	if n > uint64(r.Remaining()) {
		return 0, r.truncated(fmt.Sprintf("array of %d elements", n))
	}
	return int(n), nil
}

// Bytes reads a string or a binary value (nil gives nil). The slice shares
// the document's memory.
func (r *Reader) Bytes() ([]byte, error) {
	if r.IsNil() {
		return nil, nil
	}
	c, err := r.peek()
	if err != nil {
		return nil, err
	}
	var n uint64
	switch {
	case c >= 0xa0 && c <= 0xbf:
		r.off++
		n = uint64(c & 0x1f)
	case c == 0xd9 || c == 0xda || c == 0xdb:
		r.off++
		n, err = r.uint(1<<(c-0xd9), "string header")
	case c == 0xc4 || c == 0xc5 || c == 0xc6:
		r.off++
		n, err = r.uint(1<<(c-0xc4), "binary header")
	default:
		return nil, &TypeError{Want: "a string or binary", Code: c, Off: r.off}
	}
	if err != nil {
		return nil, err
	}
	return r.take(n, "string")
}

// Str reads a string or a binary value as a string ("" for nil).
func (r *Reader) Str() (string, error) {
	b, err := r.Bytes()
	return string(b), err
}

// Int reads a number of any width as an int64: floats are truncated,
// unsigned values above math.MaxInt64 saturate, and a string holding a
// decimal integer is read too (repodata writes some numbers as strings); nil
// is 0.
func (r *Reader) Int() (int64, error) {
	if r.IsNil() {
		return 0, nil
	}
	c, err := r.peek()
	if err != nil {
		return 0, err
	}
	switch {
	case c <= 0x7f:
		r.off++
		return int64(c), nil
	case c >= 0xe0:
		r.off++
		return int64(int8(c)), nil
	case c >= 0xcc && c <= 0xcf:
		r.off++
		v, err := r.uint(1<<(c-0xcc), "integer")
		return int64(min(v, math.MaxInt64)), err
	case c >= 0xd0 && c <= 0xd3:
		r.off++
		size := 1 << (c - 0xd0)
		v, err := r.uint(size, "integer")
		if err != nil {
			return 0, err
		}
		shift := 64 - 8*size
		return int64(v<<shift) >> shift, nil // sign-extend
	case c == 0xca:
		r.off++
		v, err := r.uint(4, "float")
		return clampFloat(float64(math.Float32frombits(uint32(v)))), err
	case c == 0xcb:
		r.off++
		v, err := r.uint(8, "float")
		return clampFloat(math.Float64frombits(v)), err
	case c >= 0xa0 && c <= 0xbf, c >= 0xd9 && c <= 0xdb:
		s, err := r.Str()
		if err != nil {
			return 0, err
		}
		n, _ := strconv.ParseInt(s, 10, 64)
		return n, nil
	}
	return 0, &TypeError{Want: "a number", Code: c, Off: r.off}
}

func clampFloat(f float64) int64 {
	switch {
	case f != f: // NaN
		return 0
	case f >= math.MaxInt64:
		return math.MaxInt64
	case f <= math.MinInt64:
		return math.MinInt64
	}
	return int64(f)
}

// Skip reads the next value, with everything nested in it, and drops it. It
// keeps a count of the values still to read rather than recursing, and
// fails as soon as that count passes the bytes that remain.
func (r *Reader) Skip() error {
	for pending := uint64(1); pending > 0; pending-- {
		if pending > uint64(r.Remaining()) {
			return r.truncated(fmt.Sprintf("%d more values", pending))
		}
		c := r.b[r.off]
		r.off++
		var err error
		var n uint64
		switch {
		case c <= 0x7f, c >= 0xe0, c == 0xc0, c == 0xc1, c == 0xc2, c == 0xc3:
		case c >= 0x80 && c <= 0x8f:
			pending += 2 * uint64(c&0x0f)
		case c >= 0x90 && c <= 0x9f:
			pending += uint64(c & 0x0f)
		case c >= 0xa0 && c <= 0xbf:
			_, err = r.take(uint64(c&0x1f), "string")
		case c == 0xc4 || c == 0xc5 || c == 0xc6:
			if n, err = r.uint(1<<(c-0xc4), "binary header"); err == nil {
				_, err = r.take(n, "binary")
			}
		case c == 0xc7 || c == 0xc8 || c == 0xc9:
			if n, err = r.uint(1<<(c-0xc7), "extension header"); err == nil {
				_, err = r.take(n+1, "extension")
			}
		case c == 0xca:
			_, err = r.take(4, "float")
		case c == 0xcb:
			_, err = r.take(8, "float")
		case c >= 0xcc && c <= 0xcf:
			_, err = r.take(1<<(c-0xcc), "integer")
		case c >= 0xd0 && c <= 0xd3:
			_, err = r.take(1<<(c-0xd0), "integer")
		case c >= 0xd4 && c <= 0xd8:
			_, err = r.take(1+1<<(c-0xd4), "extension")
		case c == 0xd9 || c == 0xda || c == 0xdb:
			if n, err = r.uint(1<<(c-0xd9), "string header"); err == nil {
				_, err = r.take(n, "string")
			}
		case c == 0xdc || c == 0xdd:
			if n, err = r.uint(2<<(c-0xdc), "array header"); err == nil {
				pending += n
			}
		case c == 0xde || c == 0xdf:
			if n, err = r.uint(2<<(c-0xde), "map header"); err == nil {
				pending += 2 * n
			}
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func kindName(c byte) string {
	switch {
	case c <= 0x7f, c >= 0xe0, c >= 0xcc && c <= 0xd3:
		return "an integer"
	case c >= 0x80 && c <= 0x8f, c == 0xde, c == 0xdf:
		return "a map"
	case c >= 0x90 && c <= 0x9f, c == 0xdc, c == 0xdd:
		return "an array"
	case c >= 0xa0 && c <= 0xbf, c >= 0xd9 && c <= 0xdb:
		return "a string"
	case c == 0xc0:
		return "nil"
	case c == 0xc2, c == 0xc3:
		return "a boolean"
	case c >= 0xc4 && c <= 0xc6:
		return "binary"
	case c == 0xca, c == 0xcb:
		return "a float"
	}
	return fmt.Sprintf("code 0x%02x", c)
}
