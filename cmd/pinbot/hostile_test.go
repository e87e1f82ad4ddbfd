package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/pinbot-dev/pinbot/internal/fakes"
	"github.com/pinbot-dev/pinbot/web"
)

// The hostile-index scenarios run `pinbot check` against a fake PyPI reached
// through a URL with credentials, which answers one package's lookups with a
// fault (HTML, bad JSON, errors, redirect loops, a redirect to another host,
// hangs, drips, huge and endless bodies, gzip bombs) while another package is
// served normally. Each asserts the error, that the other package was still
// planned, the bound that held, and that no output (the report in every
// format, debug logs on stderr) shows a credential.

const (
	indexUser  = "pinbot-ci"
	indexPass  = "hunter2-index-pw"
	queryToken = "qtok-5ecret"
)

// secrets are the strings no output may contain.
var secrets = []string{indexUser, indexPass, queryToken, base64.StdEncoding.EncodeToString([]byte(indexUser + ":" + indexPass))}

// hostileConfig watches numba (the package the faults hit) and llvmlite
// (served normally), with network limits short enough for tests.
const hostileConfig = "packages:\n  numba: {}\n  llvmlite: {}\nnetwork:\n  attempt-timeout: 300ms\n  request-timeout: 1s\n"

type hostile struct {
	*env
	index string // the fake PyPI's URL with credentials
}

func newHostile(t *testing.T, config string) *hostile {
	e := newEnv(t)
	h := &hostile{env: e, index: strings.Replace(e.pypi.URL, "http://", "http://"+indexUser+":"+indexPass+"@", 1)}
	e.vars["PINBOT_PYPI_URL"] = h.index
	e.file("pyproject.toml", []byte("[project]\nname = \"demo\"\ndependencies = [\"numba>=0.58,<=0.66.0\", \"llvmlite<=0.48.0\"]\n"))
	e.file(".pinbot.yml", []byte(config))
	return h
}

// check runs `pinbot check -v` with the real factory's HTTP client, so that
// the configuration's network limits apply, and fails the test when any
// output shows a credential.
func (h *hostile) check(args ...string) (int, string, string) {
	h.t.Helper()
	var stdout, stderr bytes.Buffer
	f := newFactory(&stdout, &stderr, func(k string) string { return h.vars[k] })
	f.Now = func() time.Time { return clock }
	f.UserCacheDir = func() (string, error) { return "", errors.New("no user cache directory in tests") }
	code := run(context.Background(), append([]string{"check", "-v", "--dir", h.dir}, args...), f)
	out, errOut := stdout.String(), stderr.String()
	for _, s := range secrets {
		if strings.Contains(out, s) || strings.Contains(errOut, s) {
			h.t.Errorf("a credential (%q) reached the output\nstdout:\n%s\nstderr:\n%s", s, out, errOut)
		}
	}
	if !strings.Contains(errOut, "level=DEBUG") {
		h.t.Errorf("no debug logs to search:\n%s", errOut)
	}
	return code, out, errOut
}

type hostileReport struct {
	Packages []struct {
		Name, Status, Newest, Error string
	}
}

func (h *hostile) packages(out string) map[string]struct{ Status, Error string } {
	h.t.Helper()
	var rep hostileReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		h.t.Fatalf("%v\n%s", err, out)
	}
	m := map[string]struct{ Status, Error string }{}
	for _, p := range rep.Packages {
		m[p.Name] = struct{ Status, Error string }{p.Status, p.Error}
	}
	return m
}

func repeat(f fakes.Fault, n int) []fakes.Fault {
	out := make([]fakes.Fault, n)
	for i := range out {
		out[i] = f
	}
	return out
}

