package matchspec_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/pinbot-dev/pinbot/pins/matchspec"
)

var parseTests = []struct {
	in   string
	want matchspec.Spec
}{
	{"numba", matchspec.Spec{Name: "numba", ConstraintStart: 5, ConstraintEnd: 5, Insert: " "}},
	{"  numba  ", matchspec.Spec{Name: "numba", ConstraintStart: 7, ConstraintEnd: 7, Insert: " "}},
	{"numba >=0.59,<0.62", matchspec.Spec{Name: "numba", Constraint: ">=0.59,<0.62", ConstraintStart: 6, ConstraintEnd: 18}},
	{"numba>=0.59,<=0.61.2", matchspec.Spec{Name: "numba", Constraint: ">=0.59,<=0.61.2", ConstraintStart: 5, ConstraintEnd: 20}},
	{"numba 0.61.*", matchspec.Spec{Name: "numba", Constraint: "0.61.*", ConstraintStart: 6, ConstraintEnd: 12}},
	{"llvmlite 0.47*", matchspec.Spec{Name: "llvmlite", Constraint: "0.47*", ConstraintStart: 9, ConstraintEnd: 14}},
	{"numba=0.61", matchspec.Spec{Name: "numba", Constraint: "=0.61", ConstraintStart: 5, ConstraintEnd: 10}},
	{"cudatoolkit=10.1.*", matchspec.Spec{Name: "cudatoolkit", Constraint: "=10.1.*", ConstraintStart: 11, ConstraintEnd: 18}},
	{"numba==0.61.0", matchspec.Spec{Name: "numba", Constraint: "==0.61.0", ConstraintStart: 5, ConstraintEnd: 13}},
	{"versioneer ==0.29", matchspec.Spec{Name: "versioneer", Constraint: "==0.29", ConstraintStart: 11, ConstraintEnd: 17}},
	{"tbb-devel 2021.6.0", matchspec.Spec{Name: "tbb-devel", Constraint: "2021.6.0", ConstraintStart: 10, ConstraintEnd: 18}},
	{"libopenblas >=0.3.18,!=0.3.20", matchspec.Spec{Name: "libopenblas", Constraint: ">=0.3.18,!=0.3.20", ConstraintStart: 12, ConstraintEnd: 29}},
	{"libopenblas >=0.3.18, !=0.3.20     # [arm64]", matchspec.Spec{Name: "libopenblas", Constraint: ">=0.3.18, !=0.3.20", ConstraintStart: 12, ConstraintEnd: 30}},
	{"numpy >=1.24,<2.5                      # [build_platform != target_platform]", matchspec.Spec{Name: "numpy", Constraint: ">=1.24,<2.5", ConstraintStart: 6, ConstraintEnd: 17}},
	{"pandas # required to run mypy script", matchspec.Spec{Name: "pandas", ConstraintStart: 6, ConstraintEnd: 6, Insert: " "}},
	{"numba >1.8,<2|==1.7", matchspec.Spec{Name: "numba", Constraint: ">1.8,<2|==1.7", ConstraintStart: 6, ConstraintEnd: 19}},

	// Version, then build string.
	{"numba 0.61.0 py312h*", matchspec.Spec{Name: "numba", Constraint: "0.61.0", ConstraintStart: 6, ConstraintEnd: 12, Build: "py312h*"}},
	{"numba 0.61.0  py312h_0 ", matchspec.Spec{Name: "numba", Constraint: "0.61.0", ConstraintStart: 6, ConstraintEnd: 12, Build: "py312h_0"}},
	{"numba 0.61.0=py312h*", matchspec.Spec{Name: "numba", Constraint: "0.61.0", ConstraintStart: 6, ConstraintEnd: 12, Build: "py312h*"}},
	{"numba >=0.61 py312*", matchspec.Spec{Name: "numba", Constraint: ">=0.61", ConstraintStart: 6, ConstraintEnd: 12, Build: "py312*"}},
	{"numba * py312*", matchspec.Spec{Name: "numba", Constraint: "*", ConstraintStart: 6, ConstraintEnd: 7, Build: "py312*"}},
	{"numba ==0.61.0=py312h*", matchspec.Spec{Name: "numba", Constraint: "==0.61.0", ConstraintStart: 6, ConstraintEnd: 14, Build: "py312h*"}},
	// With a build, conda reads =0.61.0 as exactly 0.61.0: the "=" is a separator.
	{"numba=0.61.0=py312h*", matchspec.Spec{Name: "numba", Constraint: "0.61.0", ConstraintStart: 6, ConstraintEnd: 12, Build: "py312h*"}},
	{"numba=0.61 py312*", matchspec.Spec{Name: "numba", Constraint: "0.61", ConstraintStart: 6, ConstraintEnd: 10, Build: "py312*"}},
	{"libblas=*=*mkl", matchspec.Spec{Name: "libblas", Constraint: "*", ConstraintStart: 8, ConstraintEnd: 9, Build: "*mkl"}},
	{"numba >=1.0 , <2.0 py34_0", matchspec.Spec{Name: "numba", Constraint: ">=1.0 , <2.0", ConstraintStart: 6, ConstraintEnd: 18, Build: "py34_0"}},
	// No build: what follows an operator, ",", or "|" is version, and a
	// would-be build with "-", "<" or "," is too.
	{"numba >= 0.59", matchspec.Spec{Name: "numba", Constraint: ">= 0.59", ConstraintStart: 6, ConstraintEnd: 13}},
	{"numba >=0.59 <0.62", matchspec.Spec{Name: "numba", Constraint: ">=0.59 <0.62", ConstraintStart: 6, ConstraintEnd: 18}},
	{"numba 1.0 py-1", matchspec.Spec{Name: "numba", Constraint: "1.0 py-1", ConstraintStart: 6, ConstraintEnd: 14}},
	{"numba 1.0| 2.0", matchspec.Spec{Name: "numba", Constraint: "1.0| 2.0", ConstraintStart: 6, ConstraintEnd: 14}},

	// Channels.
	{"conda-forge::numba", matchspec.Spec{Channel: "conda-forge", Name: "numba", ConstraintStart: 18, ConstraintEnd: 18, Insert: " "}},
	{"conda-forge/linux-64::numba>=0.59", matchspec.Spec{Channel: "conda-forge/linux-64", Name: "numba", Constraint: ">=0.59", ConstraintStart: 27, ConstraintEnd: 33}},
	{"numba/label/dev::llvmlite 0.50.*", matchspec.Spec{Channel: "numba/label/dev", Name: "llvmlite", Constraint: "0.50.*", ConstraintStart: 26, ConstraintEnd: 32}},
	{"https://conda.anaconda.org/conda-forge::numba", matchspec.Spec{Channel: "https://conda.anaconda.org/conda-forge", Name: "numba", ConstraintStart: 45, ConstraintEnd: 45, Insert: " "}},

	// Brackets: the constraint is inside the quotes.
	{"numba[version='>=1,<2']", matchspec.Spec{Name: "numba", Constraint: ">=1,<2", ConstraintStart: 15, ConstraintEnd: 21}},
	{`numba[version=">=1,<2"]`, matchspec.Spec{Name: "numba", Constraint: ">=1,<2", ConstraintStart: 15, ConstraintEnd: 21}},
	{"numba[version=1.0.*]", matchspec.Spec{Name: "numba", Constraint: "1.0.*", ConstraintStart: 14, ConstraintEnd: 19}},
	{"conda-forge::numba[version='(>=1|<0.5),<2', build=py312*]", matchspec.Spec{Channel: "conda-forge", Name: "numba", Constraint: "(>=1|<0.5),<2", ConstraintStart: 28, ConstraintEnd: 41, Build: "py312*"}},
	{"numba[build=py312*,channel=conda-forge]", matchspec.Spec{Channel: "conda-forge", Name: "numba", Build: "py312*", ConstraintStart: 5, ConstraintEnd: 5, Insert: " "}},
	{"numba >=0.59[build=py312*] ", matchspec.Spec{Name: "numba", Constraint: ">=0.59", ConstraintStart: 6, ConstraintEnd: 12, Build: "py312*"}},
	{"numba[md5=0123456789abcdef0123456789abcdef license='BSD 2-Clause']", matchspec.Spec{Name: "numba", ConstraintStart: 5, ConstraintEnd: 5, Insert: " "}},
	{"numba [version='>=1']", matchspec.Spec{Name: "numba", Constraint: ">=1", ConstraintStart: 16, ConstraintEnd: 19}},

	// Names.
	{"__cuda", matchspec.Spec{Name: "__cuda", ConstraintStart: 6, ConstraintEnd: 6, Insert: " "}},
	{"miniKanren", matchspec.Spec{Name: "miniKanren", ConstraintStart: 10, ConstraintEnd: 10, Insert: " "}},
	{"typing_extensions >=3.7.4", matchspec.Spec{Name: "typing_extensions", Constraint: ">=3.7.4", ConstraintStart: 18, ConstraintEnd: 25}},
	{"python-graphviz~=0.20.1", matchspec.Spec{Name: "python-graphviz", Constraint: "~=0.20.1", ConstraintStart: 15, ConstraintEnd: 23}},
	{"pytensor!=3.0", matchspec.Spec{Name: "pytensor", Constraint: "!=3.0", ConstraintStart: 8, ConstraintEnd: 13}},
}

