package plan

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/pinbot-dev/pinbot/pins"
	"github.com/pinbot-dev/pinbot/sources"
	"github.com/pinbot-dev/pinbot/sources/wheel"
	"github.com/pinbot-dev/pinbot/versions"
)

// A Gate says what must be true of a release before any cap moves to it. With
// no rule set, the target is the lowest of the sources' newest acceptable
// releases (target). With rules, each source's newest release that passes them
// is found, and the target is the lowest of those, so every source asked (the
// ones the pins follow and the required ones) has a release at least that new
// that passes.
//
// A release passes on a source when it is not yanked, has files, is at least
// MinAge old (a release whose time the source does not give passes), and
// serves every platform: on conda, a file (not yanked) in the platform's subdir
// or in noarch; on PyPI, a wheel (not yanked) whose platform tag serves the
// subdir (manylinux x86_64 for linux-64, macosx arm64 or universal2 for
// osx-arm64, win_amd64 for win-64, "any" for all), for each Python version when
// Python is set (cp312, abi3 from an older CPython, or py3), with a
// requires-python that admits it. An sdist-only release fails the platform
// gate. Python without Platforms asks for such a wheel on any platform. Sources
// whose files carry no platform (Go modules) pass the platform gate.
//
// Versions from sources with another scheme than the pins' (conda-forge for
// pins read from pyproject.toml) are compared in the pins' scheme, and a
// version is spelled as the pins' source spells the release that is equal to
// it by both schemes.
type Gate struct {
	// Require lists sources that must have the release; they are asked even
	// when no pin follows them.
	Require []string
	// Platforms are conda subdirs ("linux-64", "osx-arm64") the release must
	// serve on every source asked.
	Platforms []string
	// Python are the Python versions ("3.12") wheels must serve.
	Python []string
	// MinAge ignores releases younger than this, measured at Now.
	MinAge time.Duration
	// Now is the time of the run, from the caller's (injectable) clock.
	Now time.Time
	// Schemes maps source names to the version scheme of their releases
	// ("conda-forge": "conda"), for sources no pin follows.
	Schemes map[string]string
}

// Active reports whether any rule is set.
func (g Gate) Active() bool {
	return len(g.Require) > 0 || len(g.Platforms) > 0 || len(g.Python) > 0 || g.MinAge > 0
}

// scheme returns the scheme to read source's releases with: the scheme of the
// pins that follow it, else the source's own, else the pins' scheme.
func (g Gate) scheme(ps []pins.Pin, source string, schemes map[string]versions.Scheme) versions.Scheme {
	if s := schemeFor(ps, source, schemes); s != nil {
		return s
	}
	if s := schemes[g.Schemes[source]]; s != nil {
		return s
	}
	if len(ps) > 0 {
		return schemes[ps[0].Scheme]
	}
	return nil
}

// noTarget is the error of a plan without a target.
func noTarget(reason string) error {
	if reason != "" {
		return errors.New(reason)
	}
	return errors.New("no source answered")
}

// held is a release of one source that a gate keeps from being the target.
type held struct {
	version, source, why string
}

