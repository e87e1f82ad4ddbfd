package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/pinbot-dev/pinbot/bot/report"
	"github.com/pinbot-dev/pinbot/internal/fakes"
)

// pytensorCache is the shape of pytensor's pytensor/link/numba/cache.py
// (pymc-devs/pytensor): it replaces numba's FunctionIdentity._unique_ids at
// import, so that numba's cache names do not collide across processes.
const pytensorCache = `from collections.abc import Callable
from tempfile import NamedTemporaryFile
from typing import Any

from numba.core.caching import CacheImpl, _CacheLocator

from pytensor import config


NUMBA_PYTENSOR_CACHE_ENABLED = True


class _RandomUidIter:
    def __next__(self):
        return uuid4().int


# Make numba's function uids random, so that cached functions of forked
# processes do not collide.
from numba.core.bytecode import FunctionIdentity

FunctionIdentity._unique_ids = _RandomUidIter()
`

// usageNumba is a numba wheel with what pytensorCache uses: caching's
// CacheImpl and _CacheLocator, and bytecode's FunctionIdentity, whose
// _unique_ids drop removes.
func usageNumba(version string, drop bool) fakes.Release {
	fn, data := fakes.Wheel("numba", version, "py3-none-any", map[string][]byte{
		"numba/__init__.py":      nil,
		"numba/core/__init__.py": nil,
		"numba/core/bytecode.py": numbaBytecode(drop),
		"numba/core/caching.py":  []byte("class _CacheLocator:\n    pass\n\n\nclass CacheImpl:\n    pass\n"),
	})
	return fakes.Release{Version: version, Artifacts: map[string][]byte{fn: data}}
}

// usageOf returns the package's usage check, or nil.
func usageOf(p report.Package) *report.Check {
	for i := range p.Checks {
		if p.Checks[i].Kind == "usage" {
			return &p.Checks[i]
		}
	}
	return nil
}

// TestCheckUsagePytensorCache: with no probe configured, pinbot check reads
// the repository's code, finds pytensor's monkeypatch of numba's
// FunctionIdentity._unique_ids, and checks the name at the baseline and the
// candidate: 0.68.0 drops it, so the bump is blocked and the cap moves to
// 0.67.0, the newest release that keeps it; the detail names the project's
// place first.
func TestCheckUsagePytensorCache(t *testing.T) {
	t.Parallel()
	for mode, flags := range probeModes(t) {
		t.Run(mode, func(t *testing.T) {
			e := newEnv(t)
			e.vars["PINBOT_CACHE_DIR"] = t.TempDir()
			e.pypi.Add("numba", usageNumba("0.66.0", false), usageNumba("0.67.0", false), usageNumba("0.68.0", true))
			e.file("pyproject.toml", []byte("[project]\nname = \"pytensor\"\ndependencies = [\"numba>=0.58,<=0.66.0\"]\n"))
			e.file("pytensor/link/numba/cache.py", []byte(pytensorCache))
			e.file(".pinbot.yml", []byte("packages:\n  numba: {}\n"))
			code, out, stderr := e.run(append([]string{"check", "--dir", e.dir, "--format", "json", "--write"}, flags...)...)
			if code != exitCheck {
				t.Fatalf("exit %d, want 3\n%s\n%s", code, out, stderr)
			}
			var rep report.Report
			if err := json.Unmarshal([]byte(out), &rep); err != nil {
				t.Fatal(err)
			}
			p := rep.Packages[0]
			c := usageOf(p)
			if p.Status != "blocked" || p.Newest != "0.67.0" || c == nil {
				t.Fatalf("numba %s %s, checks %+v", p.Status, p.Newest, p.Checks)
			}
			want := "pytensor/link/numba/cache.py:22 replaces numba.core.bytecode.FunctionIdentity._unique_ids: passes at 0.66.0, missing at 0.68.0"
			if c.Verdict != "blocked" || c.OK || !strings.HasPrefix(c.Detail, want) || c.Uses != 4 || len(c.Broken) != 1 {
				t.Fatalf("usage check %+v, want detail %q", c, want)
			}
			b := c.Broken[0]
			if b.Name != "numba.core.bytecode.FunctionIdentity._unique_ids" || b.File != "pytensor/link/numba/cache.py" || b.Line != 22 ||
				b.Col != 18 || !b.Private || b.Guarded || b.Baseline != "passes" || b.Candidate != "missing" || b.Verdict != "blocked" || b.Kind != "assign" {
				t.Errorf("broken %+v", b)
			}
			if got := e.read("pyproject.toml"); !strings.Contains(got, `"numba>=0.58,<=0.67.0"`) {
				t.Errorf("--write wrote %q", got)
			}
			// The text report lists the place too.
			_, text, _ := e.run(append([]string{"check", "--dir", e.dir}, flags...)...)
			if !strings.Contains(text, "check usage references: ") {
				t.Errorf("text report:\n%s", text)
			}
		})
	}
}

