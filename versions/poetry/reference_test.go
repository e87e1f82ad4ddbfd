package poetry

import (
	"slices"
	"strings"
	"testing"

	"github.com/pinbot-dev/pinbot/versions"
	"github.com/pinbot-dev/pinbot/versions/pep440"
)

// The tables in this file are ported from python-poetry/poetry-core:
//
//	tests/constraints/version/test_parse_constraint.py at 070fb7342b2a2b133ef90931b892e54940f9d40b
//	tests/constraints/version/test_version_range.py    at 076aa123d8fc23f804578dff9f1a835b29e1f050
//	tests/constraints/version/test_version.py          at 070fb7342b2a2b133ef90931b892e54940f9d40b
//
// A parsed constraint of one clause is compared with poetry-core's expected
// Version, VersionRange or union as a structure (bounds equal by PEP 440,
// inclusive flags equal). pinbot has no range algebra (intersection, union,
// difference), so a constraint of several clauses is compared with the
// expected ranges by membership over the versions around every bound. Not
// ported: the algebra itself (allows_all, allows_any, intersect, union,
// difference, is_empty, is_single_wildcard_range, str() of intersected
// ranges), parse_marker_version_constraint (a marker API pinbot does not
// have) and Python's None passed to Version.parse.

var scheme = Scheme{}

// r is an expected VersionRange; "" is an unbounded side.
type r struct {
	min, max       string
	incMin, incMax bool
}

// expect is an expected constraint: any version, one version, or the union
// of ranges.
type expect struct {
	any    bool
	exact  string
	ranges []r
}

func anyV() expect          { return expect{any: true} }
func ver(v string) expect   { return expect{exact: v} }
func ranges(rs ...r) expect { return expect{ranges: rs} }
func pv(t *testing.T, s string) pep440.Version {
	t.Helper()
	v, err := pep440.Parse(s)
	if err != nil {
		t.Fatalf("Parse(%q): %v", s, err)
	}
	return v
}

// asRanges returns what a one-clause set admits as ranges (a negated range
// is its two complements), or the exact version.
func asRanges(s set) (exact *pep440.Version, out []rng) {
	if s.exact != nil {
		return s.exact, nil
	}
	if !s.not {
		return nil, []rng{s.r}
	}
	return nil, []rng{{max: s.r.min, incMax: !s.r.incMin}, {min: s.r.max, incMin: !s.r.incMax}}
}

func sameBound(t *testing.T, got *pep440.Version, want string) bool {
	if got == nil || want == "" {
		return got == nil && want == ""
	}
	return got.Compare(pv(t, want)) == 0
}

// checkStructure compares the parse of one-clause input with want.
func checkStructure(t *testing.T, in string, want expect) {
	t.Helper()
	c, err := scheme.ParseConstraint(in)
	if err != nil {
		t.Errorf("parse_constraint(%q): %v", in, err)
		return
	}
	if want.any {
		if len(c.Clauses) != 0 || c.Or {
			t.Errorf("parse_constraint(%q) = %+v, want any version", in, c.Clauses)
		}
		return
	}
	if len(c.Clauses) != 1 || c.Or {
		t.Errorf("parse_constraint(%q) = %+v, want one clause", in, c.Clauses)
		return
	}
	s, msg := clauseSet(c.Clauses[0])
	if msg != "" {
		t.Fatalf("parse_constraint(%q): %s", in, msg)
	}
	exact, got := asRanges(s)
	if want.exact != "" {
		if exact == nil || s.not || exact.Compare(pv(t, want.exact)) != 0 {
			t.Errorf("parse_constraint(%q) = %+v, want Version %s", in, s, want.exact)
		}
		return
	}
	ok := exact == nil && len(got) == len(want.ranges)
	for i := 0; ok && i < len(got); i++ {
		w := want.ranges[i]
		ok = sameBound(t, got[i].min, w.min) && sameBound(t, got[i].max, w.max) && got[i].incMin == w.incMin && got[i].incMax == w.incMax
	}
	if !ok {
		t.Errorf("parse_constraint(%q) = %s, want %+v", in, describe(exact, got), want.ranges)
	}
}

func describe(exact *pep440.Version, rs []rng) string {
	if exact != nil {
		return "Version " + exact.String()
	}
	var parts []string
	for _, x := range rs {
		parts = append(parts, rangeString(x))
	}
	return strings.Join(parts, " || ")
}

// rangeString renders a range as poetry-core's VersionRange.__str__ does.
func rangeString(x rng) string {
	var b strings.Builder
	if x.min != nil {
		b.WriteString(map[bool]string{true: ">=", false: ">"}[x.incMin] + x.min.String())
	}
	if x.max != nil {
		if x.min != nil {
			b.WriteByte(',')
		}
		b.WriteString(map[bool]string{true: "<=", false: "<"}[x.incMax] + x.max.String())
	}
	if b.Len() == 0 {
		return "*"
	}
	return b.String()
}

// allowsExpected is poetry-core's allows for an expected constraint, by the
// same rules as the parsed ones (rng.allows), so that the comparison is of
// the parse alone.
func allowsExpected(t *testing.T, want expect, v pep440.Version) bool {
	if want.any {
		return true
	}
	if want.exact != "" {
		return equal(v, pv(t, want.exact))
	}
	for _, w := range want.ranges {
		x := rng{incMin: w.incMin, incMax: w.incMax}
		if w.min != "" {
			m := pv(t, w.min)
			x.min = &m
		}
		if w.max != "" {
			m := pv(t, w.max)
			x.max = &m
		}
		if x.allows(v) {
			return true
		}
	}
	return false
}

// probes returns versions around every bound of want.
func probes(t *testing.T, want expect) []string {
	var bounds []string
	if want.exact != "" {
		bounds = append(bounds, want.exact)
	}
	for _, w := range want.ranges {
		bounds = append(bounds, w.min, w.max)
	}
	out := []string{"0", "0.0.1", "1.0", "99.0", "1!0", "1!99"}
	for _, b := range bounds {
		if b == "" {
			continue
		}
		v := pv(t, b)
		base := v.BaseVersion()
		rel := v.Release()
		last := rel[len(rel)-1]
		up := strings.Join(append(slices.Clone(rel[:len(rel)-1]), inc(last)), ".")
		out = append(out, b, v.Public()+"+local", base, base+".dev0", base+"a1", base+"rc1", base+".post1", base+".post1.dev0",
			base+"+local", base+".1", up, up+".dev0", up+"a1")
		if last != "0" {
			out = append(out, strings.Join(append(slices.Clone(rel[:len(rel)-1]), string(rune(last[0]-1))), "."))
		}
	}
	return out
}

