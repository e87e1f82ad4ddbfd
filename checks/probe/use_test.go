package probe

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

// useWheels are the wheel pairs of the usage tests: usepkg, whose 2.0 breaks
// some names for real and only seems to break others; a scikit-learn whose
// 1.6.0 drops BaseEstimator._validate_data, as the real one did.
func useWheels() []testWheel {
	return []testWheel{
		{"usepkg", "1.0", map[string]string{
			"usepkg/__init__.py": "__version__ = \"1.0\"\nfrom .core import helper  # noqa: F401\n",
			"usepkg/core.py":     usepkgCore10,
			"usepkg/legacy.py":   "def run():\n    return 1\n",
			"usepkg/moved.py":    "def thing():\n    return 1\n",
			"usepkg/lazy.py":     "def lazy_fn():\n    return 1\n",
			"usepkg/alias.py":    "class OldName:\n    pass\n",
			"usepkg/broken.py":   "x = 1\n",
		}},
		{"usepkg", "2.0", map[string]string{
			"usepkg/__init__.py": "__version__ = \"2.0\"\nfrom .core import helper  # noqa: F401\n",
			"usepkg/core.py":     usepkgCore20,
			"usepkg/newhome.py":  "def thing():\n    return 1\n",
			"usepkg/moved.py":    "from .newhome import thing  # noqa: F401\n",
			"usepkg/lazy.py":     usepkgLazy20,
			"usepkg/alias.py":    "class NewName:\n    pass\n\n\nOldName = NewName\n",
			// Raises at import, counting its imports: the message shows
			// whether a second use imported it again.
			"usepkg/broken.py": "import builtins\nbuiltins._usepkg_n = getattr(builtins, '_usepkg_n', 0) + 1\n" +
				"raise RuntimeError('usepkg.broken needs a GPU (import number %d)' % builtins._usepkg_n)\nx = 1\n",
		}},
		sklearn("1.5.0", sklearnBase15, ""),
		sklearn("1.6.0", sklearnBase16, sklearnValidation16),
	}
}

const usepkgCore10 = `from math import hypot as fast_hypot  # noqa: F401


def helper(x, y=1):
    return x


def old_helper(x, y=1):
    return x


def fewer(a, b, c=None):
    return a


def flexible(a, **options):
    return a


def variadic(a, b):
    return a


def scale(a, b, *, mode="x"):
    return a


class Widget:
    label = "w"

    def __init__(self, size, color=None):
        self.size = size
        self._cache = {}

    def render(self, target):
        return target

    @staticmethod
    def make(n):
        return Widget(n)

    @classmethod
    def load(cls, path):
        return cls(1)

    @property
    def area(self):
        return self.size ** 2


class Old:
    def __init__(self, n):
        self.n = n


def maker(n):
    return Widget(n)


LIMIT = 10
`

// usepkgCore20: helper loses its keyword y, fewer its positional b, Widget
// its render method, and Old becomes a function; variadic, flexible and
// scale accept the same calls through *args and **kwargs, old_helper stays
// as a deprecated wrapper, and maker becomes a class that takes the same
// call.
var usepkgCore20 = strings.NewReplacer(
	"from math import hypot", "import warnings\nfrom math import hypot",
	"def helper(x, y=1):", "def helper(x):",
	"def old_helper(x, y=1):\n    return x\n", "def old_helper(*args, **kwargs):\n"+
		"    warnings.warn(\"old_helper is deprecated; use helper\", DeprecationWarning, stacklevel=2)\n    return helper(*args)\n",
	"def fewer(a, b, c=None):", "def fewer(a):",
	"def variadic(a, b):\n    return a\n", "def variadic(*args):\n    return args[0]\n",
	`def scale(a, b, *, mode="x"):`, "def scale(a, b, **options):",
	"    def render(self, target):\n        return target\n\n", "",
	"class Old:\n    def __init__(self, n):\n        self.n = n\n", "def Old(n):\n    return Widget(n)\n",
	"def maker(n):\n    return Widget(n)\n", "class maker:\n    def __init__(self, n):\n        self.n = n\n",
).Replace(usepkgCore10)

// usepkgLazy20 answers lazy_fn through a module __getattr__, deprecated, and
// makes deprecation warnings errors: resolving must not raise them.
const usepkgLazy20 = `import warnings

warnings.simplefilter("error", DeprecationWarning)


def _lazy_fn():
    return 1


def __getattr__(name):
    if name == "lazy_fn":
        warnings.warn("usepkg.lazy.lazy_fn is deprecated; use usepkg.core.helper", DeprecationWarning, stacklevel=2)
        return _lazy_fn
    raise AttributeError(name)
`

func sklearn(version, base, validation string) testWheel {
	files := map[string]string{
		"sklearn/__init__.py":       fmt.Sprintf("__version__ = %q\n", version),
		"sklearn/base.py":           base,
		"sklearn/utils/__init__.py": "",
	}
	if validation != "" {
		files["sklearn/utils/validation.py"] = validation
	}
	return testWheel{"scikit-learn", version, files}
}

const sklearnBase15 = `class BaseEstimator:
    def get_params(self, deep=True):
        return {}

    def _validate_data(self, X="no_validation", y="no_validation", reset=True,
                       validate_separately=False, cast_to_ndarray=True, **check_params):
        return X
`

