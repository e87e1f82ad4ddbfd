package probe

import "strings"

// What the scanner knows of typing.TYPE_CHECKING, which is False at run
// time: the names bound under `if TYPE_CHECKING:` do not exist then.

// typeChecking reports whether an if statement's test is typing's
// TYPE_CHECKING: a name every binding so far at module level imports from
// typing or typing_extensions (under any alias) or, for TYPE_CHECKING
// itself, assigns False; or MODULE.TYPE_CHECKING, MODULE bound only by
// imports of typing or typing_extensions.
func typeChecking(f *pyFile, test string) bool {
	parts := strings.Split(strings.TrimSpace(test), ".")
	for i := range parts {
		if parts[i] = strings.TrimSpace(parts[i]); !isIdentifier(parts[i]) {
			return false
		}
	}
	dotted := len(parts) == 2
	if len(parts) > 2 || dotted && parts[1] != "TYPE_CHECKING" {
		return false
	}
	name := parts[0]
	bs := f.top.names[name]
	if len(bs) == 0 {
		return false
	}
	for _, b := range bs {
		typing := b.module == "typing" || b.module == "typing_extensions"
		switch {
		case dotted && b.kind == bImport && typing:
		case !dotted && b.kind == bFrom && typing && b.attr == "TYPE_CHECKING":
		case !dotted && b.kind == bAssign && name == "TYPE_CHECKING" && b.value == "False":
		default:
			return false
		}
	}
	return true
}

// typeOnlyScope returns the scope for the bindings under `if TYPE_CHECKING:`
// in sc. Its own typeOnly is itself, so a TYPE_CHECKING block nested in one
// binds there too.
func (sc *pyScope) typeOnlyScope() *pyScope {
	if sc.typeOnly == nil {
		sc.typeOnly = newScope(sc.class)
		sc.typeOnly.typeOnly = sc.typeOnly
	}
	return sc.typeOnly
}
