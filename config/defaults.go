package config

import (
	"fmt"

	"go.yaml.in/yaml/v3"

	"github.com/pinbot-dev/pinbot/internal/repofs"
)

// Fleet defaults: a .pinbot.yml-shaped file every repository of a fleet
// inherits (pinbot fleet plan, check and run --defaults FILE). The merge works
// on the YAML trees before the strict decoding, so that every key, today's and
// those added later, merges the same way without code of its own:
//
//   - a mapping merges key by key, recursively: a key only one file has is
//     kept, and for a key both have the repository's value wins, merged in
//     turn when both are mappings;
//   - any other value in the repository's file (a string, a number, a list)
//     replaces the default whole: lists are not concatenated;
//   - an empty value (`numba:` or `~`) says nothing and keeps the default;
//   - package names (the keys of packages and pull-requests.packages) match
//     in their normalised form, so Numba in one file is numba in the other.
//
// So the packages of both files are watched, and a repository overrides one
// setting of a package without repeating the others.

// nameMaps are the mappings keyed by package names.
var nameMaps = map[string]bool{"packages": true, "pull-requests.packages": true}

// LoadWithDefaults reads the fleet defaults file and the repository's
// configuration at path ("" when the repository has none) and returns their
// merge, the repository's file overriding the defaults key by key. Each file
// is first checked alone, so an error names the file it is in.
func LoadWithDefaults(defaults, path string) (*Config, error) {
	var data []byte
	if path != "" {
		var err error
		if data, err = repofs.ReadFile(path); err != nil {
			return nil, err
		}
	}
	return loadDefaults(defaults, path, data)
}

// LoadInWithDefaults is LoadWithDefaults for the configuration FindIn found
// in repo, name ("" for none), named file in errors.
func LoadInWithDefaults(defaults string, repo *repofs.Root, name, file string) (*Config, error) {
	if name == "" {
		return loadDefaults(defaults, "", nil)
	}
	data, err := repo.ReadFile(name)
	if err != nil {
		return nil, err
	}
	return loadDefaults(defaults, file, data)
}

// loadDefaults reads the defaults file (the user's own, read wherever it
// is) and merges data, read from file, over it.
func loadDefaults(defaults, file string, data []byte) (*Config, error) {
	dd, err := repofs.ReadFile(defaults)
	if err != nil {
		return nil, fmt.Errorf("--defaults: %w", err)
	}
	return ParseWithDefaults(defaults, dd, file, data)
}

// ParseWithDefaults is LoadWithDefaults on data already read: defaults from
// defFile, the repository's configuration from file ("" for none).
func ParseWithDefaults(defFile string, defaults []byte, file string, data []byte) (*Config, error) {
	base, err := parseYAML(defFile, defaults)
	if err != nil {
		return nil, err
	}
	defaultsAlone, err := fromYAML(defFile, base)
	if err != nil || file == "" {
		return defaultsAlone, err
	}
	over, err := parseYAML(file, data)
	if err != nil {
		return nil, err
	}
	if _, err := decodeYAML(file, over); err != nil {
		return nil, err
	}
	merged := &yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{mergeYAML(root(base), root(over), "", 0)}}
	if merged.Content[0] == nil {
		merged.Content = nil
	}
	c, err := fromYAML(file+" (over the defaults in "+defFile+")", merged)
	if err != nil {
		return nil, err
	}
	c.File = file
	return c, nil
}

// root returns a document's top node, or nil for an empty document.
func root(doc *yaml.Node) *yaml.Node {
	if len(doc.Content) == 0 {
		return nil
	}
	return doc.Content[0]
}

// isNull reports whether n says nothing: absent, or an empty value.
func isNull(n *yaml.Node) bool {
	return n == nil || (n.Kind == yaml.ScalarNode && n.Tag == "!!null")
}

// mergeYAML returns over laid on base, as the comment at the top of this file
// says; key is the dotted path, for nameMaps. Neither tree is modified.
func mergeYAML(base, over *yaml.Node, key string, depth int) *yaml.Node {
	if base != nil && base.Kind == yaml.AliasNode {
		base = base.Alias
	}
	if over != nil && over.Kind == yaml.AliasNode {
		over = over.Alias
	}
	switch {
	case isNull(over):
		return base
	case base == nil || base.Kind != yaml.MappingNode || over.Kind != yaml.MappingNode || depth >= maxDepth:
		return over
	}
	same := func(a, b string) bool { return a == b }
	if nameMaps[key] {
		same = func(a, b string) bool { return Key(a) == Key(b) }
	}
	out := &yaml.Node{Kind: yaml.MappingNode, Tag: base.Tag, Style: base.Style, Line: base.Line, Column: base.Column}
	out.Content = append(out.Content, base.Content...)
	for i := 0; i+1 < len(over.Content); i += 2 {
		k, v := over.Content[i], over.Content[i+1]
		found := -1
		for j := 0; j+1 < len(out.Content); j += 2 {
			if out.Content[j].Kind == yaml.ScalarNode && k.Kind == yaml.ScalarNode && same(out.Content[j].Value, k.Value) {
				found = j
				break
			}
		}
		if found < 0 {
			out.Content = append(out.Content, k, v)
			continue
		}
		merged := mergeYAML(out.Content[found+1], v, join(key, k.Value), depth+1)
		if merged != out.Content[found+1] {
			// The repository's spelling of the key wins with its value.
			out.Content[found], out.Content[found+1] = k, merged
		}
	}
	return out
}
