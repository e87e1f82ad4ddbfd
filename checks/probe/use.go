package probe

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Uses are the names a project's own code takes from the package (issue #29):
// each is resolved at the baseline and the candidate, in the same run and
// environments as the probes (dynamically in the same Python process, or
// statically from the same wheels), and judged: a name that resolves at the
// baseline and not at the candidate blocks. The finder (checks/usage) lists
// them; the integration maps its Refs to Uses. See README.md, "Uses".

// A Use is one name to resolve in an environment: what the project's code
// uses. Module and Attrs name it as the code reaches it (import Module, then
// get each attribute in turn); Target names it as a dotted string resolved
// as unittest.mock resolves a patch target.
type Use struct {
	// Module is the module the code imports ("numba.core.bytecode"); ""
	// when Target is set.
	Module string `json:"module,omitempty"`
	// Attrs are the attributes got in turn from it (["FunctionIdentity",
	// "_unique_ids"]). An attribute of a module that is not there is its
	// submodule when one imports, whether or not the code imports it
	// itself (which module imports it first is not the code's to decide).
	Attrs []string `json:"attrs,omitempty"`
	// Target is a patch target ("numba.core.dispatcher.Dispatcher._compile_for_args"):
	// its longest importable dotted prefix is imported, the rest got as
	// attributes (pkgutil.resolve_name, which mock.patch uses).
	Target string `json:"target,omitempty"`
	// Instance says the last attribute is an instance's (ctx.x after ctx =
	// Context(), self.x in a subclass): when the class has no such
	// attribute, a method of the class or a base assigning self.x counts
	// (the instance-attribute rule of probes). It needs two attributes at
	// least: the class and the attribute.
	Instance bool `json:"instance,omitempty"`
	// Call is the call site's shape when the code calls the name, checked
	// against the callee's signature.
	Call *UseCall `json:"call,omitempty"`
	// Assign says the code replaces or deletes the name (a monkeypatch, a
	// mock.patch target, del): it must exist, since replacing a missing
	// name breaks the patch silently. Resolution is the same.
	Assign bool `json:"assign,omitempty"`
	// Import says the code imports it (import m, from m import x: the
	// attribute x of m, else the submodule m.x).
	Import bool `json:"import,omitempty"`
	// Base says the code subclasses it (class X(Base)): it must stay a
	// class. Resolution is the same.
	Base bool `json:"base,omitempty"`
}

// A UseCall is the shape of a call site: what the callee must accept.
type UseCall struct {
	Positional int      `json:"positional"`         // positional arguments passed, not counting *args
	Keywords   []string `json:"keywords,omitempty"` // keyword names passed, not counting **kwargs
	Star       bool     `json:"star,omitempty"`     // the call passes *args: Positional is a minimum
	DoubleStar bool     `json:"double_star,omitempty"`
	// Bound says the callee is called through an instance (ctx.m(),
	// self.m()): a plain function found on the class gets the instance as
	// its first argument. A classmethod binds its class whatever the way
	// in; a staticmethod binds nothing.
	Bound bool `json:"bound,omitempty"`
}

// The kinds of a resolved use. KindFunction is every callable that is not a
// class (functions, methods, builtins, partials, callable instances): a
// change among them breaks no caller whose call the callee still accepts.
const (
	KindModule   = "module"
	KindClass    = "class"
	KindFunction = "function"
	KindOther    = "other" // a value that is not callable
)

// A UseSide is a Use at one version.
type UseSide struct {
	Version string `json:"version"`
	// Status is Pass when the use resolves (and accepts the call), Fail
	// when it does not, Unknown when that cannot be decided.
	Status Status `json:"status"`
	// Kind is one of the Kind constants; "" when it does not resolve, or
	// when what it is cannot be told (an instance attribute set at run
	// time, a value static reading does not follow).
	Kind   string `json:"kind,omitempty"`
	Detail string `json:"detail"`
	// Deprecated is the first line of a DeprecationWarning (or
	// PendingDeprecationWarning, FutureWarning) raised while resolving it,
	// dynamically: the name still works but is on its way out.
	Deprecated string `json:"deprecated,omitempty"`
}

// A UseResult is one Use of Options.Uses judged: Index is its place there.
type UseResult struct {
	Index     int      `json:"index"`
	Name      string   `json:"name"`
	Baseline  *UseSide `json:"baseline,omitempty"`
	Candidate UseSide  `json:"candidate"`
	Verdict   Verdict  `json:"verdict"`
	Detail    string   `json:"detail"`
}

