package versions

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
)

// A Strategy says how a cap moves when a newer release is accepted.
type Strategy string

// The cap strategies.
const (
	// Inclusive caps at the newest accepted release: "<=0.67.0", the
	// tested-through cap (pytensor's canonical numba>=X.Y,<=A.B.C). A range
	// written as one clause that shuts the target out is expanded into its
	// lower bound and that cap: "^3.7" with 4.0.0 out becomes ">=3.7,<=4.0.0".
	Inclusive Strategy = "inclusive"
	// Exclusive caps below the next release boundary at the pin's own
	// precision: "<0.62" with 0.62.1 out becomes "<0.63", "<3" with 3.1.0
	// becomes "<4"; a new cap is "<" the target's next minor ("<0.68"). A
	// one-clause range is expanded as under Inclusive, with this cap:
	// "~=0.9" with 1.1.0 out becomes ">=0.9,<1.2".
	Exclusive Strategy = "exclusive"
	// Preserve keeps the operator the pin uses: "<=" moves like Inclusive, "<"
	// like Exclusive, "==0.61.0" becomes "==NEWEST", and ranges written as one
	// clause (~=, ^, ~, 0.61.*) move to the newest release at their own
	// precision, which raises their lower bound.
	Preserve Strategy = "preserve"
)

// Strategies lists the cap strategies NewUpper implements.
var Strategies = []Strategy{Inclusive, Exclusive, Preserve}

// A Policy says how NewUpper moves the cap of one pin.
type Policy struct {
	Strategy Strategy
	// AddCap gives a constraint with no upper bound one.
	AddCap bool
	// FollowYanked lowers a cap that names a yanked release (yanked: follow);
	// otherwise such a cap is reported and left as written.
	FollowYanked bool
	// Target is what reasons call the release a cap moves to admit: "" for
	// "the newest release", which it is unless another source or a gate
	// holds it back; then the caller says "the target", and why.
	Target string
}

// target is what reasons call the target (Policy.Target).
func (p Policy) target() string {
	if p.Target == "" {
		return "the newest release"
	}
	return p.Target
}

// A Move is what NewUpper decided for one constraint.
type Move struct {
	// Text is the new constraint text; it equals the old one when Changed is false.
	Text    string
	Changed bool
	// Reason says why, for people.
	Reason string
	// Narrows is set when the new constraint admits fewer versions above the
	// target than the old one did (a "<1" turned into "<=0.67.0").
	Narrows bool
	// Conflict is set when a clause other than the cap excludes the target; the
	// constraint is left alone and Reason names the clause.
	Conflict bool
	// RaisesLower is set when the rewrite raises the lower bound: Preserve moving
	// "==0.61.0", "~=2.16", "^0.56.0" or "0.61.*", whose one clause is both
	// the lower bound and the cap. Inclusive and Exclusive expand such a range
	// into two clauses instead, which keeps the lower bound.
	RaisesLower bool
	// Yanked is set when a cap names a release its source yanked.
	Yanked bool
	// Lowers is set when a cap that named a yanked release was lowered
	// (Policy.FollowYanked).
	Lowers bool
	// Uncapped is set when the constraint has no upper bound and the
	// policy adds none (add-cap off): nothing caps it, so there is no cap
	// to call current.
	Uncapped bool
}

// NewUpper moves the upper bound of c so that it admits target, following p. Only
// the bytes of the cap clauses change (or a clause is appended); lower bounds,
// exclusions and spacing stay as written. A cap is never lowered: a cap already
// above target is left alone (see NewUpperYanked for yanked releases). A range
// written as one clause (~=, ^, ~, a prefix match) that is the constraint's
// only cap and shuts target out is, under Inclusive and Exclusive, rewritten
// into two clauses in the bytes of that clause: its own lower bound and the
// strategy's cap (">=3.7,<=4.0.0" for "^3.7").
func NewUpper(s Scheme, c Constraint, target string, p Policy) (Move, error) {
	return NewUpperYanked(s, c, target, p, nil)
}