const sklearnBase16 = `class BaseEstimator:
    def get_params(self, deep=True):
        return {}
`

const sklearnValidation16 = `def validate_data(_estimator, /, X="no_validation", y="no_validation", reset=True,
                  validate_separately=False, skip_check_array=False, **check_params):
    return X
`

// A useCase is one use with the verdict each mode must reach and a part of
// its detail ("" for any).
type useCase struct {
	name                  string
	use                   Use
	dynamic, static       Verdict
	dynDetail, statDetail string
}

func call(pos int, kw ...string) *UseCall {
	return &UseCall{Positional: pos, Keywords: kw}
}

func bound(pos int, kw ...string) *UseCall {
	return &UseCall{Positional: pos, Keywords: kw, Bound: true}
}

func attrs(module string, as ...string) Use {
	return Use{Module: module, Attrs: as}
}

// usepkgCases: what really breaks between usepkg 1.0 and 2.0 blocks in both
// modes; what only looks as if it did never does.
var usepkgCases = []useCase{
	// Real breaks.
	{"a keyword parameter removed", Use{Module: "usepkg.core", Attrs: []string{"helper"}, Call: call(1, "y")},
		Blocked, Blocked, "fails at 2.0: takes no keyword argument y (signature (x)", "takes no keyword argument y (signature (x)"},
	{"fewer positional parameters", Use{Module: "usepkg.core", Attrs: []string{"fewer"}, Call: call(2)},
		Blocked, Blocked, "takes at most 1 positional argument, 2 given", "takes at most 1 positional argument, 2 given"},
	{"a module gone", Use{Module: "usepkg.legacy", Import: true},
		Blocked, Blocked, "missing: no module named 'usepkg.legacy'", "no module named usepkg.legacy"},
	{"a name from a module gone", Use{Module: "usepkg.legacy", Attrs: []string{"run"}, Import: true, Call: call(0)},
		Blocked, Blocked, "no module named 'usepkg.legacy'", "no module named usepkg.legacy"},
	{"a method removed, called on an instance", Use{Module: "usepkg.core", Attrs: []string{"Widget", "render"}, Instance: true, Call: bound(1)},
		Blocked, Blocked, "no method of class usepkg.core.Widget or its bases assigns self.render", "no method of class Widget"},
	{"a patch target removed", Use{Target: "usepkg.core.Widget.render", Assign: true},
		Blocked, Blocked, "has no attribute 'render'", `"render" is missing`},
	{"a class that became a function, as a base", Use{Module: "usepkg.core", Attrs: []string{"Old"}, Base: true},
		Blocked, Blocked, "a class at 1.0, a function at 2.0, and the code subclasses it", "a class at 1.0, a function at 2.0, and the code subclasses it"},
	{"an import that raises", Use{Module: "usepkg.broken", Attrs: []string{"x"}, Import: true},
		Blocked, OK, "importing usepkg.broken raised RuntimeError: usepkg.broken needs a GPU (import number 1)", ""},
	{"an import that raises, used again", Use{Module: "usepkg.broken", Import: true},
		Blocked, OK, "(import number 1)", ""},
	// Only as if.
	{"re-exported by the package", Use{Module: "usepkg", Attrs: []string{"helper"}, Call: call(1)}, OK, OK, "accepts the call", "accepts the call"},
	{"re-exported elsewhere", Use{Module: "usepkg.moved", Attrs: []string{"thing"}, Import: true, Call: call(0)},
		OK, OK, "function usepkg.newhome.thing", "function thing (usepkg.newhome line 1)"},
	{"moved behind a module __getattr__", Use{Module: "usepkg.lazy", Attrs: []string{"lazy_fn"}, Import: true, Call: call(0)},
		OK, Warning, "deprecated at 2.0: usepkg.lazy.lazy_fn is deprecated; use usepkg.core.helper", "module __getattr__"},
	{"kept as a deprecated function", Use{Module: "usepkg.core", Attrs: []string{"old_helper"}, Call: call(1, "y")}, OK, OK, "(*args, **kwargs)", "(*args, **kwargs)"},
	{"kept as an alias", Use{Module: "usepkg.alias", Attrs: []string{"OldName"}, Import: true}, OK, OK, "", "class NewName"},
	{"a keyword through **kwargs", Use{Module: "usepkg.core", Attrs: []string{"flexible"}, Call: call(1, "z")}, OK, OK, "", ""},
	{"a keyword now through **kwargs", Use{Module: "usepkg.core", Attrs: []string{"scale"}, Call: call(2, "mode")}, OK, OK, "(a, b, **options)", "(a, b, **options)"},
	{"positionals now through *args", Use{Module: "usepkg.core", Attrs: []string{"variadic"}, Call: call(2)}, OK, OK, "(*args)", "(*args)"},
	{"a function that became a class, called", Use{Module: "usepkg.core", Attrs: []string{"maker"}, Call: call(1)},
		OK, OK, "a function at 1.0, a class at 2.0; it still accepts the call", "it still accepts the call"},
	{"a class that became a function, called", Use{Module: "usepkg.core", Attrs: []string{"Old"}, Call: call(1)},
		OK, OK, "a class at 1.0, a function at 2.0; it still accepts the call", "it still accepts the call"},
	{"a function that became a class, passed on", attrs("usepkg.core", "maker"),
		Warning, Warning, "calls still work", "calls still work"},
	{"a class that became a function, imported", Use{Module: "usepkg.core", Attrs: []string{"Old"}, Import: true},
		Warning, Warning, "calls still work, but code that relies on a class (isinstance, except) may not", "calls still work, but code that relies on a class"},
	{"a class that became a function, read", attrs("usepkg.core", "Old"), Warning, Warning, "a class at 1.0, a function at 2.0: calls still work", "calls still work"},
	{"a class that stays one, as a base", Use{Module: "usepkg.core", Attrs: []string{"Widget"}, Base: true}, OK, OK, "", ""},
	{"a constructor", Use{Module: "usepkg.core", Attrs: []string{"Widget"}, Call: call(1, "color")}, OK, OK, "(size, color=...)", "(size, color=...)"},
	{"an instance attribute assigned in __init__", Use{Module: "usepkg.core", Attrs: []string{"Widget", "_cache"}, Instance: true},
		OK, OK, "assigns self._cache", "assigns self._cache"},
	{"a class attribute through an instance", Use{Module: "usepkg.core", Attrs: []string{"Widget", "label"}, Instance: true}, OK, OK, "", ""},
	{"a property through an instance", Use{Module: "usepkg.core", Attrs: []string{"Widget", "area"}, Instance: true}, OK, OK, "computed on access", "computed on access"},
	{"a staticmethod through an instance", Use{Module: "usepkg.core", Attrs: []string{"Widget", "make"}, Instance: true, Call: bound(1)},
		OK, OK, "(signature (n))", "(signature (n))"},
	{"a classmethod through the class", Use{Module: "usepkg.core", Attrs: []string{"Widget", "load"}, Call: call(1)}, OK, OK, "(signature (path))", "(signature (path))"},
	{"a replaced constant", Use{Module: "usepkg.core", Attrs: []string{"LIMIT"}, Assign: true}, OK, OK, "", "LIMIT = 10"},
	{"a patch target that stays", Use{Target: "usepkg.core.helper", Assign: true}, OK, OK, "", ""},
	{"a module's metadata the import system sets", attrs("usepkg", "__file__"), OK, OK, "", "usepkg.__file__, which the import system sets on every module (str)"},
	{"a package's __path__", attrs("usepkg", "__path__"), OK, OK, "", "usepkg.__path__, which the import system sets"},
	// Undecided, or broken already.
	{"a plain module's __path__", attrs("usepkg.core", "__path__"), Warning, Warning, "already fails at 1.0", "already fails at 1.0"},
	{"a C function with no signature", Use{Module: "usepkg.core", Attrs: []string{"fast_hypot"}, Call: call(2)},
		Warning, Warning, "no signature", "outside the wheel"},
	{"a name that never existed", attrs("usepkg.core", "nothere"), Warning, Warning, "already fails at 1.0", "already fails at 1.0"},
	{"a name that is not a name", attrs("usepkg.core", "not-valid"), Warning, Warning, `cannot be checked: attribute "not-valid"`, "cannot be checked"},
}

