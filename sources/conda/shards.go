package conda

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/klauspost/compress/zstd"
	"github.com/vmihailenco/msgpack/v5"

	"github.com/pinbot-dev/pinbot/sources"
	"github.com/pinbot-dev/pinbot/web"
)

// maxDecoded bounds a decompressed index or shard (conda-forge's largest
// index is a few MB; a shard, kilobytes to a few hundred).
const maxDecoded = 256 << 20

var zstdDecoder, _ = zstd.NewReader(nil, zstd.WithDecoderMaxMemory(maxDecoded), zstd.WithDecoderConcurrency(0))

// shardIndex is repodata_shards.msgpack.zst.
type shardIndex struct {
	Version int            `msgpack:"version"`
	Info    map[string]any `msgpack:"info"`
	Shards  map[string][]byte
	// base and shardsBase are Info's URLs resolved against the index URL.
	base, shardsBase *url.URL
}

// shard is one package's records in one subdir.
type shard struct {
	Packages      map[string]record `msgpack:"packages"`
	PackagesConda map[string]record `msgpack:"packages.conda"`
	Removed       []string          `msgpack:"removed"`
}

// record is a repodata record; hashes are raw bytes (CEP-16).
type record struct {
	Name      string `msgpack:"name"`
	Version   string `msgpack:"version"`
	Build     string `msgpack:"build"`
	Subdir    string `msgpack:"subdir"`
	SHA256    any    `msgpack:"sha256"`
	Size      any    `msgpack:"size"`
	Timestamp any    `msgpack:"timestamp"`
}

// indexCell holds one subdir's index for the life of a Source.
type indexCell struct {
	mu     chan struct{} // a lock that waiting callers can abandon on cancel
	idx    *shardIndex
	absent bool // the channel has no such subdir (404)
}

func (s *Source) cell(subdir string) *indexCell {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.indexes[subdir]
	if c == nil {
		c = &indexCell{mu: make(chan struct{}, 1)}
		s.indexes[subdir] = c
	}
	return c
}