// checkMembership compares a constraint of several clauses with want over the
// probes.
func checkMembership(t *testing.T, in string, want expect) {
	t.Helper()
	c, err := scheme.ParseConstraint(in)
	if err != nil {
		t.Errorf("parse_constraint(%q): %v", in, err)
		return
	}
	for _, p := range probes(t, want) {
		v := pv(t, p)
		if got, w := scheme.Match(p, c), allowsExpected(t, want, v); got != w {
			t.Errorf("parse_constraint(%q).allows(%s) = %v, but the expected %+v says %v", in, p, got, want, w)
		}
	}
}

// TestPoetryParseConstraint is test_parse_constraint, _wildcard, _tilde,
// _caret, _negative_wildcard, _multi, _multi_with_epochs, _multi_wildcard and
// test_parse_constraints_with_trailing_comma.
func TestPoetryParseConstraint(t *testing.T) {
	one := []struct {
		in   string
		want expect
	}{
		// test_parse_constraint
		{"*", anyV()}, {"*.*", anyV()}, {"v*.*", anyV()},
		{">1.0.0", ranges(r{min: "1.0.0"})}, {"<1.2.3", ranges(r{max: "1.2.3"})},
		{"<=1.2.3", ranges(r{max: "1.2.3", incMax: true})}, {">=1.2.3", ranges(r{min: "1.2.3", incMin: true})},
		{"=1.2.3", ver("1.2.3")}, {"1.2.3", ver("1.2.3")}, {"1!2.3.4", ver("1!2.3.4")}, {"=1.0", ver("1.0.0")},
		{"1.2.3b5", ver("1.2.3b5")}, {"1.0.0a1.dev0", ver("1.0.0a1.dev0")},
		{">dev", ranges(r{min: "0.0.dev0"})}, // Issue 206
		// test_parse_constraint_wildcard
		{"v2.*", ranges(r{"2.dev0", "3.dev0", true, false})}, {"2.*.*", ranges(r{"2.dev0", "3.dev0", true, false})},
		{"20.*", ranges(r{"20.dev0", "21.dev0", true, false})}, {"20.*.*", ranges(r{"20.dev0", "21.dev0", true, false})},
		{"2.0.*", ranges(r{"2.0.dev0", "2.1.dev0", true, false})}, {"0.*", ranges(r{"0.dev0", "1.dev0", true, false})},
		{"0.*.*", ranges(r{"0.dev0", "1.dev0", true, false})},
		{"2.0.post1.*", ranges(r{"2.0.post1.dev0", "2.0.post2.dev0", true, false})},
		{"2.0a1.*", ranges(r{"2.0a1.dev0", "2.0a2.dev0", true, false})},
		{"2.0dev0.*", ranges(r{"2.0dev0", "2.0dev1", true, false})},
		// test_parse_constraint_tilde
		{"~v1", ranges(r{"1.0.0", "2.0.0", true, false})}, {"~1.0", ranges(r{"1.0.0", "1.1.0", true, false})},
		{"~1.0.0", ranges(r{"1.0.0", "1.1.0", true, false})}, {"~1.2", ranges(r{"1.2.0", "1.3.0", true, false})},
		{"~1.2.3", ranges(r{"1.2.3", "1.3.0", true, false})}, {"~1.0.0a1", ranges(r{"1.0.0a1", "1.1.0", true, false})},
		{"~1.0.0a1.dev0", ranges(r{"1.0.0a1.dev0", "1.1.0", true, false})},
		{"~1.2-beta", ranges(r{"1.2.0b0", "1.3.0", true, false})}, {"~1.2-b2", ranges(r{"1.2.0b2", "1.3.0", true, false})},
		{"~0.3", ranges(r{"0.3.0", "0.4.0", true, false})}, {"~3.5", ranges(r{"3.5.0", "3.6.0", true, false})},
		{"~=3.5", ranges(r{"3.5.0", "4.0.0", true, false})},         // PEP 440
		{"~=3.5.3", ranges(r{"3.5.3", "3.6.0", true, false})},       // PEP 440
		{"~=3.5.3rc1", ranges(r{"3.5.3rc1", "3.6.0", true, false})}, // PEP 440
		// test_parse_constraint_caret
		{"^v1", ranges(r{"1.0.0", "2.0.0", true, false})}, {"^0", ranges(r{"0", "1", true, false})},
		{"^0.0", ranges(r{"0.0.0", "0.1.0", true, false})}, {"^1.2", ranges(r{"1.2.0", "2.0.0", true, false})},
		{"^1.2.3-beta.2", ranges(r{"1.2.3b2", "2.0.0", true, false})}, {"^1.2.3", ranges(r{"1.2.3", "2.0.0", true, false})},
		{"^0.2.3", ranges(r{"0.2.3", "0.3.0", true, false})}, {"^0.2", ranges(r{"0.2.0", "0.3.0", true, false})},
		{"^0.2.0", ranges(r{"0.2.0", "0.3.0", true, false})}, {"^0.0.3", ranges(r{"0.0.3", "0.0.4", true, false})},
		{"^0.0.3-alpha.21", ranges(r{"0.0.3a21", "0.0.4", true, false})},
		{"^0.1.3-alpha.21", ranges(r{"0.1.3a21", "0.2.0", true, false})},
		{"^0.0.0-alpha.21", ranges(r{"0.0.0a21", "0.0.1", true, false})},
		{"^1.0.0a1", ranges(r{"1.0.0a1", "2.0.0", true, false})},
		{"^1.0.0a1.dev0", ranges(r{"1.0.0a1.dev0", "2.0.0", true, false})},
		// test_parse_constraints_negative_wildcard
		{"!=v2.*", ranges(r{max: "2.0.0.dev0"}, r{min: "3.0.dev0", incMin: true})},
		{"!=2.*.*", ranges(r{max: "2.0.0.dev0"}, r{min: "3.0.dev0", incMin: true})},
		{"!=2.0.*", ranges(r{max: "2.0.0.dev0"}, r{min: "2.1.dev0", incMin: true})},
		{"!=0.*", ranges(r{max: "0.dev0"}, r{min: "1.0.dev0", incMin: true})},
		{"!=0.*.*", ranges(r{max: "0.dev0"}, r{min: "1.0.dev0", incMin: true})},
		// test_parse_constraints_with_trailing_comma (one clause)
		{">3.7,", ranges(r{min: "3.7"})}, {">3.7 , ", ranges(r{min: "3.7"})},
	}
	for _, tt := range one {
		checkStructure(t, tt.in, tt.want)
		if len(tt.want.ranges) > 0 || tt.want.exact != "" {
			checkMembership(t, tt.in, tt.want)
		}
	}
	many := []struct {
		in   string
		want expect
	}{
		// test_parse_constraint_multi
		{">2.0,<=3.0", ranges(r{"2.0.0", "3.0.0", false, true})},
		// test_parse_constraint_multi_with_epochs
		{">1!2,<=2!3", ranges(r{"1!2.0.0", "2!3.0.0", false, true})},
		{">=1!2,<2!3", ranges(r{"1!2.0.0", "2!3.0.0", true, false})},
		// test_parse_constraint_multi_wildcard
		{">=2.7,!=3.0.*,!=3.1.*", ranges(r{"2.7", "3.0.dev0", true, false}, r{"3.2.dev0", "", true, false})},
		// test_parse_constraints_with_trailing_comma
		{">3.7,<3.8,", ranges(r{min: "3.7", max: "3.8"})},
		{">3.7,||<3.6,", ranges(r{min: "3.7"}, r{max: "3.6"})},
		{">3.7 , || <3.6 , ", ranges(r{min: "3.7"}, r{max: "3.6"})},
		{">3.7, <3.8, || <3.6, >3.5", ranges(r{min: "3.7", max: "3.8"}, r{min: "3.5", max: "3.6"})},
	}
	for _, tt := range many {
		checkMembership(t, tt.in, tt.want)
	}
}

