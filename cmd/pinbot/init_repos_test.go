package main

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pinbot-dev/pinbot/config"
	"github.com/pinbot-dev/pinbot/internal/corpus"
	"github.com/pinbot-dev/pinbot/internal/fakes"
)

// initShapes are trees shaped like the repositories issue 30 tried
// `pinbot init` then `pinbot check` on, from the corpus (INDEX.md says where
// each file comes from): what init should watch, which of those it leaves
// without add-cap, and the conda channels it writes.
var initShapes = []struct {
	name     string
	files    map[string]string // path in the tree -> corpus file
	watched  []string
	noAddCap []string // add-cap: false; the others' is true
	channels []string // nil: none written (conda-forge is the default)
}{
	{name: "pytensor",
		files: map[string]string{"pyproject.toml": "pymc-devs__pytensor__pyproject.toml", "environment.yml": "pymc-devs__pytensor__environment.yml"},
		// numba is capped in pyproject; llvmlite, jax and jaxlib nowhere.
		watched: []string{"numba", "llvmlite", "jax", "jaxlib"}, noAddCap: []string{"llvmlite", "jax", "jaxlib"}},
	{name: "librosa", files: map[string]string{"setup.cfg": "librosa__librosa__setup.cfg"},
		watched: []string{"numba"}, noAddCap: []string{"numba"}},
	{name: "stumpy",
		files:   map[string]string{"environment.yml": "stumpy-dev__stumpy__environment.yml", "pyproject.toml": "stumpy-dev__stumpy__pyproject.toml"},
		watched: []string{"numba"}, noAddCap: []string{"numba"}, channels: []string{"conda-forge", "numba"}},
	{name: "umap", files: map[string]string{"pyproject.toml": "lmcinnes__umap__pyproject.toml"},
		watched: []string{"numba", "tensorflow"}, noAddCap: []string{"numba", "tensorflow"}},
	{name: "onnx", files: map[string]string{"requirements.txt": "onnx__onnx__requirements.txt"},
		watched: []string{"protobuf"}, noAddCap: []string{"protobuf"}},
}

// initEnv is formatsEnv with the releases the shapes' packages need: jax
// and jaxlib on PyPI, numba on the numba channel as on conda-forge.
func initEnv(t *testing.T) *env {
	e, c := sourcesEnv(t)
	c.Add("numba", "numba", condaNumba("0.67.0")...)
	e.pypi.Add("jax", fakes.Release{Version: "0.8.0"}, fakes.Release{Version: "0.8.1"})
	e.pypi.Add("jaxlib", fakes.Release{Version: "0.8.0"}, fakes.Release{Version: "0.8.1"})
	return e
}

// checkReport is what the shapes' tests read of check's JSON report.
type checkReport struct {
	Packages []struct {
		Name, Status, Error string
		Pins                []struct {
			File                  string
			Line                  int
			Before, After, Reason string
			Major                 *struct{ From, To, Comment string }
		}
	}
	Errors []string
}

