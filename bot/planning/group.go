package planning

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/pinbot-dev/pinbot/bot/planning/groups"
	"github.com/pinbot-dev/pinbot/bot/planning/holds"
	"github.com/pinbot-dev/pinbot/bot/planning/plan"
	"github.com/pinbot-dev/pinbot/bot/report"
	"github.com/pinbot-dev/pinbot/bot/verifying"
	"github.com/pinbot-dev/pinbot/config"
	"github.com/pinbot-dev/pinbot/pins"
	"github.com/pinbot-dev/pinbot/sources"
	"github.com/pinbot-dev/pinbot/versions/pep440"
)

// maxGroupCandidates bounds the releases of one member a group's search
// tries below its target, beside the release its caps admit now.
const maxGroupCandidates = 8

// A groupRun is this run's groups: which planned packages move together,
// the releases each member's checks install beside it, and why targets
// were moved.
type groupRun struct {
	// members maps a group name to its members that the run plans, in the
	// order the configuration lists them.
	members map[string][]string
	// of maps a member to its group.
	of map[string]string
	// notes says, per group, what the consistent set changed, or why none
	// was found.
	notes map[string]string
	// baseline returns a member's baseline as it is installed beside the
	// other members' baselines (nil: none), decided when first asked
	// (memberBaselines); nil until memberBaselines sets it.
	baseline func(ctx context.Context, member string) *verifying.Beside
}

// groupsOf returns the run's groups among the packages planned: a group
// with no planned member is left out.
func groupsOf(cfg *config.Config, planned []string) *groupRun {
	g := &groupRun{members: map[string][]string{}, of: map[string]string{}, notes: map[string]string{}}
	for name, ms := range cfg.Groups {
		for _, m := range ms {
			if slices.Contains(planned, m) {
				g.members[name] = append(g.members[name], m)
				g.of[m] = name
			}
		}
	}
	return g
}

// planGroups moves each group's members to one consistent set of targets
// (bot/planning/groups), read from the members' dependency metadata: a member whose
// target the others' requirements shut out is planned again at the
// release the set chose for it. A group with no consistent set, or whose
// metadata cannot be read, is held: none of its caps move.
func (c *Checker) planGroups(ctx context.Context, log *slog.Logger, g *groupRun, plans []plan.Plan, pkgs []plan.Package,
	byPkg map[string][]pins.Pin, lookups map[string][]plan.Lookup, settings map[string]*config.Package) {
	index := map[string]int{}
	for i, p := range plans {
		index[p.Name] = i
	}
	for _, name := range slices.Sorted(maps.Keys(g.members)) {
		ms := g.members[name]
		if len(ms) < 2 {
			continue // one member planned: it moves as it would alone
		}
		hold := func(reason string) {
			g.notes[name] = reason
			for _, m := range ms {
				holdMember(&plans[index[m]], name, reason)
			}
		}
		var failed []string
		for _, m := range ms {
			if plans[index[m]].Status == plan.Error {
				failed = append(failed, m)
			}
		}
		if len(failed) > 0 {
			hold(fmt.Sprintf("%s could not be planned, so no member moves", strings.Join(failed, " and ")))
			continue
		}
		members, releases, err := c.groupMembers(ms, plans, index, byPkg, lookups, settings)
		if err != nil {
			hold(err.Error())
			continue
		}
		// Requirements name the members in the scheme of their metadata
		// (PEP 440 on PyPI), which groupMembers found for every member.
		_, scheme, _ := c.metadataSource(lookups[ms[0]])
		requires := func(member, version string) ([]holds.Requirement, error) {
			r := releases[member][version]
			raw, err := c.requires(ctx, r.source, member, r.release)
			if err != nil {
				return nil, err
			}
			var env holds.Env
			if s := settings[member]; s != nil {
				env.Pythons = s.Python
			}
			reqs, _ := parseRequires(raw, env, scheme)
			return reqs, nil
		}
		choice, err := groups.Solve(members, requires, scheme, 0)
		if err != nil {
			log.Warn("group held", "group", name, "err", err)
			hold(err.Error())
			continue
		}
		var moved []string
		for _, m := range ms {
			want := choice.Versions[m]
			p := &plans[index[m]]
			if p.Target == "" || scheme.Compare(want, p.Target) >= 0 {
				continue
			}
			why := choice.Why[m]
			reason := p.Reason
			*p = plan.Make(pkgs[index[m]], byPkg[m], capLookups(lookups[m], byPkg[m], want, c.Schemes), c.Schemes)
			if c.holdHashed(ctx, log, *p, byPkg[m]) {
				*p = plan.Make(pkgs[index[m]], byPkg[m], capLookups(lookups[m], byPkg[m], want, c.Schemes), c.Schemes)
			}
			p.Reason = fmt.Sprintf("%s; group %s: %s → %s", reason, name, why, p.Target)
			moved = append(moved, fmt.Sprintf("%s %s (%s)", m, p.Target, why))
		}
		if len(moved) > 0 {
			g.notes[name] = "consistent targets: " + strings.Join(moved, "; ")
		}
	}
}