// TestPoetryWhiteSpacePadding is test_parse_constraint_with_white_space_padding:
// each constraint written with its parts joined by nothing and by four spaces.
func TestPoetryWhiteSpacePadding(t *testing.T) {
	for _, tt := range []struct {
		parts []string
		want  expect
	}{
		{[]string{"3.8"}, ver("3.8")}, {[]string{"=", "3.8"}, ver("3.8")}, {[]string{"==", "3.8"}, ver("3.8")},
		{[]string{">", "3.8"}, ranges(r{min: "3.8"})}, {[]string{">=", "3.8"}, ranges(r{min: "3.8", incMin: true})},
		{[]string{"<", "3.8"}, ranges(r{max: "3.8"})}, {[]string{"<=", "3.8"}, ranges(r{max: "3.8", incMax: true})},
		{[]string{"^", "3.8"}, ranges(r{"3.8", "4.0", true, false})}, {[]string{"~", "3.8"}, ranges(r{"3.8", "3.9", true, false})},
		{[]string{"~=", "3.8"}, ranges(r{"3.8", "4.0", true, false})},
		{[]string{"3.8.*"}, ranges(r{"3.8.0.dev0", "3.9.0.dev0", true, false})},
		{[]string{"==", "3.8.*"}, ranges(r{"3.8.0.dev0", "3.9.0.dev0", true, false})},
		{[]string{"!=", "3.8.*"}, ranges(r{max: "3.8.dev0"}, r{min: "3.9.dev0", incMin: true})},
		{[]string{">", "3.8", ",", "<=", "6.5"}, ranges(r{"3.8", "6.5", false, true})},
		{[]string{">=", "2.7", ",", "!=", "3.0.*", ",", "!=", "3.1.*"}, ranges(r{"2.7", "3.0.dev0", true, false}, r{"3.2.dev0", "", true, false})},
		{[]string{"~", "2.7", "||", "~", "3.8"}, ranges(r{"2.7", "2.8", true, false}, r{"3.8", "3.9", true, false})},
		{[]string{"~", "2.7", "||", "~", "3.8", "|", ">=", "3.10", ",", "<", "3.12"},
			ranges(r{"2.7", "2.8", true, false}, r{"3.8", "3.9", true, false}, r{"3.10", "3.12", true, false})},
	} {
		for _, pad := range []string{"", "    "} {
			in := pad + strings.Join(tt.parts, pad) + pad
			if len(tt.parts) <= 2 && tt.parts[len(tt.parts)-1] != "3.8.*" || len(tt.parts) == 2 {
				checkStructure(t, in, tt.want)
			}
			checkMembership(t, in, tt.want)
		}
	}
}

// TestPoetryKeepPrecision is test_constraints_keep_version_precision and the
// one-clause rows of test_version_range.py's test_str.
func TestPoetryKeepPrecision(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"1", "1"}, {"1.2", "1.2"}, {"1.2.3", "1.2.3"}, {"!=1", "!=1"}, {"!=1.2", "!=1.2"}, {"!=1.2.3", "!=1.2.3"},
		{"^1", ">=1,<2"}, {"^1.0", ">=1.0,<2.0"}, {"^1.0.0", ">=1.0.0,<2.0.0"}, {"^1.0.0-alpha.1", ">=1.0.0a1,<2.0.0"},
		{"^0", ">=0,<1"}, {"^0.1", ">=0.1,<0.2"}, {"^0.0.2", ">=0.0.2,<0.0.3"}, {"^0.1.2", ">=0.1.2,<0.2.0"},
		{"^0-alpha.1", ">=0a1,<1"}, {"^0.1-alpha.1", ">=0.1a1,<0.2"}, {"^0.0.2-alpha.1", ">=0.0.2a1,<0.0.3"},
		{"^0.1.2-alpha.1", ">=0.1.2a1,<0.2.0"}, {"~1", ">=1,<2"}, {"~1.0", ">=1.0,<1.1"}, {"~1.0.0", ">=1.0.0,<1.1.0"},
		// test_str
		{"*", "*"}, {">1.2", ">1.2"}, {">=1.2", ">=1.2"}, {"<1.3", "<1.3"}, {"<=1.3", "<=1.3"},
	} {
		c, err := scheme.ParseConstraint(tt.in)
		if err != nil {
			t.Errorf("parse_constraint(%q): %v", tt.in, err)
			continue
		}
		got := "*"
		if len(c.Clauses) == 1 {
			s, _ := clauseSet(c.Clauses[0])
			switch {
			case s.exact != nil && s.not:
				got = "!=" + s.exact.String()
			case s.exact != nil:
				got = s.exact.String()
			default:
				got = rangeString(s.r)
			}
		}
		if got != tt.want {
			t.Errorf("str(parse_constraint(%q)) = %q, want %q", tt.in, got, tt.want)
		}
	}
	// The wildcard rows of test_str: a prefix match is the range of its
	// prefix (==1.* is >=1.dev0,<2.dev0).
	for _, tt := range []struct{ in, min, max string }{
		{"1.*", "1.dev0", "2.dev0"}, {"1.0.*", "1.0.dev0", "1.1.dev0"}, {"1.2.*", "1.2.dev0", "1.3.dev0"},
		{"1.2.3.4.5.*", "1.2.3.4.5.dev0", "1.2.3.4.6.dev0"}, {"2.0.post1.*", "2.0.post1.dev0", "2.0.post2.dev0"},
		{"2.1.post0.*", "2.1.post0.dev0", "2.1.post1.dev0"},
	} {
		checkStructure(t, tt.in, ranges(r{tt.min, tt.max, true, false}))
	}
}