// TestHostileIndex feeds each kind of failure to numba's lookup through a
// credentialed index URL: numba's result is an error that says what went
// wrong, llvmlite is still planned, and no output carries a credential.
func TestHostileIndex(t *testing.T) {
	const numba = "/pypi/numba/json"
	tests := []struct {
		name    string
		faults  []fakes.Fault
		other   bool // redirect to another host, which must see no credential
		wantErr string
		// maxRequests bounds the requests numba's lookup made.
		maxRequests int
	}{
		{name: "HTML instead of JSON", faults: repeat(fakes.Fault{Body: "<!DOCTYPE html><html><body>Please sign in</body></html>"}, 8),
			wantErr: "expected JSON, got an HTML or XML page", maxRequests: 1},
		{name: "bad JSON", faults: repeat(fakes.Fault{Body: `{"info": {"name": "numba", "version": `}, 8),
			wantErr: "invalid JSON", maxRequests: 1},
		{name: "401", faults: repeat(fakes.Fault{Status: 401, Body: "Unauthorized"}, 8), wantErr: "401 Unauthorized", maxRequests: 1},
		{name: "500 every time", faults: repeat(fakes.Fault{Status: 500, Body: "Internal Server Error"}, 8), wantErr: "500 Internal Server Error", maxRequests: 4},
		{name: "redirect loop", faults: repeat(fakes.Fault{Redirect: numba + "?token=" + queryToken}, 8), wantErr: "redirect loop: stopped after 5 redirects", maxRequests: 6},
		{name: "redirect to another host", other: true, wantErr: "404 Not Found", maxRequests: 1},
		{name: "hang", faults: repeat(fakes.Fault{Hang: time.Minute}, 8), wantErr: "limits: 300ms an attempt, 1s a request", maxRequests: 4},
		{name: "drip", faults: repeat(fakes.Fault{Drip: 100 * time.Millisecond}, 8), wantErr: "limits: 300ms an attempt, 1s a request", maxRequests: 4},
		{name: "Retry-After beyond the maximum", faults: repeat(fakes.Fault{Status: 429, Header: map[string]string{"Retry-After": "3600"}}, 8),
			wantErr: "the server asks to wait 1h0m0s, longer than pinbot waits (2m0s)", maxRequests: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHostile(t, hostileConfig)
			var other *fakes.PyPI
			if tt.other {
				other = fakes.NewPyPI(t)
				tt.faults = []fakes.Fault{{Redirect: other.URL + numba + "?X-Amz-Signature=" + queryToken}}
			}
			h.pypi.Fail(numba, tt.faults...)
			code, out, _ := h.check("--format", "json")
			if code != exitFailure {
				t.Errorf("exit %d, want 1", code)
			}
			pkgs := h.packages(out)
			if p := pkgs["numba"]; p.Status != "error" || !strings.Contains(p.Error, tt.wantErr) || !strings.Contains(p.Error, "/pypi/numba/json") {
				t.Errorf("numba = %+v, want an error naming the URL and %q", p, tt.wantErr)
			}
			if p := pkgs["llvmlite"]; p.Status != "bump" {
				t.Errorf("llvmlite = %+v, want it planned", p)
			}
			n := 0
			for _, r := range h.pypi.Log() {
				if r.Path == numba {
					n++
					if !r.Auth {
						t.Errorf("the index got a request without its credentials")
					}
				}
			}
			if n == 0 || n > tt.maxRequests {
				t.Errorf("%d requests for numba, want 1 to %d", n, tt.maxRequests)
			}
			if other != nil {
				log := other.Log()
				if len(log) != 1 || log[0].Auth {
					t.Errorf("the other host got %+v: want one request without credentials", log)
				}
			}
			// The text and Markdown reports carry the same error, redacted.
			for _, format := range []string{"text", "markdown"} {
				h.pypi.Fail(numba, tt.faults...)
				if _, out, _ := h.check("--format", format); !strings.Contains(out, tt.wantErr) {
					t.Errorf("%s report lacks %q:\n%s", format, tt.wantErr, out)
				}
			}
		})
	}
}

// peakHeap samples the heap while fn runs and returns the largest
// HeapAlloc seen.
func peakHeap(fn func()) uint64 {
	runtime.GC()
	var peak uint64
	var mu sync.Mutex
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			mu.Lock()
			peak = max(peak, ms.HeapAlloc)
			mu.Unlock()
			select {
			case <-done:
				return
			case <-time.After(2 * time.Millisecond):
			}
		}
	})
	fn()
	close(done)
	wg.Wait()
	return peak
}

// TestHostileIndexMemory: a 500 MB JSON document (announced, or streamed
// without a length) and a gzip bomb are errors once the 64 MiB cap is
// reached, on the wire or after decompression; the heap stays well under
// 400 MB and little more than the cap crosses the wire.
func TestHostileIndexMemory(t *testing.T) {
	const numba = "/pypi/numba/json"
	tests := []struct {
		name    string
		fault   fakes.Fault
		wantErr string
	}{
		{"500 MB announced", fakes.Fault{Pad: 500 << 20}, "the server announces 524288000 bytes"},
		{"500 MB without a length", fakes.Fault{Pad: 500 << 20, NoLength: true}, "larger than 67108864 bytes (on the wire)"},
		{"gzip bomb of 1 GB", fakes.Fault{GzipBomb: 1 << 30}, "larger than 67108864 bytes (decompressed)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// The default limits: 64 MB takes a while to cross a busy
			// machine's loopback.
			h := newHostile(t, "packages:\n  numba: {}\n  llvmlite: {}\n")
			h.pypi.Fail(numba, repeat(tt.fault, 4)...)
			var out string
			peak := peakHeap(func() { _, out, _ = h.check("--format", "json") })
			if p := h.packages(out)["numba"]; p.Status != "error" || !strings.Contains(p.Error, tt.wantErr) {
				t.Errorf("numba = %+v, want %q", p, tt.wantErr)
			}
			if p := h.packages(out)["llvmlite"]; p.Status != "bump" {
				t.Errorf("llvmlite = %+v, want it planned", p)
			}
			if peak > 250<<20 {
				t.Errorf("peak heap %d MB, want well under 400 MB", peak>>20)
			}
			var sent int64
			for _, r := range h.pypi.Log() {
				if r.Path == numba {
					sent += r.Bytes
				}
			}
			if sent > 80<<20 {
				t.Errorf("%d MB crossed the wire for a 64 MiB cap", sent>>20)
			}
			t.Logf("peak heap %d MB, %d MB sent", peak>>20, sent>>20)
		})
	}
}

