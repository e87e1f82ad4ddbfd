// Package rattler reads the requirements of a rattler-build recipe, recipe.yaml
// (recipe format v1, CEP 13 and CEP 14:
// https://rattler.build/latest/reference/recipe_file/,
// https://github.com/conda/ceps/blob/main/cep-0013.md).
//
// A v1 recipe is valid YAML: it is parsed with go.yaml.in/yaml/v3 and each
// scalar mapped back to its bytes (pins/internal/yamlspan). The requirements
// lists (build, host, run, run_constraints, run_exports) are read at the top,
// in the cache, in each output and in each test's requirements, descending
// into "if:/then:/else:" conditional items. Items with a ${{ … }} template have
// no version until rattler-build renders them: they are reported with Skip.
package rattler

import (
	"cmp"
	"fmt"
	"slices"

	"go.yaml.in/yaml/v3"

	"github.com/pinbot-dev/pinbot/pins"
	"github.com/pinbot-dev/pinbot/pins/internal/condaspec"
	"github.com/pinbot-dev/pinbot/pins/internal/yamlspan"
)

// Name is the format's identifier.
const Name = "rattler"

// Format reads rattler-build recipe.yaml recipes.
type Format struct{}

var _ pins.Format = Format{}

// Name returns "rattler".
func (Format) Name() string { return Name }

// Match reports whether the file is named recipe.yaml (or recipe.yml).
func (Format) Match(path string) bool {
	b := pins.Base(path)
	return b == "recipe.yaml" || b == "recipe.yml"
}

// lists are the requirements keys whose values are lists of MatchSpecs.
var lists = map[string]bool{"build": true, "host": true, "run": true, "run_constraints": true, "run_exports": true}

// exportKinds are the keys of a run_exports mapping.
var exportKinds = map[string]bool{"weak": true, "strong": true, "noarch": true, "weak_constraints": true, "strong_constraints": true}

// Extract returns the requirements of the recipe in file order, with Scheme
// "conda" and Source the spec's channel, else "conda".
func (Format) Extract(path string, data []byte) ([]pins.Pin, error) {
	d, err := yamlspan.Parse(path, data)
	if err != nil || d.Empty() {
		return nil, err
	}
	if d.Root.Kind != yaml.MappingNode {
		d.Fail(d.Root, "", "expected a mapping at the top of a recipe, found %s", yamlspan.Kind(d.Root))
		return nil, d.Errs.Err()
	}
	x := &extractor{d: d}
	x.recipe(d.Root, "")
	pairs, _ := yamlspan.Pairs(d.Root)
	for _, p := range pairs {
		if p.Key == "outputs" {
			x.outputs(p.Value)
		}
	}
	// Top-level tests may follow the outputs: put the pins in file order.
	slices.SortStableFunc(x.out, func(a, b pins.Pin) int { return cmp.Or(cmp.Compare(a.Line, b.Line), cmp.Compare(a.Col, b.Col)) })
	return x.out, pins.Skip(d.Errs)
}

// An extractor collects the pins of one recipe; its Doc collects the errors.
type extractor struct {
	d   *yamlspan.Doc
	out []pins.Pin
}

// recipe reads the requirements, cache and tests of a recipe or an output
// (prefix "outputs[1].").
func (x *extractor) recipe(n *yaml.Node, prefix string) {
	pairs, dup := yamlspan.Pairs(n)
	if dup != nil && (dup.Value == "requirements" || dup.Value == "outputs") {
		x.d.Fail(dup, prefix+dup.Value, "key given twice")
		return
	}
	for _, p := range pairs {
		switch p.Key {
		case "requirements":
			x.requirements(p.Value, prefix+"requirements")
		case "cache":
			if p.Value.Kind == yaml.MappingNode {
				x.requirements(yamlspan.Get(p.Value, "requirements"), prefix+"cache.requirements")
			}
		case "tests":
			if p.Value.Kind != yaml.SequenceNode {
				continue
			}
			for i, t := range p.Value.Content {
				if t.Kind == yaml.MappingNode {
					x.requirements(yamlspan.Get(t, "requirements"), fmt.Sprintf("%stests[%d].requirements", prefix, i))
				}
			}
		}
	}
}

