package fakes

import (
	"bytes"
	"crypto/md5"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
	"github.com/vmihailenco/msgpack/v5"
)

// A CondaFile is one package file in a fake conda channel.
type CondaFile struct {
	Version string // the conda version
	Subdir  string // default "linux-64"
	// Build is the build string (default "py312h6e6e5ba_0", "pyhd8ed1ab_0" for
	// noarch).
	Build string
	// Labels are the anaconda.org labels (default ["main"]); conda-forge moves
	// pulled builds to "broken", which leaves them out of repodata and lists
	// them in a shard's "removed".
	Labels   []string
	Uploaded time.Time // default DefaultUpload
	Depends  []string  // default numba's run requirements
	// TarBz2 makes it an old-style .tar.bz2 package (default .conda).
	TarBz2 bool
	// Members, when set, are the package's files: the fake builds the real
	// package (CondaPackage), lists it with its true sha256 and size, and
	// serves it at its download URL and under repodata's base_url.
	Members []ArchiveMember
}

// Conda is a fake conda channel host: the anaconda.org package API
// (/package/CHANNEL/NAME), with the quirks of the real one (unsorted, duplicated
// "versions"; "sha256": "None" with the digest in attrs; space-separated
// timestamps; scheme-relative download URLs), and CEP-16 sharded repodata
// (/CHANNEL/SUBDIR/repodata_shards.msgpack.zst and .../shards/HASH.msgpack.zst,
// zstd-compressed msgpack with hashes as raw bytes). A channel it holds no
// package in answers 404 on both, as anaconda.org does for a channel that
// does not exist: the API's 404 for a missing channel and for a missing
// package look alike.
type Conda struct {
	*httptest.Server
	recorder

	mu       sync.Mutex
	packages map[string]map[string][]CondaFile // channel -> name -> files
	shards   map[string][]byte                 // hex -> compressed shard
	pages    map[string][]byte                 // channel/name -> API page, until Add
	blobs    map[string][]byte                 // channel/subdir/filename -> package bytes
	// IndexNames adds this many other package names to every shard index, as a
	// real channel's index holds tens of thousands.
	IndexNames int
}

// NewConda starts a fake conda host that is closed when the test ends.
func NewConda(t testing.TB) *Conda {
	c := &Conda{packages: map[string]map[string][]CondaFile{}, shards: map[string][]byte{}, pages: map[string][]byte{}, blobs: map[string][]byte{}}
	c.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.serve(w, r, c.answer)
	}))
	t.Cleanup(c.Close)
	return c
}

// Add adds (or replaces) a package in a channel.
func (c *Conda) Add(channel, name string, files ...CondaFile) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.packages[channel] == nil {
		c.packages[channel] = map[string][]CondaFile{}
	}
	c.packages[channel][name] = files
	delete(c.pages, channel+"/"+name)
	for _, f := range files {
		if f.Members == nil {
			continue
		}
		f = f.defaults()
		p := CondaPackage{Name: name, Version: f.Version, Build: f.Build, Subdir: f.Subdir, Depends: f.Depends, Members: f.Members, TarBz2: f.TarBz2}
		c.blobs[channel+"/"+f.Subdir+"/"+f.filename(name)] = p.Bytes()
	}
}

// Package returns the bytes the fake serves for a package file added with
// Members (nil for others).
func (c *Conda) Package(channel, subdir, filename string) []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.blobs[channel+"/"+subdir+"/"+filename]
}

// SetGzip turns gzip compression of JSON bodies on (the default) or off.
func (c *Conda) SetGzip(on bool) { c.noGzip = !on }

var (
	condaPackagePath = regexp.MustCompile(`^/package/([^/]+)/([^/]+)$`)
	condaIndexPath   = regexp.MustCompile(`^/([^/]+)/([^/]+)/repodata_shards\.msgpack\.zst$`)
	condaShardPath   = regexp.MustCompile(`^/([^/]+)/([^/]+)/shards/([0-9a-f]{64})\.msgpack\.zst$`)
	condaDownload    = regexp.MustCompile(`^/download/([^/]+)/[^/]+/[^/]+/([^/]+)/([^/]+)$`)
	condaFilePath    = regexp.MustCompile(`^/([^/]+)/([^/]+)/([^/]+\.(?:conda|tar\.bz2))$`)
)

