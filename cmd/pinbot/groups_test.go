package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pinbot-dev/pinbot/bot/report"
	"github.com/pinbot-dev/pinbot/internal/fakes"
)

const groupConfig = "packages:\n  numba:\n  llvmlite:\ngroups:\n  numba-stack: [numba, llvmlite]\n"

// numbaStack serves numba and llvmlite as they pair: numba 0.66.0 needs
// llvmlite 0.49, numba 0.67.0 llvmlite 0.50; llvmlite 0.51.0 is out for a
// numba that is not.
func numbaStack(e *env) {
	e.pypi.Add("numba",
		fakes.Release{Version: "0.66.0", RequiresDist: []string{"llvmlite<0.50,>=0.49.0dev0", "numpy>=1.24"}},
		fakes.Release{Version: "0.67.0", RequiresDist: []string{"llvmlite<0.51,>=0.50.0dev0", "numpy>=1.24"}})
	e.pypi.Add("llvmlite", fakes.Release{Version: "0.49.0"}, fakes.Release{Version: "0.50.0"},
		fakes.Release{Version: "0.50.1"}, fakes.Release{Version: "0.51.0"})
}

func checkJSON(t *testing.T, e *env, args ...string) (int, report.Report, string) {
	t.Helper()
	code, out, stderr := e.run(append([]string{"check", "--dir", e.dir, "--format", "json"}, args...)...)
	var rep report.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("exit %d: %v\n%s\n%s", code, err, out, stderr)
	}
	return code, rep, stderr
}

func pkgOf(rep report.Report, name string) report.Package {
	for _, p := range rep.Packages {
		if p.Name == name {
			return p
		}
	}
	return report.Package{}
}

// TestCheckGroup: a group's targets are chosen together: numba 0.67.0
// requires llvmlite<0.51, so llvmlite's target is 0.50.1, not 0.51.0.
func TestCheckGroup(t *testing.T) {
	e := newEnv(t)
	numbaStack(e)
	e.file("pyproject.toml", []byte("[project]\nname = \"x\"\ndependencies = [\"numba>=0.58,<=0.66.0\", \"llvmlite<=0.49.0\"]\n"))
	e.file(".pinbot.yml", []byte("packages:\n  numba:\n  llvmlite:\n"))
	_, alone, _ := checkJSON(t, e)
	if p := pkgOf(alone, "llvmlite"); p.Newest != "0.51.0" || alone.Groups != nil {
		t.Fatalf("without the group llvmlite targets %s, groups %+v", p.Newest, alone.Groups)
	}

	e.file(".pinbot.yml", []byte(groupConfig))
	code, rep, stderr := checkJSON(t, e, "--write")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	numba, llvmlite := pkgOf(rep, "numba"), pkgOf(rep, "llvmlite")
	if numba.Newest != "0.67.0" || numba.Status != "bump" || numba.Group != "numba-stack" {
		t.Errorf("numba %+v", numba)
	}
	if llvmlite.Newest != "0.50.1" || llvmlite.Status != "bump" || llvmlite.Pins[0].After != "llvmlite<=0.50.1" ||
		llvmlite.Reason != "pypi has 0.51.0; group numba-stack: numba 0.67.0 requires llvmlite<0.51,>=0.50.0dev0 → 0.50.1" {
		t.Errorf("llvmlite %+v", llvmlite)
	}
	want := []report.Group{{Name: "numba-stack", Packages: []string{"numba", "llvmlite"}, Status: "bump",
		Targets: map[string]string{"numba": "0.67.0", "llvmlite": "0.50.1"},
		Reason:  "consistent targets: llvmlite 0.50.1 (numba 0.67.0 requires llvmlite<0.51,>=0.50.0dev0)"}}
	if diff := cmp.Diff(want, rep.Groups); diff != "" {
		t.Errorf("groups (-want +got)\n%s", diff)
	}
	if got := e.read("pyproject.toml"); !strings.Contains(got, `"numba>=0.58,<=0.67.0", "llvmlite<=0.50.1"`) {
		t.Errorf("--write wrote %s", got)
	}
	_, text, _ := e.run("check", "--dir", e.dir, "--package", "llvmlite")
	if !strings.Contains(text, "numba: current (target 0.67.0) [group numba-stack]") || !strings.Contains(text, "group numba-stack: current (numba 0.67.0, llvmlite 0.50.1)") {
		t.Errorf("--package llvmlite checks its whole group:\n%s", text)
	}
}