// holdMember holds a member of group for reason, its caps left as written
// (plan.HoldAll).
func holdMember(p *plan.Plan, group, reason string) { p.HoldAll(groupHold(group, reason)) }

// groupHold is what a member's hold says of its group holding it: "group
// numba-stack: no consistent set ..."; with reason "", the start every such
// hold has (heldVerdict looks for it).
func groupHold(group, reason string) string { return "group " + group + ": " + reason }

// A memberRelease is a release of a group member on the source whose
// metadata says what it requires.
type memberRelease struct {
	source  string
	release sources.Release
}

// groupMembers lists each member's candidates, newest first: for a member
// whose cap moves up, its target, the releases after the one its caps
// admit now, and that one (staying put); for a member whose pins have no
// cap, any release up to its target (a cap added there, or pip's pick);
// for a held or current member, only the release its caps admit.
func (c *Checker) groupMembers(ms []string, plans []plan.Plan, index map[string]int, byPkg map[string][]pins.Pin,
	lookups map[string][]plan.Lookup, settings map[string]*config.Package) ([]groups.Member, map[string]map[string]memberRelease, error) {
	var out []groups.Member
	releases := map[string]map[string]memberRelease{}
	for _, m := range ms {
		p := plans[index[m]]
		l, scheme, ok := c.metadataSource(lookups[m])
		if !ok {
			return nil, nil, fmt.Errorf("what %s requires cannot be read: none of its sources publishes dependency metadata", m)
		}
		prereleases := settings[m] != nil && settings[m].Prereleases
		accepted := verifying.Acceptable(scheme, l.Releases, prereleases)
		var own []pins.Pin
		for _, pin := range byPkg[m] {
			if pin.Source == l.Source {
				own = append(own, pin)
			}
		}
		if len(own) == 0 {
			own = byPkg[m]
		}
		admitted := currentRelease(c.Schemes, accepted, own)
		releases[m] = map[string]memberRelease{}
		add := func(r sources.Release) {
			releases[m][r.Version] = memberRelease{l.Source, r}
		}
		var cands []string
		upTo := func(floor *sources.Release) {
			for _, r := range accepted {
				if len(cands) == maxGroupCandidates {
					break
				}
				if scheme.Compare(r.Version, p.Target) <= 0 && (floor == nil || scheme.Compare(r.Version, floor.Version) > 0) {
					cands = append(cands, r.Version)
					add(r)
				}
			}
		}
		switch {
		case p.Status == plan.Bump && (admitted == nil || scheme.Compare(admitted.Version, p.Target) >= 0),
			p.Status == plan.Current && c.uncapped(byPkg[m]):
			// Its pins have no cap: one may be added at any release up to
			// the target (add-cap), or pip picks any release.
			upTo(nil)
		case p.Status != plan.Bump:
			// Held, or current: its caps do not move; it stays where
			// they are.
			if admitted != nil {
				cands = append(cands, admitted.Version)
				add(*admitted)
			}
		default:
			// Its cap moves up: to a release after the one it admits,
			// or not at all.
			upTo(admitted)
			cands = append(cands, admitted.Version)
			add(*admitted)
		}
		if len(cands) == 0 {
			return nil, nil, fmt.Errorf("%s has no release its caps admit or could move to", m)
		}
		out = append(out, groups.Member{Name: m, Candidates: cands})
	}
	return out, releases, nil
}

// uncapped reports whether no pin of ps caps versions: no upper bound, no
// exact or prefix pin, no exclusion.
func (c *Checker) uncapped(ps []pins.Pin) bool {
	for _, pin := range ps {
		scheme := c.Schemes[pin.Scheme]
		if scheme == nil || pin.Skip != "" {
			return false
		}
		ct, err := scheme.ParseConstraint(pin.Constraint)
		if err != nil {
			return false
		}
		for _, cl := range ct.Clauses {
			if !cl.Lower() {
				return false
			}
		}
	}
	return true
}

// together returns, for each member of a group that moves, the releases its
// checks install beside it: the other members' targets, name==version.
func (g *groupRun) together(plans []plan.Plan) map[string][]string {
	targets := map[string]string{}
	for _, p := range plans {
		if g.of[p.Name] != "" && p.Target != "" {
			targets[p.Name] = p.Target
		}
	}
	out := map[string][]string{}
	for _, ms := range g.members {
		if len(ms) < 2 {
			continue
		}
		for _, m := range ms {
			with := []string{}
			for _, o := range ms {
				if o != m && targets[o] != "" {
					with = append(with, o+"=="+targets[o])
				}
			}
			out[m] = with
		}
	}
	return out
}

