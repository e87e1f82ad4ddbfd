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

// release builds a release of name at version from wheels, each a tag set
// and its files.
func release(name, version string, wheels map[string]map[string][]byte) fakes.Release {
	r := fakes.Release{Version: version, Artifacts: map[string][]byte{}}
	for tags, files := range wheels {
		fn, data := fakes.Wheel(name, version, tags, files)
		r.Artifacts[fn] = data
	}
	return r
}

// pure is the files of a pure-Python wheel: no shared object.
func pure(pkg string) map[string][]byte {
	return map[string][]byte{pkg + "/__init__.py": []byte("")}
}

func tfFiles(lib []byte) map[string][]byte {
	return map[string][]byte{"tensorflow/__init__.py": nil, "tensorflow/libtensorflow_framework.so.2": lib}
}

// symbolsCheck runs pinbot check --format json and returns the exit code,
// the tensorflow package and its symbols check.
func symbolsCheck(t *testing.T, e *env, args ...string) (int, checksPackage, checksEntry) {
	t.Helper()
	code, out, stderr := e.run(append([]string{"check", "--dir", e.dir, "--format", "json"}, args...)...)
	var rep struct{ Packages []checksPackage }
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("exit %d: %v\n%s\n%s", code, err, out, stderr)
	}
	for _, p := range rep.Packages {
		if p.Name != "tensorflow" {
			continue
		}
		for _, c := range p.Checks {
			if c.Kind == "symbols" {
				return code, p, c
			}
		}
		t.Fatalf("no symbols check in %+v\n%s", p, stderr)
	}
	t.Fatalf("no tensorflow in the report\n%s\n%s", out, stderr)
	return 0, checksPackage{}, checksEntry{}
}

type checksEntry struct {
	Kind, Name, Baseline, Candidate, Detail, Verdict string
	OK                                               bool
}

type checksPackage struct {
	Name, Status, Newest, Reason, Hold string
	Pins                               []struct {
		Before, After, Reason, Fix string
		Held                       bool
	}
	Checks []checksEntry
}

const tfConfig = "packages:\n  tensorflow:\n    symbols:\n      forbid: [\"google::protobuf::*\"]\n"

// TestCheckSymbolsWheelChoice: the scan reads the wheel pip installs. For
// CPython 3.12, tensorflow 2.20.0's cp312-cp312 wheel (exporting protobuf)
// wins over its cp39-abi3 wheel (hiding it) and its pure wheel, so the bump
// is blocked; for 3.11 the abi3 wheel is read and the bump goes ahead. The
// detail names the file read. Before, the first wheel matching the spec was
// read: the pure wheel, an empty scan that passed.
func TestCheckSymbolsWheelChoice(t *testing.T) {
	hidden, exported := tfLibrary(t, true), tfLibrary(t, false)
	e := newEnv(t)
	e.vars["PINBOT_CACHE_DIR"] = t.TempDir()
	e.pypi.Add("tensorflow",
		release("tensorflow", "2.19.0", map[string]map[string][]byte{
			"py3-none-any":                      pure("tensorflow"),
			"cp39-abi3-manylinux_2_17_x86_64":   tfFiles(hidden),
			"cp312-cp312-manylinux_2_17_x86_64": tfFiles(hidden),
		}),
		release("tensorflow", "2.20.0", map[string]map[string][]byte{
			"py3-none-any":                       pure("tensorflow"),
			"cp39-abi3-manylinux_2_17_x86_64":    tfFiles(hidden),
			"cp312-cp312-manylinux_2_17_x86_64":  tfFiles(exported),
			"cp312-cp312-manylinux_2_28_aarch64": tfFiles(hidden),
		}))
	e.file("requirements.txt", []byte("tensorflow>=2.16,<=2.19.0\n"))

	e.file(".pinbot.yml", []byte(tfConfig+"      wheel: {platform: manylinux_2_28_x86_64, python: \"3.12\"}\n"))
	code, p, c := symbolsCheck(t, e)
	if code != exitCheck || p.Status != "blocked" || c.Verdict != "blocked" || c.OK ||
		!strings.Contains(c.Detail, "read tensorflow-2.20.0-cp312-cp312-manylinux_2_17_x86_64.whl (baseline tensorflow-2.19.0-cp312-cp312-manylinux_2_17_x86_64.whl)") ||
		!strings.Contains(c.Detail, "google::protobuf") {
		t.Errorf("3.12: exit %d, %s, check %+v", code, p.Status, c)
	}

	e.file(".pinbot.yml", []byte(tfConfig+"      wheel: {platform: linux-64, python: cp311}\n"))
	code, p, c = symbolsCheck(t, e)
	if code != 0 || p.Status != "bump" || c.Verdict != "ok" || !c.OK ||
		!strings.Contains(c.Detail, "read tensorflow-2.20.0-cp39-abi3-manylinux_2_17_x86_64.whl (baseline tensorflow-2.19.0-cp39-abi3-manylinux_2_17_x86_64.whl)") {
		t.Errorf("3.11: exit %d, %s, check %+v", code, p.Status, c)
	}

	// No wheel: {}: this machine's platform and the probe interpreter's
	// Python (here /usr/bin/python3's, 3.11 on Debian 12).
	if _, err := os.Stat("/usr/bin/python3"); err == nil && strings.HasPrefix(pythonVersion(t, "/usr/bin/python3"), "3.11") {
		e.file(".pinbot.yml", []byte(tfConfig))
		code, _, c = symbolsCheck(t, e, "--python", "/usr/bin/python3")
		if code != 0 || !strings.Contains(c.Detail, "read tensorflow-2.20.0-cp39-abi3-manylinux_2_17_x86_64.whl") {
			t.Errorf("defaults: exit %d, check %+v", code, c)
		}
	}
}

