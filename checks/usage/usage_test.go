package usage_test

import (
	"flag"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var dump = flag.Bool("dump", false, "log each test's references")

// A refTest is one construct: a module's source (lines joined), the
// packages watched (default numba) and its references as show renders
// them: "line:col kind name <module> private guarded (call shape)", where
// <module> is left out when it is the name and <> is a string target.
type refTest struct {
	name string
	src  []string
	pkgs []string
	want []string
}

func runRefTests(t *testing.T, tests []refTest) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := refsOf(t, strings.Join(tt.src, "\n")+"\n", tt.pkgs...)
			if *dump {
				t.Logf("%s:\n%#v", tt.name, got)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("refs (-want +got):\n%s", diff)
			}
		})
	}
}

// TestImports: import and from-import name the package's modules and
// attributes; relative imports are the project's own.
func TestImports(t *testing.T) {
	runRefTests(t, []refTest{
		{name: "import", src: []string{"import numba"}, want: []string{"1:8 import numba"}},
		{name: "dotted, as", src: []string{"import numba.core.bytecode as bc"}, want: []string{"1:19 import numba.core.bytecode"}},
		{name: "from", src: []string{"from numba.core import types, errors as E"}, want: []string{"1:24 import numba.core.types <numba.core>", "1:31 import numba.core.errors <numba.core>"}},
		{name: "spaced and continued", src: []string{"import numba . core \\", "  . bytecode as bc"}, want: []string{"2:5 import numba.core.bytecode"}},
		{name: "parenthesized", src: []string{"from numba.core import (", "    types,  # the types", "    errors,", ")"}, want: []string{"2:5 import numba.core.types <numba.core>", "3:5 import numba.core.errors <numba.core>"}},
		{name: "relative is not the package's", src: []string{"from . import numba", "from .numba import njit", "from ..numba.core import x", "numba.njit", "njit(f)"}},
		{name: "other packages", src: []string{"import numpy", "import numbax", "from numbers import Number", "numpy.numba"}},
		{name: "star: names the file does not bind", src: []string{"from numba.core.types import *", "float64(1)", "int32.bitwidth", "len(x)", "_hidden()", "def f(float64): float64(2)"},
			want: []string{"1:17 import numba.core.types", "2:1 call numba.core.types.float64 <numba.core.types> (1)", "3:7 attribute numba.core.types.int32.bitwidth <numba.core.types>"}},
		{name: "star beside another module's", src: []string{"from numba.core.types import *", "from numpy import *", "float64(1)"}, want: []string{"1:17 import numba.core.types"}},
		{name: "private", src: []string{"from torch._six import inf", "import torch._C", "import torch.nn"}, pkgs: []string{"torch"}, want: []string{"1:24 import torch._six.inf <torch._six> private", "2:14 import torch._C private", "3:14 import torch.nn"}},
		{name: "private namespace", src: []string{"from tensorflow.python.framework import ops", "import tensorflow.keras"}, pkgs: []string{"tensorflow"}, want: []string{"1:41 import tensorflow.python.framework.ops <tensorflow.python.framework> private", "2:19 import tensorflow.keras"}},
		{name: "a metadata value ends the chain", src: []string{"import numba", "numba.__version__.split('.')[0]", "numba.core.__file__.rsplit('/')", "v = numba.__version__", "v.startswith('0.')", "numba.core.Foo.__init__(x)", "numba.__spec__.origin = 1"},
			want: []string{"1:8 import numba", "2:7 attribute numba.__version__ <numba>", "3:12 attribute numba.core.__file__ <numba>", "4:11 attribute numba.__version__ <numba>", "6:16 call numba.core.Foo.__init__ <numba> (1)", "7:7 attribute numba.__spec__ <numba>"}},
		{name: "dunders are not private", src: []string{"import numba", "numba.__version__", "numba._internal.__doc__"}, want: []string{"1:8 import numba", "2:7 attribute numba.__version__ <numba>", "3:17 attribute numba._internal.__doc__ <numba> private"}},
		{name: "import names from the table", src: []string{"import sklearn.base", "from google.protobuf import message", "import google.cloud", "import yaml"},
			pkgs: []string{"scikit-learn", "protobuf", "pyyaml"}, want: []string{"2:29 import google.protobuf.message <google.protobuf>", "4:8 import yaml", "1:16 import sklearn.base"}},
		{name: "importlib and importorskip", src: []string{
			"import importlib, pytest",
			`bc = importlib.import_module("numba.core.bytecode")`,
			"bc.FunctionIdentity",
			`nb = pytest.importorskip("numba")`,
			"nb.njit(f)",
			`importlib.import_module(".numba", "pkg")`,
		}, want: []string{"2:42 import numba.core.bytecode", "3:4 attribute numba.core.bytecode.FunctionIdentity <numba.core.bytecode>", "4:27 import numba guarded", "5:4 call numba.njit <numba> (1)"}},
	})
}

