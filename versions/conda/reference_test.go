package conda

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/pinbot-dev/pinbot/versions"
)

// The tables in this file are ported from conda/conda, tests/models/test_version.py
// at commit 0c9d491f4635dbacf0150e7265a257d973a5fcd1 (the behaviour of
// conda/models/version.py at 333a995baaa4220db989e52a5654bb967eb5d65d). Every
// assertion about versions and version specs is here. Not ported: the
// object-model checks (VersionOrder and VersionSpec caching, ==/!= and hash of
// VersionSpec objects, repr, is_exact) and the canonical spec string
// (VersionSpec.spec), which pinbot does not render; the parse that string
// comes from is ported.

var scheme = Scheme{}

// atomsString writes a component list as conda's VersionOrder.version prints
// it: [[0], [1], [1, 'DEV', 1]], with inf for post.
func atomsString(cs [][]atom) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, c := range cs {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteByte('[')
		for j, a := range c {
			if j > 0 {
				b.WriteString(", ")
			}
			switch a.kind {
			case intAtom:
				if a.s == "" {
					b.WriteByte('0')
				}
				b.WriteString(a.s)
			case infAtom:
				b.WriteString("inf")
			default:
				b.WriteString("'" + a.s + "'")
			}
		}
		b.WriteByte(']')
	}
	b.WriteByte(']')
	return b.String()
}

// condaVersionOrder is test_version_order's list: each version with the parse
// conda expects, in sorted order.
var condaVersionOrder = []struct{ v, parsed string }{
	{"0.4", "[[0], [0], [4]]"},
	{"0.4.0", "[[0], [0], [4], [0]]"},
	{"0.4.1a.vc11", "[[0], [0], [4], [1, 'a'], [0, 'vc', 11]]"},
	{"0.4.1.rc", "[[0], [0], [4], [1], [0, 'rc']]"},
	{"0.4.1.vc11", "[[0], [0], [4], [1], [0, 'vc', 11]]"},
	{"0.4.1", "[[0], [0], [4], [1]]"},
	{"0.5*", "[[0], [0], [5, '*']]"},
	{"0.5a1", "[[0], [0], [5, 'a', 1]]"},
	{"0.5b3", "[[0], [0], [5, 'b', 3]]"},
	{"0.5C1", "[[0], [0], [5, 'c', 1]]"},
	{"0.5z", "[[0], [0], [5, 'z']]"},
	{"0.5za", "[[0], [0], [5, 'za']]"},
	{"0.5", "[[0], [0], [5]]"},
	{"0.5_5", "[[0], [0], [5], [5]]"},
	{"0.5-5", "[[0], [0], [5], [5]]"},
	{"0.9.6", "[[0], [0], [9], [6]]"},
	{"0.960923", "[[0], [0], [960923]]"},
	{"1.0", "[[0], [1], [0]]"},
	{"1.0.4a3", "[[0], [1], [0], [4, 'a', 3]]"},
	{"1.0.4b1", "[[0], [1], [0], [4, 'b', 1]]"},
	{"1.0.4", "[[0], [1], [0], [4]]"},
	{"1.1dev1", "[[0], [1], [1, 'DEV', 1]]"},
	{"1.1_", "[[0], [1], [1, '_']]"},
	{"1.1a1", "[[0], [1], [1, 'a', 1]]"},
	{"1.1.dev1", "[[0], [1], [1], [0, 'DEV', 1]]"},
	{"1.1.a1", "[[0], [1], [1], [0, 'a', 1]]"},
	{"1.1", "[[0], [1], [1]]"},
	{"1.1.post1", "[[0], [1], [1], [0, inf, 1]]"},
	{"1.1.1dev1", "[[0], [1], [1], [1, 'DEV', 1]]"},
	{"1.1.1rc1", "[[0], [1], [1], [1, 'rc', 1]]"},
	{"1.1.1", "[[0], [1], [1], [1]]"},
	{"1.1.1post1", "[[0], [1], [1], [1, inf, 1]]"},
	{"1.1post1", "[[0], [1], [1, inf, 1]]"},
	{"2g6", "[[0], [2, 'g', 6]]"},
	{"2.0b1pr0", "[[0], [2], [0, 'b', 1, 'pr', 0]]"},
	{"2.2be.ta29", "[[0], [2], [2, 'be'], [0, 'ta', 29]]"},
	{"2.2be5ta29", "[[0], [2], [2, 'be', 5, 'ta', 29]]"},
	{"2.2beta29", "[[0], [2], [2, 'beta', 29]]"},
	{"2.2.0.1", "[[0], [2], [2], [0], [1]]"},
	{"3.1.1.6", "[[0], [3], [1], [1], [6]]"},
	{"3.2.p.r0", "[[0], [3], [2], [0, 'p'], [0, 'r', 0]]"},
	{"3.2.pr0", "[[0], [3], [2], [0, 'pr', 0]]"},
	{"3.2.pr.1", "[[0], [3], [2], [0, 'pr'], [1]]"},
	{"5.5.kw", "[[0], [5], [5], [0, 'kw']]"},
	{"11g", "[[0], [11, 'g']]"},
	{"14.3.1", "[[0], [14], [3], [1]]"},
	{"14.3.1.post26.g9d75ca2", "[[0], [14], [3], [1], [0, inf, 26], [0, 'g', 9, 'd', 75, 'ca', 2]]"},
	{"1996.07.12", "[[0], [1996], [7], [12]]"},
	{"1!0.4.1", "[[1], [0], [4], [1]]"},
	{"1!3.1.1.6", "[[1], [3], [1], [1], [6]]"},
	{"2!0.4.1", "[[2], [0], [4], [1]]"},
}

