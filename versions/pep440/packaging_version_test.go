package pep440_test

import (
	"slices"
	"testing"

	"github.com/pinbot-dev/pinbot/versions/pep440"
)

// The tables in this file are ported from pypa/packaging, tests/test_version.py
// at commit 0345ccd3d1e5b0e14b84de4fb6bca0b82f7145e3. Every parametrised row of
// the semantic tests is here. Not ported, because they test Python's object
// model rather than version semantics: hashing, repr, __match_args__,
// NotImplemented for foreign types, _BaseVersion subclasses, the key cache,
// replace(), from_parts() and the constructor cache.

// packagingVersions is VERSIONS: "This list must be in the correct sorting order".
var packagingVersions = []string{
	// Implicit epoch of 0
	"1.0.dev0", "1.0.dev456", "1.0.dev456+local", "1.0a0", "1.0a0.post0.dev0", "1.0a0.post0",
	"1.0a1.dev1", "1.0a1.dev1+local", "1.0a1", "1.0a1+local", "1.0b0", "1.0b1.dev456", "1.0b2",
	"1.0b2.post345.dev456", "1.0b2.post345", "1.0b2-346", "1.0rc0", "1.0rc1.dev1", "1.0c1", "1.0rc2",
	"1.0", "1.0.post0.dev0", "1.0.post0", "1.0.post456.dev34", "1.0.post456", "1.0.post456+local",
	"1.0.1.dev1", "1.0.1a1", "1.0.1", "1.0.1+local", "1.0.1.post1", "1.1.dev1",
	"1.2+a", "1.2+abc", "1.2+abcdef", "1.2+def", "1.2+0", "1.2+1", "1.2+1.abc", "1.2+1.1", "1.2+1.1.0",
	"1.2+2", "1.2+123", "1.2+123456", "1.2.r32+123456", "1.2.rev33+123456",
	// Explicit epoch of 1
	"1!1.0.dev0", "1!1.0.dev456", "1!1.0.dev456+local", "1!1.0a0", "1!1.0a0.post0.dev0", "1!1.0a0.post0",
	"1!1.0a1.dev1", "1!1.0a1.dev1+local", "1!1.0a1", "1!1.0a1+local", "1!1.0b0", "1!1.0b1.dev456", "1!1.0b2",
	"1!1.0b2.post345.dev456", "1!1.0b2.post345", "1!1.0b2-346", "1!1.0rc0", "1!1.0rc1.dev1", "1!1.0c1", "1!1.0rc2",
	"1!1.0", "1!1.0.post0.dev0", "1!1.0.post0", "1!1.0.post456.dev34", "1!1.0.post456", "1!1.0.post456+local",
	"1!1.0.1.dev1", "1!1.0.1a1", "1!1.0.1", "1!1.0.1+local", "1!1.0.1.post1", "1!1.1.dev1",
	"1!1.2+a", "1!1.2+abc", "1!1.2+abcdef", "1!1.2+def", "1!1.2+0", "1!1.2+1", "1!1.2+1.abc", "1!1.2+1.1", "1!1.2+1.1.0",
	"1!1.2+2", "1!1.2+123", "1!1.2+123456", "1!1.2.r32+123456", "1!1.2.rev33+123456",
}

func mustParse(t *testing.T, s string) pep440.Version {
	t.Helper()
	v, err := pep440.Parse(s)
	if err != nil {
		t.Fatalf("Parse(%q): %v", s, err)
	}
	return v
}

// TestPackagingValidVersions is test_valid_versions.
func TestPackagingValidVersions(t *testing.T) {
	for _, v := range packagingVersions {
		if _, err := pep440.Parse(v); err != nil {
			t.Errorf("Parse(%q): %v", v, err)
		}
	}
}

// TestPackagingComparison is test_comparison_true and test_comparison_false:
// for every pair of VERSIONS, each of <, <=, ==, !=, >=, > holds exactly when
// the positions in the list say so, which is Compare returning the sign of
// i-j.
func TestPackagingComparison(t *testing.T) {
	parsed := make([]pep440.Version, len(packagingVersions))
	for i, v := range packagingVersions {
		parsed[i] = mustParse(t, v)
	}
	for i := range parsed {
		for j := range parsed {
			want := 0
			switch {
			case i < j:
				want = -1
			case i > j:
				want = 1
			}
			if got := parsed[i].Compare(parsed[j]); got != want {
				t.Errorf("Compare(%q, %q) = %d, want %d", packagingVersions[i], packagingVersions[j], got, want)
			}
			if got := s.Compare(packagingVersions[i], packagingVersions[j]); got != want {
				t.Errorf("Scheme.Compare(%q, %q) = %d, want %d", packagingVersions[i], packagingVersions[j], got, want)
			}
		}
	}
}

