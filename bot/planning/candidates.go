package planning

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/pinbot-dev/pinbot/bot/planning/plan"
	"github.com/pinbot-dev/pinbot/bot/verifying"
	"github.com/pinbot-dev/pinbot/checks/probe"
	"github.com/pinbot-dev/pinbot/checks/symbols"
	"github.com/pinbot-dev/pinbot/config"
	"github.com/pinbot-dev/pinbot/pins"
	"github.com/pinbot-dev/pinbot/sources"
	"github.com/pinbot-dev/pinbot/versions"
	condaversions "github.com/pinbot-dev/pinbot/versions/conda"
	"github.com/pinbot-dev/pinbot/versions/pep440"
)

// checkReleases returns the releases a package's checks read, the scheme
// that orders them and where they come from. A package whose moving pins
// are all conda pins (environment files, recipes, pixi conda dependencies)
// is checked against the conda packages of the channel that governs them,
// since that is what its users install; any other against PyPI's wheels.
// symbols.artifact (wheel or conda) overrides the choice; conda without a
// conda pin reads the package's first conda lookup, else the first
// configured channel.
func (c *Checker) checkReleases(ctx context.Context, p *plan.Plan, lookups []plan.Lookup,
	settings *config.Package) ([]sources.Release, versions.Scheme, string, error) {
	artifact := ""
	if settings != nil && settings.Symbols != nil {
		artifact = settings.Symbols.Artifact
	}
	channel := condaChannel(p)
	if artifact == symbols.ArtifactWheel || artifact == "" && channel == "" {
		rs, err := c.pypiReleases(ctx, p.Name, lookups)
		return rs, pep440.Scheme{}, "PyPI", err
	}
	rs, scheme, channel, err := c.condaReleases(ctx, p, lookups, channel)
	return rs, scheme, channel, err
}

// condaReleases returns a package's conda releases on channel, where the
// checks read conda packages: channel when set (the channel of its conda
// pins), else its first conda lookup's, else the first configured
// channel's ("conda"), with the conda scheme and the channel's name.
func (c *Checker) condaReleases(ctx context.Context, p *plan.Plan, lookups []plan.Lookup, channel string) ([]sources.Release, versions.Scheme, string, error) {
	scheme := c.Schemes[condaversions.Name]
	if scheme == nil {
		return nil, nil, "", errors.New("no conda version scheme to order conda releases")
	}
	if channel == "" {
		for _, l := range lookups {
			if src, err := c.source(l.Source); err == nil && sources.SchemeOf(src) == condaversions.Name {
				channel = src.Name()
				break
			}
		}
	}
	if channel == "" {
		if src := c.Sources[condaversions.Name]; src != nil {
			channel = src.Name() // the "conda" alias: the first configured channel
		}
	}
	for _, l := range lookups {
		if l.Source == channel && l.Err == nil {
			return l.Releases, scheme, channel, nil
		}
	}
	src, err := c.source(channel)
	if err != nil {
		return nil, nil, "", fmt.Errorf("the checks cannot read the conda channel %q: %w", channel, err)
	}
	rs, err := src.Releases(ctx, p.Name)
	return rs, scheme, channel, err
}

// condaChannel returns the channel of a plan's moving pins when every one
// of them is a conda pin, else "".
func condaChannel(p *plan.Plan) string {
	channel := ""
	for _, pp := range p.Pins {
		if !pp.Changed {
			continue
		}
		if pp.Pin.Scheme != condaversions.Name {
			return ""
		}
		if channel == "" {
			channel = pp.Pin.Source
		}
	}
	return channel
}

// baselineOf returns a package's baseline among its releases rs (in
// scheme): the release its pins ps admit now (currentRelease) among the
// acceptable ones (verifying.Acceptable), which it returns too; nil for
// none. A checked package's baseline and a group member's, installed
// beside the others' baselines, are decided here alike.
func (c *Checker) baselineOf(scheme versions.Scheme, rs []sources.Release, prereleases bool, ps []pins.Pin) (*sources.Release, []sources.Release) {
	accepted := verifying.Acceptable(scheme, rs, prereleases)
	return currentRelease(c.Schemes, accepted, ps), accepted
}

// currentRelease returns the newest release every pin admits as written
// now: the baseline the checks compare with (nil when none does).
func currentRelease(schemes map[string]versions.Scheme, accepted []sources.Release, ps []pins.Pin) *sources.Release {
	var cs []admitter
	for _, p := range ps {
		if p.Skip == "" {
			cs = append(cs, admitter{pin: p, constraint: p.Constraint})
		}
	}
	r, _, _ := newestAdmitted(schemes, accepted, cs)
	return r
}

// capLookups returns lookups without the releases newer than max, so that a
// new plan targets max (compared in each source's pins' scheme).
func capLookups(lookups []plan.Lookup, ps []pins.Pin, max string, schemes map[string]versions.Scheme) []plan.Lookup {
	out := make([]plan.Lookup, len(lookups))
	for i, l := range lookups {
		out[i] = l
		scheme := schemes[pep440.Name]
		for _, p := range ps {
			if p.Source == l.Source && schemes[p.Scheme] != nil {
				scheme = schemes[p.Scheme]
				break
			}
		}
		out[i].Releases = slices.DeleteFunc(slices.Clone(l.Releases), func(r sources.Release) bool {
			return scheme.Compare(r.Version, max) > 0
		})
	}
	return out
}

