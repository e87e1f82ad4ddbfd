package pypi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"mime"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/pinbot-dev/pinbot/internal/pep503"
	"github.com/pinbot-dev/pinbot/sources"
	"github.com/pinbot-dev/pinbot/web"
)

// simpleAccept asks for PEP 691 JSON, taking the HTML forms if that is all the
// index has.
const simpleAccept = "application/vnd.pypi.simple.v1+json, application/vnd.pypi.simple.v1+html;q=0.2, text/html;q=0.01"

// The simple API's content types.
const (
	simpleJSONType   = "application/vnd.pypi.simple.v1+json"
	simpleLatestJSON = "application/vnd.pypi.simple.latest+json"
	simpleHTMLType   = "application/vnd.pypi.simple.v1+html"
)

// simpleProject is the PEP 691 JSON project page with PEP 700's additions.
type simpleProject struct {
	Meta struct {
		APIVersion string `json:"api-version"`
	} `json:"meta"`
	Name     string       `json:"name"`
	Versions []string     `json:"versions"`
	Files    []simpleFile `json:"files"`
}

type simpleFile struct {
	Filename string `json:"filename"`
	URL      string `json:"url"`
	Hashes   struct {
		SHA256 string `json:"sha256"` // a struct, not a map: no allocation per file for the others
	} `json:"hashes"`
	RequiresPython *string `json:"requires-python"`
	Size           int64   `json:"size"`
	UploadTime     string  `json:"upload-time"`
	Yanked         yanked  `json:"yanked"`
	// CoreMetadata (PEP 714) and its older spelling DistInfoMetadata
	// (PEP 658) say whether the index serves the file's METADATA apart.
	CoreMetadata     metadataFlag `json:"core-metadata"`
	DistInfoMetadata metadataFlag `json:"data-dist-info-metadata"`
}

// metadataFlag is PEP 658/714's core-metadata: false, true, or an object of
// hashes of the metadata file.
type metadataFlag struct {
	Set    bool
	SHA256 string
}

// UnmarshalJSON reads a bool or a hashes object.
func (m *metadataFlag) UnmarshalJSON(b []byte) error {
	switch b := bytes.TrimSpace(b); {
	case string(b) == "null":
		*m = metadataFlag{}
	case len(b) > 0 && b[0] == '{':
		var hashes struct {
			SHA256 string `json:"sha256"`
		}
		if err := json.Unmarshal(b, &hashes); err != nil {
			return err
		}
		*m = metadataFlag{Set: true, SHA256: strings.ToLower(hashes.SHA256)}
	default:
		var v bool
		if err := json.Unmarshal(b, &v); err != nil {
			return fmt.Errorf("core-metadata: expected a bool or an object of hashes, found %.40q", b)
		}
		*m = metadataFlag{Set: v}
	}
	return nil
}

// metadataAttr reads PEP 658/714's HTML attribute: "true", or
// "sha256=HEX"; absent is false.
func metadataAttr(attrs map[string]string) metadataFlag {
	v, ok := attrs["data-core-metadata"]
	if !ok {
		v, ok = attrs["data-dist-info-metadata"]
	}
	if !ok {
		return metadataFlag{}
	}
	if algo, sum, found := strings.Cut(v, "="); found && algo == "sha256" {
		return metadataFlag{Set: true, SHA256: strings.ToLower(sum)}
	}
	return metadataFlag{Set: v != "false"}
}

// yanked is PEP 691's yanked: false, true, or a non-empty reason string.
type yanked struct {
	Yanked bool
	Reason string
}

// UnmarshalJSON reads a bool or a string.
func (y *yanked) UnmarshalJSON(b []byte) error {
	switch b := bytes.TrimSpace(b); {
	case string(b) == "null":
		*y = yanked{}
	case len(b) > 0 && b[0] == '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*y = yanked{Yanked: true, Reason: s}
	default:
		var v bool
		if err := json.Unmarshal(b, &v); err != nil {
			return fmt.Errorf("yanked: expected a bool or a string, found %.40q", b)
		}
		*y = yanked{Yanked: v}
	}
	return nil
}

func (s *Source) simple(ctx context.Context, pkg string) ([]sources.Release, error) {
	name := pep503.Normalize(pkg)
	u := s.base + "/" + url.PathEscape(name) + "/"
	resp, body, err := web.Get(ctx, s.hc, u, http.Header{"Accept": {simpleAccept}})
	if err != nil {
		return nil, err
	}
	page := resp.Request.URL // after redirects: file URLs are relative to it
	shown := web.RedactURL(page)
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch mt {
	case simpleJSONType, simpleLatestJSON:
		return decodeSimple(page, name, body)
	case simpleHTMLType, "text/html", "":
		if mt == "" && bytes.HasPrefix(bytes.TrimSpace(body), []byte("{")) {
			return decodeSimple(page, name, body)
		}
		return decodeSimpleHTML(page, name, body)
	case "application/json":
		return nil, fmt.Errorf("%s: the index answered plain JSON, not the simple API (is sources.pypi.url the JSON API's host? then use api: json)", shown)
	}
	return nil, fmt.Errorf("%s: unexpected content type %.60q for the simple API", shown, mt)
}