// maxUseAttrs and maxUseName bound one use; maxCallArgs one call site.
const (
	maxUseAttrs = 64
	maxUseName  = 1000
	maxCallArgs = 255
)

// Name is the dotted name the use stands for.
func (u *Use) Name() string {
	if u.Target != "" {
		return u.Target
	}
	return strings.Join(append([]string{u.Module}, u.Attrs...), ".")
}

// Validate reports why u cannot be resolved: names that are not dotted
// identifiers, both or neither of Module and Target, an Instance without a
// class and an attribute, a call shape out of range.
func (u *Use) Validate() error {
	switch {
	case u.Target != "" && (u.Module != "" || len(u.Attrs) > 0):
		return errors.New("a use has a module (and attributes) or a target, not both")
	case u.Target != "":
		if err := checkDotted(u.Target); err != nil {
			return fmt.Errorf("target: %w", err)
		}
		if !strings.Contains(u.Target, ".") {
			return fmt.Errorf("target: %q names no attribute (mock.patch needs module.attribute)", u.Target)
		}
		if u.Instance || u.Base {
			return errors.New("a target is not an instance's attribute or a base")
		}
	case u.Module == "":
		return errors.New("a use needs a module or a target")
	default:
		if err := checkDotted(u.Module); err != nil {
			return fmt.Errorf("module: %w", err)
		}
		if len(u.Attrs) > maxUseAttrs {
			return fmt.Errorf("%d attributes, more than %d", len(u.Attrs), maxUseAttrs)
		}
		for _, a := range u.Attrs {
			if !isIdentifier(a) {
				return fmt.Errorf("attribute %q is not a Python identifier", a)
			}
		}
		if u.Instance && len(u.Attrs) < 2 {
			return fmt.Errorf("an instance's attribute needs a class and an attribute after module %s", u.Module)
		}
	}
	if n := len(u.Name()); n > maxUseName {
		return fmt.Errorf("the name is %d bytes long, more than %d", n, maxUseName)
	}
	if u.Base && (u.Call != nil || u.Instance || u.Assign) {
		return errors.New("a base is neither called, an instance's attribute nor replaced")
	}
	if c := u.Call; c != nil {
		if c.Positional < 0 || c.Positional > maxCallArgs || len(c.Keywords) > maxCallArgs {
			return fmt.Errorf("a call with %d positional and %d keyword arguments", c.Positional, len(c.Keywords))
		}
		seen := map[string]bool{}
		for _, k := range c.Keywords {
			if !isIdentifier(k) {
				return fmt.Errorf("call: keyword %q is not a Python identifier", k)
			}
			if seen[k] {
				return fmt.Errorf("call: keyword %s passed twice", k)
			}
			seen[k] = true
		}
	}
	return nil
}

// useSet is Options.Uses prepared for resolving: each distinct valid use
// once, so that 2,000 references to a few hundred names cost a few hundred
// look-ups.
type useSet struct {
	uniq []Use
	of   []int    // Options.Uses[i] → its index in uniq, or -1 when invalid
	bad  []string // why Options.Uses[i] is invalid
}

func newUseSet(uses []Use) *useSet {
	s := &useSet{of: make([]int, len(uses)), bad: make([]string, len(uses))}
	index := map[string]int{}
	for i := range uses {
		u := &uses[i]
		if err := u.Validate(); err != nil {
			s.of[i], s.bad[i] = -1, err.Error()
			continue
		}
		b, _ := json.Marshal(u)
		k, ok := index[string(b)]
		if !ok {
			k = len(s.uniq)
			index[string(b)] = k
			s.uniq = append(s.uniq, *u)
		}
		s.of[i] = k
	}
	return s
}

// useKey identifies a use across runs, for the results kept with a
// resolution (as specKey does for probes).
func useKey(u *Use) string {
	b, _ := json.Marshal(u)
	return "use:" + specKeyOf(b)
}

// results judges every use of opts.Uses from the sides of the distinct
// ones (base is nil without a baseline).
func (s *useSet) results(uses []Use, base, cand []UseSide, version, baseVersion string) []UseResult {
	out := make([]UseResult, len(uses))
	for i := range uses {
		r := UseResult{Index: i, Name: sanitize(clipText(uses[i].Name(), 200))}
		if s.of[i] < 0 {
			why := "cannot be checked: " + sanitize(s.bad[i])
			r.Candidate = UseSide{Version: version, Status: Unknown, Detail: why}
			if base != nil {
				r.Baseline = &UseSide{Version: baseVersion, Status: Unknown, Detail: why}
			}
		} else {
			r.Candidate = cand[s.of[i]]
			if base != nil {
				b := base[s.of[i]]
				r.Baseline = &b
			}
		}
		r.Verdict, r.Detail = judgeUse(&uses[i], &r)
		out[i] = r
	}
	return out
}