// allowsRow is a row of the allows tables: version in constraint.
type allowsRow struct {
	constraint, version string
	want                bool
}

// poetryVersionRanges is test_version_ranges.
var poetryVersionRanges = []allowsRow{
	// Inclusive ordering
	{"<=3.0.0", "3.0.0", true}, {"<=3.0.0", "3.0.0+local.1", true}, {">=3.0.0", "3.0.0", true},
	{">=3.0.0", "3.0.0+local.1", true}, {">=3.0.0", "3.0.0-1", true}, {"<=3.0.0+local.1", "3.0.0", true},
	{"<=3.0.0+local.1", "3.0.0+local.1", true}, {"<=3.0.0+local.1", "3.0.0+local.2", false},
	{"<=3.0.0+local.1", "3.0.0-1", false}, {"<=3.0.0+local.1", "3.0.0-1+local.1", false},
	{">=3.0.0+local.1", "3.0.0", false}, {">=3.0.0+local.1", "3.0.0+local.1", true},
	{">=3.0.0+local.1", "3.0.0+local.2", true}, {">=3.0.0+local.1", "3.0.0-1", true},
	{">=3.0.0+local.1", "3.0.0-1+local.1", true}, {"<=3.0.0+local.2", "3.0.0+local.1", true},
	{"<=3.0.0+local.2", "3.0.0+local.2", true}, {">=3.0.0+local.2", "3.0.0+local.1", false},
	{">=3.0.0+local.2", "3.0.0+local.2", true}, {">=3.0.0+local.2", "3.0.0-1+local.1", true},
	{"<=3.0.0-1", "3.0.0", true}, {"<=3.0.0-1", "3.0.0+local.1", true}, {"<=3.0.0-1", "3.0.0+local.2", true},
	{"<=3.0.0-1", "3.0.0-1", true}, {"<=3.0.0-1", "3.0.0-1+local.1", true}, {"<=3.0.0-1", "3.0.0-2", false},
	{">=3.0.0-1", "3.0.0", false}, {">=3.0.0-1", "3.0.0+local.1", false}, {">=3.0.0-1", "3.0.0+local.2", false},
	{">=3.0.0-1", "3.0.0-1+local.1", true}, {">=3.0.0-1", "3.0.0-2", true},
	{"<=3.0.0-1+local.1", "3.0.0+local.1", true}, {"<=3.0.0-1+local.1", "3.0.0+local.2", true},
	{"<=3.0.0-1+local.1", "3.0.0-1", true}, {">=3.0.0-1+local.1", "3.0.0+local.1", false},
	{">=3.0.0-1+local.1", "3.0.0+local.2", false}, {">=3.0.0-1+local.1", "3.0.0-1", false},
	{"<=3.0.0-2", "3.0.0-1", true}, {"<=3.0.0-2", "3.0.0-2", true}, {">=3.0.0-2", "3.0.0-1", false},
	{">=3.0.0-2", "3.0.0-2", true},
	// Exclusive ordering
	{">1.7", "1.7.0", false}, {">1.7", "1.7.1", true}, {">1.7", "1.6.1", false}, {"<1.7", "1.7.0", false},
	{"<1.7", "1.7.1", false}, {"<1.7", "1.6.1", true},
	// >V MUST NOT allow a post-release of the given version unless V itself is a post release
	{">1.7", "1.7.0.post1", false}, {">1.7.post2", "1.7.0", false}, {">1.7.post2", "1.7.1", true},
	{">1.7.post2", "1.7.0.post2", false}, {">1.7.post2", "1.7.0.post3", true}, {">1.7", "1.7.0.post1+local.1", false},
	// >V MUST NOT match a local version of the specified version
	{">1.7.0", "1.7.0+local.1", false},
	{"<1.7.0", "1.7.0+local.1", false},         // spec does not clarify this
	{"<1.7.0+local.2", "1.7.0+local.1", false}, // spec does not clarify this
	// <V MUST NOT allow a pre-release of the specified version unless the specified version is itself a pre-release
	{"<1.7.0", "1.7.0.rc1", false}, {"<1.7.0.rc1", "1.7.0.rc1", false}, {"<1.7.0.rc2", "1.7.0.rc1", true},
	// Misc. Cases
	{">=3.0.0+cuda", "3.0.0+cuda", true},
	{">=3.0.0+cpu", "3.0.0+cuda", true}, // cuda > cpu (lexicographically)

	// test_parsed_strict_max_excludes_dev_releases_of_stable
	{"<2", "2", false}, {"<2", "2.dev0", false}, {"<2", "2a1", false}, {"<2", "1.999", true},
	// test_ne_allows_prereleases_per_pep440_strict_equality
	{"!=2", "2", false}, {"!=2", "2.dev0", true}, {"!=2", "2.post1", true},
	// test_intersect_punctured_range_with_excluded_point_is_empty, as the
	// membership it rests on
	{">=0.21.0,!=0.21.0+cpu,<0.22.0", "0.21.0+cpu", false}, {"==0.21.0+cpu", "0.21.0+cpu", true},
	// test_interior_split_preserves_raw_max_and_allows_dev, as parsed
	// constraints: 2.dev0 is in >=1,<3 and !=2
	{">=1,<3,!=2", "2.dev0", true}, {">=1,<3,!=2", "2", false},
}

