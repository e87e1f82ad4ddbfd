package pypi_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pinbot-dev/pinbot/internal/fakes"
	"github.com/pinbot-dev/pinbot/sources"
	"github.com/pinbot-dev/pinbot/sources/pypi"
)

// numbaRequires is what numba 0.65.1 declares on PyPI.
var numbaRequires = []string{"llvmlite<0.49,>=0.48.0dev0", "numpy<2.5,>=1.24", `scipy>=1.0; extra == "cuda"`}

func requiresFake(t *testing.T) *fakes.PyPI {
	fake := fakes.NewPyPI(t)
	fn, whl := fakes.WheelMeta("llvmlite", "0.48.0", "py3-none-any", []string{"Requires-Dist: numpy>=1.22 ; python_version < \"3.13\""}, nil)
	fake.Add("numba",
		fakes.Release{Version: "0.65.1", RequiresDist: numbaRequires},
		fakes.Release{Version: "0.66.0"},                                                      // declares nothing
		fakes.Release{Version: "0.64.0", Wheels: []string{}, RequiresDist: []string{"numpy"}}) // an sdist only
	fake.Add("llvmlite", fakes.Release{Version: "0.48.0", Artifacts: map[string][]byte{fn: whl}})
	return fake
}

// TestRequires reads a release's requirements through every API: the JSON
// API's info.requires_dist, and the PEP 658 metadata file of a wheel on the
// simple API (JSON and HTML), a real wheel's METADATA included.
func TestRequires(t *testing.T) {
	fake := requiresFake(t)
	srcs := map[string]*pypi.Source{
		"json":        pypi.New(fake.URL, client()),
		"simple":      pypi.NewSimple(fake.URL, client()),
		"simple HTML": pypi.NewSimple(fake.URL, client()),
	}
	for name, src := range srcs {
		t.Run(name, func(t *testing.T) {
			fake.HTMLOnly = name == "simple HTML"
			ctx := context.Background()
			rel := func(pkg, version string) sources.Release {
				rs, err := src.Releases(ctx, pkg)
				if err != nil {
					t.Fatal(err)
				}
				for _, r := range rs {
					if r.Version == version {
						return r
					}
				}
				return sources.Release{Version: version}
			}
			got, err := src.Requires(ctx, "Numba", rel("numba", "0.65.1"))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(numbaRequires, got); diff != "" {
				t.Errorf("numba 0.65.1 (-want +got)\n%s", diff)
			}
			if got, err := src.Requires(ctx, "numba", rel("numba", "0.66.0")); err != nil || len(got) != 0 {
				t.Errorf("a release that declares nothing: %q, %v", got, err)
			}
			got, err = src.Requires(ctx, "llvmlite", rel("llvmlite", "0.48.0"))
			if err != nil || len(got) != 1 || got[0] != `numpy>=1.22 ; python_version < "3.13"` {
				t.Errorf("a real wheel's METADATA: %q, %v", got, err)
			}
			if name == "json" {
				_, err = src.Requires(ctx, "numba", sources.Release{Version: "9.9.9"})
				if !errors.Is(err, sources.ErrNotFound) {
					t.Errorf("a version the index lacks: %v", err)
				}
			}
		})
	}
	fake.HTMLOnly = false
	// On the simple API an sdist offers no metadata file: unknown, not "none".
	rs, err := srcs["simple"].Releases(context.Background(), "numba")
	if err != nil {
		t.Fatal(err)
	}
	sdist := rs[slices.IndexFunc(rs, func(r sources.Release) bool { return r.Version == "0.64.0" })]
	if _, err := srcs["simple"].Requires(context.Background(), "numba", sdist); err == nil || !strings.Contains(err.Error(), "no file") || !strings.Contains(err.Error(), "PEP 658") {
		t.Errorf("sdist only: %v", err)
	}
}

// TestRequiresBadMetadata: a metadata file that does not match the digest
// the index lists, or is not metadata, is an error naming it.
func TestRequiresBadMetadata(t *testing.T) {
	fake := requiresFake(t)
	src := pypi.NewSimple(fake.URL, client())
	rs, err := src.Releases(context.Background(), "numba")
	if err != nil {
		t.Fatal(err)
	}
	var u string
	var rel sources.Release
	for _, r := range rs {
		if r.Version == "0.65.1" {
			rel = r
			for _, f := range r.Files {
				if f.Metadata {
					u = strings.TrimPrefix(f.URL, fake.URL) + ".metadata"
				}
			}
		}
	}
	fake.Fail(u, fakes.Fault{Body: "Metadata-Version: 2.1\nName: numba\nRequires-Dist: evil\n\n"})
	if _, err := src.Requires(context.Background(), "numba", rel); err == nil || !strings.Contains(err.Error(), "sha256") || !strings.Contains(err.Error(), ".metadata") {
		t.Errorf("digest mismatch: %v", err)
	}
	fake.Fail("/pypi/numba/0.65.1/json", fakes.Fault{Body: `{"info": {"version": "0.65.1", "requires_dist": "numpy"}}`})
	if _, err := pypi.New(fake.URL, client()).Requires(context.Background(), "numba", rel); err == nil || !strings.Contains(err.Error(), "invalid JSON") {
		t.Errorf("requires_dist not a list: %v", err)
	}
}

func TestParseMetadata(t *testing.T) {
	tests := []struct {
		name, in string
		want     []string
		err      string
	}{
		{name: "headers then description", in: "Metadata-Version: 2.1\nName: numba\nRequires-Dist: numpy<2.5,>=1.24\nrequires-dist: llvmlite\n\nRequires-Dist: not-a-header-any-more\n",
			want: []string{"numpy<2.5,>=1.24", "llvmlite"}},
		{name: "continuation and CRLF", in: "Metadata-Version: 2.1\r\nRequires-Dist: numpy<2.5;\r\n  python_version < \"3.13\"\r\n", want: []string{`numpy<2.5; python_version < "3.13"`}},
		{name: "no requirements", in: "Metadata-Version: 2.1\nName: six\n"},
		{name: "empty", in: "", err: "no headers"},
		{name: "HTML", in: "<html><body>Not Found</body></html>\n", err: "not a header"},
		{name: "continuation first", in: " numpy\n", err: "continuation"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := pypi.ParseMetadata([]byte(tt.in))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Errorf("error %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
}
