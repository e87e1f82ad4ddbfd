// Package conda implements the version scheme of conda packages: conda's
// VersionOrder and the version part of a MatchSpec (a VersionSpec), as in
// conda/models/version.py (https://github.com/conda/conda/blob/main/conda/models/version.py)
// and the package match specifications of conda's documentation
// (https://docs.conda.io/projects/conda/en/latest/user-guide/concepts/pkg-specs.html).
// No Go library implements either, so this package follows conda's code.
//
// # Versions
//
// A version is [epoch "!"] release ["+" local], made of the characters
// [0-9A-Za-z._+!*-], with surrounding white space stripped. It is lower-cased;
// "-" becomes "_" when there is no "_". Release and local part split into
// components at "." and "_", and each component into runs of digits
// (integers), of "*" and of other characters (strings). Components compare
// atom by atom: integers numerically, strings lexically, every string below
// every integer, "*" below "dev" below every other string, "post" above
// everything; a component that starts with a non-digit gets a 0 first
// (1.1.a1 == 1.1.0a1), and a missing atom counts as 0 (0.4 == 0.4.0, 1.1 ==
// 1.1.0). The local part is compared only when the rest is equal. A trailing
// "_" stays on the last component (conda's openssl work-around: 1.0.1_ <
// 1.0.1a). So 0.5* is a version, below 0.5a1, as in conda's own tests.
//
// conda's docstring also lists 0.4 < 0.4.0; its code, which this package follows,
// makes them equal. Where conda and PEP 440 disagree (2.1.0+cu118 < 2.1.0,
// 1.0.dev3 > 1.0a1, 1.0-1 == 1.0.1, 1.0alpha1 > 1.0a1), this package agrees with
// conda.
//
// # Constraints
//
// The grammar of a constraint (conda's VersionSpec, the version part of a
// MatchSpec) as ParseConstraint reads it:
//
//	constraint = [ or ]
//	or         = and { "|" and }        // any alternative matches
//	and        = term { "," term }      // "," binds tighter than "|"
//	term       = "(" or ")" | regex | clause
//	regex      = "^" ... "$"             // to the first "$"; "(", "|" and "," are its own
//	clause     = [ op ] version | "*"
//	op         = ">=" | "<=" | ">" | "<" | "==" | "!=" | "~=" | "="
//
// Space is allowed around terms, but not between an operator and its version
// ("<= 1.2" is an error, as in conda's VersionSpec; conda's MatchSpec parser
// deletes every space of the version part first, so conda itself accepts the
// MatchSpec "numba >= 0.59", which this package refuses). A bare version is an
// exact match by VersionOrder (0.61 matches 0.61.0); a bare version ending in
// ".*" or "*" (0.47.*, 0.47*) is a prefix match by VersionOrder.startswith
// (0.47.* matches 0.47.2, not 0.470), as is "=0.61" (Fuzzy, also written
// =0.61.* or =0.61*, read as the MatchSpec reads it). "!=X.*" excludes a
// prefix; ">=X.*" is ">=X". After any other operator a "*" is a version
// character (>1.0.0* admits 1.0.0). "~=1.4.5" is ">=1.4.5" with prefix 1.4.
// "*" alone matches every version. Pre-releases get no special treatment:
// "<0.62" admits 0.62.0rc1, which sorts below 0.62.
//
// Patterns (versions.Clause.Pattern) match the version as written, not by
// VersionOrder: a regular expression (^1\.7\.[0-9]+$, in Go's RE2 syntax; one
// that needs Python-only syntax such as look-behind is refused), a bare
// version with "*" inside (1.*.1, conda's glob: "." and "+" literal, "*" any
// run) and a bare version with "@" (that string exactly).
//
// Refused, with a *versions.SyntaxError: ".*" after <, <=, > (conda ignores it
// there with a deprecation warning) and ~=; ".*" after ==, which conda reads
// two ways (the MatchSpec numba==1.2.* is the prefix 1.2.*, the version spec
// ==1.2.* is ==1.2); and terms side by side without "," or "|" (1.5 (1.6),
// ^1.7$x), of which conda keeps the first and drops the rest.
package conda

import (
	"github.com/pinbot-dev/pinbot/versions"
)

// Name is the scheme's identifier.
const Name = "conda"

// Scheme is the conda version scheme.
type Scheme struct{}

var _ versions.Scheme = Scheme{}

// Name returns "conda".
func (Scheme) Name() string { return Name }

// Valid reports whether v is a conda version.
func (Scheme) Valid(v string) bool {
	_, ok := parseVersion(v)
	return ok
}

// Compare orders a and b by conda's VersionOrder (-1, 0, +1); invalid versions
// sort lowest and equal each other.
func (Scheme) Compare(a, b string) int {
	va, oka := parseVersion(a)
	vb, okb := parseVersion(b)
	switch {
	case !oka && !okb:
		return 0
	case !oka:
		return -1
	case !okb:
		return 1
	}
	return compare(va, vb)
}

// Prerelease reports whether v is a pre-release by conda's convention: its
// release part (epoch and local part aside) has a run of letters other than
// "post", such as a, b, rc, alpha, beta, dev or pre (0.63.0rc1, 0.50.0dev0,
// 1.1dev1, 1.0.post1.dev2). Such a run sorts below the fill value 0, so the
// version sorts below the release without it. Tags (1.1.parallel) and
// openssl-style letters (1.1.1w) count as well, erring towards "not stable".
// Invalid versions are not pre-releases.
func (Scheme) Prerelease(v string) bool {
	pv, ok := parseVersion(v)
	return ok && pv.prerelease()
}