// TestPackagingInvalidVersions is test_invalid_versions and test_parse_raises.
func TestPackagingInvalidVersions(t *testing.T) {
	for _, v := range []string{
		"lolwat",
		// Non sensical versions should be invalid
		"french toast",
		// Versions with invalid local versions
		"1.0+a+", "1.0++", "1.0+_foobar", "1.0+foo&asd", "1.0+1+1",
		// Spaces in versions are also invalid
		"1. 0", "1 .0", "1. 0a1", "1 .0a1", "1.0 a1", "1.0a 1",
		// Versions do need to be standard numbers
		"٠١٢.٣٤٥.٦٧٨٩",
		// Invalid versions that trigger the fast path (digits/dots only)
		".", "..", "1..0", "1.0.", ".1.0", "1..2.3",
		// Local version which includes a non-ASCII letter that matches
		// regex '[a-z]' when re.IGNORECASE is in force and re.ASCII is not
		"1.0+\u0130",
	} {
		if got, err := pep440.Parse(v); err == nil {
			t.Errorf("Parse(%q) = %v, want an error", v, got)
		}
		if s.Valid(v) {
			t.Errorf("Valid(%q) = true", v)
		}
	}
}

// TestPackagingNormalized is test_normalized_versions, test_version_str_repr
// and test_version_rc_and_c_equals.
func TestPackagingNormalized(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		// Various development release incarnations
		{"1.0dev", "1.0.dev0"}, {"1.0.dev", "1.0.dev0"}, {"1.0dev1", "1.0.dev1"}, {"1.0-dev", "1.0.dev0"},
		{"1.0-dev1", "1.0.dev1"}, {"1.0DEV", "1.0.dev0"}, {"1.0.DEV", "1.0.dev0"}, {"1.0DEV1", "1.0.dev1"},
		{"1.0.DEV1", "1.0.dev1"}, {"1.0-DEV", "1.0.dev0"}, {"1.0-DEV1", "1.0.dev1"},
		// Various alpha incarnations
		{"1.0a", "1.0a0"}, {"1.0.a", "1.0a0"}, {"1.0.a1", "1.0a1"}, {"1.0-a", "1.0a0"}, {"1.0-a1", "1.0a1"},
		{"1.0alpha", "1.0a0"}, {"1.0.alpha", "1.0a0"}, {"1.0.alpha1", "1.0a1"}, {"1.0-alpha", "1.0a0"},
		{"1.0-alpha1", "1.0a1"}, {"1.0A", "1.0a0"}, {"1.0.A", "1.0a0"}, {"1.0.A1", "1.0a1"}, {"1.0-A", "1.0a0"},
		{"1.0-A1", "1.0a1"}, {"1.0ALPHA", "1.0a0"}, {"1.0.ALPHA", "1.0a0"}, {"1.0.ALPHA1", "1.0a1"},
		{"1.0-ALPHA", "1.0a0"}, {"1.0-ALPHA1", "1.0a1"},
		// Various beta incarnations
		{"1.0b", "1.0b0"}, {"1.0.b", "1.0b0"}, {"1.0.b1", "1.0b1"}, {"1.0-b", "1.0b0"}, {"1.0-b1", "1.0b1"},
		{"1.0beta", "1.0b0"}, {"1.0.beta", "1.0b0"}, {"1.0.beta1", "1.0b1"}, {"1.0-beta", "1.0b0"},
		{"1.0-beta1", "1.0b1"}, {"1.0B", "1.0b0"}, {"1.0.B", "1.0b0"}, {"1.0.B1", "1.0b1"}, {"1.0-B", "1.0b0"},
		{"1.0-B1", "1.0b1"}, {"1.0BETA", "1.0b0"}, {"1.0.BETA", "1.0b0"}, {"1.0.BETA1", "1.0b1"},
		{"1.0-BETA", "1.0b0"}, {"1.0-BETA1", "1.0b1"},
		// Various release candidate incarnations
		{"1.0c", "1.0rc0"}, {"1.0.c", "1.0rc0"}, {"1.0.c1", "1.0rc1"}, {"1.0-c", "1.0rc0"}, {"1.0-c1", "1.0rc1"},
		{"1.0rc", "1.0rc0"}, {"1.0.rc", "1.0rc0"}, {"1.0.rc1", "1.0rc1"}, {"1.0-rc", "1.0rc0"}, {"1.0-rc1", "1.0rc1"},
		{"1.0C", "1.0rc0"}, {"1.0.C", "1.0rc0"}, {"1.0.C1", "1.0rc1"}, {"1.0-C", "1.0rc0"}, {"1.0-C1", "1.0rc1"},
		{"1.0RC", "1.0rc0"}, {"1.0.RC", "1.0rc0"}, {"1.0.RC1", "1.0rc1"}, {"1.0-RC", "1.0rc0"}, {"1.0-RC1", "1.0rc1"},
		// Various post release incarnations
		{"1.0post", "1.0.post0"}, {"1.0.post", "1.0.post0"}, {"1.0post1", "1.0.post1"}, {"1.0-post", "1.0.post0"},
		{"1.0-post1", "1.0.post1"}, {"1.0POST", "1.0.post0"}, {"1.0.POST", "1.0.post0"}, {"1.0POST1", "1.0.post1"},
		{"1.0r", "1.0.post0"}, {"1.0rev", "1.0.post0"}, {"1.0.POST1", "1.0.post1"}, {"1.0.r1", "1.0.post1"},
		{"1.0.rev1", "1.0.post1"}, {"1.0-POST", "1.0.post0"}, {"1.0-POST1", "1.0.post1"}, {"1.0-5", "1.0.post5"},
		{"1.0-r5", "1.0.post5"}, {"1.0-rev5", "1.0.post5"},
		// Local version case insensitivity
		{"1.0+AbC", "1.0+abc"},
		// Integer Normalization
		{"1.01", "1.1"}, {"1.0a05", "1.0a5"}, {"1.0b07", "1.0b7"}, {"1.0c056", "1.0rc56"}, {"1.0rc09", "1.0rc9"},
		{"1.0.post000", "1.0.post0"}, {"1.1.dev09000", "1.1.dev9000"}, {"00!1.2", "1.2"}, {"0100!0.0", "100!0.0"},
		// Various other normalizations
		{"v1.0", "1.0"}, {"   v1.0\t\n", "1.0"},
		// Non-ASCII whitespace
		{"\u202f1.0\t\u2029\n ", "1.0"},

		// test_version_str_repr
		{"1.0.dev456", "1.0.dev456"}, {"1.0a1", "1.0a1"}, {"1.0a2.dev456", "1.0a2.dev456"},
		{"1.0a12.dev456", "1.0a12.dev456"}, {"1.0a12", "1.0a12"}, {"1.0b1.dev456", "1.0b1.dev456"},
		{"1.0b2", "1.0b2"}, {"1.0b2.post345.dev456", "1.0b2.post345.dev456"}, {"1.0b2.post345", "1.0b2.post345"},
		{"1.0rc1.dev456", "1.0rc1.dev456"}, {"1.0rc1", "1.0rc1"}, {"1.0", "1.0"},
		{"1.0.post456.dev34", "1.0.post456.dev34"}, {"1.0.post456", "1.0.post456"}, {"1.0.1", "1.0.1"},
		{"0!1.0.2", "1.0.2"}, {"1.0.3+7", "1.0.3+7"}, {"0!1.0.4+8.0", "1.0.4+8.0"}, {"1.0.5+9.5", "1.0.5+9.5"},
		{"1.2+1234.abc", "1.2+1234.abc"}, {"1.2+123456", "1.2+123456"}, {"1.2+123abc", "1.2+123abc"},
		{"1.2+123abc456", "1.2+123abc456"}, {"1.2+abc", "1.2+abc"}, {"1.2+abc123", "1.2+abc123"},
		{"1.2+abc123def", "1.2+abc123def"}, {"1.1.dev1", "1.1.dev1"}, {"7!1.0.dev456", "7!1.0.dev456"},
		{"7!1.0a1", "7!1.0a1"}, {"7!1.0a2.dev456", "7!1.0a2.dev456"}, {"7!1.0a12.dev456", "7!1.0a12.dev456"},
		{"7!1.0a12", "7!1.0a12"}, {"7!1.0b1.dev456", "7!1.0b1.dev456"}, {"7!1.0b2", "7!1.0b2"},
		{"7!1.0b2.post345.dev456", "7!1.0b2.post345.dev456"}, {"7!1.0b2.post345", "7!1.0b2.post345"},
		{"7!1.0rc1.dev456", "7!1.0rc1.dev456"}, {"7!1.0rc1", "7!1.0rc1"}, {"7!1.0", "7!1.0"},
		{"7!1.0.post456.dev34", "7!1.0.post456.dev34"}, {"7!1.0.post456", "7!1.0.post456"}, {"7!1.0.1", "7!1.0.1"},
		{"7!1.0.2", "7!1.0.2"}, {"7!1.0.3+7", "7!1.0.3+7"}, {"7!1.0.4+8.0", "7!1.0.4+8.0"},
		{"7!1.0.5+9.5", "7!1.0.5+9.5"}, {"7!1.1.dev1", "7!1.1.dev1"},
	} {
		if got := mustParse(t, tt.in).String(); got != tt.want {
			t.Errorf("Parse(%q).String() = %q, want %q", tt.in, got, tt.want)
		}
	}
	if mustParse(t, "1.0rc1").Compare(mustParse(t, "1.0c1")) != 0 {
		t.Error("1.0rc1 != 1.0c1")
	}
}

