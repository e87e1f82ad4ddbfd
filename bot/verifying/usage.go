package verifying

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/pinbot-dev/pinbot/bot/report"
	"github.com/pinbot-dev/pinbot/checks/probe"
	"github.com/pinbot-dev/pinbot/checks/usage"
)

// UsageKind is the kind of the check that judges every name the
// repository's code uses from a package (issue #29): one per package, beside
// its probes and symbol scan.
const UsageKind = report.UsageKind

// MaxBroken bounds the references a usage check lists (report.Check.Broken);
// past it they are counted in the detail. A pull request body shows the
// first 20.
const MaxBroken = 500

// A judged reference is one place with the resolver's result and the
// verdict the check gives it.
type judged struct {
	ref     usage.Ref
	res     probe.UseResult
	verdict probe.Verdict
}

// usesOf maps the finder's references to the resolver's uses, one for one
// (the resolver resolves a name used in many places once).
func usesOf(refs []usage.Ref) []probe.Use {
	out := make([]probe.Use, len(refs))
	for i, r := range refs {
		u := probe.Use{
			Instance: r.Kind == usage.Instance || r.Kind == usage.Subclass,
			Assign:   r.Kind == usage.Assign || r.Kind == usage.Delete,
			Import:   r.Kind == usage.Import,
			Base:     r.Kind == usage.Base,
		}
		if r.Module == "" {
			u.Target = r.Name
		} else {
			u.Module = r.Module
			if rest, ok := strings.CutPrefix(r.Name, r.Module+"."); ok {
				u.Attrs = strings.Split(rest, ".")
			}
		}
		if c := r.Call; c != nil {
			u.Call = &probe.UseCall{Positional: c.Positional, Keywords: c.Keywords, Star: c.Star, DoubleStar: c.DoubleStar, Bound: c.Bound}
		}
		out[i] = u
	}
	return out
}

// severity orders verdicts, most severe last.
func severity(v probe.Verdict) int {
	switch v {
	case probe.Blocked:
		return 2
	case probe.Warning:
		return 1
	}
	return 0
}