// NewUpperYanked is NewUpper knowing which releases the source yanked: yanked
// reports whether a version was (nil means none). A cap above target that names
// a yanked release ("<=0.67.1" with 0.67.1 yanked) is reported (Move.Yanked)
// and, with p.FollowYanked, lowered to the cap the strategy gives target.
func NewUpperYanked(s Scheme, c Constraint, target string, p Policy, yanked func(string) bool) (Move, error) {
	if !s.Valid(target) {
		return Move{}, fmt.Errorf("target %q is not a valid %s version", target, s.Name())
	}
	if !slices.Contains(Strategies, p.Strategy) {
		return Move{}, fmt.Errorf("cap strategy %q is not supported", p.Strategy)
	}
	u := &mover{s: s, c: c, t: target, p: p, yanked: yanked}
	if c.Or {
		return u.keep("constraint %q has alternatives; pinbot does not edit it", c.Text), nil
	}
	m, done := u.plan()
	if done {
		return m, nil
	}
	return u.finish()
}

// A mover plans the move of one constraint.
type mover struct {
	s      Scheme
	c      Constraint
	t      string
	p      Policy
	yanked func(string) bool

	m       Move // flags gathered on the way
	edits   []clauseEdit
	reasons []string
	// expand are the one-clause ranges that shut the target out, to be
	// expanded into two clauses (Inclusive and Exclusive).
	expand []Clause
}

// A clauseEdit replaces the bytes of one clause (an empty span inserts).
type clauseEdit struct {
	cl   Clause
	text string
}

// keep returns the Move that leaves the constraint as written. Only Yanked
// survives from the flags gathered: the others describe dropped edits.
func (u *mover) keep(format string, args ...any) Move {
	return Move{Text: u.c.Text, Reason: fmt.Sprintf(format, args...), Yanked: u.m.Yanked}
}

// conflict leaves the constraint as written because a clause excludes the
// target.
func (u *mover) conflict(format string, args ...any) (Move, bool) {
	m := u.keep(format, args...)
	m.Conflict = true
	return m, true
}

// stop leaves the constraint as written.
func (u *mover) stop(format string, args ...any) (Move, bool) {
	return u.keep(format, args...), true
}

func (u *mover) admits(cl Clause) bool {
	return u.s.Match(u.t, Constraint{Text: u.c.Text, Clauses: []Clause{cl}})
}

func (u *mover) isYanked(v string) bool { return u.yanked != nil && u.yanked(v) }

func (u *mover) text(cl Clause) string { return u.c.Text[cl.Start:cl.End] }

func (u *mover) edit(cl Clause, text, format string, args ...any) {
	u.edits = append(u.edits, clauseEdit{cl: cl, text: text})
	u.reasons = append(u.reasons, fmt.Sprintf(format, args...))
}

// plan decides every clause. It returns done when the constraint stays as it
// is (with the Move saying why); otherwise the edits are queued.
func (u *mover) plan() (Move, bool) {
	var uppers, implied []Clause
	for _, cl := range u.c.Clauses {
		switch {
		case cl.Upper():
			uppers = append(uppers, cl)
		case cl.ImpliedUpper():
			implied = append(implied, cl)
			if m, done := u.implied(cl); done {
				return m, true
			}
		case !u.admits(cl):
			return u.conflict("%s excludes %s; left as written", u.text(cl), u.t)
		}
	}
	if len(u.expand) > 0 {
		return u.expandRange(uppers)
	}
	switch len(uppers) {
	case 0:
		if len(u.edits) > 0 {
			return Move{}, false
		}
		if len(implied) > 0 {
			return u.stop("%s already admits %s", u.text(implied[0]), u.t)
		}
		if !u.p.AddCap {
			m, done := u.stop("no upper bound, and add-cap is off")
			m.Uncapped = true
			return m, done
		}
		return u.addCap()
	case 1:
		return u.upper(uppers[0])
	}
	return u.stop("constraint %q has %d upper bounds; pinbot does not edit it", u.c.Text, len(uppers))
}

