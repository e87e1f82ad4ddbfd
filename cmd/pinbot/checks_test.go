package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pinbot-dev/pinbot/internal/fakes"
)

// numbaBytecode is numba/core/bytecode.py reduced to what pytensor relies on;
// drop removes _unique_ids (as a hypothetical numba 0.68.0 would).
func numbaBytecode(drop bool) []byte {
	ids := "    _unique_ids = itertools.count(1)\n\n"
	if drop {
		ids = ""
	}
	return []byte("import itertools\n\n\nclass FunctionIdentity(object):\n" + ids +
		"    @classmethod\n    def from_function(cls, pyfunc):\n        self = cls()\n        self.func = pyfunc\n" +
		"        uid = next(cls._unique_ids)\n        self.unique_name = '{}${}'.format(pyfunc.__qualname__, uid)\n" +
		"        self.unique_id = uid\n        return self\n")
}

func numbaRelease(version string, drop bool) fakes.Release {
	fn, data := fakes.Wheel("numba", version, "py3-none-any", map[string][]byte{
		"numba/__init__.py":      nil,
		"numba/core/__init__.py": nil,
		"numba/core/bytecode.py": numbaBytecode(drop),
	})
	return fakes.Release{Version: version, Artifacts: map[string][]byte{fn: data}}
}

type checksReport struct {
	Packages []struct {
		Name, Status, Newest, Reason string
		Pins                         []struct{ Before, After string }
		Checks                       []struct {
			Kind, Name, Baseline, Candidate, Detail, Verdict string
			OK                                               bool
		}
	}
}

// TestCheckProbes runs the numba-unique-ids preset through pinbot check against
// wheels served by the fake index: 0.68.0 drops _unique_ids, so the bump is
// blocked (exit 3) and the cap moves only to 0.67.0, the newest release that
// passes; the checks' evidence is in the report.
func TestCheckProbes(t *testing.T) {
	t.Parallel() // slow (environments, subprocesses): overlaps the other tests
	modes := map[string][]string{"static": {"--static"}}
	if py, err := exec.LookPath("python3"); err == nil {
		modes["dynamic"] = []string{"--python", py}
	} else if os.Getenv("PINBOT_INTEGRATION") != "" {
		t.Fatal("python3 is not installed")
	}
	for mode, flags := range modes {
		t.Run(mode, func(t *testing.T) {
			e := newEnv(t)
			e.vars["PINBOT_CACHE_DIR"] = t.TempDir()
			e.pypi.Add("numba", numbaRelease("0.66.0", false), numbaRelease("0.67.0", false), numbaRelease("0.68.0", true))
			e.file("pyproject.toml", []byte("[project]\nname = \"x\"\ndependencies = [\"numba>=0.58,<=0.66.0\"]\n"))
			e.file(".pinbot.yml", []byte("packages:\n  numba:\n    probes:\n      - preset: numba-unique-ids\n"))
			args := append([]string{"check", "--dir", e.dir, "--format", "json", "--write"}, flags...)
			code, out, stderr := e.run(args...)
			if code != exitCheck {
				t.Fatalf("exit %d, want 3\n%s\n%s", code, out, stderr)
			}
			var rep checksReport
			if err := json.Unmarshal([]byte(out), &rep); err != nil {
				t.Fatal(err)
			}
			p := rep.Packages[0]
			if p.Status != "blocked" || p.Newest != "0.67.0" || p.Pins[0].After != "numba>=0.58,<=0.67.0" ||
				!strings.Contains(p.Reason, "checks failed on 0.68.0, 0.67.0 passed") {
				t.Errorf("package = %+v", p)
			}
			var missing bool
			for _, c := range p.Checks {
				if c.Kind == "probe" && c.Verdict == "blocked" && !c.OK && c.Baseline == "pass" && c.Candidate == "fail" &&
					strings.Contains(c.Detail, "segment 5") && strings.Contains(c.Detail, "_unique_ids") && strings.Contains(c.Detail, "is missing") {
					missing = true
				}
			}
			if !missing {
				t.Errorf("no blocked probe naming the missing _unique_ids in %+v", p.Checks)
			}
			if got := e.read("pyproject.toml"); !strings.Contains(got, `"numba>=0.58,<=0.67.0"`) {
				t.Errorf("--write wrote %q, want the cap of the newest release that passed", got)
			}
		})
	}
}