// memberBaselines lets g say each member's baseline, where the probes
// install it (PyPI): the release its caps admit now, as baselineOf decides
// a checked package's, name==version. It is decided when a member's checks
// first ask (baselineWith), once per member, so that a run that verifies
// no group member asks nothing more. A member whose caps admit no release
// (or whose releases cannot be had) has none, and is installed beside no
// baseline.
func (c *Checker) memberBaselines(g *groupRun, pkgs []plan.Package, byPkg map[string][]pins.Pin, lookups map[string][]plan.Lookup) {
	var mu sync.Mutex
	decided := map[string]*verifying.Beside{}
	g.baseline = func(ctx context.Context, name string) *verifying.Beside {
		mu.Lock()
		defer mu.Unlock()
		if b, ok := decided[name]; ok {
			return b
		}
		i := slices.IndexFunc(pkgs, func(p plan.Package) bool { return p.Name == name })
		if i < 0 {
			return nil
		}
		var b *verifying.Beside
		rs, err := c.pypiReleases(ctx, name, lookups[name])
		switch {
		case err != nil:
			if c.Log != nil {
				c.Log.Debug("no releases to find a group member's baseline in", "package", name, "err", err)
			}
		default:
			if r, _ := c.baselineOf(pep440.Scheme{}, rs, pkgs[i].Prereleases, byPkg[name]); r != nil {
				b = &verifying.Beside{Requirement: name + "==" + r.Version, Release: r}
			}
		}
		if ctx.Err() == nil {
			decided[name] = b
		}
		return b
	}
}

// baselineWith returns the releases installed beside m's baseline: the
// other members of its group at their baselines (memberBaselines), in the
// order the configuration lists them; nil when m is in no group of two or
// more planned members.
func (g *groupRun) baselineWith(ctx context.Context, m string) []verifying.Beside {
	ms := g.members[g.of[m]]
	if len(ms) < 2 || g.baseline == nil {
		return nil
	}
	var out []verifying.Beside
	for _, o := range ms {
		if o == m {
			continue
		}
		if b := g.baseline(ctx, o); b != nil {
			out = append(out, *b)
		}
	}
	return out
}

// settle gives each group one verdict after the checks: when a member's
// checks block its target, no member's caps move and every member is
// blocked; when a member's checks could not run, the others are held.
func (g *groupRun) settle(plans []plan.Plan) {
	index := map[string]int{}
	for i, p := range plans {
		index[p.Name] = i
	}
	for _, name := range slices.Sorted(maps.Keys(g.members)) {
		ms := g.members[name]
		if len(ms) < 2 {
			continue
		}
		var blocked, failed []string
		for _, m := range ms {
			switch plans[index[m]].Status {
			case plan.Blocked:
				blocked = append(blocked, m+" "+plans[index[m]].Target)
			case plan.Error:
				failed = append(failed, m)
			}
		}
		switch {
		case len(failed) > 0:
			reason := fmt.Sprintf("the checks of %s could not run, so no member moves", strings.Join(failed, " and "))
			g.notes[name] = reason
			for _, m := range ms {
				holdMember(&plans[index[m]], name, reason)
			}
		case len(blocked) > 0:
			reason := fmt.Sprintf("checks failed on %s, so no member's caps move", strings.Join(blocked, " and "))
			g.notes[name] = reason
			for _, m := range ms {
				p := &plans[index[m]]
				for i := range p.Pins {
					if pp := &p.Pins[i]; pp.Changed {
						pp.New, pp.Changed = pp.Pin.Constraint, false
						pp.Reason = "not moved: group " + name + ": " + reason
					}
				}
				if p.Status == plan.Bump || p.Status == plan.Blocked {
					p.Status = plan.Blocked
					if !strings.Contains(p.Reason, reason) {
						p.Reason += "; group " + name + ": " + reason
					}
				}
			}
		}
	}
}

// report returns the groups of the report, and names each member's group.
func (g *groupRun) report(pkgs []report.Package) []report.Group {
	var out []report.Group
	byName := map[string]*report.Package{}
	for i := range pkgs {
		byName[pkgs[i].Name] = &pkgs[i]
	}
	for _, name := range slices.Sorted(maps.Keys(g.members)) {
		rg := report.Group{Name: name, Packages: g.members[name], Targets: map[string]string{}, Reason: g.notes[name]}
		var statuses []string
		for _, m := range g.members[name] {
			p := byName[m]
			if p == nil {
				continue
			}
			p.Group = name
			rg.Targets[m] = p.Newest
			statuses = append(statuses, p.Status)
		}
		rg.Status = groupStatus(statuses)
		out = append(out, rg)
	}
	return out
}

// groupStatus is a group's one status: error, blocked, bump, held, current,
// the first any member has.
func groupStatus(statuses []string) string {
	for _, s := range []plan.Status{plan.Error, plan.Blocked, plan.Bump, plan.Held} {
		if slices.Contains(statuses, string(s)) {
			return string(s)
		}
	}
	return string(plan.Current)
}
