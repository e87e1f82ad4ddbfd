package main

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pinbot-dev/pinbot/bot/publishing"
	gh "github.com/pinbot-dev/pinbot/bot/publishing/github"
	"github.com/pinbot-dev/pinbot/bot/report"
	"github.com/pinbot-dev/pinbot/internal/corpus"
)

// A rewrite is a file of a test repository: its bytes before and after
// `pinbot check --write` (after "" means unchanged).
type rewrite struct{ before, after string }

// checkWrite writes files and the configuration into a fresh repository of
// e, runs `pinbot check --write --format json` and requires exit code 0 and
// every file to hold exactly its after bytes (its before bytes when after is
// ""); a second --write must write nothing. It returns the first report.
func checkWrite(t *testing.T, e *env, config string, files map[string]rewrite) *report.Report {
	t.Helper()
	for name, f := range files {
		e.file(name, []byte(f.before))
	}
	e.file(".pinbot.yml", []byte(config))
	code, out, stderr := e.run("check", "--dir", e.dir, "--write", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	var rep report.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var changed []string
	for name, f := range files {
		want := f.after
		if want == "" {
			want = f.before
		} else {
			changed = append(changed, name)
		}
		if diff := cmp.Diff(want, e.read(name)); diff != "" {
			t.Errorf("%s after --write (-want +got):\n%s", name, diff)
		}
	}
	slices.Sort(changed)
	if !slices.Equal(rep.Written, changed) {
		t.Errorf("written %v, want %v", rep.Written, changed)
	}
	code, out, _ = e.run("check", "--dir", e.dir, "--write", "--format", "json")
	if code != 0 || !strings.Contains(out, `"written": []`) {
		t.Errorf("second --write: exit %d\n%s", code, out)
	}
	return &rep
}

// hasWarnings requires the report to hold exactly one warning starting with
// each of the places given ("requirements.txt:2:1: "), and no error.
func hasWarnings(t *testing.T, rep *report.Report, places ...string) {
	t.Helper()
	if len(rep.Errors) > 0 {
		t.Errorf("errors: %v", rep.Errors)
	}
	if len(rep.Warnings) != len(places) {
		t.Errorf("%d warnings, want %d:\n%s", len(rep.Warnings), len(places), strings.Join(rep.Warnings, "\n"))
	}
	for _, p := range places {
		n := 0
		for _, w := range rep.Warnings {
			if strings.HasPrefix(w, p) {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%d warnings at %s, want 1:\n%s", n, p, strings.Join(rep.Warnings, "\n"))
		}
	}
}

// TestCheckSkipsBadEntries gives every format a file with one watched pin
// and entries pinbot cannot read: each bad entry is a warning naming its
// file:line and why, the exit code is 0, and the good pin is planned and
// rewritten, only its bytes changing.
func TestCheckSkipsBadEntries(t *testing.T) {
	e := formatsEnv(t)
	files := map[string]rewrite{
		"pyproject.toml": {
			"[project]\nname = \"demo\"\ndependencies = [\n    \"numba>=0.58,<=0.66.0\",\n    \"llvmlite[\",\n    3,\n]\n",
			"[project]\nname = \"demo\"\ndependencies = [\n    \"numba>=0.58,<=0.67.0\",\n    \"llvmlite[\",\n    3,\n]\n"},
		"requirements.txt": {"numba>=0.58,<=0.66.0\nnumba[cuda>=1\n", "numba>=0.58,<=0.67.0\nnumba[cuda>=1\n"},
		"setup.cfg": {
			"[options]\ninstall_requires =\n    numba>=0.58,<=0.66.0\n    llvm lite>=1\nnot a key\n",
			"[options]\ninstall_requires =\n    numba>=0.58,<=0.67.0\n    llvm lite>=1\nnot a key\n"},
		"environment.yml": {
			"channels: [conda-forge]\ndependencies:\n  - numba>=0.58,<=0.66.0\n  - foo:bar\n  - [x]\n",
			"channels: [conda-forge]\ndependencies:\n  - numba>=0.58,<=0.67.0\n  - foo:bar\n  - [x]\n"},
		"recipe/meta.yaml": {
			"package:\n  name: demo\nrequirements:\n  run:\n    - numba >=0.58,<=0.66.0\n    - foo:bar\n",
			"package:\n  name: demo\nrequirements:\n  run:\n    - numba >=0.58,<=0.67.0\n    - foo:bar\n"},
		"v1/recipe.yaml": {
			"schema_version: 1\npackage:\n  name: demo\nrequirements:\n  run:\n    - numba >=0.58,<=0.66.0\n    - foo:bar\n",
			"schema_version: 1\npackage:\n  name: demo\nrequirements:\n  run:\n    - numba >=0.58,<=0.67.0\n    - foo:bar\n"},
		"pixi.toml": {
			"[workspace]\nchannels = [\"conda-forge\"]\n\n[dependencies]\nnumba = \">=0.58,<=0.66.0\"\nllvmlite = 3\n",
			"[workspace]\nchannels = [\"conda-forge\"]\n\n[dependencies]\nnumba = \">=0.58,<=0.67.0\"\nllvmlite = 3\n"},
		// conda reads "numba >= 0.57", but pinbot's conda scheme does not:
		// the pin is left as written with a warning, and the others move.
		"ci/environment.yml": {"dependencies:\n  - numba >= 0.57\n", ""},
		"go.mod": {
			"module example.com/m\n\ngo 1.22\n\nrequire (\n\tgolang.org/x/mod\n\tgolang.org/x/text v0.3.8\n)\n",
			"module example.com/m\n\ngo 1.22\n\nrequire (\n\tgolang.org/x/mod\n\tgolang.org/x/text v0.30.0\n)\n"},
	}
	rep := checkWrite(t, e, "packages:\n  numba: {}\n  golang.org/x/text: {}\n", files)
	hasWarnings(t, rep,
		"pyproject.toml:5:5: project.dependencies[1]: ", "pyproject.toml:6:5: project.dependencies[2]: ",
		"requirements.txt:2:1: ",
		"setup.cfg:4:5: ", "setup.cfg:5:1: ",
		"environment.yml:4:5: ", "environment.yml:5:5: ",
		"recipe/meta.yaml:6:", "v1/recipe.yaml:7:",
		"pixi.toml:6:", "go.mod:6:",
		`ci/environment.yml:2:5: dependencies[0]: numba: constraint ">= 0.57" does not parse`)
	for _, w := range rep.Warnings {
		if !strings.Contains(w, "skipped") {
			t.Errorf("warning %q does not say the entry is skipped", w)
		}
	}
	// The text report says the same, and so does the Markdown one.
	_, out, _ := e.run("check", "--dir", e.dir)
	if !strings.Contains(out, "warning: requirements.txt:2:1: requirements[1]: invalid requirement \"numba[cuda>=1\"") {
		t.Errorf("text report:\n%s", out)
	}
	_, md, _ := e.run("check", "--dir", e.dir, "--format", "markdown")
	if !strings.Contains(md, "### Warnings\n\n") || !strings.Contains(md, "\n- pixi.toml:6:12: dependencies.llvmlite: expected a version string") {
		t.Errorf("markdown report:\n%s", md)
	}
}

// TestActionsWarnings turns the report's warnings into warning annotations
// at their file and line, which the failures count leaves out.
func TestActionsWarnings(t *testing.T) {
	var b strings.Builder
	out := &publishing.Outcome{Report: &report.Report{Warnings: []string{
		`requirements.txt:2:1: requirements[1]: invalid requirement "numba[cuda>=1" at offset 5: unclosed '[' in extras (entry skipped; the file's other pins are read)`,
	}}}
	if err := actionsReport(gh.NewWorkflow(&b), runEnv{}, out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "::warning file=requirements.txt,line=2,title=pinbot%3A skipped::requirements.txt:2:1: requirements[1]: invalid requirement") {
		t.Errorf("annotations:\n%s", b.String())
	}
	if n := len(runFailures(out)); n != 0 {
		t.Errorf("%d failures for a warning", n)
	}
}

// TestCheckSetupCfgInterpolation checks a setup.cfg whose extras gather
// others with configparser interpolation: the "%(dask)s" line is no pin and
// stays as written, the pins it refers to and the lines after it move, and a
// pin whose version comes from a reference is reported and left alone.
func TestCheckSetupCfgInterpolation(t *testing.T) {
	e := newEnv(t)
	before := "[DEFAULT]\nnumba_min = 0.57\n\n[options]\ninstall_requires =\n    numba>=%(numba_min)s\n\n" +
		"[options.extras_require]\njit =\n    numba>=0.58,<=0.66.0\n    llvmlite<=0.48.0\ntesting = %(jit)s\n    numba<=0.66.0 ; python_version<\"3.14\"\n    pytest\n" +
		"all =\n    %(testing)s\n"
	after := strings.NewReplacer("numba>=0.58,<=0.66.0", "numba>=0.58,<=0.67.0", "llvmlite<=0.48.0", "llvmlite<=0.49.0",
		"numba<=0.66.0 ;", "numba<=0.67.0 ;").Replace(before)
	rep := checkWrite(t, e, "packages:\n  numba: {}\n  llvmlite: {}\n", map[string]rewrite{"setup.cfg": {before, after}})
	hasWarnings(t, rep)
	var pins []string
	for _, p := range rep.Packages {
		for _, pin := range p.Pins {
			s := fmt.Sprintf("%d %s: %s", pin.Line, pin.Key, pin.Before)
			if pin.Skip != "" {
				s += " (skipped: " + pin.Skip + ")"
			}
			pins = append(pins, s)
		}
	}
	want := []string{
		"11 options.extras_require.jit[1]: llvmlite<=0.48.0",
		`6 options.install_requires[0]: numba>=%(numba_min)s (skipped: configparser interpolation: it reads "numba>=0.57" once expanded, and pinbot edits only requirements written out in full)`,
		"10 options.extras_require.jit[0]: numba>=0.58,<=0.66.0",
		`13 options.extras_require.testing[0]: numba<=0.66.0 ; python_version<"3.14"`,
	}
	if diff := cmp.Diff(want, pins); diff != "" {
		t.Errorf("pins (-want +got):\n%s", diff)
	}
}

// TestCheckPyprojectTables moves the caps in every table a tool keeps pins
// in inside a pyproject.toml (PEP 621, PEP 735 groups, uv's constraints,
// overrides and dev dependencies, a Poetry group, pixi's conda and PyPI
// tables with a feature and target) and in requirements .in and constraints
// files: only the bytes of each cap change.
func TestCheckPyprojectTables(t *testing.T) {
	e := formatsEnv(t)
	pyproject := `[project]
name = "demo"
dependencies = ["numba>=0.58,<=0.66.0"]

[dependency-groups]
test = ["numba<=0.66.0", {include-group = "lint"}]
lint = ["ruff"]

[tool.uv]
constraint-dependencies = ["llvmlite<=0.48.0"]
override-dependencies = ["numba>=0.57,<=0.66.0"]
dev-dependencies = ["numba<=0.66.0; python_version<'3.14'"]

[tool.uv.sources]
numba = { index = "numba" }

[tool.poetry.group.test.dependencies]
numba = { version = ">=0.58,<=0.66.0", optional = true }

[tool.pixi.workspace]
channels = ["conda-forge"]
platforms = ["linux-64"]

[tool.pixi.dependencies]
numba = ">=0.58,<=0.66.0"

[tool.pixi.feature.jit.target.linux-64.dependencies]
llvmlite = { version = "<=0.48.0", channel = "conda-forge" }

[tool.pixi.target.linux-64.dependencies]
numba = "<=0.66.0"

[tool.pixi.pypi-dependencies]
demo = { path = ".", editable = true }
llvmlite = ">=0.40,<=0.48.0"

[tool.pixi.tasks]
bench = "python -c 'import numba'"
`
	moved := strings.NewReplacer("<=0.66.0", "<=0.67.0", "<=0.48.0", "<=0.49.0")
	files := map[string]rewrite{
		"pyproject.toml":       {pyproject, moved.Replace(pyproject)},
		"requirements/dev.in":  {"-c ../constraints.txt\nnumba\n", "-c ../constraints.txt\nnumba<=0.67.0\n"},
		"constraints.txt":      {"numba<=0.66.0  # tested through\n", "numba<=0.67.0  # tested through\n"},
		"requirements-gpu.in":  {"numba>=0.58,<=0.66.0 ; sys_platform == \"linux\"\n", "numba>=0.58,<=0.67.0 ; sys_platform == \"linux\"\n"},
		"requirements-gpu.txt": {"#\n# This file is autogenerated by pip-compile with Python 3.12\n#\nnumba==0.66.0\n    # via -r requirements-gpu.in\n", ""},
	}
	rep := checkWrite(t, e, "packages:\n  numba: {}\n  llvmlite: {}\n", files)
	hasWarnings(t, rep)
	keys := map[string]bool{}
	for _, p := range rep.Packages {
		for _, pin := range p.Pins {
			keys[pin.File+" "+pin.Key] = true
		}
	}
	for _, k := range []string{
		"pyproject.toml project.dependencies[0]", "pyproject.toml dependency-groups.test[0]",
		"pyproject.toml tool.uv.constraint-dependencies[0]", "pyproject.toml tool.uv.override-dependencies[0]",
		"pyproject.toml tool.uv.dev-dependencies[0]", "pyproject.toml tool.poetry.group.test.dependencies.numba.version",
		"pyproject.toml tool.pixi.dependencies.numba", "pyproject.toml tool.pixi.feature.jit.target.linux-64.dependencies.llvmlite",
		"pyproject.toml tool.pixi.target.linux-64.dependencies.numba", "pyproject.toml tool.pixi.pypi-dependencies.llvmlite",
		"requirements/dev.in requirements[0]", "constraints.txt requirements[0]", "requirements-gpu.in requirements[0]",
		"requirements-gpu.txt requirements[0]",
	} {
		if !keys[k] {
			t.Errorf("no pin %s in the report", k)
		}
	}
	if len(keys) != 14 {
		t.Errorf("%d pins, want 14: %v", len(keys), keys)
	}
}

// TestCheckCondaBuildStrings leaves alone, under every cap strategy, a conda
// pin whose build string names one build of the version it pins (conda env
// export writes them): no other version has that build, so the pin is
// reported as skipped, with the reason, and written as it was. This holds for
// every spelling (name=1.2=build, name==1.2=build, name 1.2 build, a range
// with a build, a build in brackets, a pixi string or build key, a recipe
// variable followed by a build) in every format that reads MatchSpecs. A glob
// build string (a variant of any version) stays and the version moves; a pin
// without a build string moves as before.
func TestCheckCondaBuildStrings(t *testing.T) {
	env := "name: demo\nchannels:\n  - conda-forge\ndependencies:\n" +
		"  - numba=0.66.0=py312h6b8c7a1_0\n" +
		"  - numba==0.66.0=py312h6b8c7a1_0\n" +
		"  - numba 0.66.0 py312h6b8c7a1_0\n" +
		"  - llvmlite >=0.43,<=0.48.0 py312h1b0c2a6_0  # built for 3.12\n" +
		"  - numba[version='>=0.58,<=0.66.0', build=py312h6b8c7a1_0]\n" +
		"  - tensorflow >=2.19,<=2.19.1 cpu*\n" +
		"  - protobuf=5.29.3\n"
	pixi := "[workspace]\nchannels = [\"conda-forge\"]\n\n[dependencies]\n" +
		"numba = \"0.66.0 py312h6b8c7a1_0\"\n" +
		"llvmlite = { version = \"0.48.0\", build = \"py312h1b0c2a6_0\" }\n"
	pyproject := "[tool.pixi.workspace]\nchannels = [\"conda-forge\"]\n\n[tool.pixi.dependencies]\nnumba = \"==0.66.0 py312h6b8c7a1_0\"\n"
	meta := "{% set llvmlite_version = \"0.48.0\" %}\npackage:\n  name: demo\nrequirements:\n  run:\n" +
		"    - numba 0.66.0 py312h6b8c7a1_0  # [linux]\n" +
		"    - llvmlite {{ llvmlite_version }} py312h1b0c2a6_0\n"
	rattler := "schema_version: 1\npackage:\n  name: demo\nrequirements:\n  run:\n    - numba=0.66.0=py312h6b8c7a1_0\n"
	// The pins that name one build, by file and line.
	oneBuild := []string{
		"environment.yml:5", "environment.yml:6", "environment.yml:7", "environment.yml:8", "environment.yml:9",
		"pixi.toml:5", "pixi.toml:6", "pyproject.toml:5", "recipe/meta.yaml:6", "recipe/meta.yaml:7", "v1/recipe.yaml:6",
	}
	for _, tt := range []struct {
		strategy string
		moved    *strings.Replacer // what moves in environment.yml
	}{
		// A version with no build is a fuzzy match (=5.29.3 is 5.29.3*):
		// expanded into its lower bound and the cap (#30), as any one-clause
		// range is; a pin that names one build is left as written.
		{"inclusive", strings.NewReplacer("<=2.19.1 cpu*", "<=2.20.0 cpu*", "protobuf=5.29.3", "protobuf>=5.29.3,<=6.33.0")},
		{"exclusive", strings.NewReplacer("<=2.19.1 cpu*", "<2.20.1 cpu*", "protobuf=5.29.3", "protobuf>=5.29.3,<6.33.1")},
		{"preserve", strings.NewReplacer("<=2.19.1 cpu*", "<=2.20.0 cpu*", "protobuf=5.29.3", "protobuf=6.33.0")},
	} {
		t.Run(tt.strategy, func(t *testing.T) {
			e := formatsEnv(t)
			rep := checkWrite(t, e, strategyConfig(tt.strategy, pythonPackages), map[string]rewrite{
				"environment.yml": {env, tt.moved.Replace(env)},
				"pixi.toml":       {pixi, ""}, "pyproject.toml": {pyproject, ""},
				"recipe/meta.yaml": {meta, ""}, "v1/recipe.yaml": {rattler, ""},
			})
			hasWarnings(t, rep)
			skips := map[string]string{}
			for _, p := range rep.Packages {
				for _, pin := range p.Pins {
					if pin.Skip != "" {
						skips[fmt.Sprintf("%s:%d", pin.File, pin.Line)] = pin.Skip
					}
				}
			}
			for _, at := range oneBuild {
				if !strings.Contains(skips[at], "names one build of") || !strings.Contains(skips[at], "left as written") {
					t.Errorf("%s: skip %q, want the one-build reason", at, skips[at])
				}
				delete(skips, at)
			}
			if len(skips) > 0 {
				t.Errorf("other pins skipped: %v", skips)
			}
		})
	}
	// The text report gives the reason beside the pin.
	e := formatsEnv(t)
	e.file("environment.yml", []byte(env))
	e.file(".pinbot.yml", []byte(strategyConfig("preserve", pythonPackages)))
	_, out, _ := e.run("check", "--dir", e.dir)
	want := regexp.MustCompile(`environment.yml:5  numba=0.66.0=py312h6b8c7a1_0 +not edited: the build string py312h6b8c7a1_0 names one build of 0.66.0, which another version does not have: left as written\n`)
	if !want.MatchString(out) {
		t.Errorf("text report lacks %s:\n%s", want, out)
	}
}

// TestCheckMultiLineScalars: a conda requirement written as a plain scalar
// continued on the next line (YAML folds it to one line) is not a slice of
// the file, so its spans cannot say where its version is: it is reported as
// skipped and left as written, and the file's other pins move. The fuzz
// input of issue #27 (item 9) is read without an error or a warning.
func TestCheckMultiLineScalars(t *testing.T) {
	env := "dependencies:\n  - numba>=0.58,<=0.66.0\n  - llvmlite 0.48.0\n    py312h1b0c2a6_0\n  - tensorflow >=2.19,<=2.19.1\n    cpu*\n"
	rep := checkWrite(t, formatsEnv(t), "packages:\n  numba: {}\n  llvmlite: {}\n  tensorflow: {}\n", map[string]rewrite{
		"environment.yml":    {env, strings.Replace(env, "<=0.66.0", "<=0.67.0", 1)},
		"ci/environment.yml": {"dependencies:\n- 0 0\n 0", ""},
	})
	hasWarnings(t, rep)
	skips := map[string]string{}
	for _, p := range rep.Packages {
		for _, pin := range p.Pins {
			skips[fmt.Sprintf("%s:%d %s", pin.File, pin.Line, pin.Before)] = pin.Skip
		}
	}
	want := map[string]string{
		"environment.yml:2 numba>=0.58,<=0.66.0":            "",
		"environment.yml:3 llvmlite 0.48.0 py312h1b0c2a6_0": "multi-line plain scalar",
		"environment.yml:5 tensorflow >=2.19,<=2.19.1 cpu*": "multi-line plain scalar",
	}
	if diff := cmp.Diff(want, skips); diff != "" {
		t.Errorf("pins (-want +got):\n%s", diff)
	}
}

// TestCheckCondaEnvByContent finds conda environment files by their content
// wherever they live (xarray's ci/requirements/min-all-deps.yml, a binder
// env.yaml), or when the configuration names them, and moves their pins;
// workflows and look-alike YAML files are not read.
func TestCheckCondaEnvByContent(t *testing.T) {
	minDeps := string(corpus.Read(t, "pydata__xarray__ci__requirements__min-all-deps.yml"))
	binder := "name: binder\ndependencies:\n  - python=3.12\n  - numba>=0.58,<=0.66.0  # for the notebooks\n"
	chart := "name: chart\ndependencies:\n  - name: numba\n    version: 0.66.0\n"
	workflow := "name: ci\non: push\ndependencies:\n  - numba<=0.66.0\n"
	files := map[string]rewrite{
		"ci/requirements/min-all-deps.yml": {minDeps, strings.Replace(minDeps, "  - numba=0.53\n", "  - numba=0.67\n", 1)},
		"binder/env.yaml":                  {binder, strings.Replace(binder, "<=0.66.0", "<=0.67.0", 1)},
		"chart/Chart.yaml":                 {chart, ""},
		".github/workflows/deps.yml":       {workflow, ""},
	}
	e := formatsEnv(t)
	rep := checkWrite(t, e, "packages:\n  numba:\n    cap: preserve\n", files)
	hasWarnings(t, rep)
	var got []string
	for _, p := range rep.Packages {
		for _, pin := range p.Pins {
			got = append(got, fmt.Sprintf("%s:%d %s → %s", pin.File, pin.Line, pin.Before, pin.After))
		}
	}
	want := []string{"binder/env.yaml:4 numba>=0.58,<=0.66.0 → numba>=0.58,<=0.67.0", "ci/requirements/min-all-deps.yml:34 numba=0.53 → numba=0.67"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("pins (-want +got):\n%s", diff)
	}

	// Named in the configuration, the file is read by its content too.
	e = formatsEnv(t)
	rep = checkWrite(t, e, "files: [ci/requirements/min-all-deps.yml]\npackages:\n  numba:\n    cap: preserve\n",
		map[string]rewrite{"ci/requirements/min-all-deps.yml": files["ci/requirements/min-all-deps.yml"], "binder/env.yaml": {binder, ""}})
	hasWarnings(t, rep)
}

// TestCheckFileGlobs narrows discovery with files: {include, exclude}, keeps
// the list form working, skips what .gitignore ignores (a build directory's
// copy of a recipe), and refuses a bad glob with its place.
func TestCheckFileGlobs(t *testing.T) {
	before := map[string]string{
		".gitignore":                  "/out/\n*.local.txt\n",
		"requirements.txt":            "numba>=0.58,<=0.66.0\n",
		"docs/requirements.txt":       "numba>=0.58,<=0.66.0\n",
		"examples/a/requirements.txt": "numba>=0.58,<=0.66.0\n",
		"recipe/meta.yaml":            "requirements:\n  run:\n    - numba >=0.58,<=0.66.0\n",
		"out/recipe/meta.yaml":        "requirements:\n  run:\n    - numba >=0.58,<=0.66.0\n", // ignored by .gitignore
		"requirements.local.txt":      "numba>=0.58,<=0.66.0\n",                               // ignored by .gitignore
	}
	for _, tt := range []struct {
		name, config string
		moves        []string // the files whose cap moves
	}{
		{"discovery and .gitignore", "", []string{"docs/requirements.txt", "examples/a/requirements.txt", "recipe/meta.yaml", "requirements.txt"}},
		{"exclude", "files:\n  exclude: [examples/]\n", []string{"docs/requirements.txt", "recipe/meta.yaml", "requirements.txt"}},
		{"include and exclude", "files:\n  include: ['**/requirements.txt']\n  exclude: ['examples/**', requirements.txt]\n", []string{"docs/requirements.txt"}},
		{"the list form reads an ignored file", "files: [out/recipe/meta.yaml]\n", []string{"out/recipe/meta.yaml"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			files := map[string]rewrite{}
			for name, data := range before {
				r := rewrite{before: data}
				if slices.Contains(tt.moves, name) {
					r.after = strings.Replace(data, "0.66.0", "0.67.0", 1)
				}
				files[name] = r
			}
			hasWarnings(t, checkWrite(t, formatsEnv(t), tt.config+"packages:\n  numba: {}\n", files))
		})
	}
	e := newEnv(t)
	e.file("requirements.txt", []byte(before["requirements.txt"]))
	e.file(".pinbot.yml", []byte("files:\n  exclude: ['[']\n"))
	if code, out, stderr := e.run("check", "--dir", e.dir); code != 2 || !strings.Contains(stderr, `.pinbot.yml:2:13: files.exclude[0]: "[": not a valid glob`) {
		t.Errorf("bad glob: exit %d\n%s\n%s", code, out, stderr)
	}
	e.file(".pinbot.yml", []byte("files:\n  includes: [x]\n"))
	if code, _, stderr := e.run("check", "--dir", e.dir); code != 2 || !strings.Contains(stderr, "files.includes: unknown key (known keys: include, exclude)") {
		t.Errorf("unknown key: exit %d\n%s", code, stderr)
	}
}

// TestCheckUnfollowedIncludes warns, at each include line, about what pip
// would read but pinbot cannot (a file outside the repository, a URL, an
// environment variable): pins may hide there. The file's own pins move.
func TestCheckUnfollowedIncludes(t *testing.T) {
	e := newEnv(t)
	before := "-r ../shared/base.txt\n-c https://example.org/constraints.txt\nnumba>=0.58,<=0.66.0\n"
	rep := checkWrite(t, e, "packages:\n  numba: {}\n", map[string]rewrite{
		"requirements.txt": {before, strings.Replace(before, "<=0.66.0", "<=0.67.0", 1)},
	})
	hasWarnings(t, rep,
		"requirements.txt:1:1: -r: -r ../shared/base.txt not followed: it leads outside the repository",
		"requirements.txt:2:1: -c: -c https://example.org/constraints.txt not followed: it is a URL")
}
