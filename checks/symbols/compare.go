package symbols

import (
	"cmp"
	"fmt"
	"path"
	"slices"
	"strings"
)

// A Problem is one finding that can stop a cap from moving.
type Problem struct {
	// Kind is "forbidden" (exports matching a pattern), "clash" (a symbol
	// exported with different bodies) or "error" (an input or library that
	// could not be read).
	Kind string `json:"kind"`
	// Library is the Library.Key of a forbidden or error problem.
	Library string `json:"library"`
	Pattern string `json:"pattern"`
	// Count is the number of matching exports of a forbidden problem.
	Count int `json:"count"`
	// Name, Version and Demangled identify a clash.
	Name      string `json:"name"`
	Version   string `json:"version"`
	Demangled string `json:"demangled"`
	Detail    string `json:"detail"`
}

// id is what a problem is matched by across releases: library keys,
// patterns and symbol names, never paths that carry a version.
func (p Problem) id() string {
	return strings.Join([]string{p.Kind, p.Library, p.Pattern, p.Name, p.Version}, "\x00")
}

// A Verdict compares a candidate release's scan with the currently capped
// (baseline) release's: only new problems block.
type Verdict struct {
	// OK reports whether the candidate has no new problem.
	OK bool `json:"ok"`
	// New are problems of the candidate absent at baseline: they block.
	New []Problem `json:"new"`
	// Existing are problems of both releases: warnings.
	Existing []Problem `json:"existing"`
	// Fixed are problems of the baseline the candidate no longer has.
	Fixed []Problem `json:"fixed"`
}

// Compare returns the verdict on candidate given baseline. A problem is a
// forbid pattern matched by a target library's exports (identified by
// library key and pattern), a clash whose copies have different bodies and
// can meet (exposure other than symbolic; identified by name and version),
// or an unreadable target input or library. An unreadable against or host
// library is no problem of the release: Judge makes it a warning. A nil baseline has no problems, so all
// of the candidate's are new.
func Compare(baseline, candidate *Result) Verdict {
	var v Verdict
	base := map[string]Problem{}
	for _, p := range Problems(baseline) {
		base[p.id()] = p
	}
	seen := map[string]bool{}
	for _, p := range Problems(candidate) {
		seen[p.id()] = true
		if _, ok := base[p.id()]; ok {
			v.Existing = append(v.Existing, p)
		} else {
			v.New = append(v.New, p)
		}
	}
	for _, p := range Problems(baseline) {
		if !seen[p.id()] {
			v.Fixed = append(v.Fixed, p)
		}
	}
	v.OK = len(v.New) == 0
	return v
}

// Problems lists the problems of one scan, sorted by kind, library,
// pattern and name.
func Problems(r *Result) []Problem {
	if r == nil {
		return nil
	}
	var out []Problem
	for _, e := range r.Errors {
		if e.Role == RoleTarget || e.Role == "" {
			out = append(out, Problem{Kind: "error", Library: inputKey(e.Path), Detail: e.Path + ": " + e.Error})
		}
	}
	for _, l := range r.Libraries {
		if l.Error != "" && l.Role == RoleTarget {
			out = append(out, Problem{Kind: "error", Library: l.Key, Detail: l.Path + ": " + l.Error})
		}
	}
	for _, f := range r.Forbidden {
		for _, pc := range f.Patterns {
			if pc.Exports == 0 {
				continue
			}
			d := fmt.Sprintf("%s exports %s symbol%s matching %s", path.Base(f.Library), count(pc.Exports), plural(pc.Exports), pc.Pattern)
			if len(f.Examples) > 0 {
				d += " (e.g. " + f.Examples[0] + ")"
			}
			out = append(out, Problem{Kind: "forbidden", Library: f.Key, Pattern: pc.Pattern, Count: pc.Exports, Detail: d})
		}
	}
	for _, c := range r.Clashes {
		if c.Body != BodyDifferent || c.Exposure == ExposureSymbolic {
			continue
		}
		out = append(out, Problem{Kind: "clash", Name: c.Name, Version: c.Version, Demangled: c.Demangled, Detail: clashDetail(c)})
	}
	slices.SortStableFunc(out, func(a, b Problem) int {
		return cmp.Or(cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Library, b.Library),
			cmp.Compare(a.Pattern, b.Pattern), cmp.Compare(a.Name, b.Name), cmp.Compare(a.Version, b.Version))
	})
	return slices.CompactFunc(out, func(a, b Problem) bool { return a.id() == b.id() })
}

