package requirements_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pinbot-dev/pinbot/pins"
	"github.com/pinbot-dev/pinbot/pins/requirements"
)

// digest returns a fake sha256 hex digest made of c.
func digest(c string) string { return strings.Repeat(c, 64) }

// pinOf returns the pin of pkg in data.
func pinOf(t *testing.T, name string, data []byte, pkg string) pins.Pin {
	t.Helper()
	ps, err := f.Extract(name, data)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ps {
		if p.Package == pkg {
			return p
		}
	}
	t.Fatalf("no pin of %s in %q", pkg, data)
	return pins.Pin{}
}

// moveHashed moves the hash-locked pin of pkg to ==version with digests.
func moveHashed(t *testing.T, data []byte, pkg, version string, digests ...string) (string, error) {
	t.Helper()
	p := pinOf(t, "requirements.txt", data, pkg)
	if p.Skip != "" || p.HashText == "" {
		t.Fatalf("%s: not an editable hash-locked pin: skip %q, hashes %q", pkg, p.Skip, p.HashText)
	}
	r, err := requirements.Rehash(data, p, digests)
	if err != nil {
		return "", err
	}
	out, err := pins.Apply(f, "requirements.txt", data, []pins.Edit{{Pin: p, New: "==" + version, Extra: []pins.Replace{r}}})
	return string(out), err
}

// TestRehash moves hash-locked pins and checks the whole file: the version
// and the hash options change, sorted, in the layout of the first option;
// every other byte stays.
func TestRehash(t *testing.T) {
	a, b, c := digest("a"), digest("b"), digest("c")
	tests := []struct {
		name, in, pkg, want string
	}{
		{"one per continuation line, trailing comment kept",
			"# hand-written\nnumba==0.58.1 \\\n    --hash=sha256:" + digest("0") + " \\\n    --hash=sha256:" + digest("1") + "  # wheels\nllvmlite==0.41.1 --hash=sha256:" + digest("2") + "\n",
			"numba",
			"# hand-written\nnumba==0.67.0 \\\n    --hash=sha256:" + a + " \\\n    --hash=sha256:" + b + " \\\n    --hash=sha256:" + c + "  # wheels\nllvmlite==0.41.1 --hash=sha256:" + digest("2") + "\n"},
		{"CRLF and no final newline",
			"numba==0.58.1 \\\r\n    --hash=sha256:" + digest("0") + "\r\nllvmlite==0.41.1 \\\r\n    --hash=sha256:" + digest("2"),
			"llvmlite",
			"numba==0.58.1 \\\r\n    --hash=sha256:" + digest("0") + "\r\nllvmlite==0.67.0 \\\r\n    --hash=sha256:" + a + " \\\r\n    --hash=sha256:" + b + " \\\r\n    --hash=sha256:" + c},
		{"on the requirement's line: stays there",
			"numba==0.58.1 --hash=sha256:" + digest("0") + "\n",
			"numba",
			"numba==0.67.0 --hash=sha256:" + a + " --hash=sha256:" + b + " --hash=sha256:" + c + "\n"},
		{"first on the line, the others continued: one per line",
			"numba==0.58.1 --hash=sha256:" + digest("0") + " \\\n        --hash=sha256:" + digest("1") + "\n",
			"numba",
			"numba==0.67.0 --hash=sha256:" + a + " \\\n        --hash=sha256:" + b + " \\\n        --hash=sha256:" + c + "\n"},
		{"no indentation, the space form, a marker",
			"numba==0.58.1; python_version >= \"3.10\" \\\n--hash sha256:" + digest("0") + "\n",
			"numba",
			"numba==0.67.0; python_version >= \"3.10\" \\\n--hash sha256:" + a + " \\\n--hash sha256:" + b + " \\\n--hash sha256:" + c + "\n"},
		{"two backslashes, as pip strips them all",
			"numba==0.58.1 \\\\\n  --hash=sha256:" + digest("0") + "\n",
			"numba",
			"numba==0.67.0 \\\\\n  --hash=sha256:" + a + " \\\\\n  --hash=sha256:" + b + " \\\\\n  --hash=sha256:" + c + "\n"},
		{"other algorithms become sha256, options before them stay",
			"numba==0.58.1 --config-settings=x \\\n  --hash=sha512:" + strings.Repeat("e", 128) + " \\\n  --hash=sha384:" + strings.Repeat("d", 96) + "\n",
			"numba",
			"numba==0.67.0 --config-settings=x \\\n  --hash=sha256:" + a + " \\\n  --hash=sha256:" + b + " \\\n  --hash=sha256:" + c + "\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Unsorted, upper case and repeated: written sorted, once, in lower case.
			got, err := moveHashed(t, []byte(tt.in), tt.pkg, "0.67.0", c, strings.ToUpper(a), b, a)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			// The rewritten file reads back with the new hashes and moves
			// again to the same bytes.
			again, err := moveHashed(t, []byte(got), tt.pkg, "0.67.0", a, b, c)
			if err != nil || again != got {
				t.Errorf("second move: %v\n%q", err, again)
			}
		})
	}
}

