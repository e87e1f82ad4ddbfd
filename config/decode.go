package config

import (
	"encoding"
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"

	"github.com/pinbot-dev/pinbot/internal/diag"
)

// A validator checks a decoded value; the decoder reports its error at the
// value's position.
type validator interface{ Validate() error }

// decoder turns YAML nodes into Go values strictly: unknown keys, wrong types and
// bad values are errors naming the file, line, column and dotted key path.
// Structs are described by `yaml:"key"` tags; fields tagged "-" are skipped.
type decoder struct {
	file  string
	errs  diag.List
	depth int
	// pos records where each key path was written (an alias's own place
	// for everything under it), for errors found after decoding.
	pos     map[string][2]int
	inAlias int
}

// maxDepth bounds nesting, which also stops alias cycles (&a [*a]).
const maxDepth = 64

// MaxAliasNodes is the most nodes YAML aliases may add to a configuration
// once expanded: an alias (*name) stands for a copy of its anchor's whole
// subtree, so a few KB of aliases to aliases can stand for millions of
// nodes, and decoding would cost what the expansion says, not what the file
// says. A real configuration that shares a probe list among its packages
// adds a few thousand.
const MaxAliasNodes = 100_000

// checkAliases counts, before anything is decoded, the nodes the aliases of
// the document n add when expanded, in document order, and stops with an
// error at the alias that takes the count past MaxAliasNodes. It costs one
// walk of the document: each anchor's expanded size is computed once.
func checkAliases(file string, n *yaml.Node) error {
	a := &aliasCounter{sizes: map[*yaml.Node]int{}}
	a.walk(n, "")
	if a.err != nil {
		return diag.Errorf(file, a.at.Line, a.at.Column, a.key, "%v", a.err)
	}
	return nil
}

type aliasCounter struct {
	sizes map[*yaml.Node]int // expanded sizes, saturated at MaxAliasNodes+1; -1 while being computed
	added int
	err   error
	at    *yaml.Node
	key   string
}

// walk visits the document's own nodes once, adding each alias's expansion.
func (a *aliasCounter) walk(n *yaml.Node, key string) {
	if a.err != nil || n == nil {
		return
	}
	switch n.Kind {
	case yaml.AliasNode:
		size := a.size(n.Alias)
		if size < 0 {
			a.err, a.at, a.key = fmt.Errorf("alias *%s refers to a node that contains it", n.Value), n, key
			return
		}
		if a.added += size; a.added > MaxAliasNodes {
			a.err, a.at, a.key = fmt.Errorf("aliases expand the configuration past %d nodes (this one, *%s, adds %d): write the values out or share fewer", MaxAliasNodes, n.Value, size), n, key
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			a.walk(n.Content[i], key)
			a.walk(n.Content[i+1], join(key, n.Content[i].Value))
		}
	default:
		for i, c := range n.Content {
			k := key
			if n.Kind == yaml.SequenceNode {
				k = fmt.Sprintf("%s[%d]", key, i)
			}
			a.walk(c, k)
		}
	}
}

// size returns the number of nodes n stands for with its aliases expanded,
// at most MaxAliasNodes+1, or -1 for a node that contains itself.
func (a *aliasCounter) size(n *yaml.Node) int {
	if n == nil {
		return 0
	}
	if s, ok := a.sizes[n]; ok {
		return s
	}
	a.sizes[n] = -1
	total := 1
	if n.Kind == yaml.AliasNode {
		total = a.size(n.Alias)
	} else {
		for _, c := range n.Content {
			s := a.size(c)
			if s < 0 {
				total = -1
				break
			}
			total = min(total+s, MaxAliasNodes+1)
		}
	}
	a.sizes[n] = total
	return total
}

func (d *decoder) errorf(n *yaml.Node, key, format string, args ...any) {
	d.errs = append(d.errs, diag.Errorf(d.file, n.Line, n.Column, key, format, args...))
}

var textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()

