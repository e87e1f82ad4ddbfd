// Package plan decides, for one watched package, which release its caps should
// admit and how each pin's constraint changes. It is the only place where pins,
// sources and version schemes meet, and it does no I/O: releases are fetched
// before and edits are written after, so a plan is tested from literal inputs.
//
// It belongs to bot/planning and imports no other part of bot.
package plan

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/pinbot-dev/pinbot/pins"
	"github.com/pinbot-dev/pinbot/sources"
	"github.com/pinbot-dev/pinbot/versions"
)

// Status is the outcome for a package.
type Status string

// The statuses of the report contract.
const (
	Current Status = "current" // every pin admits the target
	Bump    Status = "bump"    // at least one cap moves
	Blocked Status = "blocked" // a check failed against the target
	Error   Status = "error"   // the target could not be determined
	// Held: nothing moves, yet the target is shut out (a cap the strategy
	// does not rewrite, an exclusion) or cannot be tried; Plan.Hold says
	// why. It is a finding, not a failure.
	Held Status = "held"
)

// A Package is what the planner needs to know about a watched package.
type Package struct {
	Name        string // normalised
	Policy      versions.Policy
	Prereleases bool
	// Unify brings every pin of the package to one range (see unify).
	Unify bool
	// FollowYanked lowers a cap that names a yanked release (yanked: follow).
	FollowYanked bool
	// Gate holds the availability rules a target must pass (gate.go).
	Gate Gate
}

// A Lookup is what one source said about the package.
type Lookup struct {
	Source   string
	Releases []sources.Release
	Err      error
}

// A Plan is the decision for one package.
type Plan struct {
	Name   string
	Status Status
	// Target is the release the caps move to admit ("" when unknown).
	Target string
	// Newest is each source's newest acceptable release.
	Newest map[string]string
	// Reason explains the target, such as "pypi has 0.67.0".
	Reason string
	Pins   []PinPlan
	// Drift lists the ranges the package's pins have when they do not agree
	// (after the plan): one entry per range, with the pins that have it.
	Drift []Drift
	Err   error
	// Hold says why the package is held (status held), and what would move
	// it: each held pin with its reason, or another cause (see SetHeld).
	Hold string
	// Warnings name the pins left as written because pinbot cannot read
	// their constraints; the package's other pins are planned.
	Warnings []error
}

// A PinPlan is the decision for one pin.
type PinPlan struct {
	Pin pins.Pin
	// New is the new constraint; it equals Pin.Constraint when nothing changes.
	New     string
	Changed bool
	Reason  string
	// Narrows, Conflict, RaisesLower, Yanked and Lowers are copied from
	// versions.Move; unify can set RaisesLower too.
	Narrows, Conflict           bool
	RaisesLower, Yanked, Lowers bool
	// Uncapped is copied from versions.Move: the pin has no upper bound and
	// add-cap is off.
	Uncapped bool
	// Held is set when the pin's new constraint (its constraint, when it
	// does not move) shuts out the target; Fix names the configuration that
	// would move it ("cap: preserve"), if any.
	Held bool
	Fix  string
	// Major is set when the pin's cap moves across a major version (the
	// old cap shut out a major version the new one admits: "<7" to "<8"),
	// which the pull request's title and body say.
	Major *versions.MajorCross
	// Failed says why the pin was not planned: the source it follows could
	// not be asked, or had no acceptable release ("environment.yml:2:5:
	// channels[0]: numba: cannot be asked: ..."). Such a pin is left as
	// written, holds nothing and is never unified; "" for every other pin.
	Failed string
	// admitsBefore says whether the pin as written admits the target, so
	// that a pin reverted after the plan is judged again (Revert).
	admitsBefore bool
}

