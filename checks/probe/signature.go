package probe

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Signature probes compare what breaks callers: each parameter's name and kind,
// their order and which have a default. Default values never count (inspect
// shows values where the source has expressions), and annotations count only
// with signature-annotations: true, compared in a canonical spelling (see
// canonAnnotation). One comparison serves both modes: the dynamic probe sends
// inspect.signature's parameters, static mode reads the def's parameter list,
// and both meet in compareSignature, so they give the same verdict.

// paramKind is a parameter's kind, as inspect.Parameter.kind names it.
type paramKind int

const (
	positionalOnly paramKind = iota
	positionalOrKeyword
	varPositional
	keywordOnly
	varKeyword
)

var kindNames = map[string]paramKind{
	"POSITIONAL_ONLY": positionalOnly, "POSITIONAL_OR_KEYWORD": positionalOrKeyword,
	"VAR_POSITIONAL": varPositional, "KEYWORD_ONLY": keywordOnly, "VAR_KEYWORD": varKeyword,
}

func (k paramKind) String() string {
	switch k {
	case positionalOnly:
		return "positional-only"
	case varPositional:
		return "*args"
	case keywordOnly:
		return "keyword-only"
	case varKeyword:
		return "**kwargs"
	}
	return "positional-or-keyword"
}

// A sigParam is one parameter: Annotation is its text ("" for none).
type sigParam struct {
	Name       string
	Kind       paramKind
	Default    bool
	Annotation string
}

// A signature is a callable's parameters and return annotation; Text is how
// it was written (the spec, the def, or str(inspect.signature)), for messages.
type signature struct {
	Params  []sigParam
	Returns string
	Text    string
}

// parseSignature parses a signature as written in a probe: "(pyfunc)",
// "(a, /, b=1, *args, c: int, **kw) -> str".
func parseSignature(s string) (signature, error) {
	s = strings.TrimSpace(s)
	lines, broken := splitLogical(s)
	if broken != "" || len(lines) != 1 {
		return signature{}, fmt.Errorf("%q is not a parenthesised parameter list like \"(pyfunc)\"", s)
	}
	text, mask := strings.TrimSpace(lines[0].text), strings.TrimSpace(lines[0].mask)
	if !strings.HasPrefix(mask, "(") {
		return signature{}, fmt.Errorf("%q is not a parenthesised parameter list like \"(pyfunc)\"", s)
	}
	end := matchBracket(mask, 0)
	if end < 0 {
		return signature{}, fmt.Errorf("%q: unbalanced parentheses", s)
	}
	sig := signature{Text: squashSpaces(s)}
	rest := strings.TrimSpace(mask[end+1:])
	switch {
	case rest == "":
	case strings.HasPrefix(rest, "->") && strings.TrimSpace(rest[2:]) != "":
		sig.Returns = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(text[end+1:]), "->"))
	default:
		return signature{}, fmt.Errorf("%q: expected \"-> annotation\" or nothing after the parameters", s)
	}
	params, err := parseParams(text[1:end], mask[1:end])
	if err != nil {
		return signature{}, fmt.Errorf("%q: %w", s, err)
	}
	sig.Params = params
	return sig, nil
}

// parseParams parses a def's parameter list (text and its string-masked form).
func parseParams(text, mask string) ([]sigParam, error) {
	var out []sigParam
	if strings.TrimSpace(mask) == "" {
		return nil, nil
	}
	kind := positionalOrKeyword
	seen := map[string]bool{}
	segs := splitTopLevel(mask, ',')
	for i, sg := range segs {
		m, t := strings.TrimSpace(mask[sg[0]:sg[1]]), strings.TrimSpace(text[sg[0]:sg[1]])
		switch {
		case m == "" && i == len(segs)-1 && i > 0:
			continue // a trailing comma
		case m == "":
			return nil, errors.New("empty parameter")
		case m == "/":
			if kind != positionalOrKeyword || len(out) == 0 {
				return nil, errors.New("\"/\" must follow the positional parameters")
			}
			for j := range out {
				out[j].Kind = positionalOnly
			}
			continue
		case m == "*":
			if kind != positionalOrKeyword {
				return nil, errors.New("a second \"*\"")
			}
			kind = keywordOnly
			continue
		}
		p := sigParam{Kind: kind}
		stars := len(m) - len(strings.TrimLeft(m, "*"))
		switch stars {
		case 0:
		case 1:
			if kind != positionalOrKeyword {
				return nil, errors.New("*args after \"*\" or *args")
			}
			p.Kind, kind = varPositional, keywordOnly
		case 2:
			p.Kind = varKeyword
		default:
			return nil, fmt.Errorf("%q is not a parameter", t)
		}
		if len(out) > 0 && out[len(out)-1].Kind == varKeyword {
			return nil, errors.New("a parameter after **kwargs")
		}
		m, t = m[stars:], t[stars:]
		if eq := defaultEq(m); eq >= 0 {
			if stars > 0 {
				return nil, fmt.Errorf("%s cannot have a default", strings.Repeat("*", stars)+strings.TrimSpace(t[:eq]))
			}
			p.Default = true
			m, t = m[:eq], t[:eq]
		}
		if c := topLevelIndex(m, ':'); c >= 0 {
			p.Annotation = squashSpaces(t[c+1:])
			if p.Annotation == "" {
				return nil, fmt.Errorf("%q: empty annotation", t)
			}
			t = t[:c]
		}
		p.Name = strings.TrimSpace(t)
		if !isIdentifier(p.Name) {
			return nil, fmt.Errorf("%q is not a parameter name", p.Name)
		}
		if seen[p.Name] {
			return nil, fmt.Errorf("parameter %s appears twice", p.Name)
		}
		seen[p.Name] = true
		out = append(out, p)
	}
	return out, nil
}

