"""Caching of the numba functions PyTensor compiles from generated source.

The shape of pytensor's pytensor/link/numba/cache.py (pymc-devs/pytensor,
2026): it replaces numba's FunctionIdentity._unique_ids with an iterator of
random ids, so that functions compiled in forked processes do not collide
in numba's cache, and registers a cache locator.
"""

import uuid
from collections.abc import Callable
from pathlib import Path
from weakref import WeakKeyDictionary

from numba.core.bytecode import FunctionIdentity
from numba.core.caching import CacheImpl, _CacheLocator

from pytensor import config


NUMBA_CACHE_PATH = config.base_compiledir / "numba"
NUMBA_CACHE_PATH.mkdir(exist_ok=True)
CACHED_SRC_FUNCTIONS: WeakKeyDictionary[Callable, str] = WeakKeyDictionary()


class _RandomUidIter:
    """Random unique ids for numba's FunctionIdentity.

    numba names a compiled function's symbols after a counter that starts
    at 1 in every process, so functions compiled in forked processes
    collide in the cache. numba consumes the ids only through
    ``next(cls._unique_ids)`` in ``FunctionIdentity.from_function``.
    """

    def __iter__(self):
        return self

    def __next__(self):
        return uuid.uuid4().int


FunctionIdentity._unique_ids = _RandomUidIter()


class PyTensorLoaderLocator(_CacheLocator):
    """Locate the cache of functions defined from PyTensor-generated source."""

    def __init__(self, py_func, py_file, hash):
        self._py_func = py_func
        self._py_file = py_file
        self._hash = hash

    def ensure_cache_path(self):
        pass

    def get_cache_path(self):
        return NUMBA_CACHE_PATH

    def get_source_stamp(self):
        return 0

    def get_disambiguator(self):
        return self._hash

    @classmethod
    def from_function(cls, py_func, py_file):
        if py_func in CACHED_SRC_FUNCTIONS:
            return cls(py_func, Path(py_file).parent, CACHED_SRC_FUNCTIONS[py_func])


CacheImpl._locator_classes.insert(0, PyTensorLoaderLocator)
