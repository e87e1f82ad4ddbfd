package usage_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/pinbot-dev/pinbot/checks/usage"
)

// TestLimits: deep and huge code costs bounded work and no Go stack
// (chains and sums of a million terms, ten thousand elifs and nested
// classes), and a file naming a package more than MaxRefsPerFile times
// gives that many references and a warning.
func TestLimits(t *testing.T) {
	elifs := "import numba\nif hasattr(numba, 'a'):\n    x = numba.a\n" + strings.Repeat("elif c:\n    x = 1\n", 10_000) + "x.y\n"
	var classes strings.Builder
	classes.WriteString("from sklearn.base import BaseEstimator as C0\n")
	for i := 1; i <= 10_000; i++ {
		fmt.Fprintf(&classes, "class C%d(C%d):\n    def f(self): self._x%d\n", i, i-1, i)
	}
	for _, tt := range []struct {
		name  string
		src   string
		refs  int
		warns int
	}{
		{"a chain of a million attributes", "import numba\nnumba" + strings.Repeat(".a", 1_000_000) + "\n", 2, 0},
		{"a chain of calls", "import numba\nnumba" + strings.Repeat(".a()", 200_000) + "\n", 2, 0},
		{"a sum of a million terms", "import numba\nx = numba.a" + strings.Repeat(" + b", 1_000_000) + "\n", 2, 0},
		{"a flat or of 600,000 names", "import numba\nx = numba" + strings.Repeat(" or b", 600_000) + "\nx.a\n", 2, 0},
		{"ten thousand elifs", elifs, 4, 0},
		{"ten thousand nested subclasses", classes.String(), 10_002, 0},
		{"more references than the limit", "import numba\n" + strings.Repeat("numba.a\n", usage.MaxRefsPerFile+10), usage.MaxRefsPerFile, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res := find(t, map[string]string{"m.py": tt.src}, "numba", "scikit-learn")
			if len(res.Refs) != tt.refs || len(res.Warnings) != tt.warns {
				t.Errorf("%d references, %d warnings (%v); want %d and %d", len(res.Refs), len(res.Warnings), res.Warnings, tt.refs, tt.warns)
			}
		})
	}
}