// artifactPath is where the fake PyPI serves a release's only artifact.
func artifactPath(r fakes.Release) (string, []byte) {
	for fn, data := range r.Artifacts {
		sum := sha256.Sum256(data)
		return "/packages/" + hex.EncodeToString(sum[:])[:4] + "/" + fn, data
	}
	panic("no artifact")
}

// hostileProbeConfig has numba's static probe read the wheels the index lists.
const hostileProbeConfig = "packages:\n  numba:\n    probes:\n      - preset: numba-unique-ids\n  llvmlite: {}\nnetwork:\n  attempt-timeout: 2s\n  request-timeout: 4s\n  max-artifact-size: 64MiB\n"

// TestHostileArtifacts: the wheel a check downloads stops at the size the
// index declared; a longer, endless or announced-too-long body is an error
// naming the file, and nothing is left in the store. A file:// URL is
// refused. Files on another host (a CDN) are fetched without the index's
// credentials.
func TestHostileArtifacts(t *testing.T) {
	candidate := numbaRelease("0.67.0", false)
	path, data := artifactPath(candidate)
	fn := filepath.Base(path)
	setup := func(t *testing.T) (*hostile, string) {
		h := newHostile(t, hostileProbeConfig)
		h.pypi.Add("numba", numbaRelease("0.66.0", false), candidate)
		cache := t.TempDir()
		h.vars["PINBOT_CACHE_DIR"] = cache
		return h, cache
	}
	tests := []struct {
		name    string
		fault   fakes.Fault
		wantErr string
	}{
		{"endless body", fakes.Fault{Endless: true}, "goes on past the size the index declared"},
		{"announced beyond the declared size", fakes.Fault{Pad: int64(len(data)) + 100<<20}, "announces"},
		{"longer than declared, no length", fakes.Fault{Pad: int64(len(data)) + 1, NoLength: true}, "goes on past the size the index declared"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, cache := setup(t)
			h.pypi.Fail(path, tt.fault)
			code, out, _ := h.check("--format", "json", "--static")
			if code != exitFailure {
				t.Errorf("exit %d, want 1", code)
			}
			pkgs := h.packages(out)
			if p := pkgs["numba"]; p.Status != "error" || !strings.Contains(p.Error, tt.wantErr) || !strings.Contains(p.Error, fn) {
				t.Errorf("numba = %+v, want %q naming %s", p, tt.wantErr, fn)
			}
			if pkgs["llvmlite"].Status != "bump" {
				t.Errorf("llvmlite = %+v", pkgs["llvmlite"])
			}
			var sent int64
			for _, r := range h.pypi.Log() {
				if r.Path == path {
					sent += r.Bytes
				}
			}
			if sent > int64(len(data))+8<<20 {
				t.Errorf("%d bytes sent for a file of %d", sent, len(data))
			}
			filepath.WalkDir(filepath.Join(cache, "artifacts"), func(p string, d os.DirEntry, err error) error {
				if err == nil && strings.HasPrefix(d.Name(), ".download-") || err == nil && d.Name() == fn {
					t.Errorf("left in the store: %s", p)
				}
				return nil
			})
		})
	}

	t.Run("the configured cap", func(t *testing.T) {
		h, _ := setup(t)
		h.file(".pinbot.yml", []byte(strings.Replace(hostileProbeConfig, "max-artifact-size: 64MiB", "max-artifact-size: 1KB", 1)))
		_, out, _ := h.check("--format", "json", "--static")
		if p := h.packages(out)["numba"]; p.Status != "error" || !strings.Contains(p.Error, "more than the limit of 1000") {
			t.Errorf("numba = %+v, want the 1KB cap applied", p)
		}
	})

	t.Run("file URL", func(t *testing.T) {
		h, _ := setup(t)
		resp, err := http.Get(h.pypi.URL + "/pypi/numba/json")
		if err != nil {
			t.Fatal(err)
		}
		doc, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		secret := filepath.Join(t.TempDir(), fn)
		os.WriteFile(secret, data, 0o644)
		doc = bytes.ReplaceAll(doc, []byte(h.pypi.URL+path), []byte("file://"+secret))
		h.pypi.Fail("/pypi/numba/json", fakes.Fault{Body: string(doc)})
		_, out, _ := h.check("--format", "json", "--static")
		if p := h.packages(out)["numba"]; p.Status != "error" || !strings.Contains(p.Error, "only http and https") {
			t.Errorf("numba = %+v, want the file URL refused", p)
		}
	})

	t.Run("files on the index's own host", func(t *testing.T) {
		// A private index lists its files by absolute URL on itself and
		// serves them only with its credentials, as pip sends them.
		h, _ := setup(t)
		code, out, _ := h.check("--format", "json", "--static")
		if p := h.packages(out)["numba"]; code != exitOK || p.Status != "bump" {
			t.Fatalf("exit %d, numba = %+v", code, p)
		}
		downloads := 0
		for _, r := range h.pypi.Log() {
			if strings.HasSuffix(r.Path, ".whl") {
				downloads++
				if !r.Auth {
					t.Errorf("%s downloaded without the index's credentials", r.Path)
				}
			}
		}
		if downloads < 2 {
			t.Errorf("%d downloads from the index, want the baseline and the candidate", downloads)
		}
		if strings.Contains(out, indexPass) {
			t.Error("the report shows the credentials")
		}
	})

	t.Run("files on another host", func(t *testing.T) {
		h, _ := setup(t)
		cdn := fakes.NewPyPI(t)
		cdn.Add("numba", numbaRelease("0.66.0", false), candidate)
		h.pypi.FilesURL = cdn.URL
		code, out, _ := h.check("--format", "json", "--static")
		if p := h.packages(out)["numba"]; code != exitOK || p.Status != "bump" {
			t.Fatalf("exit %d, numba = %+v", code, p)
		}
		downloads := 0
		for _, r := range cdn.Log() {
			downloads++
			if r.Auth {
				t.Errorf("the CDN got the index's credentials for %s", r.Path)
			}
		}
		if downloads != 2 {
			t.Errorf("%d downloads from the CDN, want the baseline and the candidate", downloads)
		}
		for _, r := range h.pypi.Log() {
			if !r.Auth {
				t.Errorf("the index got %s without its credentials", r.Path)
			}
		}
	})
}

