// Package state keeps the little pinbot run must remember between runs to
// send news once: which packages were held, per repository and base branch.
// It is one small JSON file (state.json in the cache directory), written
// atomically; a missing or unreadable file is an empty state, so a lost
// cache costs at most one repeated message.
package state

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"time"
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
	Scopes map[string]*scope `json:"scopes"`
}

// A scope is what one repository and base branch remembers.
type scope struct {
	Updated time.Time `json:"updated"`
	// Held maps each held package to the target it was held at.
	Held map[string]string `json:"held"`
}

// Open reads the state at path. A file that is missing, too large or does
// not parse is an empty state (the error says why, for a log line); the
// store still saves to path.
func Open(path string) (*Store, error) {
	s := &Store{path: path, doc: doc{Schema: 1, Scopes: map[string]*scope{}}}
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

// Held returns the packages held at the last run in the scope key
// ("owner/name@base"), with their targets.
func (s *Store) Held(key string) map[string]string {
	if sc := s.doc.Scopes[key]; sc != nil {
		return maps.Clone(sc.Held)
	}
	return map[string]string{}
}

// SetHeld records the packages held now in the scope key, replacing the
// last run's.
func (s *Store) SetHeld(key string, held map[string]string, now time.Time) {
	s.doc.Scopes[key] = &scope{Updated: now, Held: maps.Clone(held)}
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
