package yamlspan_test

import (
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/pinbot-dev/pinbot/internal/diag"
	"github.com/pinbot-dev/pinbot/pins"
	"github.com/pinbot-dev/pinbot/pins/internal/yamlspan"
)

func TestScalarAt(t *testing.T) {
	data := "é: [ü, 'numba >=1', \"a\\tb\"]\r\nk: &x !!str v  # c\r\nl: *x\r\nm: |\r\n  x\r\nn: 'it''s'\r\n"
	d, err := yamlspan.Parse("x.yaml", []byte(data))
	if err != nil {
		t.Fatal(err)
	}
	pairs, _ := yamlspan.Pairs(d.Root)
	seq := pairs[0].Value.Content
	for _, tt := range []struct {
		i         int
		value     string
		line, col int
		skip      string
	}{
		{0, "ü", 1, 6, ""},
		{1, "numba >=1", 1, 10, ""},
		{2, "a\tb", 1, 23, "quoted scalar with escapes"},
	} {
		s, ok := d.ScalarAt(seq[tt.i])
		if !ok || s.Value != tt.value || s.Line != tt.line || s.Col != tt.col || s.Skip != tt.skip {
			t.Errorf("item %d: %+v", tt.i, s)
		}
		if s.Skip == "" && data[s.Start:s.Start+len(s.Value)] != s.Value {
			t.Errorf("item %d: start %d holds %q", tt.i, s.Start, data[s.Start:])
		}
	}
	for i, skip := range map[int]string{1: "YAML anchor: an alias may repeat the value", 2: "YAML alias", 3: "block scalar (| or >)", 4: "quoted scalar with escapes"} {
		s, ok := d.ScalarAt(pairs[i].Value)
		if !ok || s.Skip != skip {
			t.Errorf("pair %d: %+v, want skip %q", i, s, skip)
		}
	}
	if _, dup := yamlspan.Pairs(d.Root); dup != nil {
		t.Errorf("duplicate %q", dup.Value)
	}
}

func TestParseError(t *testing.T) {
	for doc, line := range map[string]int{"a: [\n": 1, "{% x %}\n": 1, "a:\n  b: 1\n c: 2\n": 2} {
		_, err := yamlspan.Parse("x.yaml", []byte(doc))
		if e, ok := diag.As(err); !ok || e.Line != line || e.File != "x.yaml" {
			t.Errorf("Parse(%q) = %v, want an error on line %d", doc, err, line)
		}
	}
}

func TestEmpty(t *testing.T) {
	for doc, want := range map[string]bool{"": true, "# only a comment\n": true, "~\n": true, "null\n": true, "{}\n": false, "a: 1\n": false, "- x\n": false} {
		d, err := yamlspan.Parse("x.yaml", []byte(doc))
		if err != nil || d.Empty() != want {
			t.Errorf("Parse(%q).Empty() = %v (%v), want %v", doc, d != nil && d.Empty(), err, want)
		}
	}
}

func TestErrors(t *testing.T) {
	data := "a:\n  b: ~\n  c: 'numba >=1'\n"
	d, err := yamlspan.Parse("x.yaml", []byte(data))
	if err != nil {
		t.Fatal(err)
	}
	b := yamlspan.Get(yamlspan.Get(d.Root, "a"), "b")
	if !yamlspan.IsNull(b) || yamlspan.IsNull(d.Root) {
		t.Errorf("IsNull: b %v, root %v", yamlspan.IsNull(b), yamlspan.IsNull(d.Root))
	}
	if got, want := d.Errorf(b, "a.b", "expected %s, found %s", "a list", yamlspan.Kind(b)).Error(), "x.yaml:2:6: a.b: expected a list, found null"; got != want {
		t.Errorf("Errorf = %q, want %q", got, want)
	}
	s, ok := d.ScalarAt(yamlspan.Get(yamlspan.Get(d.Root, "a"), "c"))
	if !ok {
		t.Fatal("no scalar a.c")
	}
	base := errors.New("bad spec")
	e := d.ScalarError(s, "a.c", base)
	if e.Error() != "x.yaml:3:6: a.c: bad spec" || !errors.Is(e, base) {
		t.Errorf("ScalarError = %q", e)
	}
	if d.Errs.Err() != nil {
		t.Errorf("Errs before any Fail: %v", d.Errs)
	}
	d.Fail(b, "a.b", "first")
	d.Fail(d.Root, "", "second")
	if got := d.Errs.Error(); got != "x.yaml:2:6: a.b: first\nx.yaml:1:1: second" {
		t.Errorf("Errs after Fail = %q", got)
	}
}

func TestPlace(t *testing.T) {
	d, err := yamlspan.Parse("x.yaml", []byte("- 'numba >=1'\n- \"numba\\x20>=2\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := []pins.Pin{
		{File: "x.yaml", Line: 1, Col: 3, Key: "[0]", Package: "numba", Skip: "already skipped"},
		{File: "x.yaml", Line: 2, Col: 3, Key: "[1]", Package: "numba", Skip: "quoted scalar with escapes"},
	}
	for i, el := range d.Root.Content {
		s, _ := d.ScalarAt(el)
		p := pins.Pin{Package: "numba"}
		if i == 0 {
			p.Skip = "already skipped" // kept when the scalar is a slice of the file
		}
		if got := d.Place(p, s, fmt.Sprintf("[%d]", i)); !reflect.DeepEqual(got, want[i]) {
			t.Errorf("Place = %+v, want %+v", got, want[i])
		}
	}
}

func TestSeq(t *testing.T) {
	d, err := yamlspan.Parse("x.yaml", []byte("a: [1, 2]\nb:\nc: {k: v}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := d.Seq(yamlspan.Get(d.Root, "a"), "a", "a list"); len(got) != 2 {
		t.Errorf("Seq(a) = %d items, want 2", len(got))
	}
	if got := d.Seq(yamlspan.Get(d.Root, "b"), "b", "a list"); got != nil || d.Errs != nil {
		t.Errorf("Seq(null) = %v, errors %v; want nothing", got, d.Errs)
	}
	if got := d.Seq(yamlspan.Get(d.Root, "c"), "c", "a list of things"); got != nil || d.Errs.Error() != "x.yaml:3:4: c: expected a list of things, found a mapping" {
		t.Errorf("Seq(mapping) = %v, errors %v", got, d.Errs)
	}
}
