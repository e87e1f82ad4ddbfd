// Package piximan reads the dependency tables of a pixi manifest
// (https://pixi.sh/latest/reference/pixi_manifest/) from the values of a TOML
// document: a pixi.toml (pins/pixi), or the [tool.pixi] tables of a
// pyproject.toml (pins/pyproject), which hold the same keys under a prefix.
package piximan

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/pelletier/go-toml/v2/unstable"

	"github.com/pinbot-dev/pinbot/internal/diag"
	"github.com/pinbot-dev/pinbot/pins"
	"github.com/pinbot-dev/pinbot/pins/internal/condaspec"
	"github.com/pinbot-dev/pinbot/pins/internal/tomlwalk"
	"github.com/pinbot-dev/pinbot/pins/matchspec"
	"github.com/pinbot-dev/pinbot/pins/pep508"
)

// depTables maps the dependency tables to whether they hold PyPI requirements.
var depTables = map[string]bool{
	"dependencies": false, "host-dependencies": false, "build-dependencies": false,
	"run-dependencies": false, "pypi-dependencies": true,
}

// depIndex returns the index of the dependency-table segment of key, when key
// is a dependency or one of its fields: a table of depTables after "", feature
// <f>, target <t>, feature <f> target <t>, package or package target <t>.
func depIndex(key []string) (int, bool) {
	prefix := func(i int) bool {
		p := key[:i]
		switch {
		case len(p) == 0:
			return key[i] != "run-dependencies"
		case len(p) == 1:
			return p[0] == "package" && key[i] != "pypi-dependencies"
		case len(p) == 2:
			return p[0] == "feature" || p[0] == "target"
		case len(p) == 3:
			return p[0] == "package" && p[1] == "target" && key[i] != "pypi-dependencies"
		case len(p) == 4:
			return p[0] == "feature" && p[2] == "target"
		}
		return false
	}
	for i := 0; i < len(key) && i <= 4; i++ {
		if _, ok := depTables[key[i]]; ok && prefix(i) && len(key) > i+1 {
			return i, true
		}
	}
	return 0, false
}

// A val is what Extract keeps of one value: the walker's nodes are reused
// from one expression to the next.
type val struct {
	kind  unstable.Kind
	str   tomlwalk.String
	isStr bool
	off   int // the offset of the value's token
}

// A dep is one dependency: its value when it is a string, or its table fields.
type dep struct {
	key    []string // the dependency's key path, name last
	table  int      // where the manifest's keys start in key (after a prefix)
	pypi   bool
	str    *val
	fields map[string]*val
	first  *val // the first value seen, for positions
}

// A Reader collects the dependencies of a manifest from the values of a
// TOML document, in the order tomlwalk visits them. Its keys are the
// manifest's under Prefix: none for pixi.toml, tool.pixi in a pyproject.
type Reader struct {
	prefix   []string
	deps     []*dep
	byKey    map[string]*dep
	channels []channel
}

// A channel is one entry of the manifest's channels list: its name, the
// offset of its token, its key and its priority (an inline table's
// priority key; 0 when it has none).
type channel struct {
	name     string
	off      int
	key      string
	priority int64
}

// New returns a Reader of the manifest whose keys start with prefix.
func New(prefix ...string) *Reader { return &Reader{prefix: prefix, byKey: map[string]*dep{}} }

