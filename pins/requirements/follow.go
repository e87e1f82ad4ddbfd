package requirements

import (
	"errors"
	"io/fs"
	"slices"
	"strings"

	"github.com/pinbot-dev/pinbot/internal/diag"
)

// An Included is a file that a requirements file includes, with the chain of
// -r and -c lines that leads to it from a file the run reads anyway.
type Included struct {
	Path  string
	Chain []Include
}

// ChainString returns the chain as "requirements-dev.txt:1: -r base.txt →
// base.txt:2: -c constraints.txt".
func (in Included) ChainString() string {
	parts := make([]string, len(in.Chain))
	for i, c := range in.Chain {
		parts[i] = c.String()
	}
	return strings.Join(parts, " → ")
}

// Follow resolves the -r and -c includes of the requirements files roots,
// transitively, reading files with read (slash-separated paths relative to
// the repository root). It returns every file reached through an include and
// read, with the first chain that reached it, in the order found; the roots
// appear only when another file includes them, and a file that could not be
// read only as the error on its include line. Includes that cannot be followed are
// errors naming the include line: a missing file, and a cycle (a file that
// includes itself through others), which is reported once and not followed
// around. broken lists the files pip could not install from because of such
// an error (the file with the include line, every file of a cycle, and every
// file that includes one of them), sorted: callers leave them alone.
//
// URLs, ${VAR} references and paths outside the repository are not followed:
// pip would read them, so pins may hide there that pinbot cannot see.
// unfollowed names each such include line, for callers to warn about.
func Follow(roots []string, read func(path string) ([]byte, error)) (found []Included, broken []string, unfollowed diag.List, err error) {
	fl := &follower{read: read, state: map[string]int{}, chains: map[string][]Include{}, readOK: map[string]bool{}, broken: map[string]bool{}}
	for _, r := range roots {
		fl.visit(r, nil)
	}
	for p := range fl.broken {
		broken = append(broken, p)
	}
	slices.Sort(broken)
	return fl.found, broken, fl.unfollowed, fl.errs.Err()
}

// whyUnfollowed says why an include is not followed, or "" when it is.
func whyUnfollowed(inc Include) string {
	switch {
	case inc.Path == "" && strings.Contains(inc.Target, "${"):
		return "names an environment variable, which pinbot does not expand"
	case inc.Path == "":
		return "is a URL, which pinbot does not fetch"
	case inc.Path == ".." || strings.HasPrefix(inc.Path, "../"):
		return "leads outside the repository"
	}
	return ""
}

const (
	unvisited = iota
	onStack
	done
)

type follower struct {
	read   func(string) ([]byte, error)
	state  map[string]int
	chains map[string][]Include
	readOK map[string]bool // files read
	found  []Included
	errs   diag.List
	broken map[string]bool

	unfollowed diag.List
}

// visit follows the includes of p and reports whether p is broken: it, or a
// file it includes, has an include that cannot be followed. A file found on
// the stack (a cycle) reports broken too.
func (fl *follower) visit(p string, via []Include) bool {
	switch fl.state[p] {
	case onStack:
		return true
	case done:
		return fl.broken[p]
	}
	fl.state[p] = onStack
	defer func() { fl.state[p] = done }()
	data, err := fl.read(p)
	if err != nil {
		if len(via) == 0 {
			return false // a root the run reports on its own
		}
		inc := via[len(via)-1]
		msg := err.Error()
		if errors.Is(err, fs.ErrNotExist) {
			msg = "no such file " + inc.Path
		}
		fl.errs = append(fl.errs, diag.Errorf(inc.File, inc.Line, inc.Col, inc.Option, "%s %s: %s", inc.Option, inc.Target, msg))
		return true
	}
	fl.readOK[p] = true
	if len(via) > 0 {
		fl.found = append(fl.found, Included{Path: p, Chain: fl.chains[p]})
	}
	incs, _ := Includes(p, data) // syntax errors are reported when the file is read for pins
	for _, inc := range incs {
		if why := whyUnfollowed(inc); why != "" {
			fl.unfollowed = append(fl.unfollowed, diag.Errorf(inc.File, inc.Line, inc.Col, inc.Option,
				"%s %s not followed: it %s; pins in it are not checked", inc.Option, inc.Target, why))
			continue
		}
		chain := append(slices.Clone(via), inc)
		if fl.state[inc.Path] == onStack {
			fl.errs = append(fl.errs, diag.Errorf(inc.File, inc.Line, inc.Col, inc.Option, "include cycle: %s", cycle(chain, inc.Path)))
			fl.broken[p] = true
			continue
		}
		if _, seen := fl.chains[inc.Path]; !seen {
			fl.chains[inc.Path] = chain
			if fl.readOK[inc.Path] { // a root read before: found now, by this chain
				fl.found = append(fl.found, Included{Path: inc.Path, Chain: chain})
			}
		}
		if fl.visit(inc.Path, chain) {
			fl.broken[p] = true
		}
	}
	return fl.broken[p]
}

// cycle describes the part of chain that returns to p.
func cycle(chain []Include, p string) string {
	start := 0
	for i, c := range chain {
		if c.File == p {
			start = i
			break
		}
	}
	parts := make([]string, 0, len(chain)-start)
	for _, c := range chain[start:] {
		parts = append(parts, c.String())
	}
	return strings.Join(parts, " → ")
}
