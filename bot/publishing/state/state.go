// Package state keeps the little pinbot run must remember between runs to
// send news once and to say what changed: which packages are held, which
// pre-releases' failures were announced, which lasting conditions (a
// blocked release) were alerted and when, what each package looked like,
// and since when each package's nightly builds pass or fail, per
// repository and base branch. It is one small JSON file
// (state.json in the cache directory), written atomically; a missing or
// unreadable file is an empty state, so a lost cache costs at most one
// repeated message. A Scope also travels as one line of text (Encode), which
// the dashboard issue carries, for runs that keep no cache.
//
// It belongs to bot/publishing and imports no other part of bot.
package state

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/pinbot-dev/pinbot/bot/report"
)

// maxAge is how long a scope no run touches is kept: four weekly runs, like
// the cache around it.
const maxAge = 28 * 24 * time.Hour

// maxSize bounds the file read: far above what any set of repositories
// needs, far below what would hurt.
const maxSize = 8 << 20

// A Store is the state read from one file.
type Store struct {
	path string
	doc  doc
}

type doc struct {
	Schema int               `json:"schema"`
	Scopes map[string]*Scope `json:"scopes"`
}

// A Scope is what one repository and base branch remembers from the last
// run.
type Scope struct {
	// Updated is when a run last recorded the scope (zero: never).
	Updated time.Time `json:"updated"`
	// Held maps each held package to the target it was held at: a record
	// of what is held, not of what was alerted (a hold is alerted as a
	// lasting condition, "held:protobuf" in Alerted). Versions before
	// that alerted from Held alone; a hold found here with no such alert
	// is taken as alerted once already.
	Held map[string]string `json:"held"`
	// Warned maps each package to the pre-release whose failing checks
	// were announced (bot/planning/earlywarn).
	Warned map[string]string `json:"warned,omitempty"`
	// Seen is what the last run of every package saw of each, for the
	// dashboard's "what changed since the last run", and SeenAt when (zero:
	// no such run). A run of some packages only (--package) leaves both.
	Seen   map[string]Seen `json:"seen,omitempty"`
	SeenAt time.Time       `json:"seen_at,omitempty"`
	// Alerted maps each lasting condition that was alerted (a blocked
	// release, a branch that needs a human, a held package: a key such as
	// "failure:numba" or "held:protobuf") to what was said and when, so that it is alerted
	// once, again when it changes, and at most as often as notify.remind
	// asks while it lasts.
	Alerted map[string]Alert `json:"alerted,omitempty"`
	// Nightlies is what the runs saw of each package's nightly builds
	// (bot/planning/earlywarn.Memory): the last build judged, the last
	// verdict that decided, and the window it gives (first failing, last
	// passing), so that a report says since when.
	Nightlies map[string]Nightly `json:"nightlies,omitempty"`
}

// A Nightly is what the runs saw of one package's nightly builds.
type Nightly struct {
	// Version, Uploaded and Source are the last build judged, Judged the
	// verdict on it (ok, blocked or warning; "" in a record written before
	// it was kept: Verdict's).
	Version  string    `json:"version"`
	Uploaded time.Time `json:"uploaded,omitzero"`
	Source   string    `json:"source"`
	Judged   string    `json:"judged,omitempty"`
	// Verdict is the last verdict that decided (ok or blocked), Failing
	// the checks that failed then.
	Verdict string   `json:"verdict,omitempty"`
	Failing []string `json:"failing,omitempty"`
	// FirstFailing is the first build seen failing since the last one
	// seen passing, LastPassing that one (nil: none).
	FirstFailing *Build `json:"first_failing,omitempty"`
	LastPassing  *Build `json:"last_passing,omitempty"`
}

// A Build is one nightly build: its version and upload time (zero when its
// source does not say), stored as the report names it.
type Build = report.NightlyBuild

// An Alert is what was said of a lasting condition, and when.
type Alert struct {
	// Release is the release it was about; Verdict what was said of it
	// (the failed checks, what holds a package): a different one is news.
	Release string    `json:"release"`
	Verdict string    `json:"verdict,omitempty"`
	At      time.Time `json:"at"`
}

// A Seen is what a run saw of one package.
type Seen struct {
	Status string `json:"status"`
	Target string `json:"target,omitempty"`
	// Pull is the number of the package's pull request (0: none).
	Pull int `json:"pull,omitempty"`
	// Prerelease and PrereleaseVerdict are the early warning's pre-release
	// and verdict ("" when none was checked).
	Prerelease        string `json:"prerelease,omitempty"`
	PrereleaseVerdict string `json:"prerelease_verdict,omitempty"`
	// NightlyVerdict is the verdict on the nightly build checked ("" when
	// none was): a new build with the same verdict is no change. A run
	// whose nightly is undecided (its source did not answer, or its checks
	// gave a warning) keeps the last run's, when it has one, so that the
	// next verdict decided is compared with the last one decided.
	NightlyVerdict string `json:"nightly_verdict,omitempty"`
}