func runUses(t *testing.T, pkg, base, cand string, static bool, cases []useCase) *Report {
	t.Helper()
	var uses []Use
	for _, c := range cases {
		uses = append(uses, c.use)
	}
	opts := dynOpts(t, pkg, base, cand)
	if static {
		opts = Options{Package: pkg, Baseline: base, Candidate: cand, Static: true, Index: getFixtures(t).dir}
	}
	opts.Uses = uses
	rep := mustRun(t, opts)
	if len(rep.Results) != 0 || len(rep.Uses) != len(cases) {
		t.Fatalf("%d probe results, %d use results for %d uses", len(rep.Results), len(rep.Uses), len(cases))
	}
	for i, c := range cases {
		r := rep.Uses[i]
		want, detail := c.dynamic, c.dynDetail
		if static {
			want, detail = c.static, c.statDetail
		}
		t.Logf("%s (static %v): %s: %s", c.name, static, r.Verdict, r.Detail)
		if r.Index != i || r.Verdict != want || !strings.Contains(r.Detail, detail) {
			t.Errorf("%s (%s): %s %q, want %s containing %q\n  baseline %+v\n  candidate %+v", c.name, r.Name, r.Verdict, r.Detail, want, detail, r.Baseline, r.Candidate)
		}
	}
	return rep
}

func TestUsesDynamic(t *testing.T) {
	t.Parallel() // slow (environments, subprocesses): overlaps the other tests
	rep := runUses(t, "usepkg", "1.0", "2.0", false, usepkgCases)
	if rep.Verdict != Blocked || rep.Mode != ModeDynamic {
		t.Errorf("verdict %s mode %s", rep.Verdict, rep.Mode)
	}
	byName := map[string]UseResult{}
	for i, c := range usepkgCases {
		byName[c.name] = rep.Uses[i]
	}
	if r := byName["moved behind a module __getattr__"]; r.Candidate.Deprecated == "" || r.Baseline.Deprecated != "" || r.Candidate.Kind != KindFunction {
		t.Errorf("deprecation not recorded: %+v %+v", r.Baseline, r.Candidate)
	}
	if r := byName["a class that became a function, as a base"]; r.Baseline.Kind != KindClass || r.Candidate.Kind != KindFunction {
		t.Errorf("kinds %q → %q", r.Baseline.Kind, r.Candidate.Kind)
	}
	if r := byName["a property through an instance"]; r.Candidate.Kind != "" || r.Candidate.Status != Pass {
		t.Errorf("a property's value has no kind: %+v", r.Candidate)
	}
}