// TestInitRepositories runs `pinbot init` on each shape, then `pinbot
// check` on what it wrote. Init watches the fragile packages the tree pins
// and no other (not numba, tensorflow and protobuf everywhere), writes
// add-cap: false for a package none of whose pins has a cap, and the conda
// channels the pin files name; the file matches testdata/init-NAME.golden,
// loads, and check then runs with no error: a package left without add-cap
// keeps its open pins open, and stumpy's pins are looked up on the numba
// channel its environment names.
func TestInitRepositories(t *testing.T) {
	for _, sh := range initShapes {
		t.Run(sh.name, func(t *testing.T) {
			e := initEnv(t)
			orig := map[string]string{}
			for path, name := range sh.files {
				data := corpus.Read(t, name)
				e.file(path, data)
				orig[path] = string(data)
			}
			code, out, stderr := e.run("init", "--dir", e.dir)
			if code != 0 {
				t.Fatalf("init: exit %d\n%s\n%s", code, out, stderr)
			}
			written := e.read(".pinbot.yml")
			golden(t, "init-"+sh.name+".golden", written)
			cfg, err := config.Parse(".pinbot.yml", []byte(written))
			if err != nil {
				t.Fatalf("the written configuration does not load: %v\n%s", err, written)
			}
			if got := cfg.Watched(); !slices.Equal(got, slices.Sorted(slices.Values(sh.watched))) {
				t.Errorf("watched %v, want %v", got, sh.watched)
			}
			for _, name := range cfg.Watched() {
				if want := !slices.Contains(sh.noAddCap, name); cfg.Packages[name].Policy().AddCap != want {
					t.Errorf("%s: add-cap %v, want %v", name, !want, want)
				}
			}
			if diff := cmp.Diff(sh.channels, cfg.Sources.Conda.Channels); diff != "" {
				t.Errorf("channels (-want +got):\n%s", diff)
			}

			code, out, stderr = e.run("check", "--dir", e.dir, "--format", "json")
			if code != 0 {
				t.Fatalf("check: exit %d\n%s\n%s", code, out, stderr)
			}
			var rep checkReport
			if err := json.Unmarshal([]byte(out), &rep); err != nil {
				t.Fatal(err)
			}
			if len(rep.Errors) > 0 || len(rep.Packages) != len(sh.watched) {
				t.Fatalf("errors %v, %d packages\n%s", rep.Errors, len(rep.Packages), out)
			}
			for _, p := range rep.Packages {
				if p.Status == "error" {
					t.Errorf("%s: %s", p.Name, p.Error)
				}
				if !slices.Contains(sh.noAddCap, p.Name) {
					continue
				}
				for _, pin := range p.Pins {
					if pin.Before != pin.After || !strings.Contains(pin.Reason, "add-cap is off") {
						t.Errorf("%s %s:%d: %q → %q (%s), want it left open", p.Name, pin.File, pin.Line, pin.Before, pin.After, pin.Reason)
					}
				}
			}
			for path, data := range orig {
				if e.read(path) != data {
					t.Errorf("check without --write changed %s", path)
				}
			}
		})
	}
}

// TestInitPytensor: on pytensor's files, the configuration init writes
// moves numba's caps as the maintainers did, byte for byte; numba being
// capped there, its environment file's open pin gets a cap too, which init
// names beside add-cap.
func TestInitPytensor(t *testing.T) {
	e := initEnv(t)
	pyproject := string(corpus.Read(t, "pymc-devs__pytensor__pyproject.toml"))
	env := string(corpus.Read(t, "pymc-devs__pytensor__environment.yml"))
	e.file("pyproject.toml", []byte(pyproject))
	e.file("environment.yml", []byte(env))
	if code, out, stderr := e.run("init", "--dir", e.dir); code != 0 {
		t.Fatalf("init: exit %d\n%s\n%s", code, out, stderr)
	}
	if w := e.read(".pinbot.yml"); !strings.Contains(w, "  numba:\n    cap: inclusive       # inclusive (<=NEWEST), exclusive (<NEXT BOUNDARY) or preserve (keep the operator)\n"+
		"    add-cap: true        # give a pin without an upper bound one (environment.yml:24 has none)\n") {
		t.Errorf("numba's add-cap does not name the open pin:\n%s", w)
	}
	if code, out, stderr := e.run("check", "--dir", e.dir, "--write"); code != 0 {
		t.Fatalf("check --write: exit %d\n%s\n%s", code, out, stderr)
	}
	want := strings.Replace(pyproject, `    "numba>=0.58,<=0.66.0",`, `    "numba>=0.58,<=0.67.0",`, 1)
	want = strings.Replace(want, `numba = ["numba>=0.58,<=0.66.0", "llvmlite"]`, `numba = ["numba>=0.58,<=0.67.0", "llvmlite"]`, 1)
	if got := e.read("pyproject.toml"); got != want {
		t.Errorf("pyproject.toml (-want +got):\n%s", cmp.Diff(want, got))
	}
	if got, want := e.read("environment.yml"), strings.Replace(env, "  - numba>=0.57\n", "  - numba>=0.57,<=0.67.0\n", 1); got != want {
		t.Errorf("environment.yml (-want +got):\n%s", cmp.Diff(want, got))
	}
}

