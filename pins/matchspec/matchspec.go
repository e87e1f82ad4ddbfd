// Package matchspec parses conda MatchSpec strings, the requirements of conda
// environment files, recipes and pixi manifests, keeping the byte span of the
// version constraint so that it can be replaced without touching the channel,
// name, build string or brackets around it.
//
// The grammar is conda's (conda/models/match_spec.py,
// https://github.com/conda/conda/blob/main/conda/models/match_spec.py, and
// https://docs.conda.io/projects/conda/en/latest/user-guide/concepts/pkg-specs.html),
// for the forms pin files use:
//
//	spec    = [ channel "::" ] name [ version-and-build ] [ brackets ] [ "#" comment ]
//	version-and-build = [ " " ] version [ ( " " | "=" ) build ]
//	brackets = "[" key "=" value { ( "," | " " ) key "=" value } "]"
//
// such as "numba", "numba >=0.59,<0.62", "numba>=0.59,<=0.61.2", "numba 0.61.*",
// "numba=0.61", "numba==0.61.0", "numba 0.61.0 py312h*", "numba=0.61.0=py312h*",
// "conda-forge::numba", "conda-forge/linux-64::numba" and
// "numba[version='>=1,<2']". The constraint is returned as written; its meaning
// is the conda version scheme's (versions/conda), which this package does not
// import. The version and build string are told apart as conda does: the build
// is the last word after a space or "=" that does not follow an operator, "," or
// "|", and has none of "-=,|<>~".
//
// Refused, with an *Error: templated specs ({{ … }}, {% … %}, ${{ … }}, which
// wrap ErrTemplated), quoted specs (unquoting is the file format's job),
// package files and URLs, "(key=value)" options, conditionals (" if "), a single
// ":" namespace, text after "]", and a version given both outside and inside the
// brackets.
package matchspec

import (
	"errors"
	"fmt"
	"strings"
)

// A Spec is a parsed MatchSpec. Offsets are byte positions in the parsed string.
type Spec struct {
	// Channel is the channel as written before "::", with any subdir
	// ("conda-forge/linux-64"), or the value of a channel key in brackets; ""
	// when there is none.
	Channel string
	// Name is the package name as written; see Normalize.
	Name string
	// Constraint is the version constraint as written, without surrounding space
	// or quotes ("" when there is none); ConstraintStart and ConstraintEnd are
	// its span.
	Constraint string
	// Build is the build string as written ("py312h*"), or the value of a build
	// key in brackets; "" when there is none.
	Build string
	// ConstraintStart and ConstraintEnd are the span of Constraint. With no
	// constraint the span is empty and marks where one would be inserted: right
	// after the name.
	ConstraintStart, ConstraintEnd int
	// Insert is what to put before a constraint inserted where there was none
	// (" ", as in "numba >=0.59"); it is "" when there is a constraint.
	Insert string
	// NameEnd is the offset just after the name; the text from there to
	// ConstraintStart joins the name and the version (" ", "=", "").
	NameEnd int
	// BuildStart and BuildEnd are the span of Build when it follows the
	// version ("py312h*" of "numba 0.61.0 py312h*"); both are 0 when there is
	// no build string or it is given in brackets.
	BuildStart, BuildEnd int
}

// An Error is a MatchSpec that does not parse, or that pinbot does not read;
// Offset is a byte position in Input.
type Error struct {
	Input  string
	Offset int
	Msg    string
	// Err is ErrTemplated for a templated spec, else nil.
	Err error
}

func (e *Error) Error() string {
	return fmt.Sprintf("invalid MatchSpec %q at offset %d: %s", e.Input, e.Offset, e.Msg)
}

// Unwrap returns e.Err.
func (e *Error) Unwrap() error { return e.Err }

// ErrTemplated is wrapped by the *Error for a spec with a Jinja or rattler-build
// template ("{{ pin_compatible('llvmlite') }}", "python >=${{ python_min }}"):
// it has no version until the recipe is rendered, so it is never edited. Test
// for it with errors.Is.
var ErrTemplated = errors.New("templated MatchSpec")

// Normalize returns the form of a conda package name that names compare in:
// lower case. Unlike PEP 503, "-", "_" and "." stay distinct: conda-forge has
// both typing-extensions and typing_extensions, and conda matches names after
// lower-casing them only.
func Normalize(name string) string { return strings.ToLower(name) }

