package findlinks_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pinbot-dev/pinbot/sources"
	"github.com/pinbot-dev/pinbot/sources/findlinks"
	"github.com/pinbot-dev/pinbot/web"
)

func readPage(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/jax_nightly_releases.html")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// summary is what a test compares of a release: its version, yanked
// state, and each file as "name url sha256 requires-python".
func summary(rs []sources.Release) []string {
	var out []string
	for _, r := range rs {
		line := r.Version
		if r.Yanked {
			line += " yanked (" + r.YankedReason + ")"
		}
		out = append(out, line)
		for _, f := range r.Files {
			out = append(out, "  "+f.Name+" "+f.URL+" "+f.SHA256[:min(len(f.SHA256), 4)]+" "+f.RequiresPython+" "+f.Kind+" "+f.Tags[0].String())
		}
	}
	return out
}

// TestParse: the page's wheels of the project asked, one release per
// version in the page's order, named by the link's last path segment
// (not its text), resolved against the page, the credentials on the
// page's origin only; a file linked twice is the later link's; other
// projects' wheels, sdists, directories and anchors without href are
// skipped.
func TestParse(t *testing.T) {
	page, _ := url.Parse("https://user:tok@storage.example.org/jax-releases/jax_nightly_releases.html")
	rs, err := findlinks.Parse(page, "JAX", readPage(t))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"0.8.2.dev20261124",
		"  jax-0.8.2.dev20261124-py3-none-any.whl https://user:tok@storage.example.org/jax-releases/nocuda/jax-0.8.2.dev20261124-py3-none-any.whl 2222 >=3.11 wheel py3-none-any",
		"0.8.2.dev20261130",
		"  jax-0.8.2.dev20261130-py3-none-any.whl https://other.example.org/mirror/jax-0.8.2.dev20261130-py3-none-any.whl 6666  wheel py3-none-any",
		"0.8.1.dev20261117 yanked (broken upload)",
		"  jax-0.8.1.dev20261117-py3-none-any.whl https://user:tok@storage.example.org/jax-releases/nocuda/jax-0.8.1.dev20261117-py3-none-any.whl   wheel py3-none-any",
	}
	if diff := cmp.Diff(want, summary(rs)); diff != "" {
		t.Errorf("jax (-want +got):\n%s", diff)
	}
	rs, err = findlinks.Parse(page, "jaxlib", readPage(t))
	if err != nil || len(rs) != 2 || rs[1].Version != "0.8.2.dev20261130" || rs[1].Files[0].Tags[0].Platform != "manylinux2014_x86_64" {
		t.Errorf("jaxlib: %v %v", summary(rs), err)
	}
	if rs, err := findlinks.Parse(page, "numpy", readPage(t)); err != nil || len(rs) != 0 {
		t.Errorf("numpy: %v %v", rs, err)
	}
}

// TestParseRejects: a body that is not a page of links is an error naming
// the page without its credentials.
func TestParseRejects(t *testing.T) {
	page, _ := url.Parse("https://user:tok@example.org/links.html")
	for name, body := range map[string]string{
		"json":       `{"meta": {"api-version": "1.1"}, "files": []}`,
		"long token": "<a href=\"" + strings.Repeat("x", 2<<20) + "\">",
		"many links": strings.Repeat("<a href=x>", findlinks.MaxLinks+1),
	} {
		_, err := findlinks.Parse(page, "jax", []byte(body))
		if err == nil || strings.Contains(err.Error(), "tok") || !strings.Contains(err.Error(), "example.org/links.html") {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func client() *http.Client {
	p := web.DefaultPolicy
	p.BaseDelay, p.MaxDelay, p.Timeout = time.Millisecond, 5*time.Millisecond, 5*time.Second
	return &http.Client{Transport: web.NewTransport(nil, p, web.UserAgent("test"), nil)}
}

// TestReleases: the source fetches the page through web's bounds, after
// its redirects; a page with no wheel of the package and a missing page
// are sources.ErrNotFound, a failing one web's error.
func TestReleases(t *testing.T) {
	body := readPage(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/old.html":
			http.Redirect(w, r, "/jax-releases/jax_nightly_releases.html", http.StatusFound)
		case "/jax-releases/jax_nightly_releases.html":
			if !strings.Contains(r.Header.Get("Accept"), "text/html") {
				t.Errorf("Accept %q", r.Header.Get("Accept"))
			}
			w.Header().Set("Content-Type", "text/html")
			w.Write(body)
		case "/down.html":
			http.Error(w, "Service Unavailable", http.StatusServiceUnavailable)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	src := findlinks.New(srv.URL+"/old.html", client())
	if src.Name() != "find-links" || src.Scheme() != "pep440" {
		t.Errorf("name %q scheme %q", src.Name(), src.Scheme())
	}
	rs, err := src.Releases(t.Context(), "jax")
	if err != nil || len(rs) != 3 || rs[0].Files[0].URL != srv.URL+"/jax-releases/nocuda/jax-0.8.2.dev20261124-py3-none-any.whl" {
		t.Fatalf("%v %v", summary(rs), err)
	}
	if _, err := src.Releases(t.Context(), "numpy"); !errors.Is(err, sources.ErrNotFound) {
		t.Errorf("no wheel of numpy: %v", err)
	}
	if _, err := findlinks.New(srv.URL+"/gone.html", client()).Releases(t.Context(), "jax"); !errors.Is(err, sources.ErrNotFound) {
		t.Errorf("a missing page: %v", err)
	}
	if _, err := findlinks.New(srv.URL+"/down.html", client()).Releases(t.Context(), "jax"); err == nil || errors.Is(err, sources.ErrNotFound) || !strings.Contains(err.Error(), "503") {
		t.Errorf("a failing page: %v", err)
	}
}
