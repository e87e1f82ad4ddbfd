package fakes

import (
	"crypto/sha1"
	"encoding/base64"
	"fmt"
	"path"
	"slices"
	"strings"
)

// The fake's git object store: blobs and commits keyed by git's own object
// ids (sha1 of "blob N\x00" + content, as `git hash-object`), trees keyed by
// a sha1 of their sorted entries. Trees nest like git's.

type treeEntry struct {
	Name, Mode, Type, SHA string
}

type gitCommit struct {
	SHA, Tree, Message string
	Parents            []string
	Author, Committer  ident
}

type ident struct{ Name, Email, Date string }

type gitStore struct {
	blobs   map[string][]byte
	trees   map[string][]treeEntry
	commits map[string]*gitCommit
	seq     int // makes commit ids unique, like git's timestamps
}

func newGitStore() *gitStore {
	return &gitStore{blobs: map[string][]byte{}, trees: map[string][]treeEntry{}, commits: map[string]*gitCommit{}}
}

func gitBlobSHA(data []byte) string {
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00", len(data))
	h.Write(data)
	return fmt.Sprintf("%x", h.Sum(nil))
}

func (g *gitStore) putBlob(data []byte) string {
	sha := gitBlobSHA(data)
	g.blobs[sha] = append([]byte(nil), data...)
	return sha
}

func (g *gitStore) putTree(entries []treeEntry) string {
	slices.SortFunc(entries, func(a, b treeEntry) int { return strings.Compare(a.Name, b.Name) })
	h := sha1.New()
	fmt.Fprintf(h, "tree")
	for _, e := range entries {
		fmt.Fprintf(h, "\x00%s %s %s %s", e.Mode, e.Type, e.Name, e.SHA)
	}
	sha := fmt.Sprintf("%x", h.Sum(nil))
	g.trees[sha] = entries
	return sha
}

func (g *gitStore) putCommit(c *gitCommit) string {
	g.seq++
	h := sha1.New()
	fmt.Fprintf(h, "commit %s %v %s %s %d", c.Tree, c.Parents, c.Author, c.Message, g.seq)
	c.SHA = fmt.Sprintf("%x", h.Sum(nil))
	g.commits[c.SHA] = c
	return c.SHA
}

// flatEntry is a blob (or submodule) entry of a tree flattened to its path.
type flatEntry struct{ Mode, Type, SHA string }

// flatten lists every non-tree entry under tree by full path.
func (g *gitStore) flatten(tree, prefix string, out map[string]flatEntry) {
	for _, e := range g.trees[tree] {
		p := path.Join(prefix, e.Name)
		if e.Type == "tree" {
			g.flatten(e.SHA, p, out)
			continue
		}
		out[p] = flatEntry{e.Mode, e.Type, e.SHA}
	}
}

// build writes the nested trees for a flat listing and returns the root's id.
func (g *gitStore) build(flat map[string]flatEntry) string {
	type dir struct {
		files map[string]flatEntry
		dirs  map[string]map[string]flatEntry
	}
	d := dir{files: map[string]flatEntry{}, dirs: map[string]map[string]flatEntry{}}
	for p, e := range flat {
		first, rest, nested := strings.Cut(p, "/")
		if !nested {
			d.files[first] = e
			continue
		}
		if d.dirs[first] == nil {
			d.dirs[first] = map[string]flatEntry{}
		}
		d.dirs[first][rest] = e
	}
	var entries []treeEntry
	for name, e := range d.files {
		entries = append(entries, treeEntry{Name: name, Mode: e.Mode, Type: e.Type, SHA: e.SHA})
	}
	for name, sub := range d.dirs {
		entries = append(entries, treeEntry{Name: name, Mode: "040000", Type: "tree", SHA: g.build(sub)})
	}
	return g.putTree(entries)
}

// files returns the content of every blob under tree by path.
func (g *gitStore) files(tree string) map[string]string {
	flat := map[string]flatEntry{}
	g.flatten(tree, "", flat)
	out := map[string]string{}
	for p, e := range flat {
		out[p] = string(g.blobs[e.SHA])
	}
	return out
}

// isAncestor reports whether a is b or one of its ancestors.
func (g *gitStore) isAncestor(a, b string) bool {
	seen := map[string]bool{}
	queue := []string{b}
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		if c == a {
			return true
		}
		if seen[c] || g.commits[c] == nil {
			continue
		}
		seen[c] = true
		queue = append(queue, g.commits[c].Parents...)
	}
	return false
}

func encodeBase64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }
