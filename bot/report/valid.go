package report

import (
	"regexp"
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
