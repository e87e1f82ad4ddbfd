package setuppy_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pinbot-dev/pinbot/internal/corpus"
	"github.com/pinbot-dev/pinbot/internal/pinstest"
	"github.com/pinbot-dev/pinbot/pins"
	"github.com/pinbot-dev/pinbot/pins/setuppy"
	"github.com/pinbot-dev/pinbot/versions"
)

var f = setuppy.Format{}

// The corpus's setup.py files.
const (
	tfp  = "tensorflow__probability__setup.py"
	umap = "lmcinnes__umap__setup.py"
)

// describe renders what Extract gives, one line per pin, then one per
// skipped entry.
func describe(ps []pins.Pin, err error) string {
	var b strings.Builder
	for _, p := range ps {
		fmt.Fprintf(&b, "%d:%d %s %s %q in %q", p.Line, p.Col, p.Key, p.Package, p.Constraint, p.Text)
		if p.Build {
			b.WriteString(" build")
		}
		if p.Condition != "" {
			fmt.Fprintf(&b, " if %s", p.Condition)
		}
		if p.Skip != "" {
			fmt.Fprintf(&b, " skip: %s", p.Skip)
		}
		b.WriteString("\n")
	}
	entries, _ := pins.SkippedEntries(err)
	for _, e := range entries {
		fmt.Fprintf(&b, "skipped %d:%d %s: %v\n", e.Line, e.Col, e.Key, e.Err)
	}
	return b.String()
}

// extract returns describe's rendering of the file, and fails on an error
// about the whole file.
func extract(t *testing.T, data []byte) string {
	t.Helper()
	ps, err := f.Extract("setup.py", data)
	if _, ok := pins.SkippedEntries(err); err != nil && !ok {
		t.Fatal(err)
	}
	return describe(ps, err)
}

func TestMatch(t *testing.T) {
	pinstest.Match(t, f, map[string]bool{
		"setup.py": true, "python/setup.py": true, "a/b/setup.py": true,
		"setup.cfg": false, "setup.py.in": false, "xsetup.py": false, "setup_py": false,
	})
}

// TestExtract compares the pins and skipped entries of each testdata file
// with its .pins golden, and checks the rewrite properties of each pin.
func TestExtract(t *testing.T) {
	pinstest.Testdata(t, "testdata/*.py", func(t *testing.T, data []byte, golden string) {
		pinstest.RewritePartial(t, f, "setup.py", data, nil)
		pinstest.Golden(t, golden, []byte(extract(t, data)))
	})
}

// targets are the newest releases the rewrite goldens move caps to.
var targets = map[string]string{
	"numba": "0.67.0", "llvmlite": "0.49.0", "tensorflow": "2.20.0", "tensorflow-cpu": "2.20.0",
	"jax": "0.8.0", "jaxlib": "0.8.0", "protobuf": "6.33.0", "numpy": "2.3.0",
}

// TestRewrite moves the caps of the watched packages in each testdata
// file and corpus setup.py (add-cap on) and compares the rewritten file
// with its golden in testdata/golden: only version specifiers change, in
// place, whatever the quotes, spacing and comments around them.
func TestRewrite(t *testing.T) {
	policy := versions.Policy{Strategy: versions.Inclusive, AddCap: true}
	inputs := map[string][]byte{}
	for _, name := range []string{"literals.py", "names.py", "kwargs.py", "mutations.py", "crlf.py"} {
		inputs[name] = pinstest.ReadFiles(t, filepath.Join("testdata", name))[0]
	}
	for _, name := range []string{tfp, umap} {
		inputs[name] = corpus.Read(t, name)
	}
	for name, data := range inputs {
		t.Run(name, func(t *testing.T) {
			out := pinstest.CappedPartial(t, f, "setup.py", data, targets, policy)
			pinstest.Golden(t, filepath.Join("testdata", "golden", name+".golden"), out)
			if again := pinstest.CappedPartial(t, f, "setup.py", out, targets, policy); string(again) != string(out) {
				t.Errorf("a second rewrite changed the file")
			}
		})
	}
}

func FuzzExtract(ft *testing.F) {
	pinstest.Fuzz(ft, setuppy.Format{}, "setup.py", nil, pinstest.ReadFiles(ft, "testdata/*.py")...)
}