// TestCheckGroupHeld: when no set of releases is consistent, the group is
// held with the requirements in the way, and nothing moves.
func TestCheckGroupHeld(t *testing.T) {
	e := newEnv(t)
	numbaStack(e)
	orig := "[project]\nname = \"x\"\ndependencies = [\"numba>=0.58,<=0.66.0\", \"llvmlite==0.51.0\"]\n"
	e.file("pyproject.toml", []byte(orig))
	e.file(".pinbot.yml", []byte(groupConfig))
	code, rep, stderr := checkJSON(t, e, "--write")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	const why = "group numba-stack: no consistent set of releases: numba 0.67.0 requires llvmlite<0.51,>=0.50.0dev0; numba 0.66.0 requires llvmlite<0.50,>=0.49.0dev0"
	numba := pkgOf(rep, "numba")
	if numba.Status != "held" || numba.Hold != why || numba.Pins[0].After != numba.Pins[0].Before {
		t.Errorf("numba %+v", numba)
	}
	if len(rep.Groups) != 1 || rep.Groups[0].Status != "held" || !strings.Contains(rep.Groups[0].Reason, "no consistent set") {
		t.Errorf("groups %+v", rep.Groups)
	}
	if e.read("pyproject.toml") != orig {
		t.Error("a held group was written")
	}
}

// TestCheckGroupBadConfig: a group naming a package that is not watched,
// or a package in two groups, is a configuration error naming file:line.
func TestCheckGroupBadConfig(t *testing.T) {
	e := newEnv(t)
	e.file("pyproject.toml", []byte("[project]\nname = \"x\"\ndependencies = [\"numba<=0.66.0\"]\n"))
	for cfg, want := range map[string]string{
		"packages:\n  numba:\ngroups:\n  numba-stack: [numba, llvmlite]\n":                                   `.pinbot.yml:4:24: groups.numba-stack[1]: "llvmlite" is not a watched package (watched: numba)`,
		"packages:\n  numba:\n  llvmlite:\n  numpy:\ngroups:\n  a: [numba, llvmlite]\n  b: [numpy, numba]\n": ".pinbot.yml:7:14: groups.b[1]: numba is already in groups.a[0] (line 6): a package moves with one group",
	} {
		e.file(".pinbot.yml", []byte(cfg))
		code, out, stderr := e.run("check", "--dir", e.dir)
		if code != exitUsage || out != "" || !strings.Contains(stderr, want) {
			t.Errorf("exit %d, stderr %q, want 2 and %q", code, stderr, want)
		}
	}
}

// numbaWithLLVM is a numba wheel that requires llvmlite and whose
// probe-able module is numba.core.bytecode.
func numbaWithLLVM(version, requires string, drop bool) fakes.Release {
	fn, data := fakes.WheelMeta("numba", version, "py3-none-any", []string{"Requires-Dist: " + requires}, map[string][]byte{
		"numba/__init__.py":      nil,
		"numba/core/__init__.py": nil,
		"numba/core/bytecode.py": numbaBytecode(drop),
	})
	return fakes.Release{Version: version, Artifacts: map[string][]byte{fn: data}}
}

func llvmliteWheel(version string) fakes.Release {
	fn, data := fakes.Wheel("llvmlite", version, "py3-none-any", map[string][]byte{"llvmlite/__init__.py": []byte("__version__ = '" + version + "'\n")})
	return fakes.Release{Version: version, Artifacts: map[string][]byte{fn: data}}
}

