package probe

import (
	"archive/zip"
	"bytes"
	"strings"
	"testing"
)

// FuzzScanPython checks that the scanner never panics, keeps text and mask aligned,
// gives every binding a line range inside the file, and that resolving names
// through a wheel holding the input never panics either. Seeds are in
// testdata/fuzz/FuzzScanPython; run with
//
//	go test ./checks/probe -run '^$' -fuzz FuzzScanPython -fuzztime 60s -fuzzminimizetime 5s
func FuzzScanPython(f *testing.F) {
	f.Add(bytecodeGood)
	f.Add(resolveWheel["pkg/core.py"])
	f.Add("class A: x = 1; y = f'{a[\"b\"]!r:>{w}}'\n\tdef g(): yield\n")
	f.Fuzz(fuzzScan)
}

func fuzzScan(t *testing.T, src string) {
	{
		if len(src) > 1<<14 {
			return
		}
		lines, _ := splitLogical(src)
		for _, l := range lines {
			if len(l.text) != len(l.mask) || l.start > l.end || l.start < 1 {
				t.Fatalf("bad logical line %+v", l)
			}
		}
		pf, err := scanPython(src)
		if err != nil {
			t.Fatal(err) // a recovered panic
		}
		n := len(pf.lines)
		var walk func(sc *pyScope)
		walk = func(sc *pyScope) {
			for name, bs := range sc.names {
				for _, b := range bs {
					if !isIdentifier(name) || b.start < 1 || b.start > b.line || b.line > b.end || b.end > n {
						t.Fatalf("binding %q: lines %d/%d-%d of %d", name, b.line, b.start, b.end, n)
					}
					_ = pf.source(b.start, b.end)
					if b.body != nil {
						walk(b.body)
					}
				}
			}
		}
		walk(pf.top)

		var buf bytes.Buffer
		zw := zip.NewWriter(&buf)
		for _, name := range []string{"pkg/__init__.py", "pkg/mod.py"} {
			w, _ := zw.Create(name)
			w.Write([]byte(src))
		}
		zw.Close()
		zr, err := zip.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
		if err != nil {
			t.Fatal(err)
		}
		wh := newWheel("fuzz.whl", zr)
		names := []string{"A", "x", "f"}
		for name := range pf.top.names {
			names = append(names, name)
			if len(names) > 8 {
				break
			}
		}
		for _, name := range names {
			for _, path := range []string{"pkg." + name, "pkg.mod." + name + ".x", "pkg." + name + ".f"} {
				for _, expect := range []string{"exists", "callable", "iterator", "type:int", "class"} {
					s := Spec{Path: path, Expect: expect, SourceContains: "x"}
					if strings.HasPrefix(expect, "type") || expect == "iterator" {
						s.SourceContains = ""
					}
					if expect == "callable" {
						s.Signature = "(x)"
					}
					wh.probe(&s)
				}
			}
		}
	}
}
