// Package mdlinks checks the relative links of Markdown files as GitHub
// renders them (CommonMark with the GFM extensions, parsed by goldmark): the
// file a link names must exist inside the tree, and an anchor (#section)
// must name a heading of its Markdown target, by GitHub's rules for heading
// anchors (lowercased, punctuation dropped, spaces to hyphens, a repeated
// heading's anchor suffixed -1, -2, ...).
//
// Links with a scheme (https:, mailto:) or a host (//example.com) are not
// followed: they are another site's to keep.
package mdlinks

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/text"
)

var md = goldmark.New(goldmark.WithExtensions(extension.GFM))

// A Link is a link or image destination as written, with its line.
type Link struct {
	Dest string
	Line int
}

// A Problem is a broken link: the file and line it is on, the destination
// as written, and what is wrong with it.
type Problem struct {
	File   string // slash-separated, relative to the root
	Line   int
	Link   string
	Reason string
}

// String prints the problem as file:line: link: reason.
func (p Problem) String() string {
	return fmt.Sprintf("%s:%d: %s: %s", p.File, p.Line, p.Link, p.Reason)
}

// Files lists the Markdown files (*.md) under root, slash-separated and
// relative to it, sorted: every one outside .git and testdata directories
// (test fixtures, such as golden reports, are output, not documentation).
func Files(root string) ([]string, error) {
	var files []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != root && (d.Name() == ".git" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.Type().IsRegular() && strings.HasSuffix(d.Name(), ".md") {
			rel, err := filepath.Rel(root, p)
			if err != nil {
				return err
			}
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	slices.Sort(files)
	return files, err
}

// Check reads each file (slash-separated, relative to root) and reports
// every relative link that CheckLink refuses. The error is for a file of
// files that cannot be read.
func Check(root string, files []string) ([]Problem, error) {
	c := &checker{root: root, anchors: map[string]map[string]bool{}}
	var problems []Problem
	for _, f := range files {
		src, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(f)))
		if err != nil {
			return nil, err
		}
		for _, l := range Links(src) {
			if err := c.link(f, l.Dest); err != nil {
				problems = append(problems, Problem{File: f, Line: l.Line, Link: l.Dest, Reason: err.Error()})
			}
		}
	}
	return problems, nil
}

// CheckLink reports what is wrong with the link dest written in file (both
// slash-separated, file relative to root): a relative link that leads out of
// root or names a file that does not exist, or an anchor that names no
// heading of its Markdown target. An anchor on a link to any other kind of
// file (a line of a Go file) is not checked; nor is a link with a scheme or
// a host.
func CheckLink(root, file, dest string) error {
	c := &checker{root: root, anchors: map[string]map[string]bool{}}
	return c.link(file, dest)
}

// A checker checks links under root, reading each Markdown target's
// anchors once.
type checker struct {
	root    string
	anchors map[string]map[string]bool // by slash path
}

func (c *checker) link(f, dest string) error {
	u, err := url.Parse(dest)
	if err != nil {
		return fmt.Errorf("not a valid URL: %w", err)
	}
	if u.Scheme != "" || u.Host != "" || strings.HasPrefix(dest, "//") {
		return nil
	}
	target := f
	if u.Path != "" {
		if strings.HasPrefix(u.Path, "/") {
			return fmt.Errorf("an absolute path: GitHub resolves it from the site, not the repository; write it relative to %s", f)
		}
		target = path.Join(path.Dir(f), u.Path)
		if target == ".." || strings.HasPrefix(target, "../") {
			return errors.New("leads out of the repository")
		}
		info, err := os.Stat(filepath.Join(c.root, filepath.FromSlash(target)))
		if err != nil {
			return fmt.Errorf("no such file: %s", target)
		}
		if info.IsDir() || !strings.HasSuffix(target, ".md") {
			return nil
		}
	}
	if u.Fragment == "" {
		return nil
	}
	a, ok := c.anchors[target]
	if !ok {
		src, err := os.ReadFile(filepath.Join(c.root, filepath.FromSlash(target)))
		if err != nil {
			return fmt.Errorf("cannot read %s: %w", target, err)
		}
		a = Anchors(src)
		c.anchors[target] = a
	}
	if !a[u.Fragment] {
		return fmt.Errorf("no heading with the anchor #%s in %s", u.Fragment, target)
	}
	return nil
}

// Links returns every link and image destination of a Markdown document,
// in order, with its line. Destinations in code (spans, blocks) are text,
// not links; bare and angle-bracket URLs are absolute and left out.
func Links(src []byte) []Link {
	var links []Link
	doc := md.Parser().Parse(text.NewReader(src))
	ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		var dest []byte
		switch n := n.(type) {
		case *ast.Link:
			dest = n.Destination
		case *ast.Image:
			dest = n.Destination
		default:
			return ast.WalkContinue, nil
		}
		links = append(links, Link{Dest: string(dest), Line: lineOf(src, offset(n))})
		return ast.WalkContinue, nil
	})
	return links
}

// offset is where in the source n starts: its own position when the parser
// recorded one, else its first text's, else its block's first line's.
func offset(n ast.Node) int {
	if p := n.Pos(); p >= 0 {
		return p
	}
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		if t, ok := c.(*ast.Text); ok {
			return t.Segment.Start
		}
	}
	for p := n.Parent(); p != nil; p = p.Parent() {
		if p.Type() == ast.TypeBlock && p.Lines().Len() > 0 {
			return p.Lines().At(0).Start
		}
	}
	return 0
}

func lineOf(src []byte, off int) int {
	return bytes.Count(src[:min(max(off, 0), len(src))], []byte("\n")) + 1
}

// Anchors returns the anchors GitHub gives the headings of a Markdown
// document: each heading's Slug, and for a slug already taken the first of
// slug-1, slug-2, ... not taken, as github-slugger numbers them.
func Anchors(src []byte) map[string]bool {
	taken := map[string]bool{}
	count := map[string]int{}
	doc := md.Parser().Parse(text.NewReader(src))
	ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		h, ok := n.(*ast.Heading)
		if !entering || !ok {
			return ast.WalkContinue, nil
		}
		var b strings.Builder
		plain(&b, h, src)
		s := Slug(b.String())
		base := s
		for taken[s] {
			count[base]++
			s = base + "-" + strconv.Itoa(count[base])
		}
		taken[s] = true
		return ast.WalkSkipChildren, nil
	})
	return taken
}

// plain writes the text a heading shows: its text and code, the text of its
// links and emphasis; raw HTML is left out, as GitHub leaves it out of the
// anchor.
func plain(b *strings.Builder, n ast.Node, src []byte) {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		switch c := c.(type) {
		case *ast.Text:
			b.Write(c.Value(src))
			if c.SoftLineBreak() {
				b.WriteByte(' ')
			}
		case *ast.String:
			b.Write(c.Value)
		case *ast.RawHTML:
		default:
			plain(b, c, src)
		}
	}
}

// Slug is the anchor GitHub gives a heading of this text: lowercased, every
// character but letters, marks, digits, '_', '-' and spaces dropped, each
// space a '-' ("Drift and `unify`" is drift-and-unify, "Checks: internal-API
// probes" checks-internal-api-probes).
func Slug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-', unicode.IsLetter(r), unicode.IsMark(r), unicode.IsDigit(r), unicode.Is(unicode.Pc, r), unicode.IsNumber(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}
