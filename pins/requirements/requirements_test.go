package requirements_test

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pinbot-dev/pinbot/internal/diag"
	"github.com/pinbot-dev/pinbot/pins"
	"github.com/pinbot-dev/pinbot/pins/requirements"
)

var update = flag.Bool("update", false, "rewrite the golden files")

var f = requirements.Format{}

func TestMatch(t *testing.T) {
	for p, want := range map[string]bool{
		"requirements.txt":                               true,
		"requirements-dev.txt":                           true,
		"requirements_test.txt":                          true,
		"dev-requirements.txt":                           true,
		"requirements/base.txt":                          true,
		"python/requirements/ml/dl-gpu-requirements.txt": true,
		"constraints.txt":                                true,
		"requirements.in":                                true,
		"requirements/dev.in":                            true,
		"ci/test-requirements.in":                        true,
		"requirements/README.txt":                        false,
		"MANIFEST.in":                                    false,
		"Makefile.in":                                    false,
		"config.h.in":                                    false,
		"notes.txt":                                      false,
		"requirements.txt.bak":                           false,
		"pyproject.toml":                                 false,
	} {
		if got := f.Match(p); got != want {
			t.Errorf("Match(%q) = %v, want %v", p, got, want)
		}
	}
}

// describe renders pins one per line for golden files.
func describe(ps []pins.Pin) string {
	var b strings.Builder
	for _, p := range ps {
		fmt.Fprintf(&b, "%d:%d %s %s %q in %q", p.Line, p.Col, p.Key, p.Package, p.Constraint, p.Text)
		if p.Skip != "" {
			fmt.Fprintf(&b, " skip: %s", p.Skip)
		}
		if p.HashText != "" {
			fmt.Fprintf(&b, " hashes: %q", p.HashText)
		}
		b.WriteString("\n")
	}
	return b.String()
}

func golden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s (-want +got):\n%s", path, diff)
	}
}

// TestExtract reads one small file per edge case and compares the pins with
// testdata/NAME.pins.
func TestExtract(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.txt")
	for _, path := range files {
		name := filepath.Base(path)
		if name == "bad.txt" {
			continue
		}
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			ps, err := f.Extract(name, data)
			if err != nil {
				t.Fatal(err)
			}
			golden(t, strings.TrimSuffix(path, ".txt")+".pins", describe(ps))
			checkSpans(t, data, ps)
		})
	}
}

// checkSpans checks that every editable pin's span holds its constraint and
// that With(constraint) gives back the text.
func checkSpans(t *testing.T, data []byte, ps []pins.Pin) {
	t.Helper()
	for _, p := range ps {
		if p.With(p.Constraint) != p.Text {
			t.Errorf("%s: With(own constraint) = %q, want %q", p.Key, p.With(p.Constraint), p.Text)
		}
		if p.Skip != "" {
			continue
		}
		if p.Span.Start < 0 || p.Span.End > len(data) || string(data[p.Span.Start:p.Span.End]) != p.Constraint {
			t.Errorf("%s: span %v does not hold %q", p.Key, p.Span, p.Constraint)
		}
		if h := p.Hashes; p.HashText != "" && (h.Start < p.Span.End || h.End > len(data) || string(data[h.Start:h.End]) != p.HashText) {
			t.Errorf("%s: hash span %v does not hold %q", p.Key, h, p.HashText)
		}
	}
}

// TestRewrite rewrites every editable pin of every test file and checks that
// only its span changed, that it reads back, and that a second rewrite is a
// no-op.
func TestRewrite(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.txt")
	for _, path := range files {
		data, _ := os.ReadFile(path)
		name := filepath.Base(path)
		ps, err := f.Extract(name, data)
		if err != nil {
			continue
		}
		rewriteAll(t, name, data, ps)
	}
}