// TestHungIndexTiming measures how long `pinbot check` takes when the index
// hangs on one package, with the default network settings: the package
// fails and the other is planned in well under a minute. It takes about 45
// seconds, so it runs only with PINBOT_SLOW=1:
//
//	PINBOT_SLOW=1 go test ./cmd/pinbot -run TestHungIndexTiming -v
func TestHungIndexTiming(t *testing.T) {
	if os.Getenv("PINBOT_SLOW") == "" {
		t.Skip("takes about 45 s: set PINBOT_SLOW=1")
	}
	for name, fault := range map[string]fakes.Fault{"hang": {Hang: 10 * time.Minute}, "drip": {Drip: 5 * time.Second}} {
		t.Run(name, func(t *testing.T) {
			h := newHostile(t, "packages:\n  numba: {}\n  llvmlite: {}\n")
			h.pypi.Fail("/pypi/numba/json", repeat(fault, 10)...)
			start := time.Now()
			code, out, _ := h.check("--format", "json")
			took := time.Since(start)
			pkgs := h.packages(out)
			if code != exitFailure || pkgs["numba"].Status != "error" || pkgs["llvmlite"].Status != "bump" {
				t.Fatalf("exit %d, %+v", code, pkgs)
			}
			if took > time.Minute {
				t.Errorf("a hung index took %s to fail", took)
			}
			t.Logf("%s: numba failed after %s: %s", name, took.Round(100*time.Millisecond), pkgs["numba"].Error)
		})
	}
}

