package all_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/pinbot-dev/pinbot/internal/corpus"
	"github.com/pinbot-dev/pinbot/internal/pinstest"
	"github.com/pinbot-dev/pinbot/pins"
	"github.com/pinbot-dev/pinbot/pins/all"
)

// describePins renders every pin of a file, watched or not, one line each:
// "LINE KEY PACKAGE SCHEME/SOURCE CONSTRAINT | TEXT", then where the file
// names the source (when it does), the channels of its file's list it
// falls back to (when there are others), why pinbot leaves it alone, if it
// does.
func describePins(ps []pins.Pin) []byte {
	var b bytes.Buffer
	for _, p := range ps {
		fmt.Fprintf(&b, "%d %s %s %s/%s %q | %s", p.Line, p.Key, p.Package, p.Scheme, p.Source, p.Constraint, p.Text)
		if at := p.SourceAt; at.Line > 0 {
			fmt.Fprintf(&b, " | source at %d:%d %s", at.Line, at.Col, at.Key)
		}
		for _, ch := range p.Channels[min(1, len(p.Channels)):] {
			fmt.Fprintf(&b, " | else %s at %d:%d %s", ch.Name, ch.At.Line, ch.At.Col, ch.At.Key)
		}
		if p.Build {
			b.WriteString(" | build")
		}
		if p.Condition != "" {
			fmt.Fprintf(&b, " | if %s", p.Condition)
		}
		if p.Skip != "" {
			fmt.Fprintf(&b, " | skip: %s", p.Skip)
		}
		b.WriteString("\n")
	}
	return b.Bytes()
}

// TestCorpusPins asserts, for every corpus file, the exact set of pins
// pinbot finds in it, watched or not, against testdata/corpus/NAME.pins
// (refreshed with go test -update, then read by a person): a pin lost or
// gained in any real file fails here. The file has no unreadable entry.
func TestCorpusPins(t *testing.T) {
	total := 0
	for _, name := range corpus.Files(t) {
		t.Run(name, func(t *testing.T) {
			path, data := repoPath(name), corpus.Read(t, name)
			f := pins.Detect(all.Formats(), path, data)
			if f == nil {
				if _, ok := notRead[name]; !ok {
					t.Fatalf("%s: no format reads it, and notRead does not say why", path)
				}
				return
			}
			ps, err := pins.Extract(f, path, data)
			if err != nil {
				t.Fatal(err)
			}
			total += len(ps)
			pinstest.Golden(t, filepath.Join("testdata", "corpus", name+".pins"), describePins(ps))
		})
	}
	t.Logf("%d pins in %d corpus files", total, len(corpus.Files(t)))
}

// notRead lists, per corpus file, lines that hold something like a pin that
// pinbot deliberately does not read, and why (docs/pin-files.md's "Not read,
// on purpose" list gives the same cases): TestNotRead checks that no pin comes from them.
var notRead = map[string]map[int]string{
	"pymc-devs__pytensor__pyproject.toml": {
		204: "a comment that looks like a requirement list",
	},
	"pymc-devs__pytensor__.github__workflows__test.yml": {
		189: "a shell line in a workflow reading the cap with sed",
		202: "a pip install inside a shell line",
	},
	"conda-forge__numba-feedstock__recipe__meta.yaml": {
		2: "the package's own version ({% set version %}), not a pin",
	},
	"conda-forge__pymc-feedstock__recipe__recipe.yaml": {
		5: "the package's own version (context.version)",
	},
	"pydata__xarray__setup.cfg": {
		116: "an interpolated line (%(io)s): the requirements it names are read where they are written",
		122: "an interpolated line followed by more requirements: %(complete)s",
		97:  "a commented-out requirement",
	},
	"pydata__sparse__pixi.toml": {
		17:  "an environment list naming the numba feature",
		77:  "a task named after numba",
		260: "a feature's activation table",
	},
	"prefix-dev__pixi__examples__docker__pyproject.toml": {
		49: "a pixi task's command line (pip install ... dist/docker_project-*.whl)",
	},
	"llvm__lighthouse__pyproject.toml": {
		55: "a [tool.uv.sources] entry: an index, not a version",
	},
	"jax-ml__jax__build__requirements.in": {
		4: "an -r include: the included file's pins are read in that file",
	},
}

// TestNotRead checks that pinbot reads no pin from the lines notRead lists,
// each of which holds what it says.
func TestNotRead(t *testing.T) {
	for name, lines := range notRead {
		path, data := repoPath(name), corpus.Read(t, name)
		text := strings.Split(string(data), "\n")
		var ps []pins.Pin
		if f := pins.Detect(all.Formats(), path, data); f != nil {
			var err error
			if ps, err = pins.Extract(f, path, data); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
		}
		for line, why := range lines {
			if line < 1 || line > len(text) || strings.TrimSpace(text[line-1]) == "" {
				t.Errorf("%s:%d (%s): no such line", name, line, why)
			}
			for _, p := range ps {
				if p.Line == line {
					t.Errorf("%s:%d (%s): read as the pin %s %q", name, line, why, p.Key, p.Text)
				}
			}
		}
	}
}

// TestSharedCorpus checks that the repository's copy of the shared corpus
// (../shared/corpus/pinfiles beside the checkout, when it is there) holds
// every shared file byte for byte; the copy may add files of its own.
func TestSharedCorpus(t *testing.T) {
	_, file, _, _ := runtime.Caller(0)
	var shared string
	for dir := filepath.Dir(file); ; dir = filepath.Dir(dir) {
		if p := filepath.Join(dir, "shared", "corpus", "pinfiles"); isDir(p) {
			shared = p
			break
		}
		if dir == filepath.Dir(dir) {
			t.Skip("no shared corpus beside this checkout")
		}
	}
	entries, err := os.ReadDir(shared)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() == "INDEX.md" || e.IsDir() {
			continue // the copy's INDEX.md lists the added files too
		}
		want, err := os.ReadFile(filepath.Join(shared, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if got, err := os.ReadFile(filepath.Join(corpus.Dir(t), e.Name())); err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: the repository's copy differs from the shared corpus (%v)", e.Name(), err)
		}
	}
}

func isDir(p string) bool {
	info, err := os.Stat(p)
	return err == nil && info.IsDir()
}