func rewriteAll(t *testing.T, name string, data []byte, ps []pins.Pin) {
	t.Helper()
	for _, p := range ps {
		if p.Skip != "" {
			if _, err := pins.Apply(f, name, data, []pins.Edit{{Pin: p, New: "<=9"}}); err == nil {
				t.Errorf("%s %s: a skipped pin (%s) was edited", name, p.Key, p.Skip)
			}
			continue
		}
		newC := ">=1.0,<=2.0"
		edit := pins.Edit{Pin: p, New: newC}
		if p.HashText != "" {
			// A hash-locked pin moves with new hashes, to another == pin.
			newC, edit.New = "==2.0", "==2.0"
			r, err := requirements.Rehash(data, p, []string{strings.Repeat("9", 64), strings.Repeat("8", 64)})
			if err != nil {
				t.Fatal(err)
			}
			edit.Extra = []pins.Replace{r}
		}
		out, err := pins.Apply(f, name, data, []pins.Edit{edit})
		if err != nil {
			t.Errorf("%s %s: %v", name, p.Key, err)
			continue
		}
		ins := newC
		if p.Constraint == "" {
			ins = p.Insert + newC
		}
		want := string(data[:p.Span.Start]) + ins + string(data[p.Span.End:])
		if p.HashText != "" {
			h := p.Hashes
			want = string(data[:p.Span.Start]) + ins + string(data[p.Span.End:h.Start]) + edit.Extra[0].New + string(data[h.End:])
		}
		if string(out) != want {
			t.Errorf("%s %s: bytes outside the spans changed", name, p.Key)
		}
		again, err := f.Extract(name, out)
		if err != nil {
			t.Fatal(err)
		}
		var q pins.Pin
		for _, q = range again {
			if q.Key == p.Key {
				break
			}
		}
		if q.Constraint != newC {
			t.Errorf("%s %s: reparsed constraint %q", name, p.Key, q.Constraint)
		}
		again1 := pins.Edit{Pin: q, New: newC}
		if p.HashText != "" {
			if q.HashText != edit.Extra[0].New {
				t.Errorf("%s %s: reparsed hashes %q, want %q", name, p.Key, q.HashText, edit.Extra[0].New)
			}
			r, err := requirements.Rehash(out, q, []string{strings.Repeat("8", 64), strings.Repeat("9", 64)})
			if err != nil {
				t.Fatal(err)
			}
			again1.Extra = []pins.Replace{r}
		}
		if out2, err := pins.Apply(f, name, out, []pins.Edit{again1}); err != nil || !bytes.Equal(out2, out) {
			t.Errorf("%s %s: second rewrite changed the file (%v)", name, p.Key, err)
		}
	}
}

func TestCRLF(t *testing.T) {
	data, _ := os.ReadFile("testdata/crlf.txt")
	ps, err := f.Extract("crlf.txt", data)
	if err != nil {
		t.Fatal(err)
	}
	out, err := pins.Apply(f, "crlf.txt", data, []pins.Edit{{Pin: ps[0], New: ">=0.58,<=0.67.0"}, {Pin: ps[1], New: "<=0.50.0"}})
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(strings.Replace(string(data), "<=0.66.0", "<=0.67.0", 1), "llvmlite\r\n", "llvmlite<=0.50.0\r\n", 1)
	if string(out) != want {
		t.Errorf("got %q\nwant %q", out, want)
	}
}

func TestErrors(t *testing.T) {
	data, _ := os.ReadFile("testdata/bad.txt")
	ps, err := f.Extract("bad.txt", data)
	e, ok := diag.As(err)
	if !ok || e.Line != 2 || e.Col != 1 || e.Key != "requirements[1]" || !strings.Contains(err.Error(), "bad.txt:2:1: requirements[1]: invalid requirement") {
		t.Errorf("Extract = %v, %v", ps, err)
	}
	if _, err := f.Extract("r.txt", []byte("-r\n")); err == nil || !strings.Contains(err.Error(), "r.txt:1:1: -r: expected a file name") {
		t.Errorf("-r without a file: %v", err)
	}
}