// implied decides a clause that caps without being an explicit upper bound:
// exact pins, prefix matches, ~=, ^ and ~.
func (u *mover) implied(cl Clause) (Move, bool) {
	admits := u.admits(cl)
	if cl.Pattern {
		if admits {
			return u.stop("%s admits %s", u.text(cl), u.t)
		}
		return u.conflict("%s is a pattern that excludes %s; pinbot does not rewrite patterns", u.text(cl), u.t)
	}
	exact := !cl.Wildcard() && (cl.Op == EQ || cl.Op == Exact || cl.Op == Arbitrary)
	if exact {
		switch {
		case admits:
			return u.stop("exact pin %s admits %s", u.text(cl), u.t)
		case cl.Op == Arbitrary:
			return u.stop("exact pin %s: pinbot does not move === pins", u.text(cl))
		}
		above := u.s.Compare(u.t, cl.Version) < 0
		if above && u.isYanked(cl.Version) {
			u.m.Yanked = true
			if !u.p.FollowYanked {
				return u.stop("exact pin %s names %s, which was yanked; left as written (yanked: follow moves it to %s)", u.text(cl), cl.Version, u.t)
			}
			u.m.Lowers = true
			u.edit(cl, u.c.Text[cl.Start:cl.VersionStart]+u.t, "exact pin %s names the yanked release %s: moved down to %s (yanked: follow)", u.text(cl), cl.Version, u.t)
			return Move{}, false
		}
		switch {
		case u.p.Strategy != Preserve:
			return u.stop("exact pin %s; the %s strategy does not move exact pins (cap: preserve does)", u.text(cl), u.p.Strategy)
		case above:
			return u.stop("exact pin %s is above %s %s; pinbot does not move a pin down", u.text(cl), u.p.target(), u.t)
		case strings.Contains(cl.Version, "+") && !strings.Contains(u.t, "+"):
			return u.conflict("exact pin %s names a local build; %s %s has no local label, so it is left as written", u.text(cl), u.p.target(), u.t)
		}
		u.m.RaisesLower = true
		nt := u.c.Text[cl.Start:cl.VersionStart] + u.t
		u.edit(cl, nt, "exact pin %s becomes %s (cap: preserve); this raises the lower bound", u.text(cl), nt)
		return Move{}, false
	}
	if admits {
		return Move{}, false
	}
	// The clause's lower end above the target (^0.70.0, ~=2.16 or =0.70 with
	// 0.67.0 out): moving it would lower the pin.
	base := wildcardBase(cl.Version)
	if base == "" {
		base = cl.Version
	}
	if base != "*" && u.s.Compare(u.t, base) < 0 {
		return u.conflict("%s excludes %s; left as written", u.text(cl), u.t)
	}
	if u.p.Strategy != Preserve {
		u.expand = append(u.expand, cl)
		return Move{}, false
	}
	nv, ok := u.shifted(cl)
	if !ok {
		return u.conflict("%s caps below %s and pinbot cannot rewrite it", u.text(cl), u.t)
	}
	u.m.RaisesLower = true
	nt := u.c.Text[cl.Start:cl.VersionStart] + nv
	u.edit(cl, nt, "%s becomes %s to admit %s (cap: preserve keeps the operator); this raises the lower bound", u.text(cl), nt, u.t)
	return Move{}, false
}

// expandRange rewrites the one-clause range that shuts the target out
// (u.expand) into two clauses, in the bytes of that clause: its lower bound
// (">=" the version it starts at: "^3.7" and "~=3.7" start at 3.7, "0.61.*"
// and conda's "=0.61" at 0.61) and the cap the strategy writes for the target
// in its place ("<=4.0.0"; under Exclusive "<" the next boundary at the
// clause's precision). The comma joins them in every scheme pinbot edits
// (PEP 440, Poetry, conda), with the clause's own space after the operator.
// A prefix match also admits the pre-releases of its first release
// (0.61.0rc1 for "0.61.*"), which ">=0.61" does not: the only versions the
// expansion drops, and ones pinbot never targets. A range beside another cap
// ("~=2.16,<2.20") is left as written: which of the two should carry the
// new cap is not pinbot's to guess.
func (u *mover) expandRange(uppers []Clause) (Move, bool) {
	cl := u.expand[0]
	if len(u.expand) > 1 || len(uppers) > 0 {
		return u.conflict("%s caps below %s beside another cap; the %s strategy expands a one-clause range only when it is the pin's only cap (cap: preserve moves both)", u.text(cl), u.t, u.p.Strategy)
	}
	lower := wildcardBase(cl.Version)
	if lower == "" {
		lower = cl.Version
	}
	if Precision(lower) == 0 {
		return u.conflict("%s caps below %s and pinbot cannot tell the version it starts at; left as written", u.text(cl), u.t)
	}
	op, v, ok := u.freshCap(cl)
	if !ok {
		return u.stop("cannot compute a cap for %s", u.t)
	}
	written := u.c.Text[cl.Start:cl.VersionStart]
	gap := written[len(strings.TrimRightFunc(written, unicode.IsSpace)):]
	sep := ","
	if gap != "" || strings.Contains(u.c.Text, ", ") {
		sep = ", "
	}
	nt := string(GE) + gap + lower + sep + string(op) + gap + v
	what := "the operator " + strings.TrimSpace(written)
	switch {
	case strings.HasSuffix(cl.Version, ".*"):
		what = "the prefix match .*"
	case cl.Wildcard():
		what = "the prefix match *"
	case cl.Op == Fuzzy:
		what = "the fuzzy match ="
	}
	u.edit(cl, nt, "%s caps below %s: %s was expanded into %s to keep the lower bound (cap: %s)", u.text(cl), u.t, what, nt, u.p.Strategy)
	return Move{}, false
}