// TestInitChannels: init writes every channel the pin files name (an
// environment file's list, a spec's own channel, a pixi workspace's), once
// each, conda-forge first, in discovery's order, leaving out defaults and
// nodefaults; a name pinbot cannot ask on the channel host is said in a
// comment and not written; a name YAML would read as another value is
// quoted. Check then asks each.
func TestInitChannels(t *testing.T) {
	e, c := sourcesEnv(t)
	for _, ch := range []string{"pytorch", "nvidia", "numba/label/dev", "true", "numba"} {
		c.Add(ch, "numba", condaNumba("0.67.0")...)
	}
	e.file("environment.yml", []byte("channels:\n  - pytorch\n  - defaults\n  - https://conda.anaconda.org/nvidia/\n  - conda-forge\n  - nodefaults\n"+
		"dependencies:\n  - numba>=0.57,<=0.66.0\n  - numba/label/dev::llvmlite\n"))
	e.file("ci/environment-gpu.yml", []byte("channels: [\"true\", \"https://example.com/a\\nchannels: [x]\"]\ndependencies:\n  - numba>=0.57\n"))
	e.file("pixi.toml", []byte("[workspace]\nchannels = [\"conda-forge\", \"numba\"]\nplatforms = [\"linux-64\"]\n[dependencies]\nnumba = \">=0.57\"\n"))
	if code, out, stderr := e.run("init", "--dir", e.dir, "--package", "numba"); code != 0 {
		t.Fatalf("init: exit %d\n%s\n%s", code, out, stderr)
	}
	written := e.read(".pinbot.yml")
	cfg, err := config.Parse(".pinbot.yml", []byte(written))
	if err != nil {
		t.Fatalf("%v\n%s", err, written)
	}
	want := []string{"conda-forge", "true", "pytorch", "nvidia", "numba/label/dev", "numba"}
	if diff := cmp.Diff(want, cfg.Sources.Conda.Channels); diff != "" {
		t.Errorf("channels (-want +got):\n%s\n%s", diff, written)
	}
	for _, line := range []string{
		"      - \"true\"   # ci/environment-gpu.yml\n",
		"      - pytorch   # environment.yml\n",
		"      - numba   # pixi.toml\n",
		`    # Not asked: "https://example.com/a\nchannels: [x]": no channel name pinbot can ask on the`,
	} {
		if !strings.Contains(written, line) {
			t.Errorf("no line %q:\n%s", line, written)
		}
	}
	if code, out, stderr := e.run("check", "--dir", e.dir, "--format", "json"); code != 0 || strings.Contains(out, `"status": "error"`) {
		t.Errorf("check: exit %d\n%s\n%s", code, out, stderr)
	}

	// A tree naming many channels gets the first maxChannels of them.
	var many strings.Builder
	many.WriteString("dependencies:\n")
	for i := range 40 {
		fmt.Fprintf(&many, "  - chan%d::numba>=0.57\n", i)
	}
	e.file("many/environment.yml", []byte(many.String()))
	if code, out, stderr := e.run("init", "--dir", e.dir, "--force", "--package", "numba"); code != 0 {
		t.Fatalf("init: exit %d\n%s\n%s", code, out, stderr)
	}
	written = e.read(".pinbot.yml")
	if cfg, err := config.Parse(".pinbot.yml", []byte(written)); err != nil || len(cfg.Sources.Conda.Channels) != maxChannels ||
		!strings.Contains(written, fmt.Sprintf("      # and %d more, not written\n", len(want)+40-maxChannels)) {
		t.Errorf("many channels: %v\n%s", err, written)
	}
}

