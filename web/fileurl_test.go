package web_test

import (
	"net/url"
	"testing"

	"github.com/pinbot-dev/pinbot/web"
)

func TestResolveFile(t *testing.T) {
	page, _ := url.Parse("https://user:s3cret@pypi.corp.example/simple/numba/")
	for _, tc := range []struct{ ref, want string }{
		{"../../packages/numba-0.67.0.whl#sha256=ab", "https://user:s3cret@pypi.corp.example/packages/numba-0.67.0.whl#sha256=ab"},
		{"https://pypi.corp.example/packages/numba-0.67.0.whl", "https://user:s3cret@pypi.corp.example/packages/numba-0.67.0.whl"},
		{"https://PYPI.corp.example:443/p/n.whl", "https://user:s3cret@PYPI.corp.example:443/p/n.whl"},
		{"https://other:pw@pypi.corp.example/p/n.whl", "https://other:pw@pypi.corp.example/p/n.whl"},
		// Another origin never gets the index's credentials, nor any of its own.
		{"https://files.pythonhosted.org/packages/n.whl", "https://files.pythonhosted.org/packages/n.whl"},
		{"https://evil:pw@files.example/n.whl", "https://files.example/n.whl"},
		{"https://pypi.corp.example:8443/n.whl", "https://pypi.corp.example:8443/n.whl"},
		{"http://pypi.corp.example/n.whl", "http://pypi.corp.example/n.whl"},
		{"//cdn.example/n.whl", "https://cdn.example/n.whl"},
	} {
		got, ok := web.ResolveFile(page, tc.ref)
		if !ok || got != tc.want {
			t.Errorf("ResolveFile(%q) = %q, %v; want %q", tc.ref, got, ok, tc.want)
		}
	}
	if _, ok := web.ResolveFile(page, "http://[::1"); ok {
		t.Error("a ref that does not parse resolved")
	}
	// An http index page lends its credentials to the https upgrade of itself.
	plain, _ := url.Parse("http://u:p@idx.example/simple/x/")
	if got, _ := web.ResolveFile(plain, "https://idx.example/x.whl"); got != "https://u:p@idx.example/x.whl" {
		t.Errorf("upgrade: %q", got)
	}
}