// defaultEq is the offset of the '=' that starts a parameter's default, or -1.
func defaultEq(m string) int {
	depth := 0
	for i := 0; i < len(m); i++ {
		switch m[i] {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
		case '=':
			if depth != 0 || (i+1 < len(m) && m[i+1] == '=') || (i > 0 && strings.IndexByte("<>!=", m[i-1]) >= 0) {
				continue
			}
			return i
		}
	}
	return -1
}

// compareSignature says how got differs from want in what breaks callers
// ("" when it does not): names, kinds, order and which parameters have
// defaults; annotations (parameters and return) only when annotations is set.
func compareSignature(want, got signature, annotations bool) string {
	var diffs []string
	names := func(ps []sigParam) []string {
		out := make([]string, len(ps))
		for i, p := range ps {
			out[i] = p.Name
		}
		return out
	}
	wn, gn := names(want.Params), names(got.Params)
	for _, n := range wn {
		if !slices.Contains(gn, n) {
			diffs = append(diffs, fmt.Sprintf("parameter %s is gone", n))
		}
	}
	for _, n := range gn {
		if !slices.Contains(wn, n) {
			diffs = append(diffs, fmt.Sprintf("parameter %s is new", n))
		}
	}
	if len(diffs) == 0 && !slices.Equal(wn, gn) {
		diffs = append(diffs, fmt.Sprintf("the parameters are in a different order (%s, expected %s)", strings.Join(gn, ", "), strings.Join(wn, ", ")))
	}
	for _, w := range want.Params {
		i := slices.Index(gn, w.Name)
		if i < 0 {
			continue
		}
		g := got.Params[i]
		if g.Kind != w.Kind {
			diffs = append(diffs, fmt.Sprintf("%s is %s, expected %s", w.Name, g.Kind, w.Kind))
		}
		switch {
		case w.Default && !g.Default:
			diffs = append(diffs, fmt.Sprintf("%s has no default any more", w.Name))
		case !w.Default && g.Default:
			diffs = append(diffs, fmt.Sprintf("%s has a default, expected none", w.Name))
		}
		if annotations && canonAnnotation(g.Annotation) != canonAnnotation(w.Annotation) {
			diffs = append(diffs, fmt.Sprintf("%s is annotated %s, expected %s", w.Name, orNone(g.Annotation), orNone(w.Annotation)))
		}
	}
	if annotations && canonAnnotation(got.Returns) != canonAnnotation(want.Returns) {
		diffs = append(diffs, fmt.Sprintf("it returns %s, expected %s", orNone(got.Returns), orNone(want.Returns)))
	}
	return strings.Join(diffs, "; ")
}

func orNone(ann string) string {
	if ann == "" {
		return "(no annotation)"
	}
	return ann
}

// checkSignatureOf compares got with the spec's signature and returns the probe's
// status and detail; both modes end here.
func checkSignatureOf(s *Spec, got signature) (Status, string) {
	want, err := parseSignature(s.Signature)
	if err != nil { // Validate rejects these; a spec built in code may not have been validated
		return Unknown, "signature: " + err.Error()
	}
	if diff := compareSignature(want, got, s.SignatureAnnotations); diff != "" {
		return Fail, fmt.Sprintf("signature is %s, expected %s: %s", got.Text, want.Text, diff)
	}
	what := "names, kinds and defaults"
	if s.SignatureAnnotations {
		what += " and annotations"
	}
	return Pass, fmt.Sprintf("signature %s (%s match)", got.Text, what)
}
