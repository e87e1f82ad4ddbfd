package mdlinks_test

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pinbot-dev/pinbot/internal/mdlinks"
)

// root is the repository's root, from this package's directory.
var root = filepath.Join("..", "..")

// TestRepository: every relative link and anchor of the repository's
// Markdown works: README.md, CHANGELOG.md, the manual in docs/ and each
// package's README.md.
func TestRepository(t *testing.T) {
	files, err := mdlinks.Files(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"README.md", "CHANGELOG.md", "docs/README.md", "docs/configuration.md", "pins/pyproject/README.md", "checks/probe/README.md"} {
		if !slices.Contains(files, want) {
			t.Errorf("%s is not among the files checked: %v", want, files)
		}
	}
	problems, err := mdlinks.Check(root, files)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Error(p)
	}
}

// TestFrontDoor: the README stays a front door (issue 28 set it at about
// 300 lines); the reference belongs in docs/, one page per subject.
func TestFrontDoor(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(data), "\n"); n > 320 {
		t.Errorf("README.md has %d lines; move reference material to docs/ (at most about 300)", n)
	}
}

// TestManualIndex: every page of the manual is linked from the README's
// table of contents and from the manual's index, docs/README.md.
func TestManualIndex(t *testing.T) {
	pages, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	if len(pages) < 10 {
		t.Fatalf("%d pages in docs/", len(pages))
	}
	for _, index := range []string{"README.md", "docs/README.md"} {
		linked := map[string]bool{}
		for _, l := range links(t, index) {
			dest, _, _ := strings.Cut(l.Dest, "#")
			if dest != "" && !strings.Contains(dest, ":") {
				linked[path.Join(path.Dir(index), dest)] = true
			}
		}
		for _, p := range pages {
			page := "docs/" + filepath.Base(p)
			if page != index && !linked[page] {
				t.Errorf("%s does not link %s", index, page)
			}
		}
	}
}

func links(t *testing.T, file string) []mdlinks.Link {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(file)))
	if err != nil {
		t.Fatal(err)
	}
	return mdlinks.Links(data)
}

// ownURL is a link to a file of this repository on GitHub, as code,
// workflows and the schema write them (Markdown links it relatively).
var ownURL = regexp.MustCompile(`https://github\.com/pinbot-dev/pinbot/blob/main/([^\s"'\x60)>\\]+)`)

// TestOwnURLs: every link to a file of this repository on GitHub in its
// code, workflows, scripts and schema (the init template's, a warning's)
// names a file that exists, and a heading of it when it names one.
func TestOwnURLs(t *testing.T) {
	n := 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		switch filepath.Ext(p) {
		case ".go", ".yml", ".yaml", ".json", ".sh":
		default:
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		for _, m := range ownURL.FindAllSubmatch(data, -1) {
			n++
			dest := strings.TrimRight(string(m[1]), ".,;:")
			if err := mdlinks.CheckLink(root, "README.md", dest); err != nil {
				t.Errorf("%s: %s: %v", rel, m[0], err)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 3 {
		t.Errorf("%d links to this repository's files found; the init template, the schema and a warning have some", n)
	}
}

// TestBroken: each kind of broken link is reported with its file and line,
// and nothing else is: links that work, links to other sites, and text in
// code are not.
func TestBroken(t *testing.T) {
	tree := filepath.Join("testdata", "tree")
	files, err := mdlinks.Files(tree)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"README.md", "docs/page.md"}, files); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	problems, err := mdlinks.Check(tree, files)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range problems {
		got = append(got, p.String())
	}
	want := []string{
		"README.md:18: docs/missing.md: no such file: docs/missing.md",
		"README.md:19: docs/page.md#no-such-section: no heading with the anchor #no-such-section in docs/page.md",
		"README.md:20: #usage-2: no heading with the anchor #usage-2 in README.md",
		"README.md:21: ../../outside.md: leads out of the repository",
		"README.md:22: docs/none.png: no such file: docs/none.png",
		"README.md:23: /docs/page.md: an absolute path: GitHub resolves it from the site, not the repository; write it relative to README.md",
		"README.md:31: docs/gone.md: no such file: docs/gone.md",
		"README.md:33: docs/gone-too.md: no such file: docs/gone-too.md",
		"docs/page.md:5: ../README.md#Usage: no heading with the anchor #Usage in README.md",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
}

func TestSlug(t *testing.T) {
	for heading, want := range map[string]string{
		"Quick start":         "quick-start",
		"Drift and `unify`":   "drift-and-unify",
		"`pinbot fleet plan`": "pinbot-fleet-plan",
		"Checks: internal-API probes and symbol scans":                 "checks-internal-api-probes-and-symbol-scans",
		"Files, links and sizes":                                       "files-links-and-sizes",
		"What the plan does (the seed rule, cap strategy `inclusive`)": "what-the-plan-does-the-seed-rule-cap-strategy-inclusive",
		"numba: bump":                           "numba-bump",
		"snake_case and 3.12":                   "snake_case-and-312",
		"Ünïcode Straße":                        "ünïcode-straße",
		"a  b":                                  "a--b",
		"The cost of a cap, groups and `solve`": "the-cost-of-a-cap-groups-and-solve",
	} {
		if got := mdlinks.Slug(heading); got != want {
			t.Errorf("Slug(%q) = %q, want %q", heading, got, want)
		}
	}
}

func TestAnchors(t *testing.T) {
	src := "# Title\n\n## See [the docs](x.md) and <b>this</b>\n\n## Title\n\n## Title\n\n" +
		"```\n# not a heading\n```\n\nSetext\n===\n\n## Title-1\n"
	var got []string
	for a := range mdlinks.Anchors([]byte(src)) {
		got = append(got, a)
	}
	slices.Sort(got)
	// The fourth "Title" heading is "Title-1", already taken by the second
	// "Title": github-slugger gives it title-1-1.
	want := []string{"see-the-docs-and-this", "setext", "title", "title-1", "title-1-1", "title-2"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("anchors (-want +got):\n%s", diff)
	}
}
