package pep440

import (
	"cmp"
	"errors"
	"strings"
	"unicode"
)

// A Version is a parsed PEP 440 version: [N!]N(.N)*[{a|b|rc}N][.postN][.devN][+local].
// Numbers keep all their digits (PEP 440 sets no limit), so 1.99999999999999999999
// orders correctly. The zero Version is not valid; make one with Parse.
type Version struct {
	epoch   num
	release []num
	pre     string // "a", "b" or "rc"; "" without a pre-release
	preN    num
	post    num // "" without a post-release
	dev     num // "" without a dev release
	local   []string
}

// A num is a non-negative integer written in decimal without leading zeros
// ("0" for zero), so that numbers of any size compare exactly.
type num string

func mkNum(digits string) num {
	if t := strings.TrimLeft(digits, "0"); t != "" {
		return num(t)
	}
	return "0"
}

func cmpNum(a, b num) int {
	if len(a) != len(b) {
		return cmp.Compare(len(a), len(b))
	}
	return strings.Compare(string(a), string(b))
}

// ErrInvalid is wrapped by the error Parse returns for a string that is not a
// PEP 440 version.
var ErrInvalid = errors.New("invalid PEP 440 version")

// Parse parses a PEP 440 version, accepting every spelling the specification
// normalises: any case, "alpha"/"beta"/"c"/"pre"/"preview" for a/b/rc, "r" and
// "rev" for post, "-N" as an implicit post-release, optional separators, a
// leading "v" and surrounding white space. It reads what the specification's
// regular expression (packaging.version.VERSION_PATTERN) matches, choosing
// the same parts where the expression could match two ways (1.0a-1 is
// 1.0a1, not 1.0a0.post1).
func Parse(s string) (Version, error) {
	t := strings.TrimFunc(s, isSpace)
	for i := 0; i < len(t); i++ {
		if t[i] >= 0x80 {
			return Version{}, invalid(s)
		}
	}
	p := parser{s: strings.ToLower(t)}
	v, ok := p.version()
	if !ok {
		return Version{}, invalid(s)
	}
	return v, nil
}

// A parser reads a lower-cased ASCII version from left to right.
type parser struct {
	s string
	i int
}

func (p *parser) digits() (string, bool) {
	j := p.i
	for j < len(p.s) && isDigit(p.s[j]) {
		j++
	}
	d := p.s[p.i:j]
	p.i = j
	return d, d != ""
}

func (p *parser) sep() {
	if p.i < len(p.s) && (p.s[p.i] == '-' || p.s[p.i] == '_' || p.s[p.i] == '.') {
		p.i++
	}
}

// label consumes the first of words that follows, returning it, or "".
func (p *parser) label(words ...string) string {
	for _, w := range words {
		if strings.HasPrefix(p.s[p.i:], w) {
			p.i += len(w)
			return w
		}
	}
	return ""
}

// tag reads an optional "[sep] label [sep] [digits]" part, as the pre-, post-
// and dev-release groups of the pattern do; it restores the position when no
// label follows.
func (p *parser) tag(words ...string) (label string, n num) {
	at := p.i
	p.sep()
	if label = p.label(words...); label == "" {
		p.i = at
		return "", ""
	}
	p.sep()
	d, _ := p.digits()
	return label, mkNum(d)
}