// TestCheckGroupProbesTogether runs a group's checks with real pip: numba's
// probe runs with llvmlite's target installed beside it (0.50.1, held by
// an exact pin, where pip alone would pick 0.51.0), and when it fails,
// neither member's caps move: one verdict for the group.
func TestCheckGroupProbesTogether(t *testing.T) {
	t.Parallel() // slow (environments, subprocesses): overlaps the other tests
	py, err := exec.LookPath("python3")
	if err != nil {
		if os.Getenv("PINBOT_INTEGRATION") != "" {
			t.Fatal("python3 is not installed")
		}
		t.Skip("python3 is not installed")
	}
	const cfg = "packages:\n  numba:\n    probes:\n      - name: llvmlite installed together\n        expect: pass\n        run: |\n" +
		"          import llvmlite\n          assert llvmlite.__version__ == '0.50.1', 'llvmlite ' + llvmlite.__version__\n" +
		"      - path: numba.core.bytecode.FunctionIdentity._unique_ids\n        expect: iterator\n  llvmlite:\ngroups:\n  numba-stack: [numba, llvmlite]\n"
	for _, tt := range []struct {
		name       string
		drop       bool   // numba 0.67.0 drops _unique_ids
		requires   string // numba 0.67.0's requirement on llvmlite
		llvmlite   string // the project's llvmlite pin
		wantCode   int
		wantStatus string
	}{
		{"passes together", false, "llvmlite>=0.50", "llvmlite==0.50.1", 0, "bump"},
		{"a failing member blocks the group", true, "llvmlite<0.51,>=0.50", "llvmlite>=0.49,<=0.50.0", exitCheck, "blocked"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			e.vars["PINBOT_CACHE_DIR"] = t.TempDir()
			e.pypi.Add("numba", numbaWithLLVM("0.66.0", "llvmlite>=0.49", false), numbaWithLLVM("0.67.0", tt.requires, tt.drop))
			e.pypi.Add("llvmlite", llvmliteWheel("0.49.0"), llvmliteWheel("0.50.0"), llvmliteWheel("0.50.1"), llvmliteWheel("0.51.0"))
			e.file("pyproject.toml", []byte("[project]\nname = \"x\"\ndependencies = [\"numba>=0.58,<=0.66.0\", \""+tt.llvmlite+"\"]\n"))
			e.file(".pinbot.yml", []byte(cfg))
			code, rep, stderr := checkJSON(t, e, "--python", py)
			if code != tt.wantCode {
				t.Fatalf("exit %d, want %d\n%s", code, tt.wantCode, stderr)
			}
			numba, llvmlite := pkgOf(rep, "numba"), pkgOf(rep, "llvmlite")
			if numba.Status != tt.wantStatus || rep.Groups[0].Status != tt.wantStatus || rep.Groups[0].Targets["llvmlite"] != "0.50.1" {
				t.Fatalf("numba %+v\ngroups %+v", numba, rep.Groups)
			}
			var together bool
			for _, c := range numba.Checks {
				if c.Name == "llvmlite installed together" && c.Candidate == "pass" {
					together = true
				}
			}
			if !together {
				t.Errorf("numba's candidate did not run with llvmlite 0.50.1: %+v", numba.Checks)
			}
			if tt.drop && (numba.Changed() || llvmlite.Changed() || llvmlite.Status != "blocked" ||
				!strings.Contains(llvmlite.Reason, "group numba-stack: checks failed on numba 0.67.0, so no member's caps move")) {
				t.Errorf("blocked group moved: numba %+v\nllvmlite %+v", numba, llvmlite)
			}
		})
	}
}

// TestRunGroup: one pull request for the group, on a branch named after
// it, carrying both members' new caps.
func TestRunGroup(t *testing.T) {
	e := newRunEnv(t, testConfig+"groups:\n  numba-stack: [numba, llvmlite]\n")
	e.base[".pinbot.yml"] = strings.Replace(e.base[".pinbot.yml"], "  numba: {}\n", "  numba: {}\n  llvmlite: {}\n", 1)
	e.file(".pinbot.yml", []byte(e.base[".pinbot.yml"]))
	e.gh.AddRepo(testRepo, "main", e.base)
	numbaStack(e.env)
	code, out, stderr := e.run()
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	p := e.gh.Pulls(testRepo)
	if len(p) != 1 || p[0].Head != "pinbot/main/numba-stack" || p[0].Title != "Bump numba-stack caps: numba 0.67.0, llvmlite 0.50.1" {
		t.Fatalf("pull requests %+v\n%s", p, out)
	}
	for _, want := range []string{"pinbot moves the caps on **numba-stack (numba, llvmlite, together)** to admit **numba 0.67.0**, **llvmlite 0.50.1**",
		"### Groups", "pinbot check --package numba --package llvmlite", "package=numba-stack target=numba==0.67.0,llvmlite==0.50.1"} {
		if !strings.Contains(p[0].Body, want) {
			t.Errorf("body lacks %q:\n%s", want, p[0].Body)
		}
	}
	files := e.gh.Files(testRepo, "pinbot/main/numba-stack")
	if got := files["pyproject.toml"]; !strings.Contains(got, `numba = ["numba>=0.58,<=0.67.0", "llvmlite<=0.50.1"]`) {
		t.Errorf("pyproject.toml on the branch:\n%s", got)
	}
	if e.gh.Branch(testRepo, "pinbot/main/numba") != "" || e.gh.Branch(testRepo, "pinbot/main/llvmlite") != "" {
		t.Error("a member got its own branch")
	}
	// A second run changes nothing.
	code, _, _ = e.run()
	if p2 := e.gh.Pulls(testRepo); code != 0 || len(p2) != 1 {
		t.Errorf("second run: exit %d, %d pull requests", code, len(p2))
	}
}

