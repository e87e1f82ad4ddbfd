// Package groups chooses the targets of packages that move together
// (groups: {numba-stack: [numba, llvmlite]}): a set of releases, one per
// member, that each other's dependency metadata admits. With numba 0.67.0
// requiring llvmlite<0.51, llvmlite's target is its newest 0.50.x even when
// 0.51.0 is out; when no set of the releases tried is consistent, the group
// is held, and the reason names the requirements in the way.
//
// It is pure: candidates are listed, and requirements fetched, by the
// caller (Requires may do I/O; its answers should be remembered, since the
// search asks for a release more than once).
//
// It belongs to bot/planning; of bot it imports only bot/planning/holds.
package groups

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/pinbot-dev/pinbot/bot/planning/holds"
	"github.com/pinbot-dev/pinbot/versions"
)

// A Member is one package of a group and the releases it may move to.
type Member struct {
	// Name is the package, normalised as requirements name it.
	Name string
	// Candidates are the releases it may take, most wanted first: its
	// target, older releases after the one its caps admit now, and last
	// that one (staying put). A member whose caps cannot move has only the
	// release they admit.
	Candidates []string
}

// Requires returns what a member's release requires (its requirements that
// apply, or may apply, in the project's environment).
type Requires func(member, version string) ([]holds.Requirement, error)

// DefaultBudget bounds how many releases' requirements one search reads.
const DefaultBudget = 40

// A Choice is a consistent set of releases.
type Choice struct {
	// Versions maps each member to its release.
	Versions map[string]string
	// Why says, for each member below its first candidate, what keeps it
	// there: "numba 0.67.0 requires llvmlite<0.51,>=0.50.0dev0".
	Why map[string]string
}

// ErrInconsistent is wrapped by Solve's error when no set of the releases
// tried is consistent.
var ErrInconsistent = errors.New("no consistent set of releases")

// Solve returns the consistent set of members' releases that is best in
// the members' order: the first member as new as it can be, then the
// second, and so on (a depth-first search over each member's candidates).
// A requirement of one member on another must admit the other's release,
// compared by scheme; a requirement the environment does not decide (its
// marker kept) counts. At most budget releases' requirements are read
// (DefaultBudget when 0). An error from requires ends the search.
func Solve(members []Member, requires Requires, scheme versions.Scheme, budget int) (Choice, error) {
	if budget <= 0 {
		budget = DefaultBudget
	}
	s := &search{members: members, requires: requires, scheme: scheme, budget: budget,
		reqs: map[[2]string][]holds.Requirement{}, chosen: map[string]string{}}
	for _, m := range members {
		if len(m.Candidates) == 0 {
			return Choice{}, fmt.Errorf("%s has no release to move to", m.Name)
		}
	}
	ok, err := s.dfs(0)
	if err != nil {
		return Choice{}, err
	}
	if !ok {
		if len(s.conflicts) == 0 {
			return Choice{}, ErrInconsistent
		}
		return Choice{}, fmt.Errorf("%w: %s", ErrInconsistent, strings.Join(firstN(s.conflicts, 3), "; "))
	}
	c := Choice{Versions: s.chosen, Why: map[string]string{}}
	for _, m := range members {
		if v := s.chosen[m.Name]; scheme.Compare(v, m.Candidates[0]) < 0 {
			c.Why[m.Name] = s.why(m, m.Candidates[0])
		}
	}
	return c, nil
}

type search struct {
	members   []Member
	requires  Requires
	scheme    versions.Scheme
	budget    int
	reads     int
	reqs      map[[2]string][]holds.Requirement
	chosen    map[string]string
	conflicts []string
}

// read returns what member@version requires, reading it once.
func (s *search) read(member, version string) ([]holds.Requirement, error) {
	key := [2]string{member, version}
	if r, ok := s.reqs[key]; ok {
		return r, nil
	}
	if s.reads >= s.budget {
		return nil, fmt.Errorf("%w: gave up after reading the requirements of %d releases", ErrInconsistent, s.reads)
	}
	s.reads++
	r, err := s.requires(member, version)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", member, version, err)
	}
	s.reqs[key] = r
	return r, nil
}

func (s *search) dfs(level int) (bool, error) {
	if level == len(s.members) {
		return true, nil
	}
	m := s.members[level]
	for _, v := range m.Candidates {
		if c := s.excludedBy(m.Name, v); c != "" {
			s.conflict(c)
			continue
		}
		reqs, err := s.read(m.Name, v)
		if err != nil {
			return false, err
		}
		if c := s.unmet(m.Name, v, reqs); c != "" {
			s.conflict(c)
			continue
		}
		s.chosen[m.Name] = v
		ok, err := s.dfs(level + 1)
		if ok || err != nil {
			return ok, err
		}
		delete(s.chosen, m.Name)
	}
	return false, nil
}

// excludedBy returns the requirement of a chosen member that shuts out
// name@v ("numba 0.67.0 requires llvmlite<0.51"), or "".
func (s *search) excludedBy(name, v string) string {
	for _, other := range s.members {
		ov, ok := s.chosen[other.Name]
		if !ok {
			continue
		}
		for _, r := range s.reqs[[2]string{other.Name, ov}] {
			if r.Name == name && !s.admits(r, v) {
				return requirement(other.Name, ov, r)
			}
		}
	}
	return ""
}

// unmet returns the requirement of name@v that a chosen member's release
// does not meet, or "".
func (s *search) unmet(name, v string, reqs []holds.Requirement) string {
	for _, r := range reqs {
		if ov, ok := s.chosen[r.Name]; ok && r.Name != name && !s.admits(r, ov) {
			return requirement(name, v, r) + fmt.Sprintf(" (%s %s is chosen)", r.Name, ov)
		}
	}
	return ""
}

func (s *search) admits(r holds.Requirement, v string) bool {
	c, err := s.scheme.ParseConstraint(r.Constraint)
	if err != nil {
		return false // a requirement pinbot cannot read is not met on trust
	}
	return s.scheme.Match(v, c)
}

func (s *search) conflict(c string) {
	if !slices.Contains(s.conflicts, c) {
		s.conflicts = append(s.conflicts, c)
	}
}

// why says what keeps m from its release want, given the final choice.
func (s *search) why(m Member, want string) string {
	saved := s.chosen[m.Name]
	delete(s.chosen, m.Name)
	defer func() { s.chosen[m.Name] = saved }()
	if c := s.excludedBy(m.Name, want); c != "" {
		return c
	}
	if reqs, ok := s.reqs[[2]string{m.Name, want}]; ok {
		if c := s.unmet(m.Name, want, reqs); c != "" {
			return c
		}
	}
	return "no consistent set with " + m.Name + " " + want
}

// requirement words one requirement: "numba 0.67.0 requires
// llvmlite<0.51,>=0.50.0dev0".
func requirement(pkg, version string, r holds.Requirement) string {
	s := fmt.Sprintf("%s %s requires %s%s", pkg, version, r.Name, r.Constraint)
	if r.Marker != "" {
		s += " (when " + r.Marker + ")"
	}
	return s
}

func firstN(list []string, n int) []string {
	if len(list) <= n {
		return list
	}
	return append(slices.Clone(list[:n]), fmt.Sprintf("and %d more", len(list)-n))
}
