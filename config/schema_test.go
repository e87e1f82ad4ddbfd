package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"go.yaml.in/yaml/v3"
)

// The JSON Schema of .pinbot.yml (pinbot.schema.json) is written by hand,
// for the descriptions editors show; these tests keep it what the loader
// is: the same keys at every level, the same types, the same enumerated
// values, and every example configuration valid.

const schemaFile = "pinbot.schema.json"

func readSchema(t *testing.T) map[string]any {
	t.Helper()
	data, err := os.ReadFile(schemaFile)
	if err != nil {
		t.Fatal(err)
	}
	var s map[string]any
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatalf("%s: %v", schemaFile, err)
	}
	return s
}

// A schemaWalk compares the loader's types with the schema.
type schemaWalk struct {
	t    *testing.T
	root map[string]any
	// enums are the enumerated values the schema gives, by key path in
	// the form enumDoc builds documents from.
	enums map[string][]string
}

// variants returns the schemas a value may match: s itself and the members
// of its anyOf or oneOf, with $ref resolved.
func (w *schemaWalk) variants(s map[string]any) []map[string]any {
	if ref, ok := s["$ref"].(string); ok {
		name, ok := strings.CutPrefix(ref, "#/$defs/")
		def, _ := w.root["$defs"].(map[string]any)[name].(map[string]any)
		if !ok || def == nil {
			w.t.Fatalf("unresolved $ref %s", ref)
		}
		return w.variants(def)
	}
	out := []map[string]any{s}
	for _, k := range []string{"anyOf", "oneOf"} {
		list, _ := s[k].([]any)
		for _, v := range list {
			out = append(out, w.variants(v.(map[string]any))...)
		}
	}
	return out
}

// find returns the first variant of s that ok accepts.
func (w *schemaWalk) find(s map[string]any, ok func(map[string]any) bool) map[string]any {
	for _, v := range w.variants(s) {
		if ok(v) {
			return v
		}
	}
	return nil
}

func hasType(v map[string]any, typ string) bool {
	switch t := v["type"].(type) {
	case string:
		return t == typ
	case []any:
		return slices.Contains(t, any(typ))
	}
	return false
}

// walk checks that the schema s describes values of type t at key path.
func (w *schemaWalk) walk(t reflect.Type, s map[string]any, path string) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case reflect.PointerTo(t).Implements(textUnmarshaler) && t.Kind() != reflect.Struct:
		// A string the type parses (a strategy, a duration, a size).
		if w.find(s, func(v map[string]any) bool { return hasType(v, "string") || v["enum"] != nil }) == nil {
			w.t.Errorf("%s: the loader reads a string; the schema has no string form", path)
		}
		w.enum(s, path)
	case t.Kind() == reflect.String:
		if w.find(s, func(v map[string]any) bool { return hasType(v, "string") || v["enum"] != nil }) == nil {
			w.t.Errorf("%s: the loader reads a string; the schema has no string form", path)
		}
		w.enum(s, path)
	case t.Kind() == reflect.Bool:
		if w.find(s, func(v map[string]any) bool { return hasType(v, "boolean") }) == nil {
			w.t.Errorf("%s: the loader reads true or false; the schema has no boolean form", path)
		}
	case t.Kind() == reflect.Int:
		if w.find(s, func(v map[string]any) bool { return hasType(v, "integer") }) == nil {
			w.t.Errorf("%s: the loader reads an integer; the schema has no integer form", path)
		}
	case t.Kind() == reflect.Slice:
		arr := w.find(s, func(v map[string]any) bool { return hasType(v, "array") })
		if arr == nil || arr["items"] == nil {
			w.t.Errorf("%s: the loader reads a list; the schema has no array form with items", path)
			return
		}
		w.walk(t.Elem(), arr["items"].(map[string]any), path+"[]")
		// The loader reads one string as a list of one, unless one is too
		// few (a group's members).
		if min, _ := arr["minItems"].(float64); t.Elem().Kind() == reflect.String && min < 2 &&
			w.find(s, func(v map[string]any) bool { return hasType(v, "string") || v["enum"] != nil }) == nil {
			w.t.Errorf("%s: the loader reads one string as a list of one; the schema does not", path)
		}
	case t.Kind() == reflect.Map:
		m := w.find(s, func(v map[string]any) bool { _, ok := v["additionalProperties"].(map[string]any); return ok })
		if m == nil || m["properties"] != nil {
			w.t.Errorf("%s: the loader reads a mapping of names; the schema has no additionalProperties schema", path)
			return
		}
		w.walk(t.Elem(), m["additionalProperties"].(map[string]any), path+".*")
	case t.Kind() == reflect.Struct:
		obj := w.find(s, func(v map[string]any) bool { return v["properties"] != nil })
		if obj == nil {
			w.t.Errorf("%s: the loader reads a mapping of keys; the schema has no properties", path)
			return
		}
		if obj["additionalProperties"] != false {
			w.t.Errorf("%s: unknown keys are errors; the schema must say additionalProperties: false", path)
		}
		props := obj["properties"].(map[string]any)
		index, names := structFields(t)
		schemaKeys := slices.Sorted(mapKeys(props))
		if loaderKeys := slices.Sorted(slices.Values(names)); !slices.Equal(loaderKeys, schemaKeys) {
			w.t.Errorf("%s: the loader's keys %v, the schema's %v", path, loaderKeys, schemaKeys)
		}
		for _, name := range names {
			p, ok := props[name].(map[string]any)
			if !ok {
				continue
			}
			sub := join(path, name)
			w.walk(t.Field(index[name]).Type, p, sub)
			if alt, ok := mappingField(t, index[name]); ok {
				w.walk(t.Field(alt).Type, p, sub)
			}
		}
	default:
		w.t.Errorf("%s: the test does not know %s", path, t)
	}
}

