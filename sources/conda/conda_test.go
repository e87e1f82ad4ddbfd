package conda_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/klauspost/compress/zstd"

	"github.com/pinbot-dev/pinbot/internal/fakes"
	"github.com/pinbot-dev/pinbot/sources"
	"github.com/pinbot-dev/pinbot/sources/conda"
	"github.com/pinbot-dev/pinbot/web"
)

func client() *http.Client {
	p := web.DefaultPolicy
	p.BaseDelay, p.MaxDelay, p.Timeout = time.Millisecond, 5*time.Millisecond, time.Second
	return &http.Client{Transport: web.NewTransport(nil, p, "test", nil)}
}

var (
	day1 = time.Date(2026, 7, 1, 10, 0, 0, 0, time.UTC)
	day2 = time.Date(2026, 8, 12, 10, 0, 0, 0, time.UTC)
)

// numba on a fake conda-forge: 0.66.0 everywhere, 0.67.0 on linux-64 only
// (its win-64 build was pulled), 0.68.0rc1 on the rc label only.
func numbaFiles() []fakes.CondaFile {
	return []fakes.CondaFile{
		{Version: "0.66.0", Subdir: "linux-64", Uploaded: day1, TarBz2: true},
		{Version: "0.66.0", Subdir: "osx-arm64", Build: "py312h2a3d4f1_0", Uploaded: day1.Add(time.Hour)},
		{Version: "0.66.0", Subdir: "win-64", Build: "py312h7d8e9f0_0", Uploaded: day1.Add(2 * time.Hour)},
		{Version: "0.66.0", Subdir: "linux-64", Build: "py313h6e6e5ba_0", Uploaded: day1.Add(3 * time.Hour)},
		{Version: "0.67.0", Subdir: "linux-64", Uploaded: day2},
		{Version: "0.67.0", Subdir: "win-64", Build: "py312h7d8e9f0_0", Uploaded: day2, Labels: []string{"broken"}},
		{Version: "0.68.0rc1", Subdir: "linux-64", Uploaded: day2, Labels: []string{"rc"}},
	}
}

func byVersion(rs []sources.Release) map[string]sources.Release {
	m := map[string]sources.Release{}
	for _, r := range rs {
		if _, dup := m[r.Version]; dup {
			panic("duplicate release " + r.Version)
		}
		m[r.Version] = r
	}
	return m
}

func subdirs(r sources.Release) []string {
	var out []string
	for _, f := range r.Files {
		if !f.Yanked && !slices.Contains(out, f.Subdir) {
			out = append(out, f.Subdir)
		}
	}
	slices.Sort(out)
	return out
}

func TestAPI(t *testing.T) {
	fake := fakes.NewConda(t)
	fake.Add("conda-forge", "numba", numbaFiles()...)
	src := conda.New(conda.Options{APIURL: fake.URL}, client())
	if src.Name() != "conda-forge" || src.Scheme() != "conda" {
		t.Errorf("name %q scheme %q", src.Name(), src.Scheme())
	}
	rs, err := src.Releases(context.Background(), "numba")
	if err != nil {
		t.Fatal(err)
	}
	byV := byVersion(rs)
	r := byV["0.66.0"]
	if !r.Time.Equal(day1) || r.Yanked || !slices.Equal(subdirs(r), []string{"linux-64", "osx-arm64", "win-64"}) || len(r.Files) != 4 {
		t.Errorf("0.66.0 = %+v", r)
	}
	for _, f := range r.Files {
		if len(f.SHA256) != 64 || f.Kind != sources.KindConda || !strings.HasPrefix(f.URL, fake.URL+"/download/conda-forge/numba/0.66.0/") || f.Size == 0 {
			t.Errorf("file %+v (sha256 \"None\" must come from attrs; the URL is scheme-relative)", f)
		}
	}
	if r.Files[0].Name != "numba-0.66.0-py312h6e6e5ba_0.tar.bz2" {
		t.Errorf("name %q", r.Files[0].Name)
	}
	r = byV["0.67.0"]
	if r.Yanked || !slices.Equal(subdirs(r), []string{"linux-64"}) || len(r.Files) != 2 || !r.Files[1].Yanked {
		t.Errorf("0.67.0 (a broken win-64 build) = %+v", r)
	}
	if r, ok := byV["0.68.0rc1"]; !ok || len(r.Files) != 0 {
		t.Errorf("a version only on the rc label = %+v, %v; want listed without files", r, ok)
	}
	if len(rs) != 3 {
		t.Errorf("%d releases from duplicated versions, want 3", len(rs))
	}

	// With the rc label counted, the release candidate has its file.
	rs, _ = conda.New(conda.Options{APIURL: fake.URL, Labels: []string{"main", "rc"}}, client()).Releases(context.Background(), "numba")
	if r := byVersion(rs)["0.68.0rc1"]; len(r.Files) != 1 {
		t.Errorf("labels [main, rc]: 0.68.0rc1 = %+v", r)
	}
}

