package pep440_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/pinbot-dev/pinbot/versions/pep440"
)

// The tables in this file are ported from pypa/packaging, tests/test_specifiers.py
// at commit 00d365f9d287bfc82062b0e7ed6b4161b0b2f611. Python's prereleases
// argument (None, True, False) is pep440.PreDefault, PreInclude, PreExclude; a
// packaging.version.Version passed where a string is expected is its
// normalised string (packaging compares str(item)). Not ported, because they
// test Python's object model or APIs pinbot does not have: hashing, repr,
// pickling, __match_args__, Specifier and SpecifierSet equality and their
// canonical str(), combining sets with &, the internal caches, laziness,
// key= callbacks (ported with the key applied), the int-size limit of
// Python's str-to-int conversion, and SpecifierSet.is_unsatisfiable (its
// tables are ported as what they assert of filter over the sample versions).

const pre, nopre, def = pep440.PreInclude, pep440.PreExclude, pep440.PreDefault

// pyBool turns the Python None/True/False of a prereleases argument into a Pre.
type pyBool = pep440.Pre

// packagingSpecifiers is SPECIFIERS.
var packagingSpecifiers = []string{"~=2.0", "==2.1.*", "==2.1.0.3", "!=2.2.*", "!=2.2.0.5", "<=5", ">=7.9a1", "<1.0.dev1", ">2.0.post1"}

// legacySpecifiers is LEGACY_SPECIFIERS, which the file hashes as sets.
var legacySpecifiers = []string{"==2.1.0.3", "!=2.2.0.5", "<=5", ">=7.9a1", "<1.0.dev1", ">2.0.post1"}

func mustSpec(t *testing.T, s string, p pep440.Pre) pep440.Specifier {
	t.Helper()
	sp, err := pep440.ParseSpecifier(s)
	if err != nil {
		t.Fatalf("ParseSpecifier(%q): %v", s, err)
	}
	sp.Pre = p
	return sp
}

func mustSet(t *testing.T, s string, p pep440.Pre) pep440.SpecifierSet {
	t.Helper()
	set, err := pep440.ParseSpecifierSet(s)
	if err != nil {
		t.Fatalf("ParseSpecifierSet(%q): %v", s, err)
	}
	set.Pre = p
	return set
}

// TestPackagingSpecifiersValid is test_specifiers_valid (SPECIFIERS and the
// legacy list), test_specifier_operator_property and
// test_specifier_version_property.
func TestPackagingSpecifiersValid(t *testing.T) {
	for _, sp := range append(slices.Clone(packagingSpecifiers), legacySpecifiers...) {
		mustSpec(t, sp, def)
		mustSet(t, sp, def)
		if _, err := s.ParseConstraint(sp); err != nil {
			t.Errorf("ParseConstraint(%q): %v", sp, err)
		}
	}
	for _, tt := range []struct{ spec, op, version string }{
		{"~=2.0", "~=", "2.0"}, {"==2.1.*", "==", "2.1.*"}, {"==2.1.0.3", "==", "2.1.0.3"}, {"!=2.2.*", "!=", "2.2.*"},
		{"!=2.2.0.5", "!=", "2.2.0.5"}, {"<=5", "<=", "5"}, {">=7.9a1", ">=", "7.9a1"}, {"<1.0.dev1", "<", "1.0.dev1"},
		{">2.0.post1", ">", "2.0.post1"},
		// === is an escape hatch in PEP 440
		{"===lolwat", "===", "lolwat"},
	} {
		sp := mustSpec(t, tt.spec, def)
		if string(sp.Op) != tt.op || sp.Version != tt.version {
			t.Errorf("ParseSpecifier(%q) = %q %q, want %q %q", tt.spec, sp.Op, sp.Version, tt.op, tt.version)
		}
	}
}

// TestPackagingSpecifiersInvalid is test_specifiers_invalid.
func TestPackagingSpecifiersInvalid(t *testing.T) {
	for _, spec := range []string{
		// Operator-less specifier
		"2.0",
		// Invalid operator
		"=>2.0",
		// Version-less specifier
		"==",
		// Local segment on operators which don't support them
		"~=1.0+5", ">=1.0+deadbeef", "<=1.0+abc123", ">1.0+watwat", "<1.0+1.0",
		// Prefix matching on operators which don't support them
		"~=1.0.*", ">=1.0.*", "<=1.0.*", ">1.0.*", "<1.0.*",
		// Combination of local and prefix matching on operators which do
		// support one or the other
		"==1.0.*+5", "!=1.0.*+deadbeef",
		// Prefix matching cannot be used with a pre-release, post-release,
		// dev or local version
		"==2.0a1.*", "!=2.0a1.*", "==2.0.post1.*", "!=2.0.post1.*", "==2.0.dev1.*", "!=2.0.dev1.*",
		"==1.0+5.*", "!=1.0+deadbeef.*",
		// Prefix matching must appear at the end
		"==1.0.*.5",
		// Compatible operator requires 2 digits in the release operator
		"~=1",
		// Cannot use a prefix matching after a .devN version
		"==1.0.dev1.*", "!=1.0.dev1.*",
		// Local segment with a non-ASCII letter that matches regex '[a-z]'
		// when re.IGNORECASE is in force and re.ASCII is not (issue #469)
		"==1.2+\u0130", "==1.2+\u0130\u0131\u017fK",
	} {
		if sp, err := pep440.ParseSpecifier(spec); err == nil {
			t.Errorf("ParseSpecifier(%q) = %+v, want an error", spec, sp)
		}
		if c, err := s.ParseConstraint(spec); err == nil {
			t.Errorf("ParseConstraint(%q) = %+v, want an error", spec, c.Clauses)
		}
	}
}

// TestPackagingSpecifiersNormalized is test_specifiers_normalized: every
// spelling of a version is valid after every operator that takes it.
func TestPackagingSpecifiersNormalized(t *testing.T) {
	for _, v := range []string{
		// Various development release incarnations
		"1.0dev", "1.0.dev", "1.0dev1", "1.0-dev", "1.0-dev1", "1.0DEV", "1.0.DEV", "1.0DEV1", "1.0.DEV1", "1.0-DEV", "1.0-DEV1",
		// Various alpha incarnations
		"1.0a", "1.0.a", "1.0.a1", "1.0-a", "1.0-a1", "1.0alpha", "1.0.alpha", "1.0.alpha1", "1.0-alpha", "1.0-alpha1",
		"1.0A", "1.0.A", "1.0.A1", "1.0-A", "1.0-A1", "1.0ALPHA", "1.0.ALPHA", "1.0.ALPHA1", "1.0-ALPHA", "1.0-ALPHA1",
		// Various beta incarnations
		"1.0b", "1.0.b", "1.0.b1", "1.0-b", "1.0-b1", "1.0beta", "1.0.beta", "1.0.beta1", "1.0-beta", "1.0-beta1",
		"1.0B", "1.0.B", "1.0.B1", "1.0-B", "1.0-B1", "1.0BETA", "1.0.BETA", "1.0.BETA1", "1.0-BETA", "1.0-BETA1",
		// Various release candidate incarnations
		"1.0c", "1.0.c", "1.0.c1", "1.0-c", "1.0-c1", "1.0rc", "1.0.rc", "1.0.rc1", "1.0-rc", "1.0-rc1",
		"1.0C", "1.0.C", "1.0.C1", "1.0-C", "1.0-C1", "1.0RC", "1.0.RC", "1.0.RC1", "1.0-RC", "1.0-RC1",
		// Various post release incarnations
		"1.0post", "1.0.post", "1.0post1", "1.0-post", "1.0-post1", "1.0POST", "1.0.POST", "1.0POST1", "1.0.POST1",
		"1.0-POST", "1.0-POST1", "1.0-5",
		// Local version case insensitivity
		"1.0+AbC",
		// Integer Normalization
		"1.01", "1.0a05", "1.0b07", "1.0c056", "1.0rc09", "1.0.post000", "1.1.dev09000", "00!1.2", "0100!0.0",
		// Various other normalizations
		"v1.0", "  \r \f \v v1.0\t\n",
	} {
		ops := []string{"~=", "==", "!=", "<=", ">=", "<", ">"}
		if slices.Contains([]byte(v), '+') {
			ops = []string{"==", "!="}
		}
		for _, op := range ops {
			mustSpec(t, op+v, def)
			if _, err := s.ParseConstraint(op + v); err != nil {
				t.Errorf("ParseConstraint(%q): %v", op+v, err)
			}
		}
	}
}

// specifierRows is test_specifiers: Specifier(spec, prereleases=True)
// contains version exactly when expected.
var specifierRows = []struct {
	version, spec string
	want          bool
}{
	// Test the equality operation
	{"2.0", "==2", true}, {"2.0", "==2.0", true}, {"2.0", "==2.0.0", true}, {"2.0+deadbeef", "==2", true},
	{"2.0+deadbeef", "==2.0", true}, {"2.0+deadbeef", "==2.0.0", true}, {"2.0+deadbeef", "==2+deadbeef", true},
	{"2.0+deadbeef", "==2.0+deadbeef", true}, {"2.0+deadbeef", "==2.0.0+deadbeef", true},
	{"2.0+deadbeef.0", "==2.0.0+deadbeef.00", true},
	// Test the equality operation with a prefix
	{"2.dev1", "==2.*", true}, {"2a1", "==2.*", true}, {"2a1.post1", "==2.*", true}, {"2b1", "==2.*", true},
	{"2b1.dev1", "==2.*", true}, {"2c1", "==2.*", true}, {"2c1.post1.dev1", "==2.*", true},
	{"2c1.post1.dev1", "==2.0.*", true}, {"2rc1", "==2.*", true}, {"2rc1", "==2.0.*", true}, {"2", "==2.*", true},
	{"2", "==2.0.*", true}, {"2", "==2.0.0.*", true}, {"2", "==0!2.*", true}, {"0!2", "==2.*", true},
	{"2.0", "==2.*", true}, {"2.0.0", "==2.*", true}, {"2.0.0.0", "==2.0.*", true}, {"2.1+local.version", "==2.1.*", true},
	// Test the in-equality operation
	{"2.1", "!=2", true}, {"2.1", "!=2.0", true}, {"2.0.1", "!=2", true}, {"2.0.1", "!=2.0", true},
	{"2.0.1", "!=2.0.0", true}, {"2.0", "!=2.0+deadbeef", true},
	// Test the in-equality operation with a prefix
	{"2.0", "!=3.*", true}, {"2.1", "!=2.0.*", true}, {"3", "!=2.0.0.*", true}, {"2.1.0.0", "!=2.0.*", true},
	// Test the greater than equal operation
	{"2.0", ">=2", true}, {"2.0", ">=2.0", true}, {"2.0", ">=2.0.0", true}, {"2.0.post1", ">=2", true},
	{"2.0.post1.dev1", ">=2", true}, {"3", ">=2", true}, {"3.0.0a8", ">=3.0.0a7", true},
	// Test the less than equal operation
	{"2.0", "<=2", true}, {"2.0", "<=2.0", true}, {"2.0", "<=2.0.0", true}, {"2.0.dev1", "<=2", true},
	{"2.0a1", "<=2", true}, {"2.0a1.dev1", "<=2", true}, {"2.0b1", "<=2", true}, {"2.0b1.post1", "<=2", true},
	{"2.0c1", "<=2", true}, {"2.0c1.post1.dev1", "<=2", true}, {"2.0rc1", "<=2", true}, {"1", "<=2", true},
	{"3.0.0a7", "<=3.0.0a8", true},
	// Test the greater than operation
	{"3", ">2", true}, {"2.1", ">2.0", true}, {"2.0.1", ">2", true}, {"2.1.post1", ">2", true},
	{"2.1+local.version", ">2", true}, {"3.0.0a8", ">3.0.0a7", true},
	// Test the less than operation
	{"1", "<2", true}, {"2.0", "<2.1", true}, {"2.0.dev0", "<2.1", true}, {"3.0.0a7", "<3.0.0a8", true},
	// Test the compatibility operation
	{"1", "~=1.0", true}, {"1.0.1", "~=1.0", true}, {"1.1", "~=1.0", true}, {"1.9999999", "~=1.0", true},
	{"1.1", "~=1.0a1", true}, {"2022.01.01", "~=2022.01.01", true},
	// Test that epochs are handled sanely
	{"2!1.0", "~=2!1.0", true}, {"2!1.0", "==2!1.*", true}, {"2!1.0", "==2!1.0", true}, {"2!1.0", "!=1.0", true},
	{"2!1.0.0", "==2!1.0.0.0.*", true}, {"2!1.0.0", "==2!1.0.*", true}, {"2!1.0.0", "==2!1.*", true},
	{"1.0", "!=2!1.0", true}, {"1.0", "<=2!0.1", true}, {"2!1.0", ">=2.0", true}, {"1.0", "<2!0.1", true},
	{"2!1.0", ">2.0", true},
	// Test some normalization rules
	{"2.0.5", ">2.0dev", true},
	// Test local versions with pre/dev/post segments and >
	// (verifies _public_version keeps pre/dev/post in the guard)
	{"1.0+local", ">1.0.dev1", true}, {"4.1.0a2.dev1235+local", ">4.1.0a2.dev1234", true},
	{"1.0a2+local", ">1.0a1", true}, {"1.0b2+local", ">1.0b1", true}, {"1.0rc2+local", ">1.0rc1", true},
	{"1.0.post2+local", ">1.0.post1", true}, {"1.0.dev2+local", ">1.0.dev1", true},
	{"1.0a1.dev2+local", ">1.0a1.dev1", true}, {"1.0.post1.dev2+local", ">1.0.post1.dev1", true},

	// Test the equality operation
	{"2.1", "==2", false}, {"2.1", "==2.0", false}, {"2.1", "==2.0.0", false}, {"2.0", "==2.0+deadbeef", false},
	// Test the equality operation with a prefix
	{"2.0", "==3.*", false}, {"2.1", "==2.0.*", false}, {"3", "==2.0.0.*", false}, {"2.1.0.0", "==2.0.*", false},
	// Test the in-equality operation
	{"2.0", "!=2", false}, {"2.0", "!=2.0", false}, {"2.0", "!=2.0.0", false}, {"2.0+deadbeef", "!=2", false},
	{"2.0+deadbeef", "!=2.0", false}, {"2.0+deadbeef", "!=2.0.0", false}, {"2.0+deadbeef", "!=2+deadbeef", false},
	{"2.0+deadbeef", "!=2.0+deadbeef", false}, {"2.0+deadbeef", "!=2.0.0+deadbeef", false},
	{"2.0+deadbeef.0", "!=2.0.0+deadbeef.00", false},
	// Test the in-equality operation with a prefix
	{"2.dev1", "!=2.*", false}, {"2a1", "!=2.*", false}, {"2a1.post1", "!=2.*", false}, {"2b1", "!=2.*", false},
	{"2b1.dev1", "!=2.*", false}, {"2c1", "!=2.*", false}, {"2c1.post1.dev1", "!=2.*", false},
	{"2c1.post1.dev1", "!=2.0.*", false}, {"2rc1", "!=2.*", false}, {"2rc1", "!=2.0.*", false}, {"2", "!=2.*", false},
	{"2", "!=2.0.*", false}, {"2", "!=2.0.0.*", false}, {"2.0", "!=2.*", false}, {"2.0.0", "!=2.*", false},
	{"2.0.0.0", "!=2.0.*", false},
	// Test the greater than equal operation
	{"2.0.dev1", ">=2", false}, {"2.0a1", ">=2", false}, {"2.0a1.dev1", ">=2", false}, {"2.0b1", ">=2", false},
	{"2.0b1.post1", ">=2", false}, {"2.0c1", ">=2", false}, {"2.0c1.post1.dev1", ">=2", false},
	{"2.0rc1", ">=2", false}, {"1", ">=2", false},
	// Test the less than equal operation
	{"2.0.post1", "<=2", false}, {"2.0.post1.dev1", "<=2", false}, {"3", "<=2", false},
	// Test the greater than operation
	{"1", ">2", false}, {"2.0.dev1", ">2", false}, {"2.0a1", ">2", false}, {"2.0a1.post1", ">2", false},
	{"2.0b1", ">2", false}, {"2.0b1.dev1", ">2", false}, {"2.0c1", ">2", false}, {"2.0c1.post1.dev1", ">2", false},
	{"2.0rc1", ">2", false}, {"2.0", ">2", false}, {"2.0.post1", ">2", false}, {"2.0.post1.dev1", ">2", false},
	{"2.0+local.version", ">2", false}, {"4.1.0a2.dev1234+local", ">4.1.0a2.dev1234", false},
	// Test local versions with pre/dev/post segments and >
	// (local variant of the exact spec version must not match)
	{"1.0a1+local", ">1.0a1", false}, {"1.0b1+local", ">1.0b1", false}, {"1.0rc1+local", ">1.0rc1", false},
	{"1.0.post1+local", ">1.0.post1", false}, {"1.0.dev1+local", ">1.0.dev1", false},
	{"1.0a1.dev1+local", ">1.0a1.dev1", false}, {"1.0.post1.dev1+local", ">1.0.post1.dev1", false},
	// Test the less than operation
	{"2.0.dev1", "<2", false}, {"2.0a1", "<2", false}, {"2.0a1.post1", "<2", false}, {"2.0b1", "<2", false},
	{"2.0b2.dev1", "<2", false}, {"2.0c1", "<2", false}, {"2.0c1.post1.dev1", "<2", false}, {"2.0rc1", "<2", false},
	{"2.0", "<2", false}, {"2.post1", "<2", false}, {"2.post1.dev1", "<2", false}, {"3", "<2", false},
	// Test the compatibility operation
	{"2.0", "~=1.0", false}, {"1.1.0", "~=1.0.0", false}, {"1.1.post1", "~=1.0.0", false},
	// Test that epochs are handled sanely
	{"1.0", "~=2!1.0", false}, {"2!1.0", "~=1.0", false}, {"2!1.0", "==1.0", false}, {"1.0", "==2!1.0", false},
	{"2!1.0", "==1.0.0.*", false}, {"1.0", "==2!1.0.0.*", false}, {"2!1.0", "==1.*", false}, {"1.0", "==2!1.*", false},
	{"2!1.0", "!=2!1.0", false},
}

// TestPackagingSpecifiers is test_specifiers, through the Specifier, the
// SpecifierSet and the Scheme.
func TestPackagingSpecifiers(t *testing.T) {
	for _, tt := range specifierRows {
		if got := mustSpec(t, tt.spec, pre).Contains(tt.version, def); got != tt.want {
			t.Errorf("Specifier(%q, prereleases=True).contains(%q) = %v, want %v", tt.spec, tt.version, got, tt.want)
		}
		if got := mustSet(t, tt.spec, pre).Contains(tt.version, def, false); got != tt.want {
			t.Errorf("SpecifierSet(%q, prereleases=True).contains(%q) = %v, want %v", tt.spec, tt.version, got, tt.want)
		}
		if got := match(t, tt.version, tt.spec); got != tt.want {
			t.Errorf("Scheme.Match(%q, %q) = %v, want %v", tt.version, tt.spec, got, tt.want)
		}
	}
}

func match(t *testing.T, v, spec string) bool {
	t.Helper()
	c, err := s.ParseConstraint(spec)
	if err != nil {
		t.Fatalf("ParseConstraint(%q): %v", spec, err)
	}
	return s.Match(v, c)
}

// TestPackagingInvalidVersion is test_invalid_version and
// test_contains_rejects_invalid_specifier.
func TestPackagingInvalidVersion(t *testing.T) {
	for _, tt := range []struct {
		spec, version string
		want          bool
	}{
		{"==1.0", "not a valid version", false}, {"==1.*", "not a valid version", false},
		{">=1.0", "not a valid version", false}, {">1.0", "not a valid version", false},
		{"<=1.0", "not a valid version", false}, {"<1.0", "not a valid version", false},
		{"~=1.0", "not a valid version", false}, {"!=1.0", "not a valid version", false},
		{"!=1.*", "not a valid version", false},
		// Test with arbitrary equality (===)
		{"===invalid", "invalid", true}, {"===foobar", "invalid", false},
	} {
		if got := mustSpec(t, tt.spec, pre).Contains(tt.version, def); got != tt.want {
			t.Errorf("Specifier(%q, prereleases=True).contains(%q) = %v, want %v", tt.spec, tt.version, got, tt.want)
		}
	}
	if mustSet(t, ">=1.0", pre).Contains("not a valid version", def, false) {
		t.Error(`SpecifierSet(">=1.0", prereleases=True) contains "not a valid version"`)
	}
}

// TestPackagingSpecifierPrereleasesSet is test_specifier_prereleases_set: a
// Specifier made with one policy and then given another.
func TestPackagingSpecifierPrereleasesSet(t *testing.T) {
	for _, tt := range []struct {
		spec             string
		initial, set     pyBool
		version          string
		wantInit, wantFi bool
	}{
		{">1.0", def, pre, "1.0.dev1", false, false},
		// Setting prereleases to True explicitly includes prerelease versions
		{">1.0", def, pre, "2.0.dev1", true, true},
		{">1.0", nopre, pre, "2.0.dev1", false, true},
		// Setting prereleases to False explicitly excludes prerelease versions
		{">1.0", def, nopre, "2.0.dev1", true, false},
		// Setting prereleases to None falls back to default behavior
		{">1.0", pre, def, "2.0.dev1", true, true},
		{">1.0", nopre, def, "2.0.dev1", false, true},
		// Different specifiers with prerelease versions
		{">=2.0.dev1", def, pre, "2.0a1", true, true},
		{">=2.0.dev1", def, nopre, "2.0a1", true, false},
		// Alpha/beta/rc/dev variations
		{">1.0", def, pre, "2.0a1", true, true}, {">1.0", def, pre, "2.0b1", true, true}, {">1.0", def, pre, "2.0rc1", true, true},
		// Edge cases
		{"==2.0.*", def, pre, "2.0.dev1", true, true},
		{"==2.0.*", def, nopre, "2.0.dev1", true, false},
		// Specifiers that already include prereleases implicitly
		{"<1.0.dev1", def, nopre, "0.9.dev1", true, false},
		{">1.0.dev1", def, def, "1.1.dev1", true, true},
		// Multiple changes to the prereleases setting
		{">1.0", pre, nopre, "2.0.dev1", true, false},
	} {
		if got := mustSpec(t, tt.spec, tt.initial).Contains(tt.version, def); got != tt.wantInit {
			t.Errorf("Specifier(%q, %v).contains(%q) = %v, want %v", tt.spec, tt.initial, tt.version, got, tt.wantInit)
		}
		if got := mustSpec(t, tt.spec, tt.set).Contains(tt.version, def); got != tt.wantFi {
			t.Errorf("Specifier(%q, %v).contains(%q) = %v, want %v", tt.spec, tt.set, tt.version, got, tt.wantFi)
		}
	}
}