// poetrySpecifiers is test_specifiers, poetry-core's copy of packaging's
// table (with its own rows for prefix matches after a post-release and for !=).
var poetrySpecifiers = []allowsRow{
	// Test the equality operation
	{"==2", "2.0", true}, {"==2.0", "2.0", true}, {"==2.0.0", "2.0", true}, {"==2", "2.0+deadbeef", true},
	{"==2.0", "2.0+deadbeef", true}, {"==2.0.0", "2.0+deadbeef", true}, {"==2+deadbeef", "2.0+deadbeef", true},
	{"==2.0+deadbeef", "2.0+deadbeef", true}, {"==2.0.0+deadbeef", "2.0+deadbeef", true},
	{"==2.0.0+deadbeef.00", "2.0+deadbeef.0", true},
	// Test the equality operation with a prefix
	{"==2.*", "2.dev1", true}, {"==2.*", "2a1", true}, {"==2.*", "2a1.post1", true}, {"==2.*", "2b1", true},
	{"==2.*", "2b1.dev1", true}, {"==2.*", "2c1", true}, {"==2.*", "2c1.post1.dev1", true}, {"==2.*", "2rc1", true},
	{"==2.*", "2", true}, {"==2.*", "2.0", true}, {"==2.*", "2.0.0", true}, {"==2.0.post1.*", "2.0.post1", true},
	{"==2.0.post1.*", "2.0.post1.dev1", true}, {"==2.1.*", "2.1+local.version", true},
	// Test the in-equality operation
	{"!=2", "2.1", true}, {"!=2.0", "2.1", true}, {"!=2", "2.0.1", true}, {"!=2.0", "2.0.1", true},
	{"!=2.0.0", "2.0.1", true}, {"!=2.0+deadbeef", "2.0", true},
	// != must not inherit exclusive ordered comparison rules from < and >
	// (pre-releases, post-releases, dev-releases of the specified version are
	// not equal to it)
	{"!=2", "2.0.dev1", true}, {"!=2", "2.0a1", true}, {"!=2", "2.0b1", true}, {"!=2", "2.0rc1", true},
	{"!=2", "2.0.post1", true},
	// Test the in-equality operation with a prefix
	{"!=3.*", "2.0", true}, {"!=2.0.*", "2.1", true},
	// Test the greater than equal operation
	{">=2", "2.0", true}, {">=2.0", "2.0", true}, {">=2.0.0", "2.0", true}, {">=2", "2.0.post1", true},
	{">=2", "2.0.post1.dev1", true}, {">=2", "3", true},
	// Test the less than equal operation
	{"<=2", "2.0", true}, {"<=2.0", "2.0", true}, {"<=2.0.0", "2.0", true}, {"<=2", "2.0.dev1", true},
	{"<=2", "2.0a1", true}, {"<=2", "2.0a1.dev1", true}, {"<=2", "2.0b1", true}, {"<=2", "2.0b1.post1", true},
	{"<=2", "2.0c1", true}, {"<=2", "2.0c1.post1.dev1", true}, {"<=2", "2.0rc1", true}, {"<=2", "1", true},
	// Test the greater than operation
	{">2", "3", true}, {">2.0", "2.1", true}, {">2", "2.0.1", true}, {">2", "2.1.post1", true},
	{">2", "2.1+local.version", true},
	// Test the less than operation
	{"<2", "1", true}, {"<2.1", "2.0", true}, {"<2.1", "2.0.dev0", true},
	// Test the compatibility operation
	{"~=1.0", "1", true}, {"~=1.0", "1.0.1", true}, {"~=1.0", "1.1", true}, {"~=1.0", "1.9999999", true},
	{"~=1.0a1", "1.1", true},
	// Test that epochs are handled sanely
	{"~=2!1.0", "2!1.0", true}, {"==2!1.*", "2!1.0", true}, {"==2!1.0", "2!1.0", true}, {"!=1.0", "2!1.0", true},
	{"!=2!1.0", "1.0", true}, {"<=2!0.1", "1.0", true}, {">=2.0", "2!1.0", true}, {"<2!0.1", "1.0", true},
	{">2.0", "2!1.0", true},
	// Test some normalization rules
	{">2.0dev", "2.0.5", true},

	// Test the equality operation
	{"==2", "2.1", false}, {"==2.0", "2.1", false}, {"==2.0.0", "2.1", false}, {"==2.0+deadbeef", "2.0", false},
	// Test the equality operation with a prefix
	{"==3.*", "2.0", false}, {"==2.0.*", "2.1", false},
	// Test the in-equality operation
	{"!=2", "2.0", false}, {"!=2.0", "2.0", false}, {"!=2.0.0", "2.0", false}, {"!=2", "2.0+deadbeef", false},
	{"!=2.0", "2.0+deadbeef", false}, {"!=2.0.0", "2.0+deadbeef", false}, {"!=2+deadbeef", "2.0+deadbeef", false},
	{"!=2.0+deadbeef", "2.0+deadbeef", false}, {"!=2.0.0+deadbeef", "2.0+deadbeef", false},
	{"!=2.0.0+deadbeef.00", "2.0+deadbeef.0", false},
	// Test the in-equality operation with a prefix
	{"!=2.*", "2.dev1", false}, {"!=2.*", "2a1", false}, {"!=2.*", "2a1.post1", false}, {"!=2.*", "2b1", false},
	{"!=2.*", "2b1.dev1", false}, {"!=2.*", "2c1", false}, {"!=2.*", "2c1.post1.dev1", false}, {"!=2.*", "2rc1", false},
	{"!=2.*", "2", false}, {"!=2.*", "2.0", false}, {"!=2.*", "2.0.0", false}, {"!=2.0.post1.*", "2.0.post1", false},
	{"!=2.0.post1.*", "2.0.post1.dev1", false},
	// Test the greater than equal operation
	{">=2", "2.0.dev1", false}, {">=2", "2.0a1", false}, {">=2", "2.0a1.dev1", false}, {">=2", "2.0b1", false},
	{">=2", "2.0b1.post1", false}, {">=2", "2.0c1", false}, {">=2", "2.0c1.post1.dev1", false}, {">=2", "2.0rc1", false},
	{">=2", "1", false},
	// Test the less than equal operation
	{"<=2", "2.0.post1", false}, {"<=2", "2.0.post1.dev1", false}, {"<=2", "3", false},
	// Test the greater than operation
	{">2", "1", false}, {">2", "2.0.dev1", false}, {">2", "2.0a1", false}, {">2", "2.0a1.post1", false},
	{">2", "2.0b1", false}, {">2", "2.0b1.dev1", false}, {">2", "2.0c1", false}, {">2", "2.0c1.post1.dev1", false},
	{">2", "2.0rc1", false}, {">2", "2.0", false}, {">2", "2.0.post1", false}, {">2", "2.0.post1.dev1", false},
	{">2", "2.0+local.version", false},
	// Test the less than operation
	{"<2", "2.0.dev1", false}, {"<2", "2.0a1", false}, {"<2", "2.0a1.post1", false}, {"<2", "2.0b1", false},
	{"<2", "2.0b2.dev1", false}, {"<2", "2.0c1", false}, {"<2", "2.0c1.post1.dev1", false}, {"<2", "2.0rc1", false},
	{"<2", "2.0", false}, {"<2", "2.post1", false}, {"<2", "2.post1.dev1", false}, {"<2", "3", false},
	// Test the compatibility operation
	{"~=1.0", "2.0", false}, {"~=1.0.0", "1.1.0", false}, {"~=1.0.0", "1.1.post1", false},
	// Test that epochs are handled sanely
	{"~=2!1.0", "1.0", false}, {"~=1.0", "2!1.0", false}, {"==1.0", "2!1.0", false}, {"==2!1.0", "1.0", false},
	{"==1.*", "2!1.0", false}, {"==2!1.*", "1.0", false}, {"!=2!1.0", "2!1.0", false},
}