func TestUsesStatic(t *testing.T) {
	rep := runUses(t, "usepkg", "1.0", "2.0", true, usepkgCases)
	if rep.Verdict != Blocked || rep.Mode != ModeStatic {
		t.Errorf("verdict %s mode %s", rep.Verdict, rep.Mode)
	}
}

// The real shape of pytensor's numba cache monkeypatch (pymc-devs/pytensor
// #2079, link/numba/cache.py):
//
//	from numba.core.bytecode import FunctionIdentity
//	FunctionIdentity._unique_ids = _RandomUidIter()
//
// against the numba wheels whose 0.68.0 drops _unique_ids.
var pytensorCases = []useCase{
	{"from numba.core.bytecode import FunctionIdentity", Use{Module: "numba.core.bytecode", Attrs: []string{"FunctionIdentity"}, Import: true},
		OK, OK, "found class numba.core.bytecode.FunctionIdentity", "found class FunctionIdentity (numba.core.bytecode line 28)"},
	{"FunctionIdentity._unique_ids = _RandomUidIter()", Use{Module: "numba.core.bytecode", Attrs: []string{"FunctionIdentity", "_unique_ids"}, Assign: true},
		Blocked, Blocked, "passes at 0.67.0, fails at 0.68.0: missing: numba.core.bytecode.FunctionIdentity (class numba.core.bytecode.FunctionIdentity) has no attribute '_unique_ids'",
		`passes at 0.67.0, fails at 0.68.0: segment 5 "_unique_ids" is missing: class FunctionIdentity`},
	{"mock.patch of the counter", Use{Target: "numba.core.bytecode.FunctionIdentity._unique_ids", Assign: true},
		Blocked, Blocked, "has no attribute '_unique_ids'", `"_unique_ids" is missing`},
	{"FunctionIdentity.from_function(f)", Use{Module: "numba.core.bytecode", Attrs: []string{"FunctionIdentity", "from_function"}, Call: call(1)},
		OK, OK, "accepts the call (signature (pyfunc))", "accepts the call (signature (pyfunc))"},
}

func TestUsesPytensorNumbaCache(t *testing.T) {
	t.Parallel()
	for _, static := range []bool{false, true} {
		rep := runUses(t, "numba", "0.67.0", "0.68.0", static, pytensorCases)
		if rep.Verdict != Blocked {
			t.Errorf("static %v: verdict %s", static, rep.Verdict)
		}
		// 0.69.0 keeps the counter (and stops reading it, which a use
		// cannot see: that is the snippet probe's business).
		var ok []useCase
		for _, c := range pytensorCases {
			c.dynamic, c.static, c.dynDetail, c.statDetail = OK, OK, "", ""
			ok = append(ok, c)
		}
		runUses(t, "numba", "0.67.0", "0.69.0", static, ok)
	}
}

// MLIR's tests: ctx = Context(); ctx._get_live_operation_count(), a method
// llvm/llvm-project#155114 removed (the mlir wheels of the probe tests).
var mlirCases = []useCase{
	{"ctx = Context()", Use{Module: "mlir.ir", Attrs: []string{"Context"}, Call: call(0)}, OK, OK, "accepts the call (signature ())", "accepts the call (signature ())"},
	{"ctx._get_live_operation_count()", Use{Module: "mlir.ir", Attrs: []string{"Context", "_get_live_operation_count"}, Instance: true, Call: bound(0)},
		Blocked, Blocked, "passes at 20.1.0, fails at 21.1.0: missing: class mlir._mlir_libs._mlir.ir.Context has no attribute '_get_live_operation_count'",
		"passes at 20.1.0, fails at 21.1.0"},
	{"ctx._get_live_module_count()", Use{Module: "mlir.ir", Attrs: []string{"Context", "_get_live_module_count"}, Instance: true, Call: bound(0)}, OK, OK, "", ""},
	{"ctx._get_live_module_count(1) passes one too many", Use{Module: "mlir.ir", Attrs: []string{"Context", "_get_live_module_count"}, Instance: true, Call: bound(1)},
		Warning, Warning, "takes at most 1 positional argument with the instance, 2 given", "takes at most 1 positional argument with the instance, 2 given"},
	{"Context._get_live_count() through an instance", Use{Module: "mlir.ir", Attrs: []string{"Context", "_get_live_count"}, Instance: true, Call: bound(0)}, OK, OK, "", ""},
}

func TestUsesMLIRContext(t *testing.T) {
	t.Parallel()
	runUses(t, "mlir", "20.1.0", "21.1.0", false, mlirCases)
	runUses(t, "mlir", "20.1.0", "21.1.0", true, mlirCases)
}