// TestPackagingArbitraryEquality is test_arbitrary_equality,
// test_arbitrary_equality_normalization and
// test_contains_arbitrary_equality_normalization (whose Version arguments are
// their normalised strings).
func TestPackagingArbitraryEquality(t *testing.T) {
	for _, tt := range []struct {
		version, spec string
		want          bool
	}{
		{"1.0.0", "===1.0", false}, {"1.0.dev0", "===1.0", false},
		// Test identity comparison by itself
		{"1.0", "===1.0", true}, {"1.0.dev0", "===1.0.dev0", true},
		// Test that local versions don't match
		{"1.0+downstream1", "===1.0", false}, {"1.0", "===1.0+downstream1", false},
		// Test with arbitrary (non-version) strings
		{"foobar", "===foobar", true}, {"foobar", "===baz", false},
		// Test case insensitivity for pre-release versions
		{"1.0a1", "===1.0a1", true}, {"1.0A1", "===1.0A1", true}, {"1.0a1", "===1.0A1", true}, {"1.0A1", "===1.0a1", true},
		// Test case insensitivity for beta versions
		{"1.0b1", "===1.0b1", true}, {"1.0B1", "===1.0B1", true}, {"1.0b1", "===1.0B1", true}, {"1.0B1", "===1.0b1", true},
		// Test case insensitivity for release candidate versions
		{"1.0rc1", "===1.0rc1", true}, {"1.0RC1", "===1.0RC1", true}, {"1.0rc1", "===1.0RC1", true}, {"1.0RC1", "===1.0rc1", true},
		// Test case insensitivity for post-release versions
		{"1.0.post1", "===1.0.post1", true}, {"1.0.POST1", "===1.0.POST1", true}, {"1.0.post1", "===1.0.POST1", true},
		{"1.0.POST1", "===1.0.post1", true},
		// Test case insensitivity for dev versions
		{"1.0.dev1", "===1.0.dev1", true}, {"1.0.DEV1", "===1.0.DEV1", true}, {"1.0.dev1", "===1.0.DEV1", true},
		{"1.0.DEV1", "===1.0.dev1", true},
		// Test case insensitivity with local versions
		{"1.0+local", "===1.0+local", true}, {"1.0+LOCAL", "===1.0+LOCAL", true}, {"1.0+local", "===1.0+LOCAL", true},
		{"1.0+LOCAL", "===1.0+local", true}, {"1.0+abc.def", "===1.0+abc.def", true}, {"1.0+ABC.DEF", "===1.0+ABC.DEF", true},
		{"1.0+abc.def", "===1.0+ABC.DEF", true}, {"1.0+ABC.DEF", "===1.0+abc.def", true},
		// Test case insensitivity with mixed case letters in local
		{"1.0+AbC", "===1.0+AbC", true}, {"1.0+AbC", "===1.0+abc", true}, {"1.0+AbC", "===1.0+ABC", true},
		// Test complex cases with multiple segments
		{"1.0a1.post2.dev3", "===1.0a1.post2.dev3", true}, {"1.0A1.POST2.DEV3", "===1.0A1.POST2.DEV3", true},
		{"1.0a1.post2.dev3", "===1.0A1.POST2.DEV3", true}, {"1.0A1.POST2.DEV3", "===1.0a1.post2.dev3", true},
		// Test case insensitivity of non-PEP 440 versions
		{"lolwat", "===LOLWAT", true}, {"lolwat", "===LoLWaT", true}, {"LOLWAT", "===lolwat", true}, {"LoLWaT", "===lOlwAt", true},
	} {
		if got := mustSpec(t, tt.spec, def).Contains(tt.version, def); got != tt.want {
			t.Errorf("Specifier(%q).contains(%q) = %v, want %v", tt.spec, tt.version, got, tt.want)
		}
	}
	// test_arbitrary_equality_normalization and
	// test_contains_arbitrary_equality_normalization, with prereleases=True;
	// norm marks a Version argument.
	for _, tt := range []struct {
		spec, version string
		norm, want    bool
	}{
		// Zero padding: unnormalized spec vs string/Version
		{"===1.1", "1.01", false, false}, {"===1.01", "1.1", false, false}, {"===1.01", "1.01", false, true},
		{"===1.1", "1.1", false, true},
		{"===1.1", "1.01", true, true}, {"===1.1", "1.1", true, true}, {"===1.01", "1.01", true, false},
		{"===1.01", "1.1", true, false},
		// Prerelease separator normalization (issue #766)
		{"===1.a1", "1.a1", false, true}, {"===1a1", "1.a1", false, false}, {"===1.a1", "1a1", false, false},
		{"===1a1", "1a1", false, true}, {"===1.a1", "1.a1", true, false}, {"===1a1", "1.a1", true, true},
		// Epoch normalization: "0!1.0" normalizes to "1.0"
		{"===0!1.0", "0!1.0", false, true}, {"===0!1.0", "1.0", false, false}, {"===1.0", "0!1.0", false, false},
		{"===0!1.0", "1.0", true, false}, {"===1.0", "0!1.0", true, true},
		// Leading zeros in release segments
		{"===01.0", "01.0", false, true}, {"===01.0", "1.0", false, false}, {"===1.0", "01.0", false, false},
		{"===01.0", "1.0", true, false}, {"===1.0", "01.0", true, true},
		// Post-release normalization: "post" vs "-" separator
		{"===1.0.post1", "1.0.post1", false, true}, {"===1.0-1", "1.0-1", false, true}, {"===1.0-1", "1.0.post1", false, false},
		{"===1.0.post1", "1.0-1", false, false}, {"===1.0-1", "1.0.post1", true, false}, {"===1.0.post1", "1.0-1", true, true},
		// Dev normalization
		{"===1.0.dev01", "1.0.dev01", false, true}, {"===1.0.dev01", "1.0.dev1", false, false},
		{"===1.0.dev1", "1.0.dev01", false, false}, {"===1.0.dev01", "1.0.dev1", true, false},
		{"===1.0.dev1", "1.0.dev01", true, true},

		// test_contains_arbitrary_equality_normalization: SpecifierSet
		{"===1.1", "1.01", false, false}, {"===1.01", "1.1", false, false}, {"===1.01", "1.01", false, true},
		{"===1.1", "1.1", false, true}, {"===1.1", "1.01", true, true}, {"===1.01", "1.01", true, false},
		{"===1.a1", "1.a1", false, true}, {"===1a1", "1.a1", false, false}, {"===1.a1", "1a1", false, false},
		{"===1a1", "1a1", false, true}, {"===1.a1", "1.a1", true, false}, {"===1a1", "1.a1", true, true},
		// Combined with other operators
		{">=1.0,===1.01", "1.01", false, true}, {">=1.0,===1.1", "1.1", false, true}, {">=1.0,===1.1", "1.01", false, false},
		{">=1.0,===1.1", "1.01", true, true}, {">=1.0,===1.01", "1.01", true, false},
	} {
		v := tt.version
		if tt.norm {
			v = mustParse(t, v).String()
		}
		if got := mustSet(t, tt.spec, pre).Contains(v, def, false); got != tt.want {
			t.Errorf("SpecifierSet(%q, prereleases=True).contains(%q, Version=%v) = %v, want %v", tt.spec, tt.version, tt.norm, got, tt.want)
		}
	}
}

// TestPackagingPrereleasesDetection is test_specifier_prereleases_detection.
func TestPackagingPrereleasesDetection(t *testing.T) {
	for _, tt := range []struct {
		spec string
		want bool
	}{
		{"==1.0", false}, {">=1.0", false}, {"<=1.0", false}, {"~=1.0", false}, {"<1.0", false}, {">1.0", false},
		{"<1.0.dev1", true}, {">1.0.dev1", true}, {"!=1.0.dev1", false}, {"==1.0.*", false}, {"==1.0.dev1", true},
		{">=1.0.dev1", true}, {"<=1.0.dev1", true}, {"~=1.0.dev1", true},
	} {
		if got := mustSpec(t, tt.spec, def).Prereleases(); got != tt.want {
			t.Errorf("Specifier(%q).prereleases = %v, want %v", tt.spec, got, tt.want)
		}
	}
}

// TestPackagingSpecifierContainsPrereleases is test_specifiers_prereleases:
// Specifier(spec, prereleases=specPre).contains(version, prereleases=containsPre).
func TestPackagingSpecifierContainsPrereleases(t *testing.T) {
	for _, tt := range []struct {
		spec, version        string
		specPre, containsPre pyBool
		want                 bool
	}{
		{">=1.0", "2.0.dev1", def, def, true}, {">=2.0.dev1", "2.0a1", def, def, true},
		{"==2.0.*", "2.0a1.dev1", def, def, true}, {"<=2.0", "1.0.dev1", def, def, true},
		{"<=2.0.dev1", "1.0a1", def, def, true}, {"<2.0", "2.0a1", def, def, false}, {"<2.0a2", "2.0a1", def, def, true},
		// >V.devN: post-releases of V.devN itself are excluded
		{">1.0.dev1", "1.0.dev0", def, def, false}, {">1.0.dev1", "1.0.dev2", def, def, true},
		// >V.devN: post-releases of the base release are NOT post-releases of V.devN
		{">1.0.dev1", "1.0.post0", def, def, true}, {">1.0.dev1", "1.0.post1", def, def, true},
		{">1.0.dev0", "1.0.post0", def, def, true},
		// >V.preN: post-releases of the base release are NOT post-releases of V.preN
		{">1.0a1", "1.0.post0", def, def, true}, {">1.0b1", "1.0.post0", def, def, true}, {">1.0rc1", "1.0.post0", def, def, true},
		// >V.preN: post-releases of the pre-release itself ARE excluded
		{">1.0a1", "1.0a1.post0", def, def, false}, {">1.0b2", "1.0b2.post0", def, def, false},
		{">1.0rc1", "1.0rc1.post0", def, def, false},
		// >V.preN: post of a different pre is not a post-release of V.preN either
		{">1.0a1", "1.0a2.post0", def, def, true}, {">1.0b1", "1.0b2.post0", def, def, true},
		// >V.devN: non-post-release versions above V.devN
		{">1.0.dev1", "1.0", def, def, true}, {">1.0.dev1", "1.0a1", def, def, true}, {">1.0.dev1", "1.1", def, def, true},
		// >V (final): post-releases of V are still excluded
		{">1.0", "1.0.post0", def, def, false}, {">1.0", "1.0.post1", def, def, false},
		// >V (final): post-releases of a different base are fine
		{">1.0", "2.0.post0", def, def, true}, {">1.0", "0.9.post0", def, def, false},
		// >V.devN: locals and different bases
		{">1.0.dev1", "1.1.post0", def, def, true}, {">1.0.dev1", "0.9.post0", def, def, false},
		// <V.postN: pre-releases of V.postN itself are excluded
		{"<1.0.post1", "1.0.post1.dev0", def, def, false}, {"<1.0.post0", "1.0.post0.dev0", def, def, false},
		// <V.postN: pre-releases of the base release are NOT pre-releases of V.postN
		{"<1.0.post1", "1.0.dev0", def, def, true}, {"<1.0.post1", "1.0a1", def, def, true},
		{"<1.0.post1", "1.0rc1", def, def, true}, {"<1.0.post0", "1.0.dev0", def, def, true},
		{"<1.0.post0", "1.0a1", def, def, true}, {"<1.0.post0", "1.0b1", def, def, true}, {"<1.0.post0", "1.0rc2", def, def, true},
		// <V.postN: dev of a different post is not a pre-release of V.postN either
		{"<1.0.post1", "1.0.post0.dev0", def, def, true}, {"<1.0.post2", "1.0.post1.dev0", def, def, true},
		// <V.postN: non-pre-release versions below V.postN
		{"<1.0.post1", "1.0", def, def, true}, {"<1.0.post1", "1.0.post0", def, def, true}, {"<1.0.post1", "0.9", def, def, true},
		{"<1.0.post0", "1.0", def, def, true},
		// <V.postN: higher post numbers
		{"<1.0.post10", "1.0.dev0", def, def, true}, {"<1.0.post10", "1.0.post9.dev0", def, def, true},
		{"<1.0.post10", "1.0.post9", def, def, true},
		// <V.postN: locals and different bases
		{"<1.0.post1", "1.0+local", def, def, true}, {"<1.0.post1", "1.0.post0+local", def, def, true},
		{"<1.0.post1", "0.9.dev0", def, def, true},
		{"<=2.0", "1.0.dev1", nopre, def, false}, {"<=2.0a1", "1.0.dev1", nopre, def, false},
		{"<=2.0", "1.0.dev1", def, nopre, false}, {"<=2.0a1", "1.0.dev1", def, nopre, false},
		{"<=2.0", "1.0.dev1", pre, nopre, false}, {"<=2.0a1", "1.0.dev1", pre, nopre, false},
		{"<=2.0", "1.0.dev1", nopre, pre, true}, {"<=2.0a1", "1.0.dev1", nopre, pre, true},
	} {
		if got := mustSpec(t, tt.spec, tt.specPre).Contains(tt.version, tt.containsPre); got != tt.want {
			t.Errorf("Specifier(%q, %v).contains(%q, %v) = %v, want %v", tt.spec, tt.specPre, tt.version, tt.containsPre, got, tt.want)
		}
	}
}

// filterRow is a row of the filter tests: SpecifierSet or Specifier(spec,
// prereleases=specPre).filter(in, prereleases=pre) == want.
type filterRow struct {
	spec         string
	specPre, pre pyBool
	in, want     []string
}