// rows renders the pins and skipped entries of doc one line each:
// "KEY PACKAGE CONSTRAINT" for a pin (with " (skip: why)" when it is not
// edited), "skipped KEY: why" for an entry.
func rows(t *testing.T, doc string) []string {
	t.Helper()
	ps, err := f.Extract("setup.py", []byte(doc))
	entries, ok := pins.SkippedEntries(err)
	if err != nil && !ok {
		t.Fatalf("%q: %v", doc, err)
	}
	var out []string
	for _, p := range ps {
		row := fmt.Sprintf("%s %s %s", p.Key, p.Package, p.Constraint)
		if p.Skip != "" {
			row += " (skip: " + p.Skip + ")"
		}
		out = append(out, row)
	}
	for _, e := range entries {
		out = append(out, fmt.Sprintf("skipped %s: %v", e.Key, e.Err))
	}
	return out
}

// TestSetupCalls: setup() however it is imported and called; a call of
// another function is not read, nor is a setup() of unknown origin given
// no requirement keyword.
func TestSetupCalls(t *testing.T) {
	const req = `install_requires=["numba<=0.66.0"]`
	found := []string{"install_requires[0] numba <=0.66.0"}
	for _, tt := range []struct {
		doc  string
		want []string
	}{
		{"from setuptools import setup\nsetup(" + req + ")\n", found},
		{"import setuptools\nsetuptools.setup(" + req + ")\n", found},
		{"import setuptools as st\nst.setup(" + req + ")\n", found},
		{"from setuptools import setup as _setup\n_setup(" + req + ")\n", found},
		{"from setuptools import *\nsetup(" + req + ")\n", found},
		{"from distutils.core import setup\nsetup(" + req + ")\n", found},
		{"import distutils.core\ndistutils.core.setup(" + req + ")\n", found},
		{"from numpy.distutils.core import setup\nsetup(" + req + ")\n", found},
		{"from numpy.distutils import core\ncore.setup(" + req + ")\n", found},
		{"from skbuild import setup\nsetup(" + req + ")\n", found},
		{"try:\n    from setuptools import setup\nexcept ImportError:\n    from distutils.core import setup\nsetup(" + req + ")\n", found},
		// A wrapper of setuptools' setup, known by its keywords.
		{"from mybuild import setup\nsetup(" + req + ")\n", found},
		{"setup(" + req + ")\n", found},
		{"import setuptools as st\nst.setup(**{'install_requires': ['numba<=0.66.0']})\n", found},
		{"if __name__ == '__main__':\n    from setuptools import setup\n    setup(" + req + ")\n", found},
		{"from setuptools import setup\nsetup(" + req + ", python_requires='>=3.10')\n", found},
		// Not setup().
		{"from mybuild import setup\nsetup(**{'install_requires': ['numba<=0.66.0']})\n", nil},
		{"def configure(**kw): pass\nconfigure(" + req + ")\n", nil},
		{"import logging\nlogging.setup(level=1)\n", nil},
		{"from setuptools import setup\nsetup(name='x', python_requires='>=3.10')\n", nil},
		{"from setuptools import setup\nREQ = ['numba<=0.66.0']\n", nil},
	} {
		if diff := cmp.Diff(tt.want, rows(t, tt.doc)); diff != "" {
			t.Errorf("%s(-want +got):\n%s", tt.doc, diff)
		}
	}
}