// poetryVersionAllows is test_allows, test_allows_zero_padding,
// test_allows_with_local and test_allows_with_post of test_version.py: a
// Version constraint (a bare version) allows another.
var poetryVersionAllows = []allowsRow{
	{"1.2.3", "1.2.3", true}, {"1.2.3", "1.2", false}, {"1.2.3", "2.2.3", false}, {"1.2.3", "1.3.3", false},
	{"1.2.3", "1.2.4", false}, {"1.2.3", "1.2.3-dev", false}, {"1.2.3", "1.2.3-1", false}, {"1.2.3", "1.2.3-1+build", false},
	{"1.2.3", "1.2.3+build", true},
	// test_allows_zero_padding, both ways
	{"1", "1.0", true}, {"1.0", "1", true}, {"1", "1.0.0", true}, {"1.0.0", "1", true}, {"1", "1.0.0.0", true},
	{"1.0.0.0", "1", true}, {"1.2", "1.2.0", true}, {"1.2.0", "1.2", true}, {"1.2", "1.2.0.0", true}, {"1.2.0.0", "1.2", true},
	{"1.2", "1.2.0.0.0", true}, {"1.2.0.0.0", "1.2", true}, {"1.2.3", "1.2.3.0", true}, {"1.2.3.0", "1.2.3", true},
	{"1.2.3", "1.2.3.0.0", true}, {"1.2.3.0.0", "1.2.3", true}, {"1.2.3.4", "1.2.3.4.0", true}, {"1.2.3.4.0", "1.2.3.4", true},
	{"1.2.3.4", "1.2.3.4.0.0", true}, {"1.2.3.4.0.0", "1.2.3.4", true}, {"1.2.3.4a1", "1.2.3.4.0a1", true},
	{"1.2.3.4.0a1", "1.2.3.4a1", true},
	// test_allows_with_local
	{"1.2.3+build.1", "1.2.3+build.1", true}, {"1.2.3+build.1", "1.2.3", false}, {"1.2.3+build.1", "1.3.3", false},
	{"1.2.3+build.1", "1.2.3-dev", false}, {"1.2.3+build.1", "1.2.3+build.2", false},
	{"1.2.3+build.1", "1.2.3+build.1.0", false}, {"1.2.3+build.1", "1.2.3-1", false},
	{"1.2.3+build.1", "1.2.3-1+build.1", false},
	// test_allows_with_post
	{"1.2.3-1", "1.2.3-1", true}, {"1.2.3-1", "1.2.3", false}, {"1.2.3-1", "1.2.3-2", false}, {"1.2.3-1", "2.2.3", false},
	{"1.2.3-1", "1.2.3-dev", false}, {"1.2.3-1", "1.2.3+build.2", false}, {"1.2.3-1", "1.2.3-1+build.1", true},
	// test_allows_any / test_intersect rows of two versions, as the
	// membership they rest on: 1.2.3 admits 1.2.3+cpu and 1.2.3+local, not 1.2.3.post0
	{"1.2.3", "1.2.3+cpu", true}, {"1.2.3", "1.2.3+local", true}, {"1.2.3", "1.2.3.post0", false}, {"1.2.3", "1.1.4", false},
}

// TestPoetryAllows runs the allows tables through Match.
func TestPoetryAllows(t *testing.T) {
	for _, table := range [][]allowsRow{poetryVersionRanges, poetrySpecifiers, poetryVersionAllows} {
		for _, tt := range table {
			c, err := scheme.ParseConstraint(tt.constraint)
			if err != nil {
				t.Errorf("parse_constraint(%q): %v", tt.constraint, err)
				continue
			}
			if got := scheme.Match(tt.version, c); got != tt.want {
				t.Errorf("parse_constraint(%q).allows(%q) = %v, want %v", tt.constraint, tt.version, got, tt.want)
			}
		}
	}
}