// TestHostileIndexRun: with a credentialed index URL, `pinbot run` shows no
// credential in the pull request body (whose release links point at the
// index), the Slack message, or its output; nor when the index fails a
// package with a redirect loop whose URL carries a token.
func TestHostileIndexRun(t *testing.T) {
	e := newRunEnv(t, testConfig)
	e.vars["PINBOT_PYPI_URL"] = strings.Replace(e.pypi.URL, "http://", "http://"+indexUser+":"+indexPass+"@", 1)
	check := func(what string, texts ...string) {
		t.Helper()
		for _, text := range texts {
			for _, s := range secrets {
				if strings.Contains(text, s) {
					t.Errorf("%s shows a credential (%q):\n%s", what, s, text)
				}
			}
		}
	}
	code, out, stderr := e.run()
	if code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	pulls := e.gh.Pulls(testRepo)
	if len(pulls) != 1 || !strings.Contains(pulls[0].Body, e.pypi.URL+"/project/numba/0.67.0/") {
		t.Fatalf("pull requests %+v: want one linking the release on the index, without credentials", pulls)
	}
	check("the pull request body", pulls[0].Body)
	for _, m := range e.slack.Messages() {
		check("the Slack message", string(m))
	}
	check("the output", out, stderr)

	// The index now loops on numba: the error reaches the comment and Slack.
	e.pypi.Fail("/pypi/numba/json", repeat(fakes.Fault{Redirect: "/pypi/numba/json?token=" + queryToken}, 10)...)
	code, out, stderr = e.run()
	if code != exitFailure || !strings.Contains(out+stderr, "redirect loop") {
		t.Errorf("exit %d, want 1 with the loop reported\n%s\n%s", code, out, stderr)
	}
	check("the output", out, stderr)
	for _, m := range e.slack.Messages() {
		check("the Slack message", string(m))
	}
	for _, c := range e.gh.Comments(testRepo, pulls[0].Number) {
		check("a comment", c)
	}
}

// TestHostileCondaPathToken: anaconda.org's private channels carry their
// token in the URL's path (https://conda.anaconda.org/t/TOKEN/…); it never
// reaches the logs (at debug level) or any report format, even in the
// errors that name the URL.
func TestHostileCondaPathToken(t *testing.T) {
	const token = "tk-5ecret-path-token"
	c := fakes.NewConda(t)
	e := newEnv(t)
	e.vars["PINBOT_CONDA_URL"] = c.URL + "/t/" + token
	e.file("environment.yml", []byte("channels: [conda-forge]\ndependencies:\n  - numba >=0.60,<=0.66.0\n"))
	for _, format := range []string{"text", "json", "markdown"} {
		code, out, stderr := e.run("check", "--dir", e.dir, "-v", "--format", format)
		if code != exitFailure {
			t.Errorf("%s: exit %d, want 1 (the channel answers 404)\n%s\n%s", format, code, out, stderr)
		}
		if !strings.Contains(out+stderr, "/t/REDACTED/") {
			t.Errorf("%s: the error does not name the redacted URL:\n%s\n%s", format, out, stderr)
		}
		if strings.Contains(out+stderr, token) {
			t.Errorf("%s: the token is in the output:\n%s\n%s", format, out, stderr)
		}
	}
}

// TestHostileCondaShard: with sources.conda.repodata-url, the CEP-16 host
// serves numba's shard as the FuzzDecodeShard crasher (an array header
// declaring 3.6 billion items). numba is an error that names it and its
// shard's URL; llvmlite, whose shard is sound, is still planned; the check
// exits 1 without a panic, in every report format.
func TestHostileCondaShard(t *testing.T) {
	crasher := fuzzSeed(t, filepath.Join("..", "..", "sources", "conda", "testdata", "fuzz", "FuzzDecodeShard", "regression-huge-array-header"))
	enc, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	shard := string(enc.EncodeAll(crasher, nil))

	c := fakes.NewConda(t)
	c.Add("conda-forge", "numba", fakes.CondaFile{Version: "0.66.0"}, fakes.CondaFile{Version: "0.67.0"})
	c.Add("conda-forge", "llvmlite", fakes.CondaFile{Version: "0.48.0", Depends: []string{"python >=3.12"}},
		fakes.CondaFile{Version: "0.49.0", Depends: []string{"python >=3.12"}})
	e := newEnv(t)
	e.vars["PINBOT_CONDA_URL"] = c.URL
	e.file(".pinbot.yml", []byte("sources:\n  conda:\n    repodata-url: "+c.URL+"\npackages:\n  numba:\n    platforms: [linux-64]\n  llvmlite:\n    platforms: [linux-64]\n"))
	e.file("environment.yml", []byte("channels: [conda-forge]\ndependencies:\n  - numba >=0.60,<=0.66.0\n  - llvmlite <=0.48.0\n"))

	numbaShard := soundShard(t, e, c, "numba-0.67.0-")

	for _, format := range []string{"json", "text", "markdown"} {
		c.Fail(numbaShard, fakes.Fault{Body: shard})
		code, out, stderr := e.run("check", "--dir", e.dir, "--format", format)
		if code != exitFailure || strings.Contains(stderr, "panic") || strings.Contains(stderr, "goroutine ") {
			t.Errorf("%s: exit %d, want 1 without a panic\n%s\n%s", format, code, out, stderr)
		}
		wantErr := "conda-forge: " + c.URL + numbaShard + ": invalid shard: msgpack: truncated, or a length longer than the document: array of 3600000000 elements"
		switch format {
		case "text":
			if !strings.Contains(out, "numba: error\n  error: "+wantErr) || !strings.Contains(out, "llvmlite: bump (target 0.49.0)") {
				t.Errorf("text report lacks numba's error or llvmlite's plan:\n%s", out)
			}
			continue
		case "markdown":
			if !strings.Contains(out, "### numba: error") || !strings.Contains(out, "invalid shard") || !strings.Contains(out, "### llvmlite: bump") {
				t.Errorf("markdown report lacks numba's error or llvmlite's plan:\n%s", out)
			}
			continue
		}
		pkgs := decodeReport(t, out)
		if p := pkgs["numba"]; p.Status != "error" || !strings.HasPrefix(p.Error, wantErr) {
			t.Errorf("numba = %s: %s, want %q", p.Status, p.Error, wantErr)
		}
		if p := pkgs["llvmlite"]; p.Status != "bump" || p.Newest != "0.49.0" {
			t.Errorf("llvmlite = %+v, want it planned at 0.49.0", p)
		}
	}
}