// TestValues: how values and names are followed, and the reason each one
// that is not is skipped for.
func TestValues(t *testing.T) {
	const head = "import os, sys\nfrom setuptools import setup\n"
	for _, tt := range []struct {
		doc  string
		want []string
	}{
		// A name assigned in a function that calls setup() hides the
		// module's; a function's global assignment rebinds the module's.
		{"R = ['numpy']\ndef main():\n    R = ['numba<=0.66.0']\n    setup(install_requires=R)\n",
			[]string{"install_requires[0] numba <=0.66.0"}},
		{"R = ['numba<1']\ndef f():\n    global R\n    R = ['numba<2']\nsetup(install_requires=R)\n",
			[]string{"skipped install_requires: R is assigned more than once (lines 3 and 6): which value setup() gets is decided at run time"}},
		{"try:\n    R = ['numba<1']\nexcept ImportError:\n    R = []\nsetup(install_requires=R)\n",
			[]string{"skipped install_requires: R is assigned more than once (lines 4 and 6): which value setup() gets is decided at run time"}},
		{"try:\n    R = ['numba<1']\nexcept ImportError:\n    pass\nsetup(install_requires=R)\n",
			[]string{"skipped install_requires: R is assigned inside a try statement (line 4)"}},
		{"while True:\n    R = ['numba<1']\n    break\nsetup(install_requires=R)\n",
			[]string{"skipped install_requires: R is assigned inside a while loop (line 4)"}},
		{"A, B = ['numba<1'], []\nsetup(install_requires=A)\n",
			[]string{"skipped install_requires: A is assigned by unpacking (line 3)"}},
		{"A = B\nB = A\nsetup(install_requires=A)\n",
			[]string{"skipped install_requires: A refers to itself"}},
		// A conditional expression: each arm is a pin.
		{"setup(install_requires=['numba<1' if sys.version_info >= (3, 9) else 'numba<0.50'])\n",
			[]string{"install_requires[0] numba <1", "install_requires[0] numba <0.50"}},
		{"setup(install_requires=['numba<1' if os.name == 'nt' else os.environ['NUMBA']])\n",
			[]string{"install_requires[0] numba <1", "skipped install_requires[0]: computed at run time (os.environ['NUMBA'])"}},
		// Several ifs that could both run do not make alternatives.
		{"if os.name == 'nt':\n    T = 'tensorflow<2.11'\nif sys.platform == 'linux':\n    T = 'tensorflow<=2.19.1'\nsetup(install_requires=[T])\n",
			[]string{"skipped install_requires[0]: T is assigned more than once (lines 4 and 6): which value setup() gets is decided at run time"}},
		// An if without an else: the requirement under that if.
		{"R = []\nif os.name == 'nt':\n    R.append('pywin32>=300')\nsetup(install_requires=['numba<1'] + R)\n",
			[]string{"install_requires[1] pywin32 >=300", "install_requires[0] numba <1"}},
		// A computed base, with literals added to it.
		{"R = os.environ['REQS'].split()\nR.append('numba<1')\nsetup(install_requires=R)\n",
			[]string{"install_requires[1] numba <1", "skipped install_requires[0]: computed at run time by a call (os.environ['REQS'].split())"}},
		// setup(**kwargs) that cannot be read is a skipped entry.
		{"def kwargs():\n    return {}\nsetup(name='x', **kwargs())\n",
			[]string{"skipped setup(**kwargs()): computed at run time by a call (kwargs()), so the requirements it may hold are not read"}},
		// dict(...), ** in dicts and | of dicts for extras.
		{"A = {'jit': ['numba<1']}\nsetup(extras_require=dict(A, jax=['jax<1']) | {'tf': 'tensorflow<3', **{'pb': ['protobuf<6']}})\n",
			[]string{"extras_require.jit[0] numba <1", "extras_require.jax[0] jax <1", "extras_require.tf[0] tensorflow <3", "extras_require.pb[0] protobuf <6"}},
		// An extra gathering the others is no pin; one that adds its own
		// requirement to them is computed.
		{"E = {'a': ['numba<1']}\nE['all'] = sum(E.values(), [])\nsetup(extras_require=E)\n",
			[]string{"extras_require.a[0] numba <1"}},
		{"E = {'a': ['numba<1']}\nE['all'] = sum(E.values(), ['jax<1'])\nsetup(extras_require=E)\n",
			[]string{"extras_require.a[0] numba <1", "skipped extras_require.all: computed at run time by a call (sum(E.values(), ['jax<1']))"}},
		{"setup(extras_require={k: ['numba<1'] for k in 'ab'})\n",
			[]string{"skipped extras_require: built by a comprehension at run time ({k: ['numba<1'] for k in 'ab'})"}},
		{"K = 'jit'\nsetup(extras_require={K: ['numba<1']})\n",
			[]string{"skipped extras_require: a key computed at run time (K)"}},
		{"setup(install_requires=None, extras_require={'a': None}, tests_require=[None, 3])\n",
			[]string{"skipped tests_require[0]: None, not a string", "skipped tests_require[1]: 3, not a string"}},
		{"setup(extras_require=['numba<1'], install_requires={'a': 'numba'})\n",
			[]string{"skipped extras_require: not a dict of extras", "skipped install_requires: a dict, not a list of requirements"}},
		// A literal both setup_requires and install_requires hold is needed
		// to run; one only in setup_requires is a build requirement.
		{"C = 'cython<4'\nsetup(setup_requires=[C, 'numpy<3'], install_requires=[C])\n",
			[]string{"setup_requires[0] cython <4", "setup_requires[1] numpy <3"}},
		// The project requiring itself for its extras.
		{"setup(name='Demo_Pkg', extras_require={'all': ['demo-pkg[jit]'], 'jit': ['numba<1']})\n",
			[]string{"extras_require.all[0] demo-pkg  (skip: the project's own name: it requires itself for its extras)", "extras_require.jit[0] numba <1"}},
		// A file read through a function of the file, or a with statement.
		{"def reqs(path):\n    with open(path) as f:\n        return f.read().splitlines()\nsetup(install_requires=reqs('requirements.txt'))\n",
			[]string{"skipped install_requires: read from another file at run time (requirements.txt)"}},
		{"here = os.path.dirname(__file__)\nwith open(os.path.join(here, 'requirements', 'base.txt')) as fh:\n    R = fh.readlines()\nsetup(install_requires=R)\n",
			[]string{"skipped install_requires: read from another file at run time (requirements/base.txt)"}},
	} {
		if diff := cmp.Diff(tt.want, rows(t, head+tt.doc)); diff != "" {
			t.Errorf("%s(-want +got):\n%s", tt.doc, diff)
		}
	}
}

