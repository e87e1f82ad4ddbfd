package matchspec_test

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/pinbot-dev/pinbot/pins/matchspec"
)

// asciiSpace is the white space Parse trims, as conda's str.strip does for
// ASCII.
const asciiSpace = " \t\n\r\v\f"

var update = flag.Bool("update", false, "rewrite testdata/corpus.golden")

// TestCorpus parses every MatchSpec item of the real environment files and
// recipes in testdata/corpus.txt (copied from /work/shared/corpus/pinfiles)
// and compares the results with testdata/corpus.golden. Every item must parse,
// or be refused as templated.
func TestCorpus(t *testing.T) {
	data, err := os.ReadFile("testdata/corpus.txt")
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	n := 0
	for _, line := range strings.Split(string(data), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		where, item, ok := strings.Cut(line, "\t")
		if !ok {
			t.Fatalf("malformed line %q", line)
		}
		n++
		sp, err := matchspec.Parse(item)
		switch {
		case errors.Is(err, matchspec.ErrTemplated):
			fmt.Fprintf(&out, "%s\ttemplated\n", where)
		case err != nil:
			t.Errorf("%s: %v", where, err)
		default:
			if item[sp.ConstraintStart:sp.ConstraintEnd] != sp.Constraint {
				t.Errorf("%s: span [%d,%d) of %q is not %q", where, sp.ConstraintStart, sp.ConstraintEnd, item, sp.Constraint)
			}
			fmt.Fprintf(&out, "%s\tname=%s channel=%q constraint=%q [%d,%d) build=%q insert=%q\n",
				where, sp.Name, sp.Channel, sp.Constraint, sp.ConstraintStart, sp.ConstraintEnd, sp.Build, sp.Insert)
		}
	}
	if n < 400 {
		t.Fatalf("only %d items in testdata/corpus.txt", n)
	}
	const golden = "testdata/corpus.golden"
	if *update {
		if err := os.WriteFile(golden, []byte(out.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got := out.String(); got != string(want) {
		gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
		for i := 0; i < max(len(gl), len(wl)); i++ {
			g, w := "", ""
			if i < len(gl) {
				g = gl[i]
			}
			if i < len(wl) {
				w = wl[i]
			}
			if g != w {
				t.Fatalf("%s line %d:\n\tgot  %s\n\twant %s\n(run go test -update to accept)", golden, i+1, g, w)
			}
		}
	}
}

// FuzzParse checks that Parse never panics, that the constraint span holds
// the constraint, and that an empty span marks an insertion point. The seed
// corpus in testdata/fuzz/FuzzParse has every item of testdata/corpus.txt.
func FuzzParse(f *testing.F) {
	f.Add("numba >=0.59,<0.62")
	f.Fuzz(func(t *testing.T, s string) {
		sp, err := matchspec.Parse(s)
		if err != nil {
			var e *matchspec.Error
			if !errors.As(err, &e) || e.Offset < 0 || e.Offset > len(s) || e.Input != s {
				t.Fatalf("Parse(%q): error %#v", s, err)
			}
			return
		}
		if sp.ConstraintStart < 0 || sp.ConstraintStart > sp.ConstraintEnd || sp.ConstraintEnd > len(s) {
			t.Fatalf("Parse(%q): span [%d,%d) out of range", s, sp.ConstraintStart, sp.ConstraintEnd)
		}
		if got := s[sp.ConstraintStart:sp.ConstraintEnd]; got != sp.Constraint {
			t.Fatalf("Parse(%q): span text %q != constraint %q", s, got, sp.Constraint)
		}
		if sp.Name == "" || (sp.Constraint == "") != (sp.Insert == " ") {
			t.Fatalf("Parse(%q) = %+v", s, sp)
		}
		if strings.Trim(sp.Constraint, asciiSpace) != sp.Constraint || strings.Trim(sp.Build, asciiSpace) != sp.Build {
			t.Fatalf("Parse(%q) = %+v: untrimmed", s, sp)
		}
		if sp.NameEnd > sp.ConstraintStart || !strings.HasSuffix(s[:sp.NameEnd], sp.Name) {
			t.Fatalf("Parse(%q) = %+v: the name does not end at %d", s, sp, sp.NameEnd)
		}
		if sp.BuildEnd > 0 && (sp.BuildStart < sp.ConstraintEnd || sp.BuildEnd > len(s) || s[sp.BuildStart:sp.BuildEnd] != sp.Build) {
			t.Fatalf("Parse(%q) = %+v: build span", s, sp)
		}
		// Replacing the constraint with itself, or inserting one where there is
		// none, gives a spec with the same name, channel and build.
		repl := "<=9.9"
		if sp.Constraint != "" {
			repl = sp.Constraint
		}
		out := s[:sp.ConstraintStart] + sp.Insert + repl + s[sp.ConstraintEnd:]
		sp2, err := matchspec.Parse(out)
		if err != nil {
			t.Fatalf("Parse(%q): %v", out, err)
		}
		if sp2.Name != sp.Name || sp2.Channel != sp.Channel || sp2.Build != sp.Build || sp2.Constraint != repl {
			t.Fatalf("Parse(%q) = %+v, then Parse(%q) = %+v", s, sp, out, sp2)
		}
	})
}
