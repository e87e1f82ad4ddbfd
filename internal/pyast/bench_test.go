package pyast

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// benchCorpus reads the Python files of $PYAST_CORPUS (or the standard
// library) into memory, up to about limit bytes.
func benchCorpus(b *testing.B, limit int) [][]byte {
	dirs := []string{"/usr/lib/python3.11"}
	if v := os.Getenv("PYAST_CORPUS"); v != "" {
		dirs = filepath.SplitList(v)
	}
	var srcs [][]byte
	total := 0
	for _, path := range corpusFiles(b, dirs) {
		src, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		if _, err := Parse(path, src); err != nil {
			continue
		}
		srcs = append(srcs, src)
		if total += len(src); total >= limit {
			break
		}
	}
	if len(srcs) == 0 {
		b.Skip("no corpus")
	}
	return srcs
}

func benchParse(b *testing.B, srcs [][]byte) {
	total := 0
	for _, s := range srcs {
		total += len(s)
	}
	b.SetBytes(int64(total))
	b.ReportAllocs()
	b.ResetTimer()
	before := cpuTime()
	for i := 0; i < b.N; i++ {
		for _, s := range srcs {
			if _, err := Parse("x.py", s); err != nil {
				b.Fatal(err)
			}
		}
	}
	// On a shared machine wall time says little: report throughput per
	// second of CPU the process used (the collector's included).
	if cpu := cpuTime() - before; cpu > 0 {
		b.ReportMetric(float64(total)*float64(b.N)/cpu.Seconds()/1e6, "MB/cpu-s")
	}
}

// cpuTime is the CPU time (user and system) the process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkParseStdlib parses the standard library's Python files (about
// 30 MB on Debian's Python 3.11).
func BenchmarkParseStdlib(b *testing.B) {
	benchParse(b, benchCorpus(b, 1<<40))
}

// BenchmarkParseGenerated parses 20 MB of typical code: imports, classes,
// calls, comprehensions, f-strings.
func BenchmarkParseGenerated(b *testing.B) {
	unit := `import os.path
from numba.core import bytecode as bc

class Estimator(BaseEstimator):
    """An estimator."""

    def fit(self, X, y=None, *, sample_weight=None):
        X, y = self._validate_data(X, y, accept_sparse=["csr", "csc"])
        if hasattr(np, "trapezoid") and self.n_jobs is not None:
            self.coef_ = [x ** 2 for x in range(10) if x % 2]
        msg = f"fitted {self.__class__.__name__!r} with {len(X):>10} samples"
        return {"coef": self.coef_, **self.params}
`
	src := []byte(strings.Repeat(unit, (20<<20)/len(unit)))
	benchParse(b, [][]byte{src})
}
