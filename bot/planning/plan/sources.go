package plan

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/pinbot-dev/pinbot/internal/diag"
	"github.com/pinbot-dev/pinbot/pins"
	"github.com/pinbot-dev/pinbot/versions"
)

// failPins leaves each pin whose source failed (failed maps a source to
// why) as written, saying where its file names the source and why
// (PinPlan.Failed), with one warning per such place. It returns the other
// pins, which the plan is made of, and the lookups that answered.
func (p *Plan) failPins(pkg Package, failed map[string]string, lookups []Lookup) ([]pins.Pin, []Lookup) {
	var ok []pins.Pin
	warned := map[string]bool{}
	for i := range p.Pins {
		pp := &p.Pins[i]
		why, f := failed[pp.Pin.Source]
		if !f {
			ok = append(ok, pp.Pin)
			continue
		}
		var w error
		if at := pp.Pin.SourceAt; at.Line > 0 {
			pp.Failed = diag.Errorf(pp.Pin.File, at.Line, at.Col, at.Key, "%s: %s", pp.Pin.Source, why).Error()
			w = diag.Errorf(pp.Pin.File, at.Line, at.Col, at.Key, "%s: %s (the %s pins that follow it are left as written; the package's other pins are planned)", pp.Pin.Source, why, pkg.Name)
		} else {
			pp.Failed = pp.Pin.Source + ": " + why
			w = fmt.Errorf("%s: %s (the %s pins that follow it are left as written; the package's other pins are planned)", pp.Pin.Source, why, pkg.Name)
		}
		pp.Reason = "not edited: " + pp.Failed
		if !warned[w.Error()] {
			warned[w.Error()] = true
			p.Warnings = append(p.Warnings, w)
		}
	}
	var answered []Lookup
	for _, l := range lookups {
		if _, f := failed[l.Source]; !f {
			answered = append(answered, l)
		}
	}
	return ok, answered
}

// aboveTarget reports whether the newest release of the pin's own source is
// newer than the target: another source, or a gate, holds the target back,
// and the pin is measured against a release that is not its source's newest.
func (p *Plan) aboveTarget(pin pins.Pin, scheme versions.Scheme) bool {
	v, ok := p.Newest[pin.Source]
	return ok && scheme != nil && scheme.Valid(v) && scheme.Valid(p.Target) && scheme.Compare(v, p.Target) > 0
}

// heldBack says why a pin is measured against a target below the newest
// release of its own source ("0.67.0 is on pypi, but the target is 0.66.0:
// conda-forge has not published 0.67.0 (environment.yml governs numba through
// conda-forge)"), naming the sources that set the target (those whose best
// release is the target) in name order; "" for a pin whose source's newest
// release is the target, and for one pinbot does not plan. ls are the
// lookups that answered.
func (p *Plan) heldBack(pkg Package, pp PinPlan, ls []Lookup, best map[string]string, schemes map[string]versions.Scheme) string {
	scheme := schemes[pp.Pin.Scheme]
	if pp.Failed != "" || pp.Pin.Skip != "" || !p.aboveTarget(pp.Pin, scheme) {
		return ""
	}
	own, v := pp.Pin.Source, p.Newest[pp.Pin.Source]
	var parts []string
	for _, src := range slices.Sorted(maps.Keys(best)) {
		if b := best[src]; scheme.Valid(b) && scheme.Compare(b, p.Target) == 0 {
			parts = append(parts, p.lacks(pkg, src, own, v, ls, scheme, schemes))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return fmt.Sprintf("%s is on %s, but the target is %s: %s", v, own, p.Target, strings.Join(parts, "; "))
}

// lacks says why src, a source that set the target, does not offer v: the
// gate's reason when it lists v ("0.67.0 is 5 hours old on conda-forge,
// min-age 12h"; "0.67.0 is yanked on conda-forge"), else that it has not
// published v. A source other than own, the pin's, is named in the gate's
// reason and says why it is asked.
func (p *Plan) lacks(pkg Package, src, own, v string, ls []Lookup, scheme versions.Scheme, schemes map[string]versions.Scheme) string {
	why := ""
	for _, l := range ls {
		if l.Source != src {
			continue
		}
		for _, r := range l.Releases {
			if scheme.Valid(r.Version) && scheme.Compare(r.Version, v) == 0 {
				if c := pkg.Gate.Check(r, src, src != own, schemes); c != "" {
					why = v + " " + c
				}
				break
			}
		}
	}
	if why == "" {
		why = src + " has not published " + v
	}
	if src != own {
		why += " (" + p.governs(pkg, src) + ")"
	}
	return why
}

// governs says why a source is asked for the package: the files whose pins
// follow it ("environment.yml governs numba through conda-forge"), else the
// configuration's require.
func (p *Plan) governs(pkg Package, src string) string {
	var files []string
	for _, pp := range p.Pins {
		if pp.Pin.Source == src && !slices.Contains(files, pp.Pin.File) {
			files = append(files, pp.Pin.File)
		}
	}
	slices.Sort(files)
	switch {
	case len(files) == 1:
		return fmt.Sprintf("%s governs %s through %s", files[0], p.Name, src)
	case len(files) > 3:
		return fmt.Sprintf("%s, %s and %d other files govern %s through %s", files[0], files[1], len(files)-2, p.Name, src)
	case len(files) > 1:
		return fmt.Sprintf("%s govern %s through %s", list(files), p.Name, src)
	}
	if slices.Contains(pkg.Gate.Require, src) {
		return "the configuration requires " + src
	}
	return src + " is asked for " + p.Name
}
