package usage_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/pinbot-dev/pinbot/checks/usage"
)

// fuzzPackages are the packages FuzzFind watches: one per way a package's
// modules are named (its own name, the table, a dotted module).
var fuzzPackages = []usage.Package{{Name: "numba"}, {Name: "scikit-learn"}, {Name: "mlir-python-bindings"}, {Name: "protobuf"}, {Name: "pytest"}}

// FuzzFind reads one file's source: Find never panics (an internal error
// would be a warning, which the target fails on), each reference lies in
// the file, at the text that names it, within its module, and the result
// is the same each time.
//
//	go test ./checks/usage -run '^$' -fuzz FuzzFind -fuzztime 1m
func FuzzFind(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/*.py")
	for _, p := range seeds {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, s := range []string{
		"import numba.core.bytecode as bc\nbc.FunctionIdentity._unique_ids = 1\n",
		"from numba import njit as j\n@j\ndef f(): pass\nj(cache=True)(f)\n",
		"import numba . core \\\n . bytecode\n",
		"class E(__import__('x')): pass\nfrom sklearn.base import BaseEstimator as B\nclass C(B):\n def f(self): super().__init__(); self._x(*a, **k)\n",
		"patch('numba\\x2ex')\nsetattr(numba, 'a b', 1)\nmonkeypatch.setattr('numba.y', 2)\n",
		"x = numba if c else None\nif (n := numba) is not None: n.a\n",
		"from mlir.ir import *\nwith Context() as c: c._x()\n",
		"\ufeffimport numba\r\nnumba.a\rnumba.b\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		first := findOne(t, src)
		for _, w := range first.Warnings {
			if strings.Contains(w.Error(), "internal error") {
				t.Fatalf("warning: %v", w)
			}
		}
		if len(first.Refs) > usage.MaxRefsPerFile {
			t.Fatalf("%d references, more than %d", len(first.Refs), usage.MaxRefsPerFile)
		}
		for _, r := range first.Refs {
			if r.File != "m.py" || r.Package == "" || r.Kind == "" {
				t.Errorf("%v: file %q, package %q, kind %q", r, r.File, r.Package, r.Kind)
			}
			if r.Module != "" && r.Name != r.Module && !strings.HasPrefix(r.Name, r.Module+".") {
				t.Errorf("%v: name outside its module %s", r, r.Module)
			}
			if err := checkPosition(src, r); err != nil {
				t.Error(err)
			}
		}
		second := findOne(t, src)
		if diff := cmp.Diff(first.Refs, second.Refs); diff != "" || first.Warnings.Error() != second.Warnings.Error() {
			t.Errorf("a second Find differs: %s\n%v\n%v", diff, first.Warnings, second.Warnings)
		}
	})
}

func findOne(t *testing.T, src []byte) *usage.Result {
	res, err := usage.Find(context.Background(), fstest.MapFS{"m.py": {Data: src}}, usage.Options{Packages: fuzzPackages})
	if err != nil {
		t.Fatal(err)
	}
	return res
}
