# pinbot internal-API probe runner. Embedded in the pinbot binary and run as
#   python -I -X utf8 pinbot_probe.py < request.json
# in the environment under test. It must work on every Python 3 pinbot supports
# (3.8 and later) with the standard library only.
#
# Protocol: the request on stdin is {"package": str, "want_version": bool,
# "tail": int, "probes": [probe], "uses": [use]} with probe = {"i", "name",
# "path", "expect", "source_contains", "signature", "run"} and use = {"i",
# "module", "attrs", "target", "instance", "call", "bound"}. Results are JSON
# lines on the original stdout: first {"python", "executable", "version",
# "requires", "dists"} (the package's version and Requires-Dist and every
# installed distribution, when asked for), then per path probe {"start": i}
# and {"i", "status", "detail"} (with "signature": {"text", "params": [{"name",
# "kind", "default", "annotation"}], "returns"} for a probe with a signature,
# which pinbot compares), then per use {"ustart": i} and {"u", "status",
# "kind", "detail", "callable", "deprecated", "sig": ["1x", "3=mode", ...] or
# "nosig": why, "self"} (a signature as a kind digit, "=" for a default and
# the name, which pinbot binds the call to), then the snippets as probes, last
# {"done": true}. Everything else the process prints (the code under test
# included) goes to stderr, so a package printing at import cannot corrupt the
# results.
import os
import sys

_out = os.fdopen(os.dup(1), "w", encoding="utf-8", buffering=1)
sys.stdout.flush()
os.dup2(2, 1)

# Only cheap imports up front: a warm probe run should cost little more than the
# import of the package under test (inspect, traceback and importlib.metadata
# are imported when needed).
import collections  # noqa: E402
import collections.abc  # noqa: E402
import contextlib  # noqa: E402
import importlib  # noqa: E402
import json  # noqa: E402
import types  # noqa: E402

TAIL = 2000


def emit(obj):
    _out.write(json.dumps(obj) + "\n")
    _out.flush()


def clip_head(s, n=None):
    """s cut to its first n characters: a detail starts with what matters most."""
    n = n or TAIL
    s = str(s)
    return s if len(s) <= n else s[:n] + "..."


def ismodule(obj):
    return isinstance(obj, types.ModuleType)


def isclass(obj):
    return isinstance(obj, type)


def describe(obj):
    if ismodule(obj):
        return "module %s" % obj.__name__
    if isclass(obj):
        return "class %s.%s" % (obj.__module__, obj.__qualname__)
    t = type(obj)
    mod = t.__module__
    name = t.__qualname__ if mod == "builtins" else "%s.%s" % (mod, t.__qualname__)
    return "a value of type %s" % name


def exc_text(e, n=1000):
    """The exception's type and first line whole (up to TAIL), then as much
    of the rest of its message as fits in n: the first line is what users
    search for ("TypeError: Descriptors cannot not be created directly.")."""
    import traceback
    text = "".join(traceback.format_exception_only(type(e), e)).strip()
    first = text.split("\n", 1)[0]
    return clip_head(text, min(max(n, len(first)), TAIL))


class Undecided(Exception):
    pass


class Failed(Exception):
    pass


class Missing(Failed):
    """A segment of the path does not exist (as opposed to an import that raised)."""


def resolve(path):
    parts = path.split(".")
    try:
        obj = importlib.import_module(parts[0])
    except ModuleNotFoundError as e:
        if e.name == parts[0]:
            raise Missing("segment 1 %r: no module named %r" % (parts[0], parts[0]))
        raise Failed("importing %s raised %s" % (parts[0], exc_text(e)))
    except BaseException as e:
        raise Failed("importing %s raised %s" % (parts[0], exc_text(e)))
    for i in range(1, len(parts)):
        name, prefix, here = parts[i], ".".join(parts[: i + 1]), ".".join(parts[:i])
        try:
            found = hasattr(obj, name)
        except BaseException as e:
            raise Failed("getting %s raised %s" % (prefix, exc_text(e)))
        if found:
            obj = getattr(obj, name)
            continue
        if ismodule(obj):
            try:
                obj = importlib.import_module(prefix)
                continue
            except ModuleNotFoundError as e:
                if e.name != prefix:
                    raise Failed("importing %s raised %s" % (prefix, exc_text(e)))
            except BaseException as e:
                raise Failed("importing %s raised %s" % (prefix, exc_text(e)))
        raise Missing("segment %d %r is missing: %s (%s) has no attribute %r"
                      % (i + 1, name, here, describe(obj), name))
    return obj


