package probe

import (
	"archive/zip"
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"
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
	f.Add("import typing as t\nfrom typing import TYPE_CHECKING as TC\nif TC:\n    class A:\n        if t.TYPE_CHECKING: x = 1\nelif y: f = 1\nelse:\n    A = 2\n")
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
			if sc.typeOnly != nil && sc.typeOnly != sc {
				walk(sc.typeOnly) // the bindings under if TYPE_CHECKING keep the same invariants
			}
			for name, bs := range sc.names {
				for _, b := range bs {
					if !isIdentifier(name) || b.start < 1 || b.start > b.line || b.line > b.end || b.end > n {
						t.Fatalf("binding %q: lines %d/%d-%d of %d", name, b.line, b.start, b.end, n)
					}
					_ = pf.source(b.start, b.end)
					if b.body != nil {
						walk(b.body)
					}
					if b.kind == bClass {
						for attr, lines := range b.body.selfAttrs {
							for _, l := range lines {
								if !isIdentifier(attr) || l <= b.start || l > b.end {
									t.Fatalf("self.%s at line %d, outside class %s (%d-%d)", attr, l, name, b.start, b.end)
								}
							}
						}
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
		w, _ := zw.Create("pkg/star.py")
		w.Write([]byte("from .mod import *\nfrom . import *\n"))
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
			for _, path := range []string{"pkg." + name, "pkg.mod." + name + ".x", "pkg." + name + ".f", "pkg.star." + name} {
				for _, expect := range []string{"exists", "callable", "iterator", "type:int", "class", "absent", "instance-attribute"} {
					if expect == "instance-attribute" && strings.Count(path, ".") < 2 {
						continue
					}
					s := Spec{Path: path, Expect: expect, SourceContains: "x"}
					if strings.HasPrefix(expect, "type") || expect == "iterator" || expect == "absent" || expect == "instance-attribute" {
						s.SourceContains = ""
					}
					if expect == "callable" || expect == "class" {
						s.Signature = "(x, /, y=1, *a, z: Optional[int], **k) -> int"
						s.SignatureAnnotations = expect == "class"
					}
					wh.probe(&s)
				}
			}
			// Uses resolve through the same reader: as the code imports,
			// calls, patches and reaches through instances.
			c := &UseCall{Positional: 1, Keywords: []string{"y"}, Bound: true}
			for _, u := range []Use{
				{Module: "pkg", Attrs: []string{name}, Call: c},
				{Module: "pkg.mod", Attrs: []string{name, "x"}, Instance: true, Call: c},
				{Module: "pkg.star", Attrs: []string{name, "f"}, Instance: true},
				{Module: "pkg.mod." + name, Import: true},
				{Target: "pkg.star." + name, Assign: true},
			} {
				if u.Validate() != nil {
					continue
				}
				a := wh.use(&u)
				side := a.finish(&u, "1.0")
				if side.Status != Pass && side.Status != Fail && side.Status != Unknown {
					t.Fatalf("%+v: status %q", u, side.Status)
				}
			}
		}
	}
}

// FuzzSignature checks that parsing a signature as a probe writes it, reading
// it as a def's parameter list and canonicalising its annotations never panic,
// and that a signature always matches itself. Seeds are in
// testdata/fuzz/FuzzSignature.
func FuzzSignature(f *testing.F) {
	f.Add("(pyfunc)")
	f.Add("(a, /, b: Optional[int] = None, *args, c: 'Dict[str, np.ndarray]', **kw) -> int | None")
	f.Add("(x: Callable[[int, str], Literal['a', \"b\"]] = lambda y: y, *, z=(1, 2))")
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 1<<12 {
			return
		}
		sig, err := parseSignature(s)
		if err == nil {
			if diff := compareSignature(sig, sig, true); diff != "" {
				t.Fatalf("%q does not match itself: %s", s, diff)
			}
			// A use's call binds to it without panicking, and the text a
			// detail shows of it reads back as the same parameters.
			for _, c := range []UseCall{{}, {Positional: 2, Keywords: []string{"a", "b"}}, {Positional: 1, Star: true, DoubleStar: true, Bound: true}} {
				_ = bindCall(sig.Params, &c, c.Bound)
			}
			if text := paramsText(sig.Params); len(text) < 300 {
				back, err := parseSignature(text)
				if err != nil || compareSignature(sig, back, false) != "" {
					t.Fatalf("%q written as %q reads back as %+v (%v)", s, text, back.Params, err)
				}
			}
		}
		inner := strings.TrimSuffix(strings.TrimPrefix(s, "("), ")")
		_, _ = parseParams(inner, inner)
		c := canonAnnotation(s)
		if c != canonAnnotation(s) {
			t.Fatalf("canonAnnotation(%q) is not deterministic", s)
		}
	})
}

