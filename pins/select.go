package pins

import (
	"fmt"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// A Selection narrows the files discovery finds, as the mapping form of the
// configuration's files key says: a file is kept when it matches one of
// Include (or Include is empty) and none of Exclude. Patterns are globs over
// slash-separated paths relative to the repository root
// (github.com/bmatcuk/doublestar): "*" matches within one path element, "**"
// any number of directories, "{a,b}" either; a pattern ending in "/" stands
// for everything below that directory.
type Selection struct {
	Include, Exclude []string
}

// Apply returns the files of found that s keeps, in their order.
func (s Selection) Apply(found []Found) []Found {
	if len(s.Include) == 0 && len(s.Exclude) == 0 {
		return found
	}
	var out []Found
	for _, f := range found {
		if s.Keep(f.Path) {
			out = append(out, f)
		}
	}
	return out
}

// Keep reports whether s keeps the slash-separated path p.
func (s Selection) Keep(p string) bool {
	if len(s.Include) > 0 && !matchAny(s.Include, p) {
		return false
	}
	return !matchAny(s.Exclude, p)
}

func matchAny(globs []string, p string) bool {
	for _, g := range globs {
		if ok, err := doublestar.Match(expandGlob(g), p); err == nil && ok {
			return true
		}
	}
	return false
}

// expandGlob turns a pattern ending in "/" into one for everything below it.
func expandGlob(g string) string {
	if strings.HasSuffix(g, "/") {
		return g + "**"
	}
	return g
}

// CheckGlob says what is wrong with a Selection pattern: bad syntax, or a
// path that is not relative to the repository root.
func CheckGlob(g string) error {
	switch {
	case g == "":
		return fmt.Errorf("empty pattern")
	case strings.HasPrefix(g, "/") || g == ".." || strings.HasPrefix(g, "../") || strings.Contains(g, "/../"):
		return fmt.Errorf("%q: expected a pattern relative to the repository root", g)
	case !doublestar.ValidatePattern(expandGlob(g)):
		return fmt.Errorf("%q: not a valid glob", g)
	}
	return nil
}