// Visit takes one value of the document and reports whether it belongs to
// the manifest's channels or dependency tables.
func (r *Reader) Visit(d *tomlwalk.Doc, v tomlwalk.Value) bool {
	if len(v.Key) < len(r.prefix) || !slices.Equal(v.Key[:len(r.prefix)], r.prefix) {
		return false
	}
	key := v.Key[len(r.prefix):]
	if len(key) == 2 && (key[0] == "workspace" || key[0] == "project") && key[1] == "channels" {
		r.channels = channelNames(d, v.Node, strings.Join(v.Key, "."))
		return true
	}
	i, ok := depIndex(key)
	if !ok {
		return false
	}
	i += len(r.prefix)
	s, isStr := d.StringAt(v.Node)
	vl := &val{kind: v.Node.Kind, str: s, isStr: isStr, off: d.Offset(v.Node)}
	if it := v.Node.Children(); v.Node.Kind == unstable.Array && it.Next() {
		vl.off = d.Offset(it.Node()) // an array has no position of its own
	}
	id := strings.Join(v.Key[:i+2], "\x00")
	dp := r.byKey[id]
	if dp == nil {
		dp = &dep{key: v.Key[:i+2], table: len(r.prefix), pypi: depTables[v.Key[i]], fields: map[string]*val{}, first: vl}
		r.byKey[id] = dp
		r.deps = append(r.deps, dp)
	}
	if len(v.Key) == i+2 {
		dp.str = vl
	} else if _, dup := dp.fields[v.Key[i+2]]; !dup {
		dp.fields[v.Key[i+2]] = vl
	}
	return true
}

// Channels returns the workspace channels of the manifest in data, whose
// keys start with prefix, in order, as the pins of its conda dependencies
// name them (condaspec.Named): the channels a pins.ChannelNamer returns.
func Channels(path string, data []byte, prefix ...string) ([]string, error) {
	r := New(prefix...)
	err := tomlwalk.Walk(path, data, func(d *tomlwalk.Doc, v tomlwalk.Value) error {
		r.Visit(d, v)
		return nil
	})
	if err != nil {
		return nil, err
	}
	var names []string
	for _, ch := range r.channels {
		names = append(names, ch.name)
	}
	return condaspec.Named(names), nil
}

// Pins returns the pins of the dependencies visited, in the order first
// visited, and the errors of the dependencies that could not be read (each
// a skipped entry). Conda ones have Scheme "conda" and Source the table's
// channel, else the first of the workspace's channels, with those channels
// in Channels, else "conda" (and SourceAt where it is named); PyPI ones
// have Scheme "pep440" and Source "pypi".
func (r *Reader) Pins(path string, data []byte) ([]pins.Pin, diag.List) {
	x := &extractor{path: path, data: data, list: r.priority(data)}
	for _, dp := range r.deps {
		if p, ok := x.pin(dp); ok {
			p.Build, p.Condition = tableContext(dp.key[dp.table:])
			x.out = append(x.out, p)
		}
	}
	return x.out, x.errs
}

type extractor struct {
	path string
	data []byte
	list []pins.Channel // the workspace's channels, which conda pins follow
	out  []pins.Pin
	errs diag.List
}

// priority returns the workspace's channels (condaspec.List) in the order
// pixi gives them priority: a higher priority key first, and among equal
// ones (0 for a channel without one) the first written first.
func (r *Reader) priority(data []byte) []pins.Channel {
	sorted := slices.Clone(r.channels)
	slices.SortStableFunc(sorted, func(a, b channel) int { return cmp.Compare(b.priority, a.priority) })
	chs := make([]condaspec.Channel, len(sorted))
	for i, ch := range sorted {
		line, col := diag.Position(data, ch.off)
		chs[i] = condaspec.Channel{Name: ch.name, At: pins.Place{Line: line, Col: col, Key: ch.key}}
	}
	return condaspec.List(chs)
}

func (x *extractor) fail(v *val, key, format string, args ...any) {
	line, col := diag.Position(x.data, v.off)
	x.errs = append(x.errs, diag.Errorf(x.path, line, col, key, format, args...))
}