// specifierFilterRows is TestSpecifier.test_specifier_filter.
var specifierFilterRows = []filterRow{
	// General test of the filter method
	{">=1.0.dev1", def, def, []string{"1.0", "2.0a1"}, []string{"1.0", "2.0a1"}},
	{">=1.2.3", def, def, []string{"1.2", "1.5a1"}, []string{"1.5a1"}},
	{">=1.2.3", def, def, []string{"1.3", "1.5a1"}, []string{"1.3"}},
	{">=1.0", def, def, []string{"2.0a1"}, []string{"2.0a1"}},
	{"!=2.0a1", def, def, []string{"1.0a2", "1.0", "2.0a1"}, []string{"1.0"}},
	{"==2.0a1", def, def, []string{"2.0a1"}, []string{"2.0a1"}},
	{">2.0a1", def, def, []string{"2.0a1", "3.0a2", "3.0"}, []string{"3.0a2", "3.0"}},
	{"<2.0a1", def, def, []string{"1.0a2", "1.0", "2.0a1"}, []string{"1.0a2", "1.0"}},
	{"~=2.0a1", def, def, []string{"1.0", "2.0a1", "3.0a2", "3.0"}, []string{"2.0a1"}},
	// Test overriding with the prereleases parameter on filter
	{">=1.0.dev1", def, nopre, []string{"1.0", "2.0a1"}, []string{"1.0"}},
	// Test overriding with the overall specifier
	{">=1.0.dev1", pre, def, []string{"1.0", "2.0a1"}, []string{"1.0", "2.0a1"}},
	{">=1.0.dev1", nopre, def, []string{"1.0", "2.0a1"}, []string{"1.0"}},
	// Test when both specifier and filter have prerelease value
	{">=1.0", pre, nopre, []string{"1.0", "2.0a1"}, []string{"1.0"}},
	{">=1.0", nopre, pre, []string{"1.0", "2.0a1"}, []string{"1.0", "2.0a1"}},
	{">=1.0", pre, pre, []string{"1.0", "2.0a1"}, []string{"1.0", "2.0a1"}},
	{">=1.0", nopre, nopre, []string{"1.0", "2.0a1"}, []string{"1.0"}},
	// Test that invalid versions are discarded
	{">=1.0", def, def, []string{"not a valid version"}, nil},
	{">=1.0", def, def, []string{"1.0", "not a valid version"}, []string{"1.0"}},
	// Test arbitrary equality (===)
	{"===foobar", def, def, []string{"foobar", "foo", "bar"}, []string{"foobar"}},
	{"===foobar", def, def, []string{"foo", "bar"}, nil},
	// Test that === does not match with zero padding
	{"===1.0", def, def, []string{"1.0", "1.0.0", "2.0"}, []string{"1.0"}},
	// Test that === does not match with local versions
	{"===1.0", def, def, []string{"1.0", "1.0+downstream1"}, []string{"1.0"}},
	// Test === with mix of valid versions and arbitrary strings
	{"===foobar", def, def, []string{"foobar", "1.0", "2.0a1", "invalid"}, []string{"foobar"}},
	{"===1.0", def, def, []string{"1.0", "foobar", "invalid", "1.0.0"}, []string{"1.0"}},
	// Test != with invalid versions (should not pass as versions are not valid)
	{"!=1.0", def, def, []string{"invalid", "foobar"}, nil},
	{"!=1.0", def, def, []string{"1.0", "invalid", "2.0"}, []string{"2.0"}},
	{"!=2.0.*", def, def, []string{"invalid", "foobar", "2.0"}, nil},
	{"!=2.0.*", def, def, []string{"1.0", "invalid", "2.0.0"}, []string{"1.0"}},
	// Test that !== ignores prereleases parameter for non-PEP 440 versions
	{"!=1.0", def, pre, []string{"invalid", "foobar"}, nil}, {"!=1.0", def, nopre, []string{"invalid", "foobar"}, nil},
	{"!=1.0", pre, def, []string{"invalid", "foobar"}, nil}, {"!=1.0", nopre, def, []string{"invalid", "foobar"}, nil},
	{"!=1.0", pre, pre, []string{"invalid", "foobar"}, nil}, {"!=1.0", nopre, nopre, []string{"invalid", "foobar"}, nil},
	// Test that === ignores prereleases parameter for non-PEP 440 versions
	{"===foobar", def, pre, []string{"foobar", "foo"}, []string{"foobar"}},
	{"===foobar", def, nopre, []string{"foobar", "foo"}, []string{"foobar"}},
	{"===foobar", pre, def, []string{"foobar", "foo"}, []string{"foobar"}},
	{"===foobar", nopre, def, []string{"foobar", "foo"}, []string{"foobar"}},
	{"===foobar", pre, pre, []string{"foobar", "foo"}, []string{"foobar"}},
	{"===foobar", nopre, nopre, []string{"foobar", "foo"}, []string{"foobar"}},

	// test_specifier_filter_arbitrary_equality_normalization (prereleases=True;
	// Version items as their normalised strings)
	{"===1.01", pre, def, []string{"1.01", "1.1", "1.0.1"}, []string{"1.01"}},
	{"===1.1", pre, def, []string{"1.01", "1.1"}, []string{"1.1"}},
	{"===1.1", pre, def, []string{"1.1", "1.1"}, []string{"1.1", "1.1"}},
	{"===1.01", pre, def, []string{"1.1", "1.1"}, nil},
	{"===1.1", pre, def, []string{"1.01", "1.1", "1.1"}, []string{"1.1", "1.1"}},
	{"===1.01", pre, def, []string{"1.01", "1.1", "1.1"}, []string{"1.01"}},
	{"===1.a1", pre, def, []string{"1.a1", "1a1"}, []string{"1.a1"}},
	{"===1a1", pre, def, []string{"1.a1", "1a1", "1a1"}, []string{"1a1", "1a1"}},

	// test_specifier_filter_with_key (the key applied): Specifier(">=2.0")
	// over 1.0 and 2.1a1
	{">=2.0", def, def, []string{"1.0", "2.1a1"}, []string{"2.1a1"}},
	{">=2.0", def, pre, []string{"1.0", "2.1a1"}, []string{"2.1a1"}},
	{">=2.0", def, nopre, []string{"1.0", "2.1a1"}, nil},

	// test_boundary_closure_short_release, through filter with prereleases=True
	{">1.2.3", def, pre, []string{"2"}, []string{"2"}},
	{"!=1.2.3", def, pre, []string{"2"}, []string{"2"}},
	{"<=1.2.3", def, pre, []string{"2"}, nil},

	// test_filter_arbitrary_with_prereleases_false_skips_pre
	{"===1.0a1", def, nopre, []string{"1.0a1", "0.9"}, nil},
	// test_filter_arbitrary_constructor_prereleases_false_skips_pre
	{"===1.0a1", nopre, def, []string{"1.0a1"}, nil},
	// test_filter_arbitrary_unparsable_uses_key (the key applied)
	{"===wat", def, def, []string{"wat", "WAT", "else"}, []string{"wat", "WAT"}},
	// test_filter_arbitrary_pep440_unparsable_buffer_flush
	{"===wat", def, def, []string{"wat", "wat"}, []string{"wat", "wat"}},
	// test_filter_arbitrary_pep440_pre_only
	{"===1.0a1", def, def, []string{"1.0a1"}, []string{"1.0a1"}},
	// test_specifier_filter_with_version_iterable_warms_then_reuses_cache
	{">=1.5", def, def, []string{"1.0", "2.0", "3.0"}, []string{"2.0", "3.0"}},
}

// TestPackagingSpecifierFilter runs specifierFilterRows through Specifier.Filter.
func TestPackagingSpecifierFilter(t *testing.T) {
	for _, tt := range specifierFilterRows {
		if got := mustSpec(t, tt.spec, tt.specPre).Filter(tt.in, tt.pre); !slices.Equal(got, tt.want) {
			t.Errorf("Specifier(%q, %v).filter(%q, %v) = %q, want %q", tt.spec, tt.specPre, tt.in, tt.pre, got, tt.want)
		}
	}
}

// TestPackagingSpecifierContainsMore is the assertions of test_specifier_filter_arbitrary_constructor_prereleases_false_skips_pre,
// test_boundary_closure_short_release and
// test_specifier_filter_with_version_iterable_warms_then_reuses_cache that
// call contains, and the versions test_spec_version_cache_compatible_operator
// lists as matching and not matching ~=1.4.2.
func TestPackagingSpecifierContainsMore(t *testing.T) {
	for _, tt := range []struct {
		spec    string
		specPre pyBool
		version string
		want    bool
	}{
		{"===1.0a1", nopre, "1.0a1", false},
		{">1.2.3", def, "2", true}, {"!=1.2.3", def, "2", true}, {"<=1.2.3", def, "2", false},
		{">=1.5", def, "2.0", true},
		// Matching versions
		{"~=1.4.2", pre, "1.4.2", true}, {"~=1.4.2", pre, "1.4.3.dev1", true}, {"~=1.4.2", pre, "1.4.3a1", true},
		{"~=1.4.2", pre, "1.4.3", true}, {"~=1.4.2", pre, "1.4.3.post1", true}, {"~=1.4.2", pre, "1.4.3+local", true},
		// Not matching versions
		{"~=1.4.2", pre, "1.4.1", false}, {"~=1.4.2", pre, "1.4.1.post1", false}, {"~=1.4.2", pre, "1.5.0.dev0", false},
		{"~=1.4.2", pre, "1.5.0a1", false}, {"~=1.4.2", pre, "1.5.0", false}, {"~=1.4.2", pre, "2.0", false},
		{"~=1.4.2", pre, "2.0+local", false},
	} {
		if got := mustSpec(t, tt.spec, tt.specPre).Contains(tt.version, def); got != tt.want {
			t.Errorf("Specifier(%q, %v).contains(%q) = %v, want %v", tt.spec, tt.specPre, tt.version, got, tt.want)
		}
	}
}

// TestPackagingSetLength is test_length and test_iteration.
func TestPackagingSetLength(t *testing.T) {
	for _, tt := range []struct {
		spec string
		want []string
	}{
		{"", nil}, {"==2.0", []string{"==2.0"}}, {">=2.0", []string{">=2.0"}}, {">=2.0,<3", []string{">=2.0", "<3"}},
		{">=2.0,<3,==2.4", []string{">=2.0", "<3", "==2.4"}},
	} {
		var got []string
		for _, sp := range mustSet(t, tt.spec, def).Specs {
			got = append(got, sp.String())
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("SpecifierSet(%q) = %q, want %q", tt.spec, got, tt.want)
		}
	}
	// test_specifiers_str_and_repr (Specifier): "Spaces should be removed".
	if got := mustSpec(t, "< 2", def).String(); got != "<2" {
		t.Errorf(`Specifier("< 2") = %q`, got)
	}
}

// TestPackagingEmptySet is test_empty_specifier, test_specifier_contains_prereleases
// and the contains assertions of test_empty_specifier_arbitrary_string.
func TestPackagingEmptySet(t *testing.T) {
	for _, v := range packagingVersions {
		if !mustSet(t, "", pre).Contains(v, def, false) {
			t.Errorf("SpecifierSet(prereleases=True) does not contain %q", v)
		}
	}
	if !mustSet(t, "", def).Contains("1.0.dev1", def, false) || !mustSet(t, "", def).Contains("1.0.dev1", pre, false) ||
		!mustSet(t, "", pre).Contains("1.0.dev1", def, false) || mustSet(t, "", pre).Contains("1.0.dev1", nopre, false) {
		t.Error("test_specifier_contains_prereleases")
	}
	if mustSet(t, "", def).Prereleases() != def || mustSet(t, "", pre).Prereleases() != pre {
		t.Error("SpecifierSet().prereleases")
	}
	for _, p := range []pyBool{def, pre, nopre} {
		if !mustSet(t, "", p).Contains("foobar", def, false) {
			t.Errorf("SpecifierSet(\"\", %v) does not contain foobar", p)
		}
	}
}

