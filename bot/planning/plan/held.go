package plan

import (
	"fmt"
	"strings"

	"github.com/pinbot-dev/pinbot/versions"
)

// holds marks each pin whose constraint after the plan shuts out the target
// (Held), with the configuration that would move it (Fix), and settles the
// status: a plan in which nothing moves but a pin shuts out the target is
// held, not current. Pins pinbot does not edit (Skip) count too: a
// pip-compiled numba==0.66.0 holds numba as surely as a cap does.
func (p *Plan) holds(pkg Package, lookups []Lookup, schemes map[string]versions.Scheme) {
	if p.Status == Error || p.Target == "" {
		return
	}
	pol := pkg.Policy
	pol.FollowYanked = pol.FollowYanked || pkg.FollowYanked
	for i := range p.Pins {
		pp := &p.Pins[i]
		name := pp.Pin.Scheme
		scheme := schemes[name]
		if scheme == nil || minimumSchemes[name] || pp.Failed != "" {
			continue // a go.mod minimum is raised, never held; a failed pin's source said nothing
		}
		before, err := scheme.ParseConstraint(pp.Pin.Constraint)
		if err != nil {
			continue // reported as an error, or a pin pinbot cannot read
		}
		pp.admitsBefore = scheme.Match(p.Target, before)
		after := before
		if pp.New != pp.Pin.Constraint {
			if after, err = scheme.ParseConstraint(pp.New); err != nil {
				continue
			}
		}
		if scheme.Match(p.Target, after) {
			continue
		}
		pp.Held = true
		if pp.Pin.Skip == "" {
			pp.Fix = fix(scheme, name, pp.Pin.Constraint, p.Target, pol, yankedIn(lookups, pp.Pin.Source, scheme))
		}
	}
	p.Settle()
}

// fix returns the configuration under which the constraint would move to
// admit target ("cap: preserve", "yanked: follow"), or "" when none would.
func fix(scheme versions.Scheme, name, constraint, target string, pol versions.Policy, yanked func(string) bool) string {
	preserve, follow := pol, pol
	preserve.Strategy = versions.Preserve
	follow.FollowYanked = true
	both := preserve
	both.FollowYanked = true
	for _, alt := range []struct {
		text string
		pol  versions.Policy
	}{{"cap: preserve", preserve}, {"yanked: follow", follow}, {"cap: preserve and yanked: follow", both}} {
		if alt.pol == pol {
			continue
		}
		d := decide(scheme, name, constraint, target, alt.pol, yanked)
		if d.parseErr == nil && d.moveErr == nil && d.m.Changed {
			return alt.text
		}
	}
	return ""
}

// Settle sets the status from the pins after they changed: bump when a pin
// moves, held when none does but one shuts out the target, else current;
// Hold says which pins hold the package and what would move them. Error and
// blocked plans keep their status.
func (p *Plan) Settle() {
	if p.Status == Error || p.Status == Blocked {
		return
	}
	moved := false
	var held []string
	for _, pp := range p.Pins {
		moved = moved || pp.Changed
		if pp.Held {
			held = append(held, holdText(pp, p.Target))
		}
	}
	switch {
	case moved:
		p.Status, p.Hold = Bump, ""
	case len(held) > 0:
		p.Status, p.Hold = Held, strings.Join(held, "; ")
	default:
		p.Status, p.Hold = Current, ""
	}
}

// holdText describes one held pin: where, what shuts the target out, and
// what would move it.
func holdText(pp PinPlan, target string) string {
	s := fmt.Sprintf("%s:%d %s shuts out %s", pp.Pin.File, pp.Pin.Line, strings.TrimSpace(pp.Pin.Text), target)
	r := strings.TrimPrefix(pp.Reason, "not edited: ")
	if r != "" {
		s += ": " + r
	}
	if pp.Fix != "" && !strings.Contains(r, pp.Fix) {
		s += "; " + pp.Fix + " would move it"
	}
	return s
}

// Revert leaves pin i as written (its move could not be made, say for want
// of a hash-locked pin's new hashes), with the reason, and settles the
// status: a reverted pin that shuts out the target holds the package.
func (p *Plan) Revert(i int, reason string) {
	pp := &p.Pins[i]
	pp.New, pp.Changed = pp.Pin.Constraint, false
	pp.Narrows, pp.RaisesLower, pp.Lowers, pp.Major = false, false, false, nil
	pp.Held, pp.Fix = !pp.admitsBefore, ""
	pp.Reason = reason
	p.Settle()
}

// SetHeld holds the package for a reason other than its pins (a check that
// cannot be run for the target, say): status held, with the reason added to
// Hold. Error and blocked plans keep their status.
func (p *Plan) SetHeld(reason string) {
	if p.Status == Error || p.Status == Blocked {
		return
	}
	p.Status = Held
	if p.Hold == "" {
		p.Hold = reason
	} else {
		p.Hold += "; " + reason
	}
}

// HoldAll leaves every pin as written and holds the package for reason, a
// cause outside its pins (its group has no consistent set of targets, say):
// each pin that would have moved goes back, saying reason, and Hold gives
// what already shut the target out, then reason. A package none of whose
// pins moved and that was not held stays as it is (current); error and
// blocked plans keep their status.
func (p *Plan) HoldAll(reason string) {
	if p.Status == Error || p.Status == Blocked {
		return
	}
	moved := false
	var held []string
	for i := range p.Pins {
		pp := &p.Pins[i]
		if pp.Changed {
			moved = true
			pp.New, pp.Changed = pp.Pin.Constraint, false
			pp.Narrows, pp.RaisesLower, pp.Lowers, pp.Major = false, false, false, nil
			pp.Held, pp.Fix = !pp.admitsBefore, ""
			pp.Reason = "not moved: " + reason
		} else if pp.Held {
			held = append(held, holdText(*pp, p.Target))
		}
	}
	if !moved && p.Status != Held {
		return
	}
	p.Status, p.Hold = Held, strings.Join(append(held, reason), "; ")
}
