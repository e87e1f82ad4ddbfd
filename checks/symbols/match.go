package symbols

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// A Pattern is one compiled forbid pattern.
//
// A pattern that starts with "_Z" is mangled: it matches the mangled names it
// is a prefix of ("_ZN6google8protobuf"), or that it matches as a glob when it
// has wildcards. Any other pattern is a demangled glob: "*" matches any run of
// characters (including "::"), "?" one character, "[...]" a class, and "\"
// quotes the next character. A demangled glob matches a symbol when it matches
// the demangled name, the name without a leading "vtable for ", "typeinfo for ",
// "non-virtual thunk to " (and similar) prefix, or the name without its
// parameters and return type. So "google::protobuf::*" matches
// "vtable for google::protobuf::Message" and
// "void google::protobuf::io::Printer::Print<char [5]>(char const*, char const (&) [5])",
// but not "std::vector<google::protobuf::Message*>::~vector()" (use
// "*google::protobuf::*" for that). C names match as they are.
type Pattern struct {
	text    string
	mangled bool
	// prefix is set when the pattern has the form "a::b::*": the qualified
	// name of the symbol's entity must start with these components. Such
	// patterns are matched on the mangled name without demangling.
	prefix []string
	// lit is the pattern's literal head, before the first wildcard; a name
	// matched as it is (a C name, or a mangled pattern) must start with it.
	lit string
	// litPrefix and litExact say the pattern is lit followed by "*" (or a
	// mangled pattern with no wildcard), or lit alone: no regexp needed.
	litPrefix, litExact bool
	// need is a substring every mangled name matching the pattern contains
	// ("8protobuf"); "" if none is known. It spares demangling.
	need string
	re   *regexp.Regexp
}

// String returns the pattern as written.
func (p *Pattern) String() string { return p.text }

// Match reports whether the symbol name (mangled, as in .dynsym) matches p.
func (p *Pattern) Match(name string) bool {
	hits := []bool{false}
	return newMatcher([]*Pattern{p}).match(name, hits)
}

// CompilePattern compiles one forbid pattern, or says what is wrong with it.
func CompilePattern(text string) (*Pattern, error) {
	if strings.TrimSpace(text) == "" {
		return nil, errors.New("empty pattern (expected a demangled glob such as google::protobuf::* or a mangled prefix such as _ZN6google8protobuf)")
	}
	if text != strings.TrimSpace(text) {
		return nil, fmt.Errorf("pattern %q has leading or trailing spaces", text)
	}
	p := &Pattern{text: text, mangled: strings.HasPrefix(text, "_Z")}
	expr, lit, err := globRegexp(text)
	if err != nil {
		return nil, fmt.Errorf("bad glob %q: %v (expected * ? [...] and \\ quoting)", text, err)
	}
	if strings.Trim(text, "*?") == "" {
		return nil, fmt.Errorf("pattern %q matches every symbol (expected a namespace glob such as google::protobuf::*)", text)
	}
	if p.mangled && !strings.HasSuffix(expr, ".*") {
		expr += ".*" // a mangled pattern is a prefix
	}
	p.re = regexp.MustCompile("^(?s:" + expr + ")$")
	p.lit = lit
	switch {
	case !strings.ContainsAny(text, "*?[\\"):
		p.litExact, p.litPrefix = !p.mangled, p.mangled
	case strings.HasSuffix(text, "*") && !strings.ContainsAny(text[:len(text)-1], "*?[\\"):
		p.litPrefix = true
	}
	if !p.mangled {
		p.prefix = prefixComponents(text)
		p.need = neededSubstring(text)
	}
	return p, nil
}

