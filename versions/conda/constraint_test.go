package conda_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/pinbot-dev/pinbot/versions"
)

// cl writes a clause as "op|version|start|end|versionStart" for compact tables.
func cl(c versions.Clause) string {
	return fmt.Sprintf("%s|%s|%d|%d|%d", c.Op, c.Version, c.Start, c.End, c.VersionStart)
}

var parseTests = []struct {
	in   string
	or   bool
	want []string // cl() of each clause
}{
	{"", false, nil},
	{"  ", false, nil},
	{"0.61.0", false, []string{"|0.61.0|0|6|0"}},
	{"2021.6.0", false, []string{"|2021.6.0|0|8|0"}},
	{"0.47.*", false, []string{"|0.47.*|0|6|0"}},
	{"0.47*", false, []string{"|0.47*|0|5|0"}},
	{"*", false, []string{"|*|0|1|0"}},
	{"=0.61", false, []string{"=|0.61|0|5|1"}},
	{"=0.61.*", false, []string{"=|0.61.*|0|7|1"}},
	{"==0.61.0", false, []string{"==|0.61.0|0|8|2"}},
	{"!=0.3.6", false, []string{"!=|0.3.6|0|7|2"}},
	{"!=1.26.*", false, []string{"!=|1.26.*|0|8|2"}},
	{"~=1.4.5", false, []string{"~=|1.4.5|0|7|2"}},
	{">=0.49", false, []string{">=|0.49|0|6|2"}},
	{">=1.0.*", false, []string{">=|1.0.*|0|7|2"}},
	{">1", false, []string{">|1|0|2|1"}},
	{">=1.22.3,<2.5", false, []string{">=|1.22.3|0|8|2", "<|2.5|9|13|10"}},
	{">=0.59,<=0.62.1", false, []string{">=|0.59|0|6|2", "<=|0.62.1|7|15|9"}},
	{">=0.3.18,!=0.3.20", false, []string{">=|0.3.18|0|8|2", "!=|0.3.20|9|17|11"}},
	{">=0.50.0dev0,<0.50", false, []string{">=|0.50.0dev0|0|12|2", "<|0.50|13|18|14"}},
	{" >=1.0 , <2 ", false, []string{">=|1.0|1|6|3", "<|2|9|11|10"}},
	{">=1.0,\t<2", false, []string{">=|1.0|0|5|2", "<|2|7|9|8"}},
	{">1.8,<2|==1.7", true, []string{">|1.8|0|4|1", "<|2|5|7|6", "==|1.7|8|13|10"}},
	{"1.2.3,4.5.6|<=7.8.9", true, []string{"|1.2.3|0|5|0", "|4.5.6|6|11|6", "<=|7.8.9|12|19|14"}},
	{"(1.2.3|4.5.6),<=7.8.9", true, []string{"|1.2.3|1|6|1", "|4.5.6|7|12|7", "<=|7.8.9|14|21|16"}},
	{"( >=1 , <2 )", false, []string{">=|1|2|5|4", "<|2|8|10|9"}},
	{"((1.5|((1.6|1.7), 1.8), 1.9 |2.0))|2.1", true, []string{
		"|1.5|2|5|2", "|1.6|8|11|8", "|1.7|12|15|12", "|1.8|18|21|18", "|1.9|24|27|24", "|2.0|29|32|29", "|2.1|35|38|35"}},
	{"1!2.0", false, []string{"|1!2.0|0|5|0"}},
	{"<2.1.0+cu118", false, []string{"<|2.1.0+cu118|0|12|1"}},
	{"1.0-1", false, []string{"|1.0-1|0|5|0"}},
	{">=1.0RC1", false, []string{">=|1.0RC1|0|8|2"}},
	{"^1\\.7\\.1$", false, []string{"|^1\\.7\\.1$|0|9|0"}},
	{" ^1.7$ | ^(2|3)\\.0$ ", true, []string{"|^1.7$|1|6|1", "|^(2|3)\\.0$|9|19|9"}},
	{"1.*.1", false, []string{"|1.*.1|0|5|0"}},
	{">1.0.0*", false, []string{">|1.0.0*|0|7|1"}},
	{"1.0@x", false, []string{"|1.0@x|0|5|0"}},
}

func TestParseConstraint(t *testing.T) {
	for _, tt := range parseTests {
		c, err := s.ParseConstraint(tt.in)
		if err != nil {
			t.Errorf("ParseConstraint(%q): %v", tt.in, err)
			continue
		}
		var got []string
		for _, c := range c.Clauses {
			got = append(got, cl(c))
		}
		if c.Text != tt.in || c.Or != tt.or || strings.Join(got, " ") != strings.Join(tt.want, " ") {
			t.Errorf("ParseConstraint(%q) = %q or=%v %q, want or=%v %q", tt.in, c.Text, c.Or, got, tt.or, tt.want)
		}
		checkSpans(t, c)
	}
}

