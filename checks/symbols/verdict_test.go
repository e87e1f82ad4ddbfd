package symbols_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pinbot-dev/pinbot/checks/symbols"
)

// TestJudge: only new problems block, and a check that could not see what
// it needed is a warning, never ok.
func TestJudge(t *testing.T) {
	dir := buildFixtures(t)
	p := func(name string) string { return filepath.Join(dir, name) }
	opts := symbols.Options{Forbid: []string{"google::protobuf::*"}}
	hidden := scan(t, []string{p("tf219/libtensorflow_framework.so.2")}, opts)
	exported := scan(t, []string{p("tf220/libtensorflow_framework.so.2")}, opts)
	empty := scan(t, nil, opts)
	garbage := filepath.Join(t.TempDir(), "libgarbage.so")
	os.WriteFile(garbage, []byte("\x7fELF but not really"), 0o644)
	withBadHost := scan(t, []string{p("tf219/libtensorflow_framework.so.2")}, symbols.Options{Forbid: opts.Forbid, Host: []string{garbage}})
	// A clash with different bodies and no forbidden export; and both.
	clashing := scan(t, []string{p("bodies/liba.so")}, symbols.Options{Forbid: opts.Forbid, Against: []string{p("bodies/libb.so")}})
	both := scan(t, []string{p("tf220/libtensorflow_framework.so.2"), p("bodies/liba.so")}, symbols.Options{Forbid: opts.Forbid, Against: []string{p("bodies/libb.so")}})
	kinds := func(r *symbols.Result) map[string]int {
		out := map[string]int{}
		for _, p := range symbols.Problems(r) {
			out[p.Kind]++
		}
		return out
	}
	if k := kinds(clashing); len(k) != 1 || k["clash"] != 5 {
		t.Fatalf("fixtures: %v problems, want 5 clashes", k)
	}
	if k := kinds(both); len(k) != 2 || k["clash"] != 5 || k["forbidden"] != 1 {
		t.Fatalf("fixtures: %v problems, want 5 clashes and forbidden exports", k)
	}

	side := func(r *symbols.Result, file string) symbols.Side {
		return symbols.Side{Version: "v", File: file, Result: r}
	}
	base := side(hidden, "tf-2.19.0.whl")
	wrongWheel := symbols.Side{Version: "v", File: "pure.whl", Result: empty, Warning: "v has 2 binary wheels, none for manylinux_2_36_x86_64"}
	noWheel := symbols.Side{Version: "v", Warning: "v has no wheel"}
	tests := []struct {
		name      string
		baseline  *symbols.Side
		candidate symbols.Side
		env       symbols.Env
		verdict   string
		detail    []string
	}{
		{"clean", &base, side(hidden, "tf-2.20.0.whl"), symbols.Env{}, "ok", []string{"no new symbol problems", "read tf-2.20.0.whl (baseline tf-2.19.0.whl)"}},
		{"new forbidden exports", &base, side(exported, "tf-2.20.0.whl"), symbols.Env{}, "blocked", []string{"1 new:", "google::protobuf"}},
		{"both export them", &symbols.Side{Version: "v", File: "a.whl", Result: exported}, side(exported, "b.whl"), symbols.Env{}, "warning", []string{"1 existing (warning)"}},
		{"no baseline release", nil, side(exported, "b.whl"), symbols.Env{}, "blocked", []string{"1 new"}},
		{"empty candidate", &base, side(empty, "tf-2.20.0-py3-none-any.whl"), symbols.Env{}, "warning",
			[]string{"the candidate v yields no ELF shared object (tf-2.20.0-py3-none-any.whl): nothing to scan"}},
		{"empty baseline: a release that starts exporting blocks", &symbols.Side{Version: "v", File: "pure.whl", Result: empty}, side(exported, "b.whl"), symbols.Env{}, "blocked",
			[]string{"the baseline ships no shared object, so every problem is new: 1 new", "the baseline v yields no ELF shared object (pure.whl)"}},
		// A forbidden export blocks unless the baseline is shown to export
		// it too: a baseline that shows nothing does not excuse it.
		{"baseline read from the wrong wheel: a forbidden export still blocks", &wrongWheel, side(exported, "b.whl"), symbols.Env{}, "blocked",
			[]string{"a forbidden export blocks unless the baseline is shown to export it too, and the baseline v yields no shared object from a file that may not be what installs: 1 new: libtensorflow_framework.so.2 exports",
				"the baseline v yields no ELF shared object (pure.whl)"}},
		{"baseline not scanned: a forbidden export still blocks", &noWheel, side(exported, "b.whl"), symbols.Env{}, "blocked",
			[]string{"a forbidden export blocks unless the baseline is shown to export it too, and the baseline v was not scanned: 1 new: libtensorflow_framework.so.2 exports",
				"warning: baseline v has no wheel"}},
		// A clash may be one the project already lived with.
		{"baseline read from the wrong wheel: new clashes cannot be told from old", &wrongWheel, side(clashing, "b.whl"), symbols.Env{}, "warning",
			[]string{"new cannot be told from old: 5 new: clash_fn has different bodies", "the baseline v yields no ELF shared object (pure.whl)"}},
		{"baseline not scanned: new clashes cannot be told from old", &noWheel, side(clashing, "b.whl"), symbols.Env{}, "warning",
			[]string{"new cannot be told from old: 5 new: clash_fn has different bodies", "warning: baseline v has no wheel"}},
		{"baseline not scanned: forbidden exports block, a clash is told apart", &noWheel, side(both, "b.whl"), symbols.Env{}, "blocked",
			[]string{"and the baseline v was not scanned: 1 new: libtensorflow_framework.so.2 exports",
				"; new cannot be told from old: 5 new: clash_fn has different bodies"}},
		{"no candidate wheel", &base, symbols.Side{Version: "v", Warning: "tf 2.20.0 has 2 binary wheels, none for manylinux_2_36_x86_64, CPython 3.12"}, symbols.Env{}, "warning",
			[]string{"warning: candidate tf 2.20.0 has 2 binary wheels, none for manylinux_2_36_x86_64, CPython 3.12", "read no wheel"}},
		{"an environment warning", &base, side(hidden, "b.whl"), symbols.Env{Warnings: []string{"against protobuf: no wheel"}, Notes: []string{"against protobuf 5.29.3"}},
			"warning", []string{"warning: against protobuf: no wheel", "against protobuf 5.29.3"}},
		{"an unreadable host library", &base, side(withBadHost, "b.whl"), symbols.Env{}, "warning",
			[]string{"host library " + garbage + " cannot be read as ELF, so nothing was compared with it"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := symbols.Judge("tensorflow-protobuf", tt.baseline, tt.candidate, tt.env)
			if c.Verdict != tt.verdict || c.OK != (tt.verdict == "ok") || c.Kind != "symbols" {
				t.Errorf("verdict %q ok %v, want %q\n%s", c.Verdict, c.OK, tt.verdict, c.Detail)
			}
			for _, d := range tt.detail {
				if !strings.Contains(c.Detail, d) {
					t.Errorf("detail lacks %q:\n%s", d, c.Detail)
				}
			}
		})
	}
}

