package plan

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/pinbot-dev/pinbot/pins"
	"github.com/pinbot-dev/pinbot/versions"
)

// A Drift is one of the ranges a package's pins disagree on: its bounds and
// the pins that have it.
type Drift struct {
	// Marker is the environment marker the pins share ("" for none): pins
	// under different markers are split on purpose and never compared.
	Marker string
	// Lower and Upper are the range's bounds as clauses (">=0.58",
	// "<=0.67.0"), "" where there is none. One-clause ranges are spelled out:
	// ^0.56.0 is >=0.56.0 and <0.57.
	Lower, Upper string
	Pins         []pins.Pin
}

// A ranged pin is a pin with the bounds of its planned constraint.
type ranged struct {
	pp           *PinPlan
	scheme       versions.Scheme
	c            versions.Constraint
	lower, upper versions.Bound
}

// ranges returns the pins whose planned constraints pinbot can read as one
// range, grouped by environment marker, in pin order.
func ranges(ps []PinPlan, schemes map[string]versions.Scheme) (markers []string, groups map[string][]ranged) {
	groups = map[string][]ranged{}
	type parsed struct {
		r  ranged
		ok bool
	}
	memo := map[[2]string]parsed{} // scheme, text: pins often share a constraint
	for i := range ps {
		pp := &ps[i]
		scheme := schemes[pp.Pin.Scheme]
		if pp.Pin.Skip != "" || scheme == nil {
			continue
		}
		key := [2]string{pp.Pin.Scheme, pp.New}
		pr, seen := memo[key]
		if !seen {
			pr.r.scheme = scheme
			c, err := scheme.ParseConstraint(pp.New)
			pr.r.c, pr.ok = c, err == nil
			switch {
			case !pr.ok:
			case minimumSchemes[pp.Pin.Scheme]:
				pr.ok = len(c.Clauses) == 1
				if pr.ok {
					pr.r.lower = versions.Bound{Op: versions.GE, Version: c.Clauses[0].Version}
				}
			default:
				pr.r.lower, pr.r.upper, pr.ok = versions.Bounds(scheme, c)
			}
			memo[key] = pr
		}
		if !pr.ok {
			continue
		}
		r := pr.r
		r.pp = pp
		m := marker(pp.Pin)
		if _, seen := groups[m]; !seen {
			markers = append(markers, m)
		}
		groups[m] = append(groups[m], r)
	}
	return markers, groups
}

// marker returns the group a pin is compared in: the condition under which it
// applies (its Condition, else the environment marker of a PEP 508
// requirement text, what follows ";" after the version), prefixed with
// "build" for a build-time requirement, whose range differs from the
// runtime ones on purpose.
func marker(p pins.Pin) string {
	m := condition(p)
	switch {
	case p.Build && m != "":
		return "build; " + m
	case p.Build:
		return "build"
	}
	return m
}

func condition(p pins.Pin) string {
	if p.Condition != "" {
		return p.Condition
	}
	end := p.Span.End - p.TextStart
	if end < 0 || end > len(p.Text) {
		return ""
	}
	rest := p.Text[end:]
	if i := strings.IndexByte(rest, ';'); i >= 0 && !strings.Contains(rest[:i], "#") {
		return strings.TrimSpace(rest[i+1:])
	}
	return ""
}

// boundKey spells a bound so that equal bounds compare equal as strings
// (">=0.58.0" and ">=0.58" both give ">=0.58").
func boundKey(b versions.Bound) string {
	if b.Version == "" {
		return ""
	}
	v := b.Version
	for strings.HasSuffix(v, ".0") && strings.Count(v, ".") > 0 {
		v = strings.TrimSuffix(v, ".0")
	}
	return string(b.Op) + v
}

// drift returns the ranges of pins that disagree, per marker.
func drift(ps []PinPlan, schemes map[string]versions.Scheme) []Drift {
	markers, groups := ranges(ps, schemes)
	var out []Drift
	for _, m := range markers {
		var ds []Drift
		index := map[string]int{}
		for _, r := range groups[m] {
			k := boundKey(r.lower) + "," + boundKey(r.upper)
			i, ok := index[k]
			if !ok {
				i = len(ds)
				index[k] = i
				ds = append(ds, Drift{Marker: m, Lower: r.lower.String(), Upper: r.upper.String()})
			}
			ds[i].Pins = append(ds[i].Pins, r.pp.Pin)
		}
		if len(ds) > 1 {
			out = append(out, ds...)
		}
	}
	return out
}