// looksBroken is a numba whose 0.68.0 moves and deprecates names in ways that
// only look as if they broke the code using them: errors.NumbaWarning is
// re-exported from its new home, compat.get_numba is answered by a module
// __getattr__, types.Int is kept as a deprecated alias, and the code reaches
// legacy.removed only under try/except ImportError.
func looksBroken(version string, moved bool) fakes.Release {
	files := map[string][]byte{
		"numba/__init__.py":      nil,
		"numba/core/__init__.py": nil,
		"numba/core/errors.py":   []byte("class NumbaWarning(Warning):\n    pass\n"),
		"numba/core/compat.py":   []byte("def get_numba(x, *, strict=False):\n    return x\n"),
		"numba/core/types.py":    []byte("class Int:\n    pass\n"),
		"numba/core/legacy.py":   []byte("def removed():\n    return 1\n"),
	}
	if moved {
		files["numba/misc/__init__.py"] = nil
		files["numba/misc/errors.py"] = []byte("class NumbaWarning(Warning):\n    pass\n")
		files["numba/core/errors.py"] = []byte("from numba.misc.errors import NumbaWarning\n")
		files["numba/core/compat.py"] = []byte("def __getattr__(name):\n    if name == 'get_numba':\n        return lambda x, *, strict=False: x\n    raise AttributeError(name)\n")
		files["numba/core/types.py"] = []byte("import warnings\n\n\nclass Integer:\n    pass\n\n\nInt = Integer  # deprecated alias, kept\n")
		delete(files, "numba/core/legacy.py")
	}
	fn, data := fakes.Wheel("numba", version, "py3-none-any", files)
	return fakes.Release{Version: version, Artifacts: map[string][]byte{fn: data}}
}

const looksBrokenCode = `from numba.core.errors import NumbaWarning
from numba.core import compat
import numba.core.types as nt

try:
    from numba.core.legacy import removed
except ImportError:
    removed = None


def run(x):
    compat.get_numba(x, strict=True)
    return nt.Int, NumbaWarning
`

// TestCheckUsageLooksBroken: names re-exported elsewhere, moved behind a
// module __getattr__, kept as a deprecated alias, or reached under
// try/except ImportError never block the bump; what cannot be decided (a
// module __getattr__ read statically) and the guarded one that goes are
// warnings.
func TestCheckUsageLooksBroken(t *testing.T) {
	t.Parallel()
	for mode, flags := range probeModes(t) {
		t.Run(mode, func(t *testing.T) {
			e := newEnv(t)
			e.vars["PINBOT_CACHE_DIR"] = t.TempDir()
			e.pypi.Add("numba", looksBroken("0.67.0", false), looksBroken("0.68.0", true))
			e.file("requirements.txt", []byte("numba>=0.60,<=0.67.0\n"))
			e.file("src/app.py", []byte(looksBrokenCode))
			e.file(".pinbot.yml", []byte("packages:\n  numba: {}\n"))
			code, out, stderr := e.run(append([]string{"check", "--dir", e.dir, "--format", "json"}, flags...)...)
			if code != exitOK {
				t.Fatalf("exit %d, want 0 (a bump)\n%s\n%s", code, out, stderr)
			}
			var rep report.Report
			if err := json.Unmarshal([]byte(out), &rep); err != nil {
				t.Fatal(err)
			}
			p := rep.Packages[0]
			c := usageOf(p)
			if p.Status != "bump" || p.Newest != "0.68.0" || c == nil || c.Verdict != "warning" {
				t.Fatalf("numba %s %s, usage %+v", p.Status, p.Newest, c)
			}
			for _, b := range c.Broken {
				if b.Verdict == "blocked" {
					t.Errorf("blocked: %+v", b)
				}
				if strings.HasPrefix(b.Name, "numba.core.legacy") && !b.Guarded {
					t.Errorf("the guarded import is not marked so: %+v", b)
				}
			}
			var legacy bool
			for _, b := range c.Broken {
				legacy = legacy || b.Name == "numba.core.legacy.removed" && b.Candidate == "missing"
			}
			if !legacy {
				t.Errorf("the guarded name that goes is not listed: %+v", c.Broken)
			}
		})
	}
}

