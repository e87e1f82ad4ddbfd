package pypi_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pinbot-dev/pinbot/internal/fakes"
	"github.com/pinbot-dev/pinbot/sources"
	"github.com/pinbot-dev/pinbot/sources/pypi"
)

func numbaWithQuirks() []fakes.Release {
	return append(fakes.NumbaReleases(),
		fakes.Release{Version: "0.66.1", Yanked: true, YankedReason: "broken wheel for py3.14"},
		fakes.Release{Version: "0.66.2", Yanked: true},
		fakes.Release{Version: "0.67.1", Wheels: []string{"cp312-cp312-macosx_11_0_arm64", "cp39-abi3-win_amd64", "py3-none-any"}},
	)
}

func byVersion(rs []sources.Release) map[string]sources.Release {
	m := map[string]sources.Release{}
	for _, r := range rs {
		m[r.Version] = r
	}
	return m
}

func TestSimple(t *testing.T) {
	fake := fakes.NewPyPI(t)
	fake.Add("numba", numbaWithQuirks()...)
	src := pypi.NewSimple(fake.URL, client())
	rs, err := src.Releases(context.Background(), "Numba")
	if err != nil {
		t.Fatal(err)
	}
	byV := byVersion(rs)
	if len(rs) != len(numbaWithQuirks()) {
		t.Errorf("%d releases, want %d", len(rs), len(numbaWithQuirks()))
	}
	r := byV["0.67.0"]
	if len(r.Files) != 2 || r.Yanked || !r.Time.Equal(time.Date(2026, 8, 11, 14, 0, 0, 0, time.UTC)) {
		t.Errorf("0.67.0 = %+v", r)
	}
	whl := r.Files[1]
	wantWhl := sources.File{
		Name:   "numba-0.67.0-cp312-cp312-manylinux2014_x86_64.manylinux_2_17_x86_64.whl",
		URL:    fake.URL + "/packages/" + whl.SHA256[:4] + "/numba-0.67.0-cp312-cp312-manylinux2014_x86_64.manylinux_2_17_x86_64.whl",
		SHA256: whl.SHA256, Size: 3_923_101, Time: r.Time, RequiresPython: ">=3.10", Kind: sources.KindWheel,
		Metadata: true, MetadataSHA256: whl.MetadataSHA256,
		Tags: []sources.Tag{{Python: "cp312", ABI: "cp312", Platform: "manylinux2014_x86_64"}, {Python: "cp312", ABI: "cp312", Platform: "manylinux_2_17_x86_64"}},
	}
	if diff := cmp.Diff(wantWhl, whl); diff != "" || len(whl.SHA256) != 64 || len(whl.MetadataSHA256) != 64 {
		t.Errorf("wheel (-want +got)\n%s", diff)
	}
	if r.Files[0].Kind != sources.KindSdist || r.Files[0].Metadata {
		t.Errorf("sdist = %+v", r.Files[0])
	}
	if y := byV["0.66.1"]; !y.Yanked || y.YankedReason != "broken wheel for py3.14" {
		t.Errorf("yanked with a reason (a string) = %+v", y)
	}
	if y := byV["0.66.2"]; !y.Yanked || y.YankedReason != "" {
		t.Errorf("yanked without a reason (true) = %+v", y)
	}
	if e, ok := byV["0.61.1"]; !ok || len(e.Files) != 0 {
		t.Errorf("PEP 700 version without files = %+v, %v", e, ok)
	}
	if got := len(byV["0.67.1"].Files); got != 4 {
		t.Errorf("0.67.1 has %d files, want 4", got)
	}
	// The name was normalised (PEP 503), and JSON was asked for.
	log := fake.Log()
	if len(log) != 1 || log[0].Path != "/simple/numba/" || !strings.HasPrefix(log[0].Accept, "application/vnd.pypi.simple.v1+json") {
		t.Errorf("requests %+v", log)
	}
}

func TestSimpleForms(t *testing.T) {
	tests := []struct {
		name       string
		htmlOnly   bool
		api        string
		wantNoFile bool // whether 0.61.1 (no files) is listed
		wantTime   bool
	}{
		{name: "api 1.1", api: "1.1", wantNoFile: true, wantTime: true},
		{name: "api 1.0", api: "1.0"},
		{name: "PEP 503 HTML", htmlOnly: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := fakes.NewPyPI(t)
			fake.HTMLOnly, fake.SimpleAPIVersion = tt.htmlOnly, tt.api
			fake.Add("numba", numbaWithQuirks()...)
			rs, err := pypi.NewSimple(fake.URL+"/simple/", client()).Releases(context.Background(), "numba")
			if err != nil {
				t.Fatal(err)
			}
			byV := byVersion(rs)
			if _, ok := byV["0.61.1"]; ok != tt.wantNoFile {
				t.Errorf("0.61.1 listed: %v", ok)
			}
			r := byV["0.67.0"]
			if len(r.Files) != 2 || len(r.Files[1].SHA256) != 64 || r.Files[1].RequiresPython != ">=3.10" || len(r.Files[1].Tags) != 2 {
				t.Errorf("0.67.0 = %+v", r)
			}
			if r.Time.IsZero() == tt.wantTime {
				t.Errorf("time %v", r.Time)
			}
			if y := byV["0.66.1"]; !y.Yanked || y.YankedReason != "broken wheel for py3.14" {
				t.Errorf("yanked = %+v", y)
			}
		})
	}
}