// TestBuild: setup_requires pins are build requirements.
func TestBuild(t *testing.T) {
	ps, err := f.Extract("setup.py", []byte("from setuptools import setup\nC = 'cython<4'\nsetup(setup_requires=[C, 'numpy<3'], install_requires=[C])\n"))
	if err != nil || len(ps) != 2 || ps[0].Build || !ps[1].Build {
		t.Errorf("%+v %v: want cython needed to run, numpy to build", ps, err)
	}
}

// TestErrors: a file that is not Python 3 is one skipped entry naming the
// place (a warning: a setup.py is code, and a Python 2 relic or a template
// in the tree must not fail the run), with no pins.
func TestErrors(t *testing.T) {
	pinstest.Errors(t, f, "setup.py", []pinstest.ErrorCase{
		{Doc: "from setuptools import setup\nprint 'numba<=0.66.0'\n", Line: 2, Key: "setup()", InMsg: "not Python 3 that pinbot can read"},
		{Doc: "setup(install_requires=['numba<1']\n", Line: 1, Key: "setup()", InMsg: "so its requirements are not read"},
		{Doc: "from setuptools import setup\nsetup(install_requires=[\n    'numba<1',\n  {{ cookiecutter.deps }}\n  {% endif %}\n])\n", Line: 5, Key: "setup()", InMsg: "not Python 3"},
	})
}

// TestLimits: values that grow exponentially when followed naively, and
// names nested deeper than pinbot follows, end with the reason; the file's
// other requirements are read.
func TestLimits(t *testing.T) {
	var b strings.Builder
	b.WriteString("from setuptools import setup\nA0 = ['numba<1']\n")
	for i := 1; i < 64; i++ {
		fmt.Fprintf(&b, "A%d = A%d + A%d + [*A%d]\n", i, i-1, i-1, i-1)
	}
	b.WriteString("setup(install_requires=['jax<1'], extras_require={'big': A63})\n")
	want := []string{"install_requires[0] jax <1",
		"skipped extras_require.big[0]: too large to read statically: the rest of the file's requirements are not read"}
	if diff := cmp.Diff(want, rows(t, b.String())); diff != "" {
		t.Errorf("doubling names (-want +got):\n%s", diff)
	}

	b.Reset()
	b.WriteString("from setuptools import setup\nB0 = 'numba<1'\n")
	for i := 1; i < 300; i++ {
		fmt.Fprintf(&b, "B%d = B%d\n", i, i-1)
	}
	b.WriteString("setup(install_requires=['jax<1', B299])\n")
	got := rows(t, b.String())
	if len(got) != 2 || got[0] != "install_requires[0] jax <1" || !strings.HasSuffix(got[1], ": nested too deeply to read statically") {
		t.Errorf("a chain of 300 names: %q", got)
	}
}

// TestCorpus reads the corpus's setup.py files: tensorflow-probability's
// TensorFlow requirement is a name assigned in each arm of an if, and
// umap's requirements are in a dict given as setup(**configuration).
func TestCorpus(t *testing.T) {
	for _, tt := range []struct {
		file string
		n    int
		want []string
	}{
		{tfp, 15, []string{
			"58 extras_require.tf[0]: tensorflow >= 2.16",
			"61 extras_require.tf[0]: tf-nightly",
			"117 extras_require.jax[0]: jax",
			"117 extras_require.jax[1]: jaxlib",
		}},
		{umap, 18, []string{
			"51 install_requires[3]: numba >= 0.51.2",
			"66 extras_require.parametric_umap[0]: tensorflow >= 2.1",
		}},
	} {
		ps := pinstest.Rewrite(t, f, "setup.py", corpus.Read(t, tt.file), nil)
		got := pinstest.Rows(ps, func(p pins.Pin) bool {
			return pinstest.Watched(p.Package) || p.Package == "tf-nightly"
		})
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.file, diff)
		}
		if len(ps) != tt.n {
			t.Errorf("%s: %d requirements, want %d", tt.file, len(ps), tt.n)
		}
	}
}