// setFilterRows is TestSpecifierSet.test_specifier_filter and the other
// filter tests of SpecifierSet.
var setFilterRows = []filterRow{
	// General test of the filter method
	{"", def, def, []string{"1.0", "2.0a1"}, []string{"1.0"}},
	{">=1.0.dev1", def, def, []string{"1.0", "2.0a1"}, []string{"1.0", "2.0a1"}},
	{"", def, def, []string{"1.0a1"}, []string{"1.0a1"}},
	{">=1.2.3", def, def, []string{"1.2", "1.5a1"}, []string{"1.5a1"}},
	{">=1.2.3", def, def, []string{"1.3", "1.5a1"}, []string{"1.3"}},
	{"", def, def, []string{"1.0", "2.0"}, []string{"1.0", "2.0"}},
	{">=1.0", def, def, []string{"2.0a1"}, []string{"2.0a1"}},
	{"!=2.0a1", def, def, []string{"1.0a2", "1.0", "2.0a1"}, []string{"1.0"}},
	{"==2.0a1", def, def, []string{"2.0a1"}, []string{"2.0a1"}},
	{">2.0a1", def, def, []string{"2.0a1", "3.0a2", "3.0"}, []string{"3.0a2", "3.0"}},
	{"<2.0a1", def, def, []string{"1.0a2", "1.0", "2.0a1"}, []string{"1.0a2", "1.0"}},
	{"~=2.0a1", def, def, []string{"1.0", "2.0a1", "3.0a2", "3.0"}, []string{"2.0a1"}},
	// Test overriding with the prereleases parameter on filter
	{"", def, nopre, []string{"1.0a1"}, nil},
	{">=1.0.dev1", def, nopre, []string{"1.0", "2.0a1"}, []string{"1.0"}},
	{"", def, pre, []string{"1.0", "2.0a1"}, []string{"1.0", "2.0a1"}},
	// Test overriding with the overall specifier
	{"", pre, def, []string{"1.0", "2.0a1"}, []string{"1.0", "2.0a1"}},
	{"", nopre, def, []string{"1.0", "2.0a1"}, []string{"1.0"}},
	{">=1.0.dev1", pre, def, []string{"1.0", "2.0a1"}, []string{"1.0", "2.0a1"}},
	{">=1.0.dev1", nopre, def, []string{"1.0", "2.0a1"}, []string{"1.0"}},
	{"", pre, def, []string{"1.0a1"}, []string{"1.0a1"}},
	{"", nopre, def, []string{"1.0a1"}, nil},
	// Test when both specifier and filter have prerelease value
	{">=1.0", pre, nopre, []string{"1.0", "2.0a1"}, []string{"1.0"}},
	{">=1.0", nopre, pre, []string{"1.0", "2.0a1"}, []string{"1.0", "2.0a1"}},
	{">=1.0", pre, pre, []string{"1.0", "2.0a1"}, []string{"1.0", "2.0a1"}},
	{">=1.0", nopre, nopre, []string{"1.0", "2.0a1"}, []string{"1.0"}},
	// Test when there are multiple specifiers
	{">=1.0,<=2.0", def, def, []string{"1.0", "1.5a1"}, []string{"1.0"}},
	{">=1.0,<=2.0dev", def, def, []string{"1.0", "1.5a1"}, []string{"1.0", "1.5a1"}},
	{">=1.0,<=2.0", pre, def, []string{"1.0", "1.5a1"}, []string{"1.0", "1.5a1"}},
	{">=1.0,<=2.0", nopre, def, []string{"1.0", "1.5a1"}, []string{"1.0"}},
	{">=1.0,<=2.0dev", nopre, def, []string{"1.0", "1.5a1"}, []string{"1.0"}},
	{">=1.0,<=2.0dev", pre, def, []string{"1.0", "1.5a1"}, []string{"1.0", "1.5a1"}},
	{">=1.0,<=2.0", def, nopre, []string{"1.0", "1.5a1"}, []string{"1.0"}},
	{">=1.0,<=2.0", def, pre, []string{"1.0", "1.5a1"}, []string{"1.0", "1.5a1"}},
	{">=1.0,<=2.0dev", def, nopre, []string{"1.0", "1.5a1"}, []string{"1.0"}},
	{">=1.0,<=2.0dev", def, pre, []string{"1.0", "1.5a1"}, []string{"1.0", "1.5a1"}},
	{">=1.0,<=2.0", pre, nopre, []string{"1.0", "1.5a1"}, []string{"1.0"}},
	{">=1.0,<=2.0", nopre, pre, []string{"1.0", "1.5a1"}, []string{"1.0", "1.5a1"}},
	{">=1.0,<=2.0dev", pre, nopre, []string{"1.0", "1.5a1"}, []string{"1.0"}},
	{">=1.0,<=2.0dev", nopre, pre, []string{"1.0", "1.5a1"}, []string{"1.0", "1.5a1"}},
	// Test that invalid versions are accepted by empty SpecifierSet
	{"", def, def, []string{"invalid version"}, []string{"invalid version"}},
	{"", def, nopre, []string{"invalid version"}, []string{"invalid version"}},
	{"", nopre, def, []string{"invalid version"}, []string{"invalid version"}},
	{"", def, def, []string{"1.0", "invalid version"}, []string{"1.0", "invalid version"}},
	{"", def, nopre, []string{"1.0", "invalid version"}, []string{"1.0", "invalid version"}},
	{"", nopre, def, []string{"1.0", "invalid version"}, []string{"1.0", "invalid version"}},
	// Test arbitrary equality (===)
	{"===foobar", def, def, []string{"foobar", "foo", "bar"}, []string{"foobar"}},
	{"===foobar", def, def, []string{"foo", "bar"}, nil},
	// Test that === does not match with zero padding
	{"===1.0", def, def, []string{"1.0", "1.0.0", "2.0"}, []string{"1.0"}},
	// Test that === does not match with local versions
	{"===1.0", def, def, []string{"1.0", "1.0+downstream1"}, []string{"1.0"}},
	// Test === combined with other operators (arbitrary string)
	{">=1.0,===foobar", def, def, []string{"foobar", "1.0", "2.0"}, nil},
	{"!=2.0,===foobar", def, def, []string{"foobar", "2.0", "bar"}, nil},
	// Test === combined with other operators (version string)
	{">=1.0,===1.5", def, def, []string{"1.0", "1.5", "2.0"}, []string{"1.5"}},
	{">=2.0,===1.5", def, def, []string{"1.0", "1.5", "2.0"}, nil},
	// Test === with mix of valid and invalid versions
	{"===foobar", def, def, []string{"foobar", "1.0", "invalid", "2.0a1"}, []string{"foobar"}},
	{"===1.0", def, def, []string{"1.0", "foobar", "invalid", "1.0.0"}, []string{"1.0"}},
	{">=1.0,===1.5", def, def, []string{"1.5", "foobar", "invalid"}, []string{"1.5"}},
	// Test != with invalid versions (should pass through as "not equal")
	{"!=1.0", def, def, []string{"invalid", "foobar"}, nil},
	{"!=1.0", def, def, []string{"1.0", "invalid", "2.0"}, []string{"2.0"}},
	{"!=2.0.*", def, def, []string{"invalid", "foobar", "2.0"}, nil},
	{"!=2.0.*", def, def, []string{"1.0", "invalid", "2.0.0"}, []string{"1.0"}},
	// Test != with invalid versions combined with other operators
	{"!=1.0,!=2.0", def, def, []string{"invalid", "1.0", "2.0", "3.0"}, []string{"3.0"}},
	{">=1.0,!=2.0", def, def, []string{"invalid", "1.0", "2.0", "3.0"}, []string{"1.0", "3.0"}},
	// Test that === ignores prereleases parameter for non-PEP 440 versions
	{"===foobar", def, pre, []string{"foobar", "foo"}, []string{"foobar"}},
	{"===foobar", def, nopre, []string{"foobar", "foo"}, []string{"foobar"}},
	{"===foobar", pre, def, []string{"foobar", "foo"}, []string{"foobar"}},
	{"===foobar", nopre, def, []string{"foobar", "foo"}, []string{"foobar"}},
	{"===foobar", pre, pre, []string{"foobar", "foo"}, []string{"foobar"}},
	{"===foobar", nopre, nopre, []string{"foobar", "foo"}, []string{"foobar"}},
	// Test === with multiple specifiers matching non-parseable versions
	{"===foobar,===foobar", def, def, []string{"foobar", "foo", "bar"}, []string{"foobar"}},
	// Test ==.* in multi-specifier set
	{"==1.*,>=1.0", def, def, []string{"0.9", "1.0", "1.5", "2.0"}, []string{"1.0", "1.5"}},

	// test_empty_specifier_arbitrary_string (filter with the set's policy)
	{"", def, def, []string{"foobar"}, []string{"foobar"}},
	{"", nopre, def, []string{"foobar"}, []string{"foobar"}},
	{"", pre, def, []string{"foobar"}, []string{"foobar"}},
	{"", def, def, []string{"foobar", "1.0"}, []string{"foobar", "1.0"}},
	{"", nopre, def, []string{"foobar", "1.0"}, []string{"foobar", "1.0"}},
	{"", pre, def, []string{"foobar", "1.0"}, []string{"foobar", "1.0"}},
	{"", def, def, []string{"foobar", "1.0a1"}, []string{"foobar", "1.0a1"}},
	{"", nopre, def, []string{"foobar", "1.0a1"}, []string{"foobar"}},
	{"", pre, def, []string{"foobar", "1.0a1"}, []string{"foobar", "1.0a1"}},
	// test_empty_specifier_ordering_with_arbitrary
	{"", def, def, []string{"1.0a1", "foobar", "1.0", "2.0a1", "bazqux", "2.0"}, []string{"foobar", "1.0", "bazqux", "2.0"}},
	{"", def, def, []string{"foobar", "1.0", "bazqux", "2.0", "hello"}, []string{"foobar", "1.0", "bazqux", "2.0", "hello"}},
	{"", def, def, []string{"1.0a1", "foobar", "2.0a1", "bazqux", "3.0a1"}, []string{"1.0a1", "foobar", "2.0a1", "bazqux", "3.0a1"}},
	// test_specifierset_filter_with_key (the key applied): SpecifierSet(">=2")
	{">=2", def, def, []string{"1.0", "2.1a1"}, []string{"2.1a1"}},
	{">=2", def, pre, []string{"1.0", "2.1a1"}, []string{"2.1a1"}},
	{">=2", def, nopre, []string{"1.0", "2.1a1"}, nil},
	// test_empty_specifierset_filter_with_key (the key applied)
	{"", def, def, []string{"2.0a1", "2.1"}, []string{"2.1"}},
	{"", pre, def, []string{"2.0a1", "2.1"}, []string{"2.0a1", "2.1"}},
	{"", nopre, def, []string{"2.0a1", "2.1"}, []string{"2.1"}},

	// test_filter_exclusionary_bridges
	// !=1.*, !=2.*, !=3.0 leaves gap at 3.0 prereleases
	{">=1,!=1.*,!=2.*,!=3.0,<=3.0", def, def, []string{"3.0.dev0", "3.0a1"}, []string{"3.0.dev0", "3.0a1"}},
	{">=1,!=1.*,!=2.*,!=3.0,<=3.0", def, def, []string{"0.9", "3.0.dev0", "3.0a1", "4.0"}, []string{"3.0.dev0", "3.0a1"}},
	{">=1,!=1.*,!=2.*,!=3.0,<=3.0", def, pre, []string{"0.9", "3.0.dev0", "3.0a1", "4.0"}, []string{"3.0.dev0", "3.0a1"}},
	{">=1,!=1.*,!=2.*,!=3.0,<=3.0", def, nopre, []string{"0.9", "3.0.dev0", "3.0a1", "4.0"}, nil},
	// >=1.0a1,!=1.*,!=2.*,<3.0 has no matching versions
	// because <3.0 excludes 3.0 prereleases
	{">=1.0a1,!=1.*,!=2.*,<3.0", def, def, []string{"1.0a1", "2.0a1", "3.0a1"}, nil},
	{">=1.0a1,!=1.*,!=2.*,<3.0", def, pre, []string{"1.0a1", "2.0a1", "3.0a1"}, nil},
	{">=1.0a1,!=1.*,!=2.*,<3.0", def, nopre, []string{"1.0a1", "2.0a1", "3.0a1"}, nil},
	// >=1.0.dev0,!=1.*,!=2.*,<3.0.dev0 has no matching versions
	{">=1.0.dev0,!=1.*,!=2.*,<3.0.dev0", def, def, []string{"1.0.dev0", "2.0.dev0", "3.0.dev0"}, nil},
	{">=1.0.dev0,!=1.*,!=2.*,<3.0.dev0", def, pre, []string{"1.0.dev0", "2.0.dev0", "3.0.dev0"}, nil},
	{">=1.0.dev0,!=1.*,!=2.*,<3.0.dev0", def, nopre, []string{"1.0.dev0", "2.0.dev0", "3.0.dev0"}, nil},
	// Gaps with post-releases
	{">=1.0,!=1.0,!=1.1,<2.0", def, def, []string{"1.0.post1", "1.1.post1"}, []string{"1.0.post1", "1.1.post1"}},
	{">=1.0,!=1.0,!=1.1,<2.0", def, def, []string{"0.9", "1.0.post1", "1.1.post1", "2.0"}, []string{"1.0.post1", "1.1.post1"}},
	{">=1.0,!=1.0,!=1.1,<2.0", def, pre, []string{"0.9", "1.0.post1", "1.1.post1", "2.0"}, []string{"1.0.post1", "1.1.post1"}},
	{">=1.0,!=1.0,!=1.1,<2.0", def, nopre, []string{"0.9", "1.0.post1", "1.1.post1", "2.0"}, []string{"1.0.post1", "1.1.post1"}},
	// Dev version gaps
	{">=1,!=1.*,!=2.*,!=3.0,!=3.1,<4", def, def, []string{"3.0.dev0", "3.1.dev0"}, []string{"3.0.dev0", "3.1.dev0"}},
	{">=1,!=1.*,!=2.*,!=3.0,!=3.1,<4", def, def, []string{"0.5", "3.0.dev0", "3.1.dev0", "5.0"}, []string{"3.0.dev0", "3.1.dev0"}},
	{">=1,!=1.*,!=2.*,!=3.0,!=3.1,<4", def, pre, []string{"0.5", "3.0.dev0", "3.1.dev0", "5.0"}, []string{"3.0.dev0", "3.1.dev0"}},
	{">=1,!=1.*,!=2.*,!=3.0,!=3.1,<4", def, nopre, []string{"0.5", "3.0.dev0", "3.1.dev0", "5.0"}, nil},
	// Test that < (exclusive) excludes prereleases of the specified version
	// but allows prereleases of earlier versions.
	{">=1.0a1,!=1.0,<1.1", def, def, []string{"1.0a1", "1.0b1"}, []string{"1.0a1", "1.0b1"}},
	{">=1.0a1,!=1.0,<1.1", def, def, []string{"0.9", "1.0a1", "1.0b1", "1.1"}, []string{"1.0a1", "1.0b1"}},
	{">=1.0a1,!=1.0,<1.1", def, def, []string{"1.0a1", "1.0b1", "1.1.dev0", "1.1a1"}, []string{"1.0a1", "1.0b1"}},
	{">=1.0a1,!=1.0,<1.1", def, pre, []string{"0.9", "1.0a1", "1.0b1", "1.1"}, []string{"1.0a1", "1.0b1"}},
	{">=1.0a1,!=1.0,<1.1", def, pre, []string{"1.0a1", "1.0b1", "1.1.dev0", "1.1a1"}, []string{"1.0a1", "1.0b1"}},
	{">=1.0a1,!=1.0,<1.1", def, nopre, []string{"0.9", "1.0a1", "1.0b1", "1.1"}, nil},
	// Test that <= (inclusive) allows prereleases of the specified version
	// when explicitly requested, but follows default prerelease filtering
	{">=0.9,!=0.9,<=1.0", def, def, []string{"0.9.post1", "1.0.dev0", "1.0a1", "1.0"}, []string{"0.9.post1", "1.0"}},
	{">=0.9,!=0.9,<=1.0", def, def, []string{"0.9.post1", "1.0.dev0", "1.0a1", "1.0", "1.0.post1"}, []string{"0.9.post1", "1.0"}},
	{">=0.9,!=0.9,<=1.0", def, pre, []string{"0.9.post1", "1.0.dev0", "1.0a1", "1.0", "1.1"}, []string{"0.9.post1", "1.0.dev0", "1.0a1", "1.0"}},
	{">=0.9,!=0.9,<=1.0", def, nopre, []string{"0.9.post1", "1.0.dev0", "1.0a1", "1.0", "1.1"}, []string{"0.9.post1", "1.0"}},
	// Epoch-based gaps
	{">=1!0,!=1!1.*,!=1!2.*,<1!3", def, def, []string{"1!0.5", "1!2.5"}, []string{"1!0.5"}},
	{">=1!0,!=1!1.*,!=1!2.*,<1!3", def, def, []string{"0!5.0", "1!0.5", "1!2.5", "2!0.0"}, []string{"1!0.5"}},
	{">=1!0,!=1!1.*,!=1!2.*,<1!3", def, pre, []string{"0!5.0", "1!0.5", "1!2.5", "2!0.0"}, []string{"1!0.5"}},
	{">=1!0,!=1!1.*,!=1!2.*,<1!3", def, nopre, []string{"0!5.0", "1!0.5", "1!2.5", "2!0.0"}, []string{"1!0.5"}},

	// test_filter_multirange_pep440_prerelease_after_final
	{"!=1.5", def, def, []string{"1.4", "1.6a1"}, []string{"1.4"}},
	{"!=1.5", def, def, []string{"1.6a1", "1.4"}, []string{"1.4"}},
	// test_canonicalization_keeps_range_cache
	{">=1.0,<2.0,!=1.5", def, def, []string{"1.2"}, []string{"1.2"}},
}

