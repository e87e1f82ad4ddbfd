package probe

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestFakeResolveError: a release that resolves alone but not with the
// project's constraints is a *ResolveError with the resolver's message; one
// that does not resolve at all stays an *InstallError.
func TestFakeResolveError(t *testing.T) {
	f := newFake(t)
	opts := fakeOpts(t, f)
	opts.Constraints = []Constraint{{Requirement: "numpy<2", Origin: "pyproject.toml:5"}}
	impossible := &Output{ExitCode: 1, Stdout: []byte("Looking in links: /x\nProcessing ./numba.whl\nINFO: pip is looking at multiple versions\n\nThe conflict is caused by:\n    numba 0.67.0 depends on numpy>=1.22\n    The user requested (constraint) numpy<2\n\nTo fix this you could try to:\n1. loosen the range\n2. remove package versions\n\n"),
		Stderr: []byte("ERROR: Cannot install numba==0.67.0 because these package versions have conflicting dependencies.\nERROR: ResolutionImpossible: for help visit https://pip.pypa.io/x\n")}
	f.resolve = func(args []string) (*Output, error) {
		if slices.Contains(args, "-c") {
			return impossible, nil
		}
		f.resolve = nil // without the constraints it resolves
		return f.Run(context.Background(), &Command{Args: args})
	}
	_, err := Run(context.Background(), opts)
	var re *ResolveError
	if !errors.As(err, &re) || re.Version != "0.67.0" {
		t.Fatalf("err = %v", err)
	}
	want := "numba 0.67.0 cannot be installed with the project's constraints numpy<2 (pyproject.toml:5): " +
		"Cannot install numba==0.67.0 because these package versions have conflicting dependencies.; " +
		"The conflict is caused by: numba 0.67.0 depends on numpy>=1.22; The user requested (constraint) numpy<2"
	if re.Error() != want {
		t.Errorf("error\n got %s\nwant %s", re.Error(), want)
	}
	// Not resolvable even alone: the release does not install.
	f.resolve = func([]string) (*Output, error) { return impossible, nil }
	_, err = Run(context.Background(), opts)
	var ie *InstallError
	if errors.As(err, &re) || !errors.As(err, &ie) {
		t.Errorf("err = %v, want an InstallError", err)
	}
	opts.Constraints = []Constraint{{Requirement: "numpy<2\n--index-url=http://evil"}}
	if _, err := Run(context.Background(), opts); err == nil || !strings.Contains(err.Error(), "not a name with a version specifier") {
		t.Errorf("a constraint with a line break: %v", err)
	}
}

