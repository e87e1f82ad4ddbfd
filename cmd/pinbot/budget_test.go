package main

import (
	"fmt"
	"strings"
	"testing"
)

// TestCheckAliasBomb checks a repository whose .pinbot.yml is the issue's
// 131 KB alias bomb (2,000 packages whose probes alias one 2,000-item list):
// a configuration error at the alias that passes the budget, in a small part
// of 100 MB, and no source asked.
func TestCheckAliasBomb(t *testing.T) {
	var b strings.Builder
	b.WriteString("packages:\n  p0:\n    probes: &l\n")
	for i := range 2000 {
		fmt.Fprintf(&b, "      - {path: numba.core.some_module.attr%04d, expect: exists}\n", i)
	}
	for i := 1; i < 2000; i++ {
		fmt.Fprintf(&b, "  p%d: {probes: *l}\n", i)
	}
	if b.Len() < 131_000 {
		t.Fatalf("the bomb is %d bytes", b.Len())
	}
	e := newEnv(t)
	e.file(".pinbot.yml", []byte(b.String()))
	e.file("requirements.txt", []byte("numba<=0.61.0\n"))
	code, out, stderr := e.runBounded(100*mib, "check", "--dir", e.dir)
	want := ".pinbot.yml:2013:17: packages.p10.probes: aliases expand the configuration past 100000 nodes"
	if code != exitUsage || !strings.Contains(stderr, want) || out != "" {
		t.Errorf("exit %d, want 2 and %q\n%s\n%s", code, want, out, stderr)
	}
	if r := e.pypi.Requests(); len(r) != 0 {
		t.Errorf("a source was asked: %v", r)
	}
}