// probeConstraints are the project's requirements of packages other than name,
// as installer constraints: PEP 440 pins with a version constraint, not build
// requirements, with their markers; each once, with the first place it is
// written.
func probeConstraints(name string, project []pins.Pin) []probe.Constraint {
	var out []probe.Constraint
	seen := map[string]bool{}
	scheme := pep440.Scheme{}
	for _, p := range project {
		if !projectPin(p) || strings.TrimSpace(p.Constraint) == "" || config.Key(p.Package) == config.Key(name) {
			continue
		}
		if _, err := scheme.ParseConstraint(p.Constraint); err != nil {
			continue
		}
		req := p.Package + strings.TrimSpace(p.Constraint)
		if p.Condition != "" {
			req += "; " + p.Condition
		}
		if seen[req] || strings.ContainsAny(req, "\n\r\\@[#") {
			continue // written once already, or not a line a constraints file can hold
		}
		seen[req] = true
		out = append(out, probe.Constraint{Requirement: req, Origin: fmt.Sprintf("%s:%d", p.File, p.Line)})
	}
	return out
}

// requirementName returns the normalised name a requirement line starts
// with ("llvmlite" of "llvmlite<=0.49; python_version < '3.13'").
func requirementName(req string) string {
	end := strings.IndexAny(req, "<>=!~;[ (")
	if end < 0 {
		end = len(req)
	}
	return config.Key(strings.TrimSpace(req[:end]))
}

// installed answers which version of a package the project installs: the
// newest release every pin admits after this run's plan (its pins' new
// constraints for a planned package, the pins as written for another), or
// the newest release for a package the project does not pin.
type installed struct {
	plans   map[string]*plan.Plan
	pins    map[string][]pins.Pin // pins of packages the run does not plan
	schemes map[string]versions.Scheme
}

// version returns the release of pkg the project installs among accepted
// (newest first), and why.
func (in *installed) version(pkg string, accepted []sources.Release) (sources.Release, string, bool) {
	if len(accepted) == 0 {
		return sources.Release{}, "", false
	}
	key := config.Key(pkg)
	var cs []admitter
	planned := false
	if p := in.plans[key]; p != nil {
		for _, pp := range p.Pins {
			cs = append(cs, admitter{pin: pp.Pin, constraint: pp.New})
			planned = planned || pp.Changed
		}
	} else {
		for _, p := range in.pins[key] {
			cs = append(cs, admitter{pin: p, constraint: p.Constraint})
		}
	}
	r, used, conflict := newestAdmitted(in.schemes, accepted, cs)
	switch {
	case len(used) == 0:
		return accepted[0], "the project does not pin " + pkg + ": its newest release", true
	case r == nil:
		return accepted[0], fmt.Sprintf("no release admits every pin of %s (%s): its newest release", pkg, strings.Join(conflict, ", ")), true
	}
	why := "the newest release the project's pins admit"
	if planned {
		why += " once this run's caps move"
	}
	return *r, why + " (" + strings.Join(used, ", ") + ")", true
}

// An admitter is a pin with the constraint it has (as written, or planned).
type admitter struct {
	pin        pins.Pin
	constraint string
}

// newestAdmitted returns the newest of accepted (newest first) that every
// constraint admits, read in its pin's scheme, with the pins it used as
// "file:line constraint"; nil when none admits all. Constraints that do not
// parse, and go.mod minimums, are left out.
func newestAdmitted(schemes map[string]versions.Scheme, accepted []sources.Release, cs []admitter) (*sources.Release, []string, []string) {
	type parsed struct {
		s versions.Scheme
		c versions.Constraint
	}
	var ps []parsed
	var used []string
	for _, a := range cs {
		s := schemes[a.pin.Scheme]
		if s == nil || a.pin.Scheme == "semver" {
			continue
		}
		c, err := s.ParseConstraint(a.constraint)
		if err != nil {
			continue
		}
		ps = append(ps, parsed{s, c})
		desc := fmt.Sprintf("%s:%d %s", a.pin.File, a.pin.Line, cmp.Or(strings.TrimSpace(a.constraint), "any version"))
		if !slices.Contains(used, desc) {
			used = append(used, desc)
		}
	}
	for _, r := range accepted {
		ok := true
		for _, p := range ps {
			if !p.s.Valid(r.Version) || !p.s.Match(r.Version, p.c) {
				ok = false
				break
			}
		}
		if ok {
			return &r, used, nil
		}
	}
	return nil, used, used
}

// againstPackages returns the against packages of every watched package's
// symbols check (presets included), by key.
func againstPackages(watched map[string]*config.Package) map[string]bool {
	out := map[string]bool{}
	for _, settings := range watched {
		if settings == nil || settings.Symbols == nil {
			continue
		}
		spec, err := settings.Symbols.Resolve()
		if err != nil {
			continue // reported when the check runs
		}
		for _, a := range spec.Against {
			out[config.Key(a)] = true
		}
	}
	return out
}
