package requirements

import (
	"fmt"
	"slices"
	"strings"

	"github.com/pinbot-dev/pinbot/internal/diag"
	"github.com/pinbot-dev/pinbot/pins"
)

// hashAlgorithms are the algorithms pip accepts in --hash options (its
// STRONG_HASHES).
var hashAlgorithms = map[string]bool{"sha256": true, "sha384": true, "sha512": true}

// hashOptions are the --hash options of one requirement line.
type hashOptions struct {
	n    int       // how many
	span pins.Span // in the file: from the first "--hash" to the end of the last value
	text string    // the file's bytes in span
	why  string    // why pinbot cannot rewrite them ("" when it can)
}

// scanHashes reads the --hash options ("--hash=ALG:HEX" or "--hash ALG:HEX")
// among the options of l that start at the logical offset from. It refuses
// (why) options it cannot replace as one span: a --hash option split over
// lines, another option between two --hash options, a malformed value.
func scanHashes(data []byte, l *logical, from int) hashOptions {
	var h hashOptions
	first, last := -1, -1
	other := false // a non-hash token after the first --hash
	toks := tokens(l.text, from)
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		tok := l.text[t[0]:t[1]]
		var value string
		end := t[1]
		switch {
		case tok == "--hash":
			if i+1 == len(toks) {
				h.why = `a --hash option without a value`
				return h
			}
			i++
			value, end = l.text[toks[i][0]:toks[i][1]], toks[i][1]
		case strings.HasPrefix(tok, "--hash="):
			value = strings.TrimPrefix(tok, "--hash=")
		default:
			if first >= 0 {
				other = true
			}
			continue
		}
		h.n++
		if other {
			h.why = "its --hash options are mixed with other options, which pinbot does not rewrite"
			return h
		}
		if alg, hex, ok := strings.Cut(value, ":"); !ok || !hashAlgorithms[alg] || !isHex(hex) {
			h.why = fmt.Sprintf("malformed --hash option %q", value)
			return h
		}
		if !l.within(t[0], end) {
			h.why = `a --hash option is continued over lines with "\"`
			return h
		}
		if first < 0 {
			first = t[0]
		}
		last = end
	}
	if h.n == 0 {
		return h
	}
	h.span = pins.Span{Start: l.fileStart(first), End: l.fileOffset(last)}
	h.text = string(data[h.span.Start:h.span.End])
	return h
}

// tokens returns the [start, end) offsets of the space-separated tokens of
// s from offset from on.
func tokens(s string, from int) [][2]int {
	var out [][2]int
	i := from
	for i < len(s) {
		for i < len(s) && isSpace(s[i]) {
			i++
		}
		j := i
		for j < len(s) && !isSpace(s[j]) {
			j++
		}
		if j > i {
			out = append(out, [2]int{i, j})
		}
		i = j
	}
	return out
}

