package conda_test

import (
	"testing"

	"github.com/pinbot-dev/pinbot/versions/conda"
)

var s = conda.Scheme{}

// orderTable is the order in conda's VersionOrder docstring, one rank per line;
// versions on one line are equal. The docstring puts 0.4 strictly below 0.4.0,
// which contradicts its own 1.1.0 == 1.1 and the code's fill value 0: the code
// wins, so they share a rank here. 1.1_ is from the newer docstring (the
// openssl work-around).
var orderTable = [][]string{
	{"0.4", "0.4.0"}, // docstring: 0.4 < 0.4.0
	{"0.4.1.rc", "0.4.1.RC"},
	{"0.4.1"},
	{"0.5a1"},
	{"0.5b3"},
	{"0.5C1"},
	{"0.5"},
	{"0.9.6"},
	{"0.960923"},
	{"1.0"},
	{"1.1dev1"},
	{"1.1_"},
	{"1.1a1"},
	{"1.1.0dev1", "1.1.dev1"},
	{"1.1.a1"},
	{"1.1.0rc1"},
	{"1.1.0", "1.1"},
	{"1.1.0post1", "1.1.post1"},
	{"1.1post1"},
	{"1996.07.12"},
	{"1!0.4.1"},
	{"1!3.1.1.6"},
	{"2!0.4.1"},
}

// TestOrderTable checks every pair of the documented order, adjacent or not.
func TestOrderTable(t *testing.T) {
	type ranked struct {
		v    string
		rank int
	}
	var all []ranked
	for r, line := range orderTable {
		for _, v := range line {
			all = append(all, ranked{v, r})
		}
	}
	for _, a := range all {
		for _, b := range all {
			want := 0
			switch {
			case a.rank < b.rank:
				want = -1
			case a.rank > b.rank:
				want = 1
			}
			if got := s.Compare(a.v, b.v); got != want {
				t.Errorf("Compare(%q, %q) = %d, want %d", a.v, b.v, got, want)
			}
		}
	}
}

var compareTests = []struct {
	a, b string
	want int
}{
	// Where conda and PEP 440 disagree (reference/versions.md §4): conda's side.
	{"2.1.0+cu118", "2.1.0", -1}, // the local string sorts below the fill value 0
	{"1.0.dev3", "1.0a1", 1},     // dev in the 3rd component, a in the 2nd
	{"1.1.0post1", "1.1post1", -1},
	{"1.0-1", "1.0.1", 0},          // "-" becomes "_", a separator
	{"1.0alpha1", "1.0a1", 1},      // no spelling normalisation
	{"2.16.0-rc1", "2.16.0rc1", 1}, // 2.16.0_rc1 has a fourth component
	// ... and where they agree.
	{"2.16.0rc1", "2.16.0", -1},
	{"1.0.post1", "1.0", 1},
	{"1.0.dev3", "1.0", -1},
	{"1!2.0", "6.33.0", 1},
	{"0.61.0", "0.61", 0},

	// The versions pinbot's watched pins use.
	{"0.63.0rc1", "0.63.0", -1},
	{"0.62.1", "0.63.0rc1", -1},
	{"0.50.0dev0", "0.50", -1},
	{"0.50.0dev0", "0.49.9", 1},
	{"0.50.0dev0", "0.50.0rc1", -1},
	{"0.47.0", "0.47", 0},
	{"2021.6.0", "2021.10.0", -1},
	{"2.6.0", "2.5", 1},

	// Integers compare numerically, whatever their size or leading zeros.
	{"1.01", "1.1", 0},
	{"1.010", "1.9", 1},
	{"0.960923", "0.9.6", 1},
	{"1.123456789012345678901234567890", "1.123456789012345678901234567889", 1},
	{"1.000000000000000000000000000001", "1.1", 0},
	{"0!1.0", "1.0", 0},
	{"00!1.0", "1.0", 0},

	// Strings: case-insensitive, below integers; dev lowest, post highest.
	{"1.0A1", "1.0a1", 0},
	{"1.0DEV", "1.0dev", 0},
	{"1.0.a", "1.0.0", -1},
	{"1.0dev1", "1.0_1", -1},  // 1.0_1 is 1.0.1
	{"1.0dev", "1.0a", -1},    // dev below every other string
	{"1.0devel", "1.0dev", 1}, // only "dev" itself is special
	{"1.0devel", "1.0a", 1},   // devel is an ordinary string
	{"1.0post", "1.0.99", 1},  // post above every integer
	{"1.0post1", "1.0post2", -1},
	{"1.0.post", "1.0.postfix", 1}, // postfix is an ordinary string
	{"1.0.1a", "1.0.1", -1},        // letters are pre-releases, unlike openssl
	{"1.0.1_", "1.0.1a", -1},       // conda's openssl work-around
	{"1.0.1_", "1.0.1", -1},
	{"1.0.1_", "1.0.1dev", 1},

	// Epoch and local part.
	{"1!0.1", "9999.0", 1},
	{"1.0+1", "1.0+a", 1},
	{"1.0+a.1", "1.0+a", 1},
	{"1.0+a.0", "1.0+a", 0},
	{"1.0+a_b", "1.0+a.b", 0},
	{"1.1+a", "1.0+z", 1}, // the local part counts only on a tie

	// Surrounding space is stripped; "*" is an atom below every string.
	{"1.0 ", "1.0", 0},
	{" 1.0\t", "1.0", 0},
	{"1.0", "1.*", 1},
	{"0.5*", "0.5a1", -1},
	{"0.5*", "0.4.1", 1},
	{"1.*.1", "1.dev.1", -1},

	// Invalid versions sort lowest and equal each other.
	{"", "0", -1},
	{"1..0", "0", -1},
	{"bogus version", "1!", 0},
}