// TestCheckSymbolsOtherPlatformOnly: a release whose binary wheels are all
// for other platforms is a warning that says so, whether pip would fall back
// to a pure wheel or find nothing; the scan never reads the pure wheel as if
// it were the release.
func TestCheckSymbolsOtherPlatformOnly(t *testing.T) {
	other := map[string][]byte{"tensorflow/_pywrap.pyd": []byte("MZ not ELF")}
	for name, wheels := range map[string]map[string]map[string][]byte{
		"binary only": {"cp312-cp312-win_amd64": other, "cp312-cp312-macosx_12_0_arm64": other},
		"with a pure wheel": {"cp312-cp312-win_amd64": other, "cp312-cp312-macosx_12_0_arm64": other,
			"py3-none-any": pure("tensorflow")},
	} {
		t.Run(name, func(t *testing.T) {
			e := newEnv(t)
			e.vars["PINBOT_CACHE_DIR"] = t.TempDir()
			e.pypi.Add("tensorflow", release("tensorflow", "2.19.0", wheels), release("tensorflow", "2.20.0", wheels))
			e.file("requirements.txt", []byte("tensorflow>=2.16,<=2.19.0\n"))
			e.file(".pinbot.yml", []byte(tfConfig+"      wheel: {platform: manylinux_x86_64, python: \"3.12\"}\n"))
			code, p, c := symbolsCheck(t, e)
			want := "candidate tensorflow 2.20.0 has 2 binary wheels, none for manylinux x86_64 (any glibc), CPython 3.12"
			if code != 0 || p.Status != "bump" || c.Verdict != "warning" || c.OK || !strings.Contains(c.Detail, want) {
				t.Errorf("exit %d, %s, check %+v\nwant a warning saying %q", code, p.Status, c, want)
			}
			if _, ok := wheels["py3-none-any"]; ok != strings.Contains(c.Detail, "pip would install the pure wheel tensorflow-2.20.0-py3-none-any.whl") {
				t.Errorf("the detail does not say what pip would install: %s", c.Detail)
			}
		})
	}
}

// TestCheckSymbolsEmptyScan: a package that yields no ELF shared object at
// the candidate (or the baseline) is a warning, never a pass.
func TestCheckSymbolsEmptyScan(t *testing.T) {
	e := newEnv(t)
	e.vars["PINBOT_CACHE_DIR"] = t.TempDir()
	wheels := map[string]map[string][]byte{"py3-none-any": pure("tensorflow")}
	e.pypi.Add("tensorflow", release("tensorflow", "2.19.0", wheels), release("tensorflow", "2.20.0", wheels))
	e.file("requirements.txt", []byte("tensorflow>=2.16,<=2.19.0\n"))
	e.file(".pinbot.yml", []byte(tfConfig+"      wheel: {platform: manylinux_x86_64, python: \"3.12\"}\n"))
	code, p, c := symbolsCheck(t, e)
	if code != 0 || p.Status != "bump" || c.Verdict != "warning" || c.OK ||
		!strings.Contains(c.Detail, "the candidate 2.20.0 yields no ELF shared object (tensorflow-2.20.0-py3-none-any.whl): nothing to scan") {
		t.Errorf("exit %d, %s, check %+v", code, p.Status, c)
	}
	// The markdown says warning, not a pass.
	_, md, _ := e.run("check", "--dir", e.dir, "--format", "markdown")
	if !strings.Contains(md, "⚠️ warning") || strings.Contains(md, "✅ ok") {
		t.Errorf("markdown:\n%s", md)
	}
}