// Make plans pkg's pins (all of them of pkg) from what the sources said. schemes
// maps scheme names to schemes. A source that cannot be asked, or that has no
// acceptable release, fails the pins that follow it and no others: those are
// left as written, saying why (PinPlan.Failed), with a warning, and the
// package is planned from its other pins and sources. The package is an
// error when every pin fails, or when a source its gate requires does. The
// plan is the same whatever order lookups come in.
func Make(pkg Package, ps []pins.Pin, lookups []Lookup, schemes map[string]versions.Scheme) Plan {
	p := Plan{Name: pkg.Name, Newest: map[string]string{}}
	lookups = slices.Clone(lookups)
	slices.SortStableFunc(lookups, func(a, b Lookup) int { return strings.Compare(a.Source, b.Source) })
	var errs []error
	var notes []string
	failed := map[string]string{} // source -> why the pins that follow it are not planned
	for _, l := range lookups {
		if l.Err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", l.Source, l.Err))
			failed[l.Source] = "cannot be asked: " + l.Err.Error()
			continue
		}
		scheme := pkg.Gate.scheme(ps, l.Source, schemes)
		if scheme == nil {
			errs = append(errs, fmt.Errorf("%s: no version scheme for its pins", l.Source))
			failed[l.Source] = "no version scheme for its pins"
			continue
		}
		newest, why := Newest(scheme, l.Releases, pkg.Prereleases)
		if newest == "" {
			errs = append(errs, fmt.Errorf("%s: %s", l.Source, why))
			failed[l.Source] = why
			continue
		}
		p.Newest[l.Source] = newest
		notes = append(notes, fmt.Sprintf("%s has %s", l.Source, newest))
	}
	for _, pin := range ps {
		p.Pins = append(p.Pins, PinPlan{Pin: pin, New: pin.Constraint})
	}
	isFailed := func(source string) bool { _, f := failed[source]; return f }
	if len(errs) > 0 && (slices.ContainsFunc(pkg.Gate.Require, isFailed) ||
		!slices.ContainsFunc(ps, func(pin pins.Pin) bool { return !isFailed(pin.Source) })) {
		// A required source, or every source the pins follow, said nothing.
		p.Status, p.Err = Error, errors.Join(errs...)
		return p
	}
	ok, answered := p.failPins(pkg, failed, lookups)
	var best map[string]string
	p.Target, p.Reason, best = pkg.Gate.target(p.Newest, ok, answered, schemes, notes, pkg.Prereleases)
	if p.Target == "" {
		p.Status, p.Err = Error, noTarget(p.Reason)
		return p
	}
	p.Status = Current
	p.movePins(pkg, lookups, schemes)
	if pkg.Unify && p.Status != Error {
		p.unify(pkg, schemes)
	}
	p.holds(pkg, lookups, schemes)
	for i := range p.Pins {
		pp := &p.Pins[i]
		// A pin measured against a newer release of its own source than the
		// target says what holds the target back.
		if why := p.heldBack(pkg, *pp, answered, best, schemes); why != "" {
			pp.Reason = joinReason(why, pp.Reason)
		}
	}
	p.majors(schemes)
	p.Drift = drift(p.Pins, schemes)
	return p
}

// target picks the release every pin moves to: the lowest of the sources'
// newest releases, so that pins of one package move together and no file is
// capped at a release another of its sources does not have yet. It returns
// newest as each source's best release.
func target(newest map[string]string, ps []pins.Pin, schemes map[string]versions.Scheme, notes []string) (string, string, map[string]string) {
	if len(newest) == 0 || len(ps) == 0 {
		return "", "", nil
	}
	scheme := schemes[ps[0].Scheme]
	names := slices.Sorted(maps.Keys(newest))
	t := newest[names[0]]
	for _, n := range names[1:] {
		if scheme.Compare(newest[n], t) < 0 {
			t = newest[n]
		}
	}
	sort.Strings(notes) // each note starts with its source: in name order
	if len(notes) == 1 {
		return t, notes[0], newest
	}
	return t, strings.Join(notes, ", ") + " → " + t, newest
}

func schemeFor(ps []pins.Pin, source string, schemes map[string]versions.Scheme) versions.Scheme {
	for _, p := range ps {
		if p.Source == source {
			return schemes[p.Scheme]
		}
	}
	return nil
}

// Newest returns the newest release that is valid in scheme, not yanked, has
// files, and is not a pre-release unless prereleases is set. With none, it says
// why.
func Newest(scheme versions.Scheme, rs []sources.Release, prereleases bool) (string, string) {
	var ok []string
	var yanked, pre, empty, invalid int
	for _, r := range rs {
		switch {
		case !scheme.Valid(r.Version):
			invalid++
		case r.Yanked:
			yanked++
		case len(r.Files) == 0:
			empty++
		case !prereleases && scheme.Prerelease(r.Version):
			pre++
		default:
			ok = append(ok, r.Version)
		}
	}
	if len(ok) == 0 {
		return "", fmt.Sprintf("no acceptable release among %d (%d yanked, %d pre-releases, %d without files, %d invalid)",
			len(rs), yanked, pre, empty, invalid)
	}
	slices.SortFunc(ok, scheme.Compare)
	return ok[len(ok)-1], ""
}
