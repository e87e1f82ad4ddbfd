package conda

import (
	"strings"
	"unicode"
)

// This file is conda's VersionOrder (conda/models/version.py), written from its
// docstring and code. A version is parsed into components; each component is a
// list of atoms: integers, strings, or "post", which is infinity.

// An atomKind orders the kinds of atom: every string sorts below every integer,
// and "post" sorts above both.
type atomKind uint8

const (
	strAtom atomKind = iota
	intAtom
	infAtom
)

// An atom is one run of digits or non-digits of a component. For an intAtom, s
// holds the digits without leading zeros ("" is zero), so integers of any size
// compare exactly. For a strAtom, s is the lower-case run; "dev" is stored as
// "DEV", which sorts below every lower-case string and "_" (only "*" is
// lower), as conda does by upper-casing it.
type atom struct {
	kind atomKind
	s    string
}

// zero is the fill value: a missing atom counts as the integer 0.
var zero = atom{kind: intAtom}

func cmpAtom(a, b atom) int {
	if a.kind != b.kind {
		if a.kind < b.kind {
			return -1
		}
		return 1
	}
	switch a.kind {
	case intAtom:
		if len(a.s) != len(b.s) {
			if len(a.s) < len(b.s) {
				return -1
			}
			return 1
		}
		return strings.Compare(a.s, b.s)
	case strAtom:
		return strings.Compare(a.s, b.s)
	}
	return 0 // infinity equals infinity
}

// A version is a parsed conda version. release holds the epoch as its first
// component; local is the part after "+", compared only when the releases are
// equal.
type version struct {
	release [][]atom
	local   [][]atom
	// norm is the version lower-cased, with "-" turned into "_" when it has no
	// "_": conda's str(VersionOrder).
	norm string
}

// parseVersion parses s as conda's VersionOrder does: surrounding white space
// is stripped, letters are lower-cased (the Kelvin sign too, as Python's
// str.lower() does), and "*" is an atom below every other string (0.5* sorts
// below 0.5a1). ok is false when s is not a version.
func parseVersion(s string) (v version, ok bool) {
	s = strings.TrimFunc(s, isPySpace)
	s = strings.ReplaceAll(s, "\u212a", "k")
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return version{}, false
		}
	}
	norm := strings.ToLower(s)
	if strings.Contains(norm, "-") && !strings.Contains(norm, "_") {
		norm = strings.ReplaceAll(norm, "-", "_")
	}
	if norm == "" {
		return version{}, false
	}
	for i := 0; i < len(norm); i++ {
		c := norm[i]
		if !(isDigit(c) || c >= 'a' && c <= 'z' || c == '.' || c == '_' || c == '+' || c == '!' || c == '*') {
			return version{}, false
		}
	}
	v.norm = norm
	rest := norm
	epoch := "0"
	switch strings.Count(rest, "!") {
	case 0:
	case 1:
		epoch, rest, _ = strings.Cut(rest, "!")
		if !allDigits(epoch) {
			return version{}, false
		}
	default:
		return version{}, false
	}
	main, local, hasLocal := strings.Cut(rest, "+")
	if main == "" || strings.Contains(local, "+") {
		return version{}, false
	}
	var parts []string
	if strings.HasSuffix(main, "_") {
		// A trailing "_" stays on the last component: conda's work-around for
		// openssl-like versions, so that 1.0.1_ < 1.0.1a.
		parts = splitComponents(main[:len(main)-1])
		parts[len(parts)-1] += "_"
	} else {
		parts = splitComponents(main)
	}
	v.release = make([][]atom, 0, len(parts)+1)
	v.release = append(v.release, []atom{intOf(epoch)})
	for _, p := range parts {
		c, ok := parseComponent(p)
		if !ok {
			return version{}, false
		}
		v.release = append(v.release, c)
	}
	if hasLocal {
		for _, p := range splitComponents(local) {
			c, ok := parseComponent(p)
			if !ok {
				return version{}, false
			}
			v.local = append(v.local, c)
		}
	}
	return v, true
}