func TestCompare(t *testing.T) {
	for _, tt := range compareTests {
		if got := s.Compare(tt.a, tt.b); got != tt.want {
			t.Errorf("Compare(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
		if got := s.Compare(tt.b, tt.a); got != -tt.want {
			t.Errorf("Compare(%q, %q) = %d, want %d", tt.b, tt.a, got, -tt.want)
		}
	}
}

var validTests = []struct {
	in   string
	want bool
}{
	{"0.61.0", true},
	{"0.63.0rc1", true},
	{"2021.6.0", true},
	{"1.0-1", true},
	{"1.0_1", true},
	{"1!2.0", true},
	{"2.1.0+cu118", true},
	{"1.0.post1.dev2", true},
	{"1.1.parallel", true},
	{"1.0.1_", true},
	{"1.0-", true}, // 1.0_: the openssl work-around
	{"dev", true},  // [0, dev]
	{"V1.0", true}, // v is a string, as in 1.0v
	{"1.0RC1", true},
	{"1", true},
	{" 1.0", true}, // surrounding space is stripped
	{"1.0 ", true},
	{"1.*", true}, // "*" is an atom, as in conda's VersionOrder
	{"*", true},
	{"0.5*", true},
	{"1.0\u212a", true}, // Kelvin sign: Python lower-cases it to "k"

	{"", false},
	{"  ", false},
	{"1.0-1_2", false}, // "-" with "_" is kept, and invalid
	{"1..0", false},
	{".1", false},
	{"1.", false},
	{"1.0+", false},
	{"+1.0", false},
	{"1.0+a+b", false},
	{"1!2!3", false},
	{"a!1.0", false},
	{"!1.0", false},
	{"1!", false},
	{"1.0,2.0", false},
	{">=1.0", false},
	{"1.0=py3", false},
	{"1.0@", false},
	{"1.0é", false},
	{"1.0\u0130", false}, // lower-cases to two characters, one not ASCII
}

func TestValid(t *testing.T) {
	for _, tt := range validTests {
		if got := s.Valid(tt.in); got != tt.want {
			t.Errorf("Valid(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

var prereleaseTests = []struct {
	in   string
	want bool
}{
	{"0.63.0rc1", true},
	{"0.50.0dev0", true},
	{"1.1dev1", true},
	{"0.68.0dev0", true},
	{"1.0a1", true},
	{"1.0b2", true},
	{"1.0alpha", true},
	{"1.0.beta.3", true},
	{"1.0pre1", true},
	{"0.5C1", true},
	{"1.0.post1.dev2", true},
	{"1.1.parallel", true}, // a tag: sorts below 1.1, so not taken as stable
	{"1.1.1w", true},       // openssl-style letters sort below 1.1.1 in conda

	{"0.61.0", false},
	{"2021.6.0", false},
	{"1.0.post1", false},
	{"1.0post", false},
	{"1!2.0", false},
	{"2.1.0+cu118", false}, // the local part does not count
	{"2.1.0+dev", false},
	{"1.0.1_", false}, // "_" is no letter
	{"1.0-1", false},
	{"bogus version", false},
}

func TestPrerelease(t *testing.T) {
	for _, tt := range prereleaseTests {
		if got := s.Prerelease(tt.in); got != tt.want {
			t.Errorf("Prerelease(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestName(t *testing.T) {
	if s.Name() != "conda" || conda.Name != "conda" {
		t.Errorf("Name() = %q, want conda", s.Name())
	}
}