// TestPackagingSetFilter runs setFilterRows through SpecifierSet.Filter.
func TestPackagingSetFilter(t *testing.T) {
	for _, tt := range setFilterRows {
		if got := mustSet(t, tt.spec, tt.specPre).Filter(tt.in, tt.pre); !slices.Equal(got, tt.want) {
			t.Errorf("SpecifierSet(%q, %v).filter(%q, %v) = %q, want %q", tt.spec, tt.specPre, tt.in, tt.pre, got, tt.want)
		}
	}
}

// TestPackagingSetPrereleasesExplicit is test_specifier_prereleases_explicit:
// a SpecifierSet made with one policy and then given another.
func TestPackagingSetPrereleasesExplicit(t *testing.T) {
	for _, tt := range []struct {
		initial, set     pyBool
		version          string
		wantInit, wantFi bool
		spec             string
	}{
		{def, pre, "1.0.dev1", true, true, ""},
		{nopre, pre, "1.0.dev1", false, true, ""},
		// Setting prerelease from True to False
		{pre, nopre, "1.0.dev1", true, false, ""},
		{pre, nopre, "1.0.dev1", false, false, ">=1.0"},
		{pre, nopre, "1.0.dev1", true, false, "==1.*"},
		// Setting prerelease from False to None
		{nopre, def, "1.0.dev1", false, true, ""},
		{nopre, def, "2.0.dev1", false, true, ">=1.0"},
		// Setting prerelease from True to None
		{pre, def, "1.0.dev1", true, true, ""},
		{pre, def, "2.0.dev1", true, true, ">=1.0"},
		// Various version patterns with different transitions
		{def, pre, "2.0b1", true, true, ""},
		{def, nopre, "2.0a1", true, false, ""},
		{pre, nopre, "1.0rc1", true, false, ""},
		{nopre, pre, "1.0.post1.dev1", false, true, ""},
		// Specifiers that include prerelease versions explicitly
		{def, nopre, "2.0.dev1", true, false, "==2.0.dev1"},
		{pre, nopre, "1.0.dev1", true, false, "==1.0.*"},
		{nopre, pre, "1.0.dev1", false, true, "!=2.0"},
		// SpecifierSet with multiple specifiers
		{def, pre, "1.5a1", true, true, ">=1.0,<2.0"},
		{nopre, pre, "1.5b1", false, true, ">=1.0,<2.0"},
		{pre, nopre, "1.5rc1", true, false, ">=1.0,<2.0"},
		// Test with dev/alpha/beta/rc variations
		{def, pre, "1.0a1", true, true, ""}, {def, pre, "1.0b2", true, true, ""}, {def, pre, "1.0rc3", true, true, ""},
		{def, pre, "1.0.dev4", true, true, ""},
		// Test with specifiers that have prereleases implicitly
		{def, nopre, "1.0a1", true, false, ">=1.0a1"},
		{def, nopre, "0.9.dev0", true, false, "<1.0.dev1"},
	} {
		if got := mustSet(t, tt.spec, tt.initial).Contains(tt.version, def, false); got != tt.wantInit {
			t.Errorf("SpecifierSet(%q, %v).contains(%q) = %v, want %v", tt.spec, tt.initial, tt.version, got, tt.wantInit)
		}
		if got := mustSet(t, tt.spec, tt.set).Contains(tt.version, def, false); got != tt.wantFi {
			t.Errorf("SpecifierSet(%q, %v).contains(%q) = %v, want %v", tt.spec, tt.set, tt.version, got, tt.wantFi)
		}
	}
}

// TestPackagingSetContainsInstalled is
// test_specifier_contains_installed_prereleases.
func TestPackagingSetContainsInstalled(t *testing.T) {
	for _, tt := range []struct {
		spec, version        string
		specPre, containsPre pyBool
		installed, want      bool
	}{
		{"~=1.0", "1.1.0.dev1", def, def, true, true},
		{"~=1.0", "1.1.0.dev1", nopre, nopre, true, true},
		{"~=1.0", "1.1.0.dev1", pre, nopre, true, true},
		{"~=1.0", "1.1.0.dev1", def, nopre, true, true},
		// Case when installed=False:
		{"~=1.0", "1.1.0.dev1", def, pre, false, true},
		{"~=1.0", "1.1.0.dev1", nopre, pre, false, true},
		{"~=1.0", "1.1.0.dev1", nopre, nopre, false, false},
		{"~=1.0", "1.1.0.dev1", def, nopre, false, false},
		// Test with different version types
		{"~=1.0", "1.1.0a1", def, def, true, true}, {"~=1.0", "1.1.0b1", def, def, true, true},
		{"~=1.0", "1.1.0rc1", def, def, true, true}, {"~=1.0", "1.1.0.post1.dev1", def, def, true, true},
		// Test with different specifiers
		{">=1.0", "2.0.dev1", def, def, true, true}, {"==1.*", "1.5.0a1", def, def, true, true},
		{">=1.0,<3.0", "2.0.dev1", def, def, true, true}, {"!=2.0", "2.0.dev1", def, def, true, true},
		// Test with non-matching versions (regardless of installed)
		{"~=1.0", "3.0.0.dev1", def, def, true, false}, {"~=1.0", "3.0.0.dev1", pre, def, true, false},
		{"~=1.0", "3.0.0.dev1", def, pre, true, false}, {"~=1.0", "3.0.0.dev1", pre, pre, true, false},
		{"~=1.0", "3.0.0.dev1", nopre, nopre, true, false}, {"~=1.0", "3.0.0.dev1", def, def, false, false},
		// Test with versions outside specifier but with prereleases
		{">=2.0", "1.9.0.dev1", pre, def, true, false}, {">=2.0", "1.9.0.dev1", def, pre, true, false},
		{">=2.0", "1.9.0.dev1", pre, pre, true, false}, {">=2.0", "1.9.0.dev1", def, def, false, false},
		// Test with edge versions
		{">=1.0", "1.0.0.dev1", def, def, true, false}, {"<=1.0", "1.0.0.dev1", def, def, true, true},
		{"<1.0", "1.0.0.dev1", def, def, true, false}, {"<1.0", "0.9.0.dev1", def, def, true, true},
		// Test with specifiers that have explicit prereleases
		{">=1.0.dev1", "1.0.0.dev1", def, def, true, true}, {">=1.0.dev1", "1.0.0.dev1", nopre, nopre, false, false},
		{"==1.0.0.dev1", "1.0.0.dev1", nopre, nopre, false, false},
		// Test with stable versions
		{"~=1.0", "1.1.0", def, def, true, true}, {"~=1.0", "1.1.0", nopre, nopre, false, true},
		{"~=1.0", "1.1.0", pre, nopre, false, true},
		// Test combinations of prereleases=True/False and installed=True/False
		{"~=1.0", "1.1.0.dev1", pre, def, false, true}, {"~=1.0", "1.1.0.dev1", nopre, def, false, false},
		// Test conflicting prereleases and contain_prereleases
		{"~=1.0", "1.1.0.dev1", pre, nopre, false, false},
		// Test with specifiers that explicitly have prereleases overridden
		{">=1.0.dev1", "1.0.0.dev1", def, nopre, false, false}, {">=1.0.dev1", "1.0.0.dev1", nopre, def, false, false},
	} {
		if got := mustSet(t, tt.spec, tt.specPre).Contains(tt.version, tt.containsPre, tt.installed); got != tt.want {
			t.Errorf("SpecifierSet(%q, %v).contains(%q, %v, installed=%v) = %v, want %v", tt.spec, tt.specPre, tt.version, tt.containsPre, tt.installed, got, tt.want)
		}
	}
	if !mustSet(t, "~=1.0", nopre).Contains("1.1.0.dev1", def, true) || mustSet(t, "~=1.0", nopre).Contains("1.1.0.dev1", nopre, false) {
		t.Error(`SpecifierSet("~=1.0", prereleases=False) and installed`)
	}
}