// Parse parses one MatchSpec. Leading and trailing space, and a trailing "#"
// comment, are allowed. The text must be the spec itself, unquoted.
func Parse(s string) (Spec, error) {
	fail := func(off int, format string, args ...any) (Spec, error) {
		return Spec{}, &Error{Input: s, Offset: off, Msg: fmt.Sprintf(format, args...)}
	}
	if i := templateIndex(s); i >= 0 {
		return Spec{}, &Error{Input: s, Offset: i, Msg: "templated: it has no version until the recipe is rendered", Err: ErrTemplated}
	}
	end := len(s)
	if i := strings.IndexByte(s, '#'); i >= 0 {
		end = i // conda drops a comment
	}
	start := skipSpace(s, 0, end)
	end = trimSpace(s, start, end)
	switch {
	case start == end:
		return fail(start, "empty spec")
	case s[start] == '"' || s[start] == '\'':
		return fail(start, "quoted spec: pass the text inside the quotes (unquoting is the file format's job)")
	}
	body := s[start:end]
	if strings.HasSuffix(body, ".conda") || strings.HasSuffix(body, ".tar.bz2") || strings.Contains(body, "://") && !strings.Contains(body, "::") {
		return fail(start, "a package file or URL, not a requirement")
	}
	if i := strings.Index(body, " if "); i >= 0 {
		return fail(start+i+1, "conditional specs (\" if \") are not supported")
	}
	var sp Spec
	var br brackets
	if i := strings.IndexByte(body, '['); i >= 0 {
		var err error
		if br, err = parseBrackets(s, start+i, end); err != nil {
			return Spec{}, err
		}
		end = trimSpace(s, start, start+i)
	} else if i := strings.IndexByte(body, ']'); i >= 0 {
		return fail(start+i, "unexpected ']'")
	}
	if i := strings.IndexAny(s[start:end], "()"); i >= 0 {
		return fail(start+i, "\"(key=value)\" options are not supported")
	}

	// Channel: everything before the last "::".
	nameStart := start
	if i := strings.LastIndex(s[start:end], "::"); i >= 0 {
		sp.Channel = s[start : start+i]
		if sp.Channel == "" || strings.ContainsAny(sp.Channel, " \t") || strings.Contains(sp.Channel, "::") {
			return fail(start, "invalid channel %q", sp.Channel)
		}
		nameStart = start + i + 2
	} else if i := strings.IndexByte(s[start:end], ':'); i >= 0 {
		return fail(start+i, "a single ':' (a namespace) is not supported; a channel is followed by \"::\"")
	}

	// Name: up to a space or an operator, as conda's [^ =<>!~]+.
	pos := nameStart
	for pos < end && !strings.ContainsRune(" =<>!~", rune(s[pos])) {
		pos++
	}
	sp.Name = s[nameStart:pos]
	if sp.Name == "" {
		return fail(nameStart, "expected a package name")
	}
	for i := 0; i < len(sp.Name); i++ {
		if !isNameChar(sp.Name[i]) {
			return fail(nameStart+i, "invalid character %q in package name", sp.Name[i])
		}
	}
	sp.ConstraintStart, sp.ConstraintEnd, sp.NameEnd = pos, pos, pos

	// Version and build.
	vs := skipSpace(s, pos, end)
	if vs < end {
		ve, bs := splitBuild(s, vs, end)
		if bs >= 0 {
			sp.Build, sp.BuildStart, sp.BuildEnd = s[bs:end], bs, end
			// With a build string, conda reads "=1.2" as exactly 1.2, not 1.2.*:
			// the "=" is then a separator, not part of the constraint.
			if v := s[vs:ve]; len(v) > 1 && v[0] == '=' && v[1] != '=' && !strings.ContainsAny(v[1:], "=,|") {
				vs = skipSpace(s, vs+1, ve)
			}
		}
		sp.Constraint, sp.ConstraintStart, sp.ConstraintEnd = s[vs:ve], vs, ve
	}

	if br.version.ok {
		if sp.Constraint != "" {
			return fail(br.version.start, "version given both outside and inside the brackets")
		}
		sp.Constraint, sp.ConstraintStart, sp.ConstraintEnd = s[br.version.start:br.version.end], br.version.start, br.version.end
	}
	if br.build.ok {
		sp.Build = s[br.build.start:br.build.end]
		sp.BuildStart, sp.BuildEnd = 0, 0
	}
	if br.channel.ok {
		sp.Channel = s[br.channel.start:br.channel.end]
	}
	if sp.Constraint == "" {
		sp.Insert = " "
	}
	return sp, nil
}