// decode sets v (addressable) from n; key is the path used in errors.
func (d *decoder) decode(n *yaml.Node, v reflect.Value, key string) {
	d.depth++
	defer func() { d.depth-- }()
	if d.depth > maxDepth {
		d.errorf(n, key, "nested too deeply")
		return
	}
	if d.pos != nil && d.inAlias == 0 {
		d.pos[key] = [2]int{n.Line, n.Column}
	}
	if n.Kind == yaml.AliasNode {
		n = n.Alias
		d.inAlias++
		defer func() { d.inAlias-- }()
	}
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return // an empty value keeps the default
	}
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		d.decode(n, v.Elem(), key)
		return
	}
	before := len(d.errs)
	switch {
	case reflect.PointerTo(v.Type()).Implements(textUnmarshaler) && v.Kind() != reflect.Struct:
		if d.scalar(n, key, "a string") {
			if err := v.Addr().Interface().(encoding.TextUnmarshaler).UnmarshalText([]byte(n.Value)); err != nil {
				d.errorf(n, key, "%v", err)
			}
		}
	case v.Kind() == reflect.String:
		if d.scalar(n, key, "a string") {
			v.SetString(n.Value)
		}
	case v.Kind() == reflect.Bool:
		if d.scalar(n, key, "true or false") {
			b, err := strconv.ParseBool(n.Value)
			if err != nil || n.Tag != "!!bool" {
				d.errorf(n, key, "expected true or false, found %q", n.Value)
				return
			}
			v.SetBool(b)
		}
	case v.Kind() == reflect.Int:
		if d.scalar(n, key, "an integer") {
			i, err := strconv.Atoi(n.Value)
			if err != nil || n.Tag != "!!int" {
				d.errorf(n, key, "expected an integer, found %q", n.Value)
				return
			}
			v.SetInt(int64(i))
		}
	case v.Kind() == reflect.Slice:
		d.sequence(n, v, key)
	case v.Kind() == reflect.Map:
		d.mapping(n, v, key)
	case v.Kind() == reflect.Struct:
		d.structure(n, v, key)
	default:
		panic(fmt.Sprintf("config: cannot decode into %s", v.Type()))
	}
	if len(d.errs) == before && v.CanAddr() {
		if val, ok := v.Addr().Interface().(validator); ok {
			if err := val.Validate(); err != nil {
				at, k, msg := locate(n, key, err.Error())
				d.errorf(at, k, "%s", msg)
			}
		}
	}
}

