package config

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/pinbot-dev/pinbot/internal/diag"
)

// groupNameRE matches group names: they name a pull request's branch
// (pinbot/BASE/GROUP), so they are one branch path component. Compiled when
// first used: its counted repetition costs every command's start otherwise.
var groupNameRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$`) })

// checkGroups checks the groups key after the packages are known: every
// member a watched package, no package in two groups or twice in one, at
// least two members, and a name that is a branch component and is not a
// watched package's outside the group (the two pull requests would share a
// branch). Each error names the place it was written.
func (c *Config) checkGroups() error {
	var errs diag.List
	in := map[string]string{} // package -> the key path of its first membership
	normalized := map[string][]string{}
	for _, name := range slices.Sorted(maps.Keys(c.Groups)) {
		key := "groups." + name
		members := c.Groups[name]
		if !groupNameRE().MatchString(name) {
			errs = append(errs, c.Errorf(key, "%q is not a group name: letters, digits, '.', '_' and '-' (it names the pull request's branch)", name))
			continue
		}
		if len(members) < 2 {
			errs = append(errs, c.Errorf(key, "a group moves two or more packages together; it lists %d", len(members)))
			continue
		}
		var norm []string
		for i, m := range members {
			mkey := fmt.Sprintf("%s[%d]", key, i)
			k := Key(m)
			if _, ok := c.Packages[k]; !ok {
				errs = append(errs, c.Errorf(mkey, "%q is not a watched package (watched: %s)", m, strings.Join(c.Watched(), ", ")))
				continue
			}
			if first, ok := in[k]; ok {
				line, _ := c.Pos(first)
				where := first
				if line > 0 {
					where = fmt.Sprintf("%s (line %d)", first, line)
				}
				errs = append(errs, c.Errorf(mkey, "%s is already in %s: a package moves with one group", m, where))
				continue
			}
			in[k] = mkey
			norm = append(norm, k)
		}
		if _, ok := c.Packages[Key(name)]; ok && !slices.Contains(norm, Key(name)) {
			errs = append(errs, c.Errorf(key, "names the watched package %s, which is not in the group: their pull requests would share a branch", Key(name)))
		}
		normalized[name] = norm
	}
	if err := errs.Err(); err != nil {
		return err
	}
	c.Groups = normalized
	return nil
}

// GroupOf returns the group pkg (normalised) moves with and its members,
// in the order written; "" when it is in none.
func (c *Config) GroupOf(pkg string) (string, []string) {
	for _, name := range slices.Sorted(maps.Keys(c.Groups)) {
		if slices.Contains(c.Groups[name], pkg) {
			return name, c.Groups[name]
		}
	}
	return "", nil
}

// SolveFor reports whether a real resolver is asked before pkg's pull
// request is opened: packages.NAME.solve, else the global solve.
func (c *Config) SolveFor(pkg string) bool {
	if p := c.Packages[pkg]; p != nil && p.Solve != nil {
		return *p.Solve
	}
	return c.Solve
}
