package goproxy

import (
	"testing"

	"golang.org/x/mod/semver"
)

// The fuzz targets feed outside input to the decoders; seeds in testdata/fuzz
// are recordings of the fake proxy's payloads.

func FuzzDecodeList(f *testing.F) {
	f.Add([]byte("v3.3.1\nv3.2.0\nv3.4.0 2025-07-01T00:00:00Z\nv3.4.0\nv0.0.0-20260724033716-83e58baca724\nv2.0.0+incompatible\n"))
	f.Fuzz(func(t *testing.T, body []byte) {
		vs, err := decodeList("https://proxy.golang.org/x/@v/list", body)
		if err != nil {
			return
		}
		seen := map[string]bool{}
		for _, v := range vs {
			if !semver.IsValid(v) || seen[v] {
				t.Errorf("version %q invalid or repeated", v)
			}
			seen[v] = true
		}
	})
}

func FuzzDecodeInfo(f *testing.F) {
	f.Add([]byte(`{"Version":"v3.4.0","Time":"2025-07-01T00:00:00Z","Origin":{"VCS":"git"}}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		decodeInfo("https://proxy.golang.org/x/@v/v3.4.0.info", "v3.4.0", body)
	})
}

func FuzzParseList(f *testing.F) {
	f.Add("https://proxy.golang.org,direct")
	f.Add("https://a.example|https://b.example,off")
	f.Fuzz(func(t *testing.T, s string) {
		ps, err := parseList(s)
		if err == nil && len(ps) == 0 {
			t.Error("no proxies and no error")
		}
	})
}