// decodeSimple reads a PEP 691 JSON project page fetched from page.
func decodeSimple(page *url.URL, project string, body []byte) ([]sources.Release, error) {
	shown := web.RedactURL(page)
	var p simpleProject
	if err := web.DecodeJSON(shown, body, &p); err != nil {
		return nil, err
	}
	if p.Meta.APIVersion == "" || p.Files == nil {
		return nil, fmt.Errorf("%s: the response has no \"meta.api-version\" or \"files\" (is this a PEP 691 simple API?)", shown)
	}
	if major, _, _ := strings.Cut(p.Meta.APIVersion, "."); major != "1" {
		return nil, fmt.Errorf("%s: simple API version %.40s is not supported (pinbot reads 1.x)", shown, p.Meta.APIVersion)
	}
	if len(p.Versions) > sources.MaxReleases {
		return nil, fmt.Errorf("%s: %d versions (limit %d)", shown, len(p.Versions), sources.MaxReleases)
	}
	byV := map[string][]sources.File{}
	reasons := map[string]string{}
	order := append([]string(nil), p.Versions...)
	for _, f := range p.Files {
		v := fileVersion(f.Filename, project)
		if v == "" {
			continue
		}
		sf := sources.File{Name: f.Filename, URL: resolve(page, f.URL), SHA256: strings.ToLower(f.Hashes.SHA256),
			Size: f.Size, Yanked: f.Yanked.Yanked}
		if f.RequiresPython != nil {
			sf.RequiresPython = *f.RequiresPython
		}
		md := f.CoreMetadata
		if !md.Set {
			md = f.DistInfoMetadata
		}
		sf.Metadata, sf.MetadataSHA256 = md.Set, md.SHA256
		if t, err := time.Parse(time.RFC3339Nano, f.UploadTime); err == nil {
			sf.Time = t
		}
		if f.Yanked.Reason != "" && reasons[v] == "" {
			reasons[v] = f.Yanked.Reason
		}
		classify(&sf, "")
		if _, seen := byV[v]; !seen {
			order = append(order, v)
		}
		byV[v] = append(byV[v], sf)
	}
	return collect(order, byV, reasons), nil
}

// collect makes one release per distinct version, in order.
func collect(order []string, byV map[string][]sources.File, reasons map[string]string) []sources.Release {
	var out []sources.Release
	seen := map[string]bool{}
	for _, v := range order {
		if v == "" || seen[v] {
			continue
		}
		seen[v] = true
		out = append(out, assemble(v, byV[v], reasons[v]))
	}
	return out
}

// resolve returns the URL of a file the page lists (with the index's
// credentials on its own origin only: web.ResolveFile), or ref as written
// when it does not parse, for the download to fail on.
func resolve(page *url.URL, ref string) string {
	if u, ok := web.ResolveFile(page, ref); ok {
		return u
	}
	return ref
}

// The anchor and attribute patterns of a PEP 503 HTML page, compiled when
// first used: only an index that serves HTML needs them.
var (
	anchorRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?is)<a\s([^>]*)>(.*?)</a\s*>`) })
	attrRE   = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?s)([a-zA-Z_:][-a-zA-Z0-9_:.]*)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>` + "`" + `]+)))?`)
	})
)

// decodeSimpleHTML reads a PEP 503 HTML project page: one anchor per file, the
// hash in the URL fragment, data-requires-python and data-yanked attributes.
// It carries no upload times and lists no versions without files.
func decodeSimpleHTML(page *url.URL, project string, body []byte) ([]sources.Release, error) {
	anchors := anchorRE().FindAllSubmatchIndex(body, sources.MaxFiles+1)
	if len(anchors) > sources.MaxFiles {
		return nil, fmt.Errorf("%s: more than %d links", web.RedactURL(page), sources.MaxFiles)
	}
	if len(anchors) == 0 {
		lower := bytes.ToLower(body)
		if !bytes.Contains(lower, []byte("pypi:repository-version")) && !bytes.Contains(lower, []byte("links for")) {
			return nil, fmt.Errorf("%s: expected a simple API page, got: %s", web.RedactURL(page), web.RedactText(web.Sanitize(body[:min(len(body), 120)])))
		}
	}
	byV := map[string][]sources.File{}
	reasons := map[string]string{}
	var order []string
	for _, ix := range anchors {
		m := [3][]byte{nil, body[ix[2]:ix[3]], body[ix[4]:ix[5]]}
		attrs := map[string]string{}
		for _, a := range attrRE().FindAllSubmatch(m[1], -1) {
			attrs[strings.ToLower(string(a[1]))] = html.UnescapeString(string(a[2]) + string(a[3]) + string(a[4]))
		}
		href, ok := attrs["href"]
		if !ok {
			continue
		}
		fn := strings.TrimSpace(html.UnescapeString(string(m[2])))
		v := fileVersion(fn, project)
		if v == "" {
			continue
		}
		ref, frag, _ := strings.Cut(href, "#")
		sf := sources.File{Name: fn, URL: resolve(page, ref), RequiresPython: attrs["data-requires-python"]}
		md := metadataAttr(attrs)
		sf.Metadata, sf.MetadataSHA256 = md.Set, md.SHA256
		if algo, sum, ok := strings.Cut(frag, "="); ok && algo == "sha256" {
			sf.SHA256 = strings.ToLower(sum)
		}
		if reason, ok := attrs["data-yanked"]; ok {
			sf.Yanked = true
			if reason != "" && reasons[v] == "" {
				reasons[v] = reason
			}
		}
		classify(&sf, "")
		if _, seen := byV[v]; !seen {
			order = append(order, v)
		}
		byV[v] = append(byV[v], sf)
	}
	return collect(order, byV, reasons), nil
}
