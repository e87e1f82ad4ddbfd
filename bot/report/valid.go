package report

import (
	"regexp"
	"strings"
	"sync"
)

// The shapes a package name and a version can have in a report that pinbot
// reads back (bot/verifying/verdicts, the fleet's reports): package names as PEP 503,
// conda and Go module paths spell them, versions as PEP 440, conda and
// semver do. Anything else in a report did not come from pinbot. Compiled
// when first used, not at start: their counted repetitions make large
// programs (about 1 ms of every command's start).
var (
	nameRE    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._~/+-]{0,299}$`) })
	versionRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9.+!_~-]{0,127}$`) })
)

// ValidName reports whether s has the shape of a package name in a report.
func ValidName(s string) bool { return nameRE().MatchString(s) }

// ValidVersion reports whether s has the shape of a version in a report.
func ValidVersion(s string) bool { return versionRE().MatchString(s) }

// ownerRE is what GitHub allows in an owner name, compiled when first used
// (a counted repetition costs every command's start).
var ownerRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$`) })

// ValidOwner reports whether s can be a GitHub organisation or user name.
func ValidOwner(s string) bool { return ownerRE().MatchString(s) }

// ValidRepoName reports whether s can be a repository's name (without its
// owner) on GitHub: 1 to 100 ASCII letters, digits, '.', '_' and '-', and
// neither "." nor "..". A name that starts with '-' is refused too, so that
// no command a name reaches reads it as a flag.
func ValidRepoName(s string) bool {
	if s == "" || len(s) > 100 || s == "." || s == ".." || s[0] == '-' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// ValidRepository reports whether s is a repository's full name,
// "owner/name", as GitHub allows them (ValidOwner, ValidRepoName).
func ValidRepository(s string) bool {
	owner, name, ok := strings.Cut(s, "/")
	return ok && ValidOwner(owner) && ValidRepoName(name)
}

// SameRepository reports whether two full names name one repository:
// GitHub's owner and repository names are case-insensitive.
func SameRepository(a, b string) bool { return strings.EqualFold(a, b) }