func isHex(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// fileStart maps the logical offset of a byte (a token's first) to the file.
// Unlike fileOffset, an offset at the boundary of two segments maps to the
// start of the later one.
func (l *logical) fileStart(i int) int {
	for _, s := range l.segs {
		if i >= s.at && i < s.at+s.n {
			return s.start + i - s.at
		}
	}
	return l.fileOffset(i)
}

// within reports whether the non-empty logical range [i, j) lies in one
// segment, that is in one piece of one physical line.
func (l *logical) within(i, j int) bool {
	for _, s := range l.segs {
		if i >= s.at && i < s.at+s.n {
			return j <= s.at+s.n
		}
	}
	return false
}

// exactPin reports whether a constraint is one == clause naming one version,
// the only shape pip's hash-checking mode accepts that pinbot moves
// (=== and ==X.* are left alone).
func exactPin(c string) bool {
	v, ok := strings.CutPrefix(strings.TrimSpace(c), "==")
	v = strings.TrimSpace(v)
	if !ok || v == "" {
		return false
	}
	for i := 0; i < len(v); i++ {
		// A PEP 440 version: digits, letters, ".", "-", "_", "+" (a local
		// label) and "!" (an epoch); no "*", "=", "," or space.
		if c := v[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || strings.IndexByte(".-_+!", c) >= 0) {
			return false
		}
	}
	return true
}

// Rehash returns the replacement of the --hash options of p, a pin of data
// with hash options (p.HashText not empty), by digests: sha256 hex digests,
// one option each, sorted and without duplicates, written as the first of p's
// options is ("--hash=sha256:..." or "--hash sha256:...") and separated like
// it is from what precedes it, so that hashes on their own "\" continuation
// lines stay one per line with the same indentation and line endings. Options
// of other algorithms (sha384, sha512) are replaced by sha256 ones too, which
// pip accepts alike. It is the Extra of the pins.Edit that moves p.
func Rehash(data []byte, p pins.Pin, digests []string) (pins.Replace, error) {
	sp := p.Hashes
	if p.HashText == "" {
		return pins.Replace{}, diag.Errorf(p.File, p.Line, p.Col, p.Key, "%s has no --hash options to replace", p.Text)
	}
	if sp.Start < 0 || sp.End > len(data) || sp.Start > sp.End || string(data[sp.Start:sp.End]) != p.HashText {
		return pins.Replace{}, diag.Errorf(p.File, p.Line, p.Col, p.Key, "the --hash options of %s are not at bytes %d-%d", p.Text, sp.Start, sp.End)
	}
	var hs []string
	for _, d := range digests {
		d = strings.ToLower(d)
		if len(d) != 64 || !isHex(d) {
			return pins.Replace{}, diag.Errorf(p.File, p.Line, p.Col, p.Key, "%q is not a sha256 hex digest", d)
		}
		hs = append(hs, d)
	}
	if len(hs) == 0 {
		return pins.Replace{}, diag.Errorf(p.File, p.Line, p.Col, p.Key, "no hashes to write for %s", p.Text)
	}
	slices.Sort(hs)
	hs = slices.Compact(hs)

	prefix := "--hash="
	if !strings.HasPrefix(p.HashText, prefix) {
		rest := strings.TrimPrefix(p.HashText, "--hash")
		prefix = "--hash" + rest[:len(rest)-len(strings.TrimLeft(rest, " \t\f\v"))]
	}
	sep := layoutBefore(data, sp.Start)
	if !strings.Contains(sep, "\n") {
		// The first option shares its line: keep one option per line if the
		// others are on lines of their own.
		if g := firstGap(p.HashText); strings.Contains(g, "\n") {
			sep = g
		}
	}
	if !separates(sep) {
		sep = " " + sep // pip would join the options into one token
	}
	var b strings.Builder
	for i, h := range hs {
		if i > 0 {
			b.WriteString(sep)
		}
		b.WriteString(prefix + "sha256:" + h)
	}
	return pins.Replace{Span: sp, Old: p.HashText, New: b.String()}, nil
}

// separates reports whether the layout sep leaves white space between two
// options once pip has joined its continuation lines (dropping each line's
// trailing "\" and line ending).
func separates(sep string) bool {
	for _, line := range strings.Split(sep, "\n") {
		line = strings.TrimSuffix(line, "\r")
		if strings.ContainsAny(strings.TrimRight(line, "\\"), " \t\f\v") {
			return true
		}
	}
	return false
}

// isLayout reports whether c is white space, a line ending or the "\" of a
// continuation: what separates options on continuation lines.
func isLayout(c byte) bool { return isSpace(c) || c == '\\' || c == '\r' || c == '\n' }

// layoutBefore returns the white space and continuations just before offset
// at in data: " ", or " \\\n    " for an option on a continuation line.
func layoutBefore(data []byte, at int) string {
	i := at
	for {
		for i > 0 && isSpace(data[i-1]) {
			i--
		}
		// A line ending before the spaces belongs to the layout only after a
		// continuation's "\".
		k := i
		if k > 0 && data[k-1] == '\n' {
			k--
			if k > 0 && data[k-1] == '\r' {
				k--
			}
			if k > 0 && data[k-1] == '\\' {
				for k > 0 && data[k-1] == '\\' { // pip strips every trailing "\"
					k--
				}
				i = k
				continue
			}
		}
		return string(data[i:at])
	}
}

// firstGap returns the layout between the first two options of a hash
// options text ("" with one option).
func firstGap(text string) string {
	// Skip "--hash=VALUE" or "--hash VALUE".
	i := strings.IndexFunc(text, func(r rune) bool { return r < 0x80 && isLayout(byte(r)) })
	if i < 0 {
		return ""
	}
	if text[:i] == "--hash" {
		j := i
		for j < len(text) && isSpace(text[j]) {
			j++
		}
		k := strings.IndexFunc(text[j:], func(r rune) bool { return r < 0x80 && isLayout(byte(r)) })
		if k < 0 {
			return ""
		}
		i = j + k
	}
	j := i
	for j < len(text) && isLayout(text[j]) {
		j++
	}
	return text[i:j]
}