// checkSpans checks that each clause's span is its operator and version as
// written, the property FuzzParseConstraint checks on random input.
func checkSpans(t *testing.T, c versions.Constraint) {
	t.Helper()
	for _, k := range c.Clauses {
		if k.Start < 0 || k.Start > k.VersionStart || k.VersionStart > k.End || k.End > len(c.Text) {
			t.Fatalf("%q: clause %+v out of range", c.Text, k)
		}
		span := c.Text[k.Start:k.End]
		if span != string(k.Op)+k.Version || c.Text[k.VersionStart:k.End] != k.Version || k.Version == "" {
			t.Fatalf("%q: clause %+v has span %q", c.Text, k, span)
		}
	}
}

var parseErrorTests = []struct {
	in     string
	offset int
	msg    string // substring
}{
	{"<= 1.2", 2, "no space"},
	{">=1.0, <= 2", 9, "no space"},
	{"1.0 py312h*", 3, "unexpected space"},
	{">=0.59 <0.62", 6, "unexpected space"},
	{"1.2$", 0, "must start with '^' and end with '$'"},
	{"^1.2", 0, "must start with '^' and end with '$'"},
	{">=1,^1.2", 4, "must start with '^' and end with '$'"},
	{"^1(.2$", 0, "does not compile"},
	{"^(?<=1).2$", 0, "does not compile"}, // Python syntax RE2 lacks
	{"1.*(", 3, "expected ',' or '|'"},
	{"1.*[", 0, "does not compile"},
	{"^1.7$x", 5, "expected ',' or '|'"},
	{"^1.7$ ^1.8$", 6, "expected ',' or '|'"},
	{"", -1, ""}, // placeholder: the empty constraint is valid (skipped below)
	{",", 0, "expected a version"},
	{">=1,", 4, "expected a version"},
	{">=1,,<2", 4, "expected a version"},
	{">=1||<2", 4, "expected a version"},
	{"|1", 0, "expected a version"},
	{"()", 1, "expected a version"},
	{"(>=1", 0, "unclosed '('"},
	{">=1)", 3, "unexpected ')'"},
	{">=1 (2)", 4, "expected ',' or '|'"},
	{strings.Repeat("(", 40) + "1" + strings.Repeat(")", 40), 32, "nested too deeply"},
	{">=", 2, "expected a version after >="},
	{"=", 1, "expected a version after ="},
	{"===1.0", 0, "invalid operator"},
	{"=>1.0", 0, "invalid operator"},
	{"<>1.0", 0, "invalid operator"},
	{"<=!1.0", 0, "invalid operator"},
	{"!1.0", 0, "invalid operator"},
	{"~1.0", 0, "invalid operator"},
	{">=1.0a-b_c", 2, "invalid conda version"},
	{"1..2", 0, "invalid conda version"},
	{">=v1.2.3!", 2, "invalid conda version"},
	{"==0.61.*", 2, "ambiguous"},
	{"<0.61.*", 1, "not allowed after <"},
	{"<=0.61.*", 2, "not allowed after <="},
	{">0.61.*", 1, "not allowed after >"},
	{"~=0.61.*", 2, "not allowed after ~="},
	{">=0.61*.", 2, "invalid conda version"},
	{"~=2", 2, "at least two components"},
	{"~=1!2", 2, "at least two components"},
	{".*", 0, "invalid conda version"},
}

func TestParseConstraintErrors(t *testing.T) {
	for _, tt := range parseErrorTests {
		if tt.in == "" {
			continue
		}
		_, err := s.ParseConstraint(tt.in)
		var se *versions.SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("ParseConstraint(%q) = %v, want a *versions.SyntaxError", tt.in, err)
			continue
		}
		if se.Offset != tt.offset || !strings.Contains(se.Msg, tt.msg) || se.Text != tt.in {
			t.Errorf("ParseConstraint(%q) error at %d %q, want at %d %q", tt.in, se.Offset, se.Msg, tt.offset, tt.msg)
		}
	}
}

