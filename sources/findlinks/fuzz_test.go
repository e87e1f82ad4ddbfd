package findlinks_test

import (
	"net/url"
	"os"
	"testing"

	"github.com/pinbot-dev/pinbot/internal/pep503"
	"github.com/pinbot-dev/pinbot/sources/findlinks"
	"github.com/pinbot-dev/pinbot/sources/wheel"
)

// FuzzParse: any page parses or fails without panicking; what parses is
// one release per version, every file a wheel of the project asked for at
// that version, and no file off the page's origin carries its
// credentials. Seeds: the testdata page, and those in testdata/fuzz.
func FuzzParse(f *testing.F) {
	if b, err := os.ReadFile("testdata/jax_nightly_releases.html"); err == nil {
		f.Add(b)
	}
	f.Add([]byte(`<a href="a/jax-1.0-py3-none-any.whl#sha256=AB" data-yanked>x</a><a href="//h/jax-1.0-py3-none-any.whl">y</a>`))
	f.Add([]byte(`<a href="jax-1.0%2Fx-py3-none-any.whl">`))
	page, _ := url.Parse("https://user:tok@example.org/releases/links.html")
	f.Fuzz(func(t *testing.T, body []byte) {
		rs, err := findlinks.Parse(page, "jax", body)
		if err != nil {
			return
		}
		seen := map[string]bool{}
		for _, r := range rs {
			if r.Version == "" || seen[r.Version] || len(r.Files) == 0 {
				t.Errorf("release %q: empty, repeated or without files", r.Version)
			}
			seen[r.Version] = true
			for _, f := range r.Files {
				w, err := wheel.Parse(f.Name)
				if err != nil || pep503.Normalize(w.Distribution) != "jax" || w.Version != r.Version {
					t.Errorf("file %q in release %q", f.Name, r.Version)
				}
				u, err := url.Parse(f.URL)
				if err != nil {
					t.Errorf("file URL %q: %v", f.URL, err)
					continue
				}
				if u.Host != "example.org" && u.User != nil {
					t.Errorf("credentials sent to %s", u.Host)
				}
			}
		}
	})
}
