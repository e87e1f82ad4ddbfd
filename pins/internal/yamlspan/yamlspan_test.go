package yamlspan_test

import (
	"testing"

	"github.com/pinbot-dev/pinbot/internal/diag"
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
