package planning

import (
	"github.com/pinbot-dev/pinbot/bot/planning/plan"
	"github.com/pinbot-dev/pinbot/bot/verifying"
	"github.com/pinbot-dev/pinbot/pins"
	"github.com/pinbot-dev/pinbot/versions"
)

// lag says how far a package's caps lag its target: the newest acceptable
// release every pin admits as written, and how many acceptable releases are
// newer than it, up to the target. It is measured on each source the pins
// follow, with the pins that follow it, and the source whose pins lag most
// is reported; a fleet's dashboard charts it. A package with no target lags
// by nothing it can say ("", 0).
func (c *Checker) lag(p plan.Plan, prereleases bool, ps []pins.Pin, lookups []plan.Lookup) (admits string, behind int) {
	if p.Target == "" {
		return "", 0
	}
	for _, l := range lookups {
		if l.Err != nil {
			continue
		}
		var scheme versions.Scheme
		var own []pins.Pin
		for _, pin := range ps {
			if pin.Source == l.Source && pin.Skip == "" {
				if s := c.Schemes[pin.Scheme]; s != nil {
					scheme, own = s, append(own, pin)
				}
			}
		}
		if scheme == nil {
			continue
		}
		target := p.Target
		if t, ok := p.Newest[l.Source]; ok && scheme.Compare(t, target) < 0 {
			target = t
		}
		accepted := verifying.Acceptable(scheme, l.Releases, prereleases)
		admitted := currentRelease(c.Schemes, accepted, own)
		n := 0
		for _, r := range accepted {
			if scheme.Compare(r.Version, target) <= 0 && (admitted == nil || scheme.Compare(r.Version, admitted.Version) > 0) {
				n++
			}
		}
		if n > behind || admits == "" {
			admits, behind = versionOf(admitted), n
		}
	}
	return admits, behind
}
