package versions

import (
	"fmt"
	"strings"
)

// A Strategy says how a cap moves when a newer release is accepted.
type Strategy string

// The cap strategies.
const (
	// Inclusive caps at the newest accepted release: "<=0.67.0", the
	// tested-through cap (pytensor's canonical numba>=X.Y,<=A.B.C).
	Inclusive Strategy = "inclusive"
)

// A Policy says how NewUpper moves the cap of one pin.
type Policy struct {
	Strategy Strategy
	// AddCap gives a constraint with no upper bound one.
	AddCap bool
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
}

// NewUpper moves the upper bound of c so that it admits target, following p. Only
// the bytes of the upper-bound clause change (or a clause is appended); lower
// bounds, exclusions and spacing stay as written. A cap is never lowered: a cap
// already above target is left alone.
func NewUpper(s Scheme, c Constraint, target string, p Policy) (Move, error) {
	keep := func(format string, args ...any) (Move, error) {
		return Move{Text: c.Text, Reason: fmt.Sprintf(format, args...)}, nil
	}
	if !s.Valid(target) {
		return Move{}, fmt.Errorf("target %q is not a valid %s version", target, s.Name())
	}
	if c.Or {
		return keep("constraint %q has alternatives; pinbot does not edit it", c.Text)
	}
	if p.Strategy != Inclusive {
		return Move{}, fmt.Errorf("cap strategy %q is not supported", p.Strategy)
	}
	var uppers []Clause
	for _, cl := range c.Clauses {
		if cl.Upper() {
			uppers = append(uppers, cl)
			continue
		}
		admits := s.Match(target, Constraint{Text: c.Text, Clauses: []Clause{cl}})
		switch {
		case cl.ImpliedUpper() && !cl.Wildcard() && (cl.Op == EQ || cl.Op == Exact || cl.Op == Arbitrary):
			if admits {
				return keep("exact pin %s admits %s", clauseText(c, cl), target)
			}
			return keep("exact pin %s; the %s strategy does not move exact pins", clauseText(c, cl), p.Strategy)
		case cl.ImpliedUpper() && !admits:
			m, _ := keep("%s caps below %s; the %s strategy does not rewrite it", clauseText(c, cl), target, p.Strategy)
			m.Conflict = true
			return m, nil
		case !admits:
			m, _ := keep("%s excludes %s; left as written", clauseText(c, cl), target)
			m.Conflict = true
			return m, nil
		}
	}
	newCap := string(LE) + target
	var m Move
	switch len(uppers) {
	case 0:
		for _, cl := range c.Clauses {
			if cl.ImpliedUpper() {
				return keep("%s already admits %s", clauseText(c, cl), target)
			}
		}
		if !p.AddCap {
			return keep("no upper bound, and add-cap is off")
		}
		if len(c.Clauses) == 0 {
			m = Move{Text: newCap, Reason: "no upper bound: capped at the newest release"}
			break
		}
		last := c.Clauses[len(c.Clauses)-1]
		sep := ","
		if strings.Contains(c.Text, ", ") {
			sep = ", "
		}
		m = Move{
			Text:   c.Text[:last.End] + sep + newCap + c.Text[last.End:],
			Reason: "no upper bound: capped at the newest release",
		}
	case 1:
		up := uppers[0]
		// Keep whatever spacing the pin puts between operator and version.
		gap := c.Text[up.Start+len(up.Op) : up.VersionStart]
		repl := string(LE) + gap + target
		cmp := s.Compare(target, up.Version)
		switch {
		case up.Op == LE && cmp == 0:
			return keep("cap %s already admits the newest release", clauseText(c, up))
		case up.Op == LE && cmp < 0:
			return keep("cap %s is above the newest release %s; a cap is never lowered", clauseText(c, up), target)
		case up.Op == LE:
			m = Move{Text: c.Replace(up, repl), Reason: fmt.Sprintf("%s is newer than the cap %s", target, clauseText(c, up))}
		case cmp >= 0:
			m = Move{Text: c.Replace(up, repl), Reason: fmt.Sprintf("%s is not admitted by %s: capped at the newest release", target, clauseText(c, up))}
		default:
			m = Move{
				Text:    c.Replace(up, repl),
				Narrows: true,
				Reason: fmt.Sprintf("exclusive cap %s becomes the tested-through %s%s; this narrows the range (releases after %s up to %s are no longer admitted)",
					clauseText(c, up), LE, target, target, up.Version),
			}
		}
	default:
		return keep("constraint %q has %d upper bounds; pinbot does not edit it", c.Text, len(uppers))
	}
	m.Changed = m.Text != c.Text
	nc, err := s.ParseConstraint(m.Text)
	if err != nil {
		return Move{}, fmt.Errorf("new constraint %q does not parse: %w", m.Text, err)
	}
	if !s.Match(target, nc) {
		return Move{}, fmt.Errorf("new constraint %q does not admit %s", m.Text, target)
	}
	return m, nil
}

func clauseText(c Constraint, cl Clause) string { return c.Text[cl.Start:cl.End] }