// TestUnreadableEnvIsNoProblem: an against or host library that cannot be
// read is not a problem of the release (Problems), but it is unreadable
// (the scan command's exit 1).
func TestUnreadableEnvIsNoProblem(t *testing.T) {
	dir := buildFixtures(t)
	garbage := filepath.Join(t.TempDir(), "libgarbage.so")
	os.WriteFile(garbage, []byte("text"), 0o644)
	r := scan(t, []string{filepath.Join(dir, "vers/libv0.so")}, symbols.Options{Against: []string{garbage, "/no/such/lib.so"}})
	if ps := symbols.Problems(r); len(ps) != 0 {
		t.Errorf("problems %+v", ps)
	}
	if u := r.Unreadable(); len(u) != 2 || u[0].Role != symbols.RoleAgainst || u[1].Role != symbols.RoleAgainst {
		t.Errorf("unreadable %+v", u)
	}
}

// TestSameFileOnce: a file reached through several names (a symbolic link,
// the same path twice, a directory holding it) is one library.
func TestSameFileOnce(t *testing.T) {
	dir := t.TempDir()
	lib := filepath.Join(dir, "libv0.so.1.2")
	if err := os.WriteFile(lib, readFixture(t, "vers/libv0.so"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), "libv0.so")
	if err := os.Symlink(lib, link); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	r := scan(t, []string{lib, link, lib}, symbols.Options{Host: []string{link, dir}})
	if len(r.Libraries) != 1 || len(r.Clashes) != 0 || r.Libraries[0].Role != symbols.RoleTarget {
		t.Errorf("libraries %+v, clashes %d", r.Libraries, len(r.Clashes))
	}
}