// FuzzResolverOutput checks that what installers print and write (uv pip
// compile's requirements, pip's error output, a package's Requires-Dist) never
// panics the readers, and that every distribution read is safe to pass on as
// an install argument. Seeds are in testdata/fuzz/FuzzResolverOutput.
func FuzzResolverOutput(f *testing.F) {
	f.Add("numba==0.63.0b1\n    # via -r requirements.in\nnumpy==2.5.2 ; python_version >= '3.10'\n")
	f.Add("ERROR: Cannot install numba==1 because these package versions have conflicting dependencies.\n\nThe conflict is caused by:\n    numba 1 depends on numpy>=1.22\n\nTo fix this you could try to:\n1. loosen\n")
	f.Add("NumPy (>=1.22,<2.5) ; extra == 'x'")
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 1<<14 {
			return
		}
		p := filepath.Join(dir, "out.txt")
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		ds, err := readUVCompile(p)
		if err == nil {
			for _, d := range ds {
				if !validName(d.Name) || !validVersion(d.Version) || strings.HasPrefix(d.Name, "-") {
					t.Fatalf("unsafe distribution %+v from %q", d, s)
				}
			}
		}
		_ = resolverMessage(s)
		for _, line := range strings.Split(s, "\n") {
			if req := declared([]string{line}, "numpy"); req != "" {
				_ = hasCap(req)
			}
		}
	})
}

// FuzzProbeOutput checks that the probe process's JSON lines, which the
// release's code can write to (hostile input), never panic the reader, and
// that every probe and use gets a status, a kind it knows (or none) and a
// detail that is bounded and safe to show. Seeds are in
// testdata/fuzz/FuzzProbeOutput.
func FuzzProbeOutput(f *testing.F) {
	hdr := `{"python": "3.11.7", "executable": "/x", "version": "1.0", "requires": ["numpy>=1.22"], "dists": [["numpy", "2.0.0"]]}` + "\n"
	f.Add(hdr+`{"start": 0}`+"\n"+`{"i": 0, "status": "pass", "detail": "found class a.C"}`+"\n"+
		`{"start": 1}`+"\n"+`{"i": 1, "status": "pass", "detail": "ok", "signature": {"text": "(x, *, y=1)", "params": [{"name": "x", "kind": "POSITIONAL_OR_KEYWORD", "default": false}, {"name": "y", "kind": "KEYWORD_ONLY", "default": true}]}}`+"\n"+
		`{"ustart": 0}`+"\n"+`{"u": 0, "status": "pass", "kind": "module", "detail": "found module a", "callable": false}`+"\n"+
		`{"ustart": 1}`+"\n"+`{"u": 1, "status": "pass", "kind": "function", "detail": "found function a.f", "callable": true, "sig": ["1self", "1x", "3=y", "4kw"], "self": true}`+"\n"+
		`{"ustart": 2}`+"\n"+`{"u": 2, "status": "fail", "detail": "missing: a (module a) has no attribute 'b'", "deprecated": "old"}`+"\n"+`{"done": true}`+"\n", false, 0)
	f.Add(hdr+`{"ustart": 1}`+"\n"+`{"u": 1, "status": "pass", "kind": "class", "callable": true, "nosig": "no signature (ValueError: x)"}`+"\n", true, -9)
	specs := []Spec{{Path: "a"}, {Path: "a.f", Signature: "(x, *, y=1)"}, {Run: "pass", Expect: "pass"}}
	uses := []Use{{Module: "a"}, {Module: "a", Attrs: []string{"f"}, Call: &UseCall{Positional: 1, Keywords: []string{"y"}, Bound: true}}, {Target: "a.b", Assign: true}}
	f.Fuzz(func(t *testing.T, s string, timedOut bool, exit int) {
		if len(s) > 1<<16 {
			return
		}
		out := &Output{Stdout: []byte(s), Stderr: []byte(s), TimedOut: timedOut, ExitCode: exit}
		set, _, err := parseProbeOutput(out, specs, uses, "1.0", time.Second)
		if err != nil {
			return
		}
		safe := func(what, text string) {
			if len(text) > detailMax+3 || !utf8.ValidString(text) || strings.ContainsFunc(text, func(r rune) bool { return unicode.IsControl(r) && r != '\n' && r != '\t' }) {
				t.Fatalf("%s: unsafe detail %q", what, text)
			}
		}
		for i, p := range set.probes {
			if p.Status != Pass && p.Status != Fail && p.Status != Unknown {
				t.Fatalf("probe %d: status %q", i, p.Status)
			}
			safe("probe", p.Detail)
		}
		for i, u := range set.uses {
			switch {
			case u.Status != Pass && u.Status != Fail && u.Status != Unknown:
				t.Fatalf("use %d: status %q", i, u.Status)
			case u.Kind != "" && u.Kind != KindModule && u.Kind != KindClass && u.Kind != KindFunction && u.Kind != KindOther:
				t.Fatalf("use %d: kind %q", i, u.Kind)
			}
			safe("use", u.Detail)
			safe("use", u.Deprecated)
		}
	})
}
