package probe

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
)

// buildWheel writes a pure-Python wheel of name==version with files (path → text)
// into dir, with METADATA, WHEEL and a RECORD that matches, and returns its path.
func buildWheel(t testing.TB, dir, name, version string, files map[string]string) string {
	t.Helper()
	dist := strings.ReplaceAll(normName(name), "-", "_")
	info := fmt.Sprintf("%s-%s.dist-info/", dist, version)
	all := map[string]string{}
	for p, s := range files {
		all[p] = s
	}
	all[info+"METADATA"] = fmt.Sprintf("Metadata-Version: 2.1\nName: %s\nVersion: %s\n", name, version)
	all[info+"WHEEL"] = "Wheel-Version: 1.0\nGenerator: pinbot-test\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
	names := make([]string, 0, len(all))
	for p := range all {
		names = append(names, p)
	}
	sort.Strings(names)
	var record strings.Builder
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, p := range names {
		data := []byte(all[p])
		sum := sha256.Sum256(data)
		fmt.Fprintf(&record, "%s,sha256=%s,%d\n", p, base64.RawURLEncoding.EncodeToString(sum[:]), len(data))
		w, err := zw.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(data)
	}
	record.WriteString(info + "RECORD,,\n")
	w, _ := zw.Create(info + "RECORD")
	w.Write([]byte(record.String()))
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, fmt.Sprintf("%s-%s-py3-none-any.whl", dist, version))
	if err := os.WriteFile(out, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}

// serveIndex serves the wheels in dir as a PEP 503 simple index at /simple/.
func serveIndex(t testing.TB, dir string) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/simple/", func(w http.ResponseWriter, r *http.Request) {
		project := strings.Trim(strings.TrimPrefix(r.URL.Path, "/simple/"), "/")
		entries, _ := os.ReadDir(dir)
		var links []string
		for _, e := range entries {
			m := wheelName().FindStringSubmatch(e.Name())
			switch {
			case m == nil:
			case project == "":
				links = append(links, fmt.Sprintf("<a href=\"/simple/%s/\">%s</a>", normName(m[1]), m[1]))
			case normName(m[1]) == normName(project):
				data, _ := os.ReadFile(filepath.Join(dir, e.Name()))
				sum := sha256.Sum256(data)
				links = append(links, fmt.Sprintf("<a href=\"/files/%s#sha256=%s\">%s</a>", e.Name(), hex.EncodeToString(sum[:]), e.Name()))
			}
		}
		if project != "" && len(links) == 0 {
			http.NotFound(w, r)
			return
		}
		fmt.Fprintf(w, "<!DOCTYPE html><html><body>\n%s\n</body></html>\n", strings.Join(links, "\n"))
	})
	mux.Handle("/files/", http.StripPrefix("/files/", http.FileServer(http.Dir(dir))))
	srv := httptest.NewServer(mux)
	return srv
}

// testPython returns the python3 to run dynamic tests with. Tests skip when there
// is none, but fail when PINBOT_INTEGRATION=1 (CI must run them).
func testPython(t testing.TB) string {
	t.Helper()
	p := testPythonPath()
	if p == "" {
		if os.Getenv("PINBOT_INTEGRATION") == "1" {
			t.Fatal("PINBOT_INTEGRATION=1 but python3 is not on PATH")
		}
		t.Skip("python3 not on PATH")
	}
	return p
}

// testPythonPath is $PINBOT_PYTHON, else python3 on PATH, else "".
func testPythonPath() string {
	if p := os.Getenv("PINBOT_PYTHON"); p != "" {
		return p
	}
	p, _ := exec.LookPath("python3")
	return p
}

// fixtures are the test wheels, built once per test binary into one directory,
// with one index server and one environment cache shared by the dynamic tests
// (each environment is keyed by package, version, Python and index, so sharing
// is what a real cache does).
type fixtures struct {
	dir      string // wheels
	cache    string
	pidFile  string // where hangpkg writes its child's pid
	srv      *httptest.Server
	indexURL string
}

var (
	fixOnce sync.Once
	fix     *fixtures
	fixRoot string
)

func TestMain(m *testing.M) {
	code := m.Run()
	if fix != nil {
		fix.srv.Close()
	}
	if fixRoot != "" {
		os.RemoveAll(fixRoot)
	}
	os.Exit(code)
}

func getFixtures(t testing.TB) *fixtures {
	t.Helper()
	fixOnce.Do(func() {
		root, err := os.MkdirTemp("", "pinbot-probe-test-*")
		if err != nil {
			t.Fatal(err)
		}
		fixRoot = root
		f := &fixtures{dir: filepath.Join(root, "wheels"), cache: filepath.Join(root, "cache"), pidFile: filepath.Join(root, "hang.pid")}
		os.MkdirAll(f.dir, 0o755)
		for _, w := range testWheels(f.pidFile) {
			buildWheel(t, f.dir, w.name, w.version, w.files)
		}
		f.srv = serveIndex(t, f.dir)
		f.indexURL = f.srv.URL + "/simple/"
		fix = f
	})
	if fix == nil {
		t.Fatal("fixtures failed to build")
	}
	return fix
}

