"""Compatibility shims of the kinds projects keep for fragile packages."""

import contextlib
import sys

try:
    import numba
    from numba.core.errors import NumbaPerformanceWarning
    HAS_NUMBA = True
except ImportError:  # numba is optional
    numba = None
    HAS_NUMBA = False
    try:
        from numba.errors import NumbaPerformanceWarning
    except ImportError:
        NumbaPerformanceWarning = Warning

if HAS_NUMBA and hasattr(numba, "generated_jit"):
    generated_jit = numba.generated_jit
elif numba is not None:
    generated_jit = numba.extending.overload

NUMBA_GE_059 = numba is not None and tuple(map(int, numba.__version__.split(".")[:2])) >= (0, 59)

def jit(*args, **kwargs):
    if numba is None:
        return lambda f: f
    kwargs.setdefault("cache", True)
    return numba.njit(*args, **kwargs)

with contextlib.suppress(AttributeError):
    numba.config.DISABLE_JIT = sys.flags.optimize > 1

_dispatcher = getattr(numba, "core", None) and numba.core.dispatcher.Dispatcher