func (c *Conda) answer(r *http.Request) reply {
	if m := condaPackagePath.FindStringSubmatch(r.URL.Path); m != nil {
		c.mu.Lock()
		defer c.mu.Unlock()
		files, ok := c.packages[m[1]][m[2]]
		if !ok {
			return reply{status: http.StatusNotFound, header: http.Header{"Content-Type": {"application/json"}},
				body: []byte(fmt.Sprintf(`{"error": "\"%s\" could not be found", "error_code": "not_found"}`, m[1]+"/"+m[2])), noETag: true}
		}
		page, ok := c.pages[m[1]+"/"+m[2]]
		if !ok {
			page = c.packageJSON(m[1], m[2], files)
			c.pages[m[1]+"/"+m[2]] = page
		}
		return reply{header: http.Header{"Content-Type": {"application/json"}}, body: page}
	}
	if m := condaIndexPath.FindStringSubmatch(r.URL.Path); m != nil {
		c.mu.Lock()
		defer c.mu.Unlock()
		pkgs, ok := c.packages[m[1]]
		if !ok {
			return reply{status: http.StatusNotFound, body: []byte("Not Found"), noETag: true}
		}
		return reply{header: http.Header{"Content-Type": {"application/octet-stream"}, "Cache-Control": {"public, max-age=60"}},
			body: c.index(m[1], m[2], pkgs)}
	}
	for _, re := range []*regexp.Regexp{condaDownload, condaFilePath} {
		if m := re.FindStringSubmatch(r.URL.Path); m != nil {
			c.mu.Lock()
			b, ok := c.blobs[m[1]+"/"+m[2]+"/"+m[3]]
			c.mu.Unlock()
			if !ok {
				return reply{status: http.StatusNotFound, body: []byte("Not Found"), noETag: true}
			}
			return reply{header: http.Header{"Content-Type": {"application/octet-stream"}}, body: b}
		}
	}
	if m := condaShardPath.FindStringSubmatch(r.URL.Path); m != nil {
		c.mu.Lock()
		b, ok := c.shards[m[3]]
		c.mu.Unlock()
		if !ok {
			return reply{status: http.StatusNotFound, body: []byte("Not Found"), noETag: true}
		}
		return reply{header: http.Header{"Content-Type": {"application/octet-stream"}, "Cache-Control": {"public, max-age=31536000, immutable"}}, body: b}
	}
	return reply{status: http.StatusNotFound, body: []byte("Not Found"), noETag: true}
}

var numbaDepends = []string{"libgcc >=14", "libstdcxx >=14", "llvmlite >=0.50.0,<0.51.0a0", "numpy >=1.24,<2.6", "python >=3.12,<3.13.0a0", "python_abi 3.12.* *_cp312"}

var numbaConstrains = []string{"cuda-version >=11.2", "cudatoolkit >=11.2", "libopenblas !=0.3.6", "scipy >=1.0", "tbb >=2021.6.0", "cuda-python >=11.6"}

// defaults fills in a file's defaults.
func (f CondaFile) defaults() CondaFile {
	if f.Subdir == "" {
		f.Subdir = "linux-64"
	}
	if f.Build == "" {
		f.Build = "py312h6e6e5ba_0"
		if f.Subdir == "noarch" {
			f.Build = "pyhd8ed1ab_0"
		}
	}
	if f.Labels == nil {
		f.Labels = []string{"main"}
	}
	if f.Uploaded.IsZero() {
		f.Uploaded = DefaultUpload
	}
	if f.Depends == nil {
		f.Depends = numbaDepends
	}
	return f
}

func (f CondaFile) filename(name string) string {
	ext := ".conda"
	if f.TarBz2 {
		ext = ".tar.bz2"
	}
	return name + "-" + f.Version + "-" + f.Build + ext
}

// digests returns the file's sha256 and md5 and its size: of the real
// package when it has Members, else made up from its name. c.mu is held.
func (c *Conda) digests(channel, name string, f CondaFile) (sha, md5sum []byte, size int64) {
	fn := f.filename(name)
	if b, ok := c.blobs[channel+"/"+f.Subdir+"/"+fn]; ok {
		s, m := sha256.Sum256(b), md5.Sum(b)
		return s[:], m[:], int64(len(b))
	}
	s := sha256.Sum256([]byte(channel + "/" + f.Subdir + "/" + fn))
	m := sha256.Sum256(s[:])
	return s[:], m[:16], 3_500_000 + int64(len(fn))*1000
}

