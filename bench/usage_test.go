package bench_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/pinbot-dev/pinbot/checks/usage"
	"github.com/pinbot-dev/pinbot/internal/repofs"
)

// usageModule is one generated module of about 8 KB (230 lines), of the
// shape of a scientific library's: imports of the watched packages and
// others, a compatibility shim, an estimator subclass, jitted functions,
// loops, comprehensions, f-strings and docstrings. %[1]d makes each file's
// names its own.
const usageModule = `"""Module %[1]d: kernels and an estimator.

The functions below are compiled with numba and fall back to Python when
numba is missing; the estimator follows scikit-learn's conventions.
"""

from __future__ import annotations

import functools
import logging
import math
import os
from collections.abc import Callable, Sequence

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_is_fitted

try:
    import numba
    from numba.core.errors import NumbaPerformanceWarning
    HAS_NUMBA = True
except ImportError:  # pragma: no cover
    numba = None
    HAS_NUMBA = False

from .utils import helper_%[1]d, Registry

log = logging.getLogger(__name__)
_CACHE: dict[str, Callable] = {}


def jit(*args, **kwargs):
    """numba.njit with the module's defaults, or the function itself."""
    if numba is None:
        return args[0] if args and callable(args[0]) else (lambda f: f)
    kwargs.setdefault("cache", True)
    kwargs.setdefault("nogil", True)
    return numba.njit(*args, **kwargs)


@jit
def kernel_%[1]d(x, y, out):
    n = x.shape[0]
    for i in range(n):
        acc = 0.0
        for j in range(y.shape[0]):
            acc += x[i] * y[j] - math.sqrt(abs(x[i] - y[j]) + 1e-12)
        out[i] = acc / max(1, y.shape[0])
    return out


@jit(parallel=False)
def reduce_%[1]d(values):
    total = 0.0
    for v in values:
        if v > 0:
            total += v
        elif v < -1:
            total -= v / 2
        else:
            total += v * v
    return total


def pairwise_%[1]d(xs: Sequence[float], ys: Sequence[float]) -> np.ndarray:
    """Pairwise differences, as a dense matrix."""
    a = np.asarray(xs, dtype=np.float64)
    b = np.asarray(ys, dtype=np.float64)
    out = np.empty((a.size, b.size))
    for i, x in enumerate(a):
        out[i, :] = [x - y for y in b if not math.isnan(y)] or 0.0
    return out


class Scaler%[1]d(TransformerMixin, BaseEstimator):
    """Scale features by a learned factor."""

    def __init__(self, factor=1.0, *, clip=None, copy=True):
        self.factor = factor
        self.clip = clip
        self.copy = copy

    def fit(self, X, y=None, sample_weight=None):
        X = self._validate_data(X, reset=True, dtype=np.float64)
        scale = np.ones(X.shape[1]) * self.factor
        if sample_weight is not None:
            scale *= np.average(X, axis=0, weights=sample_weight)
        self.scale_ = scale
        self.n_seen_ = X.shape[0]
        log.debug("fitted %%s on %%d samples", type(self).__name__, X.shape[0])
        return self

    def transform(self, X):
        check_is_fitted(self)
        X = self._validate_data(X, reset=False, copy=self.copy)
        out = X * self.scale_
        if self.clip is not None:
            out = np.clip(out, -self.clip, self.clip)
        return out

    def inverse_transform(self, X):
        check_is_fitted(self)
        return np.asarray(X) / self.scale_

    def _more_tags(self):
        return {"stateless": False, "requires_y": False}

    def __repr__(self):
        return f"Scaler%[1]d(factor={self.factor!r}, clip={self.clip!r})"


class Cache%[1]d:
    """A small cache of compiled kernels, keyed by their signature."""

    def __init__(self, size=128):
        self.size = size
        self._items: dict[tuple, Callable] = {}
        self._hits = 0

    def get(self, key, make):
        try:
            value = self._items[key]
            self._hits += 1
        except KeyError:
            value = self._items[key] = make()
            if len(self._items) > self.size:
                oldest = next(iter(self._items))
                del self._items[oldest]
        return value

    @property
    def hits(self):
        return self._hits

    @functools.cached_property
    def path(self):
        return os.path.join(os.environ.get("CACHE_DIR", "/tmp"), f"cache-%[1]d")


def compile_all_%[1]d(names, registry: Registry | None = None):
    """Compile every kernel named, reporting those numba rejects."""
    results = {}
    failed = []
    for name in names:
        fn = globals().get(name)
        if fn is None:
            continue
        try:
            if HAS_NUMBA and hasattr(numba, "njit"):
                results[name] = numba.njit(fn, cache=True)
            else:
                results[name] = fn
        except Exception as exc:  # numba's errors vary by version
            failed.append((name, str(exc)))
    if registry is not None:
        registry.update({k: v for k, v in results.items() if k not in _CACHE})
    if failed:
        log.warning("%%d kernels failed: %%s", len(failed), ", ".join(n for n, _ in failed))
    return results, helper_%[1]d(failed)


def config_%[1]d():
    if numba is not None and numba.config.DISABLE_JIT:
        return {"jit": False, "threads": 1}
    threads = numba.config.NUMBA_NUM_THREADS if numba is not None else os.cpu_count()
    return {
        "jit": True,
        "threads": threads,
        "layer": getattr(numba.config, "THREADING_LAYER", "default") if numba else None,
        "debug": bool(os.environ.get("DEBUG_%[1]d")),
    }


def main_%[1]d(argv=None):
    import argparse

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--size", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    x = np.random.default_rng(%[1]d).random(args.size)
    y = np.random.default_rng(%[1]d + 1).random(args.size // 2)
    out = np.zeros_like(x)
    for _ in range(args.repeat):
        kernel_%[1]d(x, y, out)
    print(f"{reduce_%[1]d(out):.6f}", config_%[1]d())
    est = Scaler%[1]d(factor=2.0).fit(x.reshape(-1, 1))
    return est.transform(x.reshape(-1, 1)).sum()


if __name__ == "__main__":
    main_%[1]d()
`

