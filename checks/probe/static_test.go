package probe

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestStaticNumba(t *testing.T) {
	f := getFixtures(t) // wheels only; no Python needed
	run := func(base, cand string) *Report {
		t.Helper()
		rep, err := Run(context.Background(), Options{Package: "numba", Baseline: base, Candidate: cand,
			Static: true, Index: f.dir, Specs: []Spec{{Preset: "numba-unique-ids"},
				{Path: "numba.core.bytecode.FunctionIdentity.from_function", Signature: "(pyfunc)"}}})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Mode != ModeStatic {
			t.Fatalf("mode %s", rep.Mode)
		}
		return rep
	}
	rep := run("0.66.0", "0.67.0")
	wantResult(t, rep.Results[0], Pass, Pass, OK, "_unique_ids = itertools.count(1) (numba.core.bytecode line 25)")
	wantResult(t, rep.Results[1], Pass, Pass, OK, "source contains")
	wantResult(t, rep.Results[2], Unknown, Unknown, Warning, "needs Python")
	wantResult(t, rep.Results[3], Pass, Pass, OK, "signature (pyfunc)")
	if rep.Verdict != Warning {
		t.Errorf("verdict %s, want warning (the snippet cannot run statically)", rep.Verdict)
	}

	rep = run("0.67.0", "0.68.0")
	wantResult(t, rep.Results[0], Pass, Fail, Blocked, `segment 5 "_unique_ids" is missing: class FunctionIdentity (numba.core.bytecode line 28) has no attribute _unique_ids in its body or its bases serialize.ReduceMixin`)
	wantResult(t, rep.Results[1], Pass, Fail, Blocked, `no longer contains "next(cls._unique_ids)"`)
	if rep.Verdict != Blocked {
		t.Errorf("verdict %s", rep.Verdict)
	}

	rep = run("0.67.0", "0.69.0")
	wantResult(t, rep.Results[0], Pass, Pass, OK, "")
	wantResult(t, rep.Results[1], Pass, Fail, Blocked, "numba.core.bytecode lines 27-")
}

func TestStaticWheelFromReader(t *testing.T) {
	dir := t.TempDir()
	p := buildWheel(t, dir, "numba", "0.67.0", testWheels("")[1].files)
	data, _ := os.ReadFile(p)
	r := bytes.NewReader(data)
	rep, err := Run(context.Background(), Options{Package: "numba", Candidate: "0.67.0", Static: true,
		CandidateWheel: Wheel{R: r, Size: r.Size(), Name: filepath.Base(p)},
		Specs:          []Spec{{Path: "numba.core.bytecode.FunctionIdentity._unique_ids", Expect: "iterator"}}})
	if err != nil {
		t.Fatal(err)
	}
	wantResult(t, rep.Results[0], "", Pass, OK, "")

	_, err = Run(context.Background(), Options{Package: "numba", Candidate: "0.67.0", Static: true,
		Index: "https://pypi.org/simple", Specs: []Spec{{Path: "numba"}}})
	if err == nil || !strings.Contains(err.Error(), "needs the numba 0.67.0 wheel") {
		t.Errorf("static without a wheel: %v", err)
	}
	_, err = Run(context.Background(), Options{Package: "numba", Candidate: "0.70.0", Static: true, Index: dir, Specs: []Spec{{Path: "numba"}}})
	if err == nil || !strings.Contains(err.Error(), "no wheel of numba 0.70.0") {
		t.Errorf("missing wheel: %v", err)
	}
}

