package pypi_test

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pinbot-dev/pinbot/internal/fakes"
	"github.com/pinbot-dev/pinbot/sources"
	"github.com/pinbot-dev/pinbot/sources/pypi"
	"github.com/pinbot-dev/pinbot/web"
)

func client() *http.Client {
	p := web.DefaultPolicy
	p.BaseDelay, p.MaxDelay, p.Timeout = time.Millisecond, 5*time.Millisecond, time.Second
	return &http.Client{Transport: web.NewTransport(nil, p, "test", nil)}
}

func newSource(t *testing.T, fake *fakes.PyPI) *pypi.Source {
	return pypi.New(fake.URL+"/", client())
}

func TestReleases(t *testing.T) {
	fake := fakes.NewPyPI(t)
	fake.Add("numba", append(fakes.NumbaReleases(),
		fakes.Release{Version: "0.66.1", Yanked: true, YankedReason: "broken wheel for py3.14"})...)
	rs, err := newSource(t, fake).Releases(context.Background(), "Numba")
	if err != nil {
		t.Fatal(err)
	}
	byV := map[string]sources.Release{}
	for _, r := range rs {
		byV[r.Version] = r
	}
	if len(rs) != len(fakes.NumbaReleases())+1 {
		t.Errorf("%d releases", len(rs))
	}
	r := byV["0.67.0"]
	if len(r.Files) != 2 || r.Yanked || r.Time.Format(time.DateOnly) != "2026-08-11" {
		t.Errorf("0.67.0 = %+v", r)
	}
	whl := r.Files[slices.IndexFunc(r.Files, func(f sources.File) bool { return strings.HasSuffix(f.Name, ".whl") })]
	if len(whl.SHA256) != 64 || whl.RequiresPython != ">=3.10" || !strings.HasPrefix(whl.URL, fake.URL) || whl.Size == 0 ||
		whl.Kind != sources.KindWheel || len(whl.Tags) != 2 || whl.Tags[1].Platform != "manylinux_2_17_x86_64" {
		t.Errorf("wheel = %+v", whl)
	}
	if y := byV["0.66.1"]; !y.Yanked || y.YankedReason != "broken wheel for py3.14" {
		t.Errorf("yanked release = %+v", y)
	}
	if e := byV["0.61.1"]; len(e.Files) != 0 || e.Yanked {
		t.Errorf("release without files = %+v", e)
	}
	// The redirect to the normalised name was followed.
	if got := fake.Requests(); !slices.Equal(got, []string{"/pypi/numba/json"}) {
		t.Errorf("requests %v", got)
	}
}

func TestFaults(t *testing.T) {
	tests := []struct {
		name     string
		faults   []fakes.Fault
		wantErr  string // "" for success
		notFound bool
	}{
		{name: "500 then 200", faults: []fakes.Fault{{Status: 500}}},
		{name: "429 with Retry-After then 200", faults: []fakes.Fault{{Status: 429, Header: map[string]string{"Retry-After": "0"}}}},
		{name: "truncated then 200", faults: []fakes.Fault{{Truncate: true}}},
		{name: "hung then 200", faults: []fakes.Fault{{Hang: 5 * time.Second}}},
		{name: "truncated JSON with 200", faults: []fakes.Fault{{Body: `{"info": {"name": "numba"}, "releases": {"0.67.0": [`}}, wantErr: "invalid JSON"},
		{name: "HTML page with 200", faults: []fakes.Fault{{Body: "<!DOCTYPE html><html><body>Maintenance</body></html>"}}, wantErr: "expected JSON"},
		{name: "JSON that is not the API", faults: []fakes.Fault{{Body: `{"info": {}}`}}, wantErr: `no "releases"`},
		{name: "500 every time", faults: []fakes.Fault{{Status: 500}, {Status: 500}, {Status: 500}, {Status: 500}}, wantErr: "500"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := fakes.NewPyPI(t)
			fake.Add("numba", fakes.NumbaReleases()...)
			fake.Fail("/pypi/numba/json", tt.faults...)
			src := newSource(t, fake)
			rs, err := src.Releases(context.Background(), "numba")
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

func TestNotFound(t *testing.T) {
	fake := fakes.NewPyPI(t)
	_, err := newSource(t, fake).Releases(context.Background(), "no-such-package")
	if !errors.Is(err, sources.ErrNotFound) {
		t.Fatalf("err = %v, want ErrNotFound", err)
	}
	if got := len(fake.Requests()); got != 1 {
		t.Errorf("a 404 was retried: %d requests", got)
	}
}

func TestProjectURLs(t *testing.T) {
	fake := fakes.NewPyPI(t)
	urls := map[string]string{"Source": "https://github.com/numba/numba", "Release Notes": "https://numba.readthedocs.io/notes"}
	fake.Add("numba", fakes.Release{Version: "0.66.0"}, fakes.Release{Version: "0.67.0", ProjectURLs: urls})
	ctx := context.Background()
	got, err := newSource(t, fake).ProjectURLs(ctx, "Numba", "0.67.0")
	if err != nil || len(got) != 2 || got["Release Notes"] != urls["Release Notes"] {
		t.Errorf("ProjectURLs = %v, %v", got, err)
	}
	if got, err := newSource(t, fake).ProjectURLs(ctx, "numba", "0.66.0"); err != nil || got != nil {
		t.Errorf("a release without project URLs: %v, %v", got, err)
	}
	if _, err := newSource(t, fake).ProjectURLs(ctx, "numba", "9.9"); !errors.Is(err, sources.ErrNotFound) {
		t.Errorf("a missing version: %v", err)
	}
	if got, err := pypi.NewSimple(fake.URL, client()).ProjectURLs(ctx, "numba", "0.67.0"); err != nil || got != nil {
		t.Errorf("simple API: %v, %v", got, err)
	}
}
