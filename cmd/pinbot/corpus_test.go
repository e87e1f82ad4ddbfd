package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pinbot-dev/pinbot/internal/corpus"
	"github.com/pinbot-dev/pinbot/internal/fakes"
)

// TestCheckWholeCorpus checks one repository holding every corpus file at
// its real path (one directory per project), every format and source at
// once: nothing fails, --write changes only lines of pins it reports as
// changed, the rewritten files read back, and a second --write is a no-op.
func TestCheckWholeCorpus(t *testing.T) {
	e := formatsEnv(t)
	e.pypi.Add("jax", fakes.Release{Version: "0.4.13"}, fakes.Release{Version: "0.8.0"})
	e.pypi.Add("jaxlib", fakes.Release{Version: "0.4.13"}, fakes.Release{Version: "0.8.0"})
	e.pypi.Add("pytensor", fakes.Release{Version: "3.2.2"}, fakes.Release{Version: "3.5.0"})
	c := fakes.NewConda(t)
	e.vars["PINBOT_CONDA_URL"] = c.URL
	c.Add("conda-forge", "numba", condaNumba("0.67.0")...)
	for name, vs := range map[string][]string{
		"llvmlite": {"0.48.0", "0.49.0"}, "protobuf": {"5.29.3", "6.33.0"}, "libprotobuf": {"5.29.3", "6.31.1", "6.33.0"},
		"tensorflow": {"2.19.1", "2.20.0"}, "jax": {"0.4.28", "0.8.0"}, "jaxlib": {"0.4.28", "0.8.0"},
		"pytensor": {"3.2.2", "3.5.0"}, "pytensor-base": {"3.0.2", "3.5.0"},
	} {
		var fs []fakes.CondaFile
		for _, v := range vs {
			fs = append(fs, fakes.CondaFile{Version: v})
		}
		c.Add("conda-forge", name, fs...)
	}
	// numba's docs environment installs llvmlite from numba's dev label;
	// stumpy's environment takes numba from the numba channel.
	c.Add("numba", "llvmlite", fakes.CondaFile{Version: "0.49.0"},
		fakes.CondaFile{Version: "0.50.0dev0", Labels: []string{"dev"}}, fakes.CondaFile{Version: "0.50.0", Labels: []string{"dev"}})
	c.Add("numba", "numba", condaNumba("0.67.0")...)

	orig := map[string]string{}
	for _, name := range corpus.Files(t) {
		parts := strings.Split(name, "__")
		rel := filepath.ToSlash(filepath.Join(parts[0]+"__"+parts[1], strings.Join(parts[2:], "/")))
		data := corpus.Read(t, name)
		e.file(rel, data)
		orig[rel] = string(data)
	}
	e.file(".pinbot.yml", []byte(`sources:
  conda: {channels: [conda-forge, numba/label/dev, numba]}
packages:
  numba: {}
  llvmlite: {}
  tensorflow: {}
  protobuf: {}
  libprotobuf: {}
  jax: {}
  jaxlib: {}
  pytensor: {}
  pytensor-base: {}
`))
	code, out, stderr := e.run("check", "--dir", e.dir, "--format", "json", "--write")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	var rep struct {
		Packages []struct {
			Name, Status string
			Pins         []struct {
				File          string
				Line          int
				Before, After string
			}
		}
		Errors, Written []string
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	changed := map[string]map[int]bool{} // file -> lines of changed pins
	moved := 0
	for _, p := range rep.Packages {
		if p.Status == "error" {
			t.Errorf("%s: status error", p.Name)
		}
		for _, pin := range p.Pins {
			if pin.Before != pin.After {
				if changed[pin.File] == nil {
					changed[pin.File] = map[int]bool{}
				}
				changed[pin.File][pin.Line] = true
				moved++
			}
		}
	}
	if len(rep.Errors) > 0 || moved == 0 || len(rep.Written) == 0 {
		t.Fatalf("errors %v, %d pins moved, wrote %v", rep.Errors, moved, rep.Written)
	}
	for _, file := range rep.Written {
		before, after := strings.Split(orig[file], "\n"), strings.Split(e.read(file), "\n")
		if len(before) != len(after) {
			t.Errorf("%s: %d lines became %d", file, len(before), len(after))
			continue
		}
		for i := range before {
			// A recipe variable's pin is rewritten at its {% set %} definition.
			if before[i] != after[i] && !changed[file][i+1] && !strings.Contains(before[i], "{% set") {
				t.Errorf("%s:%d changed but no pin on it moved:\n- %s\n+ %s", file, i+1, before[i], after[i])
			}
		}
	}
	code, out, _ = e.run("check", "--dir", e.dir, "--format", "json", "--write")
	if code != 0 || !strings.Contains(out, `"written": []`) {
		t.Errorf("second --write: exit %d\n%s", code, out)
	}
}