// scikit-learn 1.6 moved BaseEstimator._validate_data to
// sklearn.utils.validation.validate_data; estimators outside it called
// self._validate_data(X, y) from their subclasses.
var sklearnCases = []useCase{
	{"self._validate_data(X, y)", Use{Module: "sklearn.base", Attrs: []string{"BaseEstimator", "_validate_data"}, Instance: true, Call: bound(2)},
		Blocked, Blocked, "passes at 1.5.0, fails at 1.6.0", "passes at 1.5.0, fails at 1.6.0"},
	{"self._validate_data with six positionals: seven with self", Use{Module: "sklearn.base", Attrs: []string{"BaseEstimator", "_validate_data"}, Instance: true, Call: bound(6)},
		Warning, Warning, "takes at most 6 positional arguments with the instance, 7 given", "takes at most 6 positional arguments with the instance, 7 given"},
	{"BaseEstimator._validate_data(est, five more): six", Use{Module: "sklearn.base", Attrs: []string{"BaseEstimator", "_validate_data"}, Call: call(6)},
		Blocked, Blocked, "passes at 1.5.0", "passes at 1.5.0"},
	{"self._validate_data(X, reset=False, ensure_2d=True)", Use{Module: "sklearn.base", Attrs: []string{"BaseEstimator", "_validate_data"}, Instance: true, Call: bound(1, "reset", "ensure_2d")},
		Blocked, Blocked, "passes at 1.5.0", "passes at 1.5.0"},
	{"validate_data(self, X, y)", Use{Module: "sklearn.utils.validation", Attrs: []string{"validate_data"}, Import: true, Call: call(3)},
		OK, OK, "fixed at 1.6.0", "fixed at 1.6.0"},
	{"self.get_params(deep=False)", Use{Module: "sklearn.base", Attrs: []string{"BaseEstimator", "get_params"}, Instance: true, Call: bound(0, "deep")}, OK, OK, "(signature (self, deep=...))", "(signature (self, deep=...))"},
}

func TestUsesSklearnValidateData(t *testing.T) {
	t.Parallel()
	runUses(t, "scikit-learn", "1.5.0", "1.6.0", false, sklearnCases)
	runUses(t, "scikit-learn", "1.5.0", "1.6.0", true, sklearnCases)
}

// TestUsesWithProbes: uses run in the same Run and process as the probes,
// and fold into the report's verdict.
func TestUsesWithProbes(t *testing.T) {
	t.Parallel()
	opts := dynOpts(t, "numba", "0.67.0", "0.68.0", Spec{Path: "numba.core.bytecode.FunctionIdentity.from_function", Expect: "callable"})
	opts.Uses = []Use{pytensorCases[1].use, pytensorCases[0].use}
	rep := mustRun(t, opts)
	if len(rep.Results) != 1 || rep.Results[0].Verdict != OK || len(rep.Uses) != 2 || rep.Uses[0].Verdict != Blocked || rep.Verdict != Blocked {
		t.Fatalf("results %+v\nuses %+v\nverdict %s", rep.Results, rep.Uses, rep.Verdict)
	}
	if !strings.Contains(rep.Markdown(), "FunctionIdentity.\\_unique\\_ids") {
		t.Errorf("the markdown does not show the blocked use:\n%s", rep.Markdown())
	}
	b, err := json.Marshal(rep)
	if err != nil || !strings.Contains(string(b), `"uses":[{"index":0,"name":"numba.core.bytecode.FunctionIdentity._unique_ids"`) {
		t.Errorf("json %s (%v)", b, err)
	}
}

func TestUseValidate(t *testing.T) {
	for _, tt := range []struct {
		use Use
		err string
	}{
		{Use{Module: "a.b", Attrs: []string{"c"}}, ""},
		{Use{Target: "a.b.c"}, ""},
		{Use{}, "needs a module or a target"},
		{Use{Target: "a", Assign: true}, "names no attribute"},
		{Use{Target: "a.b", Module: "a"}, "not both"},
		{Use{Target: "a.b", Instance: true}, "not an instance's attribute"},
		{Use{Target: "a.b", Base: true}, "not an instance's attribute or a base"},
		{Use{Module: "a", Attrs: []string{"C"}, Base: true, Call: &UseCall{}}, "a base is neither called"},
		{Use{Module: "a", Attrs: []string{"C"}, Instance: true}, "needs a class and an attribute"},
		{Use{Module: "a..b"}, "empty segment"},
		{Use{Module: "a", Attrs: []string{"class"}}, "not a Python identifier"},
		{Use{Module: "a", Call: &UseCall{Positional: -1}}, "positional"},
		{Use{Module: "a", Call: &UseCall{Keywords: []string{"x", "x"}}}, "passed twice"},
		{Use{Module: "a", Call: &UseCall{Keywords: []string{"**"}}}, "not a Python identifier"},
		{Use{Module: strings.Repeat("a.", 600) + "a"}, "bytes long"},
	} {
		err := tt.use.Validate()
		if (err == nil) != (tt.err == "") || err != nil && !strings.Contains(err.Error(), tt.err) {
			t.Errorf("%+v: %v, want %q", tt.use, err, tt.err)
		}
	}
}

