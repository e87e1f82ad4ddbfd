package plan

import (
	"fmt"

	"github.com/pinbot-dev/pinbot/internal/diag"
	"github.com/pinbot-dev/pinbot/versions"
)

// minimumSchemes are the schemes whose constraints are one minimum version,
// never a range: a go.mod require (versions/semver). Their pins are raised to
// the target (versions.RaiseMinimum) and never capped.
var minimumSchemes = map[string]bool{"semver": true}

// A decision is the move of one constraint text: parseErr when it does not
// parse, moveErr when no move could be computed.
type decision struct {
	m                 versions.Move
	parseErr, moveErr error
}

// movePins decides each pin's new constraint for p.Target.
func (p *Plan) movePins(pkg Package, lookups []Lookup, schemes map[string]versions.Scheme) {
	pol := pkg.Policy
	pol.FollowYanked = pol.FollowYanked || pkg.FollowYanked
	// Many pins of a package share a constraint (copies of one file, extras
	// repeating the main dependency): each text is decided once.
	memo := map[[3]string]decision{}
	for i := range p.Pins {
		pp := &p.Pins[i]
		switch {
		case pp.Failed != "":
			continue // its source could not say (failPins)
		case pp.Pin.Skip != "":
			pp.Reason = "not edited: " + pp.Pin.Skip
			continue
		}
		scheme := schemes[pp.Pin.Scheme]
		var d decision
		if scheme == nil {
			d.parseErr = fmt.Errorf("no version scheme %q is registered", pp.Pin.Scheme)
		} else {
			key := [3]string{pp.Pin.Scheme, pp.Pin.Source, pp.Pin.Constraint}
			var seen bool
			if d, seen = memo[key]; !seen {
				pol := pol
				if p.aboveTarget(pp.Pin, scheme) {
					pol.Target = "the target" // heldBack says why it is not the newest release
				}
				d = decide(scheme, pp.Pin.Scheme, pp.Pin.Constraint, p.Target, pol, yankedIn(lookups, pp.Pin.Source, scheme))
				memo[key] = d
			}
		}
		switch {
		case d.parseErr != nil:
			// A watched pin whose constraint pinbot cannot read is left as
			// written with a warning; it hides none of the package's other
			// pins, which are planned.
			pp.Reason = "not edited: its constraint does not parse: " + d.parseErr.Error()
			pp.Conflict = true
			p.Warnings = append(p.Warnings, diag.Errorf(pp.Pin.File, pp.Pin.Line, pp.Pin.Col, pp.Pin.Key, "%s: constraint %q does not parse (pin skipped; the other pins are planned): %v", p.Name, pp.Pin.Constraint, d.parseErr))
			continue
		case d.moveErr != nil:
			pp.Reason = "not edited: " + d.moveErr.Error()
			pp.Conflict = true
			continue
		}
		m := d.m
		pp.New, pp.Changed, pp.Reason = m.Text, m.Changed, m.Reason
		pp.Narrows, pp.Conflict, pp.RaisesLower, pp.Yanked, pp.Lowers = m.Narrows, m.Conflict, m.RaisesLower, m.Yanked, m.Lowers
		pp.Uncapped = m.Uncapped
		if m.Changed && p.Status != Error {
			p.Status = Bump
		}
	}
}

// majors marks each pin whose cap moves across a major version, and says
// so in its reason: such a cap often sits on the boundary on purpose (a
// comment beside "protobuf<7" saying that 7 breaks the generated code).
func (p *Plan) majors(schemes map[string]versions.Scheme) {
	for i := range p.Pins {
		pp := &p.Pins[i]
		if !pp.Changed || minimumSchemes[pp.Pin.Scheme] {
			continue
		}
		scheme := schemes[pp.Pin.Scheme]
		if scheme == nil {
			continue
		}
		old, err1 := scheme.ParseConstraint(pp.Pin.Constraint)
		new, err2 := scheme.ParseConstraint(pp.New)
		if err1 != nil || err2 != nil {
			continue
		}
		if mc, ok := versions.CrossesMajor(scheme, old, new); ok {
			pp.Major = &mc
			pp.Reason = joinReason(pp.Reason, fmt.Sprintf("this crosses a major version (%s → %s)", mc.From, mc.To))
		}
	}
}

// decide moves one constraint text.
func decide(scheme versions.Scheme, name, text, target string, pol versions.Policy, yanked func(string) bool) decision {
	c, err := scheme.ParseConstraint(text)
	if err != nil {
		return decision{parseErr: err}
	}
	var d decision
	if minimumSchemes[name] {
		d.m, d.moveErr = versions.RaiseMinimum(scheme, c, target, pol)
	} else {
		d.m, d.moveErr = versions.NewUpperYanked(scheme, c, target, pol, yanked)
	}
	return d
}

// yankedIn returns whether the source yanked a version, from the releases it
// listed, comparing versions by scheme; nil when it yanked none.
func yankedIn(lookups []Lookup, source string, scheme versions.Scheme) func(string) bool {
	var yanked []string
	for _, l := range lookups {
		if l.Source != source {
			continue
		}
		for _, r := range l.Releases {
			if r.Yanked && scheme.Valid(r.Version) {
				yanked = append(yanked, r.Version)
			}
		}
	}
	if len(yanked) == 0 {
		return nil
	}
	return func(v string) bool {
		if !scheme.Valid(v) {
			return false
		}
		for _, y := range yanked {
			if scheme.Compare(v, y) == 0 {
				return true
			}
		}
		return false
	}
}
