package all_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pinbot-dev/pinbot/internal/corpus"
	"github.com/pinbot-dev/pinbot/internal/pinstest"
	"github.com/pinbot-dev/pinbot/pins"
	"github.com/pinbot-dev/pinbot/pins/all"
)

// repoPath turns a corpus name (owner__repo__path__to__file, the repo
// perhaps with "@ref") into the path the file has in its repository.
func repoPath(name string) string {
	parts := strings.Split(name, "__")
	return strings.Join(parts[2:], "/")
}

// project returns the name of the corpus file's repository, which is the
// project it belongs to ("pytensor" for pymc-devs__pytensor@v3__...).
func project(name string) string {
	repo, _, _ := strings.Cut(strings.Split(name, "__")[1], "@")
	return repo
}

// corpusTable lists, for every corpus file, the format discovery picks for
// the file's path in its repository and the watched pins that format reads
// (pinstest.Rows: "LINE KEY: TEXT", " (skipped)" for a pin pinbot never
// edits), as INDEX.md lists them. A project's requirements of itself
// (pytensor's extras name "pytensor[jax]") are not pins of a watched package.
var corpusTable = map[string]struct {
	format string   // "" when no format reads the file
	pins   []string // empty: nothing to manage
}{
	// 1-2: PEP 621; the extras line holds two requirements.
	"pymc-devs__pytensor__pyproject.toml": {"pyproject", []string{
		"53 project.dependencies[3]: numba>=0.58,<=0.66.0",
		"80 project.optional-dependencies.jax[0]: jax",
		"80 project.optional-dependencies.jax[1]: jaxlib",
		"81 project.optional-dependencies.numba[0]: numba>=0.58,<=0.66.0",
		"81 project.optional-dependencies.numba[1]: llvmlite",
	}},
	"pymc-devs__pytensor@v3__pyproject.toml": {"pyproject", []string{
		"53 project.dependencies[3]: numba>0.57,<1",
		"83 project.optional-dependencies.jax[0]: jax",
		"83 project.optional-dependencies.jax[1]: jaxlib",
		"84 project.optional-dependencies.numba[0]: numba>=0.57",
		"84 project.optional-dependencies.numba[1]: llvmlite",
	}},
	// 3, 5, 13: conda environment files, with a pip list in pymc's.
	"pymc-devs__pytensor__environment.yml": {"condaenv", []string{
		"24 dependencies[13]: numba>=0.57",
	}},
	"pymc-devs__pymc__conda-envs__environment-alternative-backends.yml": {"condaenv", []string{
		"14 dependencies[6]: numba",
		"24 dependencies[12]: pytensor>=3.2.2,<3.4",
		"49 dependencies[26].pip[2]: jax>=0.4.28",
		"50 dependencies[26].pip[3]: jaxlib>=0.4.28",
	}},
	"numba__numba__docs__environment.yml": {"condaenv", []string{
		"9 dependencies[1]: llvmlite=0.50",
	}},
	// 4: a GitHub workflow. Its numba and jax pins are inside shell lines
	// that read the cap out of pyproject.toml; no format reads it.
	"pymc-devs__pytensor__.github__workflows__test.yml": {"", []string{}},
	// 6-7, 9-10, 12: conda-build recipes; templated items are skipped.
	"conda-forge__numba-feedstock__recipe__meta.yaml": {"condarecipe", []string{
		"40 requirements.host[3]: llvmlite 0.47.*",
		"48 requirements.run[1]: {{ pin_compatible('llvmlite', max_pin='x.x') }} (skipped)",
	}},
	"conda-forge__numba-feedstock@rc__recipe__meta.yaml": {"condarecipe", []string{
		"40 requirements.host[3]: llvmlite 0.46.*",
		"46 requirements.run[1]: {{ pin_compatible('llvmlite', max_pin='x.x') }} (skipped)",
	}},
	"conda-forge__pymc-feedstock@12f344b__recipe__meta.yaml": {"condarecipe", []string{
		"35 outputs[0].requirements.run[6]: pytensor-base >=2.35.0,<2.36",
		"71 outputs[1].requirements.run[1]: pytensor",
	}},
	"conda-forge__tensorflow-feedstock__recipe__meta.yaml": {"condarecipe", []string{
		"118 requirements.build[24]: libprotobuf",
		"176 requirements.host[37]: libprotobuf",
		"194 outputs[0].build.run_exports[0]: libtensorflow_framework {{ version }} (skipped)",
		"215 outputs[0].requirements.host[7]: libprotobuf",
		"296 outputs[1].requirements.host[29]: libprotobuf",
		"314 outputs[1].requirements.host[44]: protobuf >=5.28",
		`324 outputs[1].requirements.host[53]: {{ pin_subpackage("libtensorflow_framework", exact=True) }} (skipped)`,
		`325 outputs[1].requirements.host[54]: {{ pin_subpackage("libtensorflow_cc", exact=True) }} (skipped)`,
		"337 outputs[1].requirements.run[10]: protobuf >=5.26",
		`351 outputs[1].requirements.run[21]: {{ pin_subpackage("libtensorflow_framework", exact=True) }} (skipped)`,
		`352 outputs[1].requirements.run[22]: {{ pin_subpackage("libtensorflow_cc", exact=True) }} (skipped)`,
		"381 outputs[2].requirements.run[1]: {{ pin_subpackage('tensorflow-base', exact=True) }} (skipped)",
		"382 outputs[2].requirements.run[2]: {{ pin_subpackage('tensorflow-estimator', exact=True) }} (skipped)",
		"433 outputs[3].requirements.build[12]: {{ pin_subpackage('tensorflow-base') }} (skipped)",
		"444 outputs[3].requirements.host[6]: {{ pin_subpackage('tensorflow-base', exact=True) }} (skipped)",
		"450 outputs[3].requirements.run[1]: {{ pin_subpackage('tensorflow-base', exact=True) }} (skipped)",
		"465 outputs[4].build.run_exports[0]: libtensorflow {{ version }} (skipped)",
		"486 outputs[4].requirements.host[7]: libprotobuf",
		`491 outputs[4].requirements.host[12]: {{ pin_subpackage("libtensorflow_framework", exact=True) }} (skipped)`,
		`495 outputs[4].requirements.run[1]: {{ pin_subpackage("libtensorflow_framework", exact=True) }} (skipped)`,
		"514 outputs[5].build.run_exports[0]: libtensorflow_cc {{ version }} (skipped)",
		"537 outputs[5].requirements.host[8]: libprotobuf",
		`542 outputs[5].requirements.host[13]: {{ pin_subpackage("libtensorflow_framework", exact=True) }} (skipped)`,
		`547 outputs[5].requirements.run[2]: {{ pin_subpackage("libtensorflow_framework", exact=True) }} (skipped)`,
		"564 outputs[6].requirements.run[0]: tensorflow {{ version }} cpu*_{{ PKG_BUILDNUM }} (skipped)",
		"575 outputs[7].requirements.run[0]: tensorflow {{ version }} cuda{{ cuda_compiler_version | replace('.', '') }}*_{{ PKG_BUILDNUM }} (skipped)",
		`593 outputs[8].requirements.run[0]: {{ pin_subpackage("tensorflow", exact=True) }} (skipped)`,
		`611 outputs[9].requirements.run[0]: {{ pin_subpackage("tensorflow", exact=True) }} (skipped)`,
		`629 outputs[10].requirements.run[0]: {{ pin_subpackage("tensorflow", exact=True) }} (skipped)`,
	}},
	"numba__numba__buildscripts__condarecipe.local__meta.yaml": {"condarecipe", []string{
		"37 requirements.host[3]: llvmlite >=0.50.0dev0,<0.50",
		"45 requirements.run[2]: llvmlite >=0.50.0dev0,<0.50",
	}},
	// 8: a rattler-build v1 recipe.
	"conda-forge__pymc-feedstock__recipe__recipe.yaml": {"rattler", []string{
		"40 outputs[0].requirements.run[6]: pytensor-base >=3.0.2,<3.1",
		"83 outputs[1].requirements.run[1]: pytensor",
	}},
	// 11: a conda-smithy variant file: generated, so every pin is skipped.
	"conda-forge__tensorflow-feedstock__.ci_support__linux_64_cuda_compiler_versionNonemicroarch_level1.yaml": {"cisupport", []string{
		"44 libprotobuf[0]: 6.31.1 (skipped)",
		"46 libtensorflow_cc[0]: 2.16 (skipped)",
		"73 tensorflow[0]: 2.16 (skipped)",
	}},
	// 14: setup.cfg, spaces around the operator.
	"librosa__librosa__setup.cfg": {"setupcfg", []string{
		"67 options.install_requires[1]: numba >= 0.51.0",
		"94 options.extras_require.docs[3]: numba >= 0.51",
	}},
	// 15: Poetry tables; the text is the line.
	"RToTheP__mlwrap__pyproject.toml": {"pyproject", []string{
		`14 tool.poetry.dependencies.numba.version: numba = { version = "^0.56.0", optional = true }`,
		`15 tool.poetry.dependencies.tensorflow-aarch64.version: tensorflow-aarch64 = { version = "2.8.2", markers = "platform_machine == 'aarch64'", optional = true }`,
		`16 tool.poetry.dependencies.tensorflow.version: tensorflow = { version = "2.8.2", markers = "platform_machine == 'x86_64'", optional = true }`,
		`19 tool.poetry.dependencies.tensorflow-io-gcs-filesystem.version: tensorflow-io-gcs-filesystem = { version = "0.26.0", optional = true }`,
	}},
	// 16: pixi, a conda table and a feature's PyPI table.
	"pydata__sparse__pixi.toml": {"pixi", []string{
		`34 package.run-dependencies.numba: numba = ">=0.49"`,
		`228 feature.mlir.pypi-dependencies.finch-mlir: finch-mlir = ">=0.0.2"`,
	}},
	// 18-19, 21: requirements files (tensorflow-probability and
	// tensorflow-datasets in ray's are other projects).
	"google-ai-edge__mediapipe__requirements.txt": {"requirements", []string{
		"4 requirements[3]: jax",
		"5 requirements[4]: jaxlib",
		"11 requirements[10]: protobuf>=5.29.3,<6",
	}},
	"google-deepmind__alphafold__requirements.txt": {"requirements", []string{
		"8 requirements[7]: jax==0.4.13",
		"13 requirements[12]: tensorflow-cpu==2.16.1",
	}},
	"ray-project__ray__python__requirements__ml__dl-gpu-requirements.txt": {"requirements", []string{
		"3 requirements[0]: tensorflow==2.15.1; python_version < '3.12' and (sys_platform != 'darwin' or platform_machine != 'arm64')",
		"4 requirements[1]: tensorflow-macos==2.15.1; python_version < '3.12' and sys_platform == 'darwin' and platform_machine == 'arm64'",
		"22 requirements[12]: jaxlib==0.4.22+cuda12.cudnn89; python_version < '3.12' and sys_platform != 'darwin'",
	}},
	// 23: dependency groups, uv sources and a non-PyPI index.
	"llvm__lighthouse__pyproject.toml": {"pyproject", []string{
		"6 project.dependencies[0]: mlir-python-bindings==20251209+cdb525d2e",
		"20 project.optional-dependencies.ingress_torch_mlir[0]: torch-mlir==20251122.639",
	}},
	// Added for issue 13 (INDEX.md lists their sources). 24: setup.cfg
	// interpolation; 25: a conda environment known by its content only.
	"pydata__xarray__setup.cfg": {"setupcfg", nil},
	"pydata__xarray__ci__requirements__min-all-deps.yml": {"condaenv", []string{
		"34 dependencies[19]: numba=0.53",
	}},
	// 26-27: pixi's manifest inside a pyproject.
	"prefix-dev__pixi__examples__docker__pyproject.toml":                      {"pyproject", nil},
	"prefix-dev__pixi__examples__flask-hello-world-pyproject__pyproject.toml": {"pyproject", nil},
	// 28-29: a requirements .in file including another with -r.
	"jax-ml__jax__build__requirements.in":       {"requirements", nil},
	"jax-ml__jax__build__test-requirements.txt": {"requirements", nil},
	// 30-32: stumpy, whose environment file's first channel is numba.
	"stumpy-dev__stumpy__environment.yml": {"condaenv", []string{
		"8 dependencies[3]: numba>=0.61.2",
	}},
	"stumpy-dev__stumpy__pyproject.toml": {"pyproject", []string{
		"42 project.dependencies[2]: numba >= 0.61.2",
		`79 tool.pixi.dependencies.numba: numba = ">=0.61.2"`,
	}},
	"stumpy-dev__stumpy__requirements.txt": {"requirements", []string{
		"3 requirements[2]: numba>=0.61.2",
	}},
	// 33-34, for issue 30 (INDEX.md gives their sources; 34 is
	// reconstructed): umap and onnx leave their fragile packages uncapped on
	// purpose.
	"lmcinnes__umap__pyproject.toml": {"pyproject", []string{
		"35 project.dependencies[3]: numba >= 0.51.2",
		"60 project.optional-dependencies.parametric_umap[0]: tensorflow >= 2.1",
	}},
	"onnx__onnx__requirements.txt": {"requirements", []string{
		"2 requirements[1]: protobuf>=6.31.1",
	}},
	// 35-36, for issue 30 (INDEX.md lists their sources). 35: a setup.py
	// whose TensorFlow requirement is a name assigned in each arm of an if
	// (reconstructed); 36: setup(**configuration), a dict literal.
	"tensorflow__probability__setup.py": {"setuppy", []string{
		"58 extras_require.tf[0]: tensorflow >= 2.16",
		"117 extras_require.jax[0]: jax",
		"117 extras_require.jax[1]: jaxlib",
	}},
	"lmcinnes__umap__setup.py": {"setuppy", []string{
		"51 install_requires[3]: numba >= 0.51.2",
		"66 extras_require.parametric_umap[0]: tensorflow >= 2.1",
	}},
	// 37, verbatim: an older tensorflow/probability setup.py with the shape
	// 35 reconstructs (a requirement named in each arm of an if, given to
	// extras_require); its watched pins are jax and jaxlib.
	"tensorflow__probability@5cc832b__setup.py": {"setuppy", []string{
		"107 extras_require.jax[0]: jax",
		"107 extras_require.jax[1]: jaxlib",
	}},
}