func TestParse(t *testing.T) {
	for _, tt := range parseTests {
		got, err := matchspec.Parse(tt.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", tt.in, err)
			continue
		}
		// The spans of the name's end and the build string are checked
		// below and in TestBuildSpans.
		cmpd := got
		cmpd.NameEnd, cmpd.BuildStart, cmpd.BuildEnd = 0, 0, 0
		if cmpd != tt.want {
			t.Errorf("Parse(%q) =\n\t%+v, want\n\t%+v", tt.in, got, tt.want)
		}
		if span := tt.in[got.ConstraintStart:got.ConstraintEnd]; span != got.Constraint {
			t.Errorf("Parse(%q): span %q != constraint %q", tt.in, span, got.Constraint)
		}
		if !strings.HasSuffix(tt.in[:got.NameEnd], got.Name) || got.NameEnd > got.ConstraintStart {
			t.Errorf("Parse(%q): the name does not end at %d", tt.in, got.NameEnd)
		}
		if got.BuildEnd > 0 && tt.in[got.BuildStart:got.BuildEnd] != got.Build {
			t.Errorf("Parse(%q): build span %q != build %q", tt.in, tt.in[got.BuildStart:got.BuildEnd], got.Build)
		}
	}
}

// TestBuildSpans checks where the text joining the name and the version and
// the build string sit: what dropping a build string takes out.
func TestBuildSpans(t *testing.T) {
	for _, tt := range []struct {
		in, join, build string // build "" when not after the version
	}{
		{"setuptools=58.0.4=py37hecd8cb5_0", "=", "py37hecd8cb5_0"},
		{"numba 0.61.0 py312h6b8c7a1_0", " ", "py312h6b8c7a1_0"},
		{"numba =0.61.0 =py312h6b8c7a1_0  # c", " =", "py312h6b8c7a1_0"},
		{"numba==0.61.0=py312h*", "", "py312h*"},
		{"numba >=0.59[build=py312_0]", " ", ""},
		{"numba=0.61", "", ""},
	} {
		sp, err := matchspec.Parse(tt.in)
		if err != nil {
			t.Fatal(err)
		}
		build := ""
		if sp.BuildEnd > 0 {
			build = tt.in[sp.BuildStart:sp.BuildEnd]
		}
		if join := tt.in[sp.NameEnd:sp.ConstraintStart]; join != tt.join || build != tt.build {
			t.Errorf("Parse(%q): join %q build %q, want %q %q", tt.in, join, build, tt.join, tt.build)
		}
	}
}

