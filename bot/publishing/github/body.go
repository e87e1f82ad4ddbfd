package github

import (
	"bytes"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"

	"github.com/pinbot-dev/pinbot/bot/publishing/upstream"
	"github.com/pinbot-dev/pinbot/bot/report"
	"github.com/pinbot-dev/pinbot/internal/escape"
)

// A Describe is what a pull request's title, body and commit message are made
// from: the package's entry in the check report and the run's circumstances.
type Describe struct {
	Package report.Package
	Base    string
	// Blocked is set when a check failed: the pull request carries the newest
	// release that passed and is a draft while the check fails. The body says
	// so in a hidden line, by which Sync knows the Change is blocked.
	Blocked bool
	// WorkflowToken is set when the token is a workflow's GITHUB_TOKEN, whose
	// pull requests start no workflows.
	WorkflowToken bool
	// SourceURLs maps a source name to its base URL when it is not the public
	// default (a PyPI mirror), for release links.
	SourceURLs map[string]string
	// Group, when set, is the group the pull request moves together, and
	// Members its packages' entries (Package is then the first of them).
	Group   *report.Group
	Members []report.Package
	// Upstream maps a package to its upstream's links for the new release
	// (bot/publishing/upstream: changelog, release notes, source, compare view), when
	// its release says where they are.
	Upstream map[string]upstream.Links
}

// packages returns what the pull request moves: the group's members, or
// the one package.
func (d Describe) packages() []report.Package {
	if d.Group != nil {
		return d.Members
	}
	return []report.Package{d.Package}
}

// name is the package, or the group, the pull request is for.
func (d Describe) name() string {
	if d.Group != nil {
		return d.Group.Name
	}
	return d.Package.Name
}

// targets lists each package with its target: "numba 0.67.0, llvmlite
// 0.50.1".
func (d Describe) targets() string {
	var parts []string
	for _, p := range d.packages() {
		parts = append(parts, p.Name+" "+p.Newest)
	}
	return strings.Join(parts, ", ")
}

// headline is the title without the failure note. A cap that crosses a
// major version says so, with its old and new bounds; the title still names
// the target, by which a closed pull request is known (closedFor).
func (d Describe) headline() string {
	pkg, m := d.major()
	if d.Group != nil {
		h := fmt.Sprintf("Bump %s caps: %s", escape.Text(d.Group.Name), escape.Text(d.targets()))
		if m != nil {
			h += fmt.Sprintf(", across a major version (%s %s → %s)", escape.Text(pkg), escape.Text(m.From), escape.Text(m.To))
		}
		return h
	}
	h := fmt.Sprintf("Bump %s cap to %s", escape.Text(d.Package.Name), escape.Text(d.Package.Newest))
	if m != nil {
		h += fmt.Sprintf(" across a major version (%s → %s)", escape.Text(m.From), escape.Text(m.To))
	}
	return h
}

// major returns the first pin of the pull request whose cap crosses a major
// version, with its package; nil when none does.
func (d Describe) major() (string, *report.Major) {
	for _, pkg := range d.packages() {
		for _, p := range pkg.Pins {
			if p.Major != nil && p.Before != p.After {
				return pkg.Name, p.Major
			}
		}
	}
	return "", nil
}

// majorNote writes, at the top of the body, that caps cross a major
// version: each such pin with its bounds and the comment beside it, which
// is the repository's text, quoted inert.
func (d Describe) majorNote(b *strings.Builder) {
	var lines []string
	for _, pkg := range d.packages() {
		for _, p := range pkg.Pins {
			if p.Major == nil || p.Before == p.After {
				continue
			}
			line := fmt.Sprintf("> - %s: the cap on %s goes from %s to %s", escape.Code(fmt.Sprintf("%s:%d", p.File, p.Line)), mdText(pkg.Name), escape.Code(p.Major.From), escape.Code(p.Major.To))
			if p.Major.Comment != "" {
				line += "; the file says beside it: " + escape.Code(p.Major.Comment)
			}
			lines = append(lines, line+"\n")
		}
	}
	if len(lines) == 0 {
		return
	}
	b.WriteString("> [!IMPORTANT]\n> This pull request moves a cap across a major version. A cap on a major-version boundary is often there on purpose: " +
		"read what the new major version changes, and why the cap was set, before merging.\n>\n")
	b.WriteString(strings.Join(lines, "") + "\n")
}