// judgeUse decides one use's verdict: blocked when it resolves at the
// baseline and not at the candidate, or when what it is changed in a way
// that breaks the code (kindChange); a warning when either side is
// undecided, when it fails at the baseline already, or fails with no
// baseline to compare with; ok otherwise.
func judgeUse(u *Use, r *UseResult) (Verdict, string) {
	c, b := &r.Candidate, r.Baseline
	switch {
	case b != nil && b.Status == Unknown:
		return Warning, fmt.Sprintf("undecided at %s: %s", b.Version, b.Detail)
	case c.Status == Unknown:
		return Warning, fmt.Sprintf("undecided at %s: %s", c.Version, c.Detail)
	case b == nil && c.Status == Fail:
		return Warning, fmt.Sprintf("fails at %s, with no baseline to compare: %s", c.Version, c.Detail)
	case b == nil:
		return OK, deprecatedNote(c.Detail, c)
	case b.Status == Fail && c.Status == Fail:
		return Warning, fmt.Sprintf("already fails at %s: %s", b.Version, b.Detail)
	case b.Status == Fail:
		return OK, deprecatedNote(fmt.Sprintf("fixed at %s (failed at %s: %s)", c.Version, b.Version, b.Detail), c)
	case c.Status == Fail:
		return Blocked, fmt.Sprintf("passes at %s, fails at %s: %s", b.Version, c.Version, c.Detail)
	}
	v, why := kindChange(u, b, c)
	if why == "" {
		return v, deprecatedNote(c.Detail, c)
	}
	return v, deprecatedNote(why, c)
}

// kindChange judges a use that resolves at both sides by what it is at each.
// A module, a class, a function and a value are different kinds, and what a
// change breaks depends on what the code does with the name:
//   - a call accepted at both sides is fine whatever the callee is (a
//     function that became a class, or a class a factory function, still
//     takes the call);
//   - a base (the code subclasses it) must stay a class;
//   - any other use (an import, an attribute read, a replaced name) that
//     changed between a class and a function is undecided: calls of it are
//     references of their own, checked against the signature, and so are the
//     attributes read through it, but a use of the bare name as a class (an
//     isinstance, an except) or as a function (binding it as a method) is not
//     seen;
//   - a module that became anything else (or became one), a value that became
//     callable (or callable that became a value) breaks the code.
//
// When one side's kind cannot be told, only a module or a class on the other
// side leaves it undecided: nothing else the code can do with a name depends
// on its kind.
func kindChange(u *Use, b, c *UseSide) (Verdict, string) {
	bk, ck := b.Kind, c.Kind
	switch {
	case bk == ck:
		return OK, ""
	case bk == "" || ck == "":
		known, knownAt, other := bk, b.Version, c
		if bk == "" {
			known, knownAt, other = ck, c.Version, b
		}
		if known == KindModule || known == KindClass {
			return Warning, fmt.Sprintf("%s at %s; what it is at %s cannot be told: %s", kindPhrase(known), knownAt, other.Version, other.Detail)
		}
		return OK, ""
	case u.Call != nil:
		return OK, fmt.Sprintf("%s at %s, %s at %s; it still accepts the call: %s", kindPhrase(bk), b.Version, kindPhrase(ck), c.Version, c.Detail)
	case u.Base && bk == KindClass:
		return Blocked, fmt.Sprintf("a class at %s, %s at %s, and the code subclasses it: %s", b.Version, kindPhrase(ck), c.Version, c.Detail)
	case bk == KindFunction && ck == KindClass:
		return Warning, fmt.Sprintf("a function at %s, a class at %s: calls still work, but code that relies on a function (binding as a method, __code__) may not: %s", b.Version, c.Version, c.Detail)
	case bk == KindClass && ck == KindFunction:
		return Warning, fmt.Sprintf("a class at %s, a function at %s: calls still work, but code that relies on a class (isinstance, except) may not: %s", b.Version, c.Version, c.Detail)
	}
	return Blocked, fmt.Sprintf("%s at %s, %s at %s: %s", kindPhrase(bk), b.Version, kindPhrase(ck), c.Version, c.Detail)
}