// index returns a subdir's shard index, fetching it once per Source; nil when
// the channel has no such subdir. Errors are not remembered.
func (s *Source) index(ctx context.Context, subdir string) (*shardIndex, error) {
	c := s.cell(subdir)
	select {
	case c.mu <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-c.mu }()
	if c.idx != nil || c.absent {
		return c.idx, nil
	}
	u := s.opts.RepodataURL + "/" + s.channelPath() + "/" + subdir + "/repodata_shards.msgpack.zst"
	_, body, err := web.Get(ctx, s.hc, u, nil)
	if errors.Is(err, sources.ErrNotFound) {
		c.absent = true
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	idx, err := decodeIndex(u, body)
	if err != nil {
		return nil, err
	}
	c.idx = idx
	return idx, nil
}

func unzstd(u string, body []byte) ([]byte, error) {
	b, err := zstdDecoder.DecodeAll(body, nil)
	if err != nil {
		return nil, fmt.Errorf("%s: not a zstd stream (truncated or corrupt response): %w", u, err)
	}
	return b, nil
}

// decodeIndex reads a zstd-compressed shard index fetched from u.
func decodeIndex(u string, body []byte) (*shardIndex, error) {
	raw, err := unzstd(u, body)
	if err != nil {
		return nil, err
	}
	return decodeIndexMsgpack(u, raw)
}

func decodeIndexMsgpack(u string, raw []byte) (*shardIndex, error) {
	var idx struct {
		Version int            `msgpack:"version"`
		Info    map[string]any `msgpack:"info"`
		Shards  map[string]any `msgpack:"shards"`
	}
	if err := msgpack.Unmarshal(raw, &idx); err != nil {
		return nil, fmt.Errorf("%s: invalid shard index: %w", u, err)
	}
	if idx.Shards == nil {
		return nil, fmt.Errorf("%s: the shard index has no \"shards\" (is this CEP-16 repodata?)", u)
	}
	if idx.Version > 1 {
		return nil, fmt.Errorf("%s: shard index version %d is not supported (pinbot reads 1)", u, idx.Version)
	}
	self, err := url.Parse(u)
	if err != nil {
		return nil, err
	}
	out := &shardIndex{Version: idx.Version, Info: idx.Info, Shards: make(map[string][]byte, len(idx.Shards))}
	for name, h := range idx.Shards {
		if sum, ok := digest(h); ok {
			out.Shards[name] = sum
		}
	}
	str := func(k string) string { s, _ := idx.Info[k].(string); return s }
	if out.base, err = self.Parse(dir(str("base_url"), "./")); err != nil {
		return nil, fmt.Errorf("%s: info.base_url: %w", u, err)
	}
	if out.shardsBase, err = self.Parse(dir(str("shards_base_url"), "./shards/")); err != nil {
		return nil, fmt.Errorf("%s: info.shards_base_url: %w", u, err)
	}
	return out, nil
}

// dir returns u (or def when empty) ending in "/", so it resolves as a directory.
func dir(u, def string) string {
	if u == "" {
		u = def
	}
	if !strings.HasSuffix(u, "/") {
		u += "/"
	}
	return u
}

// digest reads a sha256 stored as 32 raw bytes (CEP-16) or, leniently, as hex.
func digest(v any) ([]byte, bool) {
	switch h := v.(type) {
	case []byte:
		if len(h) == 32 {
			return h, true
		}
		if b, err := hex.DecodeString(string(h)); err == nil && len(b) == 32 {
			return b, true
		}
	case string:
		if b, err := hex.DecodeString(h); err == nil && len(b) == 32 {
			return b, true
		}
	}
	return nil, false
}

func (s *Source) fromShards(ctx context.Context, pkg string) ([]sources.Release, error) {
	var files []sources.File
	var vers []string
	found := false
	for _, subdir := range s.opts.Subdirs {
		idx, err := s.index(ctx, subdir)
		if err != nil {
			return nil, err
		}
		if idx == nil {
			continue
		}
		sum, ok := idx.Shards[pkg]
		if !ok {
			continue
		}
		found = true
		su, err := idx.shardsBase.Parse(hex.EncodeToString(sum) + ".msgpack.zst")
		if err != nil {
			return nil, err
		}
		_, body, err := web.Get(ctx, s.hc, su.String(), nil)
		if err != nil {
			return nil, err
		}
		fs, vs, err := decodeShard(su.String(), body, subdir, idx.base)
		if err != nil {
			return nil, err
		}
		files, vers = append(files, fs...), append(vers, vs...)
	}
	if !found {
		return nil, fmt.Errorf("%s has no package %q in %s: %w", s.opts.Channel, pkg, strings.Join(s.opts.Subdirs, ", "), sources.ErrNotFound)
	}
	return group(files, func(i int) string { return vers[i] }, nil), nil
}

// decodeShard reads a zstd-compressed shard fetched from u for subdir, with
// package URLs relative to base. Removed files come back yanked.
func decodeShard(u string, body []byte, subdir string, base *url.URL) ([]sources.File, []string, error) {
	raw, err := unzstd(u, body)
	if err != nil {
		return nil, nil, err
	}
	return decodeShardMsgpack(u, raw, subdir, base)
}

func decodeShardMsgpack(u string, raw []byte, subdir string, base *url.URL) ([]sources.File, []string, error) {
	var sh shard
	if err := msgpack.Unmarshal(raw, &sh); err != nil {
		return nil, nil, fmt.Errorf("%s: invalid shard: %w", u, err)
	}
	var files []sources.File
	var vers []string
	add := func(fn string, r record) {
		f := sources.File{Name: fn, Kind: sources.KindConda, Subdir: subdir, Size: toInt(r.Size), Time: millis(toInt(r.Timestamp))}
		if sum, ok := digest(r.SHA256); ok {
			f.SHA256 = hex.EncodeToString(sum)
		}
		if r.Subdir != "" {
			f.Subdir = r.Subdir
		}
		if pu, err := base.Parse(url.PathEscape(fn)); err == nil {
			f.URL = pu.String()
		}
		files, vers = append(files, f), append(vers, r.Version)
	}
	for _, m := range []map[string]record{sh.Packages, sh.PackagesConda} {
		for fn, r := range m {
			add(fn, r)
		}
	}
	for _, fn := range sh.Removed {
		if _, v, _, ok := splitFilename(fn); ok {
			f := sources.File{Name: fn, Kind: sources.KindConda, Subdir: subdir, Yanked: true}
			if pu, err := base.Parse(url.PathEscape(fn)); err == nil {
				f.URL = pu.String()
			}
			files, vers = append(files, f), append(vers, v)
		}
	}
	return files, vers, nil
}

// toInt reads a msgpack number of any width, a float, or a numeric string.
func toInt(v any) int64 {
	switch n := v.(type) {
	case int8:
		return int64(n)
	case int16:
		return int64(n)
	case int32:
		return int64(n)
	case int64:
		return n
	case uint8:
		return int64(n)
	case uint16:
		return int64(n)
	case uint32:
		return int64(n)
	case uint64:
		return int64(min(n, 1<<62))
	case float32:
		return int64(n)
	case float64:
		return int64(n)
	case string:
		i, _ := strconv.ParseInt(n, 10, 64)
		return i
	}
	return 0
}
