package goproxy_test

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pinbot-dev/pinbot/internal/fakes"
	"github.com/pinbot-dev/pinbot/sources"
	"github.com/pinbot-dev/pinbot/sources/goproxy"
	"github.com/pinbot-dev/pinbot/web"
)

func client() *http.Client {
	p := web.DefaultPolicy
	p.BaseDelay, p.MaxDelay, p.Timeout = time.Millisecond, 5*time.Millisecond, time.Second
	return &http.Client{Transport: web.NewTransport(nil, p, "test", nil)}
}

func day(s string) time.Time { t, _ := time.Parse(time.DateOnly, s); return t }

// semverModule is github.com/Masterminds/semver/v3: an upper-case path, a
// retraction in the latest go.mod, a pre-release and a pseudo-version.
func semverModule() []fakes.GoVersion {
	return []fakes.GoVersion{
		{Version: "v3.2.0", Time: day("2022-11-01")},
		{Version: "v3.2.1", Time: day("2023-04-10")},
		{Version: "v3.3.0", Time: day("2024-08-27")},
		{Version: "v3.3.1", Time: day("2024-11-19")},
		{Version: "v3.4.0-rc.1", Time: day("2025-06-01")},
		{Version: "v3.4.0", Time: day("2025-07-01"), Retract: []string{"v3.3.0 // breaks constraint parsing", "[v3.2.0, v3.2.1]"}},
		{Version: "v0.0.0-20260724033716-83e58baca724"},
	}
}

const semverPath = "github.com/Masterminds/semver/v3"