// TestCondaVersionOrder is test_version_order: the parse, the normalised
// string, validity, equality, the sort order and startswith.
func TestCondaVersionOrder(t *testing.T) {
	for _, tt := range condaVersionOrder {
		v, ok := parseVersion(tt.v)
		if !ok {
			t.Errorf("VersionOrder(%q) does not parse", tt.v)
			continue
		}
		if got := atomsString(v.release); got != tt.parsed {
			t.Errorf("VersionOrder(%q).version = %s, want %s", tt.v, got, tt.parsed)
		}
		if want := strings.ReplaceAll(strings.ToLower(tt.v), "-", "_"); v.norm != want {
			t.Errorf("str(VersionOrder(%q)) = %q, want %q", tt.v, v.norm, want)
		}
	}
	// check __lt__: sorted(versions) == versions. sorted() is stable, so the
	// list is in order when no version is above a later one (0.4 and 0.4.0,
	// 0.5_5 and 0.5-5 are equal).
	list := make([]string, len(condaVersionOrder))
	for i, tt := range condaVersionOrder {
		list[i] = tt.v
	}
	if sorted := slices.SortedStableFunc(slices.Values(list), scheme.Compare); !slices.Equal(sorted, list) {
		t.Errorf("sorted(versions) = %q", sorted)
	}
	for i := range list {
		for j := i + 1; j < len(list); j++ {
			if scheme.Compare(list[i], list[j]) > 0 || scheme.Compare(list[j], list[i]) < 0 {
				t.Errorf("VersionOrder(%q) > VersionOrder(%q)", list[i], list[j])
			}
		}
	}
	if scheme.Compare("0.4.1.rc", "  0.4.1.RC  ") != 0 || !scheme.Valid("  0.4.1.RC  ") {
		t.Error(`VersionOrder("0.4.1.rc") != VersionOrder("  0.4.1.RC  ")`)
	}
	for _, bad := range []string{"", "", "  ", "3.5&1", "5.5++", "5.5..mw", "!", "a!1.0", "a!b!1.0"} {
		if scheme.Valid(bad) {
			t.Errorf("VersionOrder(%q) parses, want ValueError", bad)
		}
	}
	// check __eq__
	for _, tt := range []struct {
		a, b string
		eq   bool
	}{
		{"  0.4.rc  ", "0.4.RC", true}, {"0.4", "0.4.0", true}, {"0.4", "0.4.1", false},
		{"0.4.a1", "0.4.0a1", true}, {"0.4.a1", "0.4.1a1", false},
	} {
		if got := scheme.Compare(tt.a, tt.b) == 0; got != tt.eq {
			t.Errorf("VersionOrder(%q) == VersionOrder(%q) is %v, want %v", tt.a, tt.b, got, tt.eq)
		}
	}
	// check startswith
	for _, tt := range []struct {
		v, prefix string
		want      bool
	}{
		{"0.4.1", "0", true}, {"0.4.1", "0.4", true}, {"0.4.1p1", "0.4", true}, {"0.4.1p1", "0.4.1p", true},
		{"0.4.1p1", "0.4.1q1", false}, {"0.4", "0.4.1", false}, {"0.4.1+1.3", "0.4.1", true},
		{"0.4.1+1.3", "0.4.1+1", true}, {"0.4.1", "0.4.1+1.3", false}, {"0.4.1+1", "0.4.1+1.3", false},
	} {
		v, _ := parseVersion(tt.v)
		p, _ := parseVersion(tt.prefix)
		if got := v.hasPrefix(p); got != tt.want {
			t.Errorf("VersionOrder(%q).startswith(%q) = %v, want %v", tt.v, tt.prefix, got, tt.want)
		}
	}
}