func TestResolveHost(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "build/lib"), 0o755)
	for _, n := range []string{"build/lib/liba.so", "build/lib/libb.so.1"} {
		os.WriteFile(filepath.Join(root, n), readFixture(t, "vers/libv0.so"), 0o644)
	}
	os.WriteFile(filepath.Join(root, "build/lib/README"), []byte("text"), 0o644)
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "libc.so"), readFixture(t, "vers/libv0.so"), 0o644)
	os.Symlink(filepath.Join(outside, "libc.so"), filepath.Join(root, "build/lib/libc.so"))
	os.Symlink(filepath.Join(root, "build/lib/liba.so"), filepath.Join(root, "build/liba-link.so"))

	got, err := symbols.ResolveHost(root, "build/lib/lib[ab].so*")
	if err != nil || len(got) != 2 || !strings.HasSuffix(got[0], "build/lib/liba.so") {
		t.Errorf("relative glob: %q, %v", got, err)
	}
	if got, err := symbols.ResolveHost(root, "build/liba-link.so"); err != nil || len(got) != 1 {
		t.Errorf("a link inside the repository: %q, %v", got, err)
	}
	abs := filepath.Join(outside, "lib*.so")
	if got, err := symbols.ResolveHost(root, abs); err != nil || len(got) != 1 {
		t.Errorf("absolute glob: %q, %v", got, err)
	}
	for entry, want := range map[string]string{
		"build/lib/libc.so": "outside the repository",
		"../*/libc.so":      "outside the repository",
		"lib/*.so":          "matches no file in the repository",
		"/no/such/*.so":     "matches no file on this machine",
		"build/[":           "syntax error",
		" ":                 "empty entry",
	} {
		if _, err := symbols.ResolveHost(root, entry); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ResolveHost(%q) = %v, want %q", entry, err, want)
		}
	}
	if err := symbols.CheckELF(filepath.Join(root, "build/lib/liba.so")); err != nil {
		t.Error(err)
	}
	if err := symbols.CheckELF(filepath.Join(root, "build/lib")); err != nil {
		t.Errorf("a directory: %v", err)
	}
	lib := readFixture(t, "vers/libv0.so")
	os.WriteFile(filepath.Join(root, "trunc.so"), lib[:len(lib)/2], 0o644)
	for name, want := range map[string]string{"build/lib/README": "cannot be read as ELF", "trunc.so": "cannot be read as ELF"} {
		if err := symbols.CheckELF(filepath.Join(root, name)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("CheckELF(%s) = %v, want %q", name, err, want)
		}
	}
}

// TestJudgeUncomparedClash: a clash whose bodies cannot be compared (here a
// TLS variable, which has no body to read) is a warning naming it, never
// ok: a different initial value there would go unseen.
func TestJudgeUncomparedClash(t *testing.T) {
	if _, err := exec.LookPath("g++"); err != nil {
		t.Skip("g++ not found")
	}
	dir := t.TempDir()
	for name, src := range map[string]string{
		"libold.so":   "int pinbot_other = 1;\n",
		"libnew.so":   "__thread int pinbot_tls = 1;\nextern \"C\" int get() { return pinbot_tls; }\n",
		"libtheir.so": "__thread int pinbot_tls = 2;\nextern \"C\" int theirs() { return pinbot_tls; }\n",
	} {
		if err := compile(dir, fixture{name: name, source: src}); err != nil {
			t.Fatal(err)
		}
	}
	p := func(name string) string { return filepath.Join(dir, name) }
	opts := symbols.Options{Against: []string{p("libtheir.so")}}
	old := scan(t, []string{p("libold.so")}, opts)
	cand := scan(t, []string{p("libnew.so")}, opts)
	if c := clash(cand, "pinbot_tls", ""); c == nil || c.Body != symbols.BodyUnknown || c.Reason != "tls" {
		t.Fatalf("the TLS clash is %+v, want an unknown body for tls", c)
	}
	c := symbols.Judge("tls", &symbols.Side{Version: "1", File: "old.whl", Result: old}, symbols.Side{Version: "2", File: "new.whl", Result: cand}, symbols.Env{})
	if c.Verdict != "warning" || c.OK {
		t.Errorf("verdict %q ok %v, want a warning:\n%s", c.Verdict, c.OK, c.Detail)
	}
	if want := "1 clash whose bodies could not be compared (tls: 1), e.g. pinbot_tls"; !strings.Contains(c.Detail, want) {
		t.Errorf("detail lacks %q:\n%s", want, c.Detail)
	}
	// Without the clash the same pair is ok: the warning is the clash's.
	if c := symbols.Judge("tls", &symbols.Side{Version: "1", File: "old.whl", Result: old}, symbols.Side{Version: "2", File: "new.whl", Result: old}, symbols.Env{}); c.Verdict != "ok" {
		t.Errorf("no clash: verdict %q\n%s", c.Verdict, c.Detail)
	}
}