// validatedKeyRE matches the key path a Validate error starts with
// ("yanked: ...", "wheel.platform: ...", "forbid[1]: ..."). Compiled
// when first used: only a bad config needs it.
var validatedKeyRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^([A-Za-z0-9_-]+)((?:\[\d+\])*)(\.|: )`) })

// locate moves a Validate error of the value n, at key, to the value it is
// about, so that the error's line and column point at the bad value, not
// at the mapping that holds it: "yanked: unknown value" at packages.numba
// becomes "unknown value" at packages.numba.yanked. It follows the key path
// the message starts with as far as the document has it.
func locate(n *yaml.Node, key, msg string) (*yaml.Node, string, string) {
	for {
		m := validatedKeyRE().FindStringSubmatch(msg)
		if m == nil {
			return n, key, msg
		}
		child := mappingValue(resolve(n), m[1])
		if child == nil {
			return n, key, msg
		}
		sub := join(key, m[1])
		for _, idx := range strings.Split(strings.Trim(m[2], "[]"), "][") {
			i, err := strconv.Atoi(idx)
			if c := resolve(child); err == nil && c.Kind == yaml.SequenceNode && i < len(c.Content) {
				child, sub = c.Content[i], fmt.Sprintf("%s[%d]", sub, i)
			}
		}
		n, key, msg = child, sub, msg[len(m[0]):]
		if m[3] == ": " {
			return n, key, msg
		}
	}
}

// mappingValue returns the value of key in the mapping n, or nil.
func mappingValue(n *yaml.Node, key string) *yaml.Node {
	if n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

func (d *decoder) scalar(n *yaml.Node, key, want string) bool {
	if n.Kind != yaml.ScalarNode {
		d.errorf(n, key, "expected %s, found %s", want, kindName(n))
		return false
	}
	return true
}

func (d *decoder) sequence(n *yaml.Node, v reflect.Value, key string) {
	if n.Kind == yaml.ScalarNode && v.Type().Elem().Kind() == reflect.String {
		// A single string where a list is expected is a list of one.
		v.Set(reflect.Append(reflect.MakeSlice(v.Type(), 0, 1), reflect.ValueOf(n.Value).Convert(v.Type().Elem())))
		return
	}
	if n.Kind != yaml.SequenceNode {
		d.errorf(n, key, "expected a list, found %s", kindName(n))
		return
	}
	s := reflect.MakeSlice(v.Type(), len(n.Content), len(n.Content))
	for i, item := range n.Content {
		d.decode(item, s.Index(i), fmt.Sprintf("%s[%d]", key, i))
	}
	v.Set(s)
}

func (d *decoder) mapping(n *yaml.Node, v reflect.Value, key string) {
	if n.Kind != yaml.MappingNode {
		d.errorf(n, key, "expected a mapping, found %s", kindName(n))
		return
	}
	if v.Type().Key().Kind() != reflect.String {
		panic("config: map keys must be strings")
	}
	if v.IsNil() {
		v.Set(reflect.MakeMap(v.Type()))
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := n.Content[i], n.Content[i+1]
		sub := join(key, k.Value)
		if k.Kind != yaml.ScalarNode || k.Value == "" {
			d.errorf(k, key, "expected a name as key")
			continue
		}
		if v.MapIndex(reflect.ValueOf(k.Value)).IsValid() {
			d.errorf(k, sub, "duplicate key")
			continue
		}
		elem := reflect.New(v.Type().Elem()).Elem()
		d.decode(val, elem, sub)
		v.SetMapIndex(reflect.ValueOf(k.Value).Convert(v.Type().Key()), elem)
	}
}

func (d *decoder) structure(n *yaml.Node, v reflect.Value, key string) {
	if n.Kind != yaml.MappingNode {
		d.errorf(n, key, "expected a mapping, found %s", kindName(n))
		return
	}
	fields, names := structFields(v.Type())
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := n.Content[i], n.Content[i+1]
		sub := join(key, k.Value)
		idx, ok := fields[k.Value]
		switch {
		case !ok:
			d.errorf(k, sub, "unknown key (known keys: %s)", strings.Join(names, ", "))
			continue
		case seen[k.Value]:
			d.errorf(k, sub, "duplicate key")
			continue
		}
		seen[k.Value] = true
		if alt, ok := mappingField(v.Type(), idx); ok && resolve(val).Kind == yaml.MappingNode {
			// The key's other form (files: {include, exclude} beside files: [...]).
			d.decode(val, v.Field(alt), sub)
			continue
		}
		d.decode(val, v.Field(idx), sub)
	}
}

// resolve returns the node an alias stands for, or n.
func resolve(n *yaml.Node) *yaml.Node {
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		return n.Alias
	}
	return n
}

// mappingField returns the field that takes the value of field idx of t when
// that value is a mapping, as the tag option "mapping=Field" names it
// (`yaml:"files,mapping=FileGlobs"`): one key, two forms.
func mappingField(t reflect.Type, idx int) (int, bool) {
	_, opts, _ := strings.Cut(t.Field(idx).Tag.Get("yaml"), ",")
	for _, o := range strings.Split(opts, ",") {
		if name, ok := strings.CutPrefix(o, "mapping="); ok {
			if f, ok := t.FieldByName(name); ok && len(f.Index) == 1 {
				return f.Index[0], true
			}
		}
	}
	return 0, false
}

// fieldCache holds structFields's answers: a configuration decodes the same
// few struct types thousands of times (a probe list shared by aliases).
var fieldCache sync.Map // reflect.Type -> fieldTable

type fieldTable struct {
	index map[string]int
	names []string
}

// structFields returns the fields of t by yaml tag, and the tags in order.
func structFields(t reflect.Type) (map[string]int, []string) {
	if ft, ok := fieldCache.Load(t); ok {
		return ft.(fieldTable).index, ft.(fieldTable).names
	}
	ft := fieldTable{index: map[string]int{}}
	for i := range t.NumField() {
		tag, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ",")
		if tag == "" || tag == "-" {
			continue
		}
		ft.index[tag] = i
		ft.names = append(ft.names, tag)
	}
	fieldCache.Store(t, ft)
	return ft.index, ft.names
}

func join(prefix, k string) string {
	if prefix == "" {
		return k
	}
	return prefix + "." + k
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		return fmt.Sprintf("%q", n.Value)
	}
	return "something else"
}