// isPySpace reports whether r is white space to Python's str.strip().
func isPySpace(r rune) bool { return unicode.IsSpace(r) || r >= 0x1c && r <= 0x1f }

// splitComponents splits s at "." and "_", keeping empty components.
func splitComponents(s string) []string {
	return strings.Split(strings.ReplaceAll(s, "_", "."), ".")
}

// parseComponent splits one component into runs of digits, of "*" and of
// other characters, as conda's ([0-9]+|[*]+|[^0-9*]+) does. A component that
// starts with a non-digit gets the fill value 0 first, so that 1.1.a1 ==
// 1.1.0a1. ok is false for an empty component.
func parseComponent(p string) ([]atom, bool) {
	if p == "" {
		return nil, false
	}
	var c []atom
	if !isDigit(p[0]) {
		c = append(c, zero)
	}
	class := func(b byte) int {
		switch {
		case isDigit(b):
			return 0
		case b == '*':
			return 1
		}
		return 2
	}
	for i := 0; i < len(p); {
		j := i + 1
		for j < len(p) && class(p[j]) == class(p[i]) {
			j++
		}
		run := p[i:j]
		switch {
		case class(p[i]) == 0:
			c = append(c, intOf(run))
		case run == "post":
			c = append(c, atom{kind: infAtom})
		case run == "dev":
			c = append(c, atom{kind: strAtom, s: "DEV"})
		default:
			c = append(c, atom{kind: strAtom, s: run})
		}
		i = j
	}
	return c, true
}

func intOf(digits string) atom {
	return atom{kind: intAtom, s: strings.TrimLeft(digits, "0")}
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return s != ""
}

// at returns component i of cs, or nil (all fill values) past the end.
func at(cs [][]atom, i int) []atom {
	if i < len(cs) {
		return cs[i]
	}
	return nil
}

// atomAt returns atom j of c, or the fill value past the end.
func atomAt(c []atom, j int) atom {
	if j < len(c) {
		return c[j]
	}
	return zero
}

func cmpComponent(a, b []atom) int {
	for j := 0; j < max(len(a), len(b)); j++ {
		if r := cmpAtom(atomAt(a, j), atomAt(b, j)); r != 0 {
			return r
		}
	}
	return 0
}

func cmpComponents(a, b [][]atom) int {
	for i := 0; i < max(len(a), len(b)); i++ {
		if r := cmpComponent(at(a, i), at(b, i)); r != 0 {
			return r
		}
	}
	return 0
}

// compare orders a and b: releases first, then local parts.
func compare(a, b version) int {
	if r := cmpComponents(a.release, b.release); r != 0 {
		return r
	}
	return cmpComponents(a.local, b.local)
}

// hasPrefix reports whether v matches the prefix p, as conda's
// VersionOrder.startswith: every component of p but the last is equal, and so are
// the last component's atoms but its last, which must be equal, or, for a
// string, a prefix of v's atom there ("=1.0a" matches 1.0alpha1). The local part
// of v is ignored unless p has one.
func (v version) hasPrefix(p version) bool {
	t1, t2 := v.release, p.release
	if len(p.local) > 0 {
		if cmpComponents(v.release, p.release) != 0 {
			return false
		}
		t1, t2 = v.local, p.local
	}
	nt := len(t2) - 1
	if cmpComponents(t1[:min(nt, len(t1))], t2[:nt]) != 0 {
		return false
	}
	v1, v2 := at(t1, nt), t2[nt]
	na := len(v2) - 1
	if cmpComponent(v1[:min(na, len(v1))], v2[:na]) != 0 {
		return false
	}
	c1, c2 := atomAt(v1, na), v2[na]
	if c2.kind == strAtom {
		return c1.kind == strAtom && strings.HasPrefix(c1.s, c2.s)
	}
	return cmpAtom(c1, c2) == 0
}

// prerelease reports whether the release part (epoch and local part aside) has
// an atom with a letter other than "post".
func (v version) prerelease() bool {
	for _, c := range v.release[1:] {
		for _, a := range c {
			if a.kind == strAtom && strings.ContainsFunc(a.s, func(r rune) bool { return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' }) {
				return true
			}
		}
	}
	return false
}