// versionParts is the table the attribute tests of test_version.py share:
// each version with its public, base_version, epoch, release, local, pre, dev
// and post (the rows of test_version_public, _base_version, _epoch, _release,
// _local, _pre, _dev and _post, and of _is_devrelease, which follows dev).
var versionParts = []struct {
	v, public, base, epoch string
	release                []string
	local                  string // "" for None
	pre                    string // label+number, "" for None
	dev, post              string // "" for None
}{
	{"1.0", "1.0", "1.0", "0", []string{"1", "0"}, "", "", "", ""},
	{"1.0.dev0", "1.0.dev0", "1.0", "0", []string{"1", "0"}, "", "", "0", ""},
	{"1.0.dev6", "1.0.dev6", "1.0", "0", []string{"1", "0"}, "", "", "6", ""},
	{"1.0a1", "1.0a1", "1.0", "0", []string{"1", "0"}, "", "a1", "", ""},
	{"1.0a1.post5", "1.0a1.post5", "1.0", "0", []string{"1", "0"}, "", "a1", "", "5"},
	{"1.0a1.post5.dev6", "1.0a1.post5.dev6", "1.0", "0", []string{"1", "0"}, "", "a1", "6", "5"},
	{"1.0rc4", "1.0rc4", "1.0", "0", []string{"1", "0"}, "", "rc4", "", ""},
	{"1.0.post5", "1.0.post5", "1.0", "0", []string{"1", "0"}, "", "", "", "5"},
	{"1!1.0", "1!1.0", "1!1.0", "1", []string{"1", "0"}, "", "", "", ""},
	{"1!1.0.dev6", "1!1.0.dev6", "1!1.0", "1", []string{"1", "0"}, "", "", "6", ""},
	{"1!1.0a1", "1!1.0a1", "1!1.0", "1", []string{"1", "0"}, "", "a1", "", ""},
	{"1!1.0a1.post5", "1!1.0a1.post5", "1!1.0", "1", []string{"1", "0"}, "", "a1", "", "5"},
	{"1!1.0a1.post5.dev6", "1!1.0a1.post5.dev6", "1!1.0", "1", []string{"1", "0"}, "", "a1", "6", "5"},
	{"1!1.0rc4", "1!1.0rc4", "1!1.0", "1", []string{"1", "0"}, "", "rc4", "", ""},
	{"1!1.0.post5", "1!1.0.post5", "1!1.0", "1", []string{"1", "0"}, "", "", "", "5"},
	{"1.0+deadbeef", "1.0", "1.0", "0", []string{"1", "0"}, "deadbeef", "", "", ""},
	{"1.0.dev6+deadbeef", "1.0.dev6", "1.0", "0", []string{"1", "0"}, "deadbeef", "", "6", ""},
	{"1.0a1+deadbeef", "1.0a1", "1.0", "0", []string{"1", "0"}, "deadbeef", "a1", "", ""},
	{"1.0a1.post5+deadbeef", "1.0a1.post5", "1.0", "0", []string{"1", "0"}, "deadbeef", "a1", "", "5"},
	{"1.0a1.post5.dev6+deadbeef", "1.0a1.post5.dev6", "1.0", "0", []string{"1", "0"}, "deadbeef", "a1", "6", "5"},
	{"1.0rc4+deadbeef", "1.0rc4", "1.0", "0", []string{"1", "0"}, "deadbeef", "rc4", "", ""},
	{"1.0.post5+deadbeef", "1.0.post5", "1.0", "0", []string{"1", "0"}, "deadbeef", "", "", "5"},
	{"1!1.0+deadbeef", "1!1.0", "1!1.0", "1", []string{"1", "0"}, "deadbeef", "", "", ""},
	{"1!1.0.dev6+deadbeef", "1!1.0.dev6", "1!1.0", "1", []string{"1", "0"}, "deadbeef", "", "6", ""},
	{"1!1.0a1+deadbeef", "1!1.0a1", "1!1.0", "1", []string{"1", "0"}, "deadbeef", "a1", "", ""},
	{"1!1.0a1.post5+deadbeef", "1!1.0a1.post5", "1!1.0", "1", []string{"1", "0"}, "deadbeef", "a1", "", "5"},
	{"1!1.0a1.post5.dev6+deadbeef", "1!1.0a1.post5.dev6", "1!1.0", "1", []string{"1", "0"}, "deadbeef", "a1", "6", "5"},
	{"1!1.0rc4+deadbeef", "1!1.0rc4", "1!1.0", "1", []string{"1", "0"}, "deadbeef", "rc4", "", ""},
	{"1!1.0.post5+deadbeef", "1!1.0.post5", "1!1.0", "1", []string{"1", "0"}, "deadbeef", "", "", "5"},
}