// TestShards reads the same channel through CEP-16 shards: the same releases,
// files and digests as the API for the subdirs read.
func TestShards(t *testing.T) {
	fake := fakes.NewConda(t)
	fake.IndexNames = 50
	fake.Add("conda-forge", "numba", numbaFiles()...)
	fake.Add("conda-forge", "llvmlite", fakes.CondaFile{Version: "0.50.0"})
	api, err := conda.New(conda.Options{APIURL: fake.URL}, client()).Releases(context.Background(), "numba")
	if err != nil {
		t.Fatal(err)
	}
	src := conda.New(conda.Options{RepodataURL: fake.URL}, client())
	var wg sync.WaitGroup
	var mu sync.Mutex
	var shards []sources.Release
	for _, pkg := range []string{"numba", "llvmlite", "numba"} {
		wg.Go(func() {
			rs, err := src.Releases(context.Background(), pkg)
			if err != nil {
				t.Error(err)
			}
			if pkg == "numba" {
				mu.Lock()
				shards = rs
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	// The API lists the rc-only version without files; repodata has no labels.
	want := byVersion(api)
	delete(want, "0.68.0rc1")
	got := byVersion(shards)
	opts := cmp.Options{
		cmpopts.SortSlices(func(a, b sources.File) bool { return a.Name+a.Subdir < b.Name+b.Subdir }),
		cmpopts.IgnoreFields(sources.File{}, "URL", "Size"),
		cmpopts.IgnoreFields(sources.Release{}, "YankedReason"),
	}
	// A removed (broken) file carries only its name in repodata.
	for v, r := range want {
		for i, f := range r.Files {
			if f.Yanked {
				r.Files[i] = sources.File{Name: f.Name, Kind: f.Kind, Subdir: f.Subdir, Channel: f.Channel, Yanked: true}
			}
		}
		want[v] = r
	}
	if diff := cmp.Diff(want, got, opts); diff != "" {
		t.Errorf("shards differ from the API (-api +shards):\n%s", diff)
	}
	for _, f := range got["0.66.0"].Files {
		if !strings.HasPrefix(f.URL, fake.URL+"/conda-forge/"+f.Subdir+"/numba-0.66.0-") {
			t.Errorf("URL %s", f.URL)
		}
	}
	// Each subdir's index was fetched once for the three lookups.
	indexes := 0
	for _, p := range fake.Requests() {
		if strings.HasSuffix(p, "repodata_shards.msgpack.zst") {
			indexes++
		}
	}
	if indexes != len(conda.DefaultSubdirs) {
		t.Errorf("%d index requests, want %d", indexes, len(conda.DefaultSubdirs))
	}
}

func TestNotFound(t *testing.T) {
	fake := fakes.NewConda(t)
	fake.Add("conda-forge", "numba", numbaFiles()...)
	for _, o := range []conda.Options{{APIURL: fake.URL}, {RepodataURL: fake.URL}, {RepodataURL: fake.URL, Channel: "no-such-channel"}} {
		_, err := conda.New(o, client()).Releases(context.Background(), "no-such-package")
		if !errors.Is(err, sources.ErrNotFound) {
			t.Errorf("%+v: err = %v, want ErrNotFound", o, err)
		}
	}
}

func zstdOf(s string) string {
	enc, _ := zstd.NewWriter(nil)
	return string(enc.EncodeAll([]byte(s), nil))
}

func TestFaults(t *testing.T) {
	tests := []struct {
		name    string
		path    string // "" for the API page
		faults  []fakes.Fault
		wantErr string
	}{
		{name: "500 then 200", faults: []fakes.Fault{{Status: 500}}},
		{name: "429 with Retry-After then 200", faults: []fakes.Fault{{Status: 429, Header: map[string]string{"Retry-After": "0"}, Body: "terms of service rate limit"}}},
		{name: "truncated then 200", faults: []fakes.Fault{{Truncate: true}}},
		{name: "hung then 200", faults: []fakes.Fault{{Hang: 5 * time.Second}}},
		{name: "HTML with 200", faults: []fakes.Fault{{Body: "<!DOCTYPE html><html><body>Anaconda.org is down for maintenance</body></html>"}}, wantErr: "expected JSON, got an HTML"},
		{name: "truncated JSON with 200", faults: []fakes.Fault{{Body: `{"name": "numba", "files": [{"basename": "linux-64/numba-`}}, wantErr: "invalid JSON"},
		{name: "429 every time", faults: []fakes.Fault{{Status: 429}, {Status: 429}, {Status: 429}, {Status: 429}}, wantErr: "429"},
		{name: "shard index 500 then 200", path: "/conda-forge/linux-64/repodata_shards.msgpack.zst", faults: []fakes.Fault{{Status: 500}}},
		{name: "shard index truncated then 200", path: "/conda-forge/osx-arm64/repodata_shards.msgpack.zst", faults: []fakes.Fault{{Truncate: true}}},
		{name: "shard index HTML with 200", path: "/conda-forge/linux-64/repodata_shards.msgpack.zst", faults: []fakes.Fault{{Body: "<html>gateway</html>"}}, wantErr: "not a zstd stream"},
		{name: "shard index zstd but not msgpack", path: "/conda-forge/noarch/repodata_shards.msgpack.zst", faults: []fakes.Fault{{Body: zstdOf(`{"shards": {}}`)}}, wantErr: "invalid shard index"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := fakes.NewConda(t)
			fake.Add("conda-forge", "numba", numbaFiles()...)
			o := conda.Options{APIURL: fake.URL}
			path := "/package/conda-forge/numba"
			if tt.path != "" {
				o, path = conda.Options{RepodataURL: fake.URL}, tt.path
			}
			fake.Fail(path, tt.faults...)
			rs, err := conda.New(o, client()).Releases(context.Background(), "numba")
			if tt.wantErr == "" {
				if err != nil || len(rs) == 0 {
					t.Fatalf("Releases = %d, %v; want success after retry", len(rs), err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("err = %v, want %q", err, tt.wantErr)
			}
		})
	}
}

// TestLabelChannel: a label channel ("numba/label/dev") asks anaconda.org for
// the owner's package and counts only the files with that label; it is still
// named by the whole channel.
func TestLabelChannel(t *testing.T) {
	fake := fakes.NewConda(t)
	fake.Add("numba", "llvmlite",
		fakes.CondaFile{Version: "0.49.0", Uploaded: day1},
		fakes.CondaFile{Version: "0.50.0dev0", Uploaded: day2, Labels: []string{"dev"}})
	src := conda.New(conda.Options{Channel: "numba/label/dev", APIURL: fake.URL, Labels: []string{"main"}}, client())
	if src.Name() != "numba/label/dev" {
		t.Errorf("Name() = %q", src.Name())
	}
	rs, err := src.Releases(context.Background(), "llvmlite")
	if err != nil {
		t.Fatal(err)
	}
	var withFiles []string
	for _, r := range rs {
		if len(r.Files) > 0 {
			withFiles = append(withFiles, r.Version)
		}
	}
	if !slices.Equal(withFiles, []string{"0.50.0dev0"}) {
		t.Errorf("releases with files %v, want only the dev-labelled 0.50.0dev0", withFiles)
	}
}

// TestHostileShards serves shard indexes and shards made to exhaust memory:
// headers declaring billions of items (the fuzz crasher among them), a zstd
// frame that declares or decompresses to more than the cap. Each is an
// error naming the URL, and decoding allocates next to nothing.
func TestHostileShards(t *testing.T) {
	bomb := zstdOf(strings.Repeat("\x00", 100<<20))
	tests := []struct {
		name, path, body, wantErr string
	}{
		{"index: map of 3.6 billion shards", "/conda-forge/linux-64/repodata_shards.msgpack.zst",
			zstdOf("\x82\xa7version\x01\xa6shards\xdf\xd6\x93\xa4\x00"), "invalid shard index"},
		{"index: string of 4 GB", "/conda-forge/linux-64/repodata_shards.msgpack.zst",
			zstdOf("\x81\xdb\xff\xff\xff\xffabc"), "invalid shard index"},
		{"index: zstd bomb", "/conda-forge/linux-64/repodata_shards.msgpack.zst", bomb, "decompresses to more than"},
		{"shard: removed array of 3.6 billion", "shard",
			zstdOf("\x83\xa8packages\x80\xaepackages.conda\x80\xa7removed\xdd\xd6\x93\xa4\x00"), "invalid shard"},
		{"shard: record map of 4 billion keys", "shard",
			zstdOf("\x81\xa8packages\x81\xa1x\xdf\xff\xff\xff\xff"), "invalid shard"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := fakes.NewConda(t)
			fake.Add("conda-forge", "numba", numbaFiles()...)
			src := conda.New(conda.Options{RepodataURL: fake.URL, Subdirs: []string{"linux-64"}}, client())
			path := tt.path
			if path == "shard" {
				// The shard's path comes from the index: ask once to learn it.
				if _, err := src.Releases(context.Background(), "numba"); err != nil {
					t.Fatal(err)
				}
				for _, p := range fake.Requests() {
					if strings.Contains(p, "/linux-64/shards/") {
						path = p
					}
				}
				src = conda.New(conda.Options{RepodataURL: fake.URL, Subdirs: []string{"linux-64"}}, client())
			}
			fake.Fail(path, fakes.Fault{Body: tt.body})
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			_, err := src.Releases(context.Background(), "numba")
			runtime.ReadMemStats(&after)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.Contains(err.Error(), fake.URL) {
				t.Fatalf("err = %v, want %q naming the URL", err, tt.wantErr)
			}
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 80<<20 {
				t.Errorf("decoding allocated %d MB", alloc>>20)
			}
		})
	}
}

// TestFileRecords: both ways in give each file its build string and number,
// its run requirements, and the sha256 and size of the bytes its URL
// serves, which the checks download and verify.
func TestFileRecords(t *testing.T) {
	fake := fakes.NewConda(t)
	files := []fakes.CondaFile{
		{Version: "2.18.0", Build: "cpu_py312h1a2b3c4_1", Depends: []string{"python >=3.12,<3.13.0a0", "tensorflow-base 2.18.0 cpu_py312h1a2b3c4_1"},
			Members: []fakes.ArchiveMember{{Name: "info/about.json", Data: []byte("{}")}}},
		{Version: "2.18.0", Build: "cpu_py311h1a2b3c4_0", TarBz2: true, Depends: []string{"python >=3.11,<3.12.0a0"},
			Members: []fakes.ArchiveMember{{Name: "lib/x.txt", Data: []byte("x")}}},
	}
	fake.Add("conda-forge", "tensorflow", files...)
	for name, opts := range map[string]conda.Options{"api": {APIURL: fake.URL}, "shards": {RepodataURL: fake.URL, Subdirs: []string{"linux-64"}}} {
		rs, err := conda.New(opts, client()).Releases(context.Background(), "tensorflow")
		if err != nil || len(rs) != 1 || len(rs[0].Files) != 2 {
			t.Fatalf("%s: %+v, %v", name, rs, err)
		}
		got := rs[0].Files
		slices.SortFunc(got, func(a, b sources.File) int { return strings.Compare(b.Name, a.Name) })
		for i, f := range got {
			want := files[i]
			data := fake.Package("conda-forge", "linux-64", f.Name)
			sum := sha256.Sum256(data)
			if f.Build != want.Build || f.BuildNumber != i^1 || f.Channel != "conda-forge" || !slices.Equal(f.Depends, want.Depends) ||
				f.Size != int64(len(data)) || f.SHA256 != hex.EncodeToString(sum[:]) {
				t.Errorf("%s: file %+v, want build %s, depends %q, %d bytes", name, f, want.Build, want.Depends, len(data))
			}
			_, body, err := web.Get(context.Background(), client(), f.URL, nil)
			if err != nil || !bytes.Equal(body, data) {
				t.Errorf("%s: %s serves %d bytes, %v; want the package", name, f.URL, len(body), err)
			}
		}
	}
}

// slowClient's requests each get a minute, attempts and backoffs included:
// only a lookup's Budget ends them sooner.
func slowClient() *http.Client {
	p := web.DefaultPolicy
	p.Timeout, p.Budget, p.BaseDelay, p.MaxDelay = time.Minute, time.Minute, 30*time.Second, 30*time.Second
	return &http.Client{Transport: web.NewTransport(nil, p, "test", nil)}
}

// shardPath returns the path of pkg's shard in a channel's linux-64 subdir,
// as its index names it.
func shardPath(t *testing.T, fake *fakes.Conda, channel, pkg string) string {
	t.Helper()
	fake.ResetLog()
	if _, err := conda.New(conda.Options{Channel: channel, RepodataURL: fake.URL, Subdirs: []string{"linux-64"}}, client()).Releases(context.Background(), pkg); err != nil {
		t.Fatal(err)
	}
	for _, p := range fake.Requests() {
		if strings.HasPrefix(p, "/"+channel+"/linux-64/shards/") {
			fake.ResetLog()
			return p
		}
	}
	t.Fatalf("no linux-64 shard of %s requested: %q", pkg, fake.Requests())
	return ""
}

// TestLookupBudget: a channel that answers a lookup's first request (the
// shard index) and hangs on, or drips, the second (the package's shard)
// fails that package's lookup at Options.Budget, though each request alone
// may take a minute; the error is a *web.BudgetError naming the package, the
// channel and the shard left unanswered. Another package of the same channel,
// whose shard answers, and a package of a healthy channel fetched with the
// same client, keep their results.
func TestLookupBudget(t *testing.T) {
	for name, fault := range map[string]fakes.Fault{"hang": {Hang: time.Hour}, "drip": {Drip: time.Second}} {
		t.Run(name, func(t *testing.T) {
			fake := fakes.NewConda(t)
			fake.Add("conda-forge", "numba", numbaFiles()...)
			fake.Add("conda-forge", "llvmlite", fakes.CondaFile{Version: "0.50.0"})
			fake.Add("bioconda", "pysam", fakes.CondaFile{Version: "0.23.0"})
			shard := shardPath(t, fake, "conda-forge", "numba")
			fake.Fail(shard, fault)

			hc := slowClient()
			o := conda.Options{RepodataURL: fake.URL, Subdirs: []string{"linux-64"}, Budget: time.Second}
			forge := conda.New(o, hc)
			o.Channel = "bioconda"
			bio := conda.New(o, hc)
			var wg sync.WaitGroup
			var numbaErr, llvmErr, bioErr error
			var took time.Duration
			start := time.Now()
			wg.Go(func() {
				_, numbaErr = forge.Releases(context.Background(), "numba")
				took = time.Since(start)
			})
			wg.Go(func() { _, llvmErr = forge.Releases(context.Background(), "llvmlite") })
			wg.Go(func() { _, bioErr = bio.Releases(context.Background(), "pysam") })
			wg.Wait()

			var be *web.BudgetError
			want := "the lookup of numba on the conda channel conda-forge timed out: no result within 1s, the time one request may take: no complete answer from " + fake.URL + shard
			if !errors.As(numbaErr, &be) || !errors.Is(numbaErr, context.DeadlineExceeded) || numbaErr.Error() != want {
				t.Errorf("numba: err = %v\nwant %s", numbaErr, want)
			}
			if took > 20*time.Second { // a bound, not a speed target: the shard's request alone may take a minute
				t.Errorf("numba's lookup took %s for a budget of 1s", took)
			}
			if llvmErr != nil || bioErr != nil {
				t.Errorf("llvmlite: %v; pysam on bioconda: %v; want both found", llvmErr, bioErr)
			}
		})
	}
}

// TestSharedIndexOutlivesLookup: a shard index that is slow to answer ends
// the lookup that waits for it at its budget, with an error naming the
// index, but not the fetch itself, which other packages share: once it
// answers, the next lookup uses it without fetching it again.
func TestSharedIndexOutlivesLookup(t *testing.T) {
	fake := fakes.NewConda(t)
	fake.Add("conda-forge", "numba", numbaFiles()...)
	fake.Add("conda-forge", "llvmlite", fakes.CondaFile{Version: "0.50.0"})
	const index = "/conda-forge/linux-64/repodata_shards.msgpack.zst"
	fake.Fail(index, fakes.Fault{Hang: 600 * time.Millisecond})
	src := conda.New(conda.Options{RepodataURL: fake.URL, Subdirs: []string{"linux-64"}, Budget: 200 * time.Millisecond}, slowClient())

	_, err := src.Releases(context.Background(), "numba")
	var be *web.BudgetError
	if !errors.As(err, &be) || !strings.HasSuffix(err.Error(), ": no complete answer from "+fake.URL+index) {
		t.Fatalf("numba: err = %v, want a *web.BudgetError naming the index", err)
	}
	// The fetch goes on after the lookup gave up: wait for its answer.
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		log := fake.Log()
		if i := slices.IndexFunc(log, func(r fakes.Request) bool { return r.Path == index }); i >= 0 && log[i].Status == http.StatusOK {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the index fetch did not complete after numba's lookup gave up: %+v", log)
		}
	}
	if _, err := src.Releases(context.Background(), "llvmlite"); err != nil {
		t.Fatalf("llvmlite: %v", err)
	}
	n := 0
	for _, p := range fake.Requests() {
		if p == index {
			n++
		}
	}
	if n != 1 {
		t.Errorf("the index was requested %d times, want once: %q", n, fake.Requests())
	}
}

// TestUnansweredIndexRemembered: a channel whose shard index does not
// answer (it hangs past the request's time) fails the first lookup that
// waits for it, and every later lookup of the same Source (one run) at once,
// with an error naming the channel, saying the index did not answer earlier
// in this run and carrying the first failure; the index is not asked again.
// A package of a healthy channel fetched with the same client is found, and
// a new Source (the next run) asks again. One hung answer is queued: a
// Source that asked again would get the index, and find the packages.
func TestUnansweredIndexRemembered(t *testing.T) {
	fake := fakes.NewConda(t)
	fake.Add("conda-forge", "numba", numbaFiles()...)
	fake.Add("conda-forge", "llvmlite", fakes.CondaFile{Version: "0.50.0"})
	fake.Add("conda-forge", "scipy", fakes.CondaFile{Version: "1.16.0"})
	fake.Add("bioconda", "pysam", fakes.CondaFile{Version: "0.23.0"})
	const index, noarch = "/conda-forge/linux-64/repodata_shards.msgpack.zst", "/conda-forge/noarch/repodata_shards.msgpack.zst"
	fake.Fail(index, fakes.Fault{Hang: time.Hour})

	// Each request gets a second, all attempts included; a lookup gets
	// three, so that the index fetch's own failure, not the first lookup's
	// bound, is what the first lookup reports.
	p := web.DefaultPolicy
	p.Timeout, p.Budget = time.Second, time.Second
	hc := &http.Client{Transport: web.NewTransport(nil, p, "test", nil)}
	o := conda.Options{RepodataURL: fake.URL, Subdirs: []string{"linux-64"}, Budget: 3 * time.Second}
	forge := conda.New(o, hc)

	start := time.Now()
	_, err := forge.Releases(context.Background(), "numba")
	if took := time.Since(start); took > 20*time.Second { // a bound, not a speed target
		t.Errorf("numba's lookup took %s for a budget of 3s", took)
	}
	if err == nil || !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), fake.URL+index) || strings.Contains(err.Error(), "earlier") {
		t.Fatalf("numba: err = %v, want the index's timeout, naming it", err)
	}
	first := err.Error()
	for _, pkg := range []string{"llvmlite", "scipy"} {
		start := time.Now()
		_, err := forge.Releases(context.Background(), pkg)
		if took := time.Since(start); took > 500*time.Millisecond { // asking the index again would take a second
			t.Errorf("%s: the lookup took %s; want it to fail at once", pkg, took)
		}
		want := "the conda channel conda-forge did not answer for its linux-64 shard index earlier in this run (not asked again until the next run): " + first
		if err == nil || err.Error() != want || !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, sources.ErrNotFound) {
			t.Errorf("%s: err = %v\nwant %s", pkg, err, want)
		}
	}
	o.Channel = "bioconda"
	if _, err := conda.New(o, hc).Releases(context.Background(), "pysam"); err != nil {
		t.Errorf("pysam on bioconda: %v", err)
	}
	count := func(path string) int {
		n := 0
		for _, p := range fake.Requests() {
			if p == path {
				n++
			}
		}
		return n
	}
	if n, m := count(index), count(noarch); n != 1 || m != 1 {
		t.Errorf("conda-forge's linux-64 index requested %d times, noarch %d; want once each: %q", n, m, fake.Requests())
	}

	// The next run asks again.
	o.Channel = "conda-forge"
	if _, err := conda.New(o, hc).Releases(context.Background(), "scipy"); err != nil || count(index) != 2 {
		t.Errorf("scipy in a new Source: %v, index requested %d times; want it asked again and found", err, count(index))
	}
}