// target picks the target and says why, applying the gate when it is active.
// It returns each source's best release too: its newest that passes the gate
// (its newest, with no gate), of which the target is the lowest.
func (g Gate) target(newest map[string]string, ps []pins.Pin, lookups []Lookup, schemes map[string]versions.Scheme, notes []string, prereleases bool) (string, string, map[string]string) {
	if !g.Active() {
		return target(newest, ps, schemes, notes)
	}
	if len(newest) == 0 || len(ps) == 0 || schemes[ps[0].Scheme] == nil {
		return "", "", nil
	}
	pinScheme := schemes[ps[0].Scheme]
	// Sources the pins follow come first: on a tie their spelling wins.
	ls := slices.Clone(lookups)
	slices.SortStableFunc(ls, func(a, b Lookup) int {
		ga, gb := schemeFor(ps, a.Source, schemes) != nil, schemeFor(ps, b.Source, schemes) != nil
		if ga != gb {
			if ga {
				return -1
			}
			return 1
		}
		return strings.Compare(a.Source, b.Source)
	})
	var holds []held
	best := map[string]string{} // source -> newest release passing the gate
	for _, l := range ls {
		s := g.scheme(ps, l.Source, schemes)
		for _, r := range l.Releases {
			if !s.Valid(r.Version) || !pinScheme.Valid(r.Version) ||
				!prereleases && (s.Prerelease(r.Version) || pinScheme.Prerelease(r.Version)) {
				continue
			}
			if why := g.Check(r, l.Source, len(ls) > 1, schemes); why != "" {
				holds = append(holds, held{r.Version, l.Source, why})
				continue
			}
			if b, ok := best[l.Source]; !ok || s.Compare(r.Version, b) > 0 {
				best[l.Source] = r.Version
			}
		}
	}
	t, tSource := "", ""
	var missing []string
	for _, l := range ls {
		b, ok := best[l.Source]
		if !ok {
			missing = append(missing, l.Source)
			continue
		}
		if t == "" || pinScheme.Compare(b, t) < 0 {
			t, tSource = b, l.Source
		}
	}
	t = g.spell(t, tSource, ps, ls, schemes)
	summary := summarize(newest, ls, pinScheme)
	if len(missing) > 0 {
		var on []held
		for _, h := range holds {
			if slices.Contains(missing, h.source) {
				on = append(on, h)
			}
		}
		return "", fmt.Sprintf("%s; no release passes the gates on %s: %s", summary, strings.Join(missing, ", "), describe(on, "", pinScheme)), nil
	}
	why := describe(holds, t, pinScheme)
	agree := true
	for _, n := range newest {
		agree = agree && pinScheme.Compare(n, t) == 0
	}
	switch {
	case why == "" && agree:
		return t, summary, best
	case why == "":
		return t, summary + " → " + t, best
	}
	return t, summary + "; " + why + " → " + t, best
}

// spell returns t as the pins' sources spell the release equal to it by both
// schemes, when t came from a source with another scheme.
func (g Gate) spell(t, from string, ps []pins.Pin, ls []Lookup, schemes map[string]versions.Scheme) string {
	if t == "" || schemeFor(ps, from, schemes) != nil {
		return t
	}
	pinScheme, fromScheme := schemes[ps[0].Scheme], g.scheme(ps, from, schemes)
	for _, l := range ls {
		if schemeFor(ps, l.Source, schemes) == nil {
			continue
		}
		for _, r := range l.Releases {
			if pinScheme.Valid(r.Version) && fromScheme.Valid(r.Version) &&
				pinScheme.Compare(r.Version, t) == 0 && fromScheme.Compare(r.Version, t) == 0 {
				return r.Version
			}
		}
	}
	return t
}

// summarize says what each source has, naming the sources in name order
// whatever order they were asked or answered in: "conda-forge and pypi have
// 0.67.0", or "conda-forge has only 0.66.0, pypi has 0.67.0". A version
// several sources have is spelled as the first of ls has it (the pins'
// sources come first).
func summarize(newest map[string]string, ls []Lookup, scheme versions.Scheme) string {
	var names []string
	top := ""
	for _, l := range ls {
		v, ok := newest[l.Source]
		if !ok || slices.Contains(names, l.Source) {
			continue
		}
		names = append(names, l.Source)
		if top == "" || scheme.Compare(v, top) > 0 {
			top = v
		}
	}
	slices.Sort(names)
	same := 0
	for _, n := range names {
		if scheme.Compare(newest[n], top) == 0 {
			same++
		}
	}
	if same == len(names) {
		if len(names) == 1 {
			return names[0] + " has " + top
		}
		return list(names) + " have " + top
	}
	parts := make([]string, len(names))
	for i, n := range names {
		if scheme.Compare(newest[n], top) == 0 {
			parts[i] = n + " has " + newest[n]
		} else {
			parts[i] = n + " has only " + newest[n]
		}
	}
	return strings.Join(parts, ", ")
}