// TestPackagingSetContains is test_contains_exclusionary_bridges,
// test_contains_arbitrary_equality_contains, test_comparison_ignores_local,
// test_contains_with_compatible_operator and the contains assertions of
// test_contains_identical_across_canonicalization.
func TestPackagingSetContains(t *testing.T) {
	for _, tt := range []struct {
		spec    string
		specPre pyBool
		version string
		want    bool
	}{
		// test_contains_exclusionary_bridges (prereleases given to contains)
		{">=1,!=1.*,!=2.*,!=3.0,<=3.0", def, "3.0.dev0", true}, {">=1,!=1.*,!=2.*,!=3.0,<=3.0", def, "3.0a1", true},
		{">=1,!=1.*,!=2.*,!=3.0,<=3.0", pre, "3.0.dev0", true}, {">=1,!=1.*,!=2.*,!=3.0,<=3.0", pre, "3.0a1", true},
		{">=1,!=1.*,!=2.*,!=3.0,<=3.0", nopre, "3.0.dev0", false}, {">=1,!=1.*,!=2.*,!=3.0,<=3.0", nopre, "3.0a1", false},
		// Versions outside the gap should not match
		{">=1,!=1.*,!=2.*,!=3.0,<=3.0", def, "0.9", false}, {">=1,!=1.*,!=2.*,!=3.0,<=3.0", def, "1.0", false},
		{">=1,!=1.*,!=2.*,!=3.0,<=3.0", def, "2.0", false}, {">=1,!=1.*,!=2.*,!=3.0,<=3.0", def, "3.0", false},
		{">=1,!=1.*,!=2.*,!=3.0,<=3.0", def, "4.0", false},
		// >=1.0a1,!=1.*,!=2.*,<3.0 has no matching versions
		{">=1.0a1,!=1.*,!=2.*,<3.0", def, "1.0a1", false}, {">=1.0a1,!=1.*,!=2.*,<3.0", def, "2.0a1", false},
		{">=1.0a1,!=1.*,!=2.*,<3.0", def, "3.0a1", false}, {">=1.0a1,!=1.*,!=2.*,<3.0", pre, "1.0a1", false},
		{">=1.0a1,!=1.*,!=2.*,<3.0", pre, "2.0a1", false}, {">=1.0a1,!=1.*,!=2.*,<3.0", nopre, "1.0a1", false},
		{">=1.0a1,!=1.*,!=2.*,<3.0", nopre, "2.0a1", false},
		// >=1.0.dev0,!=1.*,!=2.*,<3.0.dev0 has no matching versions
		{">=1.0.dev0,!=1.*,!=2.*,<3.0.dev0", def, "1.0.dev0", false}, {">=1.0.dev0,!=1.*,!=2.*,<3.0.dev0", def, "2.0.dev0", false},
		{">=1.0.dev0,!=1.*,!=2.*,<3.0.dev0", def, "3.0.dev0", false}, {">=1.0.dev0,!=1.*,!=2.*,<3.0.dev0", pre, "1.0.dev0", false},
		{">=1.0.dev0,!=1.*,!=2.*,<3.0.dev0", pre, "2.0.dev0", false}, {">=1.0.dev0,!=1.*,!=2.*,<3.0.dev0", nopre, "1.0.dev0", false},
		// Gaps with post-releases
		{">=1.0,!=1.0,!=1.1,<2.0", def, "1.0.post1", true}, {">=1.0,!=1.0,!=1.1,<2.0", def, "1.1.post1", true},
		{">=1.0,!=1.0,!=1.1,<2.0", def, "1.0", false}, {">=1.0,!=1.0,!=1.1,<2.0", def, "1.1", false},
		{">=1.0,!=1.0,!=1.1,<2.0", def, "2.0", false}, {">=1.0,!=1.0,!=1.1,<2.0", pre, "1.0.post1", true},
		{">=1.0,!=1.0,!=1.1,<2.0", pre, "1.1.post1", true}, {">=1.0,!=1.0,!=1.1,<2.0", nopre, "1.0.post1", true},
		{">=1.0,!=1.0,!=1.1,<2.0", nopre, "1.1.post1", true},
		// Dev version gaps
		{">=1,!=1.*,!=2.*,!=3.0,!=3.1,<4", def, "3.0.dev0", true}, {">=1,!=1.*,!=2.*,!=3.0,!=3.1,<4", def, "3.1.dev0", true},
		{">=1,!=1.*,!=2.*,!=3.0,!=3.1,<4", def, "0.5", false}, {">=1,!=1.*,!=2.*,!=3.0,!=3.1,<4", def, "3.0", false},
		{">=1,!=1.*,!=2.*,!=3.0,!=3.1,<4", def, "3.1", false}, {">=1,!=1.*,!=2.*,!=3.0,!=3.1,<4", def, "5.0", false},
		{">=1,!=1.*,!=2.*,!=3.0,!=3.1,<4", pre, "3.0.dev0", true}, {">=1,!=1.*,!=2.*,!=3.0,!=3.1,<4", pre, "3.1.dev0", true},
		{">=1,!=1.*,!=2.*,!=3.0,!=3.1,<4", nopre, "3.0.dev0", false}, {">=1,!=1.*,!=2.*,!=3.0,!=3.1,<4", nopre, "3.1.dev0", false},
		// Test that < (exclusive) excludes prereleases of the specified version
		// but allows prereleases of earlier versions
		{">=1.0a1,!=1.0,<1.1", def, "1.0a1", true}, {">=1.0a1,!=1.0,<1.1", def, "1.0b1", true},
		{">=1.0a1,!=1.0,<1.1", def, "0.9", false}, {">=1.0a1,!=1.0,<1.1", def, "1.0", false},
		{">=1.0a1,!=1.0,<1.1", def, "1.1", false}, {">=1.0a1,!=1.0,<1.1", def, "1.1.dev0", false},
		{">=1.0a1,!=1.0,<1.1", def, "1.1a1", false}, {">=1.0a1,!=1.0,<1.1", pre, "1.0a1", true},
		{">=1.0a1,!=1.0,<1.1", pre, "1.0b1", true}, {">=1.0a1,!=1.0,<1.1", pre, "1.1.dev0", false},
		{">=1.0a1,!=1.0,<1.1", pre, "1.1a1", false}, {">=1.0a1,!=1.0,<1.1", nopre, "1.0a1", false},
		{">=1.0a1,!=1.0,<1.1", nopre, "1.0b1", false},
		// Test that <= (inclusive) allows prereleases of the specified version
		{">=0.9,!=0.9,<=1.0", def, "0.9.post1", true}, {">=0.9,!=0.9,<=1.0", def, "1.0", true},
		{">=0.9,!=0.9,<=1.0", def, "1.0.dev0", true}, {">=0.9,!=0.9,<=1.0", def, "1.0a1", true},
		{">=0.9,!=0.9,<=1.0", def, "1.0.post1", false},
		{">=0.9,!=0.9,<=1.0", pre, "0.9.post1", true}, {">=0.9,!=0.9,<=1.0", pre, "1.0.dev0", true},
		{">=0.9,!=0.9,<=1.0", pre, "1.0a1", true}, {">=0.9,!=0.9,<=1.0", pre, "1.0", true},
		{">=0.9,!=0.9,<=1.0", nopre, "0.9.post1", true}, {">=0.9,!=0.9,<=1.0", nopre, "1.0.dev0", false},
		{">=0.9,!=0.9,<=1.0", nopre, "1.0a1", false}, {">=0.9,!=0.9,<=1.0", nopre, "1.0", true},
		// Epoch-based gaps
		{">=1!0,!=1!1.*,!=1!2.*,<1!3", def, "1!0.5", true}, {">=1!0,!=1!1.*,!=1!2.*,<1!3", def, "1!2.5", false},
		{">=1!0,!=1!1.*,!=1!2.*,<1!3", def, "0!5.0", false}, {">=1!0,!=1!1.*,!=1!2.*,<1!3", def, "2!0.0", false},
		{">=1!0,!=1!1.*,!=1!2.*,<1!3", pre, "1!0.5", true}, {">=1!0,!=1!1.*,!=1!2.*,<1!3", pre, "0!5.0", false},
		{">=1!0,!=1!1.*,!=1!2.*,<1!3", nopre, "1!0.5", true}, {">=1!0,!=1!1.*,!=1!2.*,<1!3", nopre, "0!5.0", false},
		// >V.devN combined with other specifiers: post-releases of the base
		// release are accepted (they are not post-releases of V.devN).
		{">1.0.dev1,==1.0.post0", def, "1.0.post0", true}, {">1.0.dev1,==1.0.post1", def, "1.0.post1", true},
		{">1.0a1,==1.0.post0", def, "1.0.post0", true}, {">1.0.dev1,<=2.0", def, "1.0.post0", true},
		{">1.0.dev1,<=2.0", def, "1.0", true},
		// >V.preN: post of the pre-release itself is still excluded
		{">1.0a1,<=2.0", pre, "1.0a1.post0", false},
		// With an upper bound that includes post-releases
		{">1.0.dev1,<=1.0.post1", def, "1.0.post0", true}, {">1.0.dev1,<=1.0.post1", def, "1.0.post1", true},
		{">1.0.dev1,<=1.0.post1", def, "1.0", true},
		// != can remove some versions but post-releases still match
		{">1.0.dev1,!=1.0,<=2.0", def, "1.0.post0", true}, {">1.0.dev1,!=1.0,!=1.0.post0,<=2.0", def, "1.0.post1", true},
		// <V.postN combined with other specifiers: pre-releases of the base
		// release are accepted (they are not pre-releases of V.postN).
		{"==1.0.dev0,<1.0.post1", def, "1.0.dev0", true}, {"==1.0a1,<1.0.post0", def, "1.0a1", true},
		{"==1.0.post0.dev0,<1.0.post1", def, "1.0.post0.dev0", true}, {">=1.0,<1.0.post1", def, "1.0", true},
		{">=1.0,<1.0.post1", def, "1.0.post0", true},
		// 1.0.dev0 < 1.0, so it fails >=1.0 regardless of <
		{">=1.0,<1.0.post1", pre, "1.0.dev0", false},
		// With a lower bound that includes pre-releases
		{">=1.0.dev0,<1.0.post1", pre, "1.0.dev0", true}, {">=1.0.dev0,<1.0.post1", pre, "1.0.a1", true},
		{">=1.0.dev0,<1.0.post1", pre, "1.0.post0.dev0", true},
		// != can remove non-pre-releases but pre-releases still match
		{">=1.0.dev0,<1.0.post1,!=1.0,!=1.0.post0", pre, "1.0.dev0", true},
		{">=1.0.dev0,<1.0.post1,!=1.0,!=1.0.post0", pre, "1.0.post0.dev0", true},
		// Post-release survivors still match
		{">=1.0.dev0,<1.0.post2,!=1.0,!=1.0.post0", pre, "1.0.post1", true},
		{">=1.0.dev0,<1.0.post2,!=1.0", pre, "1.0.post0", true},

		// test_contains_arbitrary_equality_contains
		{"===foobar", def, "foobar", true}, {"===foobar", def, "foo", false}, {"===foobar", def, "bar", false},
		{"===1.0", def, "1.0", true}, {"===1.0", def, "1.0.0", false},
		{"===1.0+downstream1", def, "1.0", false}, {"===1.0", def, "1.0+downstream1", false},
		{"===foobar,!=1.0", def, "foobar", false}, {"===foobar,!=1.0", def, "1.0", false},
		{">=1.0,===foobar", def, "foobar", false},
		{">=1.0,===1.5", def, "1.5", true}, {">=2.0,===1.5", def, "1.5", false}, {">=1.0,===2.5", def, "2.5", true},
		{"!=1.0", def, "invalid", false}, {"!=1.0", def, "foobar", false}, {"!=2.0.*", def, "invalid", false},
		{"!=1.0,!=2.0", def, "invalid", false}, {">=1.0,!=2.0", def, "foobar", false}, {">=1.0,!=2.0", def, "1.5", true},

		// test_comparison_ignores_local
		{"==1.0.0", def, "1.0.0+local", true}, {"!=1.0.0", def, "1.0.0+local", false},
		{"<=1.0.0", def, "1.0.0+local", true}, {">=1.0.0", def, "1.0.0+local", true},
		{"<1.0.0", def, "1.0.0+local", false}, {">1.0.0", def, "1.0.0+local", false},

		// test_contains_with_compatible_operator: ~=1.18.0 & ~=1.18
		{"~=1.18.0,~=1.18", def, "1.19.5", false}, {"~=1.18.0,~=1.18", def, "1.18.0", true},
	} {
		if got := mustSet(t, tt.spec, def).Contains(tt.version, tt.specPre, false); got != tt.want {
			t.Errorf("SpecifierSet(%q).contains(%q, %v) = %v, want %v", tt.spec, tt.version, tt.specPre, got, tt.want)
		}
	}
	// test_contains_identical_across_canonicalization: contains() results
	// do not depend on the order or repetition of the specifiers.
	for _, tt := range []struct {
		spec, same string
		versions   []string
	}{
		{">=1.0,>=1.0,<2.0", ">=1.0,<2.0", []string{"0.5", "1.0", "1.5", "2.0", "2.5"}},
		{"<2.0,!=1.5,>=1.0", ">=1.0,!=1.5,<2.0", []string{"0.5", "1.0", "1.5", "1.9", "2.0"}},
		{"!=1.0,>=1.0", ">=1.0,!=1.0", []string{"1.0", "1.0.post1", "1.1"}},
		{">1.0,!=1.0.post1", "!=1.0.post1,>1.0", []string{"1.0", "1.0.post1", "1.0.post2", "1.1"}},
	} {
		for _, v := range tt.versions {
			if a, b := mustSet(t, tt.spec, def).Contains(v, def, false), mustSet(t, tt.same, def).Contains(v, def, false); a != b {
				t.Errorf("SpecifierSet(%q).contains(%q) = %v but SpecifierSet(%q) says %v", tt.spec, v, a, tt.same, b)
			}
		}
	}
}

// TestPackagingIntersectionPreserving is
// test_arbitrary_equality_is_intersection_preserving: filtering by two
// specifiers is filtering by their set.
func TestPackagingIntersectionPreserving(t *testing.T) {
	for _, tt := range []struct {
		spec1, spec2 string
		in           []string
	}{
		// Test zero padding
		{"===1.0", "===1.0.0", []string{"1.0", "1.0.0"}}, {"===1.0.0", "===1.0", []string{"1.0", "1.0.0"}},
		{"===1.0", "===1.0.0", []string{"1.0.0", "1.0"}}, {"===1.0.0", "===1.0", []string{"1.0.0", "1.0"}},
		// Test local versions
		{"===1.0", "===1.0+local", []string{"1.0", "1.0+local"}}, {"===1.0+local", "===1.0", []string{"1.0", "1.0+local"}},
		{"===1.0", "===1.0+local", []string{"1.0+local", "1.0"}}, {"===1.0+local", "===1.0", []string{"1.0+local", "1.0"}},
	} {
		a := mustSpec(t, tt.spec1, def).Filter(tt.in, def)
		b := mustSpec(t, tt.spec2, def).Filter(tt.in, def)
		both := mustSet(t, tt.spec1+","+tt.spec2, def).Filter(tt.in, def)
		var inter []string
		for _, v := range a {
			if slices.Contains(b, v) {
				inter = append(inter, v)
			}
		}
		if !slices.Equal(inter, both) {
			t.Errorf("%s, %s over %q: intersection %q, set %q", tt.spec1, tt.spec2, tt.in, inter, both)
		}
	}
}

// versionFamily is _version_family: all PEP 440 suffixes around a base.
func versionFamily(base string) []string {
	var out []string
	for _, f := range []string{
		"%s.dev0", "%s.dev1", "%s.dev0+local", "%sa0", "%sa0.post0.dev0", "%sa0.post0", "%sa1.dev1", "%sa1.dev1+local",
		"%sa1", "%sa1+local", "%sb1", "%sb2.post1.dev1", "%sb2.post1", "%src1.dev1", "%src1", "%src2", "%sa2.dev0",
		"%s", "%s.0", "%s.post0.dev0", "%s.post0", "%s.post1.dev0", "%s.post1", "%s.post1+local", "%s.post2",
		"%s+local", "%s+local1", "%s+local2", "%s+1", "%s+1.local", "%s.1.dev1", "%s.1a1", "%s.1", "%s.1+local",
		"%s.1.post1",
	} {
		out = append(out, fmt.Sprintf(f, base))
	}
	return out
}