// TestPoetryVersion is test_parse_valid, test_parse_invalid,
// test_to_string_normalizes, test_equality, test_comparison and
// test_versions_are_sortable of test_version.py.
func TestPoetryVersion(t *testing.T) {
	// test_parse_valid: text, the version from_parts builds, its text.
	for _, tt := range []struct{ in, parts, text string }{
		{"1.0.0", "1.0.0", "1.0.0"}, {"1", "1.0.0", "1"}, {"1.0", "1.0.0", "1.0"}, {"1b1", "1.0.0b1", "1b1"},
		{"1.0b1", "1.0.0b1", "1.0b1"}, {"1.0.0b1", "1.0.0b1", "1.0.0b1"}, {"1.0.0-b1", "1.0.0b1", "1.0.0b1"},
		{"1.0.0-beta.1", "1.0.0b1", "1.0.0b1"}, {"1.0.0+1", "1.0.0+1", "1.0.0+1"}, {"1.0.0-1", "1.0.0.post1", "1.0.0.post1"},
		{"1.0.0.0", "1.0.0.0", "1.0.0.0"}, {"1.0.0-post", "1.0.0.post0", "1.0.0.post0"},
		{"1.0.0-post1", "1.0.0.post1", "1.0.0.post1"}, {"0.6c", "0.6.0rc0", "0.6rc0"}, {"0.6pre", "0.6.0rc0", "0.6rc0"},
		{"1!2.3.4", "1!2.3.4", "1!2.3.4"},
	} {
		v := pv(t, tt.in)
		if v.Compare(pv(t, tt.parts)) != 0 || v.String() != tt.text {
			t.Errorf("Version.parse(%q) = %s, want %s (%s)", tt.in, v, tt.text, tt.parts)
		}
	}
	if scheme.Valid("example") {
		t.Error(`Version.parse("example") is valid`)
	}
	// test_to_string_normalizes
	for _, tt := range []struct{ in, want string }{
		// already normalized version
		{"1!2.3.4.5.6a7.post8.dev9+local1.123.abc", "1!2.3.4.5.6a7.post8.dev9+local1.123.abc"},
		// Case sensitivity
		{"1.1RC1", "1.1rc1"},
		// Integer Normalization
		{"00", "0"}, {"09000", "9000"}, {"1.0+foo0100", "1.0+foo0100"},
		// Pre-release separators
		{"1.1.a1", "1.1a1"}, {"1.1-a1", "1.1a1"}, {"1.1_a1", "1.1a1"}, {"1.1a.1", "1.1a1"}, {"1.1a-1", "1.1a1"},
		{"1.1a_1", "1.1a1"},
		// Pre-release spelling
		{"1.1alpha1", "1.1a1"}, {"1.1beta2", "1.1b2"}, {"1.1c3", "1.1rc3"}, {"1.1pre4", "1.1rc4"}, {"1.1preview5", "1.1rc5"},
		// Implicit pre-release number
		{"1.2a", "1.2a0"},
		// Post release separators
		{"1.2.post2", "1.2.post2"}, {"1.2-post2", "1.2.post2"}, {"1.2_post2", "1.2.post2"}, {"1.2post.2", "1.2.post2"},
		{"1.2post-2", "1.2.post2"}, {"1.2post_2", "1.2.post2"},
		// Post release spelling
		{"1.0-r4", "1.0.post4"}, {"1.0-rev4", "1.0.post4"},
		// Implicit post release number
		{"1.2.post", "1.2.post0"},
		// Implicit post releases
		{"1.0-1", "1.0.post1"},
		// Development release separators
		{"1.2.dev2", "1.2.dev2"}, {"1.2-dev2", "1.2.dev2"}, {"1.2_dev2", "1.2.dev2"}, {"1.2dev.2", "1.2.dev2"},
		{"1.2dev-2", "1.2.dev2"}, {"1.2dev_2", "1.2.dev2"},
		// Implicit development release number
		{"1.2.dev", "1.2.dev0"},
		// Local version segments
		{"1.0+ubuntu-1", "1.0+ubuntu.1"}, {"1.0+ubuntu_1", "1.0+ubuntu.1"},
		// Preceding v character
		{"v1.0", "1.0"},
		// Leading and Trailing Whitespace
		{" 1.0 ", "1.0"}, {"\t1.0\t", "1.0"}, {"\n1.0\n", "1.0"}, {"\r\n1.0\r\n", "1.0"}, {"\f1.0\f", "1.0"}, {"\v1.0\v", "1.0"},
	} {
		if got := pv(t, tt.in).String(); got != tt.want {
			t.Errorf("Version.parse(%q).to_string() = %q, want %q", tt.in, got, tt.want)
		}
	}
	// test_equality
	for _, pair := range [][2]string{{"1.2.3", "01.2.3"}, {"1.2.3", "1.02.3"}, {"1.2.3", "1.2.03"}, {"1.2.3-1", "1.2.3-01"}, {"1.2.3+1", "1.2.3+01"}} {
		if scheme.Compare(pair[0], pair[1]) != 0 {
			t.Errorf("Version.parse(%q) != Version.parse(%q)", pair[0], pair[1])
		}
	}
	// test_comparison: every pair of each list compares as the positions do.
	for _, list := range [][]string{
		{"1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-beta.2", "1.0.0-beta.11", "1.0.0-rc.1", "1.0.0-rc.1+build.1", "1.0.0",
			"1.0.0+0.3.7", "1.3.7+build", "1.3.7+build.2.b8f12d7", "1.3.7+build.11.e0f985a", "2.0.0", "2.1.0", "2.2.0",
			"2.11.0", "2.11.1"},
		// PEP 440 example comparisons
		{"1.0.dev456", "1.0.dev456+local", "1.0.dev457", "1.0a1", "1.0a1+local", "1.0a2.dev456", "1.0a2.dev456+local",
			"1.0a2.dev457", "1.0a2", "1.0a12.dev455", "1.0a12", "1.0b1.dev456", "1.0b2", "1.0b2.post345.dev456",
			"1.0b2.post345", "1.0rc1.dev456", "1.0rc1", "1.0", "1.0+local", "1.0.post456.dev34", "1.0.post456.dev34+local",
			"1.0.post456.dev35", "1.0.post456", "1.0.post456+local", "1.0.post457", "1.1.dev1"},
		// PEP 440 local versions
		{"1.0", "1.0+abc.2", "1.0+abc.10", "1.0+ABD.1", "1.0+5", "1.0+5.0", "1.1"},
	} {
		for i, a := range list {
			for j, b := range list {
				want := 0
				switch {
				case i < j:
					want = -1
				case i > j:
					want = 1
				}
				if got := scheme.Compare(a, b); got != want {
					t.Errorf("Compare(%q, %q) = %d, want %d", a, b, got, want)
				}
			}
		}
	}
	// test_versions_are_sortable
	for _, tt := range []struct{ unsorted, sorted []string }{
		{[]string{"1.0.3", "1.0.2", "1.0.1"}, []string{"1.0.1", "1.0.2", "1.0.3"}},
		{[]string{"1.0.0.2", "1.0.0.0rc2"}, []string{"1.0.0.0rc2", "1.0.0.2"}},
		{[]string{"1.0.0.0", "1.0.0.0rc2"}, []string{"1.0.0.0rc2", "1.0.0.0"}},
		{[]string{"1.0.0.0.0", "1.0.0.0rc2"}, []string{"1.0.0.0rc2", "1.0.0.0.0"}},
		{[]string{"1.0.0rc2", "1.0.0rc1"}, []string{"1.0.0rc1", "1.0.0rc2"}},
		{[]string{"1.0.0rc2", "1.0.0b1"}, []string{"1.0.0b1", "1.0.0rc2"}},
	} {
		got := slices.SortedFunc(slices.Values(tt.unsorted), scheme.Compare)
		if !slices.Equal(got, tt.sorted) {
			t.Errorf("sorted(%q) = %q, want %q", tt.unsorted, got, tt.sorted)
		}
	}
}