func TestSimpleFaults(t *testing.T) {
	tests := []struct {
		name     string
		faults   []fakes.Fault
		htmlOnly bool
		wantErr  string
	}{
		{name: "500 then 200", faults: []fakes.Fault{{Status: 500}}},
		{name: "429 with Retry-After then 200", faults: []fakes.Fault{{Status: 429, Header: map[string]string{"Retry-After": "0"}}}},
		{name: "truncated then 200", faults: []fakes.Fault{{Truncate: true}}},
		{name: "hung then 200", faults: []fakes.Fault{{Hang: 5 * time.Second}}},
		{name: "HTML error page with 200", faults: []fakes.Fault{{Body: "<!DOCTYPE html><html><body>Maintenance</body></html>"}}, wantErr: "expected a simple API page"},
		{name: "truncated JSON with 200", faults: []fakes.Fault{{Body: `{"meta": {"api-version": "1.1"}, "files": [{"filename"`, Header: map[string]string{"Content-Type": "application/vnd.pypi.simple.v1+json"}}}, wantErr: "invalid JSON"},
		{name: "unsupported major version", faults: []fakes.Fault{{Body: `{"meta": {"api-version": "2.0"}, "name": "numba", "files": []}`, Header: map[string]string{"Content-Type": "application/vnd.pypi.simple.v1+json"}}}, wantErr: "version 2.0 is not supported"},
		{name: "JSON API where the simple API was expected", faults: []fakes.Fault{{Body: `{"info": {}}`, Header: map[string]string{"Content-Type": "application/json"}}}, wantErr: "plain JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := fakes.NewPyPI(t)
			fake.Add("numba", fakes.NumbaReleases()...)
			fake.Fail("/simple/numba/", tt.faults...)
			rs, err := pypi.NewSimple(fake.URL, client()).Releases(context.Background(), "numba")
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
	t.Run("404", func(t *testing.T) {
		fake := fakes.NewPyPI(t)
		_, err := pypi.NewSimple(fake.URL, client()).Releases(context.Background(), "nope")
		if !errors.Is(err, sources.ErrNotFound) || len(fake.Requests()) != 1 {
			t.Errorf("err = %v after %d requests", err, len(fake.Requests()))
		}
	})
}

func TestHashes(t *testing.T) {
	fake := fakes.NewPyPI(t)
	fake.Add("numba", numbaWithQuirks()...)
	for _, src := range []*pypi.Source{pypi.New(fake.URL, client()), pypi.NewSimple(fake.URL, client())} {
		hs, err := src.Hashes(context.Background(), "numba", "0.67.1")
		if err != nil || len(hs) != 4 || slices.Contains(hs, "") {
			t.Errorf("Hashes = %v, %v", hs, err)
		}
		if hs, err := src.Hashes(context.Background(), "numba", "0.66.1"); err != nil || len(hs) != 0 {
			t.Errorf("a yanked release has hashes %v, %v", hs, err)
		}
		if _, err := src.Hashes(context.Background(), "numba", "9.9.9"); !errors.Is(err, sources.ErrNotFound) {
			t.Errorf("unknown version: %v", err)
		}
	}
	if got := fake.Requests(); !slices.Contains(got, "/pypi/numba/0.67.1/json") {
		t.Errorf("the JSON API did not use the per-version endpoint: %v", got)
	}
	r, err := pypi.New(fake.URL, client()).Release(context.Background(), "numba", "0.66.1")
	if err != nil || !r.Yanked || r.YankedReason != "broken wheel for py3.14" {
		t.Errorf("Release = %+v, %v", r, err)
	}
}

func TestJSONWithoutReleasesFallsBack(t *testing.T) {
	fake := fakes.NewPyPI(t)
	fake.Add("numba", fakes.NumbaReleases()...)
	// Warehouse dropping the deprecated "releases" key.
	fake.Fail("/pypi/numba/json", fakes.Fault{Body: `{"info": {"name": "numba", "version": "0.67.0"}, "urls": []}`})
	rs, err := pypi.New(fake.URL, client()).Releases(context.Background(), "numba")
	if err != nil || len(rs) != len(fakes.NumbaReleases()) {
		t.Fatalf("Releases = %d, %v", len(rs), err)
	}
	if got := fake.Requests(); !slices.Equal(got, []string{"/pypi/numba/json", "/simple/numba/"}) {
		t.Errorf("requests %v", got)
	}
}

func TestNewSimpleURL(t *testing.T) {
	fake := fakes.NewPyPI(t)
	fake.Add("numba", fakes.NumbaReleases()...)
	for _, u := range []string{fake.URL, fake.URL + "/", fake.URL + "/simple", fake.URL + "/simple/"} {
		fake.ResetLog()
		if _, err := pypi.NewSimple(u, client()).Releases(context.Background(), "numba"); err != nil {
			t.Errorf("%s: %v", u, err)
		}
		if got := fake.Requests(); len(got) != 1 || got[0] != "/simple/numba/" {
			t.Errorf("%s: requests %v", u, got)
		}
	}
}

func TestIndexURL(t *testing.T) {
	for _, tt := range []struct {
		src  *pypi.Source
		want string
	}{
		{pypi.New("https://pypi.org/", nil), "https://pypi.org/simple"},
		{pypi.NewSimple("https://pypi.org", nil), "https://pypi.org/simple"},
		{pypi.NewSimple("https://devpi.example/root/pypi/+simple/", nil), "https://devpi.example/root/pypi/+simple"},
	} {
		if got := tt.src.IndexURL(); got != tt.want {
			t.Errorf("IndexURL() = %q, want %q", got, tt.want)
		}
	}
}
