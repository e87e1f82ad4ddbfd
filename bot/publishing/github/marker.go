package github

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// A marker is what the first line of a pull request body pinbot wrote
// records, in hidden HTML comments:
//
//	<!-- pinbot:v1 package=numba target=0.67.0 base=main --> <!-- pinbot:commits SHA [SHA] --> <!-- pinbot:draft reason=check-failed -->
//
// The body is text people can edit (and quote from elsewhere), so it is read
// strictly: only a first line of exactly this form counts, the parts in this
// order, each at most once; anything else on the line, or a marker further
// down, is no record at all.
type marker struct {
	Package, Target, Base string
	// Commits are pinbot's commits on the branch, newest first: the one it
	// last put there and, while it moves the branch, the one it replaces
	// (recorded before the branch moves, so that a run killed in between
	// leaves a branch the next run knows as pinbot's). At most two.
	Commits []string
	// FailureDraft records that pinbot made the pull request a draft because
	// a check failed: the record by which it marks the pull request ready
	// for review again, and never one a person or pull-requests.draft made a
	// draft.
	FailureDraft bool
}

// markerLine matches a marker line, built from the strings withMarker
// writes. A git object id is 40 hex digits (SHA-1) or 64 (SHA-256), lower
// case as the API writes them. Compiled when first used: its counted
// repetitions cost every command's start otherwise.
var markerLine = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^` + regexp.QuoteMeta(markerPrefix) + `package=(\S+) target=(\S+) base=(\S+) -->` +
		`(?: <!-- pinbot:commits ([0-9a-f]{40}|[0-9a-f]{64})(?: ([0-9a-f]{40}|[0-9a-f]{64}))? -->)?` +
		`( ` + regexp.QuoteMeta(markerFailureDraft) + `)?$`)
})

// parseMarker reads the marker on the first line of body.
func parseMarker(body string) (marker, bool) {
	first, _, _ := strings.Cut(body, "\n")
	m := markerLine().FindStringSubmatch(first)
	if m == nil {
		return marker{}, false
	}
	mk := marker{Package: m[1], Target: m[2], Base: m[3], FailureDraft: m[6] != ""}
	for _, sha := range m[4:6] {
		if sha != "" && !slices.Contains(mk.Commits, sha) {
			mk.Commits = append(mk.Commits, sha)
		}
	}
	return mk, true
}

// String is the marker line, without its newline.
func (m marker) String() string {
	s := fmt.Sprintf("%spackage=%s target=%s base=%s -->", markerPrefix, m.Package, m.Target, m.Base)
	if len(m.Commits) > 0 {
		s += " <!-- pinbot:commits " + strings.Join(m.Commits, " ") + " -->"
	}
	if m.FailureDraft {
		s += " " + markerFailureDraft
	}
	return s
}

// recorded returns the commits the body of an open pull request records as
// pinbot's on ch's branch; none when the body has no record, or a record for
// another package or base.
func recorded(body string, ch Change) []string {
	m, ok := parseMarker(body)
	if !ok || m.Package != ch.Package || m.Base != ch.Base {
		return nil
	}
	return m.Commits
}
