package main

import (
	"strings"
	"testing"

	"github.com/pinbot-dev/pinbot/internal/fakes"
)

// auditRelease is auditpkg, whose 2.0 turns the class core.Turned into a
// function that still accepts the calls the code makes.
func auditRelease(version string, extra map[string]string) fakes.Release {
	core := "class Turned:\n    label = \"t\"\n\n    def __init__(self, n=0):\n        self.n = n\n"
	if version >= "2.0" {
		core = "def Turned(n=0):\n    return n\n"
	}
	files := map[string][]byte{
		"auditpkg/__init__.py": []byte("__version__ = \"" + version + "\"\n__all__ = [\"x\"]\n\n\ndef x():\n    return 1\n"),
		"auditpkg/core.py":     []byte(core),
	}
	for k, v := range extra {
		files[k] = []byte(v)
	}
	fn, data := fakes.Wheel("auditpkg", version, "py3-none-any", files)
	return fakes.Release{Version: version, Artifacts: map[string][]byte{fn: data}}
}

// auditEnv is a repository pinning auditpkg<=1.0 with the Python files
// given, against auditpkg 1.0 and 2.0.
func auditEnv(t *testing.T, files map[string]string) *env {
	e := newEnv(t)
	e.vars["PINBOT_CACHE_DIR"] = t.TempDir()
	e.pypi.Add("auditpkg", auditRelease("1.0", nil), auditRelease("2.0", nil))
	e.file("requirements.txt", []byte("auditpkg<=1.0\n"))
	e.file(".pinbot.yml", []byte("packages:\n  auditpkg: {}\n"))
	for name, src := range files {
		e.file(name, []byte(src))
	}
	return e
}

// TestCheckUsageClassBecameFunction: a class that became a function breaks
// the code that subclasses it, not the code that only imports it and calls
// it the way the function still accepts; the blocked reference says what
// the name is at each version, never "passes ... passes".
func TestCheckUsageClassBecameFunction(t *testing.T) {
	t.Parallel()
	for mode, flags := range probeModes(t) {
		t.Run(mode, func(t *testing.T) {
			e := auditEnv(t, map[string]string{"src/app.py": "from auditpkg.core import Turned\n\n\ndef make():\n    return Turned()\n"})
			code, rep, stderr := checkJSON(t, e, flags...)
			p := pkgOf(rep, "auditpkg")
			c := usageOf(p)
			if code != exitOK || p.Status != "bump" || p.Newest != "2.0" || c == nil || c.Verdict == "blocked" || c.Uses != 2 {
				t.Fatalf("calls only: exit %d, auditpkg %s %s, usage %+v\n%s", code, p.Status, p.Newest, c, stderr)
			}
			for _, b := range c.Broken {
				if b.Verdict == "blocked" || b.Baseline == "passes" && b.Candidate == "passes" {
					t.Errorf("calls only: %+v", b)
				}
			}

			e = auditEnv(t, map[string]string{"src/app.py": "from auditpkg.core import Turned\n\n\nclass Mine(Turned):\n    pass\n"})
			code, rep, stderr = checkJSON(t, e, flags...)
			p = pkgOf(rep, "auditpkg")
			c = usageOf(p)
			want := "src/app.py:4 subclasses auditpkg.core.Turned: a class at 1.0, a function at 2.0"
			if code != exitCheck || p.Status != "blocked" || c == nil || c.Verdict != "blocked" || !strings.HasPrefix(c.Detail, want) {
				t.Fatalf("a subclass: exit %d, auditpkg %s, usage %+v, want detail %q\n%s", code, p.Status, c, want, stderr)
			}
			for _, b := range c.Broken {
				if b.Verdict == "blocked" && (b.Kind != "base" || b.Baseline != "a class" || b.Candidate != "a function" || b.Line != 4 || b.Col != 12) {
					t.Errorf("a subclass: %+v", b)
				}
			}
		})
	}
}

// versionIdiom reads auditpkg's version the usual ways, and its metadata.
const versionIdiom = `import auditpkg

V = auditpkg.__version__.split(".")
if auditpkg.__version__.startswith("1."):
    OLD = True
HERE = auditpkg.__file__.rsplit("/", 1)[0]
NAMES = auditpkg.__all__.copy() if hasattr(auditpkg, "__all__") else []
v = auditpkg.__version__
v.split(".")
auditpkg.x()
`