var parseErrorTests = []struct {
	in     string
	offset int
	msg    string // substring
}{
	{"", 0, "empty spec"},
	{"   # only a comment", 3, "empty spec"},
	{`"numba >=0.59"`, 0, "quoted spec"},
	{"'numba'", 0, "quoted spec"},
	{"numba-0.61.0-py312h0_0.conda", 0, "package file"},
	{"./numba-0.61.0-py312h0_0.tar.bz2", 0, "package file"},
	{"https://conda.anaconda.org/conda-forge/linux-64/numba-0.61.0-py312h0_0.conda", 0, "package file"},
	{"numba >=0.59 if __unix", 13, "conditional"},
	{"numba (optional)", 6, "options"},
	{"numba >=1,(<2|>3)", 10, "options"},
	{"ns:numba", 2, "namespace"},
	{"::numba", 0, "invalid channel"},
	{"conda forge::numba", 0, "invalid channel"},
	{"conda-forge::", 13, "expected a package name"},
	{"conda-forge:: numba", 13, "expected a package name"},
	{">=0.59", 0, "expected a package name"},
	{"=0.59", 0, "expected a package name"},
	{"num*ba", 3, "invalid character"},
	{"numba\t>=0.59", 5, "invalid character"},
	{"numba]", 5, "unexpected ']'"},
	{"numba[version='>=1'", 5, "unclosed '['"},
	{"numba[version='>=1]", 14, "unclosed quote"},
	{"numba[version=]", 14, "empty value"},
	{"numba[version='']", 15, "empty value"},
	{"numba[>=1]", 6, "expected key=value"},
	{"numba[version]", 6, "expected key=value"},
	{"numba[version='>=1'x]", 19, "after a quoted value"},
	{"numba[version='>=1', version='<2']", 21, "given twice"},
	{"numba[version='>=1'] >=2", 21, "after ']'"},
	{"numba >=2[version='>=1']", 19, "both outside and inside"},
}