// kindPhrase names a kind in a sentence.
func kindPhrase(kind string) string {
	if kind == KindOther {
		return "a value"
	}
	return "a " + kind
}

func deprecatedNote(detail string, c *UseSide) string {
	if c.Deprecated == "" {
		return detail
	}
	return fmt.Sprintf("%s; deprecated at %s: %s", detail, c.Version, c.Deprecated)
}

// A useAnswer is what one mode found for a use at one version, before the
// call is checked: both modes end in finish.
type useAnswer struct {
	status     Status
	kind       string
	detail     string
	deprecated string
	callable   tri        // maybe when it cannot be told
	sig        *signature // the signature a call binds to; nil when unknown (nosig says why)
	nosig      string
	self       bool // the call passes the instance first (Call.Bound, a plain function of a class)
}

// finish checks the call against the signature and makes the side.
func (a *useAnswer) finish(u *Use, version string) UseSide {
	s := UseSide{Version: version, Status: a.status, Detail: a.detail, Deprecated: a.deprecated}
	if a.status == Pass {
		s.Kind = a.kind
		a.checkCall(u, &s)
	}
	s.Detail = sanitize(s.Detail)
	return s
}

// checkCall decides whether the callee accepts the call u makes.
func (a *useAnswer) checkCall(u *Use, s *UseSide) {
	if u.Call == nil {
		return
	}
	switch {
	case a.callable == no:
		s.Status, s.Detail = Fail, "not callable: "+a.detail
	case a.sig == nil:
		s.Status, s.Detail = Unknown, fmt.Sprintf("%s; the call cannot be checked: %s", a.detail, a.nosig)
	default:
		if why := bindCall(a.sig.Params, u.Call, a.self); why != "" {
			s.Status, s.Detail = Fail, fmt.Sprintf("%s (signature %s; %s)", why, a.sig.Text, a.detail)
		} else {
			s.Detail = fmt.Sprintf("%s; accepts the call (signature %s)", a.detail, a.sig.Text)
		}
	}
}

// bindCall says why a callee with params does not accept a call of shape c
// ("" when it does), as inspect.Signature.bind decides; self passes the
// instance as a first positional argument. With *args at the call site
// only too many known positional arguments fail, and with **kwargs only
// known keywords that cannot bind; a parameter they may fill is never
// missing. One function serves both modes: the dynamic probe sends
// inspect.signature's parameters, static mode reads the def's.
func bindCall(params []sigParam, c *UseCall, self bool) string {
	n := c.Positional
	if self {
		n++
	}
	filled := make([]bool, len(params))
	var slots []int // positional parameters, in order
	varPos, varKw := false, false
	for i, p := range params {
		switch p.Kind {
		case positionalOnly, positionalOrKeyword:
			slots = append(slots, i)
		case varPositional:
			varPos = true
		case varKeyword:
			varKw = true
		}
	}
	if n > len(slots) && !varPos {
		with := ""
		if self {
			with = " with the instance"
		}
		return fmt.Sprintf("takes at most %d positional %s%s, %d given", len(slots), plural(len(slots), "argument"), with, n)
	}
	for i := 0; i < n && i < len(slots); i++ {
		filled[slots[i]] = true
	}
	for _, k := range c.Keywords {
		i := -1
		for j, p := range params {
			if p.Name == k && p.Kind != varPositional && p.Kind != varKeyword {
				i = j
				break
			}
		}
		switch {
		case i >= 0 && params[i].Kind == positionalOnly && !varKw:
			return fmt.Sprintf("takes %s as a positional-only parameter, not as the keyword the call passes", k)
		case i >= 0 && params[i].Kind == positionalOnly:
			// A positional-only name passed by keyword goes to **kwargs.
		case i >= 0 && filled[i]:
			return fmt.Sprintf("gets multiple values for argument %s", k)
		case i >= 0:
			filled[i] = true
		case !varKw:
			return fmt.Sprintf("takes no keyword argument %s", k)
		}
	}
	for i, p := range params {
		if filled[i] || p.Default {
			continue
		}
		switch {
		case p.Kind == positionalOnly && !c.Star,
			p.Kind == positionalOrKeyword && !c.Star && !c.DoubleStar,
			p.Kind == keywordOnly && !c.DoubleStar:
			return fmt.Sprintf("needs argument %s, which the call does not pass", p.Name)
		}
	}
	return ""
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}
