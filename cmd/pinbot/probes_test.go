package main

import (
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pinbot-dev/pinbot/internal/fakes"
)

// sigRelease is checks/probe's sigpkg test package at version (1.1 respells 1.0's
// annotations, 1.2 changes one for real, 2.0 breaks callers) as a release on
// the fake index.
func sigRelease(t *testing.T, version string) fakes.Release {
	t.Helper()
	root := filepath.Join("..", "..", "checks", "probe", "testdata", "sigpkg", version)
	files := map[string][]byte{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		files[filepath.ToSlash(rel)], err = os.ReadFile(p)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	fn, data := fakes.Wheel("sigpkg", version, "py3-none-any", files)
	return fakes.Release{Version: version, Artifacts: map[string][]byte{fn: data}}
}

const sigConfig = `packages:
  sigpkg:
    probes:
      - path: sigpkg.Engine
        signature: "(size, name: Optional[str] = None)"
      - path: sigpkg.Engine.run
        expect: callable
        signature: "(self, x: Optional[int] = None, *, flag: bool = False) -> Optional[str]"
        signature-annotations: true
      - path: sigpkg.compute
        signature: "(a, b: numbers.Number = 1, *args, **kw) -> Optional[float]"
      - path: sigpkg.Engine.size
        expect: instance-attribute
      - path: sigpkg.newthing
        expect: absent
`

// probeModes are the ways pinbot check probes: reading the wheels, and
// installing them for python3 (required under PINBOT_INTEGRATION).
func probeModes(t *testing.T) map[string][]string {
	modes := map[string][]string{"static": {"--static"}}
	if py, err := exec.LookPath("python3"); err == nil {
		modes["dynamic"] = []string{"--python", py}
	} else if os.Getenv("PINBOT_INTEGRATION") != "" {
		t.Fatal("python3 is not installed")
	}
	return modes
}

// TestCheckSignatureProbes: a release that only respells annotations moves the
// cap; one that breaks callers (a renamed parameter, a parameter made
// keyword-only, a default gone, an instance attribute gone, a module that must
// stay absent arriving) blocks, and so does a real annotation change for the
// probe that asks for annotations. Static and dynamic probes agree on every
// check.
func TestCheckSignatureProbes(t *testing.T) {
	t.Parallel() // slow (environments, subprocesses): overlaps the other tests
	verdicts := map[string]string{}
	for mode, flags := range probeModes(t) {
		t.Run(mode, func(t *testing.T) {
			e := newEnv(t)
			e.vars["PINBOT_CACHE_DIR"] = t.TempDir()
			e.pypi.Add("sigpkg", sigRelease(t, "1.0"), sigRelease(t, "1.1"))
			e.file("pyproject.toml", []byte("[project]\nname = \"x\"\ndependencies = [\"sigpkg>=1.0,<=1.0\"]\n"))
			e.file(".pinbot.yml", []byte(sigConfig))
			args := append([]string{"check", "--dir", e.dir, "--format", "json"}, flags...)
			code, out, stderr := e.run(args...)
			var rep checksReport
			if err := json.Unmarshal([]byte(out), &rep); err != nil || code != 0 {
				t.Fatalf("1.1: exit %d, %v\n%s\n%s", code, err, out, stderr)
			}
			p := rep.Packages[0]
			if p.Status != "bump" || p.Newest != "1.1" || len(p.Checks) != 5 {
				t.Fatalf("1.1: %+v", p)
			}
			for _, c := range p.Checks {
				if c.Verdict != "ok" || !c.OK {
					t.Errorf("1.1 only respells annotations, but %s: %s", c.Name, c.Detail)
				}
			}

			e.pypi.Add("sigpkg", sigRelease(t, "1.0"), sigRelease(t, "1.1"), sigRelease(t, "1.2"), sigRelease(t, "2.0"))
			code, out, stderr = e.run(args...)
			rep = checksReport{}
			if err := json.Unmarshal([]byte(out), &rep); err != nil || code != exitCheck {
				t.Fatalf("2.0: exit %d, want 3, %v\n%s\n%s", code, err, out, stderr)
			}
			p = rep.Packages[0]
			if p.Status != "blocked" || p.Newest != "1.1" || p.Pins[0].After != "sigpkg>=1.0,<=1.1" ||
				!strings.Contains(p.Reason, "checks failed on 2.0, 1.1 passed") {
				t.Fatalf("2.0: %+v", p)
			}
			want := map[string]string{
				"sigpkg.Engine":      "name is keyword-only, expected positional-or-keyword",
				"sigpkg.Engine.run":  "parameter x is gone; parameter value is new",
				"sigpkg.compute":     "b has no default any more",
				"sigpkg.Engine.size": "assigns self.size",
				"sigpkg.newthing":    "sigpkg.newthing exists",
			}
			var got []string
			for _, c := range p.Checks {
				if c.Verdict != "blocked" || c.OK || c.Baseline != "pass" || c.Candidate != "fail" || !strings.Contains(c.Detail, want[c.Name]) {
					t.Errorf("2.0 %s: %+v, want blocked naming %q", c.Name, c, want[c.Name])
				}
				got = append(got, c.Name+"="+c.Verdict)
			}
			slices.Sort(got)
			verdicts[mode] = strings.Join(got, " ")
		})
	}
	if len(verdicts) == 2 && verdicts["static"] != verdicts["dynamic"] {
		t.Errorf("static and dynamic disagree:\nstatic  %s\ndynamic %s", verdicts["static"], verdicts["dynamic"])
	}
}

// TestCheckNoInstallNotTheCandidate probes Debian's numba 0.56.4 through
// --python /usr/bin/python3 --no-install while the candidate is 0.67.0: the
// probes run on what is installed, and every check says so as a warning,
// never ok.
func TestCheckNoInstallNotTheCandidate(t *testing.T) {
	t.Parallel() // slow (environments, subprocesses): overlaps the other tests
	python := "/usr/bin/python3"
	if err := exec.Command(python, "-c", "import numba.core.bytecode").Run(); err != nil {
		if os.Getenv("PINBOT_INTEGRATION") != "" {
			t.Fatalf("Debian's python3-numba is not installed: %v", err)
		}
		t.Skip("Debian's python3-numba is not installed")
	}
	e := newEnv(t)
	e.vars["PINBOT_CACHE_DIR"] = t.TempDir()
	e.pypi.Add("numba", numbaRelease("0.66.0", false), numbaRelease("0.67.0", false))
	e.file("pyproject.toml", []byte("[project]\nname = \"x\"\ndependencies = [\"numba>=0.50,<=0.66.0\"]\n"))
	e.file(".pinbot.yml", []byte("packages:\n  numba:\n    probes:\n      - preset: numba-unique-ids\n"))
	code, out, stderr := e.run("check", "--dir", e.dir, "--format", "json", "--python", python, "--no-install")
	var rep checksReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != 0 {
		t.Fatalf("exit %d, %v\n%s\n%s", code, err, out, stderr)
	}
	p := rep.Packages[0]
	if p.Newest != "0.67.0" || len(p.Checks) != 3 {
		t.Fatalf("package %+v", p)
	}
	for _, c := range p.Checks {
		if c.Verdict != "warning" || c.OK || !strings.Contains(c.Detail, "installed numba 0.56.4 is not the candidate 0.67.0") {
			t.Errorf("check %+v, want a warning naming the installed version", c)
		}
	}
	_, text, _ := e.run("check", "--dir", e.dir, "--python", python, "--no-install")
	if !strings.Contains(text, "installed numba 0.56.4 is not the candidate 0.67.0") {
		t.Errorf("text report does not name the installed version:\n%s", text)
	}
}

func TestCheckBadProbeExpectations(t *testing.T) {
	e := newEnv(t)
	e.file("pyproject.toml", []byte("[project]\nname = \"x\"\ndependencies = [\"numba<=0.66.0\"]\n"))
	for cfg, want := range map[string]string{
		"packages:\n  numba:\n    probes:\n      - path: numba.core\n        signature-annotations: true\n":             ".pinbot.yml:4:9: packages.numba.probes[0]: signature-annotations applies to a signature",
		"packages:\n  numba:\n    probes:\n      - path: numba.x\n        expect: instance-attribute\n":                 ".pinbot.yml:5:17: packages.numba.probes[0].expect: instance-attribute needs a path module.Class.attr",
		"packages:\n  numba:\n    probes:\n      - path: numba.x\n        signature: \"(a, a)\"\n":                      "parameter a appears twice",
		"packages:\n  numba:\n    probes:\n      - path: numba.x\n        expect: absent\n        source-contains: y\n": "source-contains needs a module, class or callable, not expect: absent",
		"packages:\n  numba:\n    probes:\n      - path: numba.x\n        expect: abscent\n":                            `unknown kind "abscent" (want exists, module, class, callable, iterator, type:NAME, absent or instance-attribute)`,
	} {
		e.file(".pinbot.yml", []byte(cfg))
		if code, out, stderr := e.run("check", "--dir", e.dir); code != exitUsage || !strings.Contains(stderr, want) || out != "" {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want 2 naming %s", cfg, code, out, stderr, want)
		}
	}
}

// starRelease is a package whose names come through a star import honouring
// __all__ and a plain assignment from the standard library, with a module
// __getattr__ and a compiled module beside them; at 2.0 _impl's __all__ no
// longer lists Engine.
func starRelease(version string) fakes.Release {
	all := `["public", "Engine"]`
	if version == "2.0" {
		all = `["public"]`
	}
	fn, data := fakes.Wheel("starpkg", version, "py3-none-any", map[string][]byte{
		"starpkg/__init__.py": []byte("import math\n\nfrom ._impl import *  # noqa: F403\n\ninf = math.inf\n"),
		"starpkg/_impl.py": []byte("__all__ = " + all + "\n\n\ndef public():\n    return 1\n\n\nclass Engine:\n    pass\n\n\n" +
			"hidden = 1\n"),
		"starpkg/lazy.py":  []byte("def __getattr__(name):\n    if name == \"thing\":\n        return 1\n    raise AttributeError(name)\n"),
		"starpkg/accel.py": []byte("from ._native import *  # noqa: F403\n"),
		"starpkg/_native.cpython-311-x86_64-linux-gnu.so": []byte("\x7fELF not really"),
	})
	return fakes.Release{Version: version, Artifacts: map[string][]byte{fn: data}}
}

// TestCheckStaticProbesDecide: static probes follow the star import into the
// wheel's own module, honour its __all__ and resolve inf = math.inf, so they
// decide as the dynamic probes do (2.0 dropping Engine from __all__ blocks in
// both modes); static mode answers undecided only behind a module __getattr__
// or a compiled module, and names it.
func TestCheckStaticProbesDecide(t *testing.T) {
	t.Parallel() // slow (environments, subprocesses): overlaps the other tests
	const cfg = `packages:
  starpkg:
    probes:
      - path: starpkg.public
        expect: callable
      - path: starpkg.Engine
        expect: class
      - path: starpkg.inf
      - path: starpkg.hidden
        expect: absent
      - path: starpkg.lazy.thing
      - path: starpkg.accel.fast
`
	decided := map[string]string{}
	for mode, flags := range probeModes(t) {
		t.Run(mode, func(t *testing.T) {
			e := newEnv(t)
			e.vars["PINBOT_CACHE_DIR"] = t.TempDir()
			e.pypi.Add("starpkg", starRelease("1.0"), starRelease("2.0"))
			e.file("pyproject.toml", []byte("[project]\nname = \"x\"\ndependencies = [\"starpkg>=1.0,<=1.0\"]\n"))
			e.file(".pinbot.yml", []byte(cfg))
			code, out, stderr := e.run(append([]string{"check", "--dir", e.dir, "--format", "json"}, flags...)...)
			var rep checksReport
			if err := json.Unmarshal([]byte(out), &rep); err != nil || code != exitCheck {
				t.Fatalf("exit %d, want 3, %v\n%s\n%s", code, err, out, stderr)
			}
			p := rep.Packages[0]
			if p.Status != "blocked" || len(p.Checks) != 6 {
				t.Fatalf("%+v", p)
			}
			want := map[string][2]string{
				"starpkg.public": {"ok", ""},
				"starpkg.Engine": {"blocked", ""},
				"starpkg.inf":    {"ok", ""},
				"starpkg.hidden": {"ok", ""},
			}
			if mode == "static" {
				want["starpkg.public"] = [2]string{"ok", "(starpkg._impl line 4)"}
				want["starpkg.Engine"] = [2]string{"blocked", "no star import brings it in"}
				want["starpkg.inf"] = [2]string{"ok", "inf = math.inf (starpkg line 5; math.inf is outside the wheel)"}
				want["starpkg.lazy.thing"] = [2]string{"warning", "module __getattr__ at line 1"}
				want["starpkg.accel.fast"] = [2]string{"warning", "starpkg._native is a compiled module (starpkg/_native.cpython-311-x86_64-linux-gnu.so)"}
			}
			for _, c := range p.Checks {
				w, ok := want[c.Name]
				if ok && (c.Verdict != w[0] || !strings.Contains(c.Detail, w[1])) {
					t.Errorf("%s: %s %q, want %s naming %q", c.Name, c.Verdict, c.Detail, w[0], w[1])
				}
				if c.Name != "starpkg.lazy.thing" && c.Name != "starpkg.accel.fast" {
					decided[mode] += c.Name + "=" + c.Verdict + " "
				}
			}
		})
	}
	if len(decided) == 2 && decided["static"] != decided["dynamic"] {
		t.Errorf("static and dynamic disagree where the wheel decides:\nstatic  %s\ndynamic %s", decided["static"], decided["dynamic"])
	}
}