var matchTests = []struct {
	c    string
	v    string
	want bool
}{
	{"", "0.1", true},
	{"*", "0.1", true},
	{"=*", "0.1", true},

	// Exact: by VersionOrder, so spelling does not matter.
	{"0.61", "0.61.0", true},
	{"0.61.0", "0.61", true},
	{"0.61.0", "0.61.1", false},
	{"2021.6.0", "2021.6.0", true},
	{"1.0-1", "1.0.1", true},
	{"1.0", "1.0+cu118", false}, // the local part counts
	{"==0.61.0", "0.61", true},
	{"==0.61.0", "0.61.0.post1", false},

	// Prefix matches: bare x.* or x*, and =x.
	{"0.47.*", "0.47.0", true},
	{"0.47.*", "0.47", true},
	{"0.47.*", "0.47.2", true},
	{"0.47.*", "0.47.2rc1", true},
	{"0.47.*", "0.47.0+local", true},
	{"0.47.*", "0.48.0", false},
	{"0.47.*", "0.470", false},
	{"0.47.*", "0.4", false},
	{"0.47*", "0.47.1", true},
	{"0.47*", "0.470", false}, // conda reads 0.47* as 0.47.*
	{"=0.61", "0.61.0", true},
	{"=0.61", "0.61.5", true},
	{"=0.61", "0.62.0", false},
	{"=0.61", "0.6", false},
	{"=0.61.*", "0.61.5", true},
	{"=0.61*", "0.61.5", true},
	{"=0.61.0", "0.61", true},
	{"=10.1.*", "10.1.243", true},
	{"=1.0a", "1.0alpha1", true}, // a string atom matches by string prefix
	{"=1.0a", "1.0b1", false},
	{"=1.0a1", "1.0a1.5", true},
	{"=1.0a1", "1.0b1", false},
	{"=1.0dev", "1.0devel", false}, // dev is special, devel is not
	{"=1.0+cu", "1.0+cu118", true},
	{"=1.0+cu", "1.1+cu118", false},
	{"=1!2", "1!2.3", true},
	{"=1!2", "2.3", false},

	// Ordered comparisons.
	{">=0.59,<0.62", "0.61.2", true},
	{">=0.59,<0.62", "0.62.0", false},
	{">=0.59,<0.62", "0.62.0rc1", true}, // unlike PEP 440: 0.62.0rc1 < 0.62 and <V has no pre-release rule
	{">=0.59,<0.62", "0.58", false},
	{">=0.59,<=0.61.2", "0.61.2", true},
	{">=0.59,<=0.61.2", "0.61.2.post1", false},
	{">=0.59,<=0.61.2", "0.61.2+local", true}, // a local label sorts below
	{">=0.59,<=0.61.2", "0.61.3dev0", false},  // above 0.61.2, below 0.61.3
	{">1.0", "1.0.0", false},
	{">1.0", "1.0.post1", true},
	{"<1.0", "1.0rc1", true},
	{"<1.0", "1.0dev0", true},
	{">=1.0.*", "1.0.0", true}, // conda strips the .* after >=
	{">=1.0.*", "0.9", false},
	{">=0.50.0dev0,<0.50", "0.50.0dev0", true},
	{">=0.50.0dev0,<0.50", "0.50.0rc1", true},
	{">=0.50.0dev0,<0.50", "0.50.0", false},
	{">=0.50.0dev0,<0.50", "0.49.0", false},
	{">=1!0", "2.0", false},

	// Exclusions.
	{"!=0.3.6", "0.3.6", false},
	{"!=0.3.6", "0.3.6.0", false},
	{"!=0.3.6", "0.3.7", true},
	{">=0.3.18,!=0.3.20", "0.3.20", false},
	{">=0.3.18,!=0.3.20", "0.3.21", true},
	{"!=1.26.*", "1.26.4", false},
	{"!=1.26.*", "1.27.0", true},
	{"!=1.26.*", "1.2", true},

	// Compatible release.
	{"~=1.4.5", "1.4.5", true},
	{"~=1.4.5", "1.4.9", true},
	{"~=1.4.5", "1.5.0", false},
	{"~=1.4.5", "1.4.4", false},
	{"~=2.16", "2.19.0", true},
	{"~=2.16", "3.0", false},

	// Alternatives: "," binds tighter than "|".
	{">1.8,<2|==1.7", "1.9", true},
	{">1.8,<2|==1.7", "1.7", true},
	{">1.8,<2|==1.7", "1.8", false},
	{">1.8,<2|==1.7", "2.0", false},
	{"(1.2.3|4.5.6),<=7.8.9", "4.5.6", true},
	{"(1.2.3|4.5.6),<=4", "4.5.6", false},
	{"1.5|(1.6|1.7),1.8,1.9|2.0|2.1", "2.1", true},
	{"1.5|(1.6|1.7),1.8,1.9|2.0|2.1", "1.6", false},

	// Regular expressions and globs match the version as written.
	{"^1\\.7\\.1$", "1.7.1", true},
	{"^1\\.7\\.1$", "1.7.01", false},
	{"^1\\.7\\.[0-9]+$|1.8.*", "1.7.12", true},
	{"^1\\.7\\.[0-9]+$|1.8.*", "1.8.2", true},
	{"^1\\.7\\.[0-9]+$|1.8.*", "1.9", false},
	{"^(1|2)\\.0$", "2.0", true}, // "|" and parentheses inside a regular expression are its own
	{"1.*.1", "1.7.1", true},
	{"1.*.1", "1.7.2", false},
	{"1.*.1", "2.7.1", false},
	{" 1.*.1 ", "1.17.1", true},
	{"1.0@x", "1.0", false},
	// "*" after an operator is part of the version: 1.0.0* < 1.0.0.
	{">1.0.0*", "1.0.0", true},
	{">=0.61*", "0.61", true},
	{"<0.61*", "0.61", false},
	{"!=0.61*", "0.61.0", true},
	{">=*", "0.1", true},
	{"*", "1.*", true}, // 1.* is a VersionOrder

	// Invalid versions match nothing.
	{"", "not a version", false},
	{"*", "1..0", false},
}