type testWheel struct {
	name, version string
	files         map[string]string
}

func testWheels(pidFile string) []testWheel {
	numba := func(version, bytecode string) testWheel {
		return testWheel{"numba", version, map[string]string{
			"numba/__init__.py":       fmt.Sprintf("__version__ = %q\nfrom numba.core import config  # noqa: F401\n", version),
			"numba/core/__init__.py":  "",
			"numba/core/config.py":    "DEBUG = False\n",
			"numba/core/errors.py":    "class ByteCodeSupportError(Exception):\n    pass\n",
			"numba/core/utils.py":     "import inspect\n\npysignature = inspect.signature\n_dynamic_modname = '<dynamic>'\n",
			"numba/core/serialize.py": serializePy,
			"numba/core/bytecode.py":  bytecode,
		}}
	}
	mlir := func(version, ir string) testWheel {
		return testWheel{"mlir", version, map[string]string{
			"mlir/__init__.py":                  "",
			"mlir/ir.py":                        "from ._mlir_libs._mlir.ir import *  # noqa: F403\n",
			"mlir/_mlir_libs/__init__.py":       "",
			"mlir/_mlir_libs/_mlir/__init__.py": "",
			"mlir/_mlir_libs/_mlir/ir.py":       ir,
		}}
	}
	return append([]testWheel{
		numba("0.66.0", bytecodeGood),
		numba("0.67.0", bytecodeGood),
		numba("0.68.0", bytecodeNoUniqueIDs),
		numba("0.69.0", bytecodeNoNext),
		mlir("20.1.0", mlirOld),
		mlir("21.1.0", mlirNew),
		{"hangpkg", "1.0", map[string]string{"hangpkg/__init__.py": fmt.Sprintf(hangPy, pidFile)}},
		{"loudpkg", "1.0", map[string]string{"loudpkg/__init__.py": loudPy}},
		{"tokenpkg", "1.0", map[string]string{"tokenpkg/__init__.py": tokenPy}},
		protobuf("3.20.0", protobufDescriptor320),
		protobuf("4.21.0", protobufDescriptor421),
		{"tcpkg", "1.0", map[string]string{"tcpkg/__init__.py": "", "tcpkg/api.py": tcAPI10, "tcpkg/lazy.py": tcLazy10}},
		{"tcpkg", "2.0", map[string]string{"tcpkg/__init__.py": "", "tcpkg/api.py": tcAPI20, "tcpkg/lazy.py": tcLazy20}},
	}, append(useWheels(), benchUseWheels()...)...)
}

func protobuf(version, descriptor string) testWheel {
	return testWheel{"protobuf", version, map[string]string{
		"google/protobuf/__init__.py":   fmt.Sprintf("__version__ = %q\n", version),
		"google/protobuf/descriptor.py": descriptor,
	}}
}

// protobufDescriptor320 lets old generated _pb2 code make descriptors, as
// protobuf 3.20 did.
const protobufDescriptor320 = `class FieldDescriptor:
    def __init__(self, name, full_name, index, create_key=None, **kwargs):
        self.name, self.full_name, self.index = name, full_name, index
`

// protobufDescriptor421 refuses them with protobuf 4.21's message, word for word.
const protobufDescriptor421 = `_internal_create_key = object()

_MESSAGE = """Descriptors cannot not be created directly.
If this call came from a _pb2.py file, your generated code is out of date and must be regenerated with protoc >= 3.19.0.
If you cannot immediately regenerate your protos, some other possible workarounds are:
 1. Downgrade the protobuf package to 3.20.x or lower.
 2. Set PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION=python (but this will use pure-Python parsing and will be much slower).

More information: https://developers.google.com/protocol-buffers/docs/news/2022-05-06#python-updates"""


class FieldDescriptor:
    def __new__(cls, name, full_name, index, create_key=None, **kwargs):
        if create_key is not _internal_create_key:
            raise TypeError(_MESSAGE)
        return super().__new__(cls)
`

// tcAPI10 binds its names plainly; tcAPI20 moves some under the three
// spellings of typing.TYPE_CHECKING, which is False at run time.
const tcAPI10 = `from collections import OrderedDict as Registry


def helper():
    pass


class Hook:
    pass


Fallback = None
Annotation = object
`

const tcAPI20 = `import typing
from typing import TYPE_CHECKING
from typing import TYPE_CHECKING as TC

if TYPE_CHECKING:
    from collections import OrderedDict as Registry

if typing.TYPE_CHECKING:
    def helper():
        pass

if TC:
    class Hook:
        pass
else:
    Fallback = None

if TYPE_CHECKING:
    Annotation = type
else:
    Annotation = object
`