func TestIncludes(t *testing.T) {
	data := []byte("-r base.txt\n--requirement=../common/reqs.txt  # shared\n-c constraints.txt\n-rsub/x.txt\n--constraint \"quoted name.txt\"\n-r https://example.com/r.txt\n-r ${DIR}/r.txt\nnumba\n")
	incs, err := requirements.Includes("ci/requirements.txt", data)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, i := range incs {
		got = append(got, fmt.Sprintf("%s | %s", i, i.Path))
	}
	want := []string{
		"ci/requirements.txt:1: -r base.txt | ci/base.txt",
		"ci/requirements.txt:2: --requirement ../common/reqs.txt | common/reqs.txt",
		"ci/requirements.txt:3: -c constraints.txt | ci/constraints.txt",
		"ci/requirements.txt:4: -r sub/x.txt | ci/sub/x.txt",
		"ci/requirements.txt:5: --constraint quoted name.txt | ci/quoted name.txt",
		"ci/requirements.txt:6: -r https://example.com/r.txt | ",
		"ci/requirements.txt:7: -r ${DIR}/r.txt | ",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestFollow(t *testing.T) {
	files := map[string]string{
		"requirements-dev.txt":    "-r requirements.txt\npytest\n",
		"requirements.txt":        "-c pins/constraints.pip\nnumba>=0.58\n",
		"pins/constraints.pip":    "numba<=0.66.0\n-r ../extra.txt\n",
		"extra.txt":               "llvmlite\n",
		"loop/a.txt":              "-r b.txt\n",
		"loop/b.txt":              "numba\n-r c.txt\n",
		"loop/c.txt":              "-r a.txt\n",
		"missing/requirements.in": "-r nope.txt\n",
		"sub/outside.txt":         "numba\n-r ../../elsewhere.txt\n-c https://example.org/c.txt\n--requirement ${PINS}/r.txt\n",
	}
	read := func(p string) ([]byte, error) {
		if s, ok := files[p]; ok {
			return []byte(s), nil
		}
		return nil, fs.ErrNotExist
	}
	got, broken, unfollowed, err := requirements.Follow([]string{"requirements-dev.txt", "requirements.txt"}, read)
	if err != nil || broken != nil || unfollowed != nil {
		t.Fatal(err, broken, unfollowed)
	}
	var chains []string
	for _, in := range got {
		chains = append(chains, in.Path+" via "+in.ChainString())
	}
	want := []string{
		"requirements.txt via requirements-dev.txt:1: -r requirements.txt",
		"pins/constraints.pip via requirements-dev.txt:1: -r requirements.txt → requirements.txt:1: -c pins/constraints.pip",
		"extra.txt via requirements-dev.txt:1: -r requirements.txt → requirements.txt:1: -c pins/constraints.pip → pins/constraints.pip:2: -r ../extra.txt",
	}
	if diff := cmp.Diff(want, chains); diff != "" {
		t.Errorf("chains (-want +got):\n%s", diff)
	}

	// A cycle is an error at the include that closes it, not a hang.
	_, broken, _, err = requirements.Follow([]string{"loop/a.txt"}, read)
	if err == nil || err.Error() != "loop/c.txt:1:1: -r: include cycle: loop/a.txt:1: -r b.txt → loop/b.txt:2: -r c.txt → loop/c.txt:1: -r a.txt" {
		t.Errorf("cycle: %v", err)
	}
	if diff := cmp.Diff([]string{"loop/a.txt", "loop/b.txt", "loop/c.txt"}, broken); diff != "" {
		t.Errorf("broken by the cycle (-want +got):\n%s", diff)
	}
	_, broken, _, err = requirements.Follow([]string{"requirements.txt", "missing/requirements.in"}, read)
	if diff := cmp.Diff([]string{"missing/requirements.in"}, broken); diff != "" {
		t.Errorf("broken by the missing file (-want +got):\n%s", diff)
	}
	if e, ok := diag.As(err); !ok || e.Line != 1 || !strings.Contains(err.Error(), "missing/requirements.in:1:1: -r: -r nope.txt: no such file missing/nope.txt") {
		t.Errorf("missing include: %v", err)
	}
	var de *diag.Error
	if !errors.As(err, &de) {
		t.Error("not a diag.Error")
	}

	// Includes pip would read but pinbot cannot are named, line by line,
	// and break nothing: the file's own pins stand.
	_, broken, unfollowed, err = requirements.Follow([]string{"sub/outside.txt"}, read)
	if err != nil || broken != nil {
		t.Fatal(err, broken)
	}
	var msgs []string
	for _, e := range unfollowed {
		msgs = append(msgs, e.Error())
	}
	wantMsgs := []string{
		"sub/outside.txt:2:1: -r: -r ../../elsewhere.txt not followed: it leads outside the repository; pins in it are not checked",
		"sub/outside.txt:3:1: -c: -c https://example.org/c.txt not followed: it is a URL, which pinbot does not fetch; pins in it are not checked",
		"sub/outside.txt:4:1: --requirement: --requirement ${PINS}/r.txt not followed: it names an environment variable, which pinbot does not expand; pins in it are not checked",
	}
	if diff := cmp.Diff(wantMsgs, msgs); diff != "" {
		t.Errorf("unfollowed (-want +got):\n%s", diff)
	}
}

func FuzzExtract(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.txt")
	for _, p := range files {
		data, _ := os.ReadFile(p)
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ps, err := requirements.Format{}.Extract("requirements.txt", data)
		if err != nil {
			return
		}
		for _, p := range ps {
			if p.Skip != "" {
				continue
			}
			if p.Span.Start < 0 || p.Span.End > len(data) || p.Span.Start > p.Span.End || string(data[p.Span.Start:p.Span.End]) != p.Constraint {
				t.Fatalf("pin %+v: span does not hold its constraint", p)
			}
			if h := p.Hashes; p.HashText != "" && (h.Start < p.Span.End || h.End > len(data) || h.Start > h.End || string(data[h.Start:h.End]) != p.HashText) {
				t.Fatalf("pin %+v: hash span does not hold its hash options", p)
			}
			if p.HashText != "" {
				// An editable hash-locked pin moves with new hashes.
				r, err := requirements.Rehash(data, p, []string{strings.Repeat("a", 64), strings.Repeat("b", 64)})
				if err != nil {
					t.Fatal(err)
				}
				if _, err := pins.Apply(requirements.Format{}, "requirements.txt", data, []pins.Edit{{Pin: p, New: "==9", Extra: []pins.Replace{r}}}); err != nil {
					t.Fatalf("pin %+v: %v", p, err)
				}
			}
		}
		requirements.Includes("requirements.txt", data)
	})
}
