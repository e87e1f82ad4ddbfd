package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// solveEnv serves real wheels of numba and llvmlite: numba 0.66.0 needs
// llvmlite 0.49, numba 0.67.0 llvmlite 0.50.
func solveEnv(t *testing.T) (*env, string) {
	py, err := exec.LookPath("python3")
	if err != nil {
		if os.Getenv("PINBOT_INTEGRATION") != "" {
			t.Fatal("python3 is not installed")
		}
		t.Skip("python3 is not installed")
	}
	e := newEnv(t)
	e.vars["PINBOT_CACHE_DIR"] = t.TempDir()
	e.pypi.Add("numba", numbaWithLLVM("0.66.0", "llvmlite<0.50,>=0.49", false), numbaWithLLVM("0.67.0", "llvmlite<0.51,>=0.50", false))
	e.pypi.Add("llvmlite", llvmliteWheel("0.49.0"), llvmliteWheel("0.50.1"))
	return e, py
}

// TestCheckSolve asks the real pip whether the project's requirements
// resolve with the new caps, and reports what it picked.
func TestCheckSolve(t *testing.T) {
	t.Parallel() // slow (environments, subprocesses): overlaps the other tests
	e, py := solveEnv(t)
	tests := []struct {
		name, deps, config string
		status             string
		ok                 bool
		detail             string
		picked             string // numba's version in the resolution
		written            bool
	}{
		{name: "resolves with the new cap", deps: `"numba>=0.58,<=0.66.0", "llvmlite>=0.49"`, config: "solve: true\npackages:\n  numba:\n",
			status: "bump", ok: true, detail: "picks numba 0.67.0", picked: "0.67.0", written: true},
		{name: "resolves, but another requirement holds it back", deps: `"numba>=0.58,<=0.66.0", "llvmlite<0.50"`, config: "packages:\n  numba:\n    solve: true\n",
			status: "bump", ok: true, detail: "picks numba 0.66.0, not the target 0.67.0 (another requirement holds it back)", picked: "0.66.0", written: true},
		{name: "the new caps break it: held", deps: `"numba==0.66.0", "llvmlite<0.50"`, config: "packages:\n  numba:\n    cap: preserve\n    solve: true\n",
			status: "held", detail: "solve: the project's requirements resolve as written but not with the new caps of numba (pip "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			orig := "[project]\nname = \"x\"\ndependencies = [" + tt.deps + "]\n[build-system]\nrequires = [\"setuptools<1\"]\n"
			e.file("pyproject.toml", []byte(orig))
			e.file(".pinbot.yml", []byte(tt.config))
			code, rep, stderr := checkJSON(t, e, "--python", py, "--write")
			if code != 0 {
				t.Fatalf("exit %d\n%s", code, stderr)
			}
			p := pkgOf(rep, "numba")
			if p.Status != tt.status || p.Solve == nil || p.Solve.OK != tt.ok || !strings.Contains(p.Solve.Detail, tt.detail) ||
				!strings.HasPrefix(p.Solve.Resolver, "pip ") || p.Solve.Picked["numba"] != tt.picked {
				t.Fatalf("numba %s, solve %+v", p.Status, p.Solve)
			}
			if tt.ok && p.Solve.Picked["llvmlite"] == "" {
				t.Errorf("picked %v lacks llvmlite", p.Solve.Picked)
			}
			if tt.status == "held" && !strings.Contains(p.Hold, "not with the new caps of numba") {
				t.Errorf("hold %q", p.Hold)
			}
			if written := e.read("pyproject.toml") != orig; written != tt.written {
				t.Errorf("written %v, want %v", written, tt.written)
			}
		})
	}
	t.Run("text report", func(t *testing.T) {
		e.file("pyproject.toml", []byte("[project]\nname = \"x\"\ndependencies = [\"numba>=0.58,<=0.66.0\"]\n"))
		e.file(".pinbot.yml", []byte("solve: true\npackages:\n  numba:\n"))
		_, out, _ := e.run("check", "--dir", e.dir, "--python", py)
		if !strings.Contains(out, "  solve: ok: the project's requirements resolve with the new caps (2 distributions); pip ") ||
			!strings.Contains(out, " picks numba 0.67.0\n") {
			t.Errorf("text:\n%s", out)
		}
	})
}

// TestCheckSolveUnresolvable: requirements that do not resolve even as
// written are a warning, and the caps move as planned; so is a resolver
// that cannot be asked.
func TestCheckSolveUnresolvable(t *testing.T) {
	t.Parallel() // slow (environments, subprocesses): overlaps the other tests
	e, py := solveEnv(t)
	e.file("pyproject.toml", []byte("[project]\nname = \"x\"\ndependencies = [\"numba>=0.58,<=0.66.0\", \"llvmlite>=9\"]\n"))
	e.file(".pinbot.yml", []byte("solve: true\npackages:\n  numba:\n"))
	code, rep, stderr := checkJSON(t, e, "--python", py)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	p := pkgOf(rep, "numba")
	if p.Status != "bump" || p.Solve == nil || p.Solve.OK || !strings.Contains(p.Solve.Detail, "do not resolve, with the new caps or without") ||
		!strings.Contains(strings.Join(rep.Warnings, "\n"), "numba: the project's requirements do not resolve, with the new caps or without") {
		t.Errorf("numba %s %+v, warnings %q", p.Status, p.Solve, rep.Warnings)
	}

	e.file("pyproject.toml", []byte("[project]\nname = \"x\"\ndependencies = [\"numba>=0.58,<=0.66.0\"]\n"))
	_, rep, _ = checkJSON(t, e, "--python", e.dir+"/no-python")
	p = pkgOf(rep, "numba")
	if p.Status != "bump" || p.Solve == nil || p.Solve.OK || !strings.Contains(p.Solve.Detail, "no resolver could be asked") {
		t.Errorf("no interpreter: numba %s %+v", p.Status, p.Solve)
	}
}