// shifted returns the version of an implied-cap clause moved to the target at
// the clause's own precision ("^0.56.0" → "0.67.0", "~=2.16" → "3.1",
// "0.61.*" → "0.62.*"), falling back to the whole target when the shortened
// one does not admit it (a pre-release target).
func (u *mover) shifted(cl Clause) (string, bool) {
	v := cl.Version
	wild := ""
	switch {
	case strings.HasSuffix(v, ".*"):
		wild = ".*"
	case strings.HasSuffix(v, "*"):
		wild = "*"
	}
	core := v[:len(v)-len(wild)]
	n := Precision(core)
	if n == 0 {
		return "", false
	}
	nv, ok := Truncate(u.t, n)
	if !ok {
		return "", false
	}
	nv += wild
	try := func(v string) bool {
		c, err := u.s.ParseConstraint(u.c.Text[cl.Start:cl.VersionStart] + v)
		return err == nil && u.s.Match(u.t, c)
	}
	if !try(nv) && wild == "" && try(u.t) {
		nv = u.t
	}
	return nv, true
}

// addCap gives a constraint without a cap one.
func (u *mover) addCap() (Move, bool) {
	op, v, ok := u.freshCap(Clause{Op: LE})
	if !ok {
		return u.stop("cannot compute a cap for %s", u.t)
	}
	newCap := string(op) + v
	c := u.c
	if len(c.Clauses) == 0 {
		u.edits = append(u.edits, clauseEdit{cl: Clause{Start: 0, End: len(c.Text)}, text: newCap})
	} else {
		// Follow the pin's style: ", " between clauses and a space after the
		// operator when the pin writes them (">= 0.51" gains ", <= 0.67.0").
		last := c.Clauses[len(c.Clauses)-1]
		sep, text := ",", newCap
		if gap := c.Text[last.Start+len(last.Op) : last.VersionStart]; gap != "" && last.Op != Exact {
			sep, text = ", ", string(op)+gap+v
		}
		if strings.Contains(c.Text, ", ") {
			sep = ", "
		}
		u.edits = append(u.edits, clauseEdit{cl: Clause{Start: last.End, End: last.End}, text: sep + text})
	}
	u.reasons = append(u.reasons, "no upper bound: capped at "+newCap)
	return Move{}, false
}

// freshCap returns the cap the strategy writes for the target in place of old
// (whose operator Preserve keeps and whose precision Exclusive keeps). A cap
// added where there was none is inclusive under Preserve and "<" the next
// minor under Exclusive.
func (u *mover) freshCap(old Clause) (Op, string, bool) {
	if u.p.Strategy == Inclusive || u.p.Strategy == Preserve && old.Op != LT {
		return LE, u.t, true
	}
	n := 2
	if old.Version != "" {
		n = Precision(old.Version)
	}
	next, ok := NextRelease(u.t, n)
	return LT, next, ok
}