// TestCheckUsageNone: a repository whose code does not use the package gets
// no usage check, and usage: off turns a using one's off.
func TestCheckUsageNone(t *testing.T) {
	e := newEnv(t)
	e.vars["PINBOT_CACHE_DIR"] = t.TempDir()
	e.pypi.Add("numba", usageNumba("0.66.0", false), usageNumba("0.67.0", false), usageNumba("0.68.0", true))
	e.file("pyproject.toml", []byte("[project]\nname = \"x\"\ndependencies = [\"numba>=0.58,<=0.66.0\"]\n"))
	e.file("x/other.py", []byte("import numpy\nnumpy.zeros(3)\n"))
	e.file(".pinbot.yml", []byte("packages:\n  numba: {}\n"))
	code, out, stderr := e.run("check", "--dir", e.dir, "--format", "json", "--static")
	if code != exitOK || strings.Contains(out, `"kind": "usage"`) {
		t.Fatalf("no reference: exit %d\n%s\n%s", code, out, stderr)
	}
	e.file("pytensor/cache.py", []byte(pytensorCache))
	e.file(".pinbot.yml", []byte("packages:\n  numba: {usage: off}\n"))
	code, out, stderr = e.run("check", "--dir", e.dir, "--format", "json", "--static")
	if code != exitOK || strings.Contains(out, `"kind": "usage"`) {
		t.Fatalf("usage: off: exit %d\n%s\n%s", code, out, stderr)
	}
}

// manyRemoved is a numba whose 0.68.0 removes the n functions names()
// lists.
func manyRemoved(version string, n int, drop bool) fakes.Release {
	var b strings.Builder
	for i := range n {
		if !drop {
			fmt.Fprintf(&b, "def f%d():\n    return %d\n\n\n", i, i)
		}
	}
	b.WriteString("def kept():\n    return 0\n")
	fn, data := fakes.Wheel("numba", version, "py3-none-any", map[string][]byte{
		"numba/__init__.py": nil, "numba/core/__init__.py": nil, "numba/core/old.py": []byte(b.String()),
	})
	return fakes.Release{Version: version, Artifacts: map[string][]byte{fn: data}}
}

