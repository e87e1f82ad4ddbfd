package probe

import (
	"fmt"
	"slices"
	"strings"
)

// absent decides expect: absent: the path must not resolve. A segment that is
// missing passes; a path that resolves fails; anything undecided stays so, as
// does a look-up that fails further along an import chain (the module would
// not import at all, which says nothing about the name).
func (w *wheel) absent(path string) (Status, string) {
	obj, st, why := w.resolve(path, 0)
	switch {
	case st == Pass:
		return Fail, fmt.Sprintf("%s exists: found %s", path, obj.describe())
	case st == Fail && strings.HasPrefix(why, "segment "):
		return Pass, "absent: " + why
	case st == Fail:
		return Unknown, fmt.Sprintf("cannot tell whether %s exists: %s", path, why)
	}
	return st, why
}

// builtinBases are base classes from builtins that assign no instance
// attributes in Python source (the dynamic probe skips builtins' classes too).
var builtinBases = set("object", "Exception", "BaseException", "ValueError", "TypeError", "RuntimeError",
	"KeyError", "IndexError", "AttributeError", "LookupError", "ArithmeticError", "OSError", "IOError",
	"NotImplementedError", "ImportError", "Warning", "UserWarning", "DeprecationWarning", "RuntimeWarning",
	"FutureWarning", "dict", "list", "tuple", "set", "frozenset", "int", "float", "str", "bytes")

// instanceAttribute decides expect: instance-attribute for module.Class.attr: a
// method of the class or of one of its bases (not a static or class method,
// not a nested function) assigns self.attr, self being its first parameter.
// Class decorators, metaclasses and bases outside the wheel leave it
// undecided when no assignment is found.
func (w *wheel) instanceAttribute(path string) (Status, string) {
	i := strings.LastIndexByte(path, '.')
	parent, attr := path[:i], path[i+1:]
	cls, st, why := w.resolve(parent, 0)
	if st != Pass {
		return st, why
	}
	if cls.kind != bClass {
		return Fail, fmt.Sprintf("expected a class at %s, found %s", parent, cls.describe())
	}
	var undecided []string
	seen := map[*pyBinding]bool{}
	var search func(c *sobj, depth int) string
	search = func(c *sobj, depth int) string {
		if seen[c.b] || depth > 32 {
			return ""
		}
		seen[c.b] = true
		if lines := c.b.body.selfAttrs[attr]; len(lines) > 0 {
			return fmt.Sprintf("%s assigns self.%s at %s line %d", c.describe(), attr, c.module, lines[0])
		}
		if len(c.b.decorators) > 0 {
			undecided = append(undecided, fmt.Sprintf("class decorators may assign it (%s)", c.describe()))
		}
		for _, sg := range splitTopLevel(c.b.bases, ',') {
			base := strings.TrimSpace(c.b.bases[sg[0]:sg[1]])
			switch {
			case base == "":
				continue
			case strings.HasPrefix(base, "metaclass") && strings.Contains(base, "="):
				undecided = append(undecided, fmt.Sprintf("%s has a metaclass", c.describe()))
				continue
			case strings.Contains(base, "=") || strings.HasPrefix(base, "*"):
				continue
			case !isDotted(base):
				undecided = append(undecided, fmt.Sprintf("base %s is computed at run time", base))
				continue
			}
			bo, st, why := w.lookupName(c, strings.ReplaceAll(base, " ", ""), 0)
			switch {
			case st != Pass && builtinBases[base] && !strings.Contains(why, " may "):
				continue // a builtin: not bound in the module, nothing star-imported
			case st == Pass && bo.outside != "":
				undecided = append(undecided, fmt.Sprintf("base %s is %s, from another distribution", base, bo.outside))
				continue
			case st != Pass:
				undecided = append(undecided, fmt.Sprintf("base %s cannot be read: %s", base, why))
				continue
			case bo.kind != bClass:
				undecided = append(undecided, fmt.Sprintf("base %s is %s", base, bo.describe()))
				continue
			}
			if found := search(bo, depth+1); found != "" {
				return found
			}
		}
		return ""
	}
	if found := search(cls, 0); found != "" {
		return Pass, found
	}
	if len(undecided) > 0 {
		return Unknown, fmt.Sprintf("no method assigns self.%s, but %s", attr, strings.Join(slices.Compact(undecided), "; "))
	}
	msg := fmt.Sprintf("no method of %s or its bases assigns self.%s", cls.describe(), attr)
	if bs := cls.b.body.names[attr]; len(bs) > 0 {
		msg += fmt.Sprintf(" (%s is a class attribute, line %d)", attr, bs[0].line)
	}
	return Fail, msg
}