// failedTitle ends the title of a pull request for a blocked package.
const failedTitle = " (a check failed)"

// Title returns the pull request's title.
func (d Describe) Title() string {
	t := d.headline()
	if d.Blocked {
		t += failedTitle
	}
	return t
}

// Message returns the commit message: package, old and new caps.
func (d Describe) Message() string {
	var b strings.Builder
	t := escape.Text
	b.WriteString(d.headline() + "\n\n")
	for _, pkg := range d.packages() {
		for _, p := range pkg.Pins {
			if p.Before != p.After {
				fmt.Fprintf(&b, "%s:%d: %s -> %s\n", t(p.File), p.Line, t(p.Before), t(p.After))
			}
		}
	}
	for _, pkg := range d.packages() {
		if pkg.Reason != "" {
			fmt.Fprintf(&b, "\n%s.\n", t(strings.TrimSuffix(pkg.Reason, ".")))
		}
	}
	return b.String()
}

// Body returns the pull request's Markdown body: first, when a cap crosses a
// major version, a note saying so; what changes and why, each source's newest
// release with a link, the checks against the baseline, how to
// reproduce, and the GITHUB_TOKEN caveat when it applies. Sync cuts it to fit.
func (d Describe) Body() string {
	p := d.Package
	ps := d.packages()
	name := mdText(d.name())
	admit := "**" + mdText(p.Newest) + "**"
	if d.Group != nil {
		var members, targets []string
		for _, m := range ps {
			members = append(members, mdText(m.Name))
			targets = append(targets, "**"+mdText(m.Name+" "+m.Newest)+"**")
		}
		name = fmt.Sprintf("%s (%s, together)", mdText(d.Group.Name), strings.Join(members, ", "))
		admit = strings.Join(targets, ", ")
	}
	var b strings.Builder
	if d.Blocked {
		b.WriteString(markerCheckFailed + "\n")
	}
	d.majorNote(&b)
	if d.Blocked {
		fmt.Fprintf(&b, "> [!WARNING]\n> A check failed against a newer release of %s, so this pull request admits only %s, the newest release that passed, and is a draft while the check fails. The evidence is below.\n\n", name, admit)
	}
	fmt.Fprintf(&b, "pinbot moves the caps on **%s** to admit %s", name, admit)
	if d.Group == nil && p.Reason != "" {
		fmt.Fprintf(&b, " (%s)", mdText(p.Reason))
	}
	if d.Group != nil && d.Group.Reason != "" {
		fmt.Fprintf(&b, " (%s)", mdText(d.Group.Reason))
	}
	b.WriteString(".\n\n")

	// The check report's Markdown for these packages is the base: files,
	// before → after, and the checks.
	var md bytes.Buffer
	rep := &report.Report{Packages: ps}
	if d.Group != nil {
		rep.Groups = []report.Group{*d.Group}
	}
	_ = report.Markdown(&md, rep)
	b.WriteString(strings.Replace(md.String(), "## pinbot\n\n", "", 1))
	b.WriteString("\n")

	var releases, unchecked []string
	for _, pkg := range ps {
		for _, s := range slices.Sorted(maps.Keys(pkg.Sources)) {
			v := pkg.Sources[s]
			if u := ReleaseURL(s, d.SourceURLs[s], pkg.Name, v); u != "" {
				releases = append(releases, fmt.Sprintf("- %s: [%s %s](%s)\n", mdText(s), mdText(pkg.Name), mdText(v), u))
			} else {
				releases = append(releases, fmt.Sprintf("- %s: %s %s\n", mdText(s), mdText(pkg.Name), mdText(v)))
			}
		}
		if len(pkg.Checks) == 0 {
			unchecked = append(unchecked, mdText(pkg.Name))
		}
	}
	if len(releases) > 0 {
		b.WriteString("#### Releases\n\n" + strings.Join(releases, "") + "\n")
	}
	d.upstreamLinks(&b, ps)
	if len(unchecked) > 0 {
		fmt.Fprintf(&b, "No probe or symbol scan is configured for %s: review the upstream changelog before merging.\n\n", strings.Join(unchecked, " and "))
	}

	b.WriteString("#### Reproduce locally\n\n```sh\n")
	// Inside the fence, text is literal; escape.Text keeps it on its line,
	// so it cannot close the fence.
	var flags []string
	for _, pkg := range ps {
		flags = append(flags, "--package "+escape.Text(pkg.Name))
	}
	fmt.Fprintf(&b, "pinbot check %s            # the plan and the checks\n", strings.Join(flags, " "))
	fmt.Fprintf(&b, "pinbot check %s --write    # apply it to the files\n", strings.Join(flags, " "))
	b.WriteString("```\n\n")

	if d.WorkflowToken {
		b.WriteString("> [!NOTE]\n> This pull request was made with the workflow's `GITHUB_TOKEN`, so GitHub starts no workflows for it: CI will not run. " +
			"Close and reopen it, or push an empty commit, to start CI. To fix this for good, run pinbot with a GitHub App " +
			"installation token (`actions/create-github-app-token`) or a fine-grained personal access token with " +
			"`contents: write`, `pull-requests: write` and, for the pin dashboard, `issues: write`.\n\n")
	}
	fmt.Fprintf(&b, "<sub>pinbot keeps this pull request up to date on %s: a newer release moves the branch and rewrites this text. "+
		"Once someone else pushes to the branch, pinbot leaves it alone until the label %s hands it back.</sub>\n",
		escape.Code(Branch(d.Base, d.name())), escape.Code(ResetLabel))
	return b.String()
}