func TestMatch(t *testing.T) {
	for _, tt := range matchTests {
		c, err := s.ParseConstraint(tt.c)
		if err != nil {
			t.Errorf("ParseConstraint(%q): %v", tt.c, err)
			continue
		}
		if got := s.Match(tt.v, c); got != tt.want {
			t.Errorf("Match(%q, %q) = %v, want %v", tt.v, tt.c, got, tt.want)
		}
	}
}

// TestMatchClauseOutsideText checks Match on clauses that NewUpper builds: one
// clause of a longer text, without Or.
func TestMatchClauseOutsideText(t *testing.T) {
	c, err := s.ParseConstraint(">=1.22.3,!=2.0,<2.5")
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []bool{true, false, true} {
		one := versions.Constraint{Text: c.Text, Clauses: c.Clauses[i : i+1]}
		if got := s.Match("2.0", one); got != want {
			t.Errorf("Match(2.0, clause %q) = %v, want %v", c.Text[c.Clauses[i].Start:c.Clauses[i].End], got, want)
		}
	}
	// A clause that does not validate matches nothing.
	bad := versions.Constraint{Clauses: []versions.Clause{{Op: versions.LT, Version: "1.*"}}}
	if s.Match("0.1", bad) {
		t.Error("Match(0.1, <1.*) = true, want false")
	}
	// Neither does an operator of another scheme.
	caret := versions.Constraint{Clauses: []versions.Clause{{Op: versions.Caret, Version: "1.0"}}}
	if s.Match("1.0", caret) {
		t.Error("Match(1.0, ^1.0) = true, want false")
	}
	// With Or set, Match reads c.Text; text that does not parse matches nothing.
	if s.Match("1.0", versions.Constraint{Text: "1.0|(", Or: true}) {
		t.Error(`Match(1.0, "1.0|(") = true, want false`)
	}
}