// usageTree writes a repository of n generated modules, fifty to a
// directory, and returns its root and the Python bytes written.
func usageTree(tb testing.TB, n int) (string, int) {
	dir := tb.TempDir()
	total := 0
	for i := range n {
		p := filepath.Join(dir, "lib", fmt.Sprintf("sub%02d", i/50), fmt.Sprintf("mod%04d.py", i))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			tb.Fatal(err)
		}
		src := fmt.Sprintf(usageModule, i)
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			tb.Fatal(err)
		}
		total += len(src)
	}
	return dir, total
}

var usagePackages = []usage.Package{{Name: "numba"}, {Name: "scikit-learn"}, {Name: "tensorflow"}, {Name: "protobuf"}}

// BenchmarkUsage finds the references of a 2,000-file repository (16 MB
// of generated Python; pytensor has about 750 files) to four packages:
// the walk, the confined reads, parsing and analysis, two files at a time.
// It must stay under 1 s and 200 MB.
//
//	go test ./bench -run '^$' -bench BenchmarkUsage -benchtime 5x -count 5 -benchmem
func BenchmarkUsage(b *testing.B) {
	root, size := usageTree(b, 2000)
	repo, err := repofs.Open(root)
	if err != nil {
		b.Fatal(err)
	}
	defer repo.Close()
	b.SetBytes(int64(size))
	b.ReportAllocs()
	b.ResetTimer()
	before := cpuTime()
	for b.Loop() {
		res, err := usage.Find(context.Background(), repo.FS(), usage.Options{Packages: usagePackages})
		if err != nil || res.Files != 2000 || len(res.Warnings) > 0 {
			b.Fatalf("%d files, warnings %v, err %v", res.Files, res.Warnings, err)
		}
	}
	// On a shared machine wall time says little: report the CPU time the
	// process used per run (both workers' and the collector's).
	b.ReportMetric((cpuTime()-before).Seconds()/float64(b.N), "cpu-s/op")
}

// cpuTime is the CPU time (user and system) the process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestUsageTree runs the benchmark's Find once over a few generated
// modules, so that a generator that stops parsing, or a finder that stops
// finding, fails the tests rather than only the benchmark: each module
// gives the same 20 references (9 of numba, 11 of scikit-learn: the two
// bases of its estimator class among them), at its own place.
func TestUsageTree(t *testing.T) {
	root, _ := usageTree(t, 3)
	repo, err := repofs.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	defer repo.Close()
	res, err := usage.Find(context.Background(), repo.FS(), usage.Options{Packages: usagePackages})
	if err != nil || res.Files != 3 || len(res.Warnings) > 0 {
		t.Fatalf("%d files, warnings %v, err %v", res.Files, res.Warnings, err)
	}
	per := map[string]int{}
	kinds := map[string]bool{}
	for _, r := range res.Refs {
		per[r.File]++
		kinds[string(r.Kind)] = true
	}
	if len(per) != 3 || per["lib/sub00/mod0000.py"] != per["lib/sub00/mod0002.py"] || per["lib/sub00/mod0000.py"] != 20 {
		t.Errorf("references per file: %v", per)
	}
	for _, k := range []string{"import", "attribute", "call", "subclass", "base"} {
		if !kinds[k] {
			t.Errorf("no %s reference among %d", k, len(res.Refs))
		}
	}
}
