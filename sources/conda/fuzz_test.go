package conda

import (
	"net/url"
	"testing"
)

// The fuzz targets feed outside input to the decoders; seeds in testdata/fuzz
// are trimmed recordings of the fake channel's payloads (msgpack after zstd).

func FuzzDecodeAPI(f *testing.F) {
	f.Add([]byte(`{"name":"numba","versions":["0.67.0","0.66.0","0.67.0"],"files":[{"basename":"linux-64/numba-0.67.0-py312h6e6e5ba_0.conda","version":"0.67.0","labels":["main"],"upload_time":"2026-08-12 10:00:00.000000+00:00","sha256":"None","download_url":"//api.anaconda.org/download/conda-forge/numba/0.67.0/linux-64/numba-0.67.0-py312h6e6e5ba_0.conda","attrs":{"subdir":"linux-64","sha256":"ab","timestamp":"1754992800000"}}]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		rs, err := decodeAPI("https://api.anaconda.org/package/conda-forge/numba", body, DefaultLabels)
		if err != nil {
			return
		}
		seen := map[string]bool{}
		for _, r := range rs {
			if r.Version == "" || seen[r.Version] {
				t.Errorf("release %q empty or repeated", r.Version)
			}
			seen[r.Version] = true
		}
	})
}

func FuzzDecodeIndex(f *testing.F) {
	f.Add([]byte("\x83\xa7version\x01\xa4info\x82\xa8base_url\xa2./\xafshards_base_url\xa9./shards/\xa6shards\x81\xa5numba\xc4\x20" + "0123456789abcdef0123456789abcdef"))
	f.Fuzz(func(t *testing.T, raw []byte) {
		idx, err := decodeIndexMsgpack("https://prefix.dev/conda-forge/linux-64/repodata_shards.msgpack.zst", raw)
		if err != nil {
			return
		}
		for name, sum := range idx.Shards {
			if len(sum) != 32 {
				t.Errorf("%s: hash of %d bytes", name, len(sum))
			}
		}
		if idx.base == nil || idx.shardsBase == nil {
			t.Error("no base URLs")
		}
	})
}

var base, _ = url.Parse("https://prefix.dev/conda-forge/linux-64/")

func FuzzDecodeShard(f *testing.F) {
	f.Add([]byte("\x83\xa8packages\x80\xaepackages.conda\x81\xbcnumba-0.67.0-py312h_0.conda\x83\xa7version\xa60.67.0\xa6sha256\xc4\x20" + "0123456789abcdef0123456789abcdef" + "\xa9timestamp\xcf\x00\x00\x01\x98\x9b\x5c\x10\x00\xa7removed\x91\xbcnumba-0.66.0-py312h_0.conda"))
	f.Fuzz(func(t *testing.T, raw []byte) {
		files, vers, err := decodeShardMsgpack("https://prefix.dev/conda-forge/linux-64/shards/x.msgpack.zst", raw, "linux-64", base)
		if err != nil {
			return
		}
		if len(files) != len(vers) {
			t.Fatalf("%d files, %d versions", len(files), len(vers))
		}
		for _, f := range files {
			if f.SHA256 != "" && len(f.SHA256) != 64 {
				t.Errorf("sha256 %q", f.SHA256)
			}
		}
	})
}

func FuzzSplitFilename(f *testing.F) {
	f.Add("numba-0.61.0-py312h6e6e5ba_0.conda")
	f.Add("linux-64/python_abi-3.12-5_cp312.tar.bz2")
	f.Fuzz(func(t *testing.T, fn string) {
		name, v, b, ok := splitFilename(fn)
		if ok && (name == "" || v == "" || b == "") {
			t.Errorf("splitFilename(%q) = %q %q %q", fn, name, v, b)
		}
	})
}