// TestCheckSymbolsAgainstVersion: an against package is scanned at the
// version the project installs: the newest release its own pins admit (after
// this run's plan, for a watched package), else its newest release; the
// detail says which and why.
func TestCheckSymbolsAgainstVersion(t *testing.T) {
	tests := []struct {
		name, reqs, config, want string
	}{
		{"pinned, not watched", "protobuf>=4,<=5.29.3\n", "",
			"against protobuf 5.29.3 (protobuf-5.29.3-py3-none-any.whl): the newest release the project's pins admit (requirements.txt:2 >=4,<=5.29.3)"},
		{"not pinned", "", "", "against protobuf 6.33.0 (protobuf-6.33.0-py3-none-any.whl): the project does not pin protobuf: its newest release"},
		{"watched and held", "protobuf==5.29.3\n", "  protobuf: {}\n",
			"against protobuf 5.29.3 (protobuf-5.29.3-py3-none-any.whl): the newest release the project's pins admit (requirements.txt:2 ==5.29.3)"},
		{"watched, its cap moves", "protobuf<=5.29.3\n", "  protobuf: {}\n",
			"against protobuf 6.33.0 (protobuf-6.33.0-py3-none-any.whl): the newest release the project's pins admit once this run's caps move (requirements.txt:2 <=6.33.0)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			e.vars["PINBOT_CACHE_DIR"] = t.TempDir()
			wheels := map[string]map[string][]byte{"py3-none-any": pure("tensorflow")}
			e.pypi.Add("tensorflow", release("tensorflow", "2.19.0", wheels), release("tensorflow", "2.20.0", wheels))
			pb := func(v string) fakes.Release {
				return release("protobuf", v, map[string]map[string][]byte{"py3-none-any": pure("google")})
			}
			e.pypi.Add("protobuf", pb("4.25.0"), pb("5.29.3"), pb("6.33.0"))
			e.file("requirements.txt", []byte("tensorflow>=2.16,<=2.19.0\n"+tt.reqs))
			e.file(".pinbot.yml", []byte(tfConfig+"      against: [protobuf]\n      wheel: {platform: manylinux_x86_64, python: \"3.12\"}\n"+tt.config))
			_, _, c := symbolsCheck(t, e)
			if !strings.Contains(c.Detail, tt.want) {
				t.Errorf("detail %q\nwant %q", c.Detail, tt.want)
			}
		})
	}
}

// TestCheckSymbolsDebianHost: symbols.host takes absolute globs. Debian's
// libprotobuf is reached through two names (libprotobuf.so.32 links to
// libprotobuf.so.32.0.12) and is read once; a candidate that starts shipping
// Debian's protobuf extension clashes with it (MapIterator's destructor, 51
// bytes against 59): blocked, where the baseline had no such library.
func TestCheckSymbolsDebianHost(t *testing.T) {
	message := debianFile(t, "python3-protobuf", "_message.cpython")
	debianFile(t, "libprotobuf32", "libprotobuf.so.32")
	ext, err := os.ReadFile(message)
	if err != nil {
		t.Fatal(err)
	}
	hidden := tfLibrary(t, true)
	e := newEnv(t)
	e.vars["PINBOT_CACHE_DIR"] = t.TempDir()
	tags := "cp311-cp311-manylinux_2_17_x86_64"
	e.pypi.Add("tensorflow",
		release("tensorflow", "2.19.0", map[string]map[string][]byte{tags: {"tensorflow/lib.so": hidden}}),
		release("tensorflow", "2.20.0", map[string]map[string][]byte{tags: {"tensorflow/lib.so": hidden, "tensorflow/_message.so": ext}}))
	e.file("requirements.txt", []byte("tensorflow>=2.16,<=2.19.0\n"))
	e.file(".pinbot.yml", []byte("packages:\n  tensorflow:\n    symbols:\n      host: [\"/usr/lib/x86_64-linux-gnu/libprotobuf.so.32*\"]\n      wheel: {python: \"3.11\"}\n"))
	code, p, c := symbolsCheck(t, e)
	if code != exitCheck || p.Status != "blocked" || c.Verdict != "blocked" || !strings.Contains(c.Detail, "MapIterator") ||
		!strings.Contains(c.Detail, "host /usr/lib/x86_64-linux-gnu/libprotobuf.so.32, /usr/lib/x86_64-linux-gnu/libprotobuf.so.32.0.12") {
		t.Errorf("exit %d, %s, check %+v", code, p.Status, c)
	}
	// One library for both names: target, extension and libprotobuf.
	if !strings.HasPrefix(c.Candidate, "3 libraries") {
		t.Errorf("candidate scan %q, want 3 libraries (libprotobuf once)", c.Candidate)
	}
}