def type_matches(obj, name):
    for c in type(obj).__mro__:
        if name in (c.__name__, c.__qualname__, "%s.%s" % (c.__module__, c.__qualname__)):
            return True
    return False


def check_expect(obj, expect):
    if expect in ("", "exists"):
        return
    if expect == "module":
        ok, want = ismodule(obj), "a module"
    elif expect == "class":
        ok, want = isclass(obj), "a class"
    elif expect == "callable":
        ok, want = callable(obj), "a callable"
    elif expect == "iterator":
        ok, want = isinstance(obj, collections.abc.Iterator), "an iterator"
    elif expect.startswith("type:"):
        ok, want = type_matches(obj, expect[5:]), "an instance of %s" % expect[5:]
    else:
        raise Undecided("unknown expect kind %r" % expect)
    if not ok:
        raise Failed("expected %s, found %s" % (want, describe(obj)))


def squash(s):
    return "".join(s.split())


def ann_text(a):
    import inspect
    if a is inspect.Parameter.empty or a is inspect.Signature.empty:
        return None
    if isinstance(a, str):
        return a
    return inspect.formatannotation(a)


def probe_path(p):
    """Returns the detail and extra fields of a passing look-up; raises otherwise."""
    expect = p.get("expect", "")
    if expect == "absent":
        try:
            obj = resolve(p["path"])
        except Missing as e:
            return "absent: %s" % e, {}
        except Failed as e:
            raise Undecided("cannot tell whether %s exists: %s" % (p["path"], e))
        raise Failed("%s exists: found %s" % (p["path"], describe(obj)))
    if expect == "instance-attribute":
        return instance_attribute(p["path"]), {}
    obj = resolve(p["path"])
    check_expect(obj, expect)
    notes = ["found %s" % describe(obj)]
    extra = {}
    text = p.get("source_contains")
    if text:
        import inspect
        try:
            src = inspect.getsource(obj)
        except (OSError, TypeError) as e:
            raise Undecided("source not available: %s" % exc_text(e))
        if text not in src:
            raise Failed("source of %s no longer contains %r" % (p["path"], text))
        notes.append("source contains %r" % text)
    if p.get("signature"):
        import inspect
        try:
            sig = inspect.signature(obj)
        except (ValueError, TypeError) as e:
            raise Undecided("signature not available: %s" % exc_text(e))
        extra["signature"] = {
            "text": str(sig),
            "params": [{"name": q.name, "kind": q.kind.name, "default": q.default is not q.empty,
                        "annotation": ann_text(q.annotation)} for q in sig.parameters.values()],
            "returns": ann_text(sig.return_annotation),
        }
    return "; ".join(notes), extra


def statements(body):
    """Every statement in body, into compound statements but not into defs or classes."""
    import ast
    for s in body:
        yield s
        if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        for child in ast.iter_child_nodes(s):
            if isinstance(child, ast.stmt):
                yield from statements([child])
            elif isinstance(getattr(child, "body", None), list):
                yield from statements(child.body)


def self_assignment(cls_node, attr):
    """The line of the first method statement that assigns self.<attr>, or None.
    Methods are the defs of the class body (not static or class methods); self is
    their first parameter; nested functions do not count."""
    import ast

    def targets(t):
        if isinstance(t, (ast.Tuple, ast.List)):
            for e in t.elts:
                yield from targets(e)
        elif isinstance(t, ast.Starred):
            yield from targets(t.value)
        else:
            yield t

    for fn in statements(cls_node.body):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        if any(isinstance(d, ast.Name) and d.id in ("staticmethod", "classmethod") for d in fn.decorator_list):
            continue
        params = fn.args.posonlyargs + fn.args.args
        if not params:
            continue
        me = params[0].arg
        for st in statements(fn.body):
            if isinstance(st, ast.Assign):
                ts = st.targets
            elif isinstance(st, ast.AnnAssign) and st.value is not None:
                ts = [st.target]
            elif isinstance(st, ast.AugAssign):
                ts = [st.target]
            else:
                continue
            for t in ts:
                for e in targets(t):
                    if isinstance(e, ast.Attribute) and e.attr == attr and isinstance(e.value, ast.Name) and e.value.id == me:
                        return st.lineno
    return None


def instance_attribute(path):
    parent, _, attr = path.rpartition(".")
    cls = resolve(parent)
    if not isclass(cls):
        raise Failed("expected a class at %s, found %s" % (parent, describe(cls)))
    return instance_attribute_of(cls, attr)


