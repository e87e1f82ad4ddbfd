package symbols

import (
	"cmp"
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"
)

// The verdicts of a symbols check, as the report spells them.
const (
	VerdictOK      = "ok"      // the candidate has no new problem and nothing hid one
	VerdictBlocked = "blocked" // the candidate has a problem the baseline did not have
	VerdictWarning = "warning" // problems both have, or the check could not see all it needed
)

// A Side is what a symbols check read of one release: the wheel and its
// scan, or why there is none.
type Side struct {
	// Version is the release.
	Version string
	// File is the wheel scanned ("" when none was).
	File string
	// Result is the scan; nil when nothing was scanned.
	Result *Result
	// Warning says why the scan may not show what installs (the release has
	// binary wheels, but none for the platform) or why there is no scan.
	Warning string
}

// An Env is what else a symbols check read: the against packages and host
// libraries, and what went wrong finding them.
type Env struct {
	// Notes say which version of each against package was read and why,
	// and which host libraries.
	Notes []string
	// Warnings are what the check could not see: an against package with no
	// wheel for the platform, say.
	Warnings []string
}

// Judge returns the report entry of the symbols check called name, with a
// verdict only new problems block (Compare), and that never passes what it
// could not see:
//
//   - a candidate with no scan, or whose scan yields no ELF shared object,
//     is a warning (nothing was checked);
//   - a baseline that was not scanned, or was read from a wheel pip would
//     not install (its Warning), makes the candidate's clashes and errors a
//     warning, since new cannot be told from old; the candidate's forbidden
//     exports still block, since a forbid pattern is the project saying
//     "never" and only a baseline shown to export them too excuses them; a
//     baseline that was read from the right wheel and ships no shared
//     object had no exports at all, so the candidate's problems are new
//     and block;
//   - an against or host library that cannot be read as ELF, a side's
//     Warning and env.Warnings make an otherwise passing check a warning;
//   - problems both releases have are a warning; new ones block.
//
// The detail names the files read. A nil baseline means no release is
// admitted now: every problem of the candidate is new.
func Judge(name string, baseline *Side, candidate Side, env Env) Check {
	var warnings []string
	empty := func(s *Side, what string) bool {
		switch {
		case s.Result == nil:
			if s.Warning == "" {
				warnings = append(warnings, fmt.Sprintf("the %s %s was not scanned", what, s.Version))
			}
			return true
		case s.Result.Targets() == 0 && !slices.ContainsFunc(s.Result.Errors, func(e InputError) bool { return e.Role == RoleTarget }):
			warnings = append(warnings, fmt.Sprintf("the %s %s yields no ELF shared object (%s): nothing to scan", what, s.Version, path.Base(s.File)))
			return true
		}
		return false
	}
	if candidate.Warning != "" {
		warnings = append(warnings, "candidate "+candidate.Warning)
	}
	if baseline != nil && baseline.Warning != "" {
		warnings = append(warnings, "baseline "+baseline.Warning)
	}
	candEmpty := empty(&candidate, "candidate")
	baseEmpty := baseline != nil && empty(baseline, "baseline")
	warnings = append(warnings, unreadableEnv(baseline, candidate)...)
	if w := uncompared(candidate.Result); w != "" {
		warnings = append(warnings, w)
	}
	warnings = append(warnings, env.Warnings...)

	var baseRes *Result
	if baseline != nil {
		baseRes = baseline.Result
	}
	v := Compare(baseRes, candidate.Result)
	c := Check{Kind: "symbols", Name: name, Candidate: sideSummary(&candidate)}
	if baseline != nil {
		c.Baseline = sideSummary(baseline)
	} else {
		c.Baseline = "no release admitted"
	}
	var parts []string
	switch {
	case candEmpty:
		c.Verdict = VerdictWarning
	case baseEmpty && !v.OK && baseline.Result != nil && baseline.Warning == "":
		// The baseline is what pip installs and it holds no library: nothing
		// it exported can explain the candidate's problems.
		c.Verdict = VerdictBlocked
		parts = append(parts, "the baseline ships no shared object, so every problem is new: "+v.Detail())
	case baseEmpty && !v.OK:
		// Nothing shows what the baseline exported. A forbid pattern is
		// the project saying "never": its matches block unless the
		// baseline is shown to export them too. Any other problem may be
		// one the project already lived with.
		forbidden, other := splitForbidden(v.New)
		if len(forbidden) > 0 {
			c.Verdict = VerdictBlocked
			parts = append(parts, fmt.Sprintf("a forbidden export blocks unless the baseline is shown to export it too, and the baseline %s %s: %s",
				baseline.Version, unseen(baseline), Verdict{New: forbidden}.Detail()))
		} else {
			c.Verdict = VerdictWarning
		}
		if len(other) > 0 {
			parts = append(parts, "new cannot be told from old: "+Verdict{New: other}.Detail())
		}
	case !v.OK:
		c.Verdict = VerdictBlocked
		parts = append(parts, v.Detail())
	case len(warnings) > 0 || len(v.Existing) > 0:
		c.Verdict = VerdictWarning
		parts = append(parts, v.Detail())
	default:
		c.Verdict = VerdictOK
		parts = append(parts, v.Detail())
	}
	c.OK = c.Verdict == VerdictOK
	if len(warnings) > 0 {
		parts = append(parts, "warning: "+strings.Join(warnings, "; "))
	}
	read := "read " + orNone(candidate.File)
	if baseline != nil {
		read += " (baseline " + orNone(baseline.File) + ")"
	}
	parts = append(parts, read)
	parts = append(parts, env.Notes...)
	c.Detail = strings.Join(parts, "; ")
	return c
}