// sortedUnder checks that shuffling list and sorting it by Compare gives list
// back, as the sorted() checks of test_version.py do.
func sortedUnder(t *testing.T, name string, list []string) {
	t.Helper()
	r := rand.New(rand.NewPCG(1, 2))
	for range 20 {
		shuffled := slices.Clone(list)
		r.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		slices.SortStableFunc(shuffled, scheme.Compare)
		if !slices.Equal(shuffled, list) {
			t.Fatalf("%s: sorted = %q, want %q", name, shuffled, list)
		}
	}
}

// TestCondaOrderLists is test_openssl_convention, test_pep440 and test_hexrd.
func TestCondaOrderLists(t *testing.T) {
	sortedUnder(t, "test_openssl_convention", []string{
		"1.0.1dev", "1.0.1_", "1.0.1a", "1.0.1b", "1.0.1c", "1.0.1d", "1.0.1r", "1.0.1rc", "1.0.1rc1", "1.0.1rc2",
		"1.0.1s", "1.0.1", "1.0.1post.a", "1.0.1post.b", "1.0.1post.z", "1.0.1post.za", "1.0.2",
	})
	sortedUnder(t, "test_pep440", []string{
		// Implicit epoch of 0
		"1.0a1", "1.0a2.dev456", "1.0a12.dev456", "1.0a12", "1.0b1.dev456", "1.0b2", "1.0b2.post345.dev456",
		"1.0b2.post345", "1.0c1.dev456", "1.0c1", "1.0c3", "1.0rc2", "1.0.dev456", "1.0", "1.0.post456.dev34",
		"1.0.post456", "1.1.dev1", "1.2.r32+123456", "1.2.rev33+123456", "1.2+abc", "1.2+abc123def", "1.2+abc123",
		"1.2+123abc", "1.2+123abc456", "1.2+1234.abc", "1.2+123456",
		// Explicit epoch of 1
		"1!1.0a1", "1!1.0a2.dev456", "1!1.0a12.dev456", "1!1.0a12", "1!1.0b1.dev456", "1!1.0b2",
		"1!1.0b2.post345.dev456", "1!1.0b2.post345", "1!1.0c1.dev456", "1!1.0c1", "1!1.0c3", "1!1.0rc2",
		"1!1.0.dev456", "1!1.0", "1!1.0.post456.dev34", "1!1.0.post456", "1!1.1.dev1", "1!1.2.r32+123456",
		"1!1.2.rev33+123456", "1!1.2+abc", "1!1.2+abc123def", "1!1.2+abc123", "1!1.2+123abc", "1!1.2+123abc456",
		"1!1.2+1234.abc", "1!1.2+123456",
	})
	sortedUnder(t, "test_hexrd", []string{"0.3.0.dev", "0.3.3"})
}

func spec(t *testing.T, text string) versions.Constraint {
	t.Helper()
	c, err := scheme.ParseConstraint(text)
	if err != nil {
		t.Fatalf("VersionSpec(%q): %v", text, err)
	}
	return c
}