// TestUsageVersionIdiom: the attributes of a module's metadata values
// (auditpkg.__version__.split) are str's, not the package's: pinbot usage
// lists auditpkg.__version__ and stops there, and pinbot check gives no
// warning for them (static: a value computed at run time; dynamic: no
// signature for str.startswith).
func TestUsageVersionIdiom(t *testing.T) {
	t.Parallel()
	e := auditEnv(t, map[string]string{"src/version.py": versionIdiom})
	code, out, stderr := e.run("usage", "--dir", e.dir)
	want := `auditpkg: 8 references in 1 file
  src/version.py:1:8  import  auditpkg
  src/version.py:3:14  attribute  auditpkg.__version__
  src/version.py:4:13  attribute  auditpkg.__version__
  src/version.py:6:17  attribute  auditpkg.__file__
  src/version.py:7:18  attribute  auditpkg.__all__  guarded
  src/version.py:7:55  attribute  auditpkg.__all__  guarded
  src/version.py:8:14  attribute  auditpkg.__version__
  src/version.py:10:10  call  auditpkg.x

1 Python file read
`
	if code != exitOK || out != want {
		t.Errorf("usage: exit %d\n%s\nwant\n%s\n%s", code, out, want, stderr)
	}
	for mode, flags := range probeModes(t) {
		t.Run(mode, func(t *testing.T) {
			code, rep, stderr := checkJSON(t, e, flags...)
			p := pkgOf(rep, "auditpkg")
			c := usageOf(p)
			if code != exitOK || p.Status != "bump" || c == nil || c.Verdict != "ok" || len(c.Broken) != 0 || c.Uses != 8 {
				t.Errorf("exit %d, auditpkg %s, usage %+v\n%s", code, p.Status, c, stderr)
			}
			// An ok usage check still says how many references it checked,
			// and that none broke.
			_, out, _ := e.run(append([]string{"check", "--dir", e.dir, "--format", "json"}, flags...)...)
			if !strings.Contains(out, `"uses": 8,`+"\n"+`          "broken": []`) {
				t.Errorf("the ok usage check's JSON lacks uses and broken:\n%s", out)
			}
		})
	}
}

// versionBound binds names from auditpkg's version, at module and function
// level, and tests them.
const versionBound = `import auditpkg
from packaging.version import Version

V = tuple(map(int, auditpkg.__version__.split(".")[:2]))
MAJOR, MINOR = map(int, auditpkg.__version__.split(".")[:2])
PARTS = tuple(int(p) for p in auditpkg.__version__.split("."))
LABEL = "x"


def f():
    v = Version(auditpkg.__version__)
    if v >= Version("2.0"):
        auditpkg.in_function


if V >= (2, 0):
    auditpkg.after_tuple
elif MINOR > 5:
    auditpkg.after_minor
if PARTS[0] > 1:
    auditpkg.after_parts
if LABEL == "x":
    auditpkg.unguarded
`

// TestUsageVersionBoundName: a name bound from the package's version
// (tuple(map(int, numba.__version__.split(".")))) tested in an if is a
// version test of the package: what the if runs is guarded.
func TestUsageVersionBoundName(t *testing.T) {
	e := auditEnv(t, map[string]string{"src/compat.py": versionBound})
	code, out, stderr := e.run("usage", "--dir", e.dir)
	want := `auditpkg: 10 references in 1 file
  src/compat.py:1:8  import  auditpkg
  src/compat.py:4:29  attribute  auditpkg.__version__
  src/compat.py:5:34  attribute  auditpkg.__version__
  src/compat.py:6:40  attribute  auditpkg.__version__
  src/compat.py:11:26  attribute  auditpkg.__version__
  src/compat.py:13:18  attribute  auditpkg.in_function  guarded
  src/compat.py:17:14  attribute  auditpkg.after_tuple  guarded
  src/compat.py:19:14  attribute  auditpkg.after_minor  guarded
  src/compat.py:21:14  attribute  auditpkg.after_parts  guarded
  src/compat.py:23:14  attribute  auditpkg.unguarded

1 Python file read
`
	if code != exitOK || out != want {
		t.Errorf("usage: exit %d\n%s\nwant\n%s\n%s", code, out, want, stderr)
	}
}

// TestUsageBuildOutput: setuptools' build output (build/lib,
// build/lib.linux-x86_64-cpython-312, build/bdist.linux-x86_64) holds
// copies of the package's sources, not read twice even when .gitignore
// does not ignore it; the rest of build/ (scripts, pin files) is the
// project's own and still read.
func TestUsageBuildOutput(t *testing.T) {
	src := "import auditpkg\nauditpkg.x()\n"
	e := auditEnv(t, map[string]string{
		"src/app/core.py":                                src,
		"build/lib/app/core.py":                          src,
		"build/lib.linux-x86_64-cpython-312/app/core.py": src,
		"build/bdist.linux-x86_64/wheel/app/core.py":     src,
		"pkg/build/lib/app/core.py":                      src,
		"build/scripts/make_wheels.py":                   src,
		"build/requirements.txt":                         "auditpkg<=1.0\n",
		"build/library/keep.py":                          src,
	})
	code, out, stderr := e.run("usage", "--dir", e.dir)
	want := `auditpkg: 6 references in 3 files
  build/library/keep.py:1:8  import  auditpkg
  build/library/keep.py:2:10  call  auditpkg.x
  build/scripts/make_wheels.py:1:8  import  auditpkg
  build/scripts/make_wheels.py:2:10  call  auditpkg.x
  src/app/core.py:1:8  import  auditpkg
  src/app/core.py:2:10  call  auditpkg.x

3 Python files read
`
	if code != exitOK || out != want {
		t.Errorf("usage: exit %d\n%s\nwant\n%s\n%s", code, out, want, stderr)
	}
	code, rep, stderr := checkJSON(t, e, "--static")
	p := pkgOf(rep, "auditpkg")
	var files []string
	for _, pin := range p.Pins {
		files = append(files, pin.File)
	}
	if code != exitOK || strings.Join(files, " ") != "build/requirements.txt requirements.txt" {
		t.Errorf("check: exit %d, pins in %v, want build/requirements.txt's and requirements.txt's\n%s", code, files, stderr)
	}
	if c := usageOf(p); c == nil || c.Uses != 6 {
		t.Errorf("usage check %+v, want 6 references", c)
	}
}