_TREES = {}  # source file -> its parsed module, or the exception parsing it raised


def class_source(c):
    """The ClassDef of class c and the line its source starts at, less one
    for the lines of the node: its module's source, parsed once for all the
    classes in it (for uses, 2,000 of them), else inspect's for the class."""
    import ast
    import inspect
    import linecache
    import textwrap
    q = c.__qualname__
    mod = sys.modules.get(c.__module__)
    file = inspect.getsourcefile(c) if mod is not None and "<locals>" not in q else None
    if file:
        tree = _TREES.get(file)
        if tree is None:
            try:
                tree = ast.parse("".join(linecache.getlines(file, vars(mod))))
            except BaseException as e:
                tree = e
            _TREES[file] = tree
        if isinstance(tree, BaseException):
            raise tree
        body, node = tree.body, None
        for part in q.split("."):
            found = [n for n in statements(body) if isinstance(n, ast.ClassDef) and n.name == part]
            if not found:
                node = None
                break
            node = found[-1]
            body = node.body
        if node is not None:
            return node, 1
    lines, start = inspect.getsourcelines(c)
    return ast.parse(textwrap.dedent("".join(lines))).body[0], start


def instance_attribute_of(cls, attr):
    """Why an instance of cls has attr (a method of cls or a base assigns
    self.attr); raises Failed when none does, Undecided when that cannot be told."""
    import ast
    undecided = []
    for c in cls.__mro__:
        if c is object or c.__module__ == "builtins":
            continue
        name = "%s.%s" % (c.__module__, c.__qualname__)
        try:
            node, start = class_source(c)
        except BaseException as e:
            undecided.append("the source of %s is not available (%s)" % (name, exc_text(e)))
            continue
        if not isinstance(node, ast.ClassDef):
            undecided.append("the source of %s is not a class statement" % name)
            continue
        line = self_assignment(node, attr)
        if line is not None:
            return "class %s assigns self.%s (line %d)" % (name, attr, start + line - 1)
        if node.decorator_list:
            undecided.append("class decorators of %s may assign it" % name)
        if any(k.arg == "metaclass" for k in node.keywords):
            undecided.append("%s has a metaclass" % name)
    if undecided:
        raise Undecided("no method assigns self.%s, but %s" % (attr, "; ".join(undecided)))
    where = "no method of %s or its bases assigns self.%s" % (describe(cls), attr)
    if attr in getattr(cls, "__dict__", {}):
        where += " (%s is a class attribute)" % attr
    raise Failed(where)

# Uses: the names the project's own code takes from the package (issue #29).
# Each module is imported once and each chain resolved once, whatever the
# number of uses that go through it; a use whose import raises fails with the
# exception's type and first line, and the others go on.

USE_DETAIL = 500
DEPRECATIONS = (DeprecationWarning, PendingDeprecationWarning, FutureWarning)


class _Failure:
    """A failed import or look-up, kept to be raised again for later uses."""

    def __init__(self, e):
        self.cls, self.msg = type(e), str(e)
        self.import_error = getattr(e, "import_error", False)

    def exc(self):
        e = self.cls(self.msg)
        e.import_error = self.import_error
        return e


def once(table, key, fn):
    """fn() the first time key is asked for; the same answer (or failure) after."""
    hit = table.get(key)
    if hit is None:
        try:
            hit = fn()
        except Failed as e:
            hit = _Failure(e)
        table[key] = hit
    if isinstance(hit, _Failure):
        raise hit.exc()
    return hit


class Recorder:
    """Records the warnings raised while uses resolve, for the whole loop:
    warnings are recorded, never raised (a filter set to "error" included),
    and each step learns the first deprecation it raised. The filters the
    code under test adds on the way are put back afterwards, as they would
    be without the recording."""

    def __enter__(self):
        import warnings
        self.warnings = warnings
        self.cm = warnings.catch_warnings(record=True)
        self.log = self.cm.__enter__()
        warnings.simplefilter("always")
        self.head, self.added = warnings.filters[0], []
        return self

    def __exit__(self, *exc):
        self.cm.__exit__(*exc)
        for f in self.added:
            try:
                action, msg, cat, mod, lineno = f[:5]
                self.warnings.filterwarnings(action, getattr(msg, "pattern", None) or "", cat,
                                             getattr(mod, "pattern", None) or "", lineno)
            except Exception:
                pass

    def run(self, fn):
        """fn() and the first line of the first deprecation warning it raised."""
        n = len(self.log)
        try:
            value = fn()
        finally:
            filters = self.warnings.filters
            if not filters or filters[0] is not self.head:
                # The code added filters before ours: keep them for later,
                # in the order they were added, and ours first again.
                new = []
                for f in filters:
                    if f is self.head:
                        break
                    new.append(f)
                self.added.extend(reversed(new))
                self.warnings.simplefilter("always")
                self.head = self.warnings.filters[0]
        for w in self.log[n:]:
            if isinstance(w.category, type) and issubclass(w.category, DEPRECATIONS):
                return value, clip_head(str(w.message).strip().split("\n", 1)[0], 200)
        return value, None