// inputKey identifies an unreadable input across releases.
func inputKey(p string) string {
	if i := strings.LastIndex(p, "!"); i >= 0 {
		return libraryKey(p[i+1:])
	}
	return libraryKey(path.Base(p))
}

// clashDetail describes a clash in one line: what differs, where, and when
// the copies meet.
func clashDetail(c Clash) string {
	var b strings.Builder
	b.WriteString(c.Demangled)
	if c.Version != "" {
		b.WriteString("@" + c.Version)
	}
	fmt.Fprintf(&b, " has %s bodies:", c.Body)
	for i, cp := range c.Copies {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, " %s %d B", path.Base(cp.Library), cp.Size)
	}
	fmt.Fprintf(&b, " (%s)", c.Exposure)
	return b.String()
}

// Detail summarises the verdict in one line for a check report: the new
// problems first (up to three), then how many existing ones warn.
func (v Verdict) Detail() string {
	var parts []string
	if len(v.New) == 0 {
		parts = append(parts, "no new symbol problems")
	} else {
		shown := v.New[:min(3, len(v.New))]
		ds := make([]string, len(shown))
		for i, p := range shown {
			ds[i] = p.Detail
		}
		s := fmt.Sprintf("%d new: %s", len(v.New), strings.Join(ds, "; "))
		if len(v.New) > len(shown) {
			s += fmt.Sprintf("; and %d more", len(v.New)-len(shown))
		}
		parts = append(parts, s)
	}
	if len(v.Existing) > 0 {
		parts = append(parts, fmt.Sprintf("%d existing (warning)", len(v.Existing)))
	}
	if len(v.Fixed) > 0 {
		parts = append(parts, fmt.Sprintf("%d fixed", len(v.Fixed)))
	}
	return strings.Join(parts, "; ")
}

// A Check is the symbols check's entry in a pinbot check report (Judge); its
// fields are those of report.Check.
type Check struct {
	Kind      string `json:"kind"`
	Name      string `json:"name"`
	OK        bool   `json:"ok"`
	Baseline  string `json:"baseline"`
	Candidate string `json:"candidate"`
	Detail    string `json:"detail"`
	// Verdict is set by Judge: ok, blocked or warning.
	Verdict string `json:"verdict,omitempty"`
}

// Summary describes a scan in one line: "3 libraries; 1,234 forbidden
// exports in 1; 12 clashes, 2 with different bodies; 1 error".
func Summary(r *Result) string {
	if r == nil {
		return "not scanned"
	}
	parts := []string{fmt.Sprintf("%s librar%s", count(r.Stats.Libraries), pluralY(r.Stats.Libraries))}
	if len(r.Patterns) > 0 {
		libs := 0
		for _, f := range r.Forbidden {
			if f.Exports > 0 {
				libs++
			}
		}
		n := r.ForbiddenExports()
		if n == 0 {
			parts = append(parts, "no forbidden exports")
		} else {
			parts = append(parts, fmt.Sprintf("%s forbidden export%s in %d", count(n), plural(n), libs))
		}
	}
	parts = append(parts, fmt.Sprintf("%s clash%s, %s with different bodies",
		count(r.Stats.Clashes), pluralES(r.Stats.Clashes), count(r.Stats.Different)))
	if n := len(r.Errors) + len(r.Failed()); n > 0 {
		parts = append(parts, fmt.Sprintf("%d error%s", n, plural(n)))
	}
	return strings.Join(parts, "; ")
}

// count formats n with thousands separators.
func count(n int) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return s
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func pluralES(n int) string {
	if n == 1 {
		return ""
	}
	return "es"
}

func pluralY(n int) string {
	if n == 1 {
		return "y"
	}
	return "ies"
}