func newSource(t *testing.T, o goproxy.Options) *goproxy.Source {
	t.Helper()
	s, err := goproxy.New(o, client())
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestReleases(t *testing.T) {
	fake := fakes.NewGoProxy(t)
	fake.Add(semverPath, semverModule()...)
	src := newSource(t, goproxy.Options{GOPROXY: fake.URL + ",direct"})
	rs, err := src.Releases(context.Background(), semverPath)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rs {
		s := r.Version + " " + r.Time.Format(time.DateOnly)
		if r.Yanked {
			s += " yanked: " + r.YankedReason
		}
		got = append(got, s)
		if len(r.Files) != 1 || r.Files[0].Kind != sources.KindZip || !strings.HasPrefix(r.Files[0].URL, fake.URL+"/github.com/!masterminds/semver/v3/@v/") {
			t.Errorf("files %+v", r.Files)
		}
	}
	want := []string{
		"v3.2.0 2022-11-01 yanked: retracted in v3.4.0",
		"v3.2.1 2023-04-10 yanked: retracted in v3.4.0",
		"v3.3.0 2024-08-27 yanked: retracted in v3.4.0: breaks constraint parsing",
		"v3.3.1 2024-11-19",
		"v3.4.0-rc.1 2025-06-01",
		"v3.4.0 2025-07-01",
	}
	if !slices.Equal(got, want) {
		t.Errorf("releases\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, p := range fake.Requests() {
		if strings.Contains(p, "Masterminds") {
			t.Errorf("unescaped path requested: %s", p)
		}
	}
}

func TestInfoLimit(t *testing.T) {
	fake := fakes.NewGoProxy(t)
	fake.Add(semverPath, semverModule()...)
	rs, err := newSource(t, goproxy.Options{URL: fake.URL, InfoLimit: 2}).Releases(context.Background(), semverPath)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range rs {
		if r.Time.IsZero() != (i < len(rs)-2) {
			t.Errorf("%s: time %v", r.Version, r.Time)
		}
	}
}

func TestProxyList(t *testing.T) {
	first, second := fakes.NewGoProxy(t), fakes.NewGoProxy(t)
	second.Add(semverPath, semverModule()...)
	tests := []struct {
		name     string
		goproxy  string
		fault    *fakes.Fault // on the first proxy's list
		gone     bool
		wantErr  string // "" for an answer from the second proxy
		notFound bool
	}{
		{name: "comma falls back on 404", goproxy: first.URL + "," + second.URL},
		{name: "comma falls back on 410", goproxy: first.URL + "," + second.URL, gone: true},
		{name: "comma stops on 500", goproxy: first.URL + "," + second.URL, fault: &fakes.Fault{Status: 500}, wantErr: "500"},
		{name: "pipe falls back on 500", goproxy: first.URL + "|" + second.URL, fault: &fakes.Fault{Status: 500}},
		{name: "direct is refused", goproxy: first.URL + ",direct", wantErr: "direct, which pinbot does not support", notFound: true},
		{name: "off is refused", goproxy: "off", wantErr: "GOPROXY=off"},
		{name: "not found anywhere", goproxy: first.URL + "," + first.URL, wantErr: "404", notFound: true},
		{name: "pipe 500 then 404 is an error, not a not-found", goproxy: first.URL + "|" + first.URL, fault: &fakes.Fault{Status: 500}, wantErr: "500 Internal Server Error; then "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			first.Gone = tt.gone
			first.ResetLog()
			second.ResetLog()
			if tt.fault != nil {
				// Every attempt fails: the retries are spent first.
				for range web.DefaultPolicy.Attempts {
					first.Fail("/github.com/!masterminds/semver/v3/@v/list", *tt.fault)
				}
			}
			rs, err := newSource(t, goproxy.Options{GOPROXY: tt.goproxy}).Releases(context.Background(), semverPath)
			if tt.wantErr == "" {
				if err != nil || len(rs) != 6 || len(second.Requests()) == 0 {
					t.Fatalf("Releases = %d, %v", len(rs), err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) || errors.Is(err, sources.ErrNotFound) != tt.notFound {
				t.Fatalf("err = %v, want %q (not found: %v)", err, tt.wantErr, tt.notFound)
			}
		})
	}
}

func TestPrivate(t *testing.T) {
	public, private := fakes.NewGoProxy(t), fakes.NewGoProxy(t)
	private.Add("git.corp.example/team/lib", fakes.GoVersion{Version: "v1.0.0"})
	src := newSource(t, goproxy.Options{GOPROXY: public.URL, NoProxy: "*.corp.example,github.com/secret"})
	_, err := src.Releases(context.Background(), "git.corp.example/team/lib")
	if err == nil || !strings.Contains(err.Error(), "private module") || len(public.Requests()) != 0 {
		t.Errorf("err = %v; %d requests to the public proxy", err, len(public.Requests()))
	}
	// With a configured proxy URL, private modules are read from it.
	src = newSource(t, goproxy.Options{GOPROXY: public.URL, NoProxy: "*.corp.example", URL: private.URL})
	if rs, err := src.Releases(context.Background(), "git.corp.example/team/lib"); err != nil || len(rs) != 1 || len(public.Requests()) != 0 {
		t.Errorf("Releases = %v, %v", rs, err)
	}
}

func TestFaults(t *testing.T) {
	const list = "/github.com/!masterminds/semver/v3/@v/list"
	const info = "/github.com/!masterminds/semver/v3/@v/v3.4.0.info"
	tests := []struct {
		name, path string
		faults     []fakes.Fault
		wantErr    string
	}{
		{name: "500 then 200", path: list, faults: []fakes.Fault{{Status: 500}}},
		{name: "429 with Retry-After then 200", path: list, faults: []fakes.Fault{{Status: 429, Header: map[string]string{"Retry-After": "0"}}}},
		{name: "hung then 200", path: info, faults: []fakes.Fault{{Hang: 5 * time.Second}}},
		{name: "truncated info then 200", path: info, faults: []fakes.Fault{{Truncate: true}}},
		{name: "HTML list with 200", path: list, faults: []fakes.Fault{{Body: "<html><body>Bad gateway</body></html>"}}, wantErr: "expected a version list"},
		{name: "truncated JSON info with 200", path: info, faults: []fakes.Fault{{Body: `{"Version":"v3.4.0","Ti`}}, wantErr: "invalid JSON"},
		{name: "info for another version", path: info, faults: []fakes.Fault{{Body: `{"Version":"v3.3.1","Time":"2024-11-19T00:00:00Z"}`}}, wantErr: `answered for version "v3.3.1"`},
		{name: "a list padded to 60 MB", path: list, faults: []fakes.Fault{{Pad: 60 << 20}}},
		{name: "a go.mod padded to 5 MB", path: strings.Replace(info, ".info", ".mod", 1), faults: []fakes.Fault{{Pad: 5 << 20}}, wantErr: "a go.mod of 5242880 bytes"},
		{name: "GOPROXY with credentials in an error", path: list, faults: []fakes.Fault{{Body: "<html>https://user:pw@proxy.example/x?token=t</html>"}}, wantErr: "https://proxy.example/x</html>"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := fakes.NewGoProxy(t)
			fake.Add(semverPath, semverModule()...)
			fake.Fail(tt.path, tt.faults...)
			rs, err := newSource(t, goproxy.Options{URL: fake.URL}).Releases(context.Background(), semverPath)
			if tt.wantErr == "" {
				if err != nil || len(rs) != 6 || rs[5].Time.IsZero() {
					t.Fatalf("Releases = %v, %v; want success after retry", rs, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("err = %v, want %q", err, tt.wantErr)
			}
		})
	}
}

func TestBadGOPROXY(t *testing.T) {
	for _, v := range []string{"ftp://proxy.example", ",", "https://"} {
		if _, err := goproxy.New(goproxy.Options{GOPROXY: v}, client()); err == nil {
			t.Errorf("GOPROXY=%q accepted", v)
		}
	}
	if _, err := goproxy.New(goproxy.Options{GOPROXY: "proxy.example.com|direct"}, client()); err != nil {
		t.Errorf("a proxy without scheme: %v", err)
	}
}

// slowClient retries slowly and gives a request a minute: only a lookup's
// budget ends a hung request in the tests' time.
func slowClient() *http.Client {
	p := web.DefaultPolicy
	p.Timeout, p.Budget, p.BaseDelay, p.MaxDelay = time.Minute, time.Minute, 30*time.Second, 30*time.Second
	return &http.Client{Transport: web.NewTransport(nil, p, "test", nil)}
}

// withCredentials puts a user and password in a proxy's URL, as a GOPROXY
// entry may.
func withCredentials(u string) string { return strings.Replace(u, "://", "://user:hunter2@", 1) }

// TestLookupBudget: a proxy that answers a module's @v/list and then hangs
// on, or drips, the newest version's .info or the latest go.mod costs the
// module's lookup its budget (1s here) in all, not a minute per request:
// the error is the lookup's *web.BudgetError naming the module, the proxy
// (its credentials redacted) and the request left unanswered. Another module,
// which that proxy does not have, is read from the next proxy in the same
// run.
func TestLookupBudget(t *testing.T) {
	const esc = "/github.com/!masterminds/semver/v3/@v/"
	for _, file := range []string{"v3.4.0.info", "v3.4.0.mod"} {
		for name, fault := range map[string]fakes.Fault{"hang": {Hang: time.Hour}, "drip": {Drip: time.Second}} {
			t.Run(file+" "+name, func(t *testing.T) {
				hung, healthy := fakes.NewGoProxy(t), fakes.NewGoProxy(t)
				hung.Add(semverPath, semverModule()...)
				healthy.Add("golang.org/x/mod", fakes.GoVersion{Version: "v0.29.0"}, fakes.GoVersion{Version: "v0.30.0"})
				hung.Fail(esc+file, fault)
				src, err := goproxy.New(goproxy.Options{GOPROXY: withCredentials(hung.URL) + "," + healthy.URL, Budget: time.Second}, slowClient())
				if err != nil {
					t.Fatal(err)
				}
				var wg sync.WaitGroup
				var semverErr, modErr error
				var mod []sources.Release
				var took time.Duration
				start := time.Now()
				wg.Go(func() {
					_, semverErr = src.Releases(context.Background(), semverPath)
					took = time.Since(start)
				})
				wg.Go(func() { mod, modErr = src.Releases(context.Background(), "golang.org/x/mod") })
				wg.Wait()

				var be *web.BudgetError
				want := "the lookup of " + semverPath + " on the Go module proxy " + hung.URL +
					" timed out: no result within 1s, the time one request may take: no complete answer from " + hung.URL + esc + file
				if !errors.As(semverErr, &be) || !errors.Is(semverErr, context.DeadlineExceeded) || errors.Is(semverErr, sources.ErrNotFound) || semverErr.Error() != want {
					t.Errorf("semver: err = %v\nwant %s", semverErr, want)
				}
				if took > 20*time.Second { // a bound, not a speed target: the request alone may take a minute
					t.Errorf("the lookup took %s for a budget of 1s", took)
				}
				if modErr != nil || len(mod) != 2 {
					t.Errorf("golang.org/x/mod = %v, %v; want its 2 versions from the healthy proxy", mod, modErr)
				}
				if slices.Contains(healthy.Requests(), esc+"list") {
					t.Errorf("a timeout fell through to the next proxy after \",\": %q", healthy.Requests())
				}
			})
		}
	}
}

// TestBudgetFallback: a proxy whose lookup runs out of its budget is an
// error, never a not-found: after "," the walk ends with it; after "|" the
// next proxy is tried with a budget of its own, and when that one does not
// have the module the result is still the timeout (with the 404 after it),
// not sources.ErrNotFound, which dependency checks would skip.
func TestBudgetFallback(t *testing.T) {
	const info = "/github.com/!masterminds/semver/v3/@v/v3.4.0.info"
	tests := []struct {
		name    string
		goproxy func(hung, other string) string
		has     bool   // the other proxy has the module
		wantErr string // "" for an answer from the other proxy
	}{
		{name: "pipe moves on to a proxy that has it", goproxy: func(h, o string) string { return h + "|" + o }, has: true},
		{name: "pipe moves on to a proxy that does not", goproxy: func(h, o string) string { return h + "|" + o }, wantErr: "; then "},
		{name: "comma stops", goproxy: func(h, o string) string { return h + "," + o }, has: true, wantErr: "no complete answer from "},
		{name: "pipe then direct", goproxy: func(h, o string) string { return h + "|direct" }, wantErr: "direct, which pinbot does not support"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hung, other := fakes.NewGoProxy(t), fakes.NewGoProxy(t)
			hung.Add(semverPath, semverModule()...)
			if tt.has {
				other.Add(semverPath, semverModule()...)
			}
			hung.Fail(info, fakes.Fault{Hang: time.Hour})
			src, err := goproxy.New(goproxy.Options{GOPROXY: tt.goproxy(hung.URL, other.URL), Budget: time.Second}, slowClient())
			if err != nil {
				t.Fatal(err)
			}
			rs, err := src.Releases(context.Background(), semverPath)
			if tt.wantErr == "" {
				if err != nil || len(rs) != 6 || rs[5].Time.IsZero() {
					t.Fatalf("Releases = %v, %v; want the other proxy's answer", rs, err)
				}
				return
			}
			var be *web.BudgetError
			if !errors.As(err, &be) || errors.Is(err, sources.ErrNotFound) || !strings.Contains(err.Error(), tt.wantErr) ||
				!strings.Contains(err.Error(), "the lookup of "+semverPath+" on the Go module proxy "+hung.URL+" timed out") {
				t.Fatalf("err = %v; want the timeout, %q, and no not-found", err, tt.wantErr)
			}
		})
	}
}