// usageCheck makes the one usage check of a package from the resolver's
// results for its references (results[i] is refs[i]'s): blocked when a
// reference the code does not guard resolves at the baseline and not at
// the candidate; a warning for a guarded one that breaks, for what cannot
// be decided and for what was unresolved at the baseline already; ok
// otherwise. A subclass's name reached through several bases of the
// package (class E(TransformerMixin, BaseEstimator)) is one reference at
// its place, as good as its best base. The detail names the project's
// place first.
func usageCheck(refs []usage.Ref, results []probe.UseResult, baseline, candidate string) report.Check {
	// One entry per place and name; several bases keep the best.
	type key struct {
		file      string
		line, col int
		kind      usage.Kind
		last      string
	}
	byPlace := map[key]int{}
	var js []judged
	for i, r := range refs {
		if i >= len(results) {
			break
		}
		res := results[i]
		v := res.Verdict
		if v == probe.Blocked && r.Guarded {
			v = probe.Warning // the code is ready for it to go
		}
		k := key{r.File, r.Line, r.Col, r.Kind, ""}
		if r.Kind == usage.Subclass {
			k.last = r.Name[strings.LastIndexByte(r.Name, '.')+1:]
		}
		if j, ok := byPlace[k]; ok && r.Kind == usage.Subclass {
			if severity(v) < severity(js[j].verdict) {
				js[j] = judged{r, res, v}
			}
			continue
		}
		byPlace[k] = len(js)
		js = append(js, judged{r, res, v})
	}
	c := report.Check{Kind: UsageKind, Name: "references", Uses: len(js), OK: true, Verdict: string(probe.OK)}
	var resolvedBase, resolvedCand, blocked, warned int
	for _, j := range js {
		if j.res.Baseline == nil || j.res.Baseline.Status == probe.Pass {
			resolvedBase++
		}
		if j.res.Candidate.Status == probe.Pass {
			resolvedCand++
		}
		switch j.verdict {
		case probe.Blocked:
			blocked++
		case probe.Warning:
			warned++
		default:
			continue
		}
		if len(c.Broken) < MaxBroken {
			c.Broken = append(c.Broken, report.Reference{
				Name: j.ref.Name, Kind: string(j.ref.Kind), File: j.ref.File, Line: j.ref.Line, Col: j.ref.Col,
				Private: j.ref.Private, Guarded: j.ref.Guarded,
				Baseline: sideWord(j.res.Baseline, &j.res), Candidate: sideWord(&j.res.Candidate, &j.res), Verdict: string(j.verdict),
				Detail: j.res.Detail,
			})
		}
	}
	c.Baseline = fmt.Sprintf("%d/%d resolve", resolvedBase, len(js))
	if baseline == "" {
		c.Baseline = "none"
	}
	c.Candidate = fmt.Sprintf("%d/%d resolve", resolvedCand, len(js))
	// The most severe first, then in the order of their places.
	slices.SortStableFunc(c.Broken, func(a, b report.Reference) int {
		return cmp.Compare(btoi(b.Verdict == string(probe.Blocked)), btoi(a.Verdict == string(probe.Blocked)))
	})
	switch {
	case blocked > 0:
		c.OK, c.Verdict = false, string(probe.Blocked)
	case warned > 0:
		c.Verdict = string(probe.Warning)
	}
	if len(c.Broken) == 0 {
		c.Detail = fmt.Sprintf("all %d references resolve at %s as at %s", len(js), candidate, cmp.Or(baseline, "no baseline"))
		return c
	}
	first := c.Broken[0]
	c.Detail = fmt.Sprintf("%s: %s at %s, %s at %s", first.Place(), first.Baseline, cmp.Or(baseline, "no baseline"), first.Candidate, candidate)
	if first.Candidate != "missing" && first.Detail != "" {
		c.Detail += " (" + first.Detail + ")"
	}
	if n := blocked + warned - 1; n > 0 {
		c.Detail += fmt.Sprintf("; %s more (%d blocked, %d warnings, of %d references)", plural(n, "reference"), blocked-btoi(first.Verdict == "blocked"),
			warned-btoi(first.Verdict == "warning"), len(js))
	}
	if over := blocked + warned - len(c.Broken); over > 0 {
		c.Detail += fmt.Sprintf("; %d not listed (at most %d are)", over, MaxBroken)
	}
	return c
}

// kindWords name the kinds of a resolved use in a sentence.
var kindWords = map[string]string{
	probe.KindModule: "a module", probe.KindClass: "a class", probe.KindFunction: "a function", probe.KindOther: "a value",
}

// sideWord says in a word or a clause how a use resolved at one version:
// "passes", "missing", "not callable", "takes no keyword argument y",
// "undecided"; "none" with no baseline. A use that resolves at both
// versions as different kinds says what it is at each ("a class", "a
// function"), since that, not its resolving, is what the verdict is about.
func sideWord(s *probe.UseSide, r *probe.UseResult) string {
	if s == nil {
		return "none"
	}
	switch s.Status {
	case probe.Pass:
		if b := r.Baseline; b != nil && b.Status == probe.Pass && r.Candidate.Status == probe.Pass &&
			b.Kind != r.Candidate.Kind && kindWords[s.Kind] != "" {
			return kindWords[s.Kind]
		}
		return "passes"
	case probe.Unknown:
		return "undecided"
	}
	d := s.Detail
	switch {
	// Both modes' words for a name that is not there: the dynamic probe's
	// "missing: ... has no attribute" and "no module named", the static
	// reader's `segment N "x" is missing` and "no module named".
	case strings.HasPrefix(d, "missing"), strings.HasPrefix(d, "no module named"), strings.Contains(d, " is missing"):
		return "missing"
	case strings.HasPrefix(d, "not callable"):
		return "not callable"
	}
	if i := strings.Index(d, " (signature"); i > 0 {
		d = d[:i]
	}
	if len(d) > 120 {
		d = d[:120] + "…"
	}
	return cmp.Or(d, "fails")
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