// TestStaticMLIRStarImport: mlir.ir re-exports _mlir_libs._mlir.ir with a star
// import. When that module is Python in the wheel, static mode follows it and
// decides as the dynamic probes do; when it is compiled (as in real MLIR
// wheels), the look-ups are undecided and name the compiled module.
func TestStaticMLIRStarImport(t *testing.T) {
	f := getFixtures(t)
	rep, err := Run(context.Background(), Options{Package: "mlir", Baseline: "20.1.0", Candidate: "21.1.0",
		Static: true, Index: f.dir, Specs: []Spec{{Preset: "mlir-live-operations"}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.Results[:3] {
		wantResult(t, r, Pass, Pass, OK, "(mlir._mlir_libs._mlir.ir line")
	}
	for _, r := range rep.Results[3:7] {
		wantResult(t, r, Pass, Fail, Blocked, "class Context (mlir._mlir_libs._mlir.ir line 1) has no attribute "+strings.TrimPrefix(r.Spec.Path, "mlir.ir.Context."))
	}
	wantResult(t, rep.Results[7], Unknown, Unknown, Warning, "needs Python")

	dir := t.TempDir()
	for _, v := range []string{"20.1.0", "21.1.0"} {
		buildWheel(t, dir, "mlir", v, map[string]string{
			"mlir/__init__.py": "", "mlir/ir.py": "from ._mlir_libs._mlir.ir import *  # noqa: F403\n",
			"mlir/_mlir_libs/__init__.py": "", "mlir/_mlir_libs/_mlir/__init__.py": "",
			"mlir/_mlir_libs/_mlir/ir.cpython-311-x86_64-linux-gnu.so": "\x7fELF",
		})
	}
	rep, err = Run(context.Background(), Options{Package: "mlir", Baseline: "20.1.0", Candidate: "21.1.0",
		Static: true, Index: dir, Specs: []Spec{{Preset: "mlir-live-operations"}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.Results[:7] {
		wantResult(t, r, Unknown, Unknown, Warning, "from ._mlir_libs._mlir.ir import * at mlir.ir line 1 (mlir._mlir_libs._mlir.ir is a compiled module (mlir/_mlir_libs/_mlir/ir.cpython-311-x86_64-linux-gnu.so)")
	}
}

// TestStaticDoesNotRunCode reads the hostile test packages without running them:
// the one that hangs, the one that prints 101 MiB and the one that looks for secrets.
func TestStaticDoesNotRunCode(t *testing.T) {
	f := getFixtures(t)
	os.Remove(f.pidFile)
	for pkg, path := range map[string]string{"hangpkg": "hangpkg.VALUE", "loudpkg": "loudpkg.VALUE", "tokenpkg": "tokenpkg.LEAKED"} {
		rep, err := Run(context.Background(), Options{Package: pkg, Candidate: "1.0", Static: true, Index: f.dir,
			Specs: []Spec{{Path: path}, {Path: pkg + ".child", Expect: "callable"}}})
		if err != nil {
			t.Fatal(err)
		}
		wantResult(t, rep.Results[0], "", Pass, OK, "")
		if pkg == "hangpkg" {
			wantResult(t, rep.Results[1], "", Unknown, Warning, "child = subprocess.Popen")
		}
	}
	if _, err := os.Stat(f.pidFile); err == nil {
		t.Error("static mode ran hangpkg")
	}
}

func TestNoPythonFallsBackToStatic(t *testing.T) {
	f := getFixtures(t)
	rep, err := Run(context.Background(), Options{Package: "numba", Candidate: "0.67.0", Index: f.dir,
		Environ: []string{"PATH=" + t.TempDir()}, Specs: []Spec{{Path: "numba.core"}}})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Mode != ModeStatic || len(rep.Notes) == 0 || !strings.Contains(rep.Notes[0], "no Python") {
		t.Errorf("mode %s notes %q", rep.Mode, rep.Notes)
	}
}

var resolveWheel = map[string]string{
	"pkg/__init__.py": `"""A package."""
from .core import Engine as PublicEngine
from . import util
import itertools as it
from itertools import count
VERSION = "1.0"
COUNTER = it.count()
IDS = count(5)
try:
    import fast
except ImportError:
    fast = None
`,
	"pkg/core.py": `import itertools
from dataclasses import dataclass
from ._native import speed


class Base:
    base_attr = 1

    def base_method(self):
        pass


class Engine(Base):
    """Doc."""
    registry = {}
    ids = itertools.count()
    alias = Base

    @property
    def prop(self):
        return 1

    @classmethod
    def make(cls, a, b=2, *args, key: int = 0, **kw) -> "Engine":
        return cls()

    @staticmethod
    def helper(x, /, y):
        return x

    @some_decorator
    def wrapped(self):
        pass

    def gen(self):
        yield 1


Engine.late = 5


class Meta(type):
    pass


class WithMeta(metaclass=Meta):
    pass


class FromUnknown(SomethingUnknown):
    pass


@dataclass
class DC:
    x: int


def make_gen():
    yield 1


GEN = make_gen()
LAMBDA = lambda: 1
NUM = 1.5
`,
	"pkg/_native.cpython-311-x86_64-linux-gnu.so": "\x7fELF not really",
	"pkg/util.py":      "def helper():\n    pass\n",
	"pkg/abcs.py":      "import abc\nfrom abc import ABC\nclass M(abc.ABC):\n    x = 1\nclass N(ABC):\n    pass\n",
	"pkg/dyn.py":       "from os.path import *\n",
	"pkg/lazy.py":      "def __getattr__(name):\n    return name\n",
	"pkg/compat.py":    "import sys\nif sys.version_info >= (3, 12):\n    def f():\n        pass\nelse:\n    def f(x):\n        pass\n",
	"pkg/broken.py":    "X = '''never closed\n",
	"nspkg/sub/mod.py": "X = 1\n",
	"pkg/cycle.py":     "from .cycle import loop as loop\n",
	"pkg/sigs.py":      sigsPy,
	"pkg/star.py":      "from .starsrc import *\nfrom .noall import *\nLOCAL = 'x'\nfrom .other import *\nshadowed = 'local wins'\n\nimport math\ninf = math.inf\nimport numpy as np\nnp_alias = np.ndarray\nfrom math import pi\n",
	"pkg/starsrc.py":   "__all__ = ['public', 'listed', 'LOCAL', 'shadowed']\ndef public():\n    pass\nlisted = 1\nhidden = 2\n_private = 3\nLOCAL = 5\nshadowed = 6\n",
	"pkg/noall.py":     "noall_pub = 1\n_noall_priv = 2\n",
	"pkg/star2.py":     "LOCAL2 = 1\nfrom .computed import *\nLOCAL2 = 2\n",
	"pkg/other.py":     "from .starsrc import *\nfrom . import starsrc\nfrom .more import added\n__all__ = starsrc.__all__ + ['other_all']\n__all__ += ['added']\nother_all = 1\n",
	"pkg/more.py":      "added = 1\n",
	"pkg/computed.py":  "import os\n__all__ = [n for n in os.environ]\nmaybe = 1\n",
	"pkg/loop.py":      "from .loop2 import *\n",
	"pkg/reg.py":       "class Registry:\n    def lower(self):\n        pass\n\n\nregistry = Registry()\nlower = registry.lower\nfrom ._native import speed\nfast = speed.fast\n",
	"pkg/star3.py":     "from .splitall import *\n",
	"pkg/splitall.py":  "__all__ = \"\"\"\nalpha\n  beta\n\"\"\".split()\nalpha = 1\nbeta = 2\ngamma = 3\n",
	"pkg/loop2.py":     "from .loop import *\n",
}

const sigsPy = `import threading

class Plain:
    klass = 1
    def __init__(self, a, b=1):
        self.a = a
        self.b: int = b
        self.ann: int
        (self.c, [self.d, *self.e]) = (1, [2, 3])
        def nested():
            self.nested = 1

    def method(me, *, flag=False):
        if flag:
            me.f += 1

    @staticmethod
    def static(x):
        x.fromstatic = 1


class Child(Plain):
    def __init__(self, x):
        self.x = x


class WithNew:
    def __new__(cls, a):
        return super().__new__(cls)


class FromOutside(threading.Thread):
    def __init__(self, a):
        pass


class Err(Exception):
    def __init__(self, code):
        self.code = code


def func():
    pass


from dataclasses import dataclass


@dataclass
class DC:
    x: int
`

func TestStaticResolve(t *testing.T) {
	dir := t.TempDir()
	p := buildWheel(t, dir, "pkg", "1.0", resolveWheel)
	w, err := openWheel(Options{Package: "pkg"}, "1.0", Wheel{Path: p})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		spec   Spec
		want   Status
		detail string
	}{
		{Spec{Path: "pkg", Expect: "module"}, Pass, "found module pkg"},
		{Spec{Path: "pkg.PublicEngine", Expect: "class"}, Pass, "class Engine (pkg.core line 13)"},
		{Spec{Path: "pkg.util.helper", Expect: "callable"}, Pass, ""},
		{Spec{Path: "pkg.util.missing"}, Fail, `segment 3 "missing" is missing: module pkg.util has no missing`},
		{Spec{Path: "pkg.core.Engine.make", Expect: "callable", Signature: `(a, b=2, *args, key: int = 0, **kw) -> "Engine"`}, Pass, "signature (a, b=2"},
		{Spec{Path: "pkg.core.Engine.make", Signature: `(a, b=2, *args, key: int = 0, **kw) -> 'Engine'`}, Pass, "names, kinds and defaults match"},
		{Spec{Path: "pkg.core.Engine.make", Signature: `(a, b=3, *args, key=1, **kw)`}, Pass, ""},
		{Spec{Path: "pkg.core.Engine.make", Signature: `(a, b=3, *args, key=1, **kw)`, SignatureAnnotations: true}, Fail, `key is annotated int, expected (no annotation); it returns "Engine", expected (no annotation)`},
		{Spec{Path: "pkg.core.Engine.make", Signature: `(a, b: typing.Any=2, *args, key: "int" = 0, **kw) -> Engine`, SignatureAnnotations: true}, Fail, "b is annotated (no annotation), expected typing.Any"},
		{Spec{Path: "pkg.core.Engine.make", Signature: `(a, b=2, *args, key: "int" = 0, **kw) -> pkg.core.Engine`, SignatureAnnotations: true}, Pass, "names, kinds and defaults and annotations match"},
		{Spec{Path: "pkg.core.Engine.make", Signature: `(a, b, *args, key=0, **kw)`}, Fail, "b has a default, expected none"},
		{Spec{Path: "pkg.sigs.Plain", Signature: "(a=0, b=1)"}, Fail, "a has no default any more"},
		{Spec{Path: "pkg.core.Engine.make", Signature: `(a, b=2, *, key=0, **kw)`}, Fail, "parameter args is new"},
		{Spec{Path: "pkg.core.Engine.make", Signature: `(a, b=2, *args, **kw)`}, Fail, "parameter key is new"},
		{Spec{Path: "pkg.core.Engine.make", Signature: `(b=2, a=1, *args, key=0, **kw)`}, Fail, "a different order"},
		{Spec{Path: "pkg.core.Engine.make", Signature: `(a, b=2, *args, key=0, kw)`}, Fail, "kw is **kwargs, expected keyword-only"},
		{Spec{Path: "pkg.core.Engine.helper", Signature: "(x, y)"}, Fail, "x is positional-only, expected positional-or-keyword"},
		{Spec{Path: "pkg.core.Engine", Signature: "(n)"}, Fail, "signature is (), expected (n): parameter n is gone"},
		{Spec{Path: "pkg.sigs.Plain", Signature: "(a, b=1)"}, Pass, ""},
		{Spec{Path: "pkg.sigs.Plain", Signature: "(self, a, b=1)"}, Fail, "parameter self is gone"},
		{Spec{Path: "pkg.sigs.Child", Signature: "(x)"}, Pass, ""},
		{Spec{Path: "pkg.sigs.WithNew", Signature: "(a)"}, Unknown, "it defines __new__"},
		{Spec{Path: "pkg.sigs.FromOutside", Signature: "(a)"}, Unknown, "base threading.Thread cannot be read: threading is a module from another distribution"},
		{Spec{Path: "pkg.sigs.Plain.method", Signature: "(me, *, flag=False)"}, Pass, ""},
		{Spec{Path: "pkg.sigs.Plain.method", Signature: "(self, *, flag=False)"}, Fail, "parameter self is gone; parameter me is new"},
		{Spec{Path: "pkg.sigs.Plain.a", Expect: "instance-attribute"}, Pass, "assigns self.a at pkg.sigs line 6"},
		{Spec{Path: "pkg.sigs.Plain.c", Expect: "instance-attribute"}, Pass, "line 9"},
		{Spec{Path: "pkg.sigs.Plain.d", Expect: "instance-attribute"}, Pass, ""},
		{Spec{Path: "pkg.sigs.Plain.e", Expect: "instance-attribute"}, Pass, ""},
		{Spec{Path: "pkg.sigs.Plain.ann", Expect: "instance-attribute"}, Fail, "no method of class Plain (pkg.sigs line 3) or its bases assigns self.ann"},
		{Spec{Path: "pkg.sigs.Plain.nested", Expect: "instance-attribute"}, Fail, ""},
		{Spec{Path: "pkg.sigs.Plain.klass", Expect: "instance-attribute"}, Fail, "(klass is a class attribute, line 4)"},
		{Spec{Path: "pkg.sigs.Plain.fromstatic", Expect: "instance-attribute"}, Fail, ""},
		{Spec{Path: "pkg.sigs.Child.a", Expect: "instance-attribute"}, Pass, "class Plain (pkg.sigs line 3) assigns self.a"},
		{Spec{Path: "pkg.sigs.Child.x", Expect: "instance-attribute"}, Pass, ""},
		{Spec{Path: "pkg.sigs.Err.code", Expect: "instance-attribute"}, Pass, ""},
		{Spec{Path: "pkg.sigs.Err.other", Expect: "instance-attribute"}, Fail, ""},
		{Spec{Path: "pkg.sigs.FromOutside.z", Expect: "instance-attribute"}, Unknown, "no method assigns self.z, but base threading.Thread cannot be read"},
		{Spec{Path: "pkg.sigs.DC.x", Expect: "instance-attribute"}, Unknown, "class decorators may assign it"},
		{Spec{Path: "pkg.sigs.func.x", Expect: "instance-attribute"}, Fail, "expected a class at pkg.sigs.func, found function func"},
		{Spec{Path: "pkg.sigs.Nope.x", Expect: "instance-attribute"}, Fail, `segment 3 "Nope" is missing`},
		{Spec{Path: "pkg.sigs.Plain", Expect: "absent"}, Fail, "pkg.sigs.Plain exists: found class Plain"},
		{Spec{Path: "pkg.sigs.Gone", Expect: "absent"}, Pass, `absent: segment 3 "Gone" is missing`},
		{Spec{Path: "pkg.newmod", Expect: "absent"}, Pass, "absent"},
		{Spec{Path: "pkg.lazy.anything", Expect: "absent"}, Unknown, "module __getattr__ at line 1"},
		{Spec{Path: "pkg.core.speed", Expect: "absent"}, Unknown, "compiled module"},
		{Spec{Path: "pkg.star.public", Expect: "callable"}, Pass, "function public (pkg.starsrc line 2)"},
		{Spec{Path: "pkg.star.listed", Expect: "type:int"}, Pass, ""},
		{Spec{Path: "pkg.star._private"}, Fail, "and no star import brings it in"},
		{Spec{Path: "pkg.star.hidden"}, Fail, ""},
		{Spec{Path: "pkg.star.LOCAL", Expect: "type:int"}, Pass, "LOCAL = 5 (pkg.starsrc line 7)"},
		{Spec{Path: "pkg.star.shadowed", Expect: "type:str"}, Pass, ""},
		{Spec{Path: "pkg.star.noall_pub", Expect: "type:int"}, Pass, ""},
		{Spec{Path: "pkg.star._noall_priv"}, Fail, ""},
		{Spec{Path: "pkg.star.other_all", Expect: "type:int"}, Pass, ""},
		{Spec{Path: "pkg.star.added", Expect: "type:int"}, Pass, ""},
		{Spec{Path: "pkg.star2.maybe"}, Unknown, "from .computed import * at pkg.star2 line 2 (__all__ is computed at pkg.computed line 2)"},
		{Spec{Path: "pkg.star2.LOCAL2"}, Pass, ""},
		{Spec{Path: "pkg.star2.os"}, Unknown, "os may come from from .computed import *"}, // computed binds os; its __all__ may list it
		{Spec{Path: "pkg.star2.unlisted"}, Fail, "no star import brings it in"},
		{Spec{Path: "pkg.star.inf"}, Pass, "inf = math.inf (pkg.star line 8; math.inf is outside the wheel)"},
		{Spec{Path: "pkg.star.inf", Expect: "type:float"}, Unknown, "math.inf is outside the wheel"},
		{Spec{Path: "pkg.star.inf.real"}, Unknown, "from another distribution"},
		{Spec{Path: "pkg.star.np_alias"}, Pass, "numpy.ndarray is outside the wheel"},
		{Spec{Path: "pkg.star.pi"}, Pass, "imported from math.pi"},
		{Spec{Path: "pkg.star.np"}, Pass, ""},
		{Spec{Path: "pkg.star.np", Expect: "module"}, Unknown, ""},
		{Spec{Path: "pkg.star.np.linalg"}, Unknown, "from another distribution"},
		{Spec{Path: "pkg.loop.x"}, Unknown, "import cycle"},
		{Spec{Path: "pkg.star3.beta", Expect: "type:int"}, Pass, "beta = 2 (pkg.splitall line 6)"},
		{Spec{Path: "pkg.star3.gamma"}, Fail, "no star import brings it in"},
		{Spec{Path: "pkg.reg.lower"}, Pass, "lower = registry.lower (pkg.reg line 7; its value is not followed: registry = Registry() (pkg.reg line 6) is a value computed at run time"},
		{Spec{Path: "pkg.reg.lower", Expect: "callable"}, Unknown, "cannot tell statically whether lower = registry.lower"},
		{Spec{Path: "pkg.reg.lower.x"}, Unknown, "its attribute x cannot be read statically"},
		{Spec{Path: "pkg.reg.fast"}, Unknown, "pkg._native is a compiled module"},
		{Spec{Path: "pkg.core.Engine.make", Signature: "(a, b)"}, Fail, "signature is (a, b=2, *args, key: int = 0, **kw)"},
		{Spec{Path: "pkg.core.Engine.make", Signature: "(cls, a, b=2, *args, key: int = 0, **kw)"}, Fail, ""},
		{Spec{Path: "pkg.core.Engine.helper", Signature: "(x, /, y)"}, Pass, ""},
		{Spec{Path: "pkg.core.Engine.gen", Expect: "callable", Signature: "(self)"}, Pass, ""},
		{Spec{Path: "pkg.core.Engine.prop", Expect: "callable"}, Fail, "expected a callable, found function prop (pkg.core line 20), of type property"},
		{Spec{Path: "pkg.core.Engine.prop", Expect: "type:property"}, Pass, ""},
		{Spec{Path: "pkg.core.Engine.wrapped", Expect: "callable"}, Unknown, "cannot tell statically"},
		{Spec{Path: "pkg.core.Engine.wrapped", Signature: "(self)"}, Unknown, "@some_decorator may change the signature"},
		{Spec{Path: "pkg.core.Engine.wrapped"}, Pass, ""},
		{Spec{Path: "pkg.core.Engine.ids", Expect: "iterator"}, Pass, ""},
		{Spec{Path: "pkg.core.Engine.ids", Expect: "type:itertools.count"}, Pass, ""},
		{Spec{Path: "pkg.core.Engine.ids", Expect: "type:count"}, Pass, ""},
		{Spec{Path: "pkg.core.Engine.ids", Expect: "type:list"}, Fail, "expected an instance of list, found ids = itertools.count() (pkg.core line 16), of type itertools.count"},
		{Spec{Path: "pkg.core.Engine.ids", SourceContains: "x"}, Unknown, "has no source of its own"},
		{Spec{Path: "pkg.core.Engine.registry", Expect: "iterator"}, Fail, "of type dict"},
		{Spec{Path: "pkg.core.Engine.registry", Expect: "type:dict"}, Pass, ""},
		{Spec{Path: "pkg.core.Engine.base_method", Expect: "callable"}, Pass, "function base_method (pkg.core line 9)"},
		{Spec{Path: "pkg.core.Engine.late", Expect: "type:int"}, Pass, ""},
		{Spec{Path: "pkg.core.Engine.alias", Expect: "class"}, Pass, "class Base"},
		{Spec{Path: "pkg.core.Engine.nothing"}, Fail, `segment 4 "nothing" is missing: class Engine (pkg.core line 13) has no attribute nothing in its body or its bases Base`},
		{Spec{Path: "pkg.core.Engine.__init__"}, Unknown, "may come from object or the metaclass"},
		{Spec{Path: "pkg.abcs.M.y"}, Fail, `segment 4 "y" is missing: class M (pkg.abcs line 3) has no attribute y in its body or its bases abc.ABC`},
		{Spec{Path: "pkg.abcs.N.register"}, Unknown, "base ABC provides register"},
		{Spec{Path: "pkg.abcs.N.mro"}, Unknown, "may come from object or the metaclass"},
		{Spec{Path: "pkg.core.Engine", Expect: "module"}, Fail, "expected a module, found class Engine"},
		{Spec{Path: "pkg.core.Engine", SourceContains: "registry = {}"}, Pass, ""},
		{Spec{Path: "pkg.core.Engine", SourceContains: "nope"}, Fail, `source of pkg.core.Engine (pkg.core lines 13-36) no longer contains "nope"`},
		{Spec{Path: "pkg.core", SourceContains: "Engine.late = 5"}, Pass, ""},
		{Spec{Path: "pkg.core", Expect: "class"}, Fail, "expected a class, found module pkg.core"},
		{Spec{Path: "pkg.core.WithMeta.x"}, Unknown, "it has a metaclass"},
		{Spec{Path: "pkg.core.WithMeta", Expect: "class"}, Pass, ""},
		{Spec{Path: "pkg.core.FromUnknown.x"}, Unknown, "base SomethingUnknown cannot be read"},
		{Spec{Path: "pkg.core.DC.x"}, Unknown, "only annotated"},
		{Spec{Path: "pkg.core.DC.y"}, Unknown, "class decorators may add attributes"},
		{Spec{Path: "pkg.core.GEN", Expect: "iterator"}, Pass, ""},
		{Spec{Path: "pkg.core.GEN", Expect: "type:generator"}, Pass, ""},
		{Spec{Path: "pkg.core.LAMBDA", Expect: "callable"}, Pass, ""},
		{Spec{Path: "pkg.core.NUM", Expect: "type:float"}, Pass, ""},
		{Spec{Path: "pkg.core.NUM", Expect: "type:object"}, Pass, ""},
		{Spec{Path: "pkg.core.NUM", Expect: "callable"}, Fail, "of type float"},
		{Spec{Path: "pkg.core.make_gen", Expect: "iterator"}, Fail, "found function make_gen"},
		{Spec{Path: "pkg.core.speed"}, Unknown, "pkg._native is a compiled module (pkg/_native.cpython-311-x86_64-linux-gnu.so)"},
		{Spec{Path: "pkg.core.dataclass"}, Pass, "dataclass, imported from dataclasses.dataclass (pkg.core line 2; outside the wheel)"},
		{Spec{Path: "pkg.core.dataclass", Expect: "callable"}, Unknown, "cannot tell statically"},
		{Spec{Path: "pkg.COUNTER", Expect: "iterator"}, Pass, ""},
		{Spec{Path: "pkg.IDS", Expect: "type:itertools.count"}, Pass, ""},
		{Spec{Path: "pkg.VERSION", Expect: "type:str"}, Pass, ""},
		{Spec{Path: "pkg.VERSION", Expect: "type:bytes"}, Fail, ""},
		{Spec{Path: "pkg.fast"}, Unknown, "only conditionally (inside try at line 9)"},
		{Spec{Path: "pkg.dyn.anything"}, Unknown, "from os.path import * at pkg.dyn line 1 (module os.path is not in pkg-1.0-py3-none-any.whl)"},
		{Spec{Path: "pkg.lazy.anything"}, Unknown, "module __getattr__ at line 1"},
		{Spec{Path: "pkg.compat.f"}, Unknown, "only conditionally (inside if at line 2)"},
		{Spec{Path: "pkg.broken.Y"}, Unknown, "unterminated string starting at line 1"},
		{Spec{Path: "pkg.cycle.loop"}, Unknown, "too many"},
		{Spec{Path: "nspkg.sub.mod.X", Expect: "type:int"}, Pass, ""},
		{Spec{Path: "nspkg.other"}, Unknown, "namespace package"},
		{Spec{Path: "nspkg", SourceContains: "x"}, Unknown, "namespace package has no source"},
		{Spec{Path: "otherpkg.x"}, Unknown, "module otherpkg is not in pkg-1.0-py3-none-any.whl"},
		{Spec{Run: "import pkg", Expect: "pass"}, Unknown, "needs Python"},
	}
	for _, tt := range tests {
		st, detail := w.probe(&tt.spec)
		if st != tt.want || !strings.Contains(detail, tt.detail) {
			t.Errorf("%+v:\n got %s %q\nwant %s containing %q", tt.spec, st, detail, tt.want, tt.detail)
		}
	}
}

func TestAbsModule(t *testing.T) {
	for _, tt := range []struct {
		cur   string
		pkg   bool
		rel   string
		want  string
		isErr bool
	}{
		{"a.b", false, ".c", "a.c", false},
		{"a.b", true, ".c", "a.b.c", false},
		{"a.b.c", false, "..d", "a.d", false},
		{"a", true, ".", "a", false},
		{"a", false, ".x", "", true},
		{"a.b", false, "x.y", "x.y", false},
	} {
		got, err := absModule(tt.cur, tt.pkg, tt.rel)
		if got != tt.want || (err != nil) != tt.isErr {
			t.Errorf("absModule(%q, %v, %q) = %q, %v", tt.cur, tt.pkg, tt.rel, got, err)
		}
	}
}

// TestTypeCheckingNamesDoNotExist: a name bound only under `if
// TYPE_CHECKING:` (typing's, in any of its spellings) does not exist at run
// time: a static probe finds it missing, as Python does, unless a module
// __getattr__ may answer it; the else of such an if binds (#27 item 8).
func TestTypeCheckingNamesDoNotExist(t *testing.T) {
	t.Parallel() // slow (environments, subprocesses): overlaps the other tests
	f := getFixtures(t)
	specs := []Spec{
		{Path: "tcpkg.api.Registry"}, {Path: "tcpkg.api.helper", Expect: "callable"}, {Path: "tcpkg.api.Hook", Expect: "class"},
		{Path: "tcpkg.api.Fallback"}, {Path: "tcpkg.api.Annotation"}, {Path: "tcpkg.lazy.Hook", Expect: "class"},
	}
	rep, err := Run(context.Background(), Options{Package: "tcpkg", Baseline: "1.0", Candidate: "2.0", Static: true, Index: f.dir, Specs: specs})
	if err != nil {
		t.Fatal(err)
	}
	wantResult(t, rep.Results[0], Pass, Fail, Blocked, `segment 3 "Registry" is missing: module tcpkg.api has no Registry (no def, class, assignment or import) `+
		`and no submodule Registry; it is bound at line 6 only under if TYPE_CHECKING at line 5, which is false at run time`)
	wantResult(t, rep.Results[1], Pass, Fail, Blocked, `segment 3 "helper" is missing`)
	wantResult(t, rep.Results[1], Pass, Fail, Blocked, "it is bound at line 9 only under if TYPE_CHECKING at line 8")
	wantResult(t, rep.Results[2], Pass, Fail, Blocked, "it is bound at line 13 only under if TYPE_CHECKING at line 12")
	wantResult(t, rep.Results[3], Pass, Pass, OK, "Fallback = None (tcpkg.api line 16)")
	wantResult(t, rep.Results[4], Pass, Pass, OK, "found Annotation = object (tcpkg.api line 21")
	wantResult(t, rep.Results[5], Pass, Unknown, Warning, "module __getattr__ at line 7")
	if rep.Verdict != Blocked {
		t.Errorf("verdict %s, want blocked", rep.Verdict)
	}

	t.Run("Python agrees", func(t *testing.T) {
		dyn := mustRun(t, dynOpts(t, "tcpkg", "1.0", "2.0", specs...))
		for i, r := range dyn.Results[:5] {
			if r.Verdict != rep.Results[i].Verdict {
				t.Errorf("%s: dynamic %s (%s), static %s (%s)", r.Name, r.Verdict, r.Detail, rep.Results[i].Verdict, rep.Results[i].Detail)
			}
		}
		wantResult(t, dyn.Results[5], Pass, Pass, OK, "") // the module __getattr__ answers it
	})
}