// splitForbidden separates the forbidden problems of ps from the others.
func splitForbidden(ps []Problem) (forbidden, other []Problem) {
	for _, p := range ps {
		if p.Kind == "forbidden" {
			forbidden = append(forbidden, p)
		} else {
			other = append(other, p)
		}
	}
	return forbidden, other
}

// unseen says why an empty baseline shows nothing of what it exported.
func unseen(baseline *Side) string {
	if baseline.Result == nil {
		return "was not scanned"
	}
	return "yields no shared object from a file that may not be what installs"
}

// uncompared says which of a scan's clashes could meet at run time but whose
// bodies could not be compared (a TLS variable, a body too large to read, a
// machine the normaliser does not know, an unreadable body): a different
// body there would go unseen, so the check cannot say ok. "" when there are
// none.
func uncompared(r *Result) string {
	if r == nil {
		return ""
	}
	n, why, example := 0, map[string]int{}, ""
	for _, c := range r.Clashes {
		if c.Body != BodyUnknown || c.Exposure == ExposureSymbolic {
			continue
		}
		n++
		why[cmp.Or(c.Reason, "unknown")]++
		if example == "" {
			example = cmp.Or(c.Demangled, c.Name)
		}
	}
	if n == 0 {
		return ""
	}
	var reasons []string
	for _, k := range slices.Sorted(maps.Keys(why)) {
		reasons = append(reasons, fmt.Sprintf("%s: %d", k, why[k]))
	}
	clashes := "clashes"
	if n == 1 {
		clashes = "clash"
	}
	return fmt.Sprintf("%d %s whose bodies could not be compared (%s), e.g. %s: a different body there would not be seen",
		n, clashes, strings.Join(reasons, ", "), example)
}

// unreadableEnv lists the against and host libraries either scan could not
// read, and their inputs that held no shared object, once each.
func unreadableEnv(baseline *Side, candidate Side) []string {
	var out []string
	seen := map[string]bool{}
	for _, s := range []*Side{baseline, &candidate} {
		if s == nil || s.Result == nil {
			continue
		}
		for _, e := range s.Result.Unreadable() {
			if e.Role == RoleTarget || e.Role == "" || seen[e.Path] {
				continue
			}
			seen[e.Path] = true
			out = append(out, fmt.Sprintf("%s library %s cannot be read as ELF, so nothing was compared with it: %s", e.Role, e.Path, e.Error))
		}
		for _, w := range s.Result.Warnings {
			if w.Role == RoleTarget || w.Role == "" || seen[w.Path] {
				continue
			}
			seen[w.Path] = true
			out = append(out, fmt.Sprintf("%s %s: %s", w.Role, w.Path, w.Warning))
		}
	}
	return out
}

func sideSummary(s *Side) string {
	if s.Result == nil {
		return "not scanned"
	}
	return Summary(s.Result)
}

func orNone(file string) string {
	if file == "" {
		return "no wheel"
	}
	return path.Base(file)
}