// TestCheckProbesPass: when the candidate keeps the internal, the bump goes
// ahead with the evidence attached.
func TestCheckProbesPass(t *testing.T) {
	e := newEnv(t)
	e.vars["PINBOT_CACHE_DIR"] = t.TempDir()
	e.pypi.Add("numba", numbaRelease("0.66.0", false), numbaRelease("0.67.0", false))
	e.file("pyproject.toml", []byte("[project]\nname = \"x\"\ndependencies = [\"numba>=0.58,<=0.66.0\"]\n"))
	e.file(".pinbot.yml", []byte("packages:\n  numba:\n    probes:\n      - path: numba.core.bytecode.FunctionIdentity._unique_ids\n        expect: iterator\n"))
	code, out, stderr := e.run("check", "--dir", e.dir, "--format", "json", "--static")
	if code != 0 || !strings.Contains(out, `"status": "bump"`) || !strings.Contains(out, `"verdict": "ok"`) {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
}

// tfLibrary compiles a shared library whose google::protobuf function is
// exported, or hidden as TensorFlow 2.19's version script hides it.
func tfLibrary(t *testing.T, hidden bool) []byte {
	t.Helper()
	gxx, err := exec.LookPath("g++")
	if err != nil {
		if os.Getenv("PINBOT_INTEGRATION") != "" {
			t.Fatal("g++ is not installed")
		}
		t.Skip("g++ is not installed")
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "tf.cc")
	os.WriteFile(src, []byte(`namespace google { namespace protobuf {
int Arena_Create(int n) { return n * 3 + 1; }
} }
extern "C" __attribute__((visibility("default"))) int TF_Version(int n) { return google::protobuf::Arena_Create(n); }
`), 0o644)
	args := []string{"-shared", "-fPIC", "-O1", "-o", filepath.Join(dir, "lib.so"), src}
	if hidden {
		args = append(args, "-fvisibility=hidden")
	}
	if out, err := exec.Command(gxx, args...).CombinedOutput(); err != nil {
		t.Fatalf("g++: %v\n%s", err, out)
	}
	b, err := os.ReadFile(filepath.Join(dir, "lib.so"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestCheckSymbols scans TensorFlow-like wheels through pinbot check: 2.19.0
// hides google::protobuf, 2.20.0 exports it, so moving the cap is blocked and
// the pin stays; the scan's verdict is in the report.
func TestCheckSymbols(t *testing.T) {
	hidden, exported := tfLibrary(t, true), tfLibrary(t, false)
	tags := "cp312-cp312-manylinux_2_17_x86_64"
	tf := func(version string, lib []byte) fakes.Release {
		fn, data := fakes.Wheel("tensorflow", version, tags, map[string][]byte{"tensorflow/libtensorflow_framework.so.2": lib})
		return fakes.Release{Version: version, Artifacts: map[string][]byte{fn: data}}
	}
	pbName, pbData := fakes.Wheel("protobuf", "5.29.3", tags, map[string][]byte{"google/_upb/_message.abi3.so": exported})
	e := newEnv(t)
	e.vars["PINBOT_CACHE_DIR"] = t.TempDir()
	e.pypi.Add("tensorflow", tf("2.19.0", hidden), tf("2.20.0", exported))
	e.pypi.Add("protobuf", fakes.Release{Version: "5.29.3", Artifacts: map[string][]byte{pbName: pbData}})
	e.file("requirements.txt", []byte("tensorflow>=2.16,<=2.19.0\n"))
	e.file(".pinbot.yml", []byte("packages:\n  tensorflow:\n    symbols:\n      preset: tensorflow-protobuf\n      wheel: {platform: manylinux_x86_64, python: \"3.12\"}\n"))
	code, out, stderr := e.run("check", "--dir", e.dir, "--format", "json")
	if code != exitCheck {
		t.Fatalf("exit %d, want 3\n%s\n%s", code, out, stderr)
	}
	var rep checksReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	p := rep.Packages[0]
	if p.Status != "blocked" || p.Pins[0].After != p.Pins[0].Before || len(p.Checks) != 1 {
		t.Fatalf("package = %+v", p)
	}
	c := p.Checks[0]
	if c.Kind != "symbols" || c.OK || c.Verdict != "blocked" || !strings.Contains(c.Detail, "protobuf") {
		t.Errorf("check = %+v", c)
	}
	// Markdown carries the same evidence, for the pull request body.
	_, md, _ := e.run("check", "--dir", e.dir, "--format", "markdown")
	if !strings.Contains(md, "symbols") || !strings.Contains(md, "failed") {
		t.Errorf("markdown lacks the scan:\n%s", md)
	}
}

// TestCheckProbesDebianNumba probes the numba Debian installs (0.56.4) with
// --python /usr/bin/python3 --no-install: the numba-unique-ids preset passes,
// and a probe of a name that does not exist fails with the segment named.
func TestCheckProbesDebianNumba(t *testing.T) {
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
	e.pypi.Add("numba", numbaRelease("0.56.0", false), numbaRelease("0.56.4", false))
	e.file("pyproject.toml", []byte("[project]\nname = \"x\"\ndependencies = [\"numba>=0.50,<=0.56.0\"]\n"))
	cfg := "packages:\n  numba:\n    probes:\n      - preset: numba-unique-ids\n"
	e.file(".pinbot.yml", []byte(cfg))
	code, out, stderr := e.run("check", "--dir", e.dir, "--format", "json", "--python", python, "--no-install")
	if code != 0 || strings.Count(out, `"verdict": "ok"`) != 3 {
		t.Fatalf("preset on Debian's numba: exit %d\n%s\n%s", code, out, stderr)
	}
	e.file(".pinbot.yml", []byte(cfg+"      - path: numba.core.bytecode.FunctionIdentity._no_such_counter\n        expect: iterator\n"))
	code, out, _ = e.run("check", "--dir", e.dir, "--format", "json", "--python", python, "--no-install")
	if code != exitCheck || !strings.Contains(out, "_no_such_counter") || !strings.Contains(out, "is missing") {
		t.Fatalf("missing name: exit %d\n%s", code, out)
	}
}

func TestCheckBadProbeConfig(t *testing.T) {
	e := newEnv(t)
	e.file("pyproject.toml", []byte("[project]\nname = \"x\"\ndependencies = [\"numba<=0.66.0\"]\n"))
	for cfg, want := range map[string]string{
		"packages:\n  numba:\n    probes:\n      - path: numba core\n        expect: exists\n": ".pinbot.yml:4:15: packages.numba.probes[0].path: \"numba core\" is not dotted identifiers",
		"packages:\n  numba:\n    probes:\n      - path: numba.core\n        expect: shiny\n":  ".pinbot.yml:5:17: packages.numba.probes[0].expect: unknown kind \"shiny\"",
		"packages:\n  numba:\n    probes:\n      - run: import numba\n":                        ".pinbot.yml:4:9: packages.numba.probes[0]",
	} {
		e.file(".pinbot.yml", []byte(cfg))
		if code, _, stderr := e.run("check", "--dir", e.dir); code != exitUsage || !strings.Contains(stderr, want) {
			t.Errorf("%q: exit %d, stderr %q; want 2 naming %s", cfg, code, stderr, want)
		}
	}
}

// TestRunBlockedByProbe: a real failing probe makes pinbot run open a draft
// pull request capped at the newest release that passed, with the evidence in
// its body, and alert Slack.
func TestRunBlockedByProbe(t *testing.T) {
	e := newRunEnv(t, strings.Replace(testConfig, "  numba: {}\n", "  numba:\n    probes: [{preset: numba-unique-ids}]\n", 1))
	e.vars["PINBOT_CACHE_DIR"] = t.TempDir()
	e.pypi.Add("numba", numbaRelease("0.66.0", false), numbaRelease("0.67.0", false), numbaRelease("0.68.0", true))
	code, out, stderr := e.run("--static")
	if code != exitCheck {
		t.Fatalf("exit %d, want 3\n%s\n%s", code, out, stderr)
	}
	p := e.gh.Pulls(testRepo)
	if len(p) != 1 || !p[0].Draft || p[0].Title != "Bump numba cap to 0.67.0 (a check failed)" || !strings.Contains(p[0].Body, "unique") {
		t.Fatalf("pull requests %+v", p)
	}
	if msgs := e.slack.Messages(); len(msgs) != 1 || !strings.Contains(string(msgs[0]), "numba: a check failed") {
		t.Errorf("slack %s", msgs)
	}
}