// channelNames returns the channels of a channels array, whose key is key:
// strings, or inline tables with a channel key.
func channelNames(d *tomlwalk.Doc, n *unstable.Node, key string) []channel {
	if n.Kind != unstable.Array {
		return nil
	}
	var out []channel
	for i, el := range tomlwalk.Elements(n) {
		k := fmt.Sprintf("%s[%d]", key, i)
		if s, ok := d.StringAt(el); ok {
			out = append(out, channel{name: s.Value, off: d.Offset(el), key: k})
			continue
		}
		if el.Kind == unstable.InlineTable {
			var ch channel
			it := el.Children()
			for it.Next() {
				kv := it.Node()
				kk := kv.Key()
				if !kk.Next() {
					continue
				}
				switch string(kk.Node().Data) {
				case "channel":
					if s, ok := d.StringAt(kv.Value()); ok {
						ch.name, ch.off, ch.key = s.Value, d.Offset(kv.Value()), k+".channel"
					}
				case "priority":
					if v := kv.Value(); v.Kind == unstable.Integer {
						// TOML integers: underscores between digits, 0x, 0o, 0b.
						ch.priority, _ = strconv.ParseInt(strings.ReplaceAll(string(v.Data), "_", ""), 0, 64)
					}
				}
			}
			if ch.key != "" {
				out = append(out, ch)
			}
		}
	}
	return out
}

// pin returns the pin of one dependency; ok is false after an error.
func (x *extractor) pin(dp *dep) (pins.Pin, bool) {
	label := strings.Join(dp.key, ".")
	name := dp.key[len(dp.key)-1]
	p := pins.Pin{Source: condaspec.First(x.list), Scheme: "conda", Package: matchspec.Normalize(name), Channels: x.list}
	if dp.pypi {
		p = pep508.Named(name)
	}
	p.File, p.Key = x.path, label
	if len(p.Channels) > 0 {
		p.SourceAt = p.Channels[0].At
	}
	v := dp.str
	if v == nil {
		v = dp.fields["version"]
		if ch, ok := dp.fields["channel"]; ok && ch.isStr && !dp.pypi {
			// That channel only, as pixi takes it.
			p.Source, p.Channels = condaspec.Source(ch.str.Value), nil
			line, col := diag.Position(x.data, ch.off)
			p.SourceAt = pins.Place{Line: line, Col: col, Key: label + ".channel"}
		}
	}
	if v == nil {
		// A table without a version: a source dependency, or one that takes
		// any version; a version key cannot be inserted in place.
		x.place(&p, dp.first.off, dp.first.off)
		p.Skip = "table without a version key"
		for _, k := range []string{"path", "git", "url"} {
			if _, ok := dp.fields[k]; ok {
				p.Skip = k + " dependency, not a version pin"
			}
		}
		return p, true
	}
	if !v.isStr {
		x.fail(v, label, "expected a version string, found %s", v.kind)
		return pins.Pin{}, false
	}
	s := v.str
	x.place(&p, v.off, s.Start)
	if s.Skip != "" {
		p.Skip = s.Skip
		return p, true
	}
	if _, ok := dp.fields["index"]; ok && dp.pypi {
		p.Skip = "custom package index: its releases are not PyPI's"
	}
	start, end, err := constraintSpan(s.Value, dp.pypi)
	if err != nil {
		line, col := diag.Position(x.data, v.off)
		x.errs = append(x.errs, &diag.Error{File: x.path, Line: line, Col: col, Key: label, Err: err})
		return pins.Pin{}, false
	}
	p.Constraint = s.Value[start:end]
	p.Span = pins.Span{Start: s.Start + start, End: s.Start + end}
	if !dp.pypi && p.Skip == "" {
		skipBuild(&p, dp, s)
	}
	if dp.pypi && p.Constraint == "*" && p.Skip == "" {
		p.Skip = `any version ("*"): not a PEP 440 specifier, so pinbot does not edit it`
	}
	return p, true
}

// skipBuild skips p, the pin of the conda dependency dp whose version
// string is s, when its build string, written after the version or given as
// the table's build key, names one build of the pinned version
// (condaspec.BuildSkip); a glob build stays, and the version moves.
func skipBuild(p *pins.Pin, dp *dep, s tomlwalk.String) {
	if b, ok := dp.fields["build"]; ok && b.isStr {
		if p.Skip = condaspec.BuildSkip(b.str.Value, p.Constraint); p.Skip != "" {
			return
		}
	}
	if sp, err := matchspec.Parse("x " + s.Value); err == nil {
		p.Skip = condaspec.BuildSkip(sp.Build, p.Constraint)
	}
}