class UseResolver:
    def __init__(self, recorder):
        self.recorded = recorder.run
        self.mods = {}  # module name -> module, or _Failure
        self.deps = {}  # module name -> the deprecation its import raised
        self.memo = {}  # (module, attrs) or ("", target) -> (object, deprecation), or _Failure

    def module(self, name):
        return once(self.mods, name, lambda: self._import(name))

    def _import(self, name):
        parent = name.rpartition(".")[0]
        if parent:
            self.module(parent)  # a parent that fails fails its submodules, with its own reason
        try:
            mod, dep = self.recorded(lambda: importlib.import_module(name))
        except ModuleNotFoundError as e:
            if e.name == name:
                raise Missing("missing: no module named %r" % name)
            f = Failed("importing %s raised %s" % (name, exc_text(e, 300)))
            f.import_error = True
            raise f
        except ImportError as e:
            f = Failed("importing %s raised %s" % (name, exc_text(e, 300)))
            f.import_error = True
            raise f
        except BaseException as e:
            raise Failed("importing %s raised %s" % (name, exc_text(e, 300)))
        self.deps[name] = dep
        return mod

    def step(self, obj, name, here, why=""):
        """getattr(obj, name); an attribute a module lacks is its submodule if one imports."""
        try:
            return self.recorded(lambda: getattr(obj, name))
        except AttributeError:
            pass
        except BaseException as e:
            raise Failed("getting %s.%s raised %s" % (here, name, exc_text(e, 300)))
        modname = getattr(obj, "__name__", None) if ismodule(obj) else None
        if isinstance(modname, str):
            sub = modname + "." + name
            try:
                return self.module(sub), self.deps.get(sub)
            except Missing:
                pass
        raise Missing("missing: %s (%s) has no attribute %r%s" % (here, use_describe(obj), name, why))

    def chain(self, module, attrs):
        """The object module.attrs[0]... names, and the deprecation of its last step."""
        def find():
            if not attrs:
                return self.module(module), self.deps.get(module)
            obj, _ = self.chain(module, attrs[:-1])
            return self.step(obj, attrs[-1], ".".join((module,) + attrs[:-1]))
        return once(self.memo, (module, attrs), find)

    def target(self, dotted):
        """What mock.patch(dotted) replaces: pkgutil.resolve_name of all but
        the last segment (import the longest importable dotted prefix, then
        get the rest), then the last segment as an attribute."""
        def find():
            parts = dotted.split(".")
            attr = parts.pop()
            modname = parts[0]
            obj = self.module(modname)
            i, why = 1, ""
            while i < len(parts):
                s = modname + "." + parts[i]
                try:
                    obj = self.module(s)
                except Missing:
                    break
                except Failed as e:
                    if not getattr(e, "import_error", False):
                        raise
                    why = " (%s)" % e
                    break
                modname, i = s, i + 1
            here = modname
            for p in parts[i:]:
                obj, _ = self.step(obj, p, here, why)
                here += "." + p
            return self.step(obj, attr, here, why)
        return once(self.memo, ("", dotted), find)


def use_kind(obj):
    if ismodule(obj):
        return "module"
    if isclass(obj):
        return "class"
    return "function" if callable(obj) else "other"


def use_describe(obj):
    if ismodule(obj) or isclass(obj):
        return describe(obj)
    import inspect
    if inspect.isfunction(obj) or inspect.ismethod(obj) or inspect.isbuiltin(obj):
        what = "method" if inspect.ismethod(obj) else "builtin" if inspect.isbuiltin(obj) else "function"
        q = getattr(obj, "__qualname__", None) or getattr(obj, "__name__", None) or "?"
        m = getattr(obj, "__module__", None)
        return "%s %s" % (what, "%s.%s" % (m, q) if isinstance(m, str) else q)
    d = describe(obj)
    return "a callable" + d[1:] if callable(obj) and d.startswith("a value") else d