// TestPackagingVersionParts is test_version_public, _base_version, _epoch,
// _release, _local, _pre, _dev, _is_devrelease and _post.
func TestPackagingVersionParts(t *testing.T) {
	for _, tt := range versionParts {
		v := mustParse(t, tt.v)
		label, n, ok := v.Pre()
		pre := ""
		if ok {
			pre = label + n
		}
		dev, devOK := v.Dev()
		if !devOK {
			dev = ""
		}
		post, postOK := v.Post()
		if !postOK {
			post = ""
		}
		if v.Public() != tt.public || v.BaseVersion() != tt.base || v.Epoch() != tt.epoch ||
			!slices.Equal(v.Release(), tt.release) || v.Local() != tt.local || pre != tt.pre ||
			dev != tt.dev || post != tt.post || v.IsDevrelease() != (tt.dev != "") || devOK != (tt.dev != "") {
			t.Errorf("Parse(%q): public %q base %q epoch %s release %v local %q pre %q dev %q post %q; want %+v",
				tt.v, v.Public(), v.BaseVersion(), v.Epoch(), v.Release(), v.Local(), pre, dev, post, tt)
		}
	}
}

// TestPackagingReleaseParts is test_major_version, test_minor_version and
// test_micro_version, read off the release numbers zero-padded.
func TestPackagingReleaseParts(t *testing.T) {
	part := func(v string, i int) string {
		r := mustParse(t, v).Release()
		if i < len(r) {
			return r[i]
		}
		return "0"
	}
	for _, tt := range []struct {
		v    string
		i    int
		want string
	}{
		{"2.1.0", 0, "2"}, {"2.1.0", 1, "1"}, {"2", 1, "0"}, {"2.1.3", 2, "3"}, {"2.1", 2, "0"}, {"2", 2, "0"},
	} {
		if got := part(tt.v, tt.i); got != tt.want {
			t.Errorf("release[%d] of %q = %s, want %s", tt.i, tt.v, got, tt.want)
		}
	}
}

