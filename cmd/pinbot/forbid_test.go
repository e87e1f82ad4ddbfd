package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pinbot-dev/pinbot/internal/elfgen"
	"github.com/pinbot-dev/pinbot/internal/fakes"
)

// genLibrary returns a shared object exporting four functions named prefix
// followed by a number (internal/elfgen); other, when set, moves them and
// changes every body, so that the library clashes with different bodies
// with one generated with the same prefix.
func genLibrary(t *testing.T, prefix string, other bool) []byte {
	t.Helper()
	p := filepath.Join(t.TempDir(), "lib.so")
	spec := elfgen.Spec{Functions: 4, Prefix: prefix}
	if other {
		spec.Shift, spec.Differ = 64, 1
	}
	if err := elfgen.Write(p, spec); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// cryptographyRelease is a release of cryptography: an sdist only when
// libs is nil (as 1.9 was on Linux), else an abi3 wheel holding libs (path
// in the wheel → content), beside the sdist.
func cryptographyRelease(version string, libs map[string][]byte) (fakes.Release, string, []byte) {
	r := fakes.Release{Version: version, Artifacts: map[string][]byte{
		"cryptography-" + version + ".tar.gz": []byte("the sources of cryptography " + version),
	}}
	if libs == nil {
		return r, "", nil
	}
	fn, data := fakes.Wheel("cryptography", version, "cp34-abi3-manylinux1_x86_64", libs)
	r.Artifacts[fn] = data
	return r, fn, data
}

// TestCheckForbidSdistBaseline: a forbid rule is the project saying
// "never", so a candidate whose wheel exports forbidden symbols is blocked
// unless the baseline is shown to export them too, even when the baseline
// ships no wheel to scan (cryptography 1.9 was an sdist on Linux, 2.0's
// wheel exported its bundled OpenSSL). Clashes with different bodies keep
// their baseline rule: new cannot be told from old, a warning. And pinbot
// scan, which has no baseline, fails the same wheel.
func TestCheckForbidSdistBaseline(t *testing.T) {
	ssl, crypto := genLibrary(t, "SSL_", false), genLibrary(t, "EVP_", false)
	bundled := map[string][]byte{
		"cryptography/.libs/libssl-5a1b2c3d.so.1.1":    ssl,
		"cryptography/.libs/libcrypto-5a1b2c3d.so.1.1": crypto,
	}
	const config = "packages:\n  cryptography:\n    symbols:\n      forbid: [\"SSL_*\", \"EVP_*\"]\n" +
		"      wheel: {platform: manylinux_x86_64, python: \"3.12\"}\n"
	tests := []struct {
		name      string
		baseline  map[string][]byte // nil: an sdist only
		candidate map[string][]byte
		against   bool // cffi's wheel exports the candidate's names with other bodies
		exit      int
		status    string
		verdict   string
		detail    []string
		scan      int // pinbot scan's exit on the candidate's wheel, if it has one
	}{
		{name: "sdist baseline, forbidden exports block", candidate: bundled, exit: exitCheck, status: "blocked", verdict: "blocked",
			detail: []string{"a forbidden export blocks unless the baseline is shown to export it too, and the baseline 1.9 was not scanned: 2 new:",
				"libcrypto-5a1b2c3d.so.1.1 exports 4 symbols matching EVP_*", "libssl-5a1b2c3d.so.1.1 exports 4 symbols matching SSL_*",
				"warning: baseline cryptography 1.9 has no wheel"}, scan: exitCheck},
		{name: "the baseline exports them too", candidate: bundled, exit: 0, status: "bump", verdict: "warning",
			baseline: map[string][]byte{"cryptography/.libs/libssl-0f0e0d0c.so.1.1": ssl, "cryptography/.libs/libcrypto-0f0e0d0c.so.1.1": crypto},
			detail:   []string{"no new symbol problems; 2 existing (warning)"}, scan: exitCheck},
		{name: "nothing forbidden", candidate: map[string][]byte{"cryptography/hazmat/bindings/_openssl.abi3.so": genLibrary(t, "cffi_", false)},
			exit: 0, status: "bump", verdict: "warning", detail: []string{"no new symbol problems", "warning: baseline cryptography 1.9 has no wheel"}},
		{name: "the candidate has no binary", exit: 0, status: "bump", verdict: "warning",
			detail: []string{"warning: candidate cryptography 2.0 has no wheel; baseline cryptography 1.9 has no wheel", "read no wheel (baseline no wheel)"}},
		{name: "a clash keeps its baseline rule", candidate: map[string][]byte{"cryptography/hazmat/bindings/_openssl.abi3.so": genLibrary(t, "cffi_", false)},
			against: true, exit: 0, status: "bump", verdict: "warning",
			detail: []string{"new cannot be told from old: 4 new:", "has different bodies", "warning: baseline cryptography 1.9 has no wheel"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			e.vars["PINBOT_CACHE_DIR"] = t.TempDir()
			base, _, _ := cryptographyRelease("1.9", tt.baseline)
			cand, wheelName, wheelData := cryptographyRelease("2.0", tt.candidate)
			e.pypi.Add("cryptography", base, cand)
			cfg := config
			if tt.against {
				fn, data := fakes.Wheel("cffi", "1.10.0", "cp312-cp312-manylinux1_x86_64", map[string][]byte{"_cffi_backend.so": genLibrary(t, "cffi_", true)})
				e.pypi.Add("cffi", fakes.Release{Version: "1.10.0", Artifacts: map[string][]byte{fn: data}})
				cfg += "      against: [cffi]\n"
			}
			e.file("requirements.txt", []byte("cryptography>=1.7,<=1.9\n"))
			e.file(".pinbot.yml", []byte(cfg))
			code, out, stderr := e.run("check", "--dir", e.dir, "--format", "json")
			if code != tt.exit {
				t.Fatalf("exit %d, want %d\n%s\n%s", code, tt.exit, out, stderr)
			}
			var rep checksReport
			if err := json.Unmarshal([]byte(out), &rep); err != nil {
				t.Fatal(err)
			}
			p := rep.Packages[0]
			if p.Status != tt.status || len(p.Checks) != 1 {
				t.Fatalf("package = %+v", p)
			}
			if moved := p.Pins[0].After != p.Pins[0].Before; moved != (tt.status == "bump") {
				t.Errorf("pin %q -> %q with status %s", p.Pins[0].Before, p.Pins[0].After, p.Status)
			}
			c := p.Checks[0]
			if c.Kind != "symbols" || c.Verdict != tt.verdict || c.OK {
				t.Errorf("check = %+v, want verdict %s", c, tt.verdict)
			}
			for _, d := range tt.detail {
				if !strings.Contains(c.Detail, d) {
					t.Errorf("detail lacks %q:\n%s", d, c.Detail)
				}
			}
			if wheelName == "" {
				return
			}
			// pinbot scan reads the same wheel with no baseline: a forbidden
			// export is a problem (exit 3), as the check's verdict says.
			whl := filepath.Join(t.TempDir(), wheelName)
			if err := os.WriteFile(whl, wheelData, 0o644); err != nil {
				t.Fatal(err)
			}
			if code, out, stderr := e.run("scan", "--forbid", "SSL_*", "--forbid", "EVP_*", whl); code != tt.scan {
				t.Errorf("pinbot scan exit %d, want %d\n%s\n%s", code, tt.scan, out, stderr)
			}
		})
	}
}