// TestScanSameFileTwice: a library named twice, or through a symbolic link,
// on pinbot scan's command line is one library and never clashes with
// itself.
func TestScanSameFileTwice(t *testing.T) {
	lib := debianFile(t, "libprotobuf32", "libprotobuf.so.32")
	dir := t.TempDir()
	link := filepath.Join(dir, "libprotobuf.so")
	if err := os.Symlink(lib, link); err != nil {
		t.Fatal(err)
	}
	e := newEnv(t)
	for _, args := range [][]string{{lib, lib}, {lib, link}, {link, "--host", lib}} {
		code, out, stderr := e.run(append([]string{"scan", "--format", "json"}, args...)...)
		var r struct {
			Stats struct{ Libraries, Clashes int }
		}
		if err := json.Unmarshal([]byte(out), &r); err != nil || code != 0 || r.Stats.Libraries != 1 || r.Stats.Clashes != 0 {
			t.Errorf("scan %v: exit %d, %+v, %v\n%s", args, code, r.Stats, err, stderr)
		}
	}
}

// TestCheckHostConfigErrors: a host entry that matches nothing, is not ELF,
// or leads out of the repository is a configuration error naming the
// .pinbot.yml line (exit 2); nothing is written.
func TestCheckHostConfigErrors(t *testing.T) {
	e := newEnv(t)
	e.file("requirements.txt", []byte("tensorflow>=2.16,<=2.19.0\n"))
	e.file("build/notes.so", []byte("not a library\n"))
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "libx.so"), []byte("\x7fELF"), 0o644)
	if err := os.Symlink(outside, filepath.Join(e.dir, "vendor")); err != nil {
		t.Fatal(err)
	}
	for host, want := range map[string][]string{
		`["/usr/lib/no-such-dir/libprotobuf.so.32*"]`: {`.pinbot.yml:4:14: packages.tensorflow.symbols.host[0]: "/usr/lib/no-such-dir/libprotobuf.so.32*" matches no file on this machine`},
		`["build/*.so", "lib/*.so"]`: {`.pinbot.yml:4:14: packages.tensorflow.symbols.host[0]: "build/*.so":`, "notes.so cannot be read as ELF",
			`.pinbot.yml:4:28: packages.tensorflow.symbols.host[1]: "lib/*.so" matches no file in the repository`},
		`["vendor/*.so"]`: {`.pinbot.yml:4:14: packages.tensorflow.symbols.host[0]: "vendor/*.so":`, "outside the repository"},
	} {
		e.file(".pinbot.yml", []byte("packages:\n  tensorflow:\n    symbols:\n      host: "+host+"\n"))
		code, out, stderr := e.run("check", "--dir", e.dir, "--write")
		for _, w := range want {
			if code != exitUsage || !strings.Contains(stderr, w) {
				t.Errorf("host %s: exit %d, stderr %q\nwant %q", host, code, stderr, w)
			}
		}
		if out != "" || e.read("requirements.txt") != "tensorflow>=2.16,<=2.19.0\n" {
			t.Errorf("host %s: something was done: %q", host, out)
		}
	}
}

