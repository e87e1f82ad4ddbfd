package setupcfg

import (
	"errors"
	"fmt"
	"strings"
)

// maxDepth is configparser's MAX_INTERPOLATION_DEPTH: how deep references
// may nest before configparser gives up.
const maxDepth = 10

// options are the raw values of a file's options, by section and by key as
// configparser's optionxform gives it (lower case), each the value's lines
// joined with "\n".
type options map[string]map[string]string

func (o options) add(c chunk) {
	key := strings.ToLower(c.key)
	sec := o[c.section]
	if sec == nil {
		sec = map[string]string{}
		o[c.section] = sec
	}
	text := strings.TrimSpace(c.text)
	if v, ok := sec[key]; ok && v != "" {
		text = v + "\n" + text
	}
	sec[key] = text
}

// lookup returns the raw value of key in section, or in [DEFAULT], whose
// options every section has.
func (o options) lookup(section, key string) (string, bool) {
	if v, ok := o[section][key]; ok {
		return v, true
	}
	v, ok := o["DEFAULT"][key]
	return v, ok
}

// interpolate expands text, a value of section, as configparser's
// BasicInterpolation does (https://docs.python.org/3/library/configparser.html#configparser.BasicInterpolation):
// "%(name)s" is the value of the option name of the same section (or
// [DEFAULT]), itself expanded, and "%%" is "%". onlyRefs reports whether
// text is nothing but references and space, so that it stands for other
// options' requirements. An error says why configparser would refuse it.
func (o options) interpolate(section, text string, depth int) (expanded string, onlyRefs bool, err error) {
	if depth > maxDepth {
		return "", false, errors.New("configparser interpolation nests deeper than 10 references (a reference loop?)")
	}
	var b strings.Builder
	onlyRefs = true
	for i := 0; i < len(text); {
		c := text[i]
		if c != '%' {
			if c != ' ' && c != '\t' {
				onlyRefs = false
			}
			b.WriteByte(c)
			i++
			continue
		}
		rest := text[i+1:]
		switch {
		case strings.HasPrefix(rest, "%"):
			onlyRefs = false
			b.WriteByte('%')
			i += 2
		case strings.HasPrefix(rest, "("):
			end := strings.Index(rest, ")s")
			if end < 0 {
				return "", false, fmt.Errorf("bad configparser interpolation %q: a reference is written %%(name)s", text[i:])
			}
			name := rest[1:end]
			v, ok := o.lookup(section, strings.ToLower(name))
			if !ok {
				return "", false, fmt.Errorf("%%(%s)s refers to no option %q of [%s] or [DEFAULT] (configparser refuses it)", name, strings.ToLower(name), section)
			}
			sub, _, err := o.interpolate(section, v, depth+1)
			if err != nil {
				return "", false, err
			}
			b.WriteString(sub)
			i += 1 + end + 2
		default:
			return "", false, fmt.Errorf("bad configparser interpolation in %q: '%%' must be followed by '%%' or '(' (write %%%% for a literal %%)", text)
		}
	}
	return b.String(), onlyRefs, nil
}
