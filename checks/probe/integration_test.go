package probe

import (
	"archive/zip"
	"bytes"
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// debianNumba returns /usr/bin/python3 when it can import Debian's numba
// (apt-get install python3-numba). Tests skip otherwise, but fail when
// PINBOT_INTEGRATION=1.
func debianNumba(t *testing.T) string {
	t.Helper()
	const py = "/usr/bin/python3"
	if out, err := exec.Command(py, "-c", "import numba.core.bytecode").CombinedOutput(); err != nil {
		if os.Getenv("PINBOT_INTEGRATION") == "1" {
			t.Fatalf("PINBOT_INTEGRATION=1 but %s cannot import numba (apt-get install python3-numba): %v\n%s", py, err, out)
		}
		t.Skipf("%s cannot import numba: %v", py, err)
	}
	return py
}

var missingProbe = Spec{Path: "numba.core.bytecode.FunctionIdentity._no_such_counter", Expect: "iterator"}

// realExpectations are instance-attribute and absent probes on the real numba,
// which static and dynamic probes must answer alike: Dispatcher assigns
// self._cache; whether it has _no_such is hidden in its compiled base
// _dispatcher.Dispatcher; numba.np.arrayobj_v2 does not exist.
var realExpectations = []Spec{
	{Path: "numba.core.dispatcher.Dispatcher._cache", Expect: "instance-attribute"},
	{Path: "numba.core.dispatcher.Dispatcher._no_such", Expect: "instance-attribute"},
	{Path: "numba.np.arrayobj_v2", Expect: "absent"},
	{Path: "numba.core.bytecode", Expect: "absent"},
}

func wantRealExpectations(t *testing.T, rs []Result) {
	t.Helper()
	wantResult(t, rs[0], "", Pass, OK, "assigns self._cache")
	wantResult(t, rs[1], "", Unknown, Warning, "_dispatcher")
	wantResult(t, rs[2], "", Pass, OK, "absent")
	wantResult(t, rs[3], "", Fail, Blocked, "numba.core.bytecode exists: found module numba.core.bytecode")
}

func TestIntegrationDebianNumba(t *testing.T) {
	t.Parallel() // slow (environments, subprocesses): overlaps the other tests
	py := debianNumba(t)
	rep, err := Run(context.Background(), Options{
		Package: "numba", Python: py, NoInstall: true, TempDir: t.TempDir(),
		Specs: append([]Spec{{Preset: "numba-unique-ids"}, missingProbe,
			{Path: "numba.core.bytecode.FunctionIdentity.from_function", Expect: "callable", Signature: "(pyfunc)"}}, realExpectations...),
	})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Mode != ModeInterpreter || !strings.HasPrefix(rep.Candidate, "0.") {
		t.Errorf("mode %s candidate %q", rep.Mode, rep.Candidate)
	}
	for _, r := range rep.Results[:3] {
		wantResult(t, r, "", Pass, OK, "")
	}
	wantResult(t, rep.Results[3], "", Fail, Blocked,
		"segment 5 '_no_such_counter' is missing: numba.core.bytecode.FunctionIdentity (class numba.core.bytecode.FunctionIdentity) has no attribute '_no_such_counter'")
	wantResult(t, rep.Results[4], "", Pass, OK, "signature (pyfunc)")
	wantRealExpectations(t, rep.Results[5:])
	if !strings.Contains(rep.Results[0].Detail, "installed numba "+rep.Installed+" probed") {
		t.Errorf("detail %q does not name the installed version", rep.Results[0].Detail)
	}
	t.Logf("numba %s on Python %s:\n%s", rep.Candidate, rep.Python, rep.Markdown())

	// Another candidate than the one installed: what is installed is probed,
	// and said to be no evidence about the candidate.
	rep, err = Run(context.Background(), Options{
		Package: "numba", Baseline: "0.56.0", Candidate: "0.67.0", Python: py, NoInstall: true, TempDir: t.TempDir(),
		Specs: []Spec{{Preset: "numba-unique-ids"}, missingProbe},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := "installed numba " + rep.Installed + " is not the candidate 0.67.0"
	for _, r := range rep.Results {
		wantResult(t, r, "", r.Candidate.Status, Warning, want)
	}
	if rep.Verdict != Warning || !strings.Contains(rep.Markdown(), want) {
		t.Errorf("verdict %s\n%s", rep.Verdict, rep.Markdown())
	}
}

// TestIntegrationDebianNumbaStatic reads the real numba sources, zipped as a
// wheel, without running them.
func TestIntegrationDebianNumbaStatic(t *testing.T) {
	rep, err := Run(context.Background(), Options{
		Package: "numba", Candidate: "0.56.4", Static: true, CandidateWheel: debianNumbaWheel(t),
		Specs: append([]Spec{{Preset: "numba-unique-ids"}, missingProbe,
			{Path: "numba.core.bytecode.FunctionIdentity.from_function", Expect: "callable", Signature: "(pyfunc)"}}, realExpectations...),
	})
	if err != nil {
		t.Fatal(err)
	}
	wantResult(t, rep.Results[0], "", Pass, OK, "_unique_ids = itertools.count(1)")
	wantResult(t, rep.Results[1], "", Pass, OK, `source contains "next(cls._unique_ids)"`)
	wantResult(t, rep.Results[2], "", Unknown, Warning, "needs Python")
	wantResult(t, rep.Results[3], "", Fail, Blocked, `segment 5 "_no_such_counter" is missing: class FunctionIdentity`)
	wantResult(t, rep.Results[4], "", Pass, OK, "signature (pyfunc)")
	wantRealExpectations(t, rep.Results[5:])
	t.Logf("\n%s", rep.Markdown())
}

// debianNumbaWheel zips Debian's numba sources (and its compiled modules'
// names) as a wheel for static mode.
func debianNumbaWheel(t *testing.T) Wheel {
	t.Helper()
	debianNumba(t)
	root := "/usr/lib/python3/dist-packages"
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	err := filepath.WalkDir(filepath.Join(root, "numba"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !(strings.HasSuffix(p, ".py") || strings.HasSuffix(p, ".so")) {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		w, err := zw.CreateHeader(&zip.FileHeader{Name: filepath.ToSlash(rel), Method: zip.Store})
		if err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		w.Write(data)
		return err
	})
	if err != nil || zw.Close() != nil {
		t.Fatal(err)
	}
	r := bytes.NewReader(buf.Bytes())
	return Wheel{R: r, Size: r.Size(), Name: "debian-numba.zip"}
}