// TestIndexFailureKinds: a channel that refuses connections is remembered
// like one that hangs; one that answers, if only with an error status every
// time, is asked again by the next lookup, and a subdir it does not have
// (404) stays a normal answer.
func TestIndexFailureKinds(t *testing.T) {
	t.Run("refused", func(t *testing.T) {
		srv := httptest.NewServer(http.NotFoundHandler())
		url := srv.URL
		srv.Close()
		src := conda.New(conda.Options{RepodataURL: url, Subdirs: []string{"linux-64"}, Budget: time.Minute}, client())
		_, first := src.Releases(context.Background(), "numba")
		_, err := src.Releases(context.Background(), "llvmlite")
		var oe *net.OpError
		if first == nil || err == nil || !strings.Contains(err.Error(), "did not answer for its linux-64 shard index earlier in this run") ||
			!strings.HasSuffix(err.Error(), first.Error()) || !errors.As(err, &oe) {
			t.Errorf("numba: %v\nllvmlite: %v\nwant llvmlite's error to say the channel did not answer earlier, and numba's why", first, err)
		}
	})
	t.Run("500 every time", func(t *testing.T) {
		fake := fakes.NewConda(t)
		fake.Add("conda-forge", "numba", numbaFiles()...)
		const index = "/conda-forge/linux-64/repodata_shards.msgpack.zst"
		fake.Fail(index, fakes.Fault{Status: 500}, fakes.Fault{Status: 500}, fakes.Fault{Status: 500}, fakes.Fault{Status: 500})
		src := conda.New(conda.Options{RepodataURL: fake.URL, Subdirs: []string{"linux-64"}, Budget: time.Minute}, client())
		if _, err := src.Releases(context.Background(), "numba"); err == nil || !strings.Contains(err.Error(), "500") {
			t.Fatalf("numba: err = %v, want the 500", err)
		}
		if _, err := src.Releases(context.Background(), "numba"); err != nil {
			t.Errorf("numba asked again: %v, want found", err)
		}
	})
	t.Run("404", func(t *testing.T) {
		fake := fakes.NewConda(t)
		fake.Add("conda-forge", "numba", numbaFiles()...)
		src := conda.New(conda.Options{RepodataURL: fake.URL, Subdirs: []string{"linux-64", "no-such-subdir"}, Budget: time.Minute}, client())
		for range 2 {
			if _, err := src.Releases(context.Background(), "numba"); err != nil {
				t.Errorf("numba with a subdir the channel lacks: %v", err)
			}
		}
	})
}