// pyWheel is a release of name whose wheel holds module, with its version.
func pyWheel(name, module, version string) fakes.Release {
	fn, data := fakes.Wheel(name, version, "py3-none-any", map[string][]byte{module + "/__init__.py": []byte("__version__ = '" + version + "'\n")})
	return fakes.Release{Version: version, Artifacts: map[string][]byte{fn: data}}
}

// TestCheckGroupBaselineWith: the baseline is probed as the project runs
// today, with the group's other members at the releases their caps admit
// now. legacy-gen is no dependency of protobuf, so without it beside the
// baseline the probe importing it would fail there, and the candidate's
// pass would read as a fix.
func TestCheckGroupBaselineWith(t *testing.T) {
	py := dynamicOnly(t)
	t.Parallel() // slow (environments, subprocesses): overlaps the other tests
	const cfg = "packages:\n  protobuf:\n    probes:\n      - name: generated code imports\n        expect: pass\n        run: |\n" +
		"          import google_pb, legacy_gen\n          print(google_pb.__version__, legacy_gen.__version__)\n" +
		"  legacy-gen:\ngroups:\n  codegen: [protobuf, legacy-gen]\n"
	for _, tt := range []struct {
		name, pin    string // legacy-gen's pin
		wantBaseline string // the probe at the baseline
		wantBeside   string // legacy-gen in the baseline's environment
	}{
		{"at its cap", "legacy-gen>=0.1,<=1.0.0", "pass", "1.0.0"},
		// No release its caps admit: installed beside no baseline.
		{"no baseline release", "legacy-gen<0.5", "fail", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			e.vars["PINBOT_CACHE_DIR"] = t.TempDir()
			e.pypi.Add("protobuf", pyWheel("protobuf", "google_pb", "4.0.0"), pyWheel("protobuf", "google_pb", "5.0.0"))
			e.pypi.Add("legacy-gen", pyWheel("legacy-gen", "legacy_gen", "1.0.0"), pyWheel("legacy-gen", "legacy_gen", "2.0.0"))
			e.file("pyproject.toml", []byte("[project]\nname = \"x\"\ndependencies = [\"protobuf>=3,<=4.0.0\", \""+tt.pin+"\"]\n"))
			e.file(".pinbot.yml", []byte(cfg))
			code, rep, stderr := checkJSON(t, e, "--python", py)
			if code != 0 {
				t.Fatalf("exit %d\n%s", code, stderr)
			}
			protobuf := pkgOf(rep, "protobuf")
			if protobuf.Status != "bump" || rep.Groups[0].Targets["legacy-gen"] != "2.0.0" || rep.Groups[0].Targets["protobuf"] != "5.0.0" {
				t.Fatalf("protobuf %+v\ngroups %+v", protobuf, rep.Groups)
			}
			var check *report.Check
			for i, c := range protobuf.Checks {
				if c.Name == "generated code imports" {
					check = &protobuf.Checks[i]
				}
			}
			if check == nil || check.Baseline != tt.wantBaseline || check.Candidate != "pass" {
				t.Fatalf("baseline %s with legacy-gen %q beside it: %+v", tt.wantBaseline, tt.wantBeside, protobuf.Checks)
			}
			env := check.Environment
			if env == nil || distVersion(asDists(env.Baseline), "legacy-gen") != tt.wantBeside || distVersion(asDists(env.Baseline), "protobuf") != "4.0.0" ||
				distVersion(asDists(env.Candidate), "legacy-gen") != "2.0.0" || distVersion(asDists(env.Candidate), "protobuf") != "5.0.0" {
				t.Errorf("environments %+v", env)
			}
		})
	}
}