// TestRunUsageDraft: a blocked usage check makes the pull request a draft
// whose body lists the references that break, the first 20 and the rest
// counted; the check job's JSON report carries them to run --verdicts,
// which makes the same pull request without reading a wheel.
func TestRunUsageDraft(t *testing.T) {
	var code strings.Builder
	code.WriteString("from numba.core import old\n\n\ndef use():\n")
	for i := range 25 {
		fmt.Fprintf(&code, "    old.f%d()\n", i)
	}
	code.WriteString("    old.kept()\n")
	newUsageRunEnv := func() *runTestEnv {
		e := newRunEnvFiles(t, testConfig, map[string]string{"pytensor/uses.py": code.String()})
		e.vars["PINBOT_CACHE_DIR"] = t.TempDir()
		e.pypi.Add("numba", manyRemoved("0.66.0", 25, false), manyRemoved("0.67.0", 25, false), manyRemoved("0.68.0", 25, true))
		return e
	}
	checkBody := func(t *testing.T, e *runTestEnv) {
		t.Helper()
		p := e.gh.Pulls(testRepo)
		if len(p) != 1 || !p[0].Draft || p[0].Title != "Bump numba cap to 0.67.0 (a check failed)" {
			t.Fatalf("pull requests %+v", p)
		}
		for _, want := range []string{
			"**The code's references that break** (25 of 27 references checked):",
			"- ❌ `pytensor/uses.py`:5 calls `numba.core.old.f0`: passes → missing",
			"- ❌ `pytensor/uses.py`:24 calls `numba.core.old.f19`: passes → missing",
			"- … and 5 more references (the JSON report lists them)",
		} {
			if !strings.Contains(p[0].Body, want) {
				t.Errorf("the body lacks %q:\n%s", want, p[0].Body)
			}
		}
		if strings.Contains(p[0].Body, "old.f20`") {
			t.Errorf("the body lists more than 20 references:\n%s", p[0].Body)
		}
	}

	self := newUsageRunEnv()
	if c, out, stderr := self.run("--static"); c != exitCheck {
		t.Fatalf("exit %d, want 3\n%s\n%s", c, out, stderr)
	}
	checkBody(t, self)

	e := newUsageRunEnv()
	c, out, stderr := e.pinbot(t.Context(), "check", "--dir", e.dir, "--format", "json", "--static")
	if c != exitCheck {
		t.Fatalf("check: exit %d\n%s\n%s", c, out, stderr)
	}
	var rep report.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	u := usageOf(rep.Packages[0])
	if u == nil || u.Uses != 27 || len(u.Broken) != 25 || u.Verdict != "blocked" {
		t.Fatalf("usage check %+v", u)
	}
	path := writeReport(t, rep)
	fetched := e.wheelsFetched()
	if c, out, stderr := e.run("--verdicts", path); c != exitCheck {
		t.Fatalf("publish: exit %d, want 3\n%s\n%s", c, out, stderr)
	}
	if n := e.wheelsFetched() - fetched; n != 0 {
		t.Errorf("the publisher fetched %d wheels", n)
	}
	checkBody(t, e)
}

// TestInitUsage: pinbot init says, under each package, what its usage
// checks cover: how many names the code uses, and the private ones with
// their first place.
func TestInitUsage(t *testing.T) {
	e := newEnv(t)
	e.file("pyproject.toml", []byte("[project]\nname = \"pytensor\"\ndependencies = [\"numba>=0.58,<=0.66.0\"]\n"))
	e.file("pytensor/link/numba/cache.py", []byte(pytensorCache))
	if code, out, stderr := e.run("init", "--dir", e.dir); code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	written := e.read(".pinbot.yml")
	for _, want := range []string{
		"    usage: auto          # check every name the code uses from it at each new release (off: do not)\n",
		"    # The usage checks cover the 4 names the code uses from numba (pinbot usage lists them), two\n    #   private:\n",
		"    #   numba.core.caching._CacheLocator   pytensor/link/numba/cache.py:5 (import)\n",
		"    #   numba.core.bytecode.FunctionIdentity._unique_ids   pytensor/link/numba/cache.py:22 (assign)\n",
		"    # A probe adds what a name cannot show:",
	} {
		if !strings.Contains(written, want) {
			t.Errorf("init wrote no %q:\n%s", want, written)
		}
	}
}