func list(names []string) string {
	if len(names) == 1 {
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// describe explains the held releases newer than t (all of them when t is
// ""), newest first, at most three versions.
func describe(holds []held, t string, scheme versions.Scheme) string {
	var hs []held
	for _, h := range holds {
		if t == "" || scheme.Compare(h.version, t) > 0 {
			hs = append(hs, h)
		}
	}
	slices.SortStableFunc(hs, func(a, b held) int { return -scheme.Compare(a.version, b.version) })
	// One reason per version: the first source's (the pins' sources come first).
	var parts, seen []string
	for _, h := range hs {
		if slices.ContainsFunc(seen, func(v string) bool { return scheme.Compare(v, h.version) == 0 }) {
			continue
		}
		if len(seen) == 3 {
			parts = append(parts, "…")
			break
		}
		seen = append(seen, h.version)
		parts = append(parts, h.version+" "+h.why)
	}
	return strings.Join(parts, "; ")
}

// Check returns why r fails the gate on source ("" when it passes): it is
// yanked, has no files, is younger than MinAge, or does not serve Platforms
// and Python. named adds the source to the reason, when several sources are
// asked. It is the one decision on a release: the target's (which adds
// Require: every source asked must have a release that passes) and the early
// warning's, which holds a pre-release to the same rules (bot/planning/earlywarn).
func (g Gate) Check(r sources.Release, source string, named bool, schemes map[string]versions.Scheme) string {
	on := ""
	if named {
		on = " on " + source
	}
	switch {
	case r.Yanked:
		if r.YankedReason != "" {
			return "is yanked" + on + " (" + r.YankedReason + ")"
		}
		return "is yanked" + on
	case len(r.Files) == 0:
		return "has no files" + on
	}
	if g.MinAge > 0 && !r.Time.IsZero() {
		if age := g.Now.Sub(r.Time); age < g.MinAge {
			return "is " + formatAge(age) + " old" + on + ", min-age " + formatMinAge(g.MinAge)
		}
	}
	return g.checkPlatforms(r, source, schemes)
}

// checkPlatforms applies the platform and Python gates.
func (g Gate) checkPlatforms(r sources.Release, source string, schemes map[string]versions.Scheme) string {
	kind := ""
	for _, f := range r.Files {
		switch f.Kind {
		case sources.KindConda:
			kind = sources.KindConda
		case sources.KindWheel, sources.KindSdist:
			if kind == "" {
				kind = sources.KindWheel
			}
		}
	}
	switch kind {
	case sources.KindConda:
		for _, p := range g.Platforms {
			if !slices.ContainsFunc(r.Files, func(f sources.File) bool { return !f.Yanked && (f.Subdir == p || f.Subdir == "noarch") }) {
				return "has no " + source + " build for " + p
			}
		}
	case sources.KindWheel:
		platforms := g.Platforms
		if len(platforms) == 0 {
			platforms = []string{""}
		}
		pythons := g.Python
		if len(pythons) == 0 {
			pythons = []string{""}
		}
		for _, p := range platforms {
			for _, py := range pythons {
				if !servedByWheel(r.Files, p, py, schemes) {
					return "has no wheel for " + describeTarget(p, py)
				}
			}
		}
	}
	return ""
}

func describeTarget(platform, py string) string {
	switch {
	case platform == "":
		return "Python " + py
	case py == "":
		if !wheel.KnownSubdir(platform) {
			return platform + " (no wheel platform is known for it)"
		}
		return platform
	}
	return platform + " and Python " + py
}

// servedByWheel reports whether a wheel (not yanked) serves the platform and
// Python version, its requires-python admitting the version.
func servedByWheel(files []sources.File, platform, py string, schemes map[string]versions.Scheme) bool {
	for _, f := range files {
		if f.Kind != sources.KindWheel || f.Yanked || !admitsPython(f.RequiresPython, py, schemes) {
			continue
		}
		for _, t := range f.Tags {
			if wheel.Serves(t, platform, py) {
				return true
			}
		}
	}
	return false
}

// admitsPython reports whether requires-python admits py ("3.12", read as
// 3.12.0); an unreadable or absent requires-python admits everything.
func admitsPython(requires, py string, schemes map[string]versions.Scheme) bool {
	s := schemes["pep440"]
	if requires == "" || py == "" || s == nil {
		return true
	}
	c, err := s.ParseConstraint(requires)
	if err != nil {
		return true
	}
	return s.Match(py, c)
}

// formatAge says how old a release is: "5 hours", "1 day", "3 days".
func formatAge(d time.Duration) string {
	switch {
	case d < time.Hour:
		return plural(int(max(d, 0)/time.Minute), "minute")
	case d < 24*time.Hour:
		return plural(int(d/time.Hour), "hour")
	}
	return plural(int(d/(24*time.Hour)), "day")
}

func plural(n int, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return fmt.Sprintf("%d %ss", n, unit)
}

// formatMinAge writes a min-age as configured: "3d", "12h", "90m".
func formatMinAge(d time.Duration) string {
	switch {
	case d%(24*time.Hour) == 0:
		return fmt.Sprintf("%dd", d/(24*time.Hour))
	case d%time.Hour == 0:
		return fmt.Sprintf("%dh", d/time.Hour)
	}
	return d.String()
}