// TestPackagingPrerelease is test_version_is_prerelease and
// test_version_is_postrelease.
func TestPackagingPrerelease(t *testing.T) {
	for _, tt := range []struct {
		v    string
		want bool
	}{
		{"1.0.dev0", true}, {"1.0.dev1", true}, {"1.0a1.dev1", true}, {"1.0b1.dev1", true}, {"1.0c1.dev1", true},
		{"1.0rc1.dev1", true}, {"1.0a1", true}, {"1.0b1", true}, {"1.0c1", true}, {"1.0rc1", true},
		{"1.0a1.post1.dev1", true}, {"1.0b1.post1.dev1", true}, {"1.0c1.post1.dev1", true}, {"1.0rc1.post1.dev1", true},
		{"1.0a1.post1", true}, {"1.0b1.post1", true}, {"1.0c1.post1", true}, {"1.0rc1.post1", true},
		{"1.0", false}, {"1.0+dev", false}, {"1.0.post1", false}, {"1.0.post1+dev", false},
	} {
		if got := mustParse(t, tt.v).IsPrerelease(); got != tt.want {
			t.Errorf("Parse(%q).IsPrerelease() = %v, want %v", tt.v, got, tt.want)
		}
		if got := s.Prerelease(tt.v); got != tt.want {
			t.Errorf("Scheme.Prerelease(%q) = %v, want %v", tt.v, got, tt.want)
		}
	}
	for _, tt := range []struct {
		v    string
		want bool
	}{
		{"1.0.dev1", false}, {"1.0", false}, {"1.0+foo", false}, {"1.0.post1.dev1", true}, {"1.0.post1", true},
	} {
		if got := mustParse(t, tt.v).IsPostrelease(); got != tt.want {
			t.Errorf("Parse(%q).IsPostrelease() = %v, want %v", tt.v, got, tt.want)
		}
	}
}