// TestFakeConstraintsReachTheInstaller: the constraints file holds the
// project's requirements, and the resolution records which it honoured.
func TestFakeConstraintsReachTheInstaller(t *testing.T) {
	f := newFake(t)
	opts := fakeOpts(t, f)
	opts.Constraints = []Constraint{{Requirement: "numpy<2.5", Origin: "pyproject.toml:5"}, {Requirement: `llvmlite>=0.44; python_version >= "3.10"`, Origin: "requirements.txt:2"}}
	var constraints string
	f.resolve = func(args []string) (*Output, error) {
		b, _ := os.ReadFile(args[slices.Index(args, "-c")+1])
		constraints = string(b)
		f.resolve = nil
		return f.Run(context.Background(), &Command{Args: args})
	}
	rep, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if constraints != "numpy<2.5\nllvmlite>=0.44; python_version >= \"3.10\"\n" {
		t.Errorf("constraints file %q", constraints)
	}
	if len(rep.Constraints) != 2 || rep.Constraints[0].String() != "numpy<2.5 (pyproject.toml:5)" {
		t.Errorf("report constraints %+v", rep.Constraints)
	}
	// Other constraints are another request: pip is asked again (the first
	// time by installing and reporting), with the new constraints.
	opts.Constraints = opts.Constraints[:1]
	f.calls = nil
	if _, err := Run(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	if argv := f.argv(); len(argv) != 4 || !slices.Contains(argv[2], "--report") || !slices.Contains(argv[2], "-c") {
		t.Errorf("other constraints: %q", argv)
	}
	// The same again: the resolution stands (the wheel directory did not
	// change) and the environment is reused.
	f.calls = nil
	if _, err := Run(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	if argv := f.argv(); len(argv) != 2 {
		t.Errorf("unchanged constraints: %q", argv)
	}
}

func TestMovedBlame(t *testing.T) {
	day := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	rec := &resolveRecord{
		Dists: []Dist{{"numba", "0.63.0b1"}, {"numpy", "2.5.2"}, {"llvmlite", "0.46.0"}},
		History: []pastResolution{
			{Dists: []Dist{{"numba", "0.63.0b1"}, {"numpy", "2.4.6"}, {"llvmlite", "0.46.0"}}, Until: day, Results: map[string]Status{"k": Pass, "other": Fail}},
		},
		changed: true,
	}
	req := []string{"llvmlite<0.47,>=0.46.0dev0", "numpy>=1.22", `scipy; extra == "scipy"`}
	got := movedBlame(rec, "k", "numba", "0.63.0b1", req)
	if want := "numba 0.63.0b1 fails with numpy 2.5.2 (new since the last run); numba declares numpy>=1.22 with no cap; the last run passed with numpy 2.4.6"; got != want {
		t.Errorf("new since the last run:\n got %s\nwant %s", got, want)
	}
	rec.changed = false
	if got := movedBlame(rec, "k", "numba", "0.63.0b1", req); got != "numba 0.63.0b1 fails with numpy 2.5.2 (new since 2026-03-01); numba declares numpy>=1.22 with no cap; it passed with numpy 2.4.6 until then" {
		t.Errorf("later run: %s", got)
	}
	if got := movedBlame(rec, "other", "numba", "0.63.0b1", req); got != "" {
		t.Errorf("a probe that failed before too is not blamed on a dependency: %s", got)
	}
	// A capped dependency that moved within its cap.
	rec.Dists[2].Version = "0.46.1"
	rec.Dists[1].Version = "2.4.6"
	if got := movedBlame(rec, "k", "numba", "0.63.0b1", req); !strings.Contains(got, "numba declares llvmlite<0.47,>=0.46.0dev0 and admits 0.46.1") {
		t.Errorf("capped: %s", got)
	}
	if got := movedBlame(nil, "k", "numba", "1", req); got != "" {
		t.Errorf("no record: %s", got)
	}
}

func TestDiffDistsAndDeclared(t *testing.T) {
	got := diffDists([]Dist{{"numba", "0.62.0"}, {"NumPy", "2.4.6"}, {"old", "1"}, {"same", "1.0"}},
		[]Dist{{"numba", "0.63.0"}, {"numpy", "2.5.2"}, {"new", "2"}, {"same", "1"}}, "numba")
	want := []Change{{Name: "new", To: "2"}, {Name: "numpy", From: "2.4.6", To: "2.5.2"}, {Name: "old", From: "1"}}
	if !slices.Equal(got, want) {
		t.Errorf("diffDists = %+v", got)
	}
	if s := want[0].String() + "|" + want[1].String() + "|" + want[2].String(); s != "new 2 (new)|numpy 2.4.6 → 2.5.2|old 1 (gone)" {
		t.Errorf("Change.String = %s", s)
	}
	for _, tt := range []struct {
		reqs []string
		dist string
		want string
		cap  bool
	}{
		{[]string{"numpy>=1.22"}, "numpy", "numpy>=1.22", false},
		{[]string{"NumPy (>=1.22,<2.5) ; python_version>'3'"}, "numpy", "NumPy (>=1.22,<2.5)", true},
		{[]string{"numpy-quaternion>=1"}, "numpy", "", false},
		{[]string{"llvmlite~=0.46.0"}, "llvmlite", "llvmlite~=0.46.0", true},
		{[]string{"scipy!=1.0"}, "scipy", "scipy!=1.0", false},
		{nil, "numpy", "", false},
	} {
		got := declared(tt.reqs, tt.dist)
		if got != tt.want || (got != "" && hasCap(got) != tt.cap) {
			t.Errorf("declared(%q, %s) = %q (cap %v)", tt.reqs, tt.dist, got, hasCap(got))
		}
	}
}

func TestReadResolverOutput(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(s), 0o644)
		return p
	}
	ds, err := readPipReport(write("r.json", `{"version": "1", "install": [{"metadata": {"name": "numpy", "version": "2.5.2"}, "requested": false},
		{"metadata": {"name": "Numba", "version": "0.63.0b1"}, "requested": true}]}`))
	if err != nil || !slices.Equal(ds, []Dist{{"Numba", "0.63.0b1"}, {"numpy", "2.5.2"}}) {
		t.Errorf("readPipReport = %+v, %v", ds, err)
	}
	ds, err = readUVCompile(write("u.txt", "# generated\nnumba==0.63.0b1\n    # via -r requirements.in\nnumpy==2.5.2 ; python_version >= '3.10'\n--index-url https://x\n"))
	if err != nil || !slices.Equal(ds, []Dist{{"numba", "0.63.0b1"}, {"numpy", "2.5.2"}}) {
		t.Errorf("readUVCompile = %+v, %v", ds, err)
	}
	for name, bad := range map[string]string{
		"r1.json": `{"install": [{"metadata": {"name": "../../etc", "version": "1"}}]}`,
		"r2.json": `{"install": [{"metadata": {"name": "x", "version": "1; rm -rf /"}}]}`,
		"r3.json": `{"install": []}`,
		"r4.json": `not json`,
		"u1.txt":  "numba @ https://evil/numba.whl\n",
		"u2.txt":  "\n# nothing\n",
	} {
		p := write(name, bad)
		read := readUVCompile
		if strings.HasSuffix(name, ".json") {
			read = readPipReport
		}
		if ds, err := read(p); err == nil {
			t.Errorf("%s: %+v, want an error", name, ds)
		}
	}
	big := write("big.json", strings.Repeat(" ", maxReport+1))
	if _, err := readPipReport(big); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("oversized report: %v", err)
	}
}

