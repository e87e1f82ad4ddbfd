package all_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pinbot-dev/pinbot/internal/corpus"
	"github.com/pinbot-dev/pinbot/pins"
	"github.com/pinbot-dev/pinbot/pins/all"
)

// watched are the packages the corpus INDEX.md lists pins of in these files
// (pytensor is watched for pymc; pytensor's own pyproject names itself in extras).
var watched = map[string]bool{
	"numba": true, "llvmlite": true, "jax": true, "jaxlib": true, "protobuf": true,
	"tensorflow": true, "tensorflow-aarch64": true, "tensorflow-macos": true, "tensorflow-cpu": true,
	"tensorflow-io-gcs-filesystem": true, "mlir-python-bindings": true, "torch-mlir": true,
}

// repoPath turns a corpus name (owner__repo__path__to__file) into the path
// the file has in its repository.
func repoPath(name string) string {
	parts := strings.Split(name, "__")
	return strings.Join(parts[2:], "/")
}

// TestCorpus reads every corpus file that the Python and Go formats read and
// lists the watched pins found, as file line and text, against INDEX.md.
func TestCorpus(t *testing.T) {
	want := map[string]struct {
		format string
		pins   []string // "line: text"
	}{
		"pymc-devs__pytensor__pyproject.toml": {"pyproject", []string{
			"53: numba>=0.58,<=0.66.0", "80: jax", "80: jaxlib", "81: numba>=0.58,<=0.66.0", "81: llvmlite"}},
		"pymc-devs__pytensor@v3__pyproject.toml": {"pyproject", []string{
			"53: numba>0.57,<1", "83: jax", "83: jaxlib", "84: numba>=0.57", "84: llvmlite"}},
		"RToTheP__mlwrap__pyproject.toml": {"pyproject", []string{
			`14: numba = { version = "^0.56.0", optional = true }`,
			`15: tensorflow-aarch64 = { version = "2.8.2", markers = "platform_machine == 'aarch64'", optional = true }`,
			`16: tensorflow = { version = "2.8.2", markers = "platform_machine == 'x86_64'", optional = true }`,
			`19: tensorflow-io-gcs-filesystem = { version = "0.26.0", optional = true }`}},
		"llvm__lighthouse__pyproject.toml": {"pyproject", []string{
			"6: mlir-python-bindings==20251209+cdb525d2e", "20: torch-mlir==20251122.639"}},
		"librosa__librosa__setup.cfg":                  {"setupcfg", []string{"67: numba >= 0.51.0", "94: numba >= 0.51"}},
		"google-ai-edge__mediapipe__requirements.txt":  {"requirements", []string{"4: jax", "5: jaxlib", "11: protobuf>=5.29.3,<6"}},
		"google-deepmind__alphafold__requirements.txt": {"requirements", []string{"8: jax==0.4.13", "13: tensorflow-cpu==2.16.1"}},
		"ray-project__ray__python__requirements__ml__dl-gpu-requirements.txt": {"requirements", []string{
			"3: tensorflow==2.15.1; python_version < '3.12' and (sys_platform != 'darwin' or platform_machine != 'arm64')",
			"4: tensorflow-macos==2.15.1; python_version < '3.12' and sys_platform == 'darwin' and platform_machine == 'arm64'",
			"22: jaxlib==0.4.22+cuda12.cudnn89; python_version < '3.12' and sys_platform != 'darwin'"}},
	}
	seen := map[string]bool{}
	for _, name := range corpus.Files(t) {
		w, mine := want[name]
		if !mine {
			continue // a conda file: its formats test it
		}
		seen[name] = true
		t.Run(name, func(t *testing.T) {
			path := repoPath(name)
			f := pins.Lookup(all.Formats(), path)
			if f == nil || f.Name() != w.format {
				t.Fatalf("%s: format %v, want %s", path, f, w.format)
			}
			data := corpus.Read(t, name)
			ps, err := pins.Extract(f, path, data)
			if err != nil {
				t.Fatal(err)
			}
			lines := bytes.Split(data, []byte("\n"))
			var got []string
			for _, p := range ps {
				if !watched[p.Package] {
					continue
				}
				got = append(got, fmt.Sprintf("%d: %s", p.Line, p.Text))
				if !bytes.Contains(lines[p.Line-1], []byte(p.Text)) {
					t.Errorf("line %d %q does not hold the pin text %q", p.Line, lines[p.Line-1], p.Text)
				}
			}
			if diff := cmp.Diff(w.pins, got); diff != "" {
				t.Errorf("watched pins (-want +got):\n%s", diff)
			}
			if len(got) == 0 {
				t.Logf("%s: nothing to manage", name)
			}
		})
	}
	for name := range want {
		if !seen[name] {
			t.Errorf("corpus file %s is missing", name)
		}
	}
}

// pythonAndGo are the formats these corpus tests cover.
var pythonAndGo = map[string]bool{"pyproject": true, "requirements": true, "setupcfg": true, "gomod": true}

// TestCorpusRewrite rewrites every editable pin of every corpus file the
// Python and Go formats read: only the bytes inside the pin's span change, the file reads
// back with the new constraint, and a second rewrite is a no-op.
func TestCorpusRewrite(t *testing.T) {
	for _, name := range corpus.Files(t) {
		path := repoPath(name)
		f := pins.Lookup(all.Formats(), path)
		if f == nil || !pythonAndGo[f.Name()] {
			continue // the conda formats' own tests cover their files
		}
		data := corpus.Read(t, name)
		ps, err := pins.Extract(f, path, data)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if out, err := pins.Apply(f, path, data, nil); err != nil || !bytes.Equal(out, data) {
			t.Errorf("%s: Apply with no edits changed the file", name)
		}
		for _, p := range ps {
			if p.Skip != "" || p.Scheme == "semver" {
				continue
			}
			const newC = ">=1.0,<=2.0"
			out, err := pins.Apply(f, path, data, []pins.Edit{{Pin: p, New: newC}})
			if err != nil {
				t.Errorf("%s %s: %v", name, p.Key, err)
				continue
			}
			ins := newC
			if p.Constraint == "" {
				ins = p.Insert + newC
			}
			if want := string(data[:p.Span.Start]) + ins + string(data[p.Span.End:]); string(out) != want {
				t.Errorf("%s %s: bytes outside the span changed", name, p.Key)
			}
			again, err := pins.Extract(f, path, out)
			if err != nil {
				t.Fatal(err)
			}
			var q pins.Pin
			for _, q = range again {
				if q.Key == p.Key {
					break
				}
			}
			if q.Constraint != newC {
				t.Errorf("%s %s: reparsed constraint %q", name, p.Key, q.Constraint)
			}
			if out2, err := pins.Apply(f, path, out, []pins.Edit{{Pin: q, New: newC}}); err != nil || !bytes.Equal(out2, out) {
				t.Errorf("%s %s: second rewrite changed the file (%v)", name, p.Key, err)
			}
		}
	}
}