// splitBuild splits s[vs:end] into a version and a build string as conda's
// _parse_version_plus_build does: the build follows the first space or "=" that
// has a version before it, does not follow one of "=!|,<>~", and leaves a build
// with none of "-=,|<>~". It returns the end of the version (trimmed) and the
// start of the build (trimmed), or -1 when there is no build.
func splitBuild(s string, vs, end int) (ve, bs int) {
	for i := vs + 1; i < end; i++ {
		if s[i] != ' ' && s[i] != '=' || strings.ContainsRune("=!|,<>~", rune(s[i-1])) {
			continue
		}
		b := skipSpace(s, i+1, end)
		if b == end || strings.ContainsAny(s[i+1:end], "-=,|<>~") {
			continue
		}
		return trimSpace(s, vs, i), b
	}
	return end, -1
}

// A span is the value of one bracket key, when ok.
type span struct {
	start, end int
	ok         bool
}

// brackets holds the bracket keys pinbot reads; the others are checked for
// form and ignored.
type brackets struct{ version, build, channel span }

// parseBrackets parses "[key=value, ...]" at s[open], which must close before
// end with nothing but space after it. Values may be quoted with ' or " (the
// span excludes space inside the quotes); unquoted ones end at "," or space.
func parseBrackets(s string, open, end int) (brackets, error) {
	fail := func(off int, format string, args ...any) (brackets, error) {
		return brackets{}, &Error{Input: s, Offset: off, Msg: fmt.Sprintf(format, args...)}
	}
	var br brackets
	pos := open + 1
	for {
		for pos < end && (isSpace(s[pos]) || s[pos] == ',') {
			pos++
		}
		if pos == end {
			return fail(open, "unclosed '['")
		}
		if s[pos] == ']' {
			break
		}
		ks := pos
		for pos < end && (isAlnum(s[pos]) || s[pos] == '_' || s[pos] == '-') {
			pos++
		}
		key := s[ks:pos]
		if key == "" || pos == end || s[pos] != '=' {
			return fail(ks, "expected key=value in brackets")
		}
		pos++
		var v span
		if pos < end && (s[pos] == '\'' || s[pos] == '"') {
			q := s[pos]
			n := strings.IndexByte(s[pos+1:end], q)
			if n < 0 {
				return fail(pos, "unclosed quote in brackets")
			}
			pos += 1 + n + 1
			vs := skipSpace(s, pos-1-n, pos-1)
			v = span{vs, trimSpace(s, vs, pos-1), true}
			if pos < end && s[pos] != ',' && !isSpace(s[pos]) && s[pos] != ']' {
				return fail(pos, "expected ',', ' ' or ']' after a quoted value")
			}
		} else {
			vs := pos
			for pos < end && !isSpace(s[pos]) && !strings.ContainsRune(",]'\"[", rune(s[pos])) {
				pos++
			}
			v = span{vs, pos, true}
		}
		if v.start == v.end {
			return fail(v.start, "empty value for %s in brackets", key)
		}
		var dst *span
		switch key {
		case "version":
			dst = &br.version
		case "build", "build_string":
			dst = &br.build
		case "channel":
			dst = &br.channel
		}
		if dst != nil {
			if dst.ok {
				return fail(ks, "%s given twice in brackets", key)
			}
			*dst = v
		}
	}
	if rest := skipSpace(s, pos+1, end); rest < end {
		return fail(rest, "unexpected text after ']'")
	}
	return br, nil
}

// templateIndex returns where a Jinja ({{ }}, {% %}, {# #}) or rattler-build
// (${{ }}) template starts in s, or -1.
func templateIndex(s string) int {
	i := -1
	for _, open := range []string{"{{", "{%", "{#"} {
		if j := strings.Index(s, open); j >= 0 && (i < 0 || j < i) {
			i = j
		}
	}
	if i > 0 && s[i-1] == '$' {
		i--
	}
	return i
}

func skipSpace(s string, i, end int) int {
	for i < end && isSpace(s[i]) {
		i++
	}
	return i
}

func trimSpace(s string, start, end int) int {
	for end > start && isSpace(s[end-1]) {
		end--
	}
	return end
}

// isSpace reports whether b is ASCII white space, which conda strips.
func isSpace(b byte) bool {
	return b == ' ' || b == '\t' || b == '\n' || b == '\r' || b == '\v' || b == '\f'
}

func isAlnum(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9'
}

// isNameChar reports whether b may appear in a conda package name.
func isNameChar(b byte) bool { return isAlnum(b) || b == '-' || b == '_' || b == '.' }