// TestCheckUsageEarlyWarning: a package with references has checks, so
// its early warning is on: a pre-release that drops a name the code
// replaces is announced as blocked, with the usage check's evidence, and
// the cap still moves to the target, which keeps it.
func TestCheckUsageEarlyWarning(t *testing.T) {
	e := newEnv(t)
	e.vars["PINBOT_CACHE_DIR"] = t.TempDir()
	e.pypi.Add("numba", usageNumba("0.66.0", false), usageNumba("0.67.0", false), usageNumba("0.68.0rc1", true))
	e.file("pyproject.toml", []byte("[project]\nname = \"pytensor\"\ndependencies = [\"numba>=0.58,<=0.66.0\"]\n"))
	e.file("pytensor/link/numba/cache.py", []byte(pytensorCache))
	e.file(".pinbot.yml", []byte("packages:\n  numba: {}\n"))
	code, out, stderr := e.run("check", "--dir", e.dir, "--format", "json", "--static")
	if code != exitOK {
		t.Fatalf("exit %d, want 0 (a pre-release changes no exit code)\n%s\n%s", code, out, stderr)
	}
	var rep report.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	p := rep.Packages[0]
	if p.Status != "bump" || p.Newest != "0.67.0" || usageOf(p) == nil || usageOf(p).Verdict != "ok" {
		t.Fatalf("numba %s %s, checks %+v", p.Status, p.Newest, p.Checks)
	}
	pr := p.Prerelease
	if pr == nil || pr.Version != "0.68.0rc1" || pr.Verdict != "blocked" || pr.Baseline != "0.67.0" {
		t.Fatalf("early warning %+v", pr)
	}
	var c *report.Check
	for i := range pr.Checks {
		if pr.Checks[i].Kind == "usage" {
			c = &pr.Checks[i]
		}
	}
	if c == nil || c.Verdict != "blocked" || !strings.HasPrefix(c.Detail, "pytensor/link/numba/cache.py:22 replaces numba.core.bytecode.FunctionIdentity._unique_ids: passes at 0.67.0, missing at 0.68.0rc1") {
		t.Errorf("the early warning's usage check %+v", c)
	}
}

// sklearnRelease is a scikit-learn whose 1.6.0 moves
// BaseEstimator._validate_data to sklearn.utils.validation.validate_data.
func sklearnRelease(version string, moved bool) fakes.Release {
	base := "class BaseEstimator:\n    def _validate_data(self, X, y=None, reset=True):\n        return X\n\n    def get_params(self, deep=True):\n        return {}\n"
	files := map[string][]byte{"sklearn/__init__.py": nil, "sklearn/utils/__init__.py": nil,
		"sklearn/utils/validation.py": []byte("def check_array(a):\n    return a\n")}
	if moved {
		base = "class BaseEstimator:\n    def get_params(self, deep=True):\n        return {}\n"
		files["sklearn/utils/validation.py"] = []byte("def check_array(a):\n    return a\n\n\ndef validate_data(est, X, y=None, reset=True):\n    return X\n")
	}
	files["sklearn/base.py"] = []byte(base)
	fn, data := fakes.Wheel("scikit_learn", version, "py3-none-any", files)
	return fakes.Release{Version: version, Artifacts: map[string][]byte{fn: data}}
}

// mlirRelease is an MLIR binding whose 21.1.0 removes the private
// Context._get_live_operation_count (llvm/llvm-project#155114).
func mlirRelease(version string, removed bool) fakes.Release {
	ctx := "class Context:\n    def _get_live_operation_count(self):\n        return 0\n\n    def _get_live_module_count(self):\n        return 0\n"
	if removed {
		ctx = "class Context:\n    def _get_live_module_count(self):\n        return 0\n"
	}
	fn, data := fakes.Wheel("mlir_python_bindings", version, "py3-none-any", map[string][]byte{
		"mlir/__init__.py": nil, "mlir/ir.py": []byte(ctx),
	})
	return fakes.Release{Version: version, Artifacts: map[string][]byte{fn: data}}
}