// unify brings the pins of each marker group to one range: the strictest
// lower bound any of them has (so no file admits a version another file rules
// out as too old) and the highest cap (so no cap is lowered; after the plan
// every cap admits the target). Only pins written as separate bounds (>=, >,
// <=, <, with any != clauses) set the range and are rewritten; one-clause
// ranges (==, ~=, ^, ~, 0.61.*) keep their shape, are reported, and remain
// in the drift report if they disagree. A pin without a cap gains the
// unified cap only when add-cap is on; a pin without a lower bound gains the
// unified one, taken from the package's other pins.
func (p *Plan) unify(pkg Package, schemes map[string]versions.Scheme) {
	markers, groups := ranges(p.Pins, schemes)
	for _, m := range markers {
		group := groups[m]
		if len(group) < 2 {
			continue
		}
		var lower, upper versions.Bound
		s := group[0].scheme
		for _, r := range group {
			if !separateBounds(r) || r.pp.Failed != "" {
				continue // kept as written: its bounds do not set the range
			}
			if versions.CompareLower(s, r.lower, lower) > 0 {
				lower = r.lower
			}
			if r.upper.Version != "" && (upper.Version == "" || versions.CompareUpper(s, r.upper, upper) > 0) {
				upper = r.upper
			}
		}
		for _, r := range group {
			if r.pp.Failed == "" {
				p.unifyPin(r, lower, upper, pkg.Policy.AddCap)
			}
		}
	}
}

// separateBounds reports whether r is written as separate bounds: at most one
// lower and one upper clause, besides exclusions, and not a go.mod minimum.
func separateBounds(r ranged) bool {
	if minimumSchemes[r.pp.Pin.Scheme] {
		return false
	}
	lo, up := 0, 0
	for _, cl := range r.c.Clauses {
		switch {
		case cl.Lower():
			lo++
		case cl.Upper():
			up++
		case cl.Op != versions.NE:
			return false
		}
	}
	return lo <= 1 && up <= 1
}

// unifyPin rewrites one pin's planned constraint to the bounds lower and upper.
func (p *Plan) unifyPin(r ranged, lower, upper versions.Bound, addCap bool) {
	pp := r.pp
	if boundKey(r.lower) == boundKey(lower) && (boundKey(r.upper) == boundKey(upper) || r.upper.Version == "" && !addCap) {
		return
	}
	var lo, up []versions.Clause
	for _, cl := range r.c.Clauses {
		switch {
		case cl.Lower():
			lo = append(lo, cl)
		case cl.Upper():
			up = append(up, cl)
		case cl.Op == versions.NE:
		default:
			pp.Reason = joinReason(pp.Reason, fmt.Sprintf("not unified: %s is one clause for both bounds", r.c.Text[cl.Start:cl.End]))
			return
		}
	}
	if len(lo) > 1 || len(up) > 1 || minimumSchemes[pp.Pin.Scheme] {
		pp.Reason = joinReason(pp.Reason, "not unified: pinbot unifies pins with at most one lower and one upper bound")
		return
	}
	type edit struct {
		start, end int
		text       string
	}
	var edits []edit
	text := r.c.Text
	sep := ","
	if strings.Contains(text, ", ") {
		sep = ", "
	}
	raised := false
	if boundKey(r.lower) != boundKey(lower) && lower.Version != "" {
		raised = true
		if len(lo) == 1 {
			cl := lo[0]
			edits = append(edits, edit{cl.Start, cl.End, string(lower.Op) + text[cl.Start+len(cl.Op):cl.VersionStart] + lower.Version})
		} else if len(r.c.Clauses) == 0 {
			edits = append(edits, edit{0, len(text), lower.String()})
		} else {
			edits = append(edits, edit{r.c.Clauses[0].Start, r.c.Clauses[0].Start, lower.String() + sep})
		}
	}
	if boundKey(r.upper) != boundKey(upper) && upper.Version != "" {
		switch {
		case len(up) == 1:
			cl := up[0]
			edits = append(edits, edit{cl.Start, cl.End, string(upper.Op) + text[cl.Start+len(cl.Op):cl.VersionStart] + upper.Version})
		case !addCap:
		case len(r.c.Clauses) == 0 && len(edits) == 1:
			edits[0].text += sep + upper.String()
		case len(r.c.Clauses) == 0:
			edits = append(edits, edit{0, len(text), upper.String()})
		default:
			last := r.c.Clauses[len(r.c.Clauses)-1]
			edits = append(edits, edit{last.End, last.End, sep + upper.String()})
		}
	}
	slices.SortFunc(edits, func(a, b edit) int { return cmp.Compare(b.start, a.start) })
	for _, e := range edits {
		text = text[:e.start] + e.text + text[e.end:]
	}
	nc, err := r.scheme.ParseConstraint(text)
	if err != nil || (p.Target != "" && r.scheme.Match(p.Target, r.c) && !r.scheme.Match(p.Target, nc)) {
		pp.Reason = joinReason(pp.Reason, fmt.Sprintf("not unified: %q would not admit %s", text, p.Target))
		return
	}
	if text == pp.New {
		return
	}
	pp.New, pp.Changed = text, text != pp.Pin.Constraint
	pp.RaisesLower = pp.RaisesLower || raised
	note := "unified with the package's other pins to " + strings.Trim(lower.String()+","+upper.String(), ",")
	if raised {
		note += "; this raises the lower bound"
	}
	pp.Reason = joinReason(pp.Reason, note)
	if pp.Changed && p.Status != Error {
		p.Status = Bump
	}
}

func joinReason(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}