// TestHashRefusals checks that Apply and Rehash refuse what would give a file
// pip rejects, and return no data.
func TestHashRefusals(t *testing.T) {
	data := []byte("numba==0.58.1 \\\n    --hash=sha256:" + digest("0") + "\nllvmlite==0.41.1 --hash=sha256:" + digest("1") + "\n")
	numba := pinOf(t, "requirements.txt", data, "numba")
	llvmlite := pinOf(t, "requirements.txt", data, "llvmlite")
	good, err := requirements.Rehash(data, numba, []string{digest("a")})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		edits []pins.Edit
		want  string
	}{
		{"a new version without new hashes", []pins.Edit{{Pin: numba, New: "==0.67.0"}},
			"requirements.txt:1:1: requirements[0]: a new version needs new hashes"},
		{"the hashes of another pin", []pins.Edit{{Pin: llvmlite, New: "==0.50.0", Extra: []pins.Replace{good}}},
			"requirements.txt:3:1: requirements[1]: extra span"},
		{"an extra span that is not the hashes", []pins.Edit{{Pin: numba, New: "==0.67.0", Extra: []pins.Replace{{Span: pins.Span{Start: 0, End: 5}, Old: "numba", New: "numbb"}}}},
			"is not the pin's hash options"},
		{"the hashes replaced twice", []pins.Edit{{Pin: numba, New: "==0.67.0", Extra: []pins.Replace{good, good}}},
			"replaced twice"},
		{"a move that leaves == behind", []pins.Edit{{Pin: numba, New: ">=0.58.1", Extra: []pins.Replace{good}}},
			"requirements.txt:1:1: requirements[0]: rewrite produced hash options \"\""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := pins.Apply(f, "requirements.txt", data, tt.edits)
			if err == nil || !strings.Contains(err.Error(), tt.want) || out != nil {
				t.Errorf("Apply = %q, %v; want an error with %q", out, err, tt.want)
			}
		})
	}

	// The file changed under the pin: its hash span no longer holds the text.
	stale := []byte(strings.Replace(string(data), digest("0"), digest("f"), 1))
	if _, err := requirements.Rehash(stale, numba, []string{digest("a")}); err == nil || !strings.Contains(err.Error(), "requirements.txt:1:1: requirements[0]: the --hash options of numba==0.58.1 are not at bytes") {
		t.Errorf("Rehash on changed data: %v", err)
	}
	if out, err := pins.Apply(f, "requirements.txt", stale, []pins.Edit{{Pin: numba, New: "==0.67.0", Extra: []pins.Replace{good}}}); err == nil || out != nil {
		t.Errorf("Apply on changed data = %q, %v", out, err)
	}
	for _, digests := range [][]string{nil, {"abc"}, {strings.Repeat("g", 64)}} {
		if _, err := requirements.Rehash(data, numba, digests); err == nil {
			t.Errorf("Rehash(%q) gave no error", digests)
		}
	}
	if _, err := requirements.Rehash([]byte("numba==0.58.1\n"), pinOf(t, "r.txt", []byte("numba==0.58.1\n"), "numba"), []string{digest("a")}); err == nil ||
		!strings.Contains(err.Error(), "has no --hash options") {
		t.Errorf("Rehash of a pin without hashes: %v", err)
	}
}

// TestHashSkips lists the pins of hash-checking files that stay Skip, each with
// its reason.
func TestHashSkips(t *testing.T) {
	h := "--hash=sha256:" + digest("0")
	for _, tt := range []struct{ name, data, want string }{
		{"not ==", "numba>=0.58 " + h + "\n", "hash-locked: line 1 pins files by --hash, so pip checks hashes for every requirement of this file, which needs == pins"},
		{"===", "numba===0.58.1 " + h + "\n", "which needs == pins"},
		{"a wildcard", "numba==0.58.* " + h + "\n", "which needs == pins"},
		{"no hashes of its own", "llvmlite==0.41.1 " + h + "\nnumba==0.58.1\n", "hash-locked: line 1 pins files by --hash, so pip checks hashes for every requirement of this file, and this requirement has no --hash options of its own"},
		{"--require-hashes", "--require-hashes\nnumba==0.58.1\n", "hash-locked: the file sets --require-hashes"},
		{"hashes mixed with other options", "numba==0.58.1 " + h + " --config-settings=x " + h + "\n", "its --hash options are mixed with other options"},
		{"a value split over lines", "numba==0.58.1 --hash=sha256:" + digest("0")[:10] + "\\\n" + digest("0")[10:] + "\n", `a --hash option is continued over lines`},
		{"a --hash and its value on two lines", "numba==0.58.1 --hash \\\n  sha256:" + digest("0") + "\n", `a --hash option is continued over lines`},
		{"a --hash without a value", "numba==0.58.1 --hash\n", "hash-locked: line 1 pins files by --hash, so pip checks hashes for every requirement of this file; a --hash option without a value"},
		{"md5", "numba==0.58.1 --hash=md5:0123456789abcdef0123456789abcdef\n", `malformed --hash option "md5:`},
		{"a lock file", "# This file is autogenerated by pip-compile with Python 3.12\nnumba==0.58.1 " + h + "\n", "lock file (autogenerated by pip-compile)"},
		{"a uv lock file", "# This file was autogenerated by uv via the following command:\nnumba==0.58.1 " + h + "\n", "lock file (autogenerated by uv)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := pinOf(t, "requirements.txt", []byte(tt.data), "numba")
			if !strings.Contains(p.Skip, tt.want) || p.HashText != "" {
				t.Errorf("skip %q, hashes %q; want a skip with %q", p.Skip, p.HashText, tt.want)
			}
			if out, err := pins.Apply(f, "requirements.txt", []byte(tt.data), []pins.Edit{{Pin: p, New: "==0.67.0"}}); err == nil || out != nil {
				t.Errorf("Apply edited a skipped pin: %q", out)
			}
		})
	}
}
