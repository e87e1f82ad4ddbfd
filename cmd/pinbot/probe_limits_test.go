package main

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pinbot-dev/pinbot/internal/fakes"
)

// slowRelease is a one-module package whose wheel's core metadata (PEP 658,
// which pip reads first) is at metadata on the fake index.
func slowRelease(version string) (r fakes.Release, metadata string) {
	fn, data := fakes.Wheel("slowpkg", version, "py3-none-any", map[string][]byte{"slowpkg/__init__.py": []byte("VALUE = 1\n")})
	sum := sha256.Sum256(data)
	return fakes.Release{Version: version, Artifacts: map[string][]byte{fn: data}}, "/packages/" + hex.EncodeToString(sum[:])[:4] + "/" + fn + ".metadata"
}

// TestCheckProbeTimeoutBoundsOnlyTheProbe (#27 item 10): --probe-timeout
// bounds the probe process, not resolving or installing the release, which
// have their own limits (5 and 10 minutes). The index answers pip for the
// baseline 10 s late, twice the probe timeout: on the first run while
// pip installs it, on the second (a new release changed the index page)
// while pip resolves it again. Both runs wait for pip and pass. The
// margins hold on a loaded machine: the probe process, which only imports
// a one-line module, has 5 s, and pip's own socket timeout (15 s) is 5 s
// beyond the delay.
func TestCheckProbeTimeoutBoundsOnlyTheProbe(t *testing.T) {
	t.Parallel() // it waits out the index's delays: overlaps the other tests
	py := python3(t)
	const delay = 10 * time.Second
	r10, baseline := slowRelease("1.0")
	r11, _ := slowRelease("1.1")
	r12, _ := slowRelease("1.2")
	e := newEnv(t)
	e.vars["PINBOT_CACHE_DIR"] = t.TempDir()
	e.file("pyproject.toml", []byte("[project]\nname = \"x\"\ndependencies = [\"slowpkg>=1.0,<=1.0\"]\n"))
	e.file(".pinbot.yml", []byte("packages:\n  slowpkg:\n    probes:\n      - path: slowpkg.VALUE\n"))
	for _, run := range []struct {
		step     string // what pip does when it asks for the baseline's metadata
		releases []fakes.Release
		target   string
	}{
		{"installing", []fakes.Release{r10, r11}, "1.1"},
		{"resolving", []fakes.Release{r10, r11, r12}, "1.2"},
	} {
		e.pypi.Add("slowpkg", run.releases...)
		e.pypi.ResetLog()
		e.pypi.Fail(baseline, fakes.Fault{Hang: delay})
		start := time.Now()
		code, rep, stderr := checkJSON(t, e, "--python", py, "--probe-timeout", "5s")
		took := time.Since(start)
		p := pkgOf(rep, "slowpkg")
		if code != exitOK || p.Status != "bump" || p.Newest != run.target || len(p.Checks) != 1 {
			t.Fatalf("%s: exit %d, slowpkg %+v\n%s", run.step, code, p, stderr)
		}
		if c := p.Checks[0]; c.Verdict != "ok" || c.Baseline != "pass" || c.Candidate != "pass" {
			t.Errorf("%s: check %+v, want ok: the probe's timeout bounded pip", run.step, c)
		}
		if !slices.Contains(e.pypi.Requests(), baseline) || took < delay {
			t.Errorf("%s: the run took %s and asked for %q: pip did not wait for the delayed %s", run.step, took, e.pypi.Requests(), baseline)
		}
		if strings.Contains(stderr, "timed out") {
			t.Errorf("%s: %s", run.step, stderr)
		}
	}
}
