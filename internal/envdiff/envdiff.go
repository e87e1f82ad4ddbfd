// Package envdiff is how pinbot names a difference between two
// environments' distributions: one type, shared by the probes that find
// the differences (checks/probe) and the report that carries them
// (bot/report), so that both say it the same way.
package envdiff

// A Change is a distribution whose version differs between two
// environments; From or To is "" when it is in only one of them.
type Change struct {
	Name string `json:"name"`
	From string `json:"from"`
	To   string `json:"to"`
}

// String is "numpy 2.4.6 → 2.5.2", "numpy 2.5.2 (new)" or "numpy 2.4.6 (gone)".
func (c Change) String() string {
	switch {
	case c.From == "":
		return c.Name + " " + c.To + " (new)"
	case c.To == "":
		return c.Name + " " + c.From + " (gone)"
	}
	return c.Name + " " + c.From + " → " + c.To
}
