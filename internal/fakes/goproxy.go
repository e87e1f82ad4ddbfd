package fakes

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/mod/module"
)

// A GoVersion is one version of a fake module.
type GoVersion struct {
	Version string    // a canonical semantic version, such as "v1.2.3"
	Time    time.Time // default DefaultUpload
	// Retract are retract directives of this version's go.mod, such as
	// "v1.2.0 // broken build" or "[v1.0.0, v1.1.9]".
	Retract []string
	// NoInfo makes .info answer 404, as for a version a proxy lists but lost.
	NoInfo bool
}

// GoProxy is a fake Go module proxy (https://go.dev/ref/mod#goproxy-protocol):
// @v/list (unsorted), @v/VERSION.info, @v/VERSION.mod and @latest, with
// case-escaped paths, 404 for unknown modules (410 when Gone), and 400 for a
// path that is not properly escaped.
type GoProxy struct {
	*httptest.Server
	recorder

	mu      sync.Mutex
	modules map[string][]GoVersion
	// Gone answers 410 instead of 404 for unknown modules, as proxy.golang.org
	// does for some.
	Gone bool
}

// NewGoProxy starts a fake module proxy that is closed when the test ends.
func NewGoProxy(t testing.TB) *GoProxy {
	g := &GoProxy{modules: map[string][]GoVersion{}}
	g.noGzip = true
	g.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		g.serve(w, r, g.answer)
	}))
	t.Cleanup(g.Close)
	return g
}

// Add adds (or replaces) a module.
func (g *GoProxy) Add(path string, vs ...GoVersion) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.modules[path] = vs
}

func text(status int, s string) reply {
	return reply{status: status, header: http.Header{"Content-Type": {"text/plain; charset=utf-8"}}, body: []byte(s), noETag: status != http.StatusOK}
}

func (g *GoProxy) answer(r *http.Request) reply {
	p := strings.TrimPrefix(r.URL.Path, "/")
	escPath, rest, ok := strings.Cut(p, "/@")
	if !ok {
		return text(http.StatusNotFound, "404 page not found\n")
	}
	path, err := module.UnescapePath(escPath)
	if err != nil {
		return text(http.StatusBadRequest, fmt.Sprintf("bad request: invalid escaped module path %q: %v\n", escPath, err))
	}
	g.mu.Lock()
	vs, known := g.modules[path]
	g.mu.Unlock()
	notFound := func() reply {
		status := http.StatusNotFound
		if g.Gone {
			status = http.StatusGone
		}
		return text(status, fmt.Sprintf("not found: module %s: no matching versions for query \"latest\"\n", path))
	}
	if !known {
		return notFound()
	}
	if rest == "v/list" {
		// Some order, not sorted: odd positions first, then even ones.
		var b strings.Builder
		for _, parity := range []int{1, 0} {
			for i, v := range vs {
				if i%2 == parity {
					b.WriteString(v.Version + "\n")
				}
			}
		}
		return text(http.StatusOK, b.String())
	}
	if rest == "latest" {
		v := vs[len(vs)-1]
		return goInfo(v)
	}
	file, ok := strings.CutPrefix(rest, "v/")
	if !ok {
		return notFound()
	}
	for _, ext := range []string{".info", ".mod"} {
		escV, found := strings.CutSuffix(file, ext)
		if !found {
			continue
		}
		ver, err := module.UnescapeVersion(escV)
		if err != nil {
			return text(http.StatusBadRequest, "bad request: invalid escaped version\n")
		}
		for _, v := range vs {
			if v.Version != ver {
				continue
			}
			if ext == ".info" {
				if v.NoInfo {
					return notFound()
				}
				return goInfo(v)
			}
			var b strings.Builder
			fmt.Fprintf(&b, "module %s\n\ngo 1.22\n", path)
			for _, rt := range v.Retract {
				fmt.Fprintf(&b, "\nretract %s\n", rt)
			}
			return text(http.StatusOK, b.String())
		}
		return notFound()
	}
	return notFound()
}

func goInfo(v GoVersion) reply {
	t := v.Time
	if t.IsZero() {
		t = DefaultUpload
	}
	b, _ := json.Marshal(map[string]any{"Version": v.Version, "Time": t.UTC().Format(time.RFC3339),
		"Origin": map[string]string{"VCS": "git", "URL": "https://github.com/example/x", "Ref": "refs/tags/" + v.Version}})
	return reply{header: http.Header{"Content-Type": {"application/json"}}, body: b}
}