def class_attr(cls, name):
    """The attribute as a class's own __dict__ holds it (a staticmethod, a
    property), searching the MRO; None when none does."""
    try:
        for c in cls.__mro__:
            d = getattr(c, "__dict__", {})
            if name in d:
                return d[name]
    except Exception:
        pass
    return None


def computed(raw):
    """Whether an instance attribute held by the class as raw is computed on
    access (a property, a slot, a cached_property, another descriptor)."""
    if raw is None or isinstance(raw, (staticmethod, classmethod)):
        return False
    t = type(raw)
    if not hasattr(t, "__get__"):
        return False
    return hasattr(t, "__set__") or hasattr(t, "__delete__") or not callable(raw)


PARAM_KINDS = {"POSITIONAL_ONLY": "0", "POSITIONAL_OR_KEYWORD": "1", "VAR_POSITIONAL": "2",
               "KEYWORD_ONLY": "3", "VAR_KEYWORD": "4"}


def signature_of(obj):
    """The parameters a call of obj binds to, compactly: a kind digit, "="
    for a default, the name; or None and why there is no signature."""
    import inspect
    try:
        ps = list(inspect.signature(obj).parameters.values())
    except BaseException as e:
        return None, "no signature (%s)" % exc_text(e, 200)
    if len(ps) > 300:
        return None, "%d parameters" % len(ps)
    return [PARAM_KINDS[q.kind.name] + ("=" if q.default is not q.empty else "") + q.name for q in ps], None


def use_one(res, u):
    attrs = tuple(u.get("attrs") or ())
    raw, via_class = None, False
    if u.get("target"):
        obj, dep = res.target(u["target"])
    elif u.get("instance"):
        here = ".".join((u["module"],) + attrs[:-1])
        cls, _ = res.chain(u["module"], attrs[:-1])
        if not isclass(cls):
            raise Undecided("%s is %s, not a class: what the instance it makes holds cannot be told" % (here, use_describe(cls)))
        attr = attrs[-1]
        raw = class_attr(cls, attr)
        if computed(raw):
            return {"status": "pass", "kind": "", "detail": "%s.%s is a %s of the class, computed on access" % (here, attr, type(raw).__name__),
                    "nosig": "what the %s returns is not known" % type(raw).__name__}
        try:
            obj, dep = res.chain(u["module"], attrs)
        except Missing:
            try:
                detail = instance_attribute_of(cls, attr)
            except Failed as e:
                raise Failed("missing: %s has no attribute %r, and %s" % (describe(cls), attr, e))
            return {"status": "pass", "kind": "", "detail": detail, "nosig": "what self.%s holds is set at run time" % attr}
        via_class = True
    else:
        obj, dep = res.chain(u["module"], attrs)
        if attrs and u.get("bound"):
            parent, _ = res.chain(u["module"], attrs[:-1])
            if isclass(parent):
                raw, via_class = class_attr(parent, attrs[-1]), True
    if dep is None and u.get("module"):
        dep = res.deps.get(u["module"])  # the module the code imports is deprecated
    can = callable(obj)
    out = {"status": "pass", "kind": use_kind(obj), "detail": "found " + use_describe(obj), "callable": can}
    if dep:
        out["deprecated"] = dep
    if u.get("call") and can:
        sig, why = signature_of(obj)
        if sig is None:
            out["nosig"] = why
        else:
            out["sig"] = sig
            if u.get("bound") and via_class and not isinstance(raw, (staticmethod, classmethod)):
                out["self"] = inspect_function_like(obj)
    return out


def inspect_function_like(obj):
    """Whether obj, got from a class, binds the instance when got from one."""
    import inspect
    return inspect.isfunction(obj) or isinstance(obj, (types.MethodDescriptorType, types.WrapperDescriptorType))


def run_uses(uses):
    if not uses:
        return
    with Recorder() as rec:
        res = UseResolver(rec)
        for u in uses:
            run_use(res, u)


def run_use(res, u):
    emit({"ustart": u["i"]})
    try:
        out = use_one(res, u)
    except Failed as e:
        out = {"status": "fail", "detail": str(e)}
    except Undecided as e:
        out = {"status": "unknown", "detail": str(e)}
    except BaseException as e:
        out = {"status": "unknown", "detail": "resolving raised " + exc_text(e, 300)}
    out["u"] = u["i"]
    out["detail"] = clip_head(out.get("detail", ""), USE_DETAIL)
    emit(out)