// TestCondaVerEval is test_ver_eval and test_ver_eval_errors.
func TestCondaVerEval(t *testing.T) {
	for _, tt := range []struct {
		v, spec string
		want    bool
	}{
		{"1.7.0", "==1.7", true}, {"1.7.0", "<=1.7", true}, {"1.7.0", "<1.7", false}, {"1.7.0", ">=1.7", true},
		{"1.7.0", ">1.7", false}, {"1.6.7", ">=1.7", false}, {"2013a", ">2013b", false}, {"2013k", ">2013b", true},
		{"3.0.0", ">2013b", false}, {"1.0.0", ">1.0.0a", true}, {"1.0.0", ">1.0.0*", true}, {"1.0", "1.0*", true},
		{"1.0.0", "1.0*", true}, {"1.0", "1.0.0*", true}, {"1.0.1", "1.0.0*", false}, {"2013a", "2013a*", true},
		{"2013a", "2013b*", false}, {"2013ab", "2013a*", true}, {"1.3.4", "1.2.4*", false},
		{"1.2.3+4.5.6", "1.2.3*", true}, {"1.2.3+4.5.6", "1.2.3+4*", true}, {"1.2.3+4.5.6", "1.2.3+5*", false},
		{"1.2.3+4.5.6", "1.2.4+5*", false},
	} {
		if got := scheme.Match(tt.v, spec(t, tt.spec)); got != tt.want {
			t.Errorf("ver_eval(%q, %q) = %v, want %v", tt.v, tt.spec, got, tt.want)
		}
	}
	for _, bad := range []string{"><2.4.5", "!!2.4.5", "!"} {
		if _, err := scheme.ParseConstraint(bad); err == nil {
			t.Errorf("ver_eval(3.0.0, %q): no InvalidVersionSpec", bad)
		}
	}
}

