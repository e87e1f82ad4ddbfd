// Package versions defines the version schemes pinbot orders releases with and the
// constraint model they share.
//
// A constraint is a list of clauses, each with its byte span in the constraint text,
// so that moving an upper bound replaces the bytes of one clause and nothing else.
// Each ecosystem has its own Scheme (versions/pep440, versions/conda, ...): the
// schemes disagree on real inputs, so a version is only ever compared by the scheme
// of the pin it came from.
package versions

import (
	"fmt"
	"strings"
)

// A Scheme is the version grammar of one ecosystem: pure string logic, no I/O.
// Implementations are safe for concurrent use.
type Scheme interface {
	// Name is the scheme's identifier: "pep440", "conda", "semver", ...
	Name() string
	// Valid reports whether v is a version of this scheme.
	Valid(v string) bool
	// Compare orders a and b (-1, 0, +1). Invalid versions sort below valid ones
	// and equal to each other, as in golang.org/x/mod/semver.
	Compare(a, b string) int
	// Prerelease reports whether v is a pre-release (alpha, beta, rc, dev).
	Prerelease(v string) bool
	// ParseConstraint splits a constraint into clauses with their spans.
	ParseConstraint(text string) (Constraint, error)
	// Match reports whether v satisfies every clause of c.
	Match(v string, c Constraint) bool
}

// An Op is the operator of a constraint clause.
type Op string

// The operators of the constraint grammars pinbot reads.
const (
	GE         Op = ">="
	LE         Op = "<="
	GT         Op = ">"
	LT         Op = "<"
	EQ         Op = "=="
	NE         Op = "!="
	Compatible Op = "~="  // PEP 440 compatible release: ~=2.16 is >=2.16,==2.*
	Arbitrary  Op = "===" // PEP 440 arbitrary equality: never rewritten
	Caret      Op = "^"   // Poetry: ^0.56.0 is >=0.56.0,<0.57.0
	Tilde      Op = "~"   // Poetry: ~1.2 is >=1.2,<1.3
	Fuzzy      Op = "="   // conda: =0.61 is 0.61.*
	Exact      Op = ""    // a bare version: conda exact match (prefix match with .*), Poetry ==
)

// A Clause is one comparison of a constraint.
type Clause struct {
	Op Op
	// Version is the version as written, without operator or spaces; it may end
	// in ".*" (or "*" in conda).
	Version string
	// Start and End are the byte span of the clause (operator through version)
	// within Constraint.Text; VersionStart is where Version begins.
	Start, End, VersionStart int
	// Pattern is set when the clause matches by a pattern rather than by
	// version order: a conda regular expression (^1\.7\..*$), a glob inside a
	// version (1.*.1) or an exact string (1.0@x). Its bounds are unknown and
	// pinbot never rewrites it.
	Pattern bool
}

// Wildcard reports whether the clause is a prefix match (==0.61.*, 0.47*).
func (c Clause) Wildcard() bool { return strings.HasSuffix(c.Version, "*") }

// Upper reports whether the clause is an explicit upper bound (< or <=).
func (c Clause) Upper() bool { return c.Op == LT || c.Op == LE }

// Lower reports whether the clause is an explicit lower bound (> or >=).
func (c Clause) Lower() bool { return c.Op == GT || c.Op == GE }

// ImpliedUpper reports whether the clause caps versions without being an explicit
// upper bound: exact pins, prefix matches, ~=, ^ and ~.
func (c Clause) ImpliedUpper() bool {
	switch c.Op {
	case EQ, Arbitrary, Compatible, Caret, Tilde, Fuzzy, Exact:
		return true
	}
	return false
}

// A Constraint is a parsed version constraint such as ">=0.58,<=0.66.0".
type Constraint struct {
	Text    string
	Clauses []Clause
	// Or is set when the constraint has alternatives (conda "|"); pinbot reports
	// such constraints and never edits them.
	Or bool
}

// Upper returns the explicit upper-bound clause, if there is exactly one.
func (c Constraint) Upper() (Clause, bool) { return c.only(Clause.Upper) }

// Lower returns the explicit lower-bound clause, if there is exactly one.
func (c Constraint) Lower() (Clause, bool) { return c.only(Clause.Lower) }

func (c Constraint) only(pred func(Clause) bool) (Clause, bool) {
	var found Clause
	n := 0
	for _, cl := range c.Clauses {
		if pred(cl) {
			found = cl
			n++
		}
	}
	return found, n == 1
}

// Replace returns the constraint text with the bytes of cl replaced by s.
func (c Constraint) Replace(cl Clause, s string) string {
	return c.Text[:cl.Start] + s + c.Text[cl.End:]
}

// A SyntaxError reports a constraint that does not parse; Offset is the byte
// position in the constraint text.
type SyntaxError struct {
	Text   string
	Offset int
	Msg    string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("invalid constraint %q at offset %d: %s", e.Text, e.Offset, e.Msg)
}

// Max returns the greatest of vs by s, or "" when vs is empty.
func Max(s Scheme, vs []string) string {
	best := ""
	for _, v := range vs {
		if best == "" || s.Compare(v, best) > 0 {
			best = v
		}
	}
	return best
}
