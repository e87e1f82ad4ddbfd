package config_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pinbot-dev/pinbot/config"
	"github.com/pinbot-dev/pinbot/internal/diag"
)

func TestGroups(t *testing.T) {
	c, err := config.Parse(".pinbot.yml", []byte("packages:\n  numba: {solve: false}\n  LLVMLite: {}\n  numpy: {solve: true}\ngroups:\n  numba-stack: [Numba, llvmlite]\nsolve: true\n"))
	if err != nil {
		t.Fatal(err)
	}
	name, members := c.GroupOf("llvmlite")
	if name != "numba-stack" || !cmp.Equal(members, []string{"numba", "llvmlite"}) {
		t.Errorf("GroupOf(llvmlite) = %q %v", name, members)
	}
	if name, _ := c.GroupOf("numpy"); name != "" {
		t.Errorf("numpy in group %q", name)
	}
	if c.SolveFor("numba") || !c.SolveFor("llvmlite") || !c.SolveFor("numpy") {
		t.Errorf("solve: numba %v, llvmlite %v, numpy %v", c.SolveFor("numba"), c.SolveFor("llvmlite"), c.SolveFor("numpy"))
	}
	if d := config.Default(); d.SolveFor("numba") {
		t.Error("solve is on by default")
	}
}

// TestGroupErrors: a bad group is an error naming the file, line and column
// of the entry at fault.
func TestGroupErrors(t *testing.T) {
	const pkgs = "packages:\n  numba: {}\n  llvmlite: {}\n  numpy: {}\n"
	tests := []struct {
		doc       string
		line, col int
		key, msg  string
	}{
		{pkgs + "groups:\n  numba-stack: [numba, llvmlit]\n", 6, 24, "groups.numba-stack[1]", `"llvmlit" is not a watched package (watched: llvmlite, numba, numpy)`},
		{pkgs + "groups:\n  a: [numba, llvmlite]\n  b: [numpy, Numba]\n", 7, 14, "groups.b[1]", "Numba is already in groups.a[0] (line 6): a package moves with one group"},
		{pkgs + "groups:\n  a: [numba, numba]\n", 6, 14, "groups.a[1]", "numba is already in groups.a[0]"},
		{pkgs + "groups:\n  a: [numba]\n", 6, 6, "groups.a", "two or more packages"},
		{pkgs + "groups:\n  a b: [numba, llvmlite]\n", 6, 8, "groups.a b", "not a group name"},
		{pkgs + "groups:\n  numpy: [numba, llvmlite]\n", 6, 10, "groups.numpy", "names the watched package numpy, which is not in the group"},
		{"groups:\n  numba-stack: [numba, llvmlite]\n", 2, 24, "groups.numba-stack[1]", `"llvmlite" is not a watched package (watched: numba, protobuf, tensorflow)`},
		{pkgs + "groups: [numba, llvmlite]\n", 5, 9, "groups", "expected a mapping"},
		{pkgs + "solve: maybe\n", 5, 8, "solve", "expected true or false"},
		{pkgs + "groups:\n  a: {numba: x}\n", 6, 6, "groups.a", "expected a list"},
	}
	for _, tt := range tests {
		_, err := config.Parse(".pinbot.yml", []byte(tt.doc))
		e, ok := diag.As(err)
		if !ok {
			t.Errorf("Parse(%q) = %v, want a diag.Error", tt.doc, err)
			continue
		}
		if e.File != ".pinbot.yml" || e.Line != tt.line || e.Col != tt.col || e.Key != tt.key || !strings.Contains(e.Err.Error(), tt.msg) {
			t.Errorf("Parse(%q) = %v, want .pinbot.yml:%d:%d: %s: %s", tt.doc, err, tt.line, tt.col, tt.key, tt.msg)
		}
	}
	// Every bad entry is named, not only the first.
	_, err := config.Parse(".pinbot.yml", []byte(pkgs+"groups:\n  a: [numba, nope]\n  b: [llvmlite, numba]\n"))
	if err == nil || !strings.Contains(err.Error(), ".pinbot.yml:6:14: groups.a[1]") || !strings.Contains(err.Error(), ".pinbot.yml:7:17: groups.b[1]") {
		t.Errorf("both errors: %v", err)
	}
}