func TestParseErrors(t *testing.T) {
	for _, tt := range parseErrorTests {
		_, err := matchspec.Parse(tt.in)
		var e *matchspec.Error
		if !errors.As(err, &e) {
			t.Errorf("Parse(%q) = %v, want a *matchspec.Error", tt.in, err)
			continue
		}
		if e.Offset != tt.offset || !strings.Contains(e.Msg, tt.msg) || e.Input != tt.in {
			t.Errorf("Parse(%q) error at %d %q, want at %d %q", tt.in, e.Offset, e.Msg, tt.offset, tt.msg)
		}
		if errors.Is(err, matchspec.ErrTemplated) {
			t.Errorf("Parse(%q): error %v is ErrTemplated", tt.in, err)
		}
		if !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("Parse(%q): Error() = %q", tt.in, err)
		}
	}
}

func TestParseTemplated(t *testing.T) {
	for _, tt := range []struct {
		in     string
		offset int
	}{
		{"{{ pin_compatible('llvmlite', max_pin='x.x') }}", 0},
		{"{{ compiler('c') }}", 0},
		{"libtensorflow_framework {{ version }}", 24},
		{"python >={{ python_min }}", 9},
		{"python >=${{ python_min }}", 9},
		{"python ${{ python_min }}.*", 7},
		{"${{ pin_subpackage(\"pymc-base\", exact=True) }}", 0},
		{"cross-python_{{ target_platform }}     # [build_platform != target_platform]", 13},
		{"numpy {% if x %}1.0{% endif %}", 6},
		{"numpy {# note #}", 6},
	} {
		_, err := matchspec.Parse(tt.in)
		var e *matchspec.Error
		if !errors.Is(err, matchspec.ErrTemplated) || !errors.As(err, &e) || e.Offset != tt.offset {
			t.Errorf("Parse(%q) = %v, want ErrTemplated at %d", tt.in, err, tt.offset)
		}
	}
}

func TestNormalize(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"numba", "numba"},
		{"miniKanren", "minikanren"},
		{"typing_extensions", "typing_extensions"}, // "_", "-" and "." stay distinct
		{"Typing-Extensions", "typing-extensions"},
		{"ruamel.yaml", "ruamel.yaml"},
	} {
		if got := matchspec.Normalize(tt.in); got != tt.want {
			t.Errorf("Normalize(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestInsert checks that a constraint inserted at an empty span with Insert
// before it parses back as that constraint.
func TestInsert(t *testing.T) {
	for _, in := range []string{"numba", "conda-forge::numba", "numba  # [linux]", "numba[build=py312*]"} {
		sp, err := matchspec.Parse(in)
		if err != nil {
			t.Fatal(err)
		}
		out := in[:sp.ConstraintStart] + sp.Insert + "<=0.67.0" + in[sp.ConstraintEnd:]
		sp2, err := matchspec.Parse(out)
		if err != nil {
			t.Fatalf("Parse(%q) after inserting into %q: %v", out, in, err)
		}
		if sp2.Constraint != "<=0.67.0" || sp2.Name != sp.Name || sp2.Build != sp.Build || sp2.Channel != sp.Channel {
			t.Errorf("inserted into %q: %q parses as %+v", in, out, sp2)
		}
	}
}