// TestCheckUsageThroughInstancesAndSubclasses: a method reached through
// self in a subclass of a package class (scikit-learn's _validate_data) and
// through an instance the code makes (MLIR's ctx._get_live_operation_count())
// is checked on the class; the releases that remove them are blocked, the
// method that stays passes.
func TestCheckUsageThroughInstancesAndSubclasses(t *testing.T) {
	t.Parallel()
	estimator := "from sklearn.base import BaseEstimator\n\n\nclass Scaler(BaseEstimator):\n    def fit(self, X, y=None):\n" +
		"        X = self._validate_data(X, reset=True)\n        self.get_params()\n        return self\n"
	mlirTest := "from mlir.ir import Context\n\n\ndef test_live():\n    ctx = Context()\n    assert ctx._get_live_operation_count() == 0\n" +
		"    assert ctx._get_live_module_count() == 0\n"
	for mode, flags := range probeModes(t) {
		t.Run(mode, func(t *testing.T) {
			e := newEnv(t)
			e.vars["PINBOT_CACHE_DIR"] = t.TempDir()
			e.pypi.Add("scikit-learn", sklearnRelease("1.5.2", false), sklearnRelease("1.6.0", true))
			e.pypi.Add("mlir-python-bindings", mlirRelease("20.1.0", false), mlirRelease("21.1.0", true))
			e.file("requirements.txt", []byte("scikit-learn>=1.3,<=1.5.2\nmlir-python-bindings<=20.1.0\n"))
			e.file("pkg/scaler.py", []byte(estimator))
			e.file("tests/test_mlir.py", []byte(mlirTest))
			e.file(".pinbot.yml", []byte("packages:\n  scikit-learn: {}\n  mlir-python-bindings: {}\n"))
			code, out, stderr := e.run(append([]string{"check", "--dir", e.dir, "--format", "json"}, flags...)...)
			if code != exitCheck {
				t.Fatalf("exit %d, want 3\n%s\n%s", code, out, stderr)
			}
			var rep report.Report
			if err := json.Unmarshal([]byte(out), &rep); err != nil {
				t.Fatal(err)
			}
			want := map[string]string{
				"mlir-python-bindings": "tests/test_mlir.py:6 uses, on an instance, mlir.ir.Context._get_live_operation_count: passes at 20.1.0, missing at 21.1.0",
				"scikit-learn":         "pkg/scaler.py:6 uses, through a subclass, sklearn.base.BaseEstimator._validate_data: passes at 1.5.2, missing at 1.6.0",
			}
			for _, p := range rep.Packages {
				c := usageOf(p)
				if p.Status != "blocked" || c == nil || c.Verdict != "blocked" || !strings.HasPrefix(c.Detail, want[p.Name]) || len(c.Broken) != 1 {
					t.Errorf("%s %s, usage check %+v, want %q", p.Name, p.Status, c, want[p.Name])
				}
			}
		})
	}
}

// TestCheckUsageGroup: a group's member is judged with its usage check, as
// with probes: numba 0.67.0 drops the _unique_ids pytensor's code replaces,
// so the group has one verdict, blocked, and neither member's caps move.
func TestCheckUsageGroup(t *testing.T) {
	e := newEnv(t)
	e.vars["PINBOT_CACHE_DIR"] = t.TempDir()
	e.pypi.Add("numba", numbaWithLLVM("0.66.0", "llvmlite>=0.49", false), numbaWithLLVM("0.67.0", "llvmlite<0.51,>=0.50", true))
	e.pypi.Add("llvmlite", llvmliteWheel("0.49.0"), llvmliteWheel("0.50.0"), llvmliteWheel("0.50.1"), llvmliteWheel("0.51.0"))
	e.file("pyproject.toml", []byte("[project]\nname = \"x\"\ndependencies = [\"numba>=0.58,<=0.66.0\", \"llvmlite>=0.49,<=0.50.0\"]\n"))
	e.file("pytensor/link/numba/cache.py", []byte("from numba.core.bytecode import FunctionIdentity\n\nFunctionIdentity._unique_ids = iter(range(10))\n"))
	e.file(".pinbot.yml", []byte(groupConfig))
	code, rep, stderr := checkJSON(t, e, "--static")
	if code != exitCheck {
		t.Fatalf("exit %d, want 3\n%s", code, stderr)
	}
	numba, llvmlite := pkgOf(rep, "numba"), pkgOf(rep, "llvmlite")
	if c := usageOf(numba); c == nil || c.Verdict != "blocked" || rep.Groups[0].Status != "blocked" ||
		numba.Changed() || llvmlite.Changed() || !strings.Contains(llvmlite.Reason, "group numba-stack: checks failed on numba 0.67.0") {
		t.Errorf("numba %+v\nllvmlite %+v\ngroups %+v", numba, llvmlite, rep.Groups)
	}
}