// TestCheckSymbolsUnreadableAgainst: an against library that cannot be read
// as ELF makes the check a warning naming the file, not a pass with an error
// count inside.
func TestCheckSymbolsUnreadableAgainst(t *testing.T) {
	lib := tfLibrary(t, true)
	e := newEnv(t)
	e.vars["PINBOT_CACHE_DIR"] = t.TempDir()
	tags := "cp312-cp312-manylinux_2_17_x86_64"
	e.pypi.Add("tensorflow", release("tensorflow", "2.19.0", map[string]map[string][]byte{tags: tfFiles(lib)}),
		release("tensorflow", "2.20.0", map[string]map[string][]byte{tags: tfFiles(lib)}))
	e.pypi.Add("protobuf", release("protobuf", "5.29.3", map[string]map[string][]byte{
		"cp39-abi3-manylinux2014_x86_64": {"google/_upb/_message.abi3.so": lib[:200]}}))
	e.file("requirements.txt", []byte("tensorflow>=2.16,<=2.19.0\n"))
	e.file(".pinbot.yml", []byte(tfConfig+"      against: [protobuf]\n      wheel: {platform: manylinux_x86_64, python: \"3.12\"}\n"))
	code, p, c := symbolsCheck(t, e)
	if code != 0 || p.Status != "bump" || c.Verdict != "warning" || c.OK ||
		!strings.Contains(c.Detail, "against library ") || !strings.Contains(c.Detail, "protobuf-5.29.3-cp39-abi3-manylinux2014_x86_64.whl!google/_upb/_message.abi3.so cannot be read as ELF") {
		t.Errorf("exit %d, %s, check %+v", code, p.Status, c)
	}
}

// pythonVersion returns the "3.N" version of the interpreter at py.
func pythonVersion(t *testing.T, py string) string {
	out, err := exec.Command(py, "-c", `import sys; print("%d.%d" % sys.version_info[:2])`).Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}

// TestCheckProbesWheelChoice: static probes read the wheel pip would
// install (numba's cp312 manylinux wheel, not its pure one) and say so; a
// release whose wheels are all for another platform is read from its first
// wheel, with a warning entry saying so.
func TestCheckProbesWheelChoice(t *testing.T) {
	files := func(drop bool) map[string][]byte {
		return map[string][]byte{"numba/__init__.py": nil, "numba/core/__init__.py": nil, "numba/core/bytecode.py": numbaBytecode(drop)}
	}
	e := newEnv(t)
	e.vars["PINBOT_CACHE_DIR"] = t.TempDir()
	e.pypi.Add("numba",
		release("numba", "0.66.0", map[string]map[string][]byte{"cp312-cp312-manylinux_2_17_x86_64": files(false), "py3-none-any": files(true)}),
		release("numba", "0.67.0", map[string]map[string][]byte{"cp312-cp312-manylinux_2_17_x86_64": files(false), "py3-none-any": files(true)}))
	e.file("pyproject.toml", []byte("[project]\nname = \"x\"\ndependencies = [\"numba>=0.58,<=0.66.0\"]\n"))
	e.file(".pinbot.yml", []byte("packages:\n  numba:\n    probes:\n      - path: numba.core.bytecode.FunctionIdentity._unique_ids\n        expect: iterator\n"+
		"    symbols: {wheel: {platform: manylinux_x86_64, python: \"3.12\"}}\n"))
	code, out, stderr := e.run("check", "--dir", e.dir, "--format", "json", "--static")
	if code != 0 || !strings.Contains(out, "read numba-0.67.0-cp312-cp312-manylinux_2_17_x86_64.whl (baseline numba-0.66.0-cp312-cp312-manylinux_2_17_x86_64.whl)") ||
		!strings.Contains(out, `"status": "bump"`) {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}

	e.pypi.Add("numba",
		release("numba", "0.66.0", map[string]map[string][]byte{"cp312-cp312-win_amd64": files(false)}),
		release("numba", "0.67.0", map[string]map[string][]byte{"cp312-cp312-win_amd64": files(false)}))
	code, out, stderr = e.run("check", "--dir", e.dir, "--format", "json", "--static")
	var rep struct{ Packages []checksPackage }
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != 0 {
		t.Fatalf("exit %d: %v\n%s\n%s", code, err, out, stderr)
	}
	var warned bool
	for _, c := range rep.Packages[0].Checks {
		if c.Name == "wheel 0.67.0" && c.Verdict == "warning" && !c.OK &&
			strings.Contains(c.Detail, "0.67.0 has 1 binary wheel, none for manylinux x86_64 (any glibc), CPython 3.12, and no pure wheel; static probes read numba-0.67.0-cp312-cp312-win_amd64.whl") {
			warned = true
		}
	}
	if !warned {
		t.Errorf("no warning about the platform in %+v", rep.Packages[0].Checks)
	}
}
