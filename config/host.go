package config

import (
	"cmp"
	"fmt"
	"maps"
	"slices"

	"github.com/pinbot-dev/pinbot/checks/symbols"
	"github.com/pinbot-dev/pinbot/internal/diag"
)

// CheckHosts checks every packages.NAME.symbols.host entry against the
// repository at root (symbols.ResolveHost): an entry that matches no file, a
// relative one that leads out of the repository, or a match that is not an
// ELF shared object is an error naming the entry's line, so that a scan
// never runs against an empty or unreadable host.
func (c *Config) CheckHosts(root string) error {
	var errs diag.List
	for _, name := range slices.Sorted(maps.Keys(c.Packages)) {
		p := c.Packages[name]
		if p == nil || p.Symbols == nil {
			continue
		}
		for i, entry := range p.Symbols.Host {
			key := fmt.Sprintf("%s.symbols.host[%d]", cmp.Or(p.KeyPath(), "packages."+name), i)
			matches, err := symbols.ResolveHost(root, entry)
			if err != nil {
				errs = append(errs, c.Errorf(key, "%v", err))
				continue
			}
			for _, m := range matches {
				if err := symbols.CheckELF(m); err != nil {
					errs = append(errs, c.Errorf(key, "%q: %v", entry, err))
				}
			}
		}
	}
	return errs.Err()
}