// TestBindCall: a call binds as inspect.Signature.bind binds it.
func TestBindCall(t *testing.T) {
	sig := func(s string) []sigParam {
		t.Helper()
		got, err := parseSignature(s)
		if err != nil {
			t.Fatal(err)
		}
		return got.Params
	}
	for _, tt := range []struct {
		sig  string
		call UseCall
		self bool
		want string
	}{
		{"(x, y=1)", UseCall{Positional: 1, Keywords: []string{"y"}}, false, ""},
		{"(x)", UseCall{Positional: 1, Keywords: []string{"y"}}, false, "takes no keyword argument y"},
		{"(x, **kw)", UseCall{Positional: 1, Keywords: []string{"y"}}, false, ""},
		{"(a)", UseCall{Positional: 2}, false, "takes at most 1 positional argument, 2 given"},
		{"(*args)", UseCall{Positional: 5}, false, ""},
		{"(self, a)", UseCall{Positional: 1}, true, ""},
		{"(self, a)", UseCall{Positional: 2}, true, "with the instance, 3 given"},
		{"(*args)", UseCall{}, true, ""},
		{"()", UseCall{}, true, "takes at most 0 positional arguments with the instance, 1 given"},
		{"(a, b)", UseCall{Positional: 1}, false, "needs argument b"},
		{"(a, b)", UseCall{Positional: 1, Star: true}, false, ""},
		{"(a, b)", UseCall{Positional: 1, DoubleStar: true}, false, ""},
		{"(a, /, b)", UseCall{DoubleStar: true}, false, "needs argument a"},
		{"(a, *, k)", UseCall{Positional: 1, Star: true}, false, "needs argument k"},
		{"(a, *, k)", UseCall{Positional: 1, DoubleStar: true}, false, ""},
		{"(a, /)", UseCall{Keywords: []string{"a"}}, false, "positional-only"},
		{"(a, /, **kw)", UseCall{Positional: 1, Keywords: []string{"a"}}, false, ""},
		{"(a, b=1)", UseCall{Positional: 2, Keywords: []string{"b"}}, false, "multiple values for argument b"},
		{"(self, x)", UseCall{Positional: 1, Keywords: []string{"self"}}, true, "multiple values for argument self"},
		{"(a, *args, k=1, **kw)", UseCall{Positional: 3, Keywords: []string{"k", "z"}}, false, ""},
	} {
		if got := bindCall(sig(tt.sig), &tt.call, tt.self); (got == "") != (tt.want == "") || !strings.Contains(got, tt.want) {
			t.Errorf("%s %+v self=%v: %q, want %q", tt.sig, tt.call, tt.self, got, tt.want)
		}
	}
}

// TestJudgeUse covers the verdict rules the wheel pairs do not reach.
func TestJudgeUse(t *testing.T) {
	side := func(v string, st Status, kind string) *UseSide {
		return &UseSide{Version: v, Status: st, Kind: kind, Detail: "d" + v}
	}
	for _, tt := range []struct {
		use  Use
		b, c *UseSide
		want Verdict
		text string
	}{
		{Use{}, nil, side("2", Fail, ""), Warning, "no baseline to compare"},
		{Use{}, nil, side("2", Pass, KindClass), OK, ""},
		{Use{}, side("1", Unknown, ""), side("2", Fail, ""), Warning, "undecided at 1"},
		{Use{}, side("1", Pass, KindClass), side("2", Unknown, ""), Warning, "undecided at 2"},
		{Use{}, side("1", Pass, KindModule), side("2", Pass, KindClass), Blocked, "a module at 1, a class at 2"},
		{Use{}, side("1", Pass, KindOther), side("2", Pass, KindFunction), Blocked, "a value at 1"},
		{Use{}, side("1", Pass, KindClass), side("2", Pass, ""), Warning, "a class at 1; what it is at 2 cannot be told"},
		{Use{}, side("1", Pass, ""), side("2", Pass, KindModule), Warning, "a module at 2; what it is at 1 cannot be told"},
		{Use{}, side("1", Pass, KindFunction), side("2", Pass, ""), OK, ""},
		{Use{}, side("1", Fail, ""), side("2", Pass, KindOther), OK, "fixed at 2"},
		{Use{}, side("1", Pass, KindClass), side("2", Pass, KindFunction), Warning, "a class at 1, a function at 2: calls still work"},
		{Use{Import: true}, side("1", Pass, KindClass), side("2", Pass, KindFunction), Warning, "calls still work"},
		{Use{Base: true}, side("1", Pass, KindClass), side("2", Pass, KindFunction), Blocked, "a class at 1, a function at 2, and the code subclasses it"},
		{Use{Base: true}, side("1", Pass, KindClass), side("2", Pass, KindOther), Blocked, "a class at 1, a value at 2, and the code subclasses it"},
		{Use{Base: true}, side("1", Pass, KindClass), side("2", Pass, ""), Warning, "cannot be told"},
		{Use{Call: &UseCall{}}, side("1", Pass, KindClass), side("2", Pass, KindFunction), OK, "it still accepts the call"},
	} {
		r := UseResult{Baseline: tt.b, Candidate: *tt.c}
		if v, d := judgeUse(&tt.use, &r); v != tt.want || !strings.Contains(d, tt.text) {
			t.Errorf("%+v → %+v: %s %q, want %s %q", tt.b, tt.c, v, d, tt.want, tt.text)
		}
	}
}