func buildNumber(build string) int {
	n := 0
	if i := strings.LastIndexByte(build, '_'); i >= 0 {
		fmt.Sscan(build[i+1:], &n)
	}
	return n
}

// packageJSON is /package/CHANNEL/NAME, shaped like anaconda.org's.
func (c *Conda) packageJSON(channel, name string, files []CondaFile) []byte {
	host := strings.TrimPrefix(c.URL, "http:")
	var versions []string
	platforms := map[string]string{}
	var out []map[string]any
	for i, f := range files {
		f = f.defaults()
		fn := f.filename(name)
		sha, md5, size := c.digests(channel, name, f)
		top := hex.EncodeToString(sha)
		if i%2 == 0 {
			top = "None" // the API's quirk: the digest is in attrs only
		}
		out = append(out, map[string]any{
			"description": nil, "dependencies": map[string]any{}, "distribution_type": "conda",
			"basename": f.Subdir + "/" + fn,
			"attrs": map[string]any{
				"size": size, "subdir": f.Subdir, "build_number": buildNumber(f.Build), "name": name, "license": "BSD-2-Clause",
				"license_family": "BSD", "timestamp": f.Uploaded.UnixMilli(), "platform": strings.Split(f.Subdir, "-")[0],
				"depends": f.Depends, "constrains": numbaConstrains, "version": f.Version, "build": f.Build,
				"sha256": hex.EncodeToString(sha), "arch": "x86_64", "md5": hex.EncodeToString(md5),
				"source_url": "https://github.com/numba/numba/archive/refs/tags/" + f.Version + ".tar.gz",
			},
			"upload_time": f.Uploaded.UTC().Format("2006-01-02 15:04:05.000000-07:00"),
			"md5":         hex.EncodeToString(md5), "sha256": top, "size": size,
			"full_name":    channel + "/" + name + "/" + f.Version + "/" + f.Subdir + "/" + fn,
			"download_url": host + "/download/" + channel + "/" + name + "/" + f.Version + "/" + f.Subdir + "/" + fn,
			"type":         "conda", "version": f.Version, "ndownloads": 1000 + i, "owner": channel,
			"labels": f.Labels,
		})
		// "versions" is neither sorted nor unique: a version appears once per
		// upload batch, in upload order.
		if len(versions) == 0 || versions[len(versions)-1] != f.Version || i%7 == 3 {
			versions = append(versions, f.Version)
		}
		platforms[f.Subdir] = f.Version
	}
	if n := len(versions); n > 2 {
		versions[0], versions[n/2] = versions[n/2], versions[0]
	}
	latest := ""
	if len(versions) > 0 {
		latest = versions[len(versions)-1]
	}
	doc := map[string]any{
		"name": name, "id": "5a1fd5d8ae7d2b1b8b3a10c5", "package_types": []string{"conda"},
		"summary": "NumPy aware dynamic Python compiler using LLVM", "description": "", "home": "None", "public": true,
		"owner":     map[string]any{"login": channel, "user_type": "org", "created_at": "2015-11-03 00:38:29.074000+00:00"},
		"full_name": channel + "/" + name, "url": "http:" + host + "/packages/" + channel + "/" + name,
		"versions": versions, "latest_version": latest, "platforms": platforms,
		"license": "BSD-2-Clause", "created_at": "2015-11-03 00:38:29.074000+00:00", "modified_at": DefaultUpload.Format("2006-01-02 15:04:05.000000-07:00"),
		"files": out,
	}
	b, _ := json.Marshal(doc)
	return b
}

var zstdEncoder, _ = zstd.NewWriter(nil)

// packZstd encodes v as msgpack with sorted map keys, so equal content gives
// equal bytes (and hashes), then compresses it.
func packZstd(v any) []byte {
	var buf bytes.Buffer
	enc := msgpack.NewEncoder(&buf)
	enc.SetSortMapKeys(true)
	if err := enc.Encode(v); err != nil {
		panic(err)
	}
	return zstdEncoder.EncodeAll(buf.Bytes(), nil)
}