// sampleVersions is _SAMPLE_VERSIONS: the family of each sample base,
// deduplicated, then strings for ===.
func sampleVersions() []string {
	var out []string
	for _, base := range []string{"0", "0.0", "1.0", "1.1", "1.2", "2.0", "2.1", "3.0", "1.0.1", "1.4.2", "2.0.0", "3.10.2",
		"3.8", "3.9", "3.10", "3.11", "3.12", "3.13", "3.14", "10.0", "100.0", "1!0.0", "1!1.0", "1!2.0"} {
		for _, v := range versionFamily(base) {
			if !slices.Contains(out, v) {
				out = append(out, v)
			}
		}
	}
	return append(out, "foobar", "a", "b", "not-a-version", "1.01", "1.0-1", "v1.0")
}

// TestPackagingSatisfiable is what TestIsUnsatisfiable asserts of filter:
// over the sample versions, an unsatisfiable set keeps nothing and a
// satisfiable one keeps something, with prereleases=True, and likewise for
// the sets made with prereleases=False.
func TestPackagingSatisfiable(t *testing.T) {
	unsat := []string{
		// Crossed bounds
		">=2.0,<1.0", ">=2.0,<2.0", ">2.0,<=2.0", ">2.0,<2.0",
		// Equality conflicts
		"==1.0,!=1.0", "==1.0,>1.0", "==1.0,<1.0", "==1.0,>=2.0", "==3.0,<2.0",
		// Wildcard conflicts
		"==1.*,>=2.0", "==2.*,<2.0.dev0", "==3.*,<3.0.dev0", "==1.0.*,!=1.0.*", "==1.0,!=1.*",
		// Compatible release conflicts
		"~=2.0,<2.0", "~=2.0,>=3.0", "~=2.5,<2.5", "~=1.0,>=2.0", "~=1.4.2,<1.4.2",
		// Point range excluded
		">=1.0,<=1.0,!=1.0",
		// Epoch conflicts
		"==1!1.0,==1.0", ">=1!1.0,<1.0", ">=1!0.0,<1.0",
		// Zero/dev edge cases
		"<0", "<0.0", "<0.0.dev0", ">=1.0,<0.0.dev0",
		// <V excludes prereleases of V when V is not a prerelease
		">=1.0a1,<1.0", ">=1.0.dev0,<1.0", ">=1.0rc1,<1.0",
		// <V.postN excludes dev releases of V.postN
		">=1.0.post1,<1.0.post1", ">=1.0.post1.dev0,<1.0.post1",
		// >V excludes posts of V; <V.postN bound leaves no room
		">1.0,<1.0.post0", ">1.0,<1.0.post1",
		// >V.postN + <V.postN+1: no version exists in the gap
		">1.0.post0,<1.0.post1",
		// dev crossing
		">=1.0.dev5,<1.0.dev3",
		// == with dev/pre/post + > same version
		"==1.0.dev0,>1.0.dev0", "==1.0a1,>1.0a1", "==1.0.post1,>1.0.post1",
		// >V.preN excludes posts of V.preN; nothing between
		">1.0a1,<1.0a1.post1",
		// ~= with dev/pre + conflicting range
		"~=1.0.dev0,>=2.0", "~=1.0a1,>=2.0",
		// Wildcard exhausts range
		">=1.0,<2.0,!=1.*", "~=1.4.2,!=1.4.*",
		// Local version conflicts
		"==1.0+local,!=1.0+local",
		// === conflicts: multiple === with different strings
		"===a,===b", "===1.0,===2.0",
		// === with unparsable + standard spec
		"===foobar,==1.0", "===foobar,>=1.0", "===a,!=1.0", "===not-a-version,~=1.0", "===foobar,>=2.0,<3.0",
		// === with parsable version that fails standard specs
		"===1.0,>=2.0", "===1.0,!=1.0", "===1.0,>1.0", "===1.01,==1.0",
		// Non-overlapping wildcards (adjacent boundaries, upper exclusive)
		"==1.0.*,==1.1.*", "==1.*,==2.*",
		// Conflicting compatible releases
		"~=1.0,~=2.0", "~=1.4.2,~=1.5.0",
		// Local excluded by non-local != (locals ignored per spec)
		"==1.0+local1,!=1.0",
		// Wildcard exhaustion (single and multiple)
		">=1.0,<1.1,!=1.0.*", "!=1.*,!=2.*,>=1.0,<3.0", "~=1.0,!=1.*",
		// >V excludes posts of pre-release V
		">1.0a1,<1.0a1.post2",
		// Adjacent dev of zero: no version between devN and dev(N+1)
		">0.dev0,<0.dev1",
		// Compatible release with pre/dev suffix vs <base
		"~=1.0a1,<1.0", "~=1.0.dev5,<1.0",
		// Between post dev and post: >V.postK.devN leaves no room
		">1.0.post0.dev0,<1.0.post0",
		// Deep release crossing compatible release boundary
		"~=1.2.3.4.5,>=1.2.3.5",
		// Different base but release is above the <V.postN bound
		"==1.1.dev0,<1.0.post1",
	}
	sat := []string{
		"", ">=1.0", "<2.0", ">1.0", ">=1.0,<2.0", ">=1.0,<=1.0", ">=1.0,<100.0",
		// Compatible release
		"~=1.0", "~=1.0,<1.5", "~=1.4.2",
		// Wildcards
		"==1.0.*", "!=1.0.*", "==1.*,!=1.5", "==1.0.*,==1.*", "!=1.*,>=2.0",
		// Exclusions that don't exhaust range
		">=1.0,<2.0,!=1.5,!=1.6", ">=1.0,<2.0,!=1.0,!=1.1,!=1.2,!=1.3,!=1.4",
		// Single operators
		"==1.0", "!=1.0",
		// Prerelease ranges
		">=1.0.dev0,<1.0.dev1", ">=1.0a1,<1.0a2",
		// Pre-release ranges with room between
		">1.0a1,<1.0a2", ">=1.0a1,<1.0b1", ">=1.0b1,<1.0rc1",
		// Post-release ranges
		">1.0.post0,<1.0.post2", ">1.0.post0,<1.0.post3",
		// Dev range within a release
		">=1.0a1.dev0,<1.0a1",
		// Epoch
		">=1!1.0,<1!2.0", ">1!1.0,<1!3.0",
		// Wildcards that don't exhaust range
		">=1.0,<3.0,!=2.*",
		// Real-world
		">=3.8,!=3.9.*,!=3.10.0,!=3.10.1,~=3.10.2,<3.14",
		// Boundary checks
		"<1.0.dev1", ">1!1.0", "<1!2.0", ">1.0,<3.0", ">1.0,>2.0", "<2.0,<3.0", ">1.0.post0", ">1.0.post1,<2.0",
		// Local versions (spec with local + spec without local that strips local)
		"==1.0+local1,>=1.0", "!=1.0+local1,>=1.0", "==1.0,>=0.5", "==1.0,!=0.5", "==1.0,<=2.0",
		"==1.0+local1,!=1.0+local2", "==1.0+local1,==1.0", "==1.0+local1,<=1.0", "==1.0+local,>=1.0,<=1.0",
		"==1.0.post1+local,<=1.0.post1",
		// Various multi-spec
		">1.0,!=0.5", ">=1.0,<2.0rc1", ">=0.5,!=1.0.*", "~=1.0,!=1.3", ">=1!0.0,<1!1.0",
		// === (arbitrary string equality)
		"===foobar", "===1.0", "===1.0a1",
		// === with unnormalized version string (PR #1124)
		"===1.01",
		// === mixed with standard operators
		"===1.0,==1.0", "===1.0,>=1.0", "===1.0,>=0.5", "===1.0,!=2.0", "===1.0.0,>=1.0", "===1.01,>=1.0",
		// === with unnormalized version that parses to a matching version
		"===1.01,==1.1",
		// === case-insensitive identity
		"===FOOBAR,===foobar", "===FooBar,===FOOBAR",
		// Final version sits below its own post-releases
		">=1.0,<1.0.post0", ">=1.0,<1.0.post1",
		// Lower bound below base.dev0: other-base versions survive
		">=0,<1.0.post0,!=1.0",
		// <V.postN only excludes pre-releases of V.postN itself,
		// not pre-releases of the base release (#1140)
		"==1.0.dev0,<1.0.post1", "==1.0a1,<1.0.post0", "==1.0rc1,<1.0.post0", "==1.0.post0.dev0,<1.0.post1",
		">=1.0.dev0,<1.0.post1,!=1.0,!=1.0.post0",
		// === with normalization variants
		"===v1.0,>=1.0", "===1.0-1,>=1.0",
		// Zero-padding equivalence
		"==1.0,==1.0.0",
		// Compatible release with post suffix
		"~=1.0.post1,>=1.0",
		// Range below post dev
		">=1.0,<1.0.post0.dev1",
		// Post of alpha satisfies (1.0a1.post0 exists)
		">=1.0a1,<1.0a2,!=1.0a1",
		// Alpha-to-beta range has room (1.0a2.dev0, etc.)
		">1.0a1,<1.0b1",
		// Overlapping compatible releases
		"~=1.0,~=1.1", "~=1.0,~=1.0.1",
		// Partial wildcard exclusion doesn't exhaust range
		">=1.0,<2.0,!=1.0.*,!=1.1.*",
		// ~= with pre/dev lower bound still accepts the final release
		"~=1.0.dev0,<1.0.post0", "~=1.0a1,<1.0.post0",
	}
	unsatNoPre := []string{
		// Only pre-releases in range
		">=1.0.dev0,<1.0", ">=1.0a1,<1.0", ">=1.0rc1,<1.0",
		// Single pre-release pin
		"==1.0.dev0", "==1.0a1", "==1.0a1.post0", "==1.0.post0.dev0", "==0.dev0",
		// Ranges within one pre-release family
		">=1.0a1,<1.0a2", ">=1.0b1,<1.0rc1", ">=1.0.dev0,<1.0.dev5",
		// Strict > on pre-release lower bound (BoundaryVersion path)
		">1.0a1,<1.0a3",
		// != removes all non-pre-releases from range
		">=1.0rc1,<=1.0,!=1.0", ">=1.0.dev0,<=1.0,!=1.0", ">=1.0.dev0,<=1.0.post0,!=1.0,!=1.0.post0",
		// Epoch pre-release
		"==1!1.0.dev0", ">=1!1.0a1,<1!1.0",
		// === with parseable pre-release string
		"===1.0a1", "===1.0.dev0",
		// Already unsatisfiable regardless of prereleases
		">=2.0,<1.0",
	}
	satNoPre := []string{
		"", ">=1.0,<2.0", ">=1.0.dev0,<2.0", "==1.0", "==1.0.post0", ">=1.0.dev0,<1.0.post1",
		// Unbounded lower (nearest_non_prerelease(None) path)
		"<2.0",
		// Exact local pin: nearest == upper and upper inclusive
		"==1.0+local",
		// === forces range fallback in prerelease check
		"===1.0",
		// === with unparsable string (prereleases filter does not apply)
		"===foobar",
		// Compatible release from pre-release includes final release
		"~=1.0a1", "~=1.0.dev0",
		// != removes some but not all
		">=1.0rc1,<=1.0.post0,!=1.0",
		// Inclusive upper at non-pre-release boundary
		">=1.0rc1,<=1.0", ">=1.0.dev0,<=1.0",
	}
	samples := sampleVersions()
	for _, spec := range unsat {
		if got := mustSet(t, spec, def).Filter(samples, pre); len(got) > 0 {
			t.Errorf("unsatisfiable %q: filter(prereleases=True) kept %q", spec, got)
		}
	}
	for _, spec := range sat {
		if got := mustSet(t, spec, def).Filter(samples, pre); len(got) == 0 {
			t.Errorf("satisfiable %q: filter(prereleases=True) kept nothing", spec)
		}
	}
	for _, spec := range unsatNoPre {
		if got := mustSet(t, spec, nopre).Filter(samples, def); len(got) > 0 {
			t.Errorf("unsatisfiable without pre-releases %q: filter kept %q", spec, got)
		}
	}
	for _, spec := range satNoPre {
		if got := mustSet(t, spec, nopre).Filter(samples, def); len(got) == 0 {
			t.Errorf("satisfiable without pre-releases %q: filter kept nothing", spec)
		}
	}
	// test_and_preserves_unsatisfiable and test_and_satisfiable.
	if len(mustSet(t, ">=2.0,<1.0", def).Filter(samples, pre)) > 0 || len(mustSet(t, ">=1.0,<2.0", def).Filter(samples, pre)) == 0 {
		t.Error("combined sets")
	}
}