// globRegexp translates a glob into a regular expression and returns its
// literal head.
func globRegexp(glob string) (expr, lit string, err error) {
	var b strings.Builder
	var head strings.Builder
	inHead := true
	for i := 0; i < len(glob); i++ {
		c := glob[i]
		switch c {
		case '*':
			b.WriteString(".*")
			inHead = false
		case '?':
			b.WriteString(".")
			inHead = false
		case '\\':
			if i+1 == len(glob) {
				return "", "", errors.New("trailing \\")
			}
			i++
			b.WriteString(regexp.QuoteMeta(glob[i : i+1]))
			if inHead {
				head.WriteByte(glob[i])
			}
		case '[':
			end := strings.IndexByte(glob[i+1:], ']')
			if end == 0 && i+2 < len(glob) { // "[]...]": ']' first is literal
				end = strings.IndexByte(glob[i+2:], ']') + 1
				if end == 0 {
					end = -1
				}
			}
			if end < 0 {
				return "", "", errors.New("unterminated [")
			}
			class := glob[i+1 : i+1+end]
			neg := strings.HasPrefix(class, "!") || strings.HasPrefix(class, "^")
			if neg {
				class = class[1:]
			}
			if class == "" {
				return "", "", errors.New("empty []")
			}
			b.WriteByte('[')
			if neg {
				b.WriteByte('^')
			}
			for j := 0; j < len(class); j++ {
				if class[j] == '\\' || class[j] == '[' || class[j] == ']' {
					b.WriteByte('\\')
				}
				b.WriteByte(class[j])
			}
			b.WriteByte(']')
			if _, err := regexp.Compile(b.String()[strings.LastIndexByte(b.String(), '['):]); err != nil {
				return "", "", fmt.Errorf("bad class [%s]", glob[i+1:i+1+end])
			}
			i += end + 1
			inHead = false
		default:
			b.WriteString(regexp.QuoteMeta(glob[i : i+1]))
			if inHead {
				head.WriteByte(c)
			}
		}
	}
	return b.String(), head.String(), nil
}

// prefixComponents returns [a b] for a glob "a::b::*" whose components are
// plain identifiers, and nil for any other glob.
func prefixComponents(glob string) []string {
	body, ok := strings.CutSuffix(glob, "::*")
	if !ok || body == "" {
		return nil
	}
	comps := strings.Split(body, "::")
	if len(comps) >= maxDepth {
		return nil
	}
	for _, c := range comps {
		if !isIdent(c) {
			return nil
		}
	}
	return comps
}

