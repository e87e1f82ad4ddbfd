package symbols

import (
	"cmp"
	"encoding/json"
	"io"
	"slices"
	"strings"

	"github.com/pinbot-dev/pinbot/internal/errw"
	"github.com/pinbot-dev/pinbot/internal/escape"
)

// WriteJSON writes r as indented JSON with stable snake_case keys; empty
// lists are [] rather than null.
func WriteJSON(w io.Writer, r *Result) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(normalized(r))
}

// normalized returns a copy of r whose nil slices are empty and whose
// clashes all have demangled names.
func normalized(r *Result) *Result {
	c := *r
	if slices.ContainsFunc(c.Clashes, func(c Clash) bool { return c.Demangled == "" }) {
		c.Clashes = slices.Clone(c.Clashes)
		c.Demangle()
	}
	c.Patterns = orEmpty(c.Patterns)
	c.Libraries = orEmpty(c.Libraries)
	c.Forbidden = orEmpty(c.Forbidden)
	c.Clashes = orEmpty(c.Clashes)
	c.Errors = orEmpty(c.Errors)
	c.Warnings = orEmpty(c.Warnings)
	c.Libraries = slices.Clone(c.Libraries)
	for i := range c.Libraries {
		l := &c.Libraries[i]
		l.Needed, l.Runpath, l.VersionNodes = orEmpty(l.Needed), orEmpty(l.Runpath), orEmpty(l.VersionNodes)
	}
	c.Forbidden = slices.Clone(c.Forbidden)
	for i := range c.Forbidden {
		f := &c.Forbidden[i]
		f.Patterns = orEmpty(f.Patterns)
		f.Examples = orEmpty(f.Examples)
		f.ImportExamples = orEmpty(f.ImportExamples)
	}
	return &c
}

func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// WriteVerdictJSON writes v as indented JSON; empty lists are [].
func WriteVerdictJSON(w io.Writer, v Verdict) error {
	v.New, v.Existing, v.Fixed = orEmpty(v.New), orEmpty(v.Existing), orEmpty(v.Fixed)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// WriteText writes r for people: unreadable inputs, forbidden exports per
// library with examples, every clash with different bodies with its copies,
// and the other clashes counted per set of libraries with one example.
// Paths, member and symbol names come from archives: they are shown through
// escape.Text, so a name holding a terminal escape prints as text.
func WriteText(w io.Writer, r *Result) error {
	ew := errw.New(w)
	t := escape.Text
	pyext := 0
	for _, l := range r.Libraries {
		if l.PythonExtension {
			pyext++
		}
	}
	ew.Printf("%s (%d Python extension%s): %s symbols, %s exported, %s undefined\n",
		plural2(r.Stats.Libraries, "library", "libraries"), pyext, plural(pyext),
		count(r.Stats.Symbols), count(r.Stats.Exported), count(r.Stats.Undefined))
	failed := r.Failed()
	if len(r.Errors)+len(failed) > 0 {
		ew.Printf("\nerrors:\n")
		for _, e := range r.Errors {
			ew.Printf("  %s: %s\n", t(e.Path), t(e.Error))
		}
		for _, l := range failed {
			ew.Printf("  %s: %s\n", t(l.Path), t(l.Error))
		}
	}
	if len(r.Warnings) > 0 {
		ew.Printf("\nwarnings:\n")
		for _, w := range r.Warnings {
			ew.Printf("  %s: %s\n", t(w.Path), t(w.Warning))
		}
	}
	if len(r.Patterns) > 0 {
		ew.Printf("\nforbidden (%s): ", t(strings.Join(r.Patterns, ", ")))
		if r.Targets() == 0 {
			ew.Printf("not checked: no target shared object was read\n")
		} else if len(r.Forbidden) == 0 {
			ew.Printf("none\n")
		} else {
			ew.Printf("%s exports\n", count(r.ForbiddenExports()))
		}
		for _, f := range r.Forbidden {
			ew.Printf("  %s: %s export%s, %s import%s\n", t(f.Library), count(f.Exports), plural(f.Exports), count(f.Imports), plural(f.Imports))
			for _, pc := range f.Patterns {
				if pc.Exports+pc.Imports > 0 {
					ew.Printf("    %-28s %7s exported %7s imported\n", t(pc.Pattern), count(pc.Exports), count(pc.Imports))
				}
			}
			for _, e := range f.Examples {
				ew.Printf("    exports %s\n", t(e))
			}
			if f.Exports == 0 {
				for _, e := range f.ImportExamples {
					ew.Printf("    imports %s\n", t(e))
				}
			}
		}
	}
	writeClashesText(ew, r)
	return ew.Err
}

func writeClashesText(ew *errw.Writer, r *Result) {
	t := escape.Text
	var diff, same, unknown int
	for _, c := range r.Clashes {
		switch c.Body {
		case BodyDifferent:
			diff++
		case BodySame:
			same++
		default:
			unknown++
		}
	}
	ew.Printf("\nclashes: %s (%s different, %s same, %s unknown)\n", count(len(r.Clashes)), count(diff), count(same), count(unknown))
	if diff > 0 {
		ew.Printf("  different bodies:\n")
		for _, c := range r.Clashes {
			if c.Body != BodyDifferent {
				continue
			}
			name := c.Demangled
			if c.Version != "" {
				name += "@" + c.Version
			}
			ew.Printf("    %s  [%s, %s, by %s]\n", t(name), t(c.Type), t(string(c.Exposure)), t(c.Reason))
			if c.Name != c.Demangled {
				ew.Printf("      %s\n", t(c.Name))
			}
			for _, cp := range c.Copies {
				ew.Printf("      %-8d %-6s body %d  %s\n", cp.Size, t(cp.Bind), cp.Group, t(cp.Library))
			}
		}
	}
	// The rest, counted per set of libraries.
	type group struct {
		libs    string
		n       int
		body    Body
		example string
	}
	groups := map[string]*group{}
	var key []byte // reused: a group's key is copied only when it is new
	for _, c := range r.Clashes {
		if c.Body == BodyDifferent {
			continue
		}
		key = append(key[:0], c.Body...)
		for _, cp := range c.Copies {
			key = append(key, 0)
			key = append(key, cp.Library...)
		}
		g := groups[string(key)]
		if g == nil {
			libs := make([]string, len(c.Copies))
			for i, cp := range c.Copies {
				libs[i] = cp.Library
			}
			example := c.Demangled
			if example == "" {
				example = demangleName(c.Name)
			}
			g = &group{libs: strings.Join(libs, " + "), body: c.Body, example: example}
			groups[string(key)] = g
		}
		g.n++
	}
	list := make([]*group, 0, len(groups))
	for _, g := range groups {
		list = append(list, g)
	}
	slices.SortFunc(list, func(a, b *group) int {
		return cmp.Or(cmp.Compare(b.n, a.n), cmp.Compare(a.body, b.body), cmp.Compare(a.libs, b.libs))
	})
	if len(list) > 0 {
		ew.Printf("  same or unknown bodies, by libraries:\n")
	}
	for _, g := range list {
		ew.Printf("    %7s %-7s %s\n            e.g. %s\n", count(g.n), g.body, t(g.libs), t(g.example))
	}
}

func plural2(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return count(n) + " " + many
}
