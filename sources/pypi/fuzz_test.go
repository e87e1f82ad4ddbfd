package pypi

import (
	"net/url"
	"strings"
	"testing"

	"github.com/pinbot-dev/pinbot/sources"
)

// The fuzz targets feed outside input to the decoders; seeds in
// testdata/fuzz are trimmed recordings of the fakes' payloads.

// checkReleases checks what every decoder promises: a version per release, no
// version twice, and a yanked release has files.
func checkReleases(t *testing.T, rs []sources.Release) {
	seen := map[string]bool{}
	for _, r := range rs {
		if r.Version == "" || seen[r.Version] {
			t.Errorf("release %q empty or repeated", r.Version)
		}
		seen[r.Version] = true
		if r.Yanked && len(r.Files) == 0 {
			t.Errorf("release %q is yanked with no files", r.Version)
		}
	}
}

func FuzzDecodeProject(f *testing.F) {
	f.Add([]byte(`{"info":{"name":"numba","version":"0.67.0"},"releases":{"0.67.0":[{"filename":"numba-0.67.0.tar.gz","packagetype":"sdist","yanked":true,"yanked_reason":"x","digests":{"sha256":"ab"}}],"0.61.1":[]}}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		if rs, err := decodeProject("https://pypi.org/pypi/numba/json", body); err == nil {
			checkReleases(t, rs)
		}
	})
}

func FuzzDecodeVersion(f *testing.F) {
	f.Add([]byte(`{"info":{"name":"numba","version":"0.67.0","yanked":false},"urls":[{"filename":"numba-0.67.0-cp312-cp312-win_amd64.whl","packagetype":"bdist_wheel","digests":{"sha256":"ab"}}]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		r, err := decodeVersion("https://pypi.org/pypi/numba/0.67.0/json", "0.67.0", body)
		if err == nil && r.Version == "" {
			t.Error("a release without a version")
		}
	})
}

var page, _ = url.Parse("https://pypi.org/simple/numba/")

func FuzzDecodeSimple(f *testing.F) {
	f.Add([]byte(`{"meta":{"api-version":"1.1"},"name":"numba","versions":["0.61.1","0.67.0"],"files":[{"filename":"numba-0.67.0.tar.gz","url":"../../p/numba-0.67.0.tar.gz","hashes":{"sha256":"AB"},"yanked":"bad","upload-time":"2026-08-11T12:30:05.123456Z"}]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		if rs, err := decodeSimple(page, "numba", body); err == nil {
			checkReleases(t, rs)
		}
	})
}

func FuzzDecodeSimpleHTML(f *testing.F) {
	f.Add([]byte(`<html><body><a href="../../p/numba-0.67.0.tar.gz#sha256=ab" data-requires-python="&gt;=3.10" data-yanked="">numba-0.67.0.tar.gz</a></body></html>`))
	f.Fuzz(func(t *testing.T, body []byte) {
		if rs, err := decodeSimpleHTML(page, "numba", body); err == nil {
			checkReleases(t, rs)
			for _, r := range rs {
				if len(r.Files) == 0 {
					t.Errorf("release %q without files from HTML", r.Version)
				}
			}
		}
	})
}

func FuzzParseMetadata(f *testing.F) {
	f.Add([]byte("Metadata-Version: 2.1\nName: numba\nRequires-Dist: numpy<2.5,>=1.24\nRequires-Dist: scipy;\n extra == 'cuda'\n\ndescription\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		reqs, err := ParseMetadata(data)
		if err != nil && reqs != nil {
			t.Error("requirements with an error")
		}
		for _, r := range reqs {
			if strings.ContainsAny(r, "\r\n") {
				t.Errorf("requirement %q spans lines", r)
			}
		}
	})
}