func TestNewUpper(t *testing.T) {
	on := versions.Policy{Strategy: versions.Inclusive, AddCap: true}
	tests := []struct {
		in, target, want  string
		narrows, conflict bool
		reason            string // substring
	}{
		{">=1.22.3,<2.5", "2.6.0", ">=1.22.3,<=2.6.0", false, false, "not admitted by <2.5"},
		{">=1.24,<2.5", "2.4.1", ">=1.24,<=2.4.1", true, false, "narrows"},
		{">=0.58,<=0.66.0", "0.67.0", ">=0.58,<=0.67.0", false, false, "newer than the cap"},
		{">=0.58,<=0.67", "0.67.0", ">=0.58,<=0.67", false, false, "already admits"},
		{">=0.57", "0.67.0", ">=0.57,<=0.67.0", false, false, "no upper bound"},
		{">=1.0, !=1.5", "1.6", ">=1.0, !=1.5, <=1.6", false, false, ""},
		{"", "0.67.0", "<=0.67.0", false, false, ""},
		{">=0.3.18,!=0.3.20", "0.3.20", ">=0.3.18,!=0.3.20", false, true, "excludes"},
		{"0.47.*", "0.48.0", ">=0.47,<=0.48.0", false, false, "the prefix match .* was expanded"},
		{"0.47.*", "0.47.2", "0.47.*", false, false, "already admits"},
		{"=0.50", "0.50.1", "=0.50", false, false, "already admits"},
		{"=0.50", "0.51.0", ">=0.50,<=0.51.0", false, false, "the fuzzy match = was expanded"},
		{"2021.6.0", "2022.1.0", "2021.6.0", false, false, "exact pin"},
		{"==0.61.0", "0.61", "==0.61.0", false, false, "exact pin"},
		{">=3.2.2,<3.4", "3.4.1", ">=3.2.2,<=3.4.1", false, false, "not admitted"},
		{">1.8,<2|==1.7", "2.1", ">1.8,<2|==1.7", false, false, "alternatives"},
		{"(>=1.0,<2)", "2.1", "(>=1.0,<=2.1)", false, false, ""},
		{"*", "2.1", "*", false, false, "already admits"},
		// Patterns are never rewritten.
		{"^0\\.6[0-9]\\..*$", "0.67.0", "^0\\.6[0-9]\\..*$", false, false, "admits"},
		{"^0\\.6[0-9]\\..*$", "0.70.0", "^0\\.6[0-9]\\..*$", false, true, "pattern"},
		{"0.*.1,>=0.5", "0.7.0", "0.*.1,>=0.5", false, true, "pattern"},
	}
	for _, tt := range tests {
		c, err := s.ParseConstraint(tt.in)
		if err != nil {
			t.Errorf("ParseConstraint(%q): %v", tt.in, err)
			continue
		}
		m, err := versions.NewUpper(s, c, tt.target, on)
		if err != nil {
			t.Errorf("NewUpper(%q, %s): %v", tt.in, tt.target, err)
			continue
		}
		if m.Text != tt.want || m.Narrows != tt.narrows || m.Conflict != tt.conflict || m.Changed != (tt.want != tt.in) {
			t.Errorf("NewUpper(%q, %s) = %+v, want text %q narrows %v conflict %v", tt.in, tt.target, m, tt.want, tt.narrows, tt.conflict)
		}
		if !strings.Contains(m.Reason, tt.reason) {
			t.Errorf("NewUpper(%q, %s): reason %q does not mention %q", tt.in, tt.target, m.Reason, tt.reason)
		}
	}
	if _, err := versions.NewUpper(s, versions.Constraint{}, "1..2", on); err == nil {
		t.Error("NewUpper to target 1..2: no error")
	}
}

// corpusConstraints are the distinct version constraints of the MatchSpec
// items in the pin-file corpus (pins/matchspec/testdata/corpus.golden): all
// must parse.
var corpusConstraints = []string{
	"!=0.3.6", "*", "0.46.*", "0.47.*", "2021.6.0", "3.12.*", "6.*", "<0.3", "=0.50", "=1.19.1", "=3.10",
	"==0.16", "==0.29", ">=0.1.1", ">=0.13.0", ">=0.2.1,!=0.5.0,!=0.5.1,!=0.5.2", ">=0.24.0",
	">=0.3.18, !=0.3.20", ">=0.3.18,!=0.3.20", ">=0.4.2,<0.5", ">=0.5.1", ">=0.50.0dev0,<0.50", ">=0.57",
	">=1,<2", ">=1.0", ">=1.0.0", ">=1.1.0", ">=1.1.0,<2.0", ">=1.11.0", ">=1.12", ">=1.13.0", ">=1.22.3",
	">=1.22.3,<2.4", ">=1.22.3,<2.5", ">=1.24,<2.5", ">=1.25.0", ">=1.4.1", ">=1.6.0", ">=11.2", ">=11.6",
	">=13.7.1", ">=2.0.0", ">=2.19,<2.20", ">=2.21.0,<3", ">=2.3.2", ">=2.35.0,<2.36", ">=2.5", ">=2.5.0,<3",
	">=2.8.0", ">=2021.6", ">=24.3.25", ">=3.0", ">=3.0.2,<3.1", ">=3.1.0", ">=3.1.0,<4.0.0", ">=3.10",
	">=3.11", ">=3.12", ">=3.15", ">=3.2.2,<3.4", ">=3.5", ">=3.6.6", ">=3.7.4", ">=4.2.1", ">=4.2.1,<7",
	">=5.1.0,<6", ">=5.26", ">=5.28", ">=69.0.0", ">=7.16", ">=8",
}

func TestCorpusConstraints(t *testing.T) {
	for _, in := range corpusConstraints {
		c, err := s.ParseConstraint(in)
		if err != nil {
			t.Errorf("ParseConstraint(%q): %v", in, err)
			continue
		}
		checkSpans(t, c)
	}
}