// TestChains: an attribute chain rooted at an imported name is one
// reference, its whole name, reached through the module the file imports.
func TestChains(t *testing.T) {
	runRefTests(t, []refTest{
		{name: "alias of a module", src: []string{"import numba.core.bytecode as bc", "bc.FunctionIdentity._unique_ids"}, want: []string{"1:19 import numba.core.bytecode", "2:21 attribute numba.core.bytecode.FunctionIdentity._unique_ids <numba.core.bytecode> private"}},
		{name: "alias by assignment", src: []string{"import numba.core.bytecode as bc", "FI = bc.FunctionIdentity", "FI._unique_ids"}, want: []string{"1:19 import numba.core.bytecode", "2:9 attribute numba.core.bytecode.FunctionIdentity <numba.core.bytecode>", "3:4 attribute numba.core.bytecode.FunctionIdentity._unique_ids <numba.core.bytecode> private"}},
		{name: "alias of an alias", src: []string{"import numba", "nb = numba", "j = nb.njit", "j(f, cache=True)"}, want: []string{"1:8 import numba", "3:8 attribute numba.njit <numba>", "4:1 call numba.njit <numba> (1 cache=)"}},
		{name: "from-imported name called", src: []string{"from numba import njit as jit", "@jit", "def f(): pass", "jit(nopython=True)(g)"}, want: []string{"1:19 import numba.njit <numba>", "2:2 call numba.njit <numba> (1)", "4:1 call numba.njit <numba> (0 nopython=)"}},
		{name: "a submodule the code did not import", src: []string{"import numba.core", "numba.core.bytecode.FunctionIdentity", "numba.misc.x"}, want: []string{"1:14 import numba.core", "2:21 attribute numba.core.bytecode.FunctionIdentity <numba.core>", "3:12 attribute numba.misc.x <numba>"}},
		{name: "a submodule imported elsewhere in the file", src: []string{"import numba", "numba.core.bytecode.X", "def f():", "    import numba.core.bytecode"}, want: []string{"1:8 import numba", "2:21 attribute numba.core.bytecode.X <numba.core.bytecode>", "4:23 import numba.core.bytecode"}},
		{name: "calls, keywords, stars", src: []string{"import numba", "numba.typed.List(a, *b, k=1, **kw)", "numba.njit(cache=True)(f)"}, want: []string{"1:8 import numba", "2:13 call numba.typed.List <numba> (1 k= * **)", "3:7 call numba.njit <numba> (0 cache=)"}},
		{name: "a chain stops at a call or a subscript", src: []string{"import numba", "numba.a().b.c", "numba.d[0].e", "numba.f[numba.g]"}, want: []string{"1:8 import numba", "2:7 call numba.a <numba> (0)", "3:7 attribute numba.d <numba>", "4:7 attribute numba.f <numba>", "4:15 attribute numba.g <numba>"}},
		{name: "in expressions of every kind", src: []string{
			"import numba",
			`x = [f"{numba.a!r:>{numba.b}}", {numba.c: numba.d}, -numba.e, numba.f or numba.g, (yield numba.h)]`,
			"isinstance(x, numba.types.Array)",
			"def f(x: numba.T = numba.dflt) -> numba.R: pass",
			"class C(numba.Base, metaclass=numba.Meta): pass",
			"except_ = 1",
			"try:\n    pass\nexcept numba.errors.TypingError as e:\n    e.numba",
		}, want: []string{"1:8 import numba", "2:15 attribute numba.a <numba>", "2:27 attribute numba.b <numba>", "2:40 attribute numba.c <numba>", "2:49 attribute numba.d <numba>", "2:60 attribute numba.e <numba>", "2:69 attribute numba.f <numba>", "2:80 attribute numba.g <numba>", "2:96 attribute numba.h <numba>", "3:27 attribute numba.types.Array <numba>", "4:16 attribute numba.T <numba>", "4:26 attribute numba.dflt <numba>", "4:41 attribute numba.R <numba>", "5:15 base numba.Base <numba>", "5:37 attribute numba.Meta <numba>", "9:21 attribute numba.errors.TypingError <numba>"}},
		{name: "lambda and comprehension bodies", src: []string{"import numba", "f = lambda: numba.a", "g = [numba.b(x) for x in numba.c if numba.d]", "h = lambda x=numba.e, *, y=numba.f: x"}, want: []string{"1:8 import numba", "2:19 attribute numba.a <numba>", "3:12 call numba.b <numba> (1)", "3:32 attribute numba.c <numba>", "3:43 attribute numba.d <numba>", "4:20 attribute numba.e <numba>", "4:34 attribute numba.f <numba>"}},
		{name: "match patterns", src: []string{"import numba", "match v:", "    case numba.K(x=1):", "        x.y", "    case numba.CONST:", "        pass"}, want: []string{"1:8 import numba", "3:16 attribute numba.K <numba>", "5:16 attribute numba.CONST <numba>"}},
		{name: "google.protobuf through google", src: []string{"import google.protobuf.message", "google.protobuf.message.Message", "google.cloud.storage.Client"},
			pkgs: []string{"protobuf"}, want: []string{"1:24 import google.protobuf.message", "2:25 attribute google.protobuf.message.Message <google.protobuf.message>"}},
	})
}