// shardFor builds the shard of one package in one subdir, or nil if the
// package has no file there.
func (c *Conda) shardFor(channel, subdir, name string, files []CondaFile) []byte {
	pkgs, conda := map[string]any{}, map[string]any{}
	removed := []string{}
	for _, f := range files {
		f = f.defaults()
		if f.Subdir != subdir {
			continue
		}
		fn := f.filename(name)
		if !slices.Contains(f.Labels, "main") {
			if slices.Contains(f.Labels, "broken") {
				removed = append(removed, fn)
			}
			continue
		}
		sha, md5, size := c.digests(channel, name, f)
		rec := map[string]any{
			"build": f.Build, "build_number": buildNumber(f.Build), "depends": f.Depends, "constrains": numbaConstrains,
			"license": "BSD-2-Clause", "license_family": "BSD", "md5": md5, "name": name, "sha256": sha,
			"size": size, "subdir": subdir, "timestamp": f.Uploaded.UnixMilli(), "version": f.Version,
		}
		if subdir == "noarch" {
			rec["noarch"] = "python"
		}
		if f.TarBz2 {
			pkgs[fn] = rec
		} else {
			conda[fn] = rec
		}
	}
	if len(pkgs)+len(conda)+len(removed) == 0 {
		return nil
	}
	return packZstd(map[string]any{"packages": pkgs, "packages.conda": conda, "removed": removed})
}

// index builds a subdir's shard index and remembers its shards. c.mu is held.
func (c *Conda) index(channel, subdir string, pkgs map[string][]CondaFile) []byte {
	shards := map[string]any{} // any: the encoder sorts only such maps
	for name, files := range pkgs {
		if b := c.shardFor(channel, subdir, name, files); b != nil {
			sum := sha256.Sum256(b)
			c.shards[hex.EncodeToString(sum[:])] = b
			shards[name] = sum[:]
		}
	}
	for i := range c.IndexNames {
		sum := sha256.Sum256([]byte(fmt.Sprint(channel, subdir, i)))
		shards[fmt.Sprintf("pkg-%05d-%x", i, sum[:2])] = sum[:]
	}
	base, _ := url.JoinPath(c.URL, channel, subdir)
	return packZstd(map[string]any{
		"version": 1,
		"info":    map[string]any{"base_url": base + "/", "shards_base_url": "./shards/", "created_at": DefaultUpload.Format(time.RFC3339), "subdir": subdir},
		"shards":  shards,
	})
}

// CondaHistory generates a realistic file list for a package like numba: n
// files over releases 0.50.0 onwards, six Python versions and seven subdirs,
// with respins, a broken build and old .tar.bz2 files.
func CondaHistory(n int) []CondaFile {
	subdirs := []string{"linux-64", "linux-aarch64", "linux-ppc64le", "osx-64", "osx-arm64", "win-64", "win-32"}
	pys := []string{"39", "310", "311", "312", "313", "314"}
	var out []CondaFile
	start := time.Date(2020, 6, 1, 9, 0, 0, 0, time.UTC)
	for v := 0; len(out) < n; v++ {
		version := fmt.Sprintf("0.%d.%d", 50+v/3, v%3)
		up := start.Add(time.Duration(v) * 21 * 24 * time.Hour)
		for respin := 0; respin < 1+v%2 && len(out) < n; respin++ {
			for _, sd := range subdirs {
				for _, py := range pys {
					if len(out) == n {
						break
					}
					h := sha256.Sum256([]byte(version + sd + py))
					var minor int
					fmt.Sscan(py[1:], &minor)
					f := CondaFile{
						Version: version, Subdir: sd, Build: fmt.Sprintf("py%sh%x_%d", py, h[:4], respin),
						Uploaded: up.Add(time.Duration(respin) * 48 * time.Hour), TarBz2: v < 10,
						Depends: []string{"libgcc >=13", "libstdcxx >=13", fmt.Sprintf("llvmlite >=0.%d.0,<0.%d.0a0", 43+v/3, 44+v/3),
							"numpy >=1.22,<2.3", fmt.Sprintf("python >=3.%d,<3.%d.0a0", minor, minor+1), fmt.Sprintf("python_abi 3.%s.* *_cp%s", py[1:], py)},
					}
					if v == 5 && respin == 0 && py == "312" {
						f.Labels = []string{"broken"}
					}
					out = append(out, f)
				}
			}
		}
	}
	return out
}
