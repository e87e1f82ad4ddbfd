package probe

import (
	"fmt"
	"strings"
	"time"
)

// reqUse is a use as the probe script reads it: what it needs to resolve
// the name and, for a call, to send the signature (pinbot binds the call).
type reqUse struct {
	I        int      `json:"i"`
	Module   string   `json:"module,omitempty"`
	Attrs    []string `json:"attrs,omitempty"`
	Target   string   `json:"target,omitempty"`
	Instance bool     `json:"instance,omitempty"`
	Call     bool     `json:"call,omitempty"`
	Bound    bool     `json:"bound,omitempty"`
}

func requestUses(uses []Use) []reqUse {
	out := make([]reqUse, len(uses))
	for i := range uses {
		u := &uses[i]
		out[i] = reqUse{I: i, Module: u.Module, Attrs: u.Attrs, Target: u.Target, Instance: u.Instance,
			Call: u.Call != nil, Bound: u.Call != nil && u.Call.Bound}
	}
	return out
}

// useLine is the part of a probe output line that answers a use.
type useLine struct {
	UStart     *int     `json:"ustart"`
	U          *int     `json:"u"`
	Kind       string   `json:"kind"`
	Callable   *bool    `json:"callable"`
	Sig        []string `json:"sig"`
	NoSig      string   `json:"nosig"`
	Self       bool     `json:"self"`
	Deprecated string   `json:"deprecated"`
}

// useCollector gathers the answers to the uses from the probe output, as
// hostile input: an index out of range, an unknown status or kind, an
// unreadable signature is ignored or undecided, never trusted.
type useCollector struct {
	uses    []Use
	version string
	sides   []UseSide
	seen    []bool
	running int
}

func newUseCollector(uses []Use, version string) *useCollector {
	return &useCollector{uses: uses, version: version, sides: make([]UseSide, len(uses)), seen: make([]bool, len(uses)), running: -1}
}

// line takes one output line; it reports whether the line was a use's.
func (c *useCollector) line(l *useLine, status Status, detail string) bool {
	switch {
	case l.UStart != nil:
		c.running = *l.UStart
		return true
	case l.U == nil:
		return false
	case *l.U < 0 || *l.U >= len(c.uses):
		return true
	}
	i := *l.U
	a := useAnswer{status: status, detail: sanitize(detail), deprecated: sanitize(clipText(l.Deprecated, 200)), callable: maybe, self: l.Self}
	if a.status != Pass && a.status != Fail && a.status != Unknown {
		a.status = Unknown
	}
	switch l.Kind {
	case KindModule, KindClass, KindFunction, KindOther:
		a.kind = l.Kind
	}
	if l.Callable != nil {
		a.callable = no
		if *l.Callable {
			a.callable = yes
		}
	}
	switch {
	case l.Sig != nil:
		params, err := readParams(l.Sig)
		if err != nil {
			a.nosig = "the probe process sent an unreadable signature: " + err.Error()
			break
		}
		a.sig = &signature{Params: params, Text: paramsText(params)}
	case l.NoSig != "":
		a.nosig = sanitize(clipText(l.NoSig, 300))
	default:
		a.nosig = "the probe process sent no signature"
	}
	c.sides[i] = a.finish(&c.uses[i], c.version)
	c.seen[i] = true
	c.running = -1
	return true
}

// finish makes a side for every use the output did not answer.
func (c *useCollector) finish(out *Output, finished bool, timeout time.Duration, errTail string) []UseSide {
	for i := range c.sides {
		if c.seen[i] {
			continue
		}
		s := UseSide{Version: c.version, Status: Unknown}
		switch {
		case i == c.running && out.TimedOut:
			s.Detail = fmt.Sprintf("timed out after %s while resolving this use; stderr: %s", timeout, errTail)
		case i == c.running:
			s.Status = Fail
			s.Detail = fmt.Sprintf("the Python process died (exit status %d) while resolving this use; stderr: %s", out.ExitCode, errTail)
		case out.TimedOut:
			s.Detail = "not resolved: the probe process timed out before this use"
		case !finished:
			s.Detail = fmt.Sprintf("not resolved: the probe process exited early (status %d)", out.ExitCode)
		default:
			s.Detail = "no result from the probe process"
		}
		c.sides[i] = s
	}
	return c.sides
}

// readParams reads the compact signature the probe script sends: per
// parameter a kind digit (inspect.Parameter.kind, 0 to 4), "=" when it has a
// default, then its name.
func readParams(tokens []string) ([]sigParam, error) {
	if len(tokens) > 300 {
		return nil, fmt.Errorf("%d parameters", len(tokens))
	}
	kinds := []paramKind{positionalOnly, positionalOrKeyword, varPositional, keywordOnly, varKeyword}
	out := make([]sigParam, 0, len(tokens))
	for _, t := range tokens {
		if t == "" || t[0] < '0' || t[0] > '4' {
			return nil, fmt.Errorf("parameter %q has no kind", clipText(t, 40))
		}
		p := sigParam{Kind: kinds[t[0]-'0']}
		t = t[1:]
		if strings.HasPrefix(t, "=") {
			p.Default, t = true, t[1:]
		}
		if t == "" || len(t) > 100 {
			return nil, fmt.Errorf("a parameter name of %d bytes", len(t))
		}
		p.Name = sanitize(t)
		out = append(out, p)
	}
	return out, nil
}

// paramsText writes parameters as a def would ("(a, /, b=..., *args, c,
// **kw)"), defaults elided: what a detail shows of a signature, the same in
// both modes.
func paramsText(ps []sigParam) string {
	parts := make([]string, 0, len(ps)+2)
	star := false
	for i, p := range ps {
		name := p.Name
		if p.Default {
			name += "=..."
		}
		switch p.Kind {
		case varPositional:
			name, star = "*"+p.Name, true
		case varKeyword:
			name = "**" + p.Name
		case keywordOnly:
			if !star {
				parts, star = append(parts, "*"), true
			}
		}
		parts = append(parts, name)
		if p.Kind == positionalOnly && (i+1 == len(ps) || ps[i+1].Kind != positionalOnly) {
			parts = append(parts, "/")
		}
	}
	return clipText("("+strings.Join(parts, ", ")+")", 300)
}