func (p *parser) version() (Version, bool) {
	var v Version
	if strings.HasPrefix(p.s, "v") {
		p.i++
	}
	d, ok := p.digits()
	if !ok {
		return v, false
	}
	v.epoch = "0"
	if p.i < len(p.s) && p.s[p.i] == '!' {
		v.epoch = mkNum(d)
		p.i++
		if d, ok = p.digits(); !ok {
			return v, false
		}
	}
	v.release = append(v.release, mkNum(d))
	for p.i+1 < len(p.s) && p.s[p.i] == '.' && isDigit(p.s[p.i+1]) {
		p.i++
		d, _ = p.digits()
		v.release = append(v.release, mkNum(d))
	}
	switch l, n := p.tag("alpha", "a", "beta", "b", "preview", "pre", "c", "rc"); l {
	case "":
	case "alpha", "a":
		v.pre, v.preN = "a", n
	case "beta", "b":
		v.pre, v.preN = "b", n
	default:
		v.pre, v.preN = "rc", n
	}
	if p.i+1 < len(p.s) && p.s[p.i] == '-' && isDigit(p.s[p.i+1]) {
		p.i++
		d, _ = p.digits()
		v.post = mkNum(d)
	} else if l, n := p.tag("post", "rev", "r"); l != "" {
		v.post = n
	}
	if l, n := p.tag("dev"); l != "" {
		v.dev = n
	}
	if p.i < len(p.s) && p.s[p.i] == '+' {
		p.i++
		for {
			j := p.i
			for j < len(p.s) && (isDigit(p.s[j]) || p.s[j] >= 'a' && p.s[j] <= 'z') {
				j++
			}
			if j == p.i {
				return v, false
			}
			v.local = append(v.local, p.s[p.i:j])
			p.i = j
			if p.i == len(p.s) || !strings.ContainsRune("-_.", rune(p.s[p.i])) {
				break
			}
			p.i++
		}
	}
	return v, p.i == len(p.s)
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func invalid(s string) error {
	return &parseError{s}
}

type parseError struct{ s string }

func (e *parseError) Error() string { return ErrInvalid.Error() + " " + quote(e.s) }
func (e *parseError) Unwrap() error { return ErrInvalid }

func quote(s string) string { return "\"" + strings.ReplaceAll(s, "\"", "\\\"") + "\"" }

// isSpace reports whether r is white space as Python's str.isspace() sees it,
// which is what packaging strips from versions and specifiers: Unicode's
// White_Space property plus the separators U+001C to U+001F.
func isSpace(r rune) bool {
	return unicode.IsSpace(r) || r >= 0x1c && r <= 0x1f
}

// String returns the normalised form of v: "1!2.0rc1.post2.dev3+ubuntu.1".
func (v Version) String() string {
	var b strings.Builder
	b.WriteString(v.Public())
	if v.local != nil {
		b.WriteByte('+')
		b.WriteString(v.Local())
	}
	return b.String()
}

// Public returns the normalised form of v without its local label.
func (v Version) Public() string {
	var b strings.Builder
	b.WriteString(v.BaseVersion())
	if v.pre != "" {
		b.WriteString(v.pre)
		b.WriteString(string(v.preN))
	}
	if v.post != "" {
		b.WriteString(".post")
		b.WriteString(string(v.post))
	}
	if v.dev != "" {
		b.WriteString(".dev")
		b.WriteString(string(v.dev))
	}
	return b.String()
}

// BaseVersion returns the epoch and release of v: "1!2.0" for 1!2.0rc1.post1.
func (v Version) BaseVersion() string {
	var b strings.Builder
	if v.epoch != "0" {
		b.WriteString(string(v.epoch))
		b.WriteByte('!')
	}
	for i, n := range v.release {
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(string(n))
	}
	return b.String()
}

// Epoch returns the epoch of v in decimal ("0" when there is none).
func (v Version) Epoch() string { return string(v.epoch) }

// Release returns the release numbers of v in decimal, as written (not padded).
func (v Version) Release() []string {
	r := make([]string, len(v.release))
	for i, n := range v.release {
		r[i] = string(n)
	}
	return r
}

// Pre returns the normalised pre-release label ("a", "b" or "rc") and number
// of v; ok is false when v is not an alpha, beta or release candidate.
func (v Version) Pre() (label, n string, ok bool) { return v.pre, string(v.preN), v.pre != "" }

// Post returns the post-release number of v; ok is false without one.
func (v Version) Post() (n string, ok bool) { return string(v.post), v.post != "" }

// Dev returns the dev-release number of v; ok is false without one.
func (v Version) Dev() (n string, ok bool) { return string(v.dev), v.dev != "" }

// Local returns the normalised local label of v ("ubuntu.1" for +ubuntu-1),
// or "" when it has none.
func (v Version) Local() string {
	parts := make([]string, len(v.local))
	for i, p := range v.local {
		if allDigits(p) {
			p = string(mkNum(p))
		}
		parts[i] = p
	}
	return strings.Join(parts, ".")
}

// IsPrerelease reports whether v is an alpha, beta, release candidate or dev
// release: 1.0rc1.post1 and 1.0.post1.dev1 are, 1.0.post1 is not.
func (v Version) IsPrerelease() bool { return v.pre != "" || v.dev != "" }

// IsPostrelease reports whether v has a post-release segment.
func (v Version) IsPostrelease() bool { return v.post != "" }

// IsDevrelease reports whether v has a dev-release segment.
func (v Version) IsDevrelease() bool { return v.dev != "" }

// withoutLocal returns v without its local label.
func (v Version) withoutLocal() Version {
	v.local = nil
	return v
}

// Compare orders v and w by PEP 440 (-1, 0, +1): epoch, release (zero-padded,
// so 2.16 == 2.16.0), then dev < pre-release < final < post-release, then the
// local label, which sorts above no label.
func (v Version) Compare(w Version) int {
	if c := cmpNum(v.epoch, w.epoch); c != 0 {
		return c
	}
	if c := cmpRelease(v.release, w.release); c != 0 {
		return c
	}
	if c := cmp.Compare(v.preRank(), w.preRank()); c != 0 {
		return c
	}
	if v.pre != "" {
		if c := cmpNum(v.preN, w.preN); c != 0 {
			return c
		}
	}
	// No post-release sorts below any post-release.
	switch {
	case v.post == "" && w.post != "":
		return -1
	case v.post != "" && w.post == "":
		return 1
	}
	if c := cmpNum(v.post, w.post); c != 0 {
		return c
	}
	// No dev release sorts above any dev release.
	switch {
	case v.dev == "" && w.dev != "":
		return 1
	case v.dev != "" && w.dev == "":
		return -1
	}
	if c := cmpNum(v.dev, w.dev); c != 0 {
		return c
	}
	return cmpLocal(v.local, w.local)
}

// preRank orders the pre-release part: a dev release of a final release
// (1.0.dev0) below every pre-release, then a, b, rc, then no pre-release.
func (v Version) preRank() int {
	switch v.pre {
	case "a":
		return 1
	case "b":
		return 2
	case "rc":
		return 3
	}
	if v.post == "" && v.dev != "" {
		return 0
	}
	return 4
}

// cmpRelease compares release numbers as if the shorter were padded with zeros.
func cmpRelease(a, b []num) int {
	for i := 0; i < max(len(a), len(b)); i++ {
		x, y := num("0"), num("0")
		if i < len(a) {
			x = a[i]
		}
		if i < len(b) {
			y = b[i]
		}
		if c := cmpNum(x, y); c != 0 {
			return c
		}
	}
	return 0
}

// cmpLocal compares local labels segment by segment: numbers numerically,
// strings lexically, a number above a string, and a label that extends another
// above it. No label sorts below any label.
func cmpLocal(a, b []string) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return -1
	case b == nil:
		return 1
	}
	for i := 0; i < min(len(a), len(b)); i++ {
		x, y := a[i], b[i]
		dx, dy := allDigits(x), allDigits(y)
		var c int
		switch {
		case dx && dy:
			c = cmpNum(mkNum(x), mkNum(y))
		case dx:
			c = 1
		case dy:
			c = -1
		default:
			c = strings.Compare(x, y)
		}
		if c != 0 {
			return c
		}
	}
	return cmp.Compare(len(a), len(b))
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// releasePrefix reports whether the release of v, zero-padded, starts with
// prefix (the release of a prefix match such as ==2.0.*).
func releasePrefix(v Version, prefix []num) bool {
	for i, p := range prefix {
		x := num("0")
		if i < len(v.release) {
			x = v.release[i]
		}
		if x != p {
			return false
		}
	}
	return true
}