// TestCondaVersionSpec is test_version_spec_1 to _4 (that the specs parse and
// are exact or prefix matches, by what they match), test_match,
// test_local_identifier, test_not_eq_star, test_compound_versions and
// test_compatible_release_versions.
func TestCondaVersionSpec(t *testing.T) {
	for _, tt := range []struct {
		spec, v string
		want    bool
	}{
		// test_version_spec_1, _3 and _4: 1.7.1 is exact, 1.7.1* and 1.7.1.* prefixes.
		{"1.7.1", "1.7.1", true}, {"1.7.1", "1.7.1.1", false}, {"1.7.1*", "1.7.1.1", true}, {"1.7.1.*", "1.7.1.1", true},
		{"1.7.1*,1.8.1*", "1.7.1", false}, {"1.7.1.*,1.8.1.*", "1.7.1", false}, {"1.7.1*,1.8.1.*", "1.8.1", false},
		// test_version_spec_2: ( (1.5|((1.6|1.7), 1.8), 1.9 |2.0))|2.1 is
		// ('|', '1.5', (',', ('|', '1.6', '1.7'), '1.8', '1.9'), '2.0', '2.1')
		{"( (1.5|((1.6|1.7), 1.8), 1.9 |2.0))|2.1", "1.5", true},
		{"( (1.5|((1.6|1.7), 1.8), 1.9 |2.0))|2.1", "1.6", false},
		{"( (1.5|((1.6|1.7), 1.8), 1.9 |2.0))|2.1", "2.0", true},
		{"( (1.5|((1.6|1.7), 1.8), 1.9 |2.0))|2.1", "2.1", true},
		{"( (1.5|((1.6|1.7), 1.8), 1.9 |2.0))|2.1", "1.8", false},

		// test_match, all against 1.7.1
		{"1.7.*", "1.7.1", true}, {"1.7.1", "1.7.1", true}, {"1.7.0", "1.7.1", false}, {"1.7", "1.7.1", false},
		{"1.5.*", "1.7.1", false}, {">=1.5", "1.7.1", true}, {"!=1.5", "1.7.1", true}, {"!=1.7.1", "1.7.1", false},
		{"==1.7.1", "1.7.1", true}, {"==1.7", "1.7.1", false}, {"==1.7.2", "1.7.1", false}, {"==1.7.1.0", "1.7.1", true},
		{"1.7.*|1.8.*", "1.7.1", true}, {">1.7,<1.8", "1.7.1", true}, {">1.7.1,<1.8", "1.7.1", false},
		{"^1.7.1$", "1.7.1", true}, {`^1\.7\.1$`, "1.7.1", true}, {`^1\.7\.[0-9]+$`, "1.7.1", true},
		{`^1\.8.*$`, "1.7.1", false}, {`^1\.[5-8]\.1$`, "1.7.1", true}, {`^[^1].*$`, "1.7.1", false},
		{`^[0-9+]+\.[0-9+]+\.[0-9]+$`, "1.7.1", true}, {"^$", "1.7.1", false}, {"^.*$", "1.7.1", true},
		{"1.7.*|^0.*$", "1.7.1", true}, {"1.6.*|^0.*$", "1.7.1", false}, {"1.6.*|^0.*$|1.7.1", "1.7.1", true},
		{"^0.*$|1.7.1", "1.7.1", true}, {`1.6.*|^.*\.7\.1$|0.7.1`, "1.7.1", true}, {"*", "1.7.1", true},
		{"1.*.1", "1.7.1", true}, {"1.5.*|>1.7,<1.8", "1.7.1", true}, {"1.5.*|>1.7,<1.7.1", "1.7.1", false},

		// test_local_identifier: a valid version string matches itself
		{"1.7.0", "1.7.0", true}, {"1.7.0.post123", "1.7.0.post123", true},
		{"1.7.0.post123.gabcdef9", "1.7.0.post123.gabcdef9", true},
		{"1.7.0.post123+gabcdef9", "1.7.0.post123+gabcdef9", true},

		// test_not_eq_star
		{"=3.3", "3.3.1", true}, {"=3.3", "3.3", true}, {"=3.3", "3.4", false},
		{"3.3.*", "3.3.1", true}, {"3.3.*", "3.3", true}, {"3.3.*", "3.4", false},
		{"=3.3.*", "3.3.1", true}, {"=3.3.*", "3.3", true}, {"=3.3.*", "3.4", false},
		{"!=3.3.*", "3.3.1", false}, {"!=3.3.*", "3.4", true}, {"!=3.3.*", "3.4.1", true},
		{"!=3.3", "3.3.1", true}, {"!=3.3", "3.3.0.0", false}, {"!=3.3.*", "3.3.0.0", false},

		// test_compound_versions
		{">=2.7, !=3.0.*, !=3.1.*, !=3.2.*, !=3.3.*", "2.6.8", false},
		{">=2.7, !=3.0.*, !=3.1.*, !=3.2.*, !=3.3.*", "2.7.2", true},
		{">=2.7, !=3.0.*, !=3.1.*, !=3.2.*, !=3.3.*", "3.3", false},
		{">=2.7, !=3.0.*, !=3.1.*, !=3.2.*, !=3.3.*", "3.3.4", false},
		{">=2.7, !=3.0.*, !=3.1.*, !=3.2.*, !=3.3.*", "3.4", true},
		{">=2.7, !=3.0.*, !=3.1.*, !=3.2.*, !=3.3.*", "3.4a", true},

		// test_compatible_release_versions
		{"~=1.10", "1.11.0", true}, {"~=1.10.0", "1.11.0", false}, {"~=3.3.2", "3.4.0", false},
		{"~=3.3.2", "3.3.1", false}, {"~=3.3.2", "3.3.2.0", true}, {"~=3.3.2", "3.3.3", true},
		{"~=3.3.2|==2.2", "2.2.0", true}, {"~=3.3.2|==2.2", "3.3.3", true}, {"~=3.3.2|==2.2", "2.2.1", false},
	} {
		if got := scheme.Match(tt.v, spec(t, tt.spec)); got != tt.want {
			t.Errorf("VersionSpec(%q).match(%q) = %v, want %v", tt.spec, tt.v, got, tt.want)
		}
	}
}

// TestCondaInvalidVersionSpecs is test_version_spec_2's refusals,
// test_invalid_version_specs, the refusal of test_compatible_release_versions
// and test_pep_440_arbitrary_equality_operator.
func TestCondaInvalidVersionSpecs(t *testing.T) {
	for _, bad := range []string{
		"(1.5", "1.5)", "1.5||1.6", "^1.5",
		"~", "^",
		// Test for previously mishandled uses of local version separator '+'
		"1.2+", "+1.2", "+1.2+", "++",
		// Fuzzer-identified crashers
		"c +, 0/|0 *",
		// Weird crashing versions intended to test unhandled edge cases in
		// the "treeify" process
		"a[version=)|(", "a=)(=b",
		// Test for mishandling of '==' and '=' without a version number
		"==", "=", ">=", "<=",
		"~=3.3.2.*",
		"===3.3.2",
	} {
		if c, err := scheme.ParseConstraint(bad); err == nil {
			t.Errorf("VersionSpec(%q) = %+v, want InvalidVersionSpec", bad, c.Clauses)
		}
	}
}
