package github

import (
	"bytes"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"

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
}

// Title returns the pull request's title.
func (d Describe) Title() string {
	t := fmt.Sprintf("Bump %s cap to %s", escape.Text(d.Package.Name), escape.Text(d.Package.Newest))
	if d.Blocked {
		t += " (a check failed)"
	}
	return t
}

// Message returns the commit message: package, old and new caps.
func (d Describe) Message() string {
	var b strings.Builder
	t := escape.Text
	fmt.Fprintf(&b, "Bump %s cap to %s\n\n", t(d.Package.Name), t(d.Package.Newest))
	for _, p := range d.Package.Pins {
		if p.Before != p.After {
			fmt.Fprintf(&b, "%s:%d: %s -> %s\n", t(p.File), p.Line, t(p.Before), t(p.After))
		}
	}
	if d.Package.Reason != "" {
		fmt.Fprintf(&b, "\n%s.\n", t(strings.TrimSuffix(d.Package.Reason, ".")))
	}
	return b.String()
}

// Body returns the pull request's Markdown body: what changes and why, each
// source's newest release with a link, the checks against the baseline, how to
// reproduce, and the GITHUB_TOKEN caveat when it applies. Sync cuts it to fit.
func (d Describe) Body() string {
	p := d.Package
	name := mdText(p.Name)
	var b strings.Builder
	if d.Blocked {
		b.WriteString(markerCheckFailed + "\n")
		fmt.Fprintf(&b, "> [!WARNING]\n> A check failed against a newer release of %s, so this pull request admits only **%s**, the newest release that passed, and is a draft while the check fails. The evidence is below.\n\n", name, mdText(p.Newest))
	}
	fmt.Fprintf(&b, "pinbot moves the caps on **%s** to admit **%s**", name, mdText(p.Newest))
	if p.Reason != "" {
		fmt.Fprintf(&b, " (%s)", mdText(p.Reason))
	}
	b.WriteString(".\n\n")

	// The check report's Markdown for this package is the base: files,
	// before → after, and the checks.
	var md bytes.Buffer
	_ = report.Markdown(&md, &report.Report{Packages: []report.Package{p}})
	b.WriteString(strings.Replace(md.String(), "## pinbot\n\n", "", 1))
	b.WriteString("\n")

	if len(p.Sources) > 0 {
		b.WriteString("#### Releases\n\n")
		for _, s := range slices.Sorted(maps.Keys(p.Sources)) {
			v := p.Sources[s]
			if u := ReleaseURL(s, d.SourceURLs[s], p.Name, v); u != "" {
				fmt.Fprintf(&b, "- %s: [%s %s](%s)\n", mdText(s), name, mdText(v), u)
			} else {
				fmt.Fprintf(&b, "- %s: %s %s\n", mdText(s), name, mdText(v))
			}
		}
		b.WriteString("\n")
	}
	if len(p.Checks) == 0 {
		fmt.Fprintf(&b, "No probe or symbol scan is configured for %s: review the upstream changelog before merging.\n\n", name)
	}

	b.WriteString("#### Reproduce locally\n\n```sh\n")
	// Inside the fence, text is literal; escape.Text keeps it on its line,
	// so it cannot close the fence.
	fmt.Fprintf(&b, "pinbot check --package %s            # the plan and the checks\n", escape.Text(p.Name))
	fmt.Fprintf(&b, "pinbot check --package %s --write    # apply it to the files\n", escape.Text(p.Name))
	b.WriteString("```\n\n")

	if d.WorkflowToken {
		b.WriteString("> [!NOTE]\n> This pull request was made with the workflow's `GITHUB_TOKEN`, so GitHub starts no workflows for it: CI will not run. " +
			"Close and reopen it, or push an empty commit, to start CI. To fix this for good, run pinbot with a GitHub App " +
			"installation token (`actions/create-github-app-token`) or a fine-grained personal access token with " +
			"`contents: write` and `pull-requests: write`.\n\n")
	}
	fmt.Fprintf(&b, "<sub>pinbot keeps this pull request up to date on %s: a newer release moves the branch and rewrites this text. "+
		"Once someone else pushes to the branch, pinbot leaves it alone.</sub>\n", escape.Code(Branch(d.Base, p.Name)))
	return b.String()
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
