// Package fleet guards every repository of an organisation from one GitHub
// Actions workflow: it picks the repositories to guard from an owner's
// listing and spreads them over the jobs of a matrix (this file), reads the
// JSON reports the matrix's jobs write (reports.go), and renders the fleet's
// one view of them: a dashboard per package, a Mermaid chart of how far each
// repository's caps lag, and the summary Slack hears (dashboard.go).
//
// The per-repository work stays pinbot check and pinbot run; the fleet only
// lists, batches and aggregates. GitHub access goes through bot/publishing/github (the
// listing, the dashboard issue) and the message through bot/publishing/slack.
package fleet

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/pinbot-dev/pinbot/bot/publishing/github"
	"github.com/pinbot-dev/pinbot/bot/report"
)

// MaxJobs is the most jobs a GitHub Actions matrix may generate.
const MaxJobs = 256

// A Filter says which of an owner's repositories the fleet guards.
type Filter struct {
	// Topics keeps only repositories carrying one of them (all when empty);
	// GitHub's topics are lower case, and so is the comparison.
	Topics []string
	// Include keeps only repositories whose name matches one of these globs
	// (path.Match syntax; a glob with a "/" matches "owner/name"), and
	// Exclude drops those matching one; both may be empty.
	Include, Exclude []string
	// Forks keeps forks, which are skipped by default. Archived repositories
	// are always skipped: nothing can be pushed to them.
	Forks bool
}

// Validate checks the globs.
func (f Filter) Validate() error {
	for _, g := range append(slices.Clone(f.Include), f.Exclude...) {
		if _, err := path.Match(g, ""); err != nil {
			return fmt.Errorf("glob %q: %w", g, err)
		}
	}
	return nil
}

// Select returns the full names ("owner/name") of owner's repositories that
// f keeps, sorted, and a warning for each name of the listing that is not
// one: a name GitHub does not allow for a repository (report.ValidRepository:
// a name with a space, a "$(", a "/.." or a leading "-" never reaches the
// matrix, and so no job's shell or paths), or another owner's.
func Select(owner string, repos []github.Repository, f Filter) (names, skipped []string) {
	for _, r := range repos {
		if !report.ValidRepository(r.FullName) {
			skipped = append(skipped, fmt.Sprintf("%s: not a repository name GitHub allows; skipped", quote(r.FullName)))
			continue
		}
		if o, _, _ := strings.Cut(r.FullName, "/"); !strings.EqualFold(o, owner) {
			skipped = append(skipped, fmt.Sprintf("%s: not a repository of %s; skipped", quote(r.FullName), owner))
			continue
		}
		if r.Archived || (r.Fork && !f.Forks) || !f.hasTopic(r.Topics) {
			continue
		}
		if len(f.Include) > 0 && !matchAny(f.Include, r.FullName) {
			continue
		}
		if matchAny(f.Exclude, r.FullName) {
			continue
		}
		names = append(names, r.FullName)
	}
	slices.Sort(names)
	return slices.Compact(names), skipped
}

func (f Filter) hasTopic(topics []string) bool {
	if len(f.Topics) == 0 {
		return true
	}
	for _, t := range topics {
		if slices.ContainsFunc(f.Topics, func(w string) bool { return strings.EqualFold(w, t) }) {
			return true
		}
	}
	return false
}

// matchAny reports whether a glob matches the repository's name, or its
// full name for a glob with a "/".
func matchAny(globs []string, full string) bool {
	_, name, _ := strings.Cut(full, "/")
	for _, g := range globs {
		subject := name
		if strings.Contains(g, "/") {
			subject = full
		}
		if ok, _ := path.Match(g, subject); ok {
			return true
		}
	}
	return false
}

// Batch spreads names over at most maxJobs batches, in order, evenly: batch
// sizes differ by at most one. It returns no batch for no names.
func Batch(names []string, maxJobs int) [][]string {
	if len(names) == 0 {
		return nil
	}
	jobs := min(len(names), max(maxJobs, 1))
	size, extra := len(names)/jobs, len(names)%jobs
	out := make([][]string, 0, jobs)
	for i, start := 0, 0; i < jobs; i++ {
		n := size
		if i < extra {
			n++
		}
		out = append(out, names[start:start+n])
		start += n
	}
	return out
}

// A Job is one entry of the matrix: its batch number (from 1), its
// repositories as "owner/a owner/b", and their names without the owner,
// comma-separated, as actions/create-github-app-token's repositories input
// takes them.
type Job struct {
	Batch        int    `json:"batch"`
	Repositories string `json:"repositories"`
	Names        string `json:"names"`
}

// A Matrix is a GitHub Actions strategy.matrix: {"include": [...]}.
type Matrix struct {
	Include []Job `json:"include"`
}

// NewMatrix makes the matrix of batches.
func NewMatrix(batches [][]string) Matrix {
	m := Matrix{Include: []Job{}}
	for i, b := range batches {
		var short []string
		for _, full := range b {
			_, name, _ := strings.Cut(full, "/")
			short = append(short, name)
		}
		m.Include = append(m.Include, Job{Batch: i + 1, Repositories: strings.Join(b, " "), Names: strings.Join(short, ",")})
	}
	return m
}

// JSON returns the matrix as one line of JSON, as $GITHUB_OUTPUT takes it.
func (m Matrix) JSON() string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(m)
	return strings.TrimSpace(b.String())
}
