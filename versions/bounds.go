package versions

import "slices"

// A Bound is one side of the range a constraint admits, in a comparable form
// (">=0.58", "<=0.67.0"); the zero Bound is no bound.
type Bound struct {
	Op      Op
	Version string
}

// String returns the bound as a clause, or "" for no bound.
func (b Bound) String() string {
	if b.Version == "" {
		return ""
	}
	return string(b.Op) + b.Version
}

// Bounds returns the lower and upper bound of c, spelling out the bounds of
// one-clause ranges: ^0.56.0 is >=0.56.0 and <0.57, ~=2.16 is >=2.16 and <3,
// ==0.61.* is >=0.61 and <0.62, ==1.2.3 is >=1.2.3 and <=1.2.3. With several
// lower (upper) bounds the strictest counts. ok is false for constraints with
// alternatives or clauses whose bounds it cannot tell (===, patterns).
func Bounds(s Scheme, c Constraint) (lower, upper Bound, ok bool) {
	if c.Or {
		return Bound{}, Bound{}, false
	}
	lo := func(b Bound) {
		if lower.Version == "" || CompareLower(s, b, lower) > 0 {
			lower = b
		}
	}
	up := func(b Bound) {
		if upper.Version == "" || CompareUpper(s, b, upper) < 0 {
			upper = b
		}
	}
	for _, cl := range c.Clauses {
		if cl.Pattern {
			return Bound{}, Bound{}, false
		}
		v := cl.Version
		switch cl.Op {
		case GE, GT:
			lo(Bound{cl.Op, v})
		case LE, LT:
			up(Bound{cl.Op, v})
		case NE:
		case Arbitrary:
			return Bound{}, Bound{}, false
		default:
			var next string
			var ok bool
			switch {
			case cl.Wildcard() || cl.Op == Fuzzy:
				v = wildcardBase(v)
				if v == "" {
					v = cl.Version
				}
				if v == "" || v == "*" {
					continue // any version
				}
				next, ok = NextRelease(v, Precision(v))
			case cl.Op == Caret:
				next, ok = CaretUpper(v)
			case cl.Op == Tilde:
				next, ok = TildeUpper(v)
			case cl.Op == Compatible:
				next, ok = NextRelease(v, Precision(v)-1)
			default: // == and bare exact versions
				lo(Bound{GE, v})
				up(Bound{LE, v})
				continue
			}
			if !ok {
				return Bound{}, Bound{}, false
			}
			lo(Bound{GE, v})
			up(Bound{LT, next})
		}
	}
	return lower, upper, true
}

// CompareLower orders two lower bounds by how strict they are: the higher
// version is stricter, and ">" is stricter than ">=" at the same version. No
// bound is the least strict.
func CompareLower(s Scheme, a, b Bound) int {
	switch {
	case a.Version == "" && b.Version == "":
		return 0
	case a.Version == "":
		return -1
	case b.Version == "":
		return 1
	}
	if c := s.Compare(a.Version, b.Version); c != 0 {
		return c
	}
	return opRank(a.Op, GT) - opRank(b.Op, GT)
}

// CompareUpper orders two upper bounds by how much they admit: the higher
// version admits more, and "<=" admits more than "<" at the same version. No
// bound admits the most.
func CompareUpper(s Scheme, a, b Bound) int {
	switch {
	case a.Version == "" && b.Version == "":
		return 0
	case a.Version == "":
		return 1
	case b.Version == "":
		return -1
	}
	if c := s.Compare(a.Version, b.Version); c != 0 {
		return c
	}
	return opRank(a.Op, LE) - opRank(b.Op, LE)
}

func opRank(op, high Op) int {
	if op == high {
		return 1
	}
	return 0
}

// A MajorCross is a cap that moves across a major version: From and To are
// the upper bounds before and after ("<7" and "<8", or "<=7.0.1"), spelled
// out as Bounds spells them.
type MajorCross struct {
	From, To Bound
}

// CrossesMajor reports whether moving a constraint from old to new lets in a
// major version old shut out: old has an upper bound, and the highest major
// version new admits is above the highest old admits. A cap at a major
// boundary ("<7", "<7.0.0", an implied one such as ~=6.31 or ^6.1) admits
// nothing of 7, so "<7" to "<8" or to "<=7.0.1" crosses, as does
// "<=6.31.1" to "<=7.0.1"; "<1" to "<=0.67.0" does not, nor does giving a
// constraint with no cap one. Versions with another epoch or prefix are
// not compared.
func CrossesMajor(s Scheme, old, new Constraint) (MajorCross, bool) {
	_, from, ok := Bounds(s, old)
	if !ok || from.Version == "" {
		return MajorCross{}, false
	}
	_, to, ok := Bounds(s, new)
	if !ok {
		return MajorCross{}, false
	}
	c := MajorCross{From: from, To: to}
	fp, fm, ok := topMajor(from)
	if !ok {
		return MajorCross{}, false
	}
	if to.Version == "" {
		return c, true // no cap any more: every major version is admitted
	}
	tp, tm, ok := topMajor(to)
	return c, ok && fp == tp && tm > fm
}

// topMajor returns the highest major version a cap admits, with the prefix
// (a "v", an epoch) its version has: <=6.31.1 and <6.32 admit 6, <7 and
// <7.0.0rc1 admit 6 (nothing of 7 but pre-releases), <0 nothing.
func topMajor(b Bound) (prefix string, major int, ok bool) {
	prefix, nums, ok := splitRelease(b.Version)
	if !ok {
		return "", 0, false
	}
	major = nums[0]
	if b.Op == LT && !slices.ContainsFunc(nums[1:], func(n int) bool { return n != 0 }) {
		major--
	}
	return prefix, major, major >= 0
}