// TestRebinding: a name stands for what it was last bound to, in its
// scope; a name bound in one branch may be either; parameters, locals,
// loop and comprehension variables shadow.
func TestRebinding(t *testing.T) {
	runRefTests(t, []refTest{
		{name: "rebound to something else", src: []string{"import numba", "numba.a", "numba = None", "numba.b", "import numba", "numba.c"}, want: []string{"1:8 import numba", "2:7 attribute numba.a <numba>", "5:8 import numba", "6:7 attribute numba.c <numba>"}},
		{name: "parameter", src: []string{"import numba", "def f(numba, *, x=numba.dflt):", "    numba.a", "def g(*numba): numba.b", "def h(**numba): numba.c"}, want: []string{"1:8 import numba", "2:25 attribute numba.dflt <numba>"}},
		{name: "local", src: []string{"import numba", "def f():", "    numba = make()", "    numba.a", "def g():", "    numba.b"}, want: []string{"1:8 import numba", "6:11 attribute numba.b <numba>"}},
		{name: "local import", src: []string{"def f():", "    import numba", "    numba.a", "numba.b"}, want: []string{"2:12 import numba", "3:11 attribute numba.a <numba>"}},
		{name: "global", src: []string{"numba = None", "def load():", "    global numba", "    import numba", "def use():", "    numba.a"}, want: []string{"4:12 import numba", "6:11 attribute numba.a <numba>"}},
		{name: "loop and comprehension variables", src: []string{"import numba", "for numba in xs:", "    numba.a", "[numba.b for numba in xs]", "numba.c"}, want: []string{"1:8 import numba", "5:7 attribute numba.c <numba>"}},
		{name: "either branch", src: []string{"import numba", "if c:", "    x = numba.a", "else:", "    x = None", "x.b"}, want: []string{"1:8 import numba", "3:15 attribute numba.a <numba>", "6:3 attribute numba.a.b <numba>"}},
		{name: "function bodies see the module's end", src: []string{"def f():", "    numba.a", "import numba"}, want: []string{"2:11 attribute numba.a <numba>", "3:8 import numba"}},
		{name: "class bodies are not seen by methods", src: []string{"class C:", "    import numba", "    x = numba.a", "    def f(self):", "        numba.b"}, want: []string{"2:12 import numba", "3:15 attribute numba.a <numba>"}},
		{name: "walrus", src: []string{"import numba", "if (j := numba.njit):", "    j(f)"}, want: []string{"1:8 import numba", "2:16 attribute numba.njit <numba>", "3:5 call numba.njit <numba> (1)"}},
		{name: "unpacking", src: []string{"import numba", "a, b = numba.x, numba.y", "a.p", "b.q", "c, d = pair", "c.r"}, want: []string{"1:8 import numba", "2:14 attribute numba.x <numba>", "2:23 attribute numba.y <numba>", "3:3 attribute numba.x.p <numba>", "4:3 attribute numba.y.q <numba>"}},
	})
}
