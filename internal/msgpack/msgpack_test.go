package msgpack_test

import (
	"errors"
	"math"
	"testing"

	vm "github.com/vmihailenco/msgpack/v5"

	"github.com/pinbot-dev/pinbot/internal/msgpack"
)

// TestReadsWhatAnEncoderWrites walks a document written by a general
// encoder, with every width of every type.
func TestReadsWhatAnEncoderWrites(t *testing.T) {
	long := string(make([]byte, 70_000))
	doc := map[string]any{
		"a": []any{int8(-5), int16(-300), int32(-70_000), int64(-5_000_000_000), uint8(200), uint16(60_000), uint32(4_000_000_000), uint64(math.MaxUint64), float32(2.5), 1e12, "12"},
		"b": []byte{1, 2, 3},
		"c": long,
		"d": nil,
		"e": map[string]any{"x": true, "y": false, "z": []any{}},
	}
	raw, err := vm.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]func(t *testing.T, r *msgpack.Reader){
		"a": func(t *testing.T, r *msgpack.Reader) {
			n, err := r.ArrayLen()
			if err != nil || n != 11 {
				t.Fatalf("ArrayLen = %d, %v", n, err)
			}
			wants := []int64{-5, -300, -70_000, -5_000_000_000, 200, 60_000, 4_000_000_000, math.MaxInt64, 2, 1e12, 12}
			for i, w := range wants {
				if got, err := r.Int(); err != nil || got != w {
					t.Errorf("Int %d = %d, %v; want %d", i, got, err, w)
				}
			}
		},
		"b": func(t *testing.T, r *msgpack.Reader) {
			if b, err := r.Bytes(); err != nil || string(b) != "\x01\x02\x03" {
				t.Errorf("Bytes = %q, %v", b, err)
			}
		},
		"c": func(t *testing.T, r *msgpack.Reader) {
			if s, err := r.Str(); err != nil || s != long {
				t.Errorf("Str: %d bytes, %v", len(s), err)
			}
		},
		"d": func(t *testing.T, r *msgpack.Reader) {
			if !r.IsNil() {
				t.Error("IsNil = false")
			}
		},
		"e": func(t *testing.T, r *msgpack.Reader) {
			if err := r.Skip(); err != nil {
				t.Error(err)
			}
		},
	}
	r := msgpack.NewReader(raw)
	n, err := r.MapLen()
	if err != nil || n != len(doc) {
		t.Fatalf("MapLen = %d, %v", n, err)
	}
	for range n {
		k, err := r.Str()
		if err != nil {
			t.Fatal(err)
		}
		want[k](t, r)
	}
	if r.Remaining() != 0 {
		t.Errorf("%d bytes left", r.Remaining())
	}
	// Skip passes over the whole document in one call.
	r = msgpack.NewReader(raw)
	if err := r.Skip(); err != nil || r.Remaining() != 0 {
		t.Errorf("Skip: %v, %d left", err, r.Remaining())
	}
}

// TestDeclaredLengths feeds headers that declare more than the document
// holds: each is an error before anything is allocated.
func TestDeclaredLengths(t *testing.T) {
	for name, doc := range map[string][]byte{
		"array32":          []byte("\xdd\xd6\x93\xa4\x00"),
		"map32":            []byte("\xdf\xff\xff\xff\xff\x01\x01"),
		"str32":            []byte("\xdb\xff\xff\xff\xf0abc"),
		"bin32":            []byte("\xc6\x7f\xff\xff\xff"),
		"ext32":            []byte("\xc9\xff\xff\xff\xff\x01"),
		"nested arrays":    []byte("\x91\x91\x91\x91\xdd\x10\x00\x00\x00"),
		"map of 2, 1 byte": []byte("\x82\xa1a"),
	} {
		var allocs float64
		var err error
		allocs = testing.AllocsPerRun(1, func() {
			err = msgpack.NewReader(doc).Skip()
		})
		if !errors.Is(err, msgpack.ErrTruncated) {
			t.Errorf("%s: Skip = %v, want ErrTruncated", name, err)
		}
		if allocs > 10 {
			t.Errorf("%s: %v allocations", name, allocs)
		}
	}
	if _, err := msgpack.NewReader([]byte("\xdd\xd6\x93\xa4\x00")).ArrayLen(); !errors.Is(err, msgpack.ErrTruncated) {
		t.Errorf("ArrayLen: %v", err)
	}
	if _, err := msgpack.NewReader([]byte("\xdf\x00\x00\x00\x03\x01\x01\x01\x01")).MapLen(); !errors.Is(err, msgpack.ErrTruncated) {
		t.Errorf("MapLen: %v", err)
	}
	if _, err := msgpack.NewReader([]byte("\xdb\x00\x01\x00\x00")).Str(); !errors.Is(err, msgpack.ErrTruncated) {
		t.Errorf("Str: %v", err)
	}
	var te *msgpack.TypeError
	if _, err := msgpack.NewReader([]byte("\x91\x01")).MapLen(); !errors.As(err, &te) || te.Want != "a map" {
		t.Errorf("MapLen of an array: %v", err)
	}
}

// TestDeepNesting skips a million nested arrays without recursion.
func TestDeepNesting(t *testing.T) {
	doc := make([]byte, 1_000_001)
	for i := range doc {
		doc[i] = 0x91
	}
	doc[len(doc)-1] = 0x01
	r := msgpack.NewReader(doc)
	if err := r.Skip(); err != nil || r.Remaining() != 0 {
		t.Errorf("Skip: %v, %d left", err, r.Remaining())
	}
}

// FuzzSkip checks that no document makes the reader panic or read past its
// end, and that Skip and a typed walk agree on where a value ends.
func FuzzSkip(f *testing.F) {
	f.Add([]byte("\x82\xa1a\x91\x01\xa1b\xc4\x02xy"))
	f.Add([]byte("\xdd\xd6\x93\xa4\x00"))
	f.Fuzz(func(t *testing.T, doc []byte) {
		r := msgpack.NewReader(doc)
		if err := r.Skip(); err == nil && r.Remaining() < 0 {
			t.Fatal("read past the end")
		}
		r = msgpack.NewReader(doc)
		if n, err := r.MapLen(); err == nil {
			for range n {
				if _, err := r.Str(); err != nil {
					return
				}
				if _, err := r.Int(); err != nil {
					if r.Skip() != nil {
						return
					}
				}
			}
		}
	})
}