class Tail:
    """A text stream that keeps only the last TAIL characters written to it."""

    def __init__(self):
        self.buf = collections.deque()
        self.size = 0

    def write(self, s):
        self.buf.append(s)
        self.size += len(s)
        # Drop the oldest writes only while the rest still holds TAIL
        # characters: a long line then a newline keeps the line's end.
        while len(self.buf) > 1 and self.size - len(self.buf[0]) >= TAIL:
            self.size -= len(self.buf.popleft())
        if self.size > 4 * TAIL:
            s = "".join(self.buf)[-TAIL:]
            self.buf, self.size = collections.deque([s]), len(s)
        return len(s)

    def flush(self):
        pass

    def isatty(self):
        return False

    def text(self):
        return "".join(self.buf)[-TAIL:]


def probe_run(p):
    try:
        code = compile(p["run"], "<probe %s>" % p.get("name", ""), "exec")
    except SyntaxError as e:
        raise Undecided("snippet does not compile: %s" % exc_text(e))
    tail = Tail()
    err = None
    ns = {"__name__": "__pinbot_probe__", "__builtins__": __builtins__}
    with contextlib.redirect_stdout(tail), contextlib.redirect_stderr(tail):
        try:
            exec(code, ns)
        except SystemExit as e:
            if e.code not in (None, 0):
                err = "SystemExit(%r)" % (e.code,)
        except BaseException as e:
            import traceback
            tb = traceback.extract_tb(e.__traceback__)
            lines = p["run"].splitlines()
            where = ["line %d: %s" % (f.lineno, clip_head(lines[f.lineno - 1].strip(), 200) if 0 < f.lineno <= len(lines) else "")
                     for f in tb if f.filename == code.co_filename]
            err = exc_text(e) + (" (at snippet %s)" % where[-1] if where else "")
    canary = p.get("expect") == "fail"
    if canary:
        detail = ("still fails as expected: " + err) if err is not None else \
            "the snippet now passes: upstream fixed, the workaround can go"
    else:
        detail = ("snippet raised " + err) if err is not None else "snippet passed"
    # The output's tail gets the room the exception leaves (800 at most), in
    # UTF-8 bytes as pinbot caps a detail, so that the tail keeps its end.
    out = tail.text().strip().encode("utf-8", "replace")
    room = min(800, TAIL - len(detail.encode("utf-8", "replace")) - len("; output: ..."))
    if out and room > 0:
        kept = out.decode("utf-8") if len(out) <= room else "..." + out[-room:].decode("utf-8", "ignore")
        detail += "; output: " + kept
    if canary == (err is None):  # a canary that passes, or a snippet that raised
        raise Failed(detail)
    return detail


def main():
    global TAIL
    req = json.loads(sys.stdin.read())
    TAIL = int(req.get("tail") or TAIL)
    header = {"python": sys.version.split()[0], "executable": sys.executable, "version": None}
    if req.get("want_version"):
        # The environment as installed: the package's version and requirements,
        # and every distribution (first one found wins, as for imports).
        try:
            from importlib import metadata
        except Exception:
            metadata = None
        if metadata is not None:
            try:
                header["version"] = metadata.version(req["package"])
                header["requires"] = metadata.requires(req["package"]) or []
            except Exception:
                pass
            dists, seen = [], set()
            try:
                for d in metadata.distributions():
                    name = d.metadata["Name"]
                    if name and name.lower() not in seen:
                        seen.add(name.lower())
                        dists.append([name, d.version])
            except Exception:
                pass
            header["dists"] = dists
    emit(header)
    probes = req.get("probes") or []
    # Look-ups first, then uses, snippets last: a snippet may monkeypatch
    # what a look-up reads.
    run_probes([p for p in probes if not p.get("run")])
    run_uses(req.get("uses") or [])
    run_probes([p for p in probes if p.get("run")])
    emit({"done": True})


def run_probes(order):
    for p in order:
        emit({"start": p["i"]})
        try:
            extra = {}
            if p.get("run"):
                detail = probe_run(p)
            else:
                detail, extra = probe_path(p)
            res = {"status": "pass", "detail": detail}
            res.update(extra)
        except Failed as e:
            res = {"status": "fail", "detail": str(e)}
        except Undecided as e:
            res = {"status": "unknown", "detail": str(e)}
        except BaseException as e:
            res = {"status": "fail", "detail": "probe raised " + exc_text(e)}
        res["i"] = p["i"]
        res["detail"] = clip_head(res["detail"])
        emit(res)


main()