const tcLazy10 = `class Hook:
    pass
`

// tcLazy20 answers the name lazily, through a module __getattr__.
const tcLazy20 = `from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .api import Hook


def __getattr__(name):
    if name == "Hook":
        class Hook:
            pass
        return Hook
    raise AttributeError(name)
`

const serializePy = `class ReduceMixin(object):
    """Picklable via _reduce_states / _rebuild."""

    def _reduce_states(self):
        raise NotImplementedError

    def __reduce__(self):
        return (self._rebuild, tuple(self._reduce_states().items()))
`

// bytecodeGood is numba/core/bytecode.py as in 0.56-0.67 (trimmed to what matters).
const bytecodeGood = `from collections import namedtuple, OrderedDict
import dis
import inspect
import itertools
from types import CodeType, ModuleType

from numba.core import errors, utils, serialize


def get_function_object(obj):
    attr = getattr(obj, "__numba__", None)
    if attr:
        return getattr(obj, attr)
    return obj


def get_code_object(obj):
    return getattr(obj, '__code__', getattr(obj, 'func_code', None))


class FunctionIdentity(serialize.ReduceMixin):
    """
    A function's identity and metadata.
    """
    _unique_ids = itertools.count(1)

    @classmethod
    def from_function(cls, pyfunc):
        """
        Create the FunctionIdentity of the given function.
        """
        func = get_function_object(pyfunc)
        code = get_code_object(func)
        pysig = utils.pysignature(func)
        if not code:
            raise errors.ByteCodeSupportError(
                "%s does not provide its bytecode" % func)

        try:
            func_qualname = func.__qualname__
        except AttributeError:
            func_qualname = func.__name__

        self = cls()
        self.func = func
        self.func_qualname = func_qualname
        self.func_name = func_qualname.split('.')[-1]
        self.code = code
        self.module = inspect.getmodule(func)
        self.modname = (utils._dynamic_modname
                        if self.module is None
                        else self.module.__name__)
        self.is_generator = inspect.isgeneratorfunction(func)
        self.pysig = pysig
        self.filename = code.co_filename
        self.firstlineno = code.co_firstlineno
        self.arg_count = len(pysig.parameters)
        self.arg_names = list(pysig.parameters)

        # Even the same function definition can be compiled into
        # several different function objects with distinct closure
        # variables, so we make sure to disambiguate using an unique id.
        uid = next(cls._unique_ids)
        self.unique_name = '{}${}'.format(self.func_qualname, uid)
        self.unique_id = uid

        return self

    def derive(self):
        """Copy the object and increment the unique counter."""
        return self.from_function(self.func)
`

// bytecodeNoUniqueIDs drops the class attribute for a module-level counter.
var bytecodeNoUniqueIDs = strings.NewReplacer(
	"    _unique_ids = itertools.count(1)\n", "",
	"uid = next(cls._unique_ids)", "uid = _next_uid()",
	"class FunctionIdentity(", "_uid_counter = itertools.count(1)\n\n\ndef _next_uid():\n    return next(_uid_counter)\n\n\nclass FunctionIdentity(",
).Replace(bytecodeGood)

// bytecodeNoNext keeps _unique_ids but derives the uid without it.
var bytecodeNoNext = strings.Replace(bytecodeGood, "uid = next(cls._unique_ids)",
	"uid = hash((func_qualname, self.firstlineno)) & 0xFFFFFFFF", 1)

const mlirOld = `class Context:
    @staticmethod
    def _get_live_count():
        return 1

    def _get_context_again(self):
        return self

    def _get_live_operation_count(self):
        return 0

    def _get_live_operation_objects(self):
        return []

    def _clear_live_operations(self):
        return 0

    def _clear_live_operations_inside(self, op=None):
        return 0

    def _get_live_module_count(self):
        return 0


class Module:
    pass
`

const mlirNew = `class Context:
    @staticmethod
    def _get_live_count():
        return 1

    def _get_context_again(self):
        return self

    def _get_live_module_count(self):
        return 0


class Module:
    def _clear_mlir_module(self):
        pass
`

const hangPy = `import subprocess, sys, time
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"])
with open(%q, "w") as f:
    f.write(str(child.pid))
time.sleep(300)
VALUE = 1
`

const loudPy = `import os, sys
chunk = "x" * (1 << 20)
for _ in range(100):
    sys.stdout.write(chunk)
sys.stdout.flush()
os.write(1, b"y" * (1 << 20))
VALUE = 42
`

const tokenPy = `import os
LEAKED = sorted(k for k in os.environ
                if any(s in k.upper() for s in ("TOKEN", "SECRET", "PASSWORD", "KEY", "WEBHOOK"))
                or k.upper().startswith(("GITHUB_", "AWS_", "GOOGLE_", "AZURE_", "SLACK_")))
if LEAKED:
    raise RuntimeError("secrets leaked into the probe: %s" % LEAKED)
HOME = os.environ.get("HOME")
`