// upper decides the one explicit upper bound.
func (u *mover) upper(up Clause) (Move, bool) {
	gap := u.c.Text[up.Start+len(up.Op) : up.VersionStart]
	fresh := func() (string, bool) {
		op, v, ok := u.freshCap(up)
		return string(op) + gap + v, ok
	}
	cmp := u.s.Compare(u.t, up.Version)
	if u.admits(up) {
		if up.Op == LE && cmp < 0 && u.isYanked(up.Version) {
			u.m.Yanked = true
			if !u.p.FollowYanked {
				return u.stop("cap %s names %s, which was yanked; left as written (yanked: follow lowers it to admit %s only)", u.text(up), up.Version, u.t)
			}
			nc, ok := fresh()
			if !ok {
				return u.stop("cannot compute a cap for %s", u.t)
			}
			u.m.Lowers = true
			u.edit(up, nc, "cap %s names the yanked release %s: lowered to %s (yanked: follow)", u.text(up), up.Version, nc)
			return Move{}, false
		}
		switch {
		case up.Op == LE && cmp == 0:
			return u.stop("cap %s already admits %s", u.text(up), u.p.target())
		case u.p.Strategy == Inclusive && up.Op == LT:
			u.m.Narrows = true
			u.edit(up, string(LE)+gap+u.t, "exclusive cap %s becomes the tested-through %s%s; this narrows the range (releases after %s up to %s are no longer admitted)",
				u.text(up), LE, u.t, u.t, up.Version)
			return Move{}, false
		case up.Op == LE:
			return u.stop("cap %s is above %s %s; a cap is never lowered", u.text(up), u.p.target(), u.t)
		}
		return u.stop("cap %s already admits %s; a cap is never lowered", u.text(up), u.t)
	}
	nc, ok := fresh()
	if !ok {
		return u.stop("cannot compute a cap for %s", u.t)
	}
	if up.Op == LE {
		u.edit(up, nc, "%s is newer than the cap %s", u.t, u.text(up))
	} else {
		u.edit(up, nc, "%s is not admitted by %s: capped at %s", u.t, u.text(up), nc)
	}
	return Move{}, false
}

// finish applies the queued edits and checks the result.
func (u *mover) finish() (Move, error) {
	edits := slices.Clone(u.edits)
	slices.SortFunc(edits, func(a, b clauseEdit) int { return b.cl.Start - a.cl.Start })
	text := u.c.Text
	for _, e := range edits {
		text = text[:e.cl.Start] + e.text + text[e.cl.End:]
	}
	m := u.m
	m.Text, m.Changed, m.Reason = text, text != u.c.Text, strings.Join(u.reasons, "; ")
	nc, err := u.s.ParseConstraint(m.Text)
	if err != nil {
		return Move{}, fmt.Errorf("new constraint %q does not parse: %w", m.Text, err)
	}
	if !u.s.Match(u.t, nc) {
		return Move{}, fmt.Errorf("new constraint %q does not admit %s", m.Text, u.t)
	}
	return m, nil
}

// RaiseMinimum moves a constraint that is one bare minimum version (a go.mod
// requirement, versions/semver) up to target: a minimum has no cap to move,
// so the version itself is raised when target is newer and c admits it (the
// same major version, hence the same module path). It is never lowered. Of
// p, only Target (how reasons call the target) applies.
func RaiseMinimum(s Scheme, c Constraint, target string, p Policy) (Move, error) {
	keep := func(format string, args ...any) (Move, error) {
		return Move{Text: c.Text, Reason: fmt.Sprintf(format, args...)}, nil
	}
	if !s.Valid(target) {
		return Move{}, fmt.Errorf("target %q is not a valid %s version", target, s.Name())
	}
	if len(c.Clauses) != 1 || c.Clauses[0].Op != Exact || c.Or {
		return keep("requirement %q is not one minimum version; pinbot does not edit it", c.Text)
	}
	cl := c.Clauses[0]
	cmp := s.Compare(target, cl.Version)
	switch {
	case cmp == 0:
		return keep("requires %s, %s", cl.Version, p.target())
	case cmp < 0:
		return keep("requires %s, newer than %s; a requirement is never lowered", cl.Version, target)
	case !s.Match(target, c):
		return keep("%s is another major version than %s (another module path); not moved", target, cl.Version)
	}
	m := Move{
		Text:        c.Replace(cl, target),
		Changed:     true,
		RaisesLower: true,
		Reason:      fmt.Sprintf("%s is newer than the required %s: the minimum is raised", target, cl.Version),
	}
	return m, nil
}
