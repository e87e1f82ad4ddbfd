// Package findlinks reads releases from a find-links page: an HTML page of
// links to wheels, as pip's --find-links reads one
// (https://pip.pypa.io/en/stable/cli/pip_install/#cmdoption-f), such as the
// pages projects publish their nightly builds on. Unlike a PEP 503 project
// page it lists the files of any number of projects, names each file by its
// link's last path segment (the link's text is often a directory-prefixed
// path, or nothing), and carries no upload times: the page's order is the
// order of its builds, later links newer.
//
// A release is every wheel of one version of the project asked for; sdists
// and other files are skipped (what the checks read are wheels). Each file
// carries its sha256 digest when the link's fragment gives one
// (#sha256=HEX), its requires-python (data-requires-python) and whether it is
// yanked (data-yanked), as on a PEP 503 page.
package findlinks

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path"
	"slices"
	"strings"

	xhtml "golang.org/x/net/html"

	"github.com/pinbot-dev/pinbot/internal/pep503"
	"github.com/pinbot-dev/pinbot/sources"
	"github.com/pinbot-dev/pinbot/sources/wheel"
	"github.com/pinbot-dev/pinbot/web"
)

// Name is the source's identifier.
const Name = "find-links"

// Scheme is the version scheme of the wheels' versions.
const Scheme = "pep440"

// accept asks for the page as HTML, which is all a find-links page is.
const accept = "text/html, application/xhtml+xml;q=0.9, */*;q=0.1"

// A Source lists the wheels one find-links page links to. It is safe for
// concurrent use.
type Source struct {
	page string
	hc   *http.Client
}

var (
	_ sources.Source  = (*Source)(nil)
	_ sources.Schemer = (*Source)(nil)
)

// New returns a source reading the find-links page at pageURL through hc.
func New(pageURL string, hc *http.Client) *Source {
	return &Source{page: strings.TrimSpace(pageURL), hc: hc}
}

// Name returns "find-links".
func (*Source) Name() string { return Name }

// Scheme returns "pep440".
func (*Source) Scheme() string { return Scheme }

// Releases returns the releases of pkg the page links wheels of, in the
// order the page first links each version. A page that links no wheel of
// pkg gives an error wrapping sources.ErrNotFound; a page that cannot be
// fetched, web's error (a 404 wraps sources.ErrNotFound too).
func (s *Source) Releases(ctx context.Context, pkg string) ([]sources.Release, error) {
	resp, body, err := web.Get(ctx, s.hc, s.page, http.Header{"Accept": {accept}})
	if err != nil {
		return nil, err
	}
	page := resp.Request.URL // after redirects: links are relative to it
	rs, err := Parse(page, pkg, body)
	if err != nil {
		return nil, err
	}
	if len(rs) == 0 {
		return nil, fmt.Errorf("%s: no wheel of %s: %w", web.RedactURL(page), pkg, sources.ErrNotFound)
	}
	return rs, nil
}

// MaxLinks is the most links Parse reads from one page: far above any
// real page (a year of nightly builds for a dozen platforms is a few
// thousand), it bounds what a hostile page can make pinbot hold.
const MaxLinks = sources.MaxFiles

// maxToken bounds one token of the page (a tag with its attributes): a link
// is far shorter, and a longer token is not a page of links.
const maxToken = 1 << 20

// Parse reads the wheels of project that the page fetched from page links
// to, one release per version, in the order the page first links each
// version; a file linked twice is taken from its later link. A link's URL
// is resolved against page (web.ResolveFile: the page's credentials go to
// its own origin only). A body that is not HTML at all (a JSON document,
// say) is an error, as is one with more than MaxLinks links.
func Parse(page *url.URL, project string, body []byte) ([]sources.Release, error) {
	shown := web.RedactURL(page)
	if t := strings.TrimSpace(string(body[:min(len(body), 64)])); strings.HasPrefix(t, "{") || strings.HasPrefix(t, "[") {
		return nil, fmt.Errorf("%s: expected an HTML page of links, got: %s", shown, web.RedactText(web.Sanitize(body[:min(len(body), 120)])))
	}
	want := pep503.Normalize(project)
	z := xhtml.NewTokenizer(bytes.NewReader(body))
	z.SetMaxBuf(maxToken)
	type link struct {
		file    sources.File
		version string
		reason  string
	}
	var links []link
	n := 0
	for {
		tt := z.Next()
		if tt == xhtml.ErrorToken {
			if err := z.Err(); !errors.Is(err, io.EOF) {
				return nil, fmt.Errorf("%s: not a page of links: %w", shown, err)
			}
			break
		}
		if tt != xhtml.StartTagToken && tt != xhtml.SelfClosingTagToken {
			continue
		}
		name, hasAttr := z.TagName()
		if string(name) != "a" || !hasAttr {
			continue
		}
		if n++; n > MaxLinks {
			return nil, fmt.Errorf("%s: more than %d links", shown, MaxLinks)
		}
		attrs := map[string]string{}
		for more := true; more; {
			var k, v []byte
			k, v, more = z.TagAttr()
			if _, seen := attrs[string(k)]; !seen {
				attrs[string(k)] = string(v)
			}
		}
		href, ok := attrs["href"]
		if !ok {
			continue
		}
		f, version, ok := wheelLink(page, href, want)
		if !ok {
			continue
		}
		f.RequiresPython = attrs["data-requires-python"] // the tokenizer unescapes values
		reason, yanked := attrs["data-yanked"]
		f.Yanked = yanked
		links = append(links, link{file: f, version: version, reason: reason})
	}
	// One release per version, in the order of first links; a filename
	// linked again replaces the earlier link's file.
	var out []sources.Release
	index := map[string]int{}
	for _, l := range links {
		i, ok := index[l.version]
		if !ok {
			i = len(out)
			index[l.version] = i
			out = append(out, sources.Release{Version: l.version})
		}
		r := &out[i]
		if l.reason != "" && r.YankedReason == "" {
			r.YankedReason = l.reason
		}
		replaced := false
		for j := range r.Files {
			if r.Files[j].Name == l.file.Name {
				r.Files[j], replaced = l.file, true
			}
		}
		if !replaced {
			r.Files = append(r.Files, l.file)
		}
	}
	for i := range out {
		out[i].Yanked = !slices.ContainsFunc(out[i].Files, func(f sources.File) bool { return !f.Yanked })
		if !out[i].Yanked {
			out[i].YankedReason = ""
		}
	}
	return out, nil
}

// wheelLink reads one link: the wheel of project (normalised) it points
// to, with its version, or false for anything else (another project's
// file, an sdist, a directory, a link that does not parse).
func wheelLink(page *url.URL, href, project string) (sources.File, string, bool) {
	ref, frag, _ := strings.Cut(href, "#")
	u, err := page.Parse(ref)
	if err != nil {
		return sources.File{}, "", false
	}
	name, err := url.PathUnescape(path.Base(u.EscapedPath()))
	if err != nil || !strings.HasSuffix(name, ".whl") || strings.ContainsAny(name, "/\\") {
		return sources.File{}, "", false
	}
	w, err := wheel.Parse(name)
	if err != nil || pep503.Normalize(w.Distribution) != project {
		return sources.File{}, "", false
	}
	resolved, ok := web.ResolveFile(page, ref)
	if !ok {
		return sources.File{}, "", false
	}
	f := sources.File{Name: name, URL: resolved, Kind: sources.KindWheel, Tags: w.Tags}
	if algo, sum, ok := strings.Cut(frag, "="); ok && strings.EqualFold(algo, "sha256") {
		f.SHA256 = strings.ToLower(sum)
	}
	return f, w.Version, true
}
