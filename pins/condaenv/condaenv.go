// Package condaenv reads the requirements of a conda environment file
// (environment.yml): the MatchSpecs of its dependencies list and the PEP 508
// requirements of a nested pip list
// (https://docs.conda.io/projects/conda/en/latest/user-guide/tasks/manage-environments.html#create-env-file-manually).
//
// The file is parsed with go.yaml.in/yaml/v3 and each scalar mapped back to its
// bytes (pins/internal/yamlspan), so comments, quotes and indentation are never
// touched. Besides the names Match knows, an environment file is known by its
// content (Sniff), wherever it lives and whatever it is called.
package condaenv

import (
	"bytes"
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

var _ pins.Sniffer = Format{}

// MaySniff reports whether a file at path could be an environment file that
// Match does not name: a .yml or .yaml file outside .github (workflows) and
// .ci_support (conda-forge variants).
func (Format) MaySniff(path string) bool {
	lower := strings.ToLower(path)
	if !strings.HasSuffix(lower, ".yml") && !strings.HasSuffix(lower, ".yaml") {
		return false
	}
	for _, dir := range strings.Split(path, "/") {
		if dir == ".github" || dir == ".ci_support" {
			return false
		}
	}
	return true
}

// Sniff reports whether data is a conda environment file by its content,
// whatever its name (ci/requirements/min-all-deps.yml, binder/env.yaml): a
// YAML mapping with a dependencies list and a channels or name key, every
// item of the list a requirement string or a mapping with a pip list only.
// (A Helm Chart.yaml also has name and dependencies, but its dependencies
// are mappings of name, version and repository.)
func (Format) Sniff(data []byte) bool {
	if !topKey(data, "dependencies") || !topKey(data, "channels") && !topKey(data, "name") {
		return false // most YAML files: no parse needed
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil || doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		return false
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return false
	}
	var deps *yaml.Node
	named := false
	for i := 0; i+1 < len(root.Content); i += 2 {
		switch root.Content[i].Value {
		case "dependencies":
			deps = root.Content[i+1]
		case "channels", "name":
			named = true
		}
	}
	if deps == nil || deps.Kind != yaml.SequenceNode || !named {
		return false
	}
	for _, el := range deps.Content {
		switch {
		case el.Kind == yaml.ScalarNode:
		case el.Kind == yaml.MappingNode && len(el.Content) == 2 && el.Content[0].Value == "pip":
		default:
			return false
		}
	}
	return true
}

// topKey reports whether a line of data starts with key followed by ":", as
// a top-level key of a YAML mapping does.
func topKey(data []byte, key string) bool {
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		if rest, ok := bytes.CutPrefix(line, []byte(key)); ok {
			if rest = bytes.TrimLeft(rest, " \t"); len(rest) > 0 && rest[0] == ':' {
				return true
			}
		}
	}
	return false
}

// Extract returns the requirements of data in file order: the conda
// dependencies (Scheme "conda"; Source the spec's channel, else the file's
// first channel, with the file's channels in Channels, else "conda"; and
// SourceAt where it is named) and the pip ones (Scheme "pep440", Source
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
	for _, p := range pairs {
		if p.Key == "channels" {
			x.list = condaspec.List(x.channels(p.Value))
		}
	}
	for _, p := range pairs {
		if p.Key == "dependencies" {
			x.dependencies(p.Value)
		}
	}
	return x.out, pins.Skip(d.Errs)
}

// An extractor collects the pins of one file; its Doc collects the errors.
// Its conda pins follow list, the file's channels (condaspec.List).
type extractor struct {
	d    *yamlspan.Doc
	out  []pins.Pin
	list []pins.Channel
}

// channels returns the channels of a channels list, each with its place.
func (x *extractor) channels(n *yaml.Node) []condaspec.Channel {
	var chs []condaspec.Channel
	for i, el := range x.d.Seq(n, "channels", "a list of channels") {
		key := fmt.Sprintf("channels[%d]", i)
		s, ok := x.d.ScalarAt(el)
		if !ok {
			x.d.Fail(el, key, "expected a channel name, found %s", yamlspan.Kind(el))
			continue
		}
		chs = append(chs, condaspec.Channel{Name: s.Value, At: pins.Place{Line: s.Line, Col: s.Col, Key: key}})
	}
	return chs
}

func (x *extractor) dependencies(n *yaml.Node) {
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
		if p, ok := x.conda(s, key); ok {
			x.out = append(x.out, p)
		}
	}
}

// conda returns the pin of one MatchSpec; ok is false for an item that is not
// a named requirement (a package file or URL).
func (x *extractor) conda(s yamlspan.Scalar, key string) (pins.Pin, bool) {
	p, err := condaspec.Pin(s.Value, s.Start, x.list)
	if err != nil {
		if !condaspec.IsFileOrURL(err) {
			x.d.Errs = append(x.d.Errs, x.d.ScalarError(s, key, err))
		}
		return pins.Pin{}, false
	}
	p = x.d.Place(p, s, key)
	condaspec.Locate(&p)
	return p, true
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

var _ pins.ChannelNamer = Format{}

// Channels returns the channels of the file's channels list, in order
// (pins.ChannelNamer); the pins of its conda dependencies that name no
// channel of their own follow the list (Pin.Channels).
func (Format) Channels(path string, data []byte) ([]string, error) {
	d, err := yamlspan.Parse(path, data)
	if err != nil || d.Empty() || d.Root.Kind != yaml.MappingNode {
		return nil, err
	}
	x := &extractor{d: d}
	pairs, _ := yamlspan.Pairs(d.Root)
	var out []string
	for _, p := range pairs {
		if p.Key == "channels" {
			var names []string
			for _, ch := range x.channels(p.Value) {
				names = append(names, ch.Name)
			}
			out = condaspec.Named(names)
		}
	}
	return out, nil
}