// Clone returns a copy of sc that shares no map with it, every map made
// (Scope{}.Clone() is an empty scope ready for use).
func (sc Scope) Clone() Scope {
	c := Scope{Updated: sc.Updated, SeenAt: sc.SeenAt, Held: maps.Clone(sc.Held), Warned: maps.Clone(sc.Warned), Seen: maps.Clone(sc.Seen),
		Alerted: maps.Clone(sc.Alerted), Nightlies: maps.Clone(sc.Nightlies)}
	if c.Nightlies == nil {
		c.Nightlies = map[string]Nightly{}
	}
	if c.Alerted == nil {
		c.Alerted = map[string]Alert{}
	}
	if c.Held == nil {
		c.Held = map[string]string{}
	}
	if c.Warned == nil {
		c.Warned = map[string]string{}
	}
	if c.Seen == nil {
		c.Seen = map[string]Seen{}
	}
	return c
}

// Undated returns sc without the times that advance on every run whatever
// it saw (Updated, SeenAt): what a run compares with the record it finds, so
// that a run that saw what the last one saw writes nothing. An alert's At
// stays: it moves only when the alert is sent again (a notify.remind
// reminder is due from it), and that must be recorded.
func (sc Scope) Undated() Scope {
	c := sc.Clone()
	c.Updated, c.SeenAt = time.Time{}, time.Time{}
	return c
}

// Open reads the state at path. A file that is missing, too large or does
// not parse is an empty state (the error says why, for a log line); the
// store still saves to path.
func Open(path string) (*Store, error) {
	s := &Store{path: path, doc: doc{Schema: 1, Scopes: map[string]*Scope{}}}
	st, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return s, err
	}
	if !st.Mode().IsRegular() || st.Size() > maxSize {
		return s, fmt.Errorf("%s: not a regular file under %d bytes; starting afresh", path, maxSize)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return s, err
	}
	var d doc
	if err := json.Unmarshal(b, &d); err != nil || d.Schema != 1 {
		return s, fmt.Errorf("%s: not a pinbot state file; starting afresh", path)
	}
	for k, v := range d.Scopes {
		if v != nil {
			s.doc.Scopes[k] = v
		}
	}
	return s, nil
}

// Scope returns what the scope key ("owner/name@base") remembers: a copy,
// with every map made; the zero Scope (Updated zero) when nothing is.
func (s *Store) Scope(key string) Scope {
	if sc := s.doc.Scopes[key]; sc != nil {
		return sc.Clone()
	}
	return Scope{}.Clone()
}

// Latest returns what the newest scope of repo ("owner/name", in any case)
// remembers, whichever its base branch, and false when none does: for
// pinbot check, which knows no base branch and only reads.
func (s *Store) Latest(repo string) (Scope, bool) {
	var best *Scope
	for key, sc := range s.doc.Scopes {
		r, _, ok := strings.Cut(key, "@")
		if ok && strings.EqualFold(r, repo) && (best == nil || sc.Updated.After(best.Updated)) {
			best = sc
		}
	}
	if best == nil {
		return Scope{}.Clone(), false
	}
	return best.Clone(), true
}

// SetScope records sc as what the scope key remembers.
func (s *Store) SetScope(key string, sc Scope) {
	c := sc.Clone()
	s.doc.Scopes[key] = &c
}

// Held returns the packages held at the last run in the scope key
// ("owner/name@base"), with their targets.
func (s *Store) Held(key string) map[string]string { return s.Scope(key).Held }

// SetHeld records the packages held now in the scope key, replacing the
// last run's; the rest of the scope stays.
func (s *Store) SetHeld(key string, held map[string]string, now time.Time) {
	sc := s.Scope(key)
	sc.Held, sc.Updated = held, now
	s.SetScope(key, sc)
}

// maxEncoded bounds the text Decode reads: an issue's body is at most
// 65,536 characters.
const maxEncoded = 1 << 16

// Encode returns sc as one line of text that is safe inside an HTML
// comment (base64 of its JSON), for the dashboard issue to carry.
func Encode(sc Scope) string {
	b, _ := json.Marshal(sc) // maps of strings and a time: cannot fail
	return base64.RawStdEncoding.EncodeToString(b)
}

// Decode reads a Scope Encode wrote. Anything else (too long, not base64,
// not a scope) is an error, and the zero Scope.
func Decode(text string) (Scope, error) {
	if len(text) > maxEncoded {
		return Scope{}.Clone(), fmt.Errorf("a recorded state of %d bytes, more than %d", len(text), maxEncoded)
	}
	b, err := base64.RawStdEncoding.DecodeString(text)
	if err != nil {
		return Scope{}.Clone(), errors.New("a recorded state that is not base64")
	}
	var sc Scope
	if err := json.Unmarshal(b, &sc); err != nil {
		return Scope{}.Clone(), errors.New("a recorded state that is not pinbot's")
	}
	return sc.Clone(), nil
}

// Save writes the state atomically, dropping scopes no run has touched for
// four weeks.
func (s *Store) Save(now time.Time) error {
	for k, v := range s.doc.Scopes {
		if now.Sub(v.Updated) > maxAge {
			delete(s.doc.Scopes, k)
		}
	}
	b, err := json.MarshalIndent(s.doc, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(s.path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(s.path), ".state-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), s.path)
}
