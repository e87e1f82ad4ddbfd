package pins

import (
	"bytes"
	"io/fs"
	"path"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// An ignorer tells which paths of a repository git ignores, from the
// .gitignore files met on the way down a walk and .git/info/exclude, as git
// reads them (https://git-scm.com/docs/gitignore): a pattern applies below
// the directory of its file, and a later, deeper pattern wins. Matching is
// go-git's (plumbing/format/gitignore).
type ignorer struct {
	fsys     fs.FS
	patterns []gitignore.Pattern
}

// newIgnorer returns the ignorer of the repository fsys, with the patterns
// of .git/info/exclude.
func newIgnorer(fsys fs.FS) *ignorer {
	g := &ignorer{fsys: fsys}
	g.read(".git/info/exclude", nil)
	return g
}

// readGitignore reads the .gitignore of the directory dir, whose entries
// the walk has listed, when it has one.
func (g *ignorer) readGitignore(dir string, entries []fs.DirEntry) {
	if !hasEntry(entries, ".gitignore") {
		return
	}
	var domain []string
	if dir != "." {
		domain = strings.Split(dir, "/")
	}
	g.read(path.Join(dir, ".gitignore"), domain)
}

// read adds the patterns of the file name, for the paths below domain. A
// file that is missing, not regular or larger than SniffLimit adds none.
func (g *ignorer) read(name string, domain []string) {
	info, err := fs.Stat(g.fsys, name)
	if err != nil || !info.Mode().IsRegular() || info.Size() > SniffLimit {
		return
	}
	data, err := fs.ReadFile(g.fsys, name)
	if err != nil {
		return
	}
	for _, line := range bytes.Split(data, []byte("\n")) {
		s := strings.TrimSuffix(string(line), "\r")
		if strings.TrimSpace(s) == "" || strings.HasPrefix(s, "#") {
			continue
		}
		g.patterns = append(g.patterns, gitignore.ParsePattern(s, domain))
	}
}

// ignored reports whether git ignores the slash-separated path p (a
// directory when dir is set).
func (g *ignorer) ignored(p string, dir bool) bool {
	if len(g.patterns) == 0 {
		return false
	}
	return gitignore.NewMatcher(g.patterns).Match(strings.Split(p, "/"), dir)
}