// TestFakeUsesOneProcess: uses travel in the probes' request to the one
// probe process of each environment, each distinct use once; a package
// with uses and no probes runs; every use gets its result in order.
func TestFakeUsesOneProcess(t *testing.T) {
	f := newFake(t)
	opts := fakeOpts(t, f)
	opts.Baseline, opts.Specs = "0.66.0", nil
	u := Use{Module: "numba", Attrs: []string{"njit"}, Call: &UseCall{Positional: 1, Keywords: []string{"y"}}}
	bad := Use{Module: "numba", Attrs: []string{"x y"}}
	opts.Uses = []Use{u, bad, u, {Module: "numba", Attrs: []string{"jit"}, Call: &UseCall{Keywords: []string{"y"}}}}
	rep, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	var probes []*Command
	for _, c := range f.calls {
		if len(c.Args) == 4 && strings.HasSuffix(c.Args[3], "pinbot_probe.py") {
			probes = append(probes, c)
		}
	}
	if len(probes) != 2 {
		t.Fatalf("%d probe processes, want one per version", len(probes))
	}
	var req struct {
		Probes []json.RawMessage `json:"probes"`
		Uses   []reqUse          `json:"uses"`
	}
	if err := json.Unmarshal(probes[1].Stdin, &req); err != nil || len(req.Uses) != 2 || len(req.Probes) != 0 ||
		req.Uses[0].Module != "numba" || !req.Uses[0].Call || req.Uses[1].Attrs[0] != "jit" {
		t.Fatalf("request %s (%v)", probes[1].Stdin, err)
	}
	want := []struct {
		v      Verdict
		detail string
	}{
		{OK, "accepts the call (signature (x, *, y=...))"},
		{Warning, `cannot be checked: attribute "x y"`},
		{OK, "accepts the call"},
		{Warning, "needs argument x, which the call does not pass"},
	}
	if len(rep.Uses) != len(want) {
		t.Fatalf("%d use results", len(rep.Uses))
	}
	for i, w := range want {
		if r := rep.Uses[i]; r.Index != i || r.Verdict != w.v || !strings.Contains(r.Detail, w.detail) {
			t.Errorf("use %d: %s %q, want %s %q", i, r.Verdict, r.Detail, w.v, w.detail)
		}
	}
	if rep.Verdict != Warning {
		t.Errorf("verdict %s", rep.Verdict)
	}
}

// TestParseUseOutput: what the probe process says of uses is hostile
// input; a use the process timed out or died in is unknown or failed, the
// ones after it not resolved.
func TestParseUseOutput(t *testing.T) {
	uses := []Use{{Module: "a"}, {Module: "b", Call: &UseCall{Positional: 1}}, {Module: "c"}, {Module: "d"}}
	hdr := `{"python": "3.11.7", "executable": "/x", "version": null}` + "\n"
	tests := []struct {
		name   string
		out    Output
		status []Status
		detail []string
	}{
		{"timeout in the second use",
			Output{Stdout: []byte(hdr + `{"ustart": 0}` + "\n" + `{"u": 0, "status": "pass", "kind": "module", "detail": "found module a"}` + "\n" + `{"ustart": 1}` + "\n"), Stderr: []byte("stuck"), TimedOut: true},
			[]Status{Pass, Unknown, Unknown, Unknown}, []string{"found module a", "timed out after 2s while resolving this use; stderr: stuck", "timed out before this use", "timed out before this use"}},
		{"death in the first use",
			Output{Stdout: []byte(hdr + `{"ustart": 0}` + "\n"), Stderr: []byte("Segmentation fault"), ExitCode: -11},
			[]Status{Fail, Unknown, Unknown, Unknown}, []string{"died (exit status -11) while resolving this use", "exited early", "exited early", "exited early"}},
		{"garbage and hostile text",
			Output{Stdout: []byte(hdr + "not json\n" +
				`{"u": 0, "status": "weird", "detail": "x\u001b[2Jy"}` + "\n" +
				`{"u": 9, "status": "pass"}` + "\n" + `{"u": -1, "status": "pass"}` + "\n" +
				`{"u": 1, "status": "pass", "kind": "function", "callable": true, "sig": ["9x"], "detail": "f"}` + "\n" +
				`{"u": 2, "status": "pass", "kind": "bogus", "detail": "c"}` + "\n" +
				`{"u": 3, "status": "fail", "kind": "class", "detail": "missing: d"}` + "\n" + `{"done": true}`)},
			[]Status{Unknown, Unknown, Pass, Fail}, []string{"x\uFFFD[2Jy", "unreadable signature: parameter \"9x\" has no kind", "c", "missing: d"}},
		{"a call to what is not callable, and one with no signature",
			Output{Stdout: []byte(hdr + `{"u": 1, "status": "pass", "kind": "other", "callable": false, "detail": "found a value of type int"}` + "\n" + `{"done": true}`)},
			[]Status{Unknown, Fail, Unknown, Unknown}, []string{"no result", "not callable: found a value of type int", "no result", "no result"}},
	}
	for _, tt := range tests {
		set, _, err := parseProbeOutput(&tt.out, nil, uses, "1.0", 2*time.Second)
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		for i := range uses {
			s := set.uses[i]
			if s.Status != tt.status[i] || !strings.Contains(s.Detail, tt.detail[i]) || s.Version != "1.0" {
				t.Errorf("%s: use %d = %+v, want %s containing %q", tt.name, i, s, tt.status[i], tt.detail[i])
			}
		}
		if tt.name == "garbage and hostile text" && (set.uses[2].Kind != "" || set.uses[3].Kind != "") {
			t.Errorf("an unknown kind, or the kind of a use that does not resolve, was kept: %+v", set.uses)
		}
	}
	ps, err := readParams([]string{"0a", "1=b", "2args", "3k", "3=m", "4kw"})
	if err != nil || paramsText(ps) != "(a, /, b=..., *args, k, m=..., **kw)" {
		t.Errorf("readParams: %v %q", err, paramsText(ps))
	}
	if ps, _ := readParams([]string{"1a", "3k"}); paramsText(ps) != "(a, *, k)" {
		t.Errorf("paramsText %q", paramsText(ps))
	}
}