// soundShard runs a sound `pinbot check` and returns the path of the shard
// it read that lists file (the shards' paths come from the index).
func soundShard(t *testing.T, e *env, c *fakes.Conda, file string) string {
	t.Helper()
	if code, out, stderr := e.run("check", "--dir", e.dir, "--format", "json"); code != exitOK {
		t.Fatalf("sound shards: exit %d\n%s\n%s", code, out, stderr)
	}
	dec, err := zstd.NewReader(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer dec.Close()
	for _, p := range c.Requests() {
		if !strings.Contains(p, "/shards/") {
			continue
		}
		resp, err := http.Get(c.URL + p)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if raw, err := dec.DecodeAll(b, nil); err == nil && bytes.Contains(raw, []byte(file)) {
			return p
		}
	}
	t.Fatalf("no shard listing %s read: %q", file, c.Requests())
	return ""
}

// TestHostileCondaLookupBudget: a conda channel that answers a lookup's
// first request (its shard index, slowly but within a request's time) and
// hangs on, or drips, the second (numba's shard) costs numba's lookup no
// more than one request's time (network.request-timeout, 1s here) in all:
// numba is an error naming the channel and the timeout, and the shard left
// unanswered, while llvmlite on the same channel (sharing its index) and
// pysam on a healthy channel are planned.
func TestHostileCondaLookupBudget(t *testing.T) {
	c := fakes.NewConda(t)
	c.Add("conda-forge", "numba", fakes.CondaFile{Version: "0.66.0"}, fakes.CondaFile{Version: "0.67.0"})
	py := []string{"python >=3.12"}
	c.Add("conda-forge", "llvmlite", fakes.CondaFile{Version: "0.48.0", Depends: py}, fakes.CondaFile{Version: "0.49.0", Depends: py})
	c.Add("bioconda", "pysam", fakes.CondaFile{Version: "0.22.0", Depends: py}, fakes.CondaFile{Version: "0.23.0", Depends: py})
	e := newEnv(t)
	e.vars["PINBOT_CONDA_URL"] = c.URL
	e.file(".pinbot.yml", []byte("sources:\n  conda:\n    channels: [conda-forge, bioconda]\n    repodata-url: "+c.URL+
		"\nnetwork:\n  attempt-timeout: 1s\n  request-timeout: 1s\n"+
		"packages:\n  numba:\n    platforms: [linux-64]\n  llvmlite:\n    platforms: [linux-64]\n  pysam:\n    platforms: [linux-64]\n"))
	e.file("environment.yml", []byte("channels: [conda-forge]\ndependencies:\n  - numba >=0.60,<=0.66.0\n  - llvmlite <=0.48.0\n  - bioconda::pysam <=0.22.0\n"))
	// The factory's own client: its policy is the configuration's.
	e.setup = func(f *Factory) {
		f.HTTPClient = func() *http.Client {
			return &http.Client{Transport: web.NewTransport(nil, f.policy(), web.UserAgent("test"), f.Log)}
		}
	}
	shard := soundShard(t, e, c, "numba-0.67.0-")
	const index = "/conda-forge/linux-64/repodata_shards.msgpack.zst"
	for name, fault := range map[string]fakes.Fault{"hang": {Hang: time.Hour}, "drip": {Drip: time.Second}} {
		t.Run(name, func(t *testing.T) {
			c.Fail(index, fakes.Fault{Hang: 300 * time.Millisecond})
			c.Fail(shard, fault)
			start := time.Now()
			code, out, stderr := e.run("check", "--dir", e.dir, "--format", "json")
			if took := time.Since(start); took > 20*time.Second { // a bound, not a speed target
				t.Errorf("took %s with a lookup budget of 1s", took)
			}
			if code != exitFailure {
				t.Errorf("exit %d, want 1\n%s\n%s", code, out, stderr)
			}
			pkgs := decodeReport(t, out)
			want := "conda-forge: the lookup of numba on the conda channel conda-forge timed out: no result within 1s, the time one request may take: no complete answer from " + c.URL + shard
			if p := pkgs["numba"]; p.Status != "error" || !strings.HasPrefix(p.Error, want) {
				t.Errorf("numba = %s: %s\nwant %s", p.Status, p.Error, want)
			}
			if p := pkgs["llvmlite"]; p.Status != "bump" || p.Newest != "0.49.0" {
				t.Errorf("llvmlite = %+v, want it planned at 0.49.0", p)
			}
			if p := pkgs["pysam"]; p.Status != "bump" || p.Newest != "0.23.0" {
				t.Errorf("pysam = %+v, want it planned at 0.23.0", p)
			}
		})
	}
}

// TestHostileCondaIndexUnanswered: a conda channel whose shard index hangs
// costs a run one request's time (network.request-timeout, 1s here), not
// one per batch of concurrent lookups: the index is asked once, the
// lookups waiting for it fail with its timeout, and the later ones at once,
// with an error naming the channel and saying the index did not answer
// earlier in the run. pysam on a healthy channel is planned.
func TestHostileCondaIndexUnanswered(t *testing.T) {
	c := fakes.NewConda(t)
	py := []string{"python >=3.12"}
	names := []string{"numba", "llvmlite", "scipy", "numpy", "pandas", "pyarrow", "h5py", "netcdf4", "xarray", "dask"}
	config := "sources:\n  conda:\n    channels: [conda-forge, bioconda]\n    repodata-url: " + c.URL +
		"\nnetwork:\n  attempt-timeout: 1s\n  request-timeout: 1s\npackages:\n  pysam:\n    platforms: [linux-64]\n"
	env := "channels: [conda-forge]\ndependencies:\n  - bioconda::pysam <=0.22.0\n"
	for _, name := range names {
		c.Add("conda-forge", name, fakes.CondaFile{Version: "1.0.0", Depends: py}, fakes.CondaFile{Version: "1.1.0", Depends: py})
		config += "  " + name + ":\n    platforms: [linux-64]\n"
		env += "  - " + name + " <=1.0.0\n"
	}
	c.Add("bioconda", "pysam", fakes.CondaFile{Version: "0.22.0", Depends: py}, fakes.CondaFile{Version: "0.23.0", Depends: py})
	e := newEnv(t)
	e.vars["PINBOT_CONDA_URL"] = c.URL
	e.file(".pinbot.yml", []byte(config))
	e.file("environment.yml", []byte(env))
	// The factory's own client: its policy is the configuration's.
	e.setup = func(f *Factory) {
		f.HTTPClient = func() *http.Client {
			return &http.Client{Transport: web.NewTransport(nil, f.policy(), web.UserAgent("test"), f.Log)}
		}
	}
	const index = "/conda-forge/linux-64/repodata_shards.msgpack.zst"
	for range len(names) { // hung for whoever asks
		c.Fail(index, fakes.Fault{Hang: time.Hour})
	}
	start := time.Now()
	code, out, stderr := e.run("check", "--dir", e.dir, "--format", "json")
	if took := time.Since(start); took > 20*time.Second { // a bound, not a speed target: the request count below is the measure
		t.Errorf("took %s with a lookup budget of 1s", took)
	}
	if code != exitFailure {
		t.Errorf("exit %d, want 1\n%s\n%s", code, out, stderr)
	}
	n := 0
	for _, p := range c.Requests() {
		if p == index {
			n++
		}
	}
	if n != 1 {
		t.Errorf("the hung index was requested %d times, want once: %q", n, c.Requests())
	}
	pkgs := decodeReport(t, out)
	timedOut := "no complete answer from " + c.URL + index
	memo := "conda-forge: the conda channel conda-forge did not answer for its linux-64 shard index earlier in this run (not asked again until the next run): GET " + c.URL + index + ": "
	remembered := 0
	for _, name := range names {
		p := pkgs[name]
		switch {
		case p.Status != "error":
			t.Errorf("%s = %s, want error", name, p.Status)
		case strings.HasPrefix(p.Error, memo):
			remembered++
		case !strings.HasPrefix(p.Error, "conda-forge: ") || !strings.Contains(p.Error, index) || !strings.Contains(p.Error, "1s"):
			t.Errorf("%s: %s\nwant the index's timeout (%s) or %s", name, p.Error, timedOut, memo)
		}
	}
	// At most 4 lookups at a time: those of the third round start after the
	// index failed.
	if remembered == 0 {
		t.Errorf("no lookup failed at once on the remembered index: %+v", pkgs)
	}
	if p := pkgs["pysam"]; p.Status != "bump" || p.Newest != "0.23.0" {
		t.Errorf("pysam = %+v, want it planned at 0.23.0", p)
	}
}

// TestHostileGoProxyLookupBudget: a Go module proxy (reached through a URL
// with credentials) that answers a module's @v/list (slowly, within a
// request's time) and hangs on, or drips, its newest version's .info costs
// the module's lookup no more than one request's time
// (network.request-timeout, 1s here) in all: the module is an error naming
// the proxy, the timeout and the .info left unanswered, never a "not found",
// while another module, which that proxy does not have, is planned from the
// next proxy in GOPROXY. No output shows the credentials.
func TestHostileGoProxyLookupBudget(t *testing.T) {
	day := func(s string) time.Time { d, _ := time.Parse(time.DateOnly, s); return d }
	hung, healthy := fakes.NewGoProxy(t), fakes.NewGoProxy(t)
	hung.Add("github.com/Masterminds/semver/v3",
		fakes.GoVersion{Version: "v3.4.0", Time: day("2025-06-01")},
		fakes.GoVersion{Version: "v3.5.0", Time: day("2026-09-01")})
	healthy.Add("golang.org/x/mod",
		fakes.GoVersion{Version: "v0.29.0", Time: day("2025-10-01")},
		fakes.GoVersion{Version: "v0.30.0", Time: day("2026-09-01")})
	e := newEnv(t)
	e.vars["GOPROXY"] = strings.Replace(hung.URL, "http://", "http://"+indexUser+":"+indexPass+"@", 1) + "," + healthy.URL
	e.file("go.mod", []byte("module example.com/app\n\ngo 1.26\n\nrequire (\n\tgithub.com/Masterminds/semver/v3 v3.4.0\n\tgolang.org/x/mod v0.29.0\n)\n"))
	e.file(".pinbot.yml", []byte("packages:\n  github.com/Masterminds/semver/v3: {}\n  golang.org/x/mod: {}\n"+
		"network:\n  attempt-timeout: 1s\n  request-timeout: 1s\n"))
	// The factory's own client: its policy is the configuration's.
	e.setup = func(f *Factory) {
		f.HTTPClient = func() *http.Client {
			return &http.Client{Transport: web.NewTransport(nil, f.policy(), web.UserAgent("test"), f.Log)}
		}
	}
	const mod = "/github.com/!masterminds/semver/v3/@v/"
	for name, fault := range map[string]fakes.Fault{"hang": {Hang: time.Hour}, "drip": {Drip: time.Second}} {
		t.Run(name, func(t *testing.T) {
			hung.Fail(mod+"list", fakes.Fault{Hang: 300 * time.Millisecond})
			hung.Fail(mod+"v3.5.0.info", fault)
			start := time.Now()
			code, out, stderr := e.run("check", "--dir", e.dir, "--format", "json")
			if took := time.Since(start); took > 20*time.Second { // a bound, not a speed target
				t.Errorf("took %s with a lookup budget of 1s", took)
			}
			if code != exitFailure {
				t.Errorf("exit %d, want 1\n%s\n%s", code, out, stderr)
			}
			pkgs := decodeReport(t, out)
			want := "goproxy: the lookup of github.com/Masterminds/semver/v3 on the Go module proxy " + hung.URL +
				" timed out: no result within 1s, the time one request may take: no complete answer from " + hung.URL + mod + "v3.5.0.info"
			if p := pkgs["github.com/Masterminds/semver/v3"]; p.Status != "error" || p.Error != want {
				t.Errorf("semver = %s: %s\nwant %s", p.Status, p.Error, want)
			}
			if p := pkgs["golang.org/x/mod"]; p.Status != "bump" || p.Newest != "v0.30.0" {
				t.Errorf("golang.org/x/mod = %+v, want it planned at v0.30.0", p)
			}
			for _, sec := range secrets {
				if strings.Contains(out, sec) || strings.Contains(stderr, sec) {
					t.Errorf("output shows %q", sec)
				}
			}
		})
	}
}

// fuzzSeed reads the one []byte value of a Go fuzz corpus file.
func fuzzSeed(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 2 || lines[0] != "go test fuzz v1" || !strings.HasPrefix(lines[1], "[]byte(") || !strings.HasSuffix(lines[1], ")") {
		t.Fatalf("%s: not a fuzz corpus file of one []byte", path)
	}
	s, err := strconv.Unquote(strings.TrimSuffix(strings.TrimPrefix(lines[1], "[]byte("), ")"))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return []byte(s)
}