func mapKeys(m map[string]any) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// enum records the enumerated values the schema gives for the string at
// path, if any.
func (w *schemaWalk) enum(s map[string]any, path string) {
	v := w.find(s, func(v map[string]any) bool { return v["enum"] != nil })
	if v == nil {
		return
	}
	var vals []string
	for _, e := range v["enum"].([]any) {
		vals = append(vals, e.(string))
	}
	w.enums[path] = vals
}

// TestSchemaKeys: every key the loader knows is in the schema, at the same
// place and of the same type, and the schema has no other.
func TestSchemaKeys(t *testing.T) {
	w := &schemaWalk{t: t, root: readSchema(t), enums: map[string][]string{}}
	if id := w.root["$id"]; id != SchemaURL {
		t.Errorf("the schema's $id is %v, published at %s", id, SchemaURL)
	}
	w.walk(reflect.TypeFor[Config](), w.root, "")
	if len(w.enums) == 0 {
		t.Fatal("the schema has no enumerated value")
	}
}

// enumDoc returns a configuration setting the key path (as schemaWalk
// writes it: ".*" a name, "[]" a list entry) to value.
func enumDoc(path, value string) []byte {
	var build func(segs []string) any
	build = func(segs []string) any {
		if len(segs) == 0 {
			return value
		}
		seg := segs[0]
		if name, ok := strings.CutSuffix(seg, "[]"); ok {
			return map[string]any{name: []any{build(segs[1:])}}
		}
		if seg == "*" {
			return map[string]any{"x": build(segs[1:])}
		}
		return map[string]any{seg: build(segs[1:])}
	}
	doc := build(strings.Split(path, "."))
	if rest, ok := strings.CutPrefix(path, "packages.*."); ok && !strings.HasPrefix(rest, "probes") && !strings.HasPrefix(rest, "symbols") {
		// A package's early warning needs checks to run: give it one, which
		// the key tested does not depend on.
		pkg := doc.(map[string]any)["packages"].(map[string]any)["x"].(map[string]any)
		pkg["probes"] = []any{map[string]any{"preset": "numba-unique-ids"}}
	}
	out, _ := yaml.Marshal(doc)
	return out
}

// allowedRE finds the allowed values a loader's error lists.
var allowedRE = regexp.MustCompile(`\((?:expected one of|expected any of|known): ([^)]*)\)|expected ([a-z-]+(?:, [a-z-]+)* or [a-z-]+), found`)