func (x *extractor) outputs(n *yaml.Node) {
	for i, o := range x.d.Seq(n, "outputs", "a list of outputs") {
		switch {
		case o.Kind == yaml.MappingNode && yamlspan.Get(o, "if") != nil:
			// A conditional output: its then/else are outputs.
			for _, branch := range []string{"then", "else"} {
				if b := yamlspan.Get(o, branch); b != nil && b.Kind == yaml.MappingNode {
					x.recipe(b, fmt.Sprintf("outputs[%d].%s.", i, branch))
				}
			}
		case o.Kind == yaml.MappingNode:
			x.recipe(o, fmt.Sprintf("outputs[%d].", i))
		default:
			x.d.Fail(o, fmt.Sprintf("outputs[%d]", i), "expected an output mapping, found %s", yamlspan.Kind(o))
		}
	}
}

// requirements reads a requirements mapping at label.
func (x *extractor) requirements(n *yaml.Node, label string) {
	if n == nil || yamlspan.IsNull(n) {
		return
	}
	if n.Kind != yaml.MappingNode {
		x.d.Fail(n, label, "expected a mapping of requirement lists, found %s", yamlspan.Kind(n))
		return
	}
	pairs, _ := yamlspan.Pairs(n)
	for _, p := range pairs {
		if !lists[p.Key] {
			continue // ignore_run_exports names packages, not specs
		}
		key := label + "." + p.Key
		if p.Key == "run_exports" && p.Value.Kind == yaml.MappingNode {
			sub, _ := yamlspan.Pairs(p.Value)
			for _, s := range sub {
				if exportKinds[s.Key] {
					x.list(s.Value, key+"."+s.Key)
				}
			}
			continue
		}
		n := len(x.out)
		x.list(p.Value, key)
		if p.Key == "build" || p.Key == "host" {
			for i := range x.out[n:] {
				x.out[n+i].Build = true // needed to build the package, not to run it
			}
		}
	}
}

// list reads a list of MatchSpecs and conditional items at key.
func (x *extractor) list(n *yaml.Node, key string) {
	for i, el := range x.d.Seq(n, key, "a list of requirements") {
		x.item(el, fmt.Sprintf("%s[%d]", key, i), "")
	}
}

// item reads one list item: a MatchSpec, or an if/then/else conditional whose
// branches are a MatchSpec or a list of them.
func (x *extractor) item(n *yaml.Node, key, cond string) {
	if n.Kind == yaml.MappingNode {
		if yamlspan.Get(n, "if") == nil {
			x.d.Fail(n, key, "expected a requirement or an if/then conditional, found a mapping")
			return
		}
		ifCond := yamlspan.Get(n, "if").Value
		pairs, _ := yamlspan.Pairs(n)
		for _, p := range pairs {
			if p.Key != "then" && p.Key != "else" {
				continue
			}
			branch := ifCond
			if p.Key == "else" {
				branch = "not (" + ifCond + ")"
			}
			if cond != "" {
				branch = cond + " and " + branch
			}
			if p.Value.Kind == yaml.SequenceNode {
				for i, el := range p.Value.Content {
					x.item(el, fmt.Sprintf("%s.%s[%d]", key, p.Key, i), branch)
				}
			} else {
				x.item(p.Value, key+"."+p.Key, branch)
			}
		}
		return
	}
	s, ok := x.d.ScalarAt(n)
	if !ok || yamlspan.IsNull(n) {
		x.d.Fail(n, key, "expected a requirement, found %s", yamlspan.Kind(n))
		return
	}
	p, err := condaspec.Pin(s.Value, s.Start, nil)
	if err != nil {
		if !condaspec.IsFileOrURL(err) {
			x.d.Errs = append(x.d.Errs, x.d.ScalarError(s, key, err))
		}
		return
	}
	p = x.d.Place(p, s, key)
	condaspec.Locate(&p)
	p.Condition = cond
	x.out = append(x.out, p)
}