// TestCorpus reads every corpus file with the format discovery picks for its
// path in its repository and its content (pins.Detect over all.Formats) and lists the watched
// pins found against corpusTable: each on the line INDEX.md gives, that line
// holding its text.
func TestCorpus(t *testing.T) {
	files := corpus.Files(t)
	if len(files) != len(corpusTable) {
		t.Errorf("%d corpus files, %d in the table", len(files), len(corpusTable))
	}
	for _, name := range files {
		t.Run(name, func(t *testing.T) {
			w, ok := corpusTable[name]
			if !ok {
				t.Fatal("not in the table")
			}
			path := repoPath(name)
			data := corpus.Read(t, name)
			f := pins.Detect(all.Formats(), path, data)
			if w.format == "" {
				for _, f := range all.Formats() {
					if f.Match(path) {
						t.Errorf("%s: the %s format reads it", path, f.Name())
					}
				}
				if len(w.pins) != 0 {
					t.Errorf("pins listed for a file no format reads")
				}
				t.Logf("%s: no format reads it: nothing to manage", path)
				return
			}
			if f == nil || f.Name() != w.format {
				t.Fatalf("%s: format %v, want %s", path, f, w.format)
			}
			ps, err := pins.Extract(f, path, data)
			if err != nil {
				t.Fatal(err)
			}
			own := project(name)
			watched := func(p pins.Pin) bool { return pinstest.Watched(p.Package) && p.Package != own }
			if diff := cmp.Diff(w.pins, pinstest.Rows(ps, watched)); diff != "" {
				t.Errorf("watched pins (-want +got):\n%s", diff)
			}
			lines := bytes.Split(data, []byte("\n"))
			editable := 0
			for _, p := range ps {
				if !watched(p) {
					continue
				}
				if p.Skip == "" {
					editable++
				}
				if !bytes.Contains(lines[p.Line-1], []byte(p.Text)) {
					t.Errorf("line %d %q does not hold the pin text %q", p.Line, lines[p.Line-1], p.Text)
				}
			}
			if editable == 0 {
				t.Logf("%s: no watched pin pinbot may edit: nothing to manage", path)
			}
		})
	}
}

// pythonAndGo are the formats TestCorpusRewrite covers; the conda formats'
// own tests rewrite their corpus files.
var pythonAndGo = map[string]bool{"pyproject": true, "requirements": true, "setupcfg": true, "setuppy": true, "gomod": true}

// TestCorpusRewrite rewrites every editable pin of every corpus file the
// Python and Go formats read: only the bytes inside the pin's span change, the
// file reads back with the new constraint, and a second rewrite is a no-op.
func TestCorpusRewrite(t *testing.T) {
	for _, name := range corpus.Files(t) {
		path := repoPath(name)
		if f := pins.Lookup(all.Formats(), path); f != nil && pythonAndGo[f.Name()] {
			pinstest.Rewrite(t, f, path, corpus.Read(t, name), nil)
		}
	}
}