// TestRevalidate serves index pages with and without validators: unchanged
// pages answer 304 (or the same digest) and keep the resolution; a changed
// page, a missing validator set or a failed request does not.
func TestRevalidate(t *testing.T) {
	ps := newPageServer(t)
	mu, pages, srv := &ps.mu, ps.pages, ps.srv
	etags, conditional := &ps.etags, &ps.conditional
	opts := &Options{Index: srv.URL + "/simple"}
	dists := []Dist{{"numba", "1"}, {"NumPy", "2"}}
	v, ok := validators(context.Background(), opts, dists)
	if !ok || len(v) != 2 || v["numpy"].ETag != `"numpy v1"` {
		t.Fatalf("validators = %+v, %v", v, ok)
	}
	if _, ok := unchanged(context.Background(), opts, dists, v); !ok || *conditional != 2 {
		t.Errorf("unchanged pages: ok %v, %d conditional requests", ok, *conditional)
	}
	if _, ok := unchanged(context.Background(), opts, dists, nil); ok {
		t.Error("no stored validators counts as unchanged")
	}
	mu.Lock()
	pages["/simple/numpy/"] = "numpy v2"
	mu.Unlock()
	if _, ok := unchanged(context.Background(), opts, dists, v); ok {
		t.Error("a changed page counts as unchanged")
	}
	// Without ETags the digest decides.
	mu.Lock()
	*etags = false
	mu.Unlock()
	v, _ = validators(context.Background(), opts, dists)
	if _, ok := unchanged(context.Background(), opts, dists, v); !ok || v["numba"].SHA256 == "" {
		t.Errorf("same body without validators: ok %v %+v", ok, v)
	}
	mu.Lock()
	pages["/simple/numba/"] = "numba v2"
	mu.Unlock()
	if _, ok := unchanged(context.Background(), opts, dists, v); ok {
		t.Error("a changed body without validators counts as unchanged")
	}
	if _, ok := unchanged(context.Background(), opts, []Dist{{"gone", "1"}}, map[string]pageValidator{"gone": {SHA256: "x"}}); ok {
		t.Error("a page that is gone counts as unchanged")
	}
	// An index from the caller's settings cannot be followed.
	if _, ok := validators(context.Background(), &Options{}, dists); ok {
		t.Error("no index given, yet validators")
	}
	// A wheel directory: its listing decides.
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "numba-1-py3-none-any.whl"), []byte("x"), 0o644)
	dopts := &Options{Index: dir}
	v, ok = validators(context.Background(), dopts, dists)
	if _, same := unchanged(context.Background(), dopts, dists, v); !ok || !same {
		t.Error("an unchanged directory")
	}
	os.WriteFile(filepath.Join(dir, "numpy-2-py3-none-any.whl"), []byte("x"), 0o644)
	if _, same := unchanged(context.Background(), dopts, dists, v); same {
		t.Error("a new wheel in the directory counts as unchanged")
	}
}

func TestCheckConstraintAndMessage(t *testing.T) {
	for req, ok := range map[string]bool{
		"numpy<2.5": true, `numpy>=1.22,<2.5; python_version >= "3.10"`: true,
		"": false, "-e git+https://x": false, "numpy @ https://x": false, "numpy[extra]<2": false,
		"numpy<2\n--index-url x": false, "numpy<2 # c": false, " numpy": false, "numpy\\": false,
	} {
		if err := checkConstraint(req); (err == nil) != ok {
			t.Errorf("checkConstraint(%q) = %v", req, err)
		}
	}
	if got := resolverMessage("  × No solution found when resolving dependencies:\n  ╰─▶ Because numba==1 depends on numpy>=1.22 and you require numpy<1, we can conclude that your requirements are unsatisfiable.\n"); !strings.Contains(got, "Because numba==1 depends on numpy>=1.22") {
		t.Errorf("uv's message: %q", got)
	}
}

