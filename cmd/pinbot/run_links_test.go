package main

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunLinkedPinFiles: a pin file that is a symbolic link inside the
// repository (requirements.txt -> deps/base.txt), discovered or a files:
// entry, gets a pull request whose commit changes the link's target, byte
// for byte, and leaves the link's own entry (mode 120000, holding the
// target's name) as it was; a link to a file that is a pin file under its
// own name too (constraints.txt -> requirements-dev.txt) is read once. The
// body names the pin as the report does, by the link. A second run writes
// nothing.
func TestRunLinkedPinFiles(t *testing.T) {
	for _, tc := range []struct{ name, config string }{
		{"discovered", testConfig},
		{"files entries", testConfig + "files: [requirements.txt, constraints.txt, requirements-dev.txt]\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newRunEnvFiles(t, tc.config, map[string]string{
				"deps/base.txt":        "numba>=0.58,<=0.61.0\n",
				"requirements-dev.txt": "numba<=0.61.0  # dev\n",
			})
			links := map[string]string{"requirements.txt": "deps/base.txt", "constraints.txt": "requirements-dev.txt"}
			type entry struct{ mode, sha string }
			before := map[string]entry{}
			for name, target := range links {
				e.link(target, name)
				e.gh.AddLink(testRepo, "main", name, target)
				mode, sha := e.gh.Entry(testRepo, "main", name)
				before[name] = entry{mode, sha}
			}

			code, out, stderr := e.run()
			if code != 0 || !strings.Contains(out, "numba: opened #1") {
				t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
			}
			got := e.gh.Files(testRepo, branch)
			for name, want := range map[string]string{
				"deps/base.txt":        "numba>=0.58,<=0.67.0\n",
				"requirements-dev.txt": "numba<=0.67.0  # dev\n",
			} {
				if got[name] != want {
					t.Errorf("branch: %s = %q, want %q", name, got[name], want)
				}
				if mode, _ := e.gh.Entry(testRepo, branch, name); mode != "100644" {
					t.Errorf("branch: %s has mode %q, want 100644", name, mode)
				}
			}
			for name, was := range before {
				if mode, sha := e.gh.Entry(testRepo, branch, name); (entry{mode, sha}) != was {
					t.Errorf("branch: the link %s is %s %s, was %s %s", name, mode, sha, was.mode, was.sha)
				}
			}
			body := e.gh.Pulls(testRepo)[0].Body
			if !strings.Contains(body, "`requirements.txt:1`") {
				t.Errorf("body does not name the pin by the link:\n%s", body)
			}
			if strings.Count(body, "numba<=0.61.0") != 1 {
				t.Errorf("body names requirements-dev.txt's pin other than once:\n%s", body)
			}
			for name, target := range links {
				if l, err := os.Readlink(filepath.Join(e.dir, name)); err != nil || l != target {
					t.Errorf("checkout: %s is no longer a link to %s: %q, %v", name, target, l, err)
				}
			}
			if e.read("deps/base.txt") != "numba>=0.58,<=0.61.0\n" {
				t.Error("run wrote the working tree")
			}

			from := len(e.gh.Requests())
			if code, _, stderr := e.run(); code != 0 {
				t.Fatalf("second run: exit %d\n%s", code, stderr)
			}
			for _, r := range e.gh.Requests()[from:] {
				if r.Method != http.MethodGet {
					t.Errorf("second run wrote: %s %s", r.Method, r.Path)
				}
			}
		})
	}
}