func isIdent(s string) bool {
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// spelledDifferently are identifiers that can appear in a demangled name
// without being spelled <length><identifier> in the mangled one: builtin types
// and qualifiers, operator names, std:: abbreviations, the words of special
// names ("vtable for") and the anonymous namespace.
var spelledDifferently = map[string]bool{
	"void": true, "bool": true, "char": true, "signed": true, "unsigned": true, "short": true,
	"int": true, "long": true, "float": true, "double": true, "wchar_t": true, "char8_t": true,
	"char16_t": true, "char32_t": true, "__int128": true, "__float128": true, "const": true,
	"volatile": true, "restrict": true, "operator": true, "new": true, "delete": true,
	"decltype": true, "auto": true, "nullptr_t": true, "std": true, "allocator": true,
	"basic_string": true, "string": true, "char_traits": true, "basic_istream": true,
	"basic_ostream": true, "basic_iostream": true, "istream": true, "ostream": true,
	"iostream": true, "vtable": true, "typeinfo": true, "name": true, "for": true, "to": true,
	"thunk": true, "virtual": true, "guard": true, "variable": true, "construction": true,
	"VTT": true, "covariant": true, "return": true, "anonymous": true, "namespace": true,
	"lambda": true, "unnamed": true, "abi": true, "clone": true, "TLS": true, "init": true,
	"function": true, "wrapper": true, "reference": true, "temporary": true, "transaction": true,
	"in": true,
}

// neededSubstring returns the mangled spelling "<len><id>" of the longest
// identifier the glob certainly contains, or "" if it has none usable.
func neededSubstring(glob string) string {
	best := ""
	for i := 0; i < len(glob); {
		if !isIdentByte(glob[i]) {
			i++
			continue
		}
		j := i
		for j < len(glob) && isIdentByte(glob[j]) {
			j++
		}
		// The identifier must be complete: not next to a wildcard or escape.
		whole := (i == 0 || !isWild(glob[i-1])) && (j == len(glob) || !isWild(glob[j]))
		id := glob[i:j]
		if whole && isIdent(id) && !spelledDifferently[id] && len(id) > len(best) {
			best = id
		}
		i = j
	}
	if best == "" {
		return ""
	}
	return strconv.Itoa(len(best)) + best
}

func isIdentByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func isWild(c byte) bool { return c == '*' || c == '?' || c == '[' || c == ']' || c == '\\' }

// A matcher matches names against a list of patterns, demangling only the
// names that no cheaper test can decide.
type matcher struct {
	pats  []*Pattern
	depth int // the longest prefix, in components
	// demangled caches the demangled forms of names that needed them.
	demangled map[string][]string
}

func newMatcher(pats []*Pattern) *matcher {
	m := &matcher{pats: pats, demangled: map[string][]string{}}
	for _, p := range pats {
		m.depth = max(m.depth, len(p.prefix))
	}
	return m
}

// match sets hits[i] for each pattern i that name matches and reports
// whether any did.
func (m *matcher) match(name string, hits []bool) bool {
	any := false
	var ent entity
	parsed := false
	mangledName := strings.HasPrefix(name, "_Z")
	for i, p := range m.pats {
		hits[i] = false
		switch {
		case p.mangled && !mangledName:
			continue
		case p.mangled || !mangledName: // a C name demangles to itself
			hits[i] = p.matchLiteral(name)
		case p.prefix != nil:
			// The name's leading components, read once (parseEntity looks
			// at its first few bytes), decide every prefix pattern: cheaper
			// than searching the whole name for each pattern's identifier.
			if !parsed {
				ent = parseEntity(name, m.depth+1)
				parsed = true
			}
			if ent.ok {
				hits[i] = ent.hasPrefix(p.prefix)
				break
			}
			// The glob's longest identifier is spelled out in every name
			// it matches (see neededSubstring): most names that cannot be
			// parsed are decided without demangling them.
			if p.need != "" && !strings.Contains(name, p.need) {
				continue
			}
			hits[i] = m.matchDemangled(p, name)
		default:
			if p.need != "" && !strings.Contains(name, p.need) {
				continue
			}
			hits[i] = m.matchDemangled(p, name)
		}
		any = any || hits[i]
	}
	return any
}

// matchLiteral matches name as it is.
func (p *Pattern) matchLiteral(name string) bool {
	switch {
	case !strings.HasPrefix(name, p.lit):
		return false
	case p.litPrefix:
		return true
	case p.litExact:
		return name == p.lit
	}
	return p.re.MatchString(name)
}

func (m *matcher) matchDemangled(p *Pattern, name string) bool {
	forms, ok := m.demangled[name]
	if !ok {
		forms = demangledForms(name)
		m.demangled[name] = forms
	}
	for _, f := range forms {
		if p.re.MatchString(f) {
			return true
		}
	}
	return false
}

// specialPrefixes are the words demangling puts in front of special names.
var specialPrefixes = []string{
	"vtable for ", "typeinfo for ", "typeinfo name for ", "VTT for ", "construction vtable for ",
	"guard variable for ", "non-virtual thunk to ", "virtual thunk to ",
	"covariant return thunk to ", "TLS init function for ", "TLS wrapper function for ",
	"transaction clone for ", "reference temporary for ",
}

// demangledForms returns the forms a demangled glob is tried on: the
// demangled name, the same without a special prefix ("vtable for "), and the
// name alone, without parameters. A template function's return type, which
// demangling puts first, is dropped from all of them.
func demangledForms(name string) []string {
	full := demangleName(name)
	short := demangleShort(name)
	sp := ""
	for _, p := range specialPrefixes {
		if strings.HasPrefix(full, p) {
			sp = p
			break
		}
	}
	rest := full[len(sp):]
	short = strings.TrimPrefix(short, sp)
	if i := strings.Index(rest, short); i > 0 && short != "" {
		rest = rest[i:] // "void ns::f<int>(int)" -> "ns::f<int>(int)"
	}
	forms := []string{sp + rest}
	if sp != "" {
		forms = append(forms, rest)
	}
	if short != rest {
		forms = append(forms, short)
	}
	return forms
}

// maxDepth bounds the components parseEntity reads; longer prefix patterns
// are matched on demangled names.
const maxDepth = 8

// An entity is the start of the qualified name a mangled symbol names.
type entity struct {
	ok bool
	// comps[:n] are the leading components, at most the depth asked for.
	comps [maxDepth]string
	n     int
	// more reports whether another "::component" follows comps.
	more bool
}

func (e entity) hasPrefix(prefix []string) bool {
	if e.n < len(prefix) {
		return false
	}
	for i, c := range prefix {
		if e.comps[i] != c {
			return false
		}
	}
	return e.n > len(prefix) || e.more
}

// parseEntity reads the leading components of the entity a mangled name
// (Itanium C++ ABI) names, up to depth of them. It skips special-name prefixes
// (vtables, typeinfo, thunks, guard variables) and CV-qualifiers. ok is false
// when the name has a shape it does not handle; callers then demangle.
func parseEntity(name string, depth int) entity {
	s, ok := strings.CutPrefix(name, "_Z")
	if !ok {
		return entity{}
	}
	s, ok = skipSpecial(s)
	if !ok {
		return entity{}
	}
	if s != name[2:] && s != "" && s[0] != 'N' && s[0] != 'Z' && s[0] != 'S' && (s[0] < '0' || s[0] > '9') {
		return entity{} // a special name for a type that is not a class: demangle
	}
	s = strings.TrimPrefix(s, "Z") // local name: Z <encoding> E <entity>
	nested := false
	if strings.HasPrefix(s, "N") {
		nested = true
		s = s[1:]
		for len(s) > 0 && (s[0] == 'r' || s[0] == 'V' || s[0] == 'K') {
			s = s[1:]
		}
		if len(s) > 0 && (s[0] == 'R' || s[0] == 'O') {
			s = s[1:]
		}
	}
	depth = min(depth, maxDepth)
	e := entity{ok: true}
	// An unscoped name has one component, "St <name>" two.
	unscoped := 1
	if strings.HasPrefix(s, "St") {
		e.comps[0], e.n = "std", 1
		s = s[2:]
		unscoped = 2
	} else if len(s) >= 2 && s[0] == 'S' && strings.IndexByte("absiod", s[1]) >= 0 {
		// std::allocator, std::string, ...: the second component is not
		// spelled out, so only "std" can be decided here.
		if depth > 1 {
			return entity{}
		}
		e.comps[0], e.n = "std", 1
		e.more = true
		return e
	}
	want := depth
	if !nested {
		want = min(depth, unscoped)
	}
	for e.n < want {
		if nested && len(s) > 0 && s[0] == 'L' { // internal linkage marker
			s = s[1:]
		}
		if len(s) == 0 || s[0] < '0' || s[0] > '9' {
			break
		}
		id, rest, ok := sourceName(s)
		if !ok {
			return entity{}
		}
		e.comps[e.n] = id
		e.n++
		s = rest
	}
	if !nested {
		// After "St", a name or an operator ("std::operator<<") may follow.
		e.more = e.n < unscoped && len(s) > 0 && (s[0] >= '0' && s[0] <= '9' || unscoped == 2 && s[0] >= 'a' && s[0] <= 'z')
		return e
	}
	if len(s) == 0 {
		return entity{}
	}
	switch c := s[0]; {
	case c >= '0' && c <= '9', c == 'C', c == 'D', c == 'U', c == 'L', c >= 'a' && c <= 'z':
		e.more = true // another component: a name, constructor, destructor, lambda or operator
	case c == 'E', c == 'I', c == 'B':
		// End of the name, template arguments or an ABI tag: no "::" follows.
	default:
		return entity{}
	}
	return e
}

// skipSpecial skips a special-name prefix: TV, TI, TS, TT, TH, TW, GV,
// thunks Th/Tv/Tc with their offsets, and a local-static L.
func skipSpecial(s string) (string, bool) {
	if len(s) < 2 {
		return s, true
	}
	switch s[:2] {
	case "TV", "TI", "TS", "TT", "TH", "TW", "GV":
		return s[2:], true
	case "Th":
		return skipCallOffset(s[1:])
	case "Tv":
		return skipCallOffset(s[1:])
	case "Tc":
		s, ok := skipCallOffset(s[2:])
		if !ok {
			return "", false
		}
		return skipCallOffset(s)
	}
	switch s[0] {
	case 'T', 'G':
		return "", false // other special names: let the demangler decide
	case 'L':
		return s[1:], true
	}
	return s, true
}

// skipCallOffset skips h <number> _ or v <number> _ <number> _.
func skipCallOffset(s string) (string, bool) {
	if s == "" {
		return "", false
	}
	n := 1
	if s[0] == 'v' {
		n = 2
	} else if s[0] != 'h' {
		return "", false
	}
	s = s[1:]
	for range n {
		s = strings.TrimPrefix(s, "n")
		i := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == 0 || i == len(s) || s[i] != '_' {
			return "", false
		}
		s = s[i+1:]
	}
	return s, true
}

// sourceName reads <length><identifier>.
func sourceName(s string) (id, rest string, ok bool) {
	i := 0
	n := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		n = n*10 + int(s[i]-'0')
		i++
		if n > len(s) {
			return "", "", false
		}
	}
	if n == 0 || i+n > len(s) {
		return "", "", false
	}
	return s[i : i+n], s[i+n:], true
}