// majorReqs is a requirements file whose protobuf cap sits on a major
// version's boundary, with the maintainers' reason beside it.
const majorReqs = "numpy>=1.26\nprotobuf>=5.29.3,<7  # protobuf 7 drops the descriptor APIs our _pb2 modules use\n"

// TestInitMajorCap: with protobuf capped at <7 and 7.34.0 out, the
// configuration init writes (add-cap stays on: protobuf is capped) lets
// check move the cap across the major version, which the report marks with
// the bounds and the comment beside the pin; run's pull request says so in
// its title, which still names the target, and at the top of its body,
// with the comment.
func TestInitMajorCap(t *testing.T) {
	e := newEnv(t)
	e.pypi.Add("protobuf", fakes.Release{Version: "5.29.3"}, fakes.Release{Version: "6.33.0"}, fakes.Release{Version: "7.34.0"})
	e.file("requirements.txt", []byte(majorReqs))
	if code, out, stderr := e.run("init", "--dir", e.dir); code != 0 {
		t.Fatalf("init: exit %d\n%s\n%s", code, out, stderr)
	}
	written := e.read(".pinbot.yml")
	if !strings.Contains(written, "  protobuf:\n    cap: inclusive") || !strings.Contains(written, "    add-cap: true ") {
		t.Fatalf("init:\n%s", written)
	}
	code, out, stderr := e.run("check", "--dir", e.dir, "--format", "json")
	if code != 0 {
		t.Fatalf("check: exit %d\n%s\n%s", code, out, stderr)
	}
	var rep checkReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Packages) != 1 || len(rep.Packages[0].Pins) != 1 {
		t.Fatalf("report:\n%s", out)
	}
	pin := rep.Packages[0].Pins[0]
	if pin.After != "protobuf>=5.29.3,<=7.34.0" || pin.Major == nil ||
		*pin.Major != (struct{ From, To, Comment string }{"<7", "<=7.34.0", "protobuf 7 drops the descriptor APIs our _pb2 modules use"}) ||
		!strings.Contains(pin.Reason, "this crosses a major version (<7 → <=7.34.0)") {
		t.Errorf("pin %+v, major %+v", pin, pin.Major)
	}

	r := newRunEnvFiles(t, written+"dashboard: false\n", map[string]string{"requirements.txt": majorReqs})
	r.pypi.Add("protobuf", fakes.Release{Version: "5.29.3"}, fakes.Release{Version: "6.33.0"}, fakes.Release{Version: "7.34.0"})
	if code, out, stderr := r.run(); code != 0 {
		t.Fatalf("run: exit %d\n%s\n%s", code, out, stderr)
	}
	var found bool
	for _, pr := range r.gh.Pulls(testRepo) {
		if !strings.Contains(pr.Title, "protobuf") {
			if strings.Contains(pr.Title, "major") || strings.Contains(pr.Body, "[!IMPORTANT]") {
				t.Errorf("%q speaks of a major version:\n%s", pr.Title, pr.Body)
			}
			continue
		}
		found = true
		if want := "Bump protobuf cap to 7.34.0 across a major version (<7 → <=7.34.0)"; pr.Title != want {
			t.Errorf("title %q, want %q", pr.Title, want)
		}
		_, body, _ := strings.Cut(pr.Body, "\n") // the marker line
		if !strings.HasPrefix(body, "> [!IMPORTANT]\n> This pull request moves a cap across a major version.") ||
			!strings.Contains(body, "> - `requirements.txt:2`: the cap on protobuf goes from `<7` to `<=7.34.0`; the file says beside it: `protobuf 7 drops the descriptor APIs our _pb2 modules use`\n") {
			t.Errorf("body:\n%s", pr.Body)
		}
	}
	if !found {
		t.Errorf("no pull request for protobuf: %+v", r.gh.Pulls(testRepo))
	}
	r.checkSecrets(t)
}