// TestRecordTrustsOnlyValidatorsTakenBefore: a distribution new to a
// resolution gets no validator fetched after the installer ran, since its
// page may have changed after the installer read it (here numpy v2 is out by
// then); the next run must resolve again rather than take the resolution
// for current.
func TestRecordTrustsOnlyValidatorsTakenBefore(t *testing.T) {
	ps := newPageServer(t)
	mu, pages, srv := &ps.mu, ps.pages, ps.srv
	opts := &Options{Index: srv.URL + "/simple", Package: "numba", CacheDir: t.TempDir()}
	py := &pyInfo{Version: "3.11.7", Executable: "/opt/py/bin/python3.11"}
	ctx := context.Background()
	// The last resolution knew numba only; its page's validator is taken
	// before the installer runs.
	before, ok := validators(ctx, opts, []Dist{{"numba", "1"}})
	if !ok {
		t.Fatal("no validators")
	}
	// The installer reads numpy v1 and resolves numpy 1; numpy 2 is out
	// before pinbot could have fetched the page itself.
	mu.Lock()
	pages["/simple/numpy/"] = "numpy v2"
	mu.Unlock()
	rec := record(opts, py, "1", []Dist{{"numba", "1"}, {"numpy", "1"}}, before)
	if _, ok := rec.Pages["numba"]; !ok {
		t.Errorf("numba's validator taken before was not kept: %+v", rec.Pages)
	}
	if v, ok := rec.Pages["numpy"]; ok {
		t.Errorf("numpy got a validator fetched after the installer ran: %+v", v)
	}
	if _, ok := unchanged(ctx, opts, rec.Dists, rec.Pages); ok {
		t.Error("the next run would take the resolution for current although numpy's page changed after the installer read it")
	}
	// The next resolution takes every page's validator first: from then on
	// an unchanged index is recognised.
	before, _ = validators(ctx, opts, rec.Dists)
	rec = record(opts, py, "1", []Dist{{"numba", "1"}, {"numpy", "2"}}, before)
	if _, ok := unchanged(ctx, opts, rec.Dists, rec.Pages); !ok {
		t.Errorf("an unchanged index after a full resolution: pages %+v", rec.Pages)
	}
}

// pageServer is an index serving the simple pages of numba and numpy, with
// ETags (answering If-None-Match with 304) unless etags is turned off.
type pageServer struct {
	mu          sync.Mutex
	pages       map[string]string // path -> body
	etags       bool
	conditional int // 304s answered
	srv         *httptest.Server
}

func newPageServer(t *testing.T) *pageServer {
	ps := &pageServer{pages: map[string]string{"/simple/numba/": "numba v1", "/simple/numpy/": "numpy v1"}, etags: true}
	ps.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ps.mu.Lock()
		defer ps.mu.Unlock()
		body, ok := ps.pages[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		etag := `"` + body + `"`
		if ps.etags {
			w.Header().Set("ETag", etag)
			if r.Header.Get("If-None-Match") == etag {
				ps.conditional++
				w.WriteHeader(http.StatusNotModified)
				return
			}
		}
		w.Write([]byte(body))
	}))
	t.Cleanup(ps.srv.Close)
	return ps
}

// TestResolveKeyBaselineWith: the releases installed beside the baseline
// (BaselineWith) key its resolution, as With keys the candidate's, and
// each keys only its own side's.
func TestResolveKeyBaselineWith(t *testing.T) {
	py := &pyInfo{Version: "3.11.7", Executable: "/opt/py/bin/python3.11", Pip: "23.2.1"}
	opts := &Options{Package: "protobuf", Baseline: "4.0.0", Candidate: "5.0.0", CacheDir: "/cache", With: []string{"legacy-gen==2.0.0"}}
	alone, _ := resolveRequest(opts, py, "4.0.0")
	cand, _ := resolveRequest(opts, py, "5.0.0")
	opts.BaselineWith = []string{"legacy-gen==1.0.0"}
	beside, req := resolveRequest(opts, py, "4.0.0")
	if beside == alone || req["with"] != "legacy-gen==1.0.0" {
		t.Errorf("the baseline's key ignores BaselineWith: %s, %+v", beside, req)
	}
	if again, _ := resolveRequest(opts, py, "5.0.0"); again != cand {
		t.Errorf("BaselineWith changed the candidate's key: %s, was %s", again, cand)
	}
	if got := installsFor(opts, "4.0.0"); len(got) != 2 || got[1] != [2]string{"legacy-gen", "1.0.0"} {
		t.Errorf("baseline installs %v", got)
	}
}