// upstreamLinks writes what the upstreams of ps say of their releases: the
// release notes, the changelog, the source and the compare view between the
// old and the new tags. The links are upstream.SafeURL's: http(s) only,
// nothing in them can end the link.
func (d Describe) upstreamLinks(b *strings.Builder, ps []report.Package) {
	var lines []string
	for _, p := range ps {
		l := d.Upstream[p.Name]
		var links []string
		add := func(text, u string) {
			if u != "" {
				links = append(links, "["+text+"]("+u+")")
			}
		}
		add("release notes", l.ReleaseNotes)
		add("changelog", l.Changelog)
		add("source", l.Source)
		if l.Compare != "" {
			add("compare "+mdText(p.Admits)+"..."+mdText(p.Newest), l.Compare)
		}
		if len(links) > 0 {
			lines = append(lines, fmt.Sprintf("- %s %s: %s\n", escape.Code(p.Name), mdText(p.Newest), strings.Join(links, " · ")))
		}
	}
	if len(lines) > 0 {
		b.WriteString("#### What changed upstream\n\n" + strings.Join(lines, "") + "\n")
	}
}

// ReleaseURL returns the web page of a release on a source, or "" when the
// source has none pinbot knows. base overrides the source's public URL (a
// PyPI mirror serving Warehouse's pages).
func ReleaseURL(source, base, pkg, version string) string {
	esc := url.PathEscape
	switch {
	case source == "pypi":
		if base == "" {
			base = "https://pypi.org"
		}
		return strings.TrimSuffix(base, "/") + "/project/" + esc(pkg) + "/" + esc(version) + "/"
	case source == "goproxy":
		return "https://pkg.go.dev/" + pkg + "@" + esc(version)
	case source == "conda" || source == "conda-forge":
		return "https://anaconda.org/conda-forge/" + esc(pkg) + "/files?version=" + url.QueryEscape(version)
	case strings.HasPrefix(source, "conda:"):
		return "https://anaconda.org/" + esc(strings.TrimPrefix(source, "conda:")) + "/" + esc(pkg) + "/files?version=" + url.QueryEscape(version)
	}
	return ""
}

// mdText keeps text from turning into Markdown, HTML, links or mentions: it
// is escape.Markdown, the one escaping of running text on GitHub.
func mdText(s string) string { return escape.Markdown(s) }