// place sets the pin's Text to the line holding the value at offset off (from
// its first non-space byte, without a trailing comment), its Line and Col to
// where that text starts, and an empty Span at at, the offset of the value's
// text.
func (x *extractor) place(p *pins.Pin, off, at int) {
	data := x.data
	ls := off
	for ls > 0 && data[ls-1] != '\n' {
		ls--
	}
	for ls < off && (data[ls] == ' ' || data[ls] == '\t') {
		ls++
	}
	le := lineEnd(data, ls)
	p.Text, p.TextStart = string(data[ls:le]), ls
	p.Line, p.Col = diag.Position(data, ls)
	p.Span = pins.Span{Start: at, End: at}
	if at < ls || at > le {
		p.Span = pins.Span{Start: ls, End: ls}
	}
}

// lineEnd returns the end of the TOML line starting at ls, before a comment
// and trailing space.
func lineEnd(data []byte, ls int) int {
	i := ls
	for i < len(data) && data[i] != '\n' && data[i] != '#' {
		switch data[i] {
		case '"', '\'':
			q := data[i]
			i++
			for i < len(data) && data[i] != q && data[i] != '\n' {
				if q == '"' && data[i] == '\\' {
					i++
				}
				i++
			}
		}
		if i < len(data) && data[i] != '\n' {
			i++
		}
	}
	for i > ls && (data[i-1] == ' ' || data[i-1] == '\t' || data[i-1] == '\r') {
		i--
	}
	return i
}

// constraintSpan returns the span of the constraint in a dependency's version
// string: a MatchSpec version spec for conda ("*", ">=0.49", "1.2.* py*"), a
// PEP 440 specifier for PyPI ("*", ">=1,<2"). The constraint is the whole
// string but its spaces and a conda build string; "*" is kept as written.
func constraintSpan(v string, pypi bool) (int, int, error) {
	start := 0
	for start < len(v) && (v[start] == ' ' || v[start] == '\t') {
		start++
	}
	end := len(strings.TrimRight(v, " \t"))
	if start >= end || v[start:end] == "*" {
		start = min(start, end)
		return start, end, nil
	}
	if pypi {
		r, err := pep508.Parse("x" + v)
		if err != nil {
			return 0, 0, fmt.Errorf("invalid PyPI version specifier %q: %w", v, err)
		}
		if r.Marker != "" || r.URL != "" || len(r.Extras) > 0 {
			return 0, 0, fmt.Errorf("invalid PyPI version specifier %q: only a specifier may be given", v)
		}
		return r.SpecStart - 1, r.SpecEnd - 1, nil
	}
	sp, err := matchspec.Parse("x " + v)
	if err != nil {
		return 0, 0, fmt.Errorf("invalid conda version spec %q: %w", v, err)
	}
	if sp.Channel != "" || sp.Constraint == "" {
		return 0, 0, fmt.Errorf("invalid conda version spec %q", v)
	}
	return sp.ConstraintStart - 2, sp.ConstraintEnd - 2, nil
}

// tableContext says what a dependency's key (ending in table, package) means
// for drift: whether the table is needed to build rather than to run, and the
// feature and target it belongs to, which pixi installs only in some
// environments or on some platforms.
func tableContext(key []string) (build bool, condition string) {
	table := key[len(key)-2]
	build = table == "build-dependencies" || table == "host-dependencies"
	var parts []string
	for i := 0; i+1 < len(key)-2; i++ {
		if key[i] == "feature" || key[i] == "target" {
			parts = append(parts, key[i]+" "+key[i+1])
		}
	}
	return build, strings.Join(parts, ", ")
}