// TestSchemaEnums: each enumerated value of the schema is the list the
// loader accepts: every value loads, and a value outside it is an error
// listing the same values.
func TestSchemaEnums(t *testing.T) {
	w := &schemaWalk{t: t, root: readSchema(t), enums: map[string][]string{}}
	w.walk(reflect.TypeFor[Config](), w.root, "")
	for path, vals := range w.enums {
		for _, v := range vals {
			if _, err := Parse("c.yml", enumDoc(path, v)); err != nil {
				t.Errorf("%s: %q is in the schema, and the loader says %v", path, v, err)
			}
		}
		_, err := Parse("c.yml", enumDoc(path, "no-such-value"))
		if err == nil {
			t.Errorf("%s: the schema enumerates %v, and the loader accepts any value", path, vals)
			continue
		}
		m := allowedRE.FindStringSubmatch(err.Error())
		if m == nil {
			t.Errorf("%s: the loader's error lists no values: %v", path, err)
			continue
		}
		list := strings.ReplaceAll(m[1]+m[2], " or ", ", ")
		if got := strings.Split(list, ", "); !sameSet(got, vals) {
			t.Errorf("%s: the loader accepts %v, the schema enumerates %v", path, got, vals)
		}
	}
}

func sameSet(a, b []string) bool {
	a, b = slices.Sorted(slices.Values(a)), slices.Sorted(slices.Values(b))
	return slices.Equal(a, b)
}

func compileSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	f, err := os.Open(schemaFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(schemaFile, doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(schemaFile)
	if err != nil {
		t.Fatalf("%s does not compile: %v", schemaFile, err)
	}
	return s
}

// validate checks a YAML document against the schema.
func validate(s *jsonschema.Schema, data []byte) error {
	var v any
	if err := yaml.Unmarshal(data, &v); err != nil {
		return err
	}
	j, err := json.Marshal(v)
	if err != nil {
		return err
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(j))
	if err != nil {
		return err
	}
	return s.Validate(inst)
}

var yamlBlockRE = regexp.MustCompile("(?s)```yaml\n(.*?)```")

// TestSchemaExamples: the example configurations (the README's and the
// manual's in docs/, the repository's own, what pinbot init writes)
// validate against the schema, and configurations the loader refuses for
// their keys or values do not.
func TestSchemaExamples(t *testing.T) {
	s := compileSchema(t)
	examples := map[string][]byte{}
	pages, err := filepath.Glob(filepath.Join("..", "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, page := range append([]string{filepath.Join("..", "README.md")}, pages...) {
		md, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for i, m := range yamlBlockRE.FindAllSubmatch(md, -1) {
			// The blocks the loader takes are configurations; the others are
			// workflows and excerpts.
			if _, err := Parse(page, m[1]); err == nil {
				examples[fmt.Sprintf("%s yaml block %d", page, i+1)] = m[1]
			}
		}
	}
	if len(examples) < 6 {
		t.Fatalf("only %d configurations in the README and docs/", len(examples))
	}
	if _, ok := examples[filepath.Join("..", "docs", "configuration.md")+" yaml block 1"]; !ok {
		t.Fatal("the example of every key, docs/configuration.md's first yaml block, does not load")
	}
	written, err := filepath.Glob("../cmd/pinbot/testdata/init*.golden") // what pinbot init writes
	if err != nil || len(written) < 2 {
		t.Fatalf("init's golden files: %v, %v", written, err)
	}
	for _, f := range append([]string{"../.github/pinbot-self.yml"}, written...) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Parse(f, data); err != nil {
			t.Fatalf("%s does not load: %v", f, err)
		}
		examples[f] = data
	}
	for name, data := range examples {
		if err := validate(s, data); err != nil {
			t.Errorf("%s does not validate against the schema: %v\n%s", name, err, data)
		}
	}
	for _, bad := range []string{
		"packages:\n  numba:\n    cpa: inclusive\n",
		"packages:\n  numba:\n    cap: sideways\n",
		"packages:\n  numba:\n    platforms: [linux-65]\n",
		"packages:\n  numba:\n    probes: [{preset: nope}]\n",
		"dashboard: maybe\n",
		"github: {token: abc}\n",
		"network: {attempt-timeout: soon}\n",
		"files: {includes: [x]}\n",
	} {
		if _, err := Parse("c.yml", []byte(bad)); err == nil {
			t.Errorf("the loader takes %q", bad)
		}
		if err := validate(s, []byte(bad)); err == nil {
			t.Errorf("the schema takes %q, which the loader refuses", bad)
		}
	}
}
