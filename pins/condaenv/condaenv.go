// Package condaenv reads the requirements of a conda environment file
// (environment.yml): the MatchSpecs of its dependencies list and the PEP 508
// requirements of a nested pip list
// (https://docs.conda.io/projects/conda/en/latest/user-guide/tasks/manage-environments.html#create-env-file-manually).
//
// The file is parsed with go.yaml.in/yaml/v3 and each scalar mapped back to its
// bytes (pins/internal/yamlspan), so comments, quotes and indentation are never
// touched.
package condaenv

import (
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/pinbot-dev/pinbot/pins"
	"github.com/pinbot-dev/pinbot/pins/internal/condaspec"
	"github.com/pinbot-dev/pinbot/pins/internal/yamlspan"
	"github.com/pinbot-dev/pinbot/pins/pep508"
)

// Name is the format's identifier.
const Name = "condaenv"

// Format reads conda environment files.
type Format struct{}

var _ pins.Format = Format{}

// Name returns "condaenv".
func (Format) Name() string { return Name }

// envDirs are directories whose YAML files are taken to be environment files.
var envDirs = map[string]bool{"conda-envs": true, "conda_envs": true, "conda-env": true, "conda_env": true}

// Match reports whether the file is a conda environment file: a .yml or .yaml
// file named environment, environment-*, environment_*, environment.*,
// *-environment, *_environment or *.environment, or any .yml or .yaml file in a
// conda-envs (conda_envs, conda-env, conda_env) directory. Nothing under .github
// (workflows) or .ci_support (conda-forge variants) matches.
func (Format) Match(path string) bool {
	parts := strings.Split(path, "/")
	base := strings.ToLower(parts[len(parts)-1])
	stem, ok := strings.CutSuffix(base, ".yml")
	if !ok {
		if stem, ok = strings.CutSuffix(base, ".yaml"); !ok {
			return false
		}
	}
	inEnvDir := false
	for _, dir := range parts[:len(parts)-1] {
		switch {
		case dir == ".github" || dir == ".ci_support":
			return false
		case envDirs[strings.ToLower(dir)]:
			inEnvDir = true
		}
	}
	if inEnvDir || stem == "environment" {
		return true
	}
	for _, sep := range []string{"-", "_", "."} {
		if strings.HasPrefix(stem, "environment"+sep) || strings.HasSuffix(stem, sep+"environment") {
			return true
		}
	}
	return false
}

// Extract returns the requirements of data in file order: the conda
// dependencies (Scheme "conda", Source the spec's channel, else the file's
// first channel, else "conda") and the pip ones (Scheme "pep440", Source
// "pypi").
func (Format) Extract(path string, data []byte) ([]pins.Pin, error) {
	d, err := yamlspan.Parse(path, data)
	if err != nil || d.Empty() {
		return nil, err
	}
	if d.Root.Kind != yaml.MappingNode {
		d.Fail(d.Root, "", "expected a mapping at the top of an environment file, found %s", yamlspan.Kind(d.Root))
		return nil, d.Errs.Err()
	}
	pairs, dup := yamlspan.Pairs(d.Root)
	if dup != nil && (dup.Value == "dependencies" || dup.Value == "channels") {
		d.Fail(dup, "", "key %q given twice: conda refuses the file", dup.Value)
		return nil, d.Errs.Err()
	}
	x := &extractor{d: d}
	source := condaspec.Default
	for _, p := range pairs {
		if p.Key == "channels" {
			source = condaspec.First(x.channels(p.Value))
		}
	}
	for _, p := range pairs {
		if p.Key == "dependencies" {
			x.dependencies(p.Value, source)
		}
	}
	return x.out, pins.Skip(d.Errs)
}

// An extractor collects the pins of one file; its Doc collects the errors.
type extractor struct {
	d   *yamlspan.Doc
	out []pins.Pin
}

// channels returns the channel names of a channels list.
func (x *extractor) channels(n *yaml.Node) []string {
	var chs []string
	for i, el := range x.d.Seq(n, "channels", "a list of channels") {
		s, ok := x.d.ScalarAt(el)
		if !ok {
			x.d.Fail(el, fmt.Sprintf("channels[%d]", i), "expected a channel name, found %s", yamlspan.Kind(el))
			continue
		}
		chs = append(chs, s.Value)
	}
	return chs
}

func (x *extractor) dependencies(n *yaml.Node, source string) {
	for i, el := range x.d.Seq(n, "dependencies", "a list of requirements") {
		key := fmt.Sprintf("dependencies[%d]", i)
		if el.Kind == yaml.MappingNode {
			pairs, _ := yamlspan.Pairs(el)
			for _, p := range pairs {
				// conda hands "pip:" lists to pip; other installers' lists are
				// not read.
				if p.Key == "pip" {
					x.pip(p.Value, key+".pip")
				}
			}
			continue
		}
		s, ok := x.d.ScalarAt(el)
		if !ok || yamlspan.IsNull(el) {
			x.d.Fail(el, key, "expected a requirement, found %s", yamlspan.Kind(el))
			continue
		}
		if p, ok := x.conda(s, key, source); ok {
			x.out = append(x.out, p)
		}
	}
}

// conda returns the pin of one MatchSpec; ok is false for an item that is not
// a named requirement (a package file or URL).
func (x *extractor) conda(s yamlspan.Scalar, key, source string) (pins.Pin, bool) {
	p, err := condaspec.Pin(s.Value, s.Start, source)
	if err != nil {
		if !condaspec.IsFileOrURL(err) {
			x.d.Errs = append(x.d.Errs, x.d.ScalarError(s, key, err))
		}
		return pins.Pin{}, false
	}
	return x.d.Place(p, s, key), true
}

func (x *extractor) pip(n *yaml.Node, label string) {
	for i, el := range x.d.Seq(n, label, "a list of pip requirements") {
		key := fmt.Sprintf("%s[%d]", label, i)
		s, ok := x.d.ScalarAt(el)
		if !ok || yamlspan.IsNull(el) {
			x.d.Fail(el, key, "expected a pip requirement, found %s", yamlspan.Kind(el))
			continue
		}
		v := strings.TrimSpace(s.Value)
		if strings.HasPrefix(v, "-") || strings.Contains(v, "://") && !strings.Contains(v, "@") ||
			strings.HasPrefix(v, ".") || strings.HasPrefix(v, "/") {
			continue // an option (-r, -e, --index-url) or a path or URL: not a named requirement
		}
		p, err := pep508.Pin(s.Value, s.Start)
		if err != nil {
			x.d.Errs = append(x.d.Errs, x.d.ScalarError(s, key, err))
			continue
		}
		x.out = append(x.out, x.d.Place(p, s, key))
	}
}