// TestPoetryStable is test_stable.
func TestPoetryStable(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"1", "1"}, {"1.2", "1.2"}, {"1.2.3", "1.2.3"}, {"2!1.2.3", "2!1.2.3"}, {"1.2.3+local", "1.2.3+local"},
		{"1.2.3.4", "1.2.3.4"}, {"1.dev0", "1"}, {"1.2dev0", "1.2"}, {"1.2.3dev0", "1.2.3"}, {"1.2.3.4dev0", "1.2.3.4"},
		{"1.post1", "1.post1"}, {"1.2.post1", "1.2.post1"}, {"1.2.3.post1", "1.2.3.post1"}, {"1.post1.dev0", "1.post1"},
		{"1.2.post1.dev0", "1.2.post1"}, {"1.2.3.post1.dev0", "1.2.3.post1"}, {"1.a1", "1"}, {"1.2a1", "1.2"},
		{"1.2.3a1", "1.2.3"}, {"1.2.3.4a1", "1.2.3.4"}, {"1.a1.post2", "1"}, {"1.2a1.post2", "1.2"},
		{"1.2.3a1.post2", "1.2.3"}, {"1.2.3.4a1.post2", "1.2.3.4"}, {"1.a1.post2.dev0", "1"}, {"1.2a1.post2.dev0", "1.2"},
		{"1.2.3a1.post2.dev0", "1.2.3"}, {"1.2.3.4a1.post2.dev0", "1.2.3.4"},
	} {
		if got := stable(pv(t, tt.in)).String(); got != tt.want {
			t.Errorf("Version.parse(%q).stable = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestPoetryNextBreaking is test_next_breaking_for_major_over_0_... and
// test_next_breaking_for_major_0_...: the upper bound of ^v, precision kept.
func TestPoetryNextBreaking(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"1", "2"}, {"1.2", "2.0"}, {"1.2.3", "2.0.0"}, {"2!1.2.3", "2!2.0.0"}, {"1.2.3+local", "2.0.0"},
		{"1.2.3.4", "2.0.0.0"}, {"1.dev0", "2"}, {"1.2dev0", "2.0"}, {"1.2.3dev0", "2.0.0"}, {"1.2.3.4dev0", "2.0.0.0"},
		{"1.post1", "2"}, {"1.2.post1", "2.0"}, {"1.2.3.post1", "2.0.0"}, {"1.post1.dev0", "2"}, {"1.2.post1.dev0", "2.0"},
		{"1.2.3.post1.dev0", "2.0.0"}, {"2.a1", "3"}, {"2.2a1", "3.0"}, {"2.2.3a1", "3.0.0"}, {"2.2.3.4a1", "3.0.0.0"},
		{"2.a1.post2", "3"}, {"2.2a1.post2", "3.0"}, {"2.2.3a1.post2", "3.0.0"}, {"2.2.3.4a1.post2", "3.0.0.0"},
		{"2.a1.post2.dev0", "3"}, {"2.2a1.post2.dev0", "3.0"}, {"2.2.3a1.post2.dev0", "3.0.0"},
		{"2.2.3.4a1.post2.dev0", "3.0.0.0"},

		{"0", "1"}, {"0.0", "0.1"}, {"0.2", "0.3"}, {"0.2.3", "0.3.0"}, {"2!0.2.3", "2!0.3.0"}, {"0.2.3+local", "0.3.0"},
		{"0.2.3.4", "0.3.0.0"}, {"0.0.3.4", "0.0.4.0"}, {"0.dev0", "1"}, {"0.0dev0", "0.1"}, {"0.2dev0", "0.3"},
		{"0.2.3dev0", "0.3.0"}, {"0.0.3dev0", "0.0.4"}, {"0.post1", "1"}, {"0.0.post1", "0.1"}, {"0.2.post1", "0.3"},
		{"0.2.3.post1", "0.3.0"}, {"0.0.3.post1", "0.0.4"}, {"0.post1.dev0", "1"}, {"0.0.post1.dev0", "0.1"},
		{"0.2.post1.dev0", "0.3"}, {"0.2.3.post1.dev0", "0.3.0"}, {"0.0.3.post1.dev0", "0.0.4"}, {"0.a1", "1"},
		{"0.0a1", "0.1"}, {"0.2a1", "0.3"}, {"0.2.3a1", "0.3.0"}, {"0.2.3.4a1", "0.3.0.0"}, {"0.0.3.4a1", "0.0.4.0"},
		{"0.a1.post2", "1"}, {"0.0a1.post2", "0.1"}, {"0.2a1.post2", "0.3"}, {"0.2.3a1.post2", "0.3.0"},
		{"0.2.3.4a1.post2", "0.3.0.0"}, {"0.0.3.4a1.post2", "0.0.4.0"}, {"0.a1.post2.dev0", "1"}, {"0.0a1.post2.dev0", "0.1"},
		{"0.2a1.post2.dev0", "0.3"}, {"0.2.3a1.post2.dev0", "0.3.0"}, {"0.2.3.4a1.post2.dev0", "0.3.0.0"},
		{"0.0.3.4a1.post2.dev0", "0.0.4.0"}, {"0-alpha.1", "1"}, {"0.0-alpha.1", "0.1"}, {"0.2-alpha.1", "0.3"},
		{"0.0.1-alpha.2", "0.0.2"}, {"0.1.2-alpha.1", "0.2.0"},
	} {
		if got := nextBreaking(pv(t, tt.in)); got != tt.want {
			t.Errorf("Version.parse(%q).next_breaking() = %q, want %q", tt.in, got, tt.want)
		}
		// versions.CaretUpper, which Bounds uses, agrees by value.
		if up, ok := versions.CaretUpper(tt.in); !ok || pv(t, up).Compare(pv(t, tt.want)) != 0 {
			t.Errorf("CaretUpper(%q) = %q, %v; want %s", tt.in, up, ok, tt.want)
		}
	}
}
