package pypi

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/pinbot-dev/pinbot/internal/pep503"
	"github.com/pinbot-dev/pinbot/sources"
	"github.com/pinbot-dev/pinbot/web"
)

var _ sources.Requirer = (*Source)(nil)

// maxMetadata bounds a METADATA file: real ones are a few KB, a long
// description included.
const maxMetadata = 4 << 20

// Requires returns the Requires-Dist entries of release r of pkg, PEP 508
// strings with their markers: with the JSON API, info.requires_dist of
// /pypi/NAME/VERSION/json (PyPI fills it from the uploaded metadata, and
// leaves it null for a release that declares none); with the simple API,
// the METADATA of one of r's files that the index serves apart (PEP
// 658/714, URL+".metadata"), a wheel's first, checked against the digest
// the index gives. A release none of whose files offers its metadata is an
// error: what it requires cannot be read without downloading it.
func (s *Source) Requires(ctx context.Context, pkg string, r sources.Release) ([]string, error) {
	if s.api == SimpleAPI {
		return s.metadataRequires(ctx, pkg, r)
	}
	u := s.base + "/pypi/" + url.PathEscape(pep503.Normalize(pkg)) + "/" + url.PathEscape(r.Version) + "/json"
	_, body, err := web.Get(ctx, s.hc, u, http.Header{"Accept": {"application/json"}})
	if err != nil {
		return nil, err
	}
	var p project
	if err := web.DecodeJSON(u, body, &p); err != nil {
		return nil, err
	}
	if p.Info.Version == "" {
		return nil, fmt.Errorf("%s: the response has no \"info.version\" (is this a PyPI JSON API?)", web.Redact(u))
	}
	return checkRequires(u, p.Info.RequiresDist)
}

// metadataRequires reads the requirements of release r from the metadata
// file of one of its files.
func (s *Source) metadataRequires(ctx context.Context, pkg string, r sources.Release) ([]string, error) {
	files := slices.Clone(r.Files)
	// A wheel's metadata is static; an sdist's may be computed at build time.
	slices.SortStableFunc(files, func(a, b sources.File) int {
		return boolRank(b.Kind == sources.KindWheel) - boolRank(a.Kind == sources.KindWheel)
	})
	for _, f := range files {
		if !f.Metadata || f.Yanked {
			continue
		}
		u := f.URL + ".metadata"
		_, body, err := web.Get(ctx, s.hc, u, nil)
		if err != nil {
			return nil, err
		}
		if f.MetadataSHA256 != "" {
			sum := sha256.Sum256(body)
			if got := hex.EncodeToString(sum[:]); got != f.MetadataSHA256 {
				return nil, fmt.Errorf("%s: sha256 %s, but the index lists %s", web.Redact(u), got, f.MetadataSHA256)
			}
		}
		reqs, err := ParseMetadata(body)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", web.Redact(u), err)
		}
		return checkRequires(u, reqs)
	}
	return nil, fmt.Errorf("%s %s: no file on %s offers its metadata (PEP 658), so what it requires cannot be read", pkg, r.Version, web.Redact(s.base))
}

func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}

// checkRequires bounds the requirements read from u.
func checkRequires(u string, reqs []string) ([]string, error) {
	if len(reqs) > sources.MaxRequires {
		return nil, fmt.Errorf("%s: %d requirements (limit %d)", web.Redact(u), len(reqs), sources.MaxRequires)
	}
	out := make([]string, 0, len(reqs))
	for _, r := range reqs {
		if r = strings.TrimSpace(r); r != "" {
			out = append(out, r)
		}
	}
	return out, nil
}

// ParseMetadata returns the Requires-Dist values of a core metadata file
// (https://packaging.python.org/en/latest/specifications/core-metadata/):
// email-style headers up to the first empty line, a header continued on
// lines that start with white space. Only the header block is read; the
// description after it is not.
func ParseMetadata(data []byte) ([]string, error) {
	if len(data) > maxMetadata {
		return nil, fmt.Errorf("metadata of %d bytes (limit %d)", len(data), maxMetadata)
	}
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), maxMetadata)
	name, value := "", ""
	flush := func() {
		if strings.EqualFold(name, "Requires-Dist") {
			out = append(out, strings.TrimSpace(value))
		}
		name, value = "", ""
	}
	headers := 0
	for sc.Scan() {
		line := strings.TrimSuffix(sc.Text(), "\r")
		switch {
		case line == "":
			flush()
			if headers == 0 {
				return nil, fmt.Errorf("not a core metadata file: no headers")
			}
			return out, nil
		case line[0] == ' ' || line[0] == '\t':
			if name == "" {
				return nil, fmt.Errorf("not a core metadata file: a continuation line before any header")
			}
			value += " " + strings.TrimSpace(line)
		default:
			flush()
			n, v, ok := strings.Cut(line, ":")
			if !ok || n == "" || strings.ContainsAny(n, " \t") {
				return nil, fmt.Errorf("not a core metadata file: %q is not a header", web.Sanitize([]byte(line[:min(len(line), 60)])))
			}
			name, value = n, v
			headers++
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	flush()
	if headers == 0 {
		return nil, fmt.Errorf("not a core metadata file: no headers")
	}
	return out, nil
}