// debianUses are real numba names (and two made up), resolved in Debian's
// numba 0.56.4.
var debianUses = []Use{
	{Module: "numba.core.bytecode", Attrs: []string{"FunctionIdentity", "_unique_ids"}, Assign: true},
	{Module: "numba", Attrs: []string{"njit"}, Call: &UseCall{Keywords: []string{"cache"}}},
	{Target: "numba.core.dispatcher.Dispatcher._compile_for_args", Assign: true},
	{Module: "numba.core.bytecode", Attrs: []string{"FunctionIdentity", "from_function"}, Call: &UseCall{Positional: 1}},
	{Module: "numba.core.dispatcher", Attrs: []string{"Dispatcher", "_cache"}, Instance: true},
	{Module: "numba", Attrs: []string{"_dispatcher"}, Import: true}, // a compiled module
	{Module: "numba.core.bytecode", Attrs: []string{"FunctionIdentity", "_no_such_counter"}, Assign: true},
	{Module: "numba.core.no_such_module", Import: true},
}

func wantDebianUses(t *testing.T, rep *Report, fails ...string) {
	t.Helper()
	if len(rep.Uses) != len(debianUses) {
		t.Fatalf("%d uses", len(rep.Uses))
	}
	for i, r := range rep.Uses {
		want, v := Pass, OK
		if i >= 6 {
			want, v = Fail, Warning
			if !strings.Contains(r.Candidate.Detail, fails[i-6]) {
				t.Errorf("%s: %q does not contain %q", r.Name, r.Candidate.Detail, fails[i-6])
			}
		}
		if r.Candidate.Status != want || r.Verdict != v {
			t.Errorf("%s: %s %s, want %s %s: %s", r.Name, r.Candidate.Status, r.Verdict, want, v, r.Detail)
		}
		t.Logf("%s: %s: %s", r.Name, r.Verdict, r.Detail)
	}
}

func TestIntegrationDebianNumbaUses(t *testing.T) {
	t.Parallel()
	py := debianNumba(t)
	rep := mustRun(t, Options{Package: "numba", Python: py, NoInstall: true, TempDir: t.TempDir(), Uses: debianUses})
	wantDebianUses(t, rep, "missing: numba.core.bytecode.FunctionIdentity (class numba.core.bytecode.FunctionIdentity) has no attribute '_no_such_counter'",
		"missing: no module named 'numba.core.no_such_module'")
	if d := rep.Uses[1].Detail; !strings.Contains(d, "installed numba "+rep.Installed+" probed") || !strings.Contains(d, "accepts the call") {
		t.Errorf("njit: %q", d)
	}

	rep = mustRun(t, Options{Package: "numba", Candidate: "0.56.4", Static: true, CandidateWheel: debianNumbaWheel(t), Uses: debianUses})
	wantDebianUses(t, rep, `segment 5 "_no_such_counter" is missing: class FunctionIdentity`, "no module named numba.core.no_such_module")
}

// TestUsesMarkdown: the report counts the uses and lists the blocked, then
// the warnings, at most maxUseRows of them, escaped; a report of uses alone
// is titled so.
func TestUsesMarkdown(t *testing.T) {
	rep := &Report{Package: "numba", Baseline: "0.67.0", Candidate: "0.68.0", Mode: ModeStatic, Verdict: Blocked}
	side := func(st Status) UseSide { return UseSide{Status: st} }
	for i := 0; i < 60; i++ {
		b := side(Fail)
		rep.Uses = append(rep.Uses, UseResult{Name: fmt.Sprintf("numba.w%d", i), Baseline: &b, Candidate: side(Fail), Verdict: Warning, Detail: "already fails"})
	}
	b := side(Pass)
	rep.Uses = append(rep.Uses,
		UseResult{Name: "numba.ok", Baseline: &b, Candidate: side(Pass), Verdict: OK},
		UseResult{Name: "numba.core.bytecode.FunctionIdentity._unique_ids", Baseline: &b, Candidate: side(Fail), Verdict: Blocked, Detail: "gone | <b>"})
	md := rep.Markdown()
	for _, want := range []string{
		"**Uses of numba 0.67.0 → 0.68.0** (static): **blocked**",
		"62 uses checked: 1 blocked, 60 warnings, 1 ok",
		"| Use | 0.67.0 | 0.68.0 | Verdict | Detail |",
		"| numba.core.bytecode.FunctionIdentity.\\_unique\\_ids | pass | **fail** | **blocked** | gone \\| \\<b\\> |\n| numba.w0 |",
		"_... and 11 more_",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "| Probe |") || strings.Contains(md, "numba.ok") || strings.Contains(md, "numba.w49 |") {
		t.Errorf("markdown lists what it should not:\n%s", md)
	}
}
