package conda

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"sync"

	"github.com/klauspost/compress/zstd"

	"github.com/pinbot-dev/pinbot/internal/msgpack"
	"github.com/pinbot-dev/pinbot/sources"
	"github.com/pinbot-dev/pinbot/web"
)

// maxDecoded bounds a decompressed index or shard: conda-forge's largest
// index is a few MB, a shard kilobytes to a few MB. The decoder allocates at
// most this much whatever a frame header declares.
const maxDecoded = 64 << 20

// maxShardNames bounds the packages of one index (conda-forge has some
// 30,000 per subdir), and maxRecords the files of one shard (its largest
// packages have a few thousand builds per subdir), so that a hostile
// document cannot make pinbot hold more than some tens of megabytes.
const (
	maxShardNames = 500_000
	maxRecords    = 200_000
)

// zstdDecoder decodes every index and shard (DecodeAll is safe for
// concurrent use). It is made when first used: only a sharded channel needs
// it, and its block decoders cost every command's start otherwise. Its
// options are constants, so NewReader cannot fail.
var zstdDecoder = sync.OnceValue(func() *zstd.Decoder {
	d, _ := zstd.NewReader(nil, zstd.WithDecoderMaxMemory(maxDecoded), zstd.WithDecoderConcurrency(0))
	return d
})

// shardIndex is repodata_shards.msgpack.zst.
type shardIndex struct {
	Version int64
	// Shards maps a package name to its shard's sha256.
	Shards map[string][32]byte
	// base and shardsBase are info.base_url and info.shards_base_url resolved
	// against the index URL.
	base, shardsBase *url.URL
}

// record is the part of a repodata record pinbot reads; the hash is raw
// bytes (CEP-16) or, leniently, hex.
type record struct {
	Version     string
	Subdir      string
	SHA256      []byte
	Size        int64
	Timestamp   int64
	Build       string
	BuildNumber int64
	Depends     []string
}

// An indexFetch is one fetch of a subdir's shard index, shared by every
// lookup that needs it: the fetch in flight, or its result once it
// succeeded. A failed one is forgotten, so the next lookup tries again,
// unless the channel did not answer at all (unanswered): then a memo of the
// failure (noAnswer) takes its place for the rest of the Source's life (one
// run), so that the lookups of a hung channel wait for it once, not once per
// batch of concurrent lookups.
type indexFetch struct {
	ctx  context.Context // the fetch's: its starter's, without the lookup's bound
	done chan struct{}   // closed when the fetch ended, idx and err set
	idx  *shardIndex     // nil when the channel has no such subdir (404)
	err  error
}

// startIndex returns the fetch of a subdir's index: the one in flight or
// done, else a new one in ctx. ctx must not carry a lookup's bound
// (Options.Budget): the index is shared, and one package's lookup running
// out of time must not end the fetch the other packages wait for. The
// Transport's request budget and the run's deadline bound it.
func (s *Source) startIndex(ctx context.Context, subdir string) *indexFetch {
	s.mu.Lock()
	defer s.mu.Unlock()
	if f := s.indexes[subdir]; f != nil {
		return f
	}
	f := &indexFetch{ctx: ctx, done: make(chan struct{})}
	s.indexes[subdir] = f
	go func() {
		defer close(f.done) // after the map says what comes next
		f.idx, f.err = s.fetchIndex(ctx, subdir)
		if f.err == nil {
			return
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		switch {
		case s.indexes[subdir] != f:
		case ctx.Err() == nil && unanswered(f.err):
			s.indexes[subdir] = s.noAnswer(subdir, f.err)
		default:
			delete(s.indexes, subdir)
		}
	}()
	return f
}

// unanswered reports whether err, a failed index fetch, says the channel
// gave no answer at all once the Transport's retries were spent: every
// attempt timed out (hung, dripping) or found no server (connection
// refused or reset, no such host). An HTTP status is an answer (a 404 is
// not even an error: the channel has no such subdir), and so is a document
// that does not decode: those cost a lookup little, and the next one asks
// again.
func unanswered(err error) bool {
	if he := (*web.HTTPError)(nil); errors.As(err, &he) {
		return false
	}
	var oe *net.OpError
	var de *net.DNSError
	return errors.Is(err, context.DeadlineExceeded) || errors.As(err, &oe) || errors.As(err, &de)
}

// noAnswer is the memo of a subdir's index fetch that failed with err
// because the channel did not answer: a fetch already done, whose error
// names the channel and says so. Its context never ends, so index never
// takes it for a fetch its starter's end cut short.
func (s *Source) noAnswer(subdir string, err error) *indexFetch {
	done := make(chan struct{})
	close(done)
	return &indexFetch{ctx: context.Background(), done: done,
		err: fmt.Errorf("the conda channel %s did not answer for its %s shard index earlier in this run (not asked again until the next run): %w", s.opts.Channel, subdir, err)}
}

// index waits for f, a fetch of a subdir's shard index (startIndex in run),
// and returns the index; nil when the channel has no such subdir. The
// lookup's ctx bounds only the wait: when it ends, the fetch goes on for the
// others.
func (s *Source) index(ctx, run context.Context, subdir string, f *indexFetch) (*shardIndex, error) {
	for ; ; f = s.startIndex(run, subdir) {
		select {
		case <-f.done:
		case <-ctx.Done():
			return nil, fmt.Errorf("%w: no complete answer from %s", web.ContextError(ctx), web.Redact(s.indexURL(subdir)))
		}
		if f.err != nil && f.ctx.Err() != nil && run.Err() == nil {
			continue // the context of the lookup that started it ended, not ours: fetch again
		}
		return f.idx, f.err
	}
}

func (s *Source) indexURL(subdir string) string {
	return s.opts.RepodataURL + "/" + s.channelPath() + "/" + subdir + "/repodata_shards.msgpack.zst"
}

// fetchIndex fetches and decodes a subdir's shard index; nil when the
// channel has no such subdir.
func (s *Source) fetchIndex(ctx context.Context, subdir string) (*shardIndex, error) {
	u := s.indexURL(subdir)
	_, body, err := web.Get(ctx, s.hc, u, nil)
	if errors.Is(err, sources.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return decodeIndex(u, body)
}

func unzstd(u string, body []byte) ([]byte, error) {
	b, err := zstdDecoder().DecodeAll(body, nil)
	if errors.Is(err, zstd.ErrDecoderSizeExceeded) || err == nil && len(b) > maxDecoded {
		return nil, fmt.Errorf("%s: decompresses to more than %d bytes", web.Redact(u), maxDecoded)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: not a zstd stream (truncated or corrupt response): %w", web.Redact(u), err)
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

// decodeIndexMsgpack reads a shard index: {version, info: {base_url,
// shards_base_url}, shards: {NAME: SHA256}}. Entries whose hash is not 32
// bytes are left out.
func decodeIndexMsgpack(u string, raw []byte) (*shardIndex, error) {
	shown := web.Redact(u)
	out := &shardIndex{}
	var baseURL, shardsBaseURL string
	found := false
	err := eachKey(msgpack.NewReader(raw), func(r *msgpack.Reader, key string) error {
		var err error
		switch key {
		case "version":
			out.Version, err = r.Int()
		case "info":
			err = eachKey(r, func(r *msgpack.Reader, key string) error {
				switch key {
				case "base_url":
					baseURL, err = r.Str()
				case "shards_base_url":
					shardsBaseURL, err = r.Str()
				default:
					err = r.Skip()
				}
				return err
			})
		case "shards":
			found = true
			var n int
			if n, err = r.MapLen(); err != nil {
				return err
			}
			if n > maxShardNames {
				return fmt.Errorf("%d packages (limit %d)", n, maxShardNames)
			}
			out.Shards = make(map[string][32]byte, min(n, 4096))
			for range n {
				name, err := r.Str()
				if err != nil {
					return err
				}
				h, err := r.Bytes()
				if err != nil {
					return err
				}
				if sum, ok := digest(h); ok {
					out.Shards[name] = sum
				}
			}
		default:
			err = r.Skip()
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("%s: invalid shard index: %w", shown, err)
	}
	if !found {
		return nil, fmt.Errorf("%s: the shard index has no \"shards\" (is this CEP-16 repodata?)", shown)
	}
	if out.Version > 1 {
		return nil, fmt.Errorf("%s: shard index version %d is not supported (pinbot reads 1)", shown, out.Version)
	}
	self, err := url.Parse(u)
	if err != nil {
		return nil, err
	}
	if out.base, err = self.Parse(dir(baseURL, "./")); err != nil {
		return nil, fmt.Errorf("%s: info.base_url: %w", shown, err)
	}
	if out.shardsBase, err = self.Parse(dir(shardsBaseURL, "./shards/")); err != nil {
		return nil, fmt.Errorf("%s: info.shards_base_url: %w", shown, err)
	}
	return out, nil
}

// eachKey reads a map (nil is empty) and calls fn for each string key, with
// r positioned at the key's value; fn must read or skip it.
func eachKey(r *msgpack.Reader, fn func(r *msgpack.Reader, key string) error) error {
	n, err := r.MapLen()
	if err != nil {
		return err
	}
	for range n {
		key, err := r.Str()
		if err != nil {
			return err
		}
		if err := fn(r, key); err != nil {
			return err
		}
	}
	return nil
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
func digest(h []byte) (sum [32]byte, ok bool) {
	switch len(h) {
	case 32:
		copy(sum[:], h)
		return sum, true
	case 64:
		if _, err := hex.Decode(sum[:], h); err == nil {
			return sum, true
		}
	}
	return sum, false
}

// fromShards reads pkg's shards in every subdir, within the lookup's ctx; run
// is the context without the lookup's bound, for the shared index fetches.
func (s *Source) fromShards(ctx, run context.Context, pkg string) ([]sources.Release, error) {
	// Every lookup reads every subdir's index: fetch them all at once, so
	// that a cold run waits for the slowest, not for their sum, within the
	// first lookup's budget.
	fetches := make([]*indexFetch, len(s.opts.Subdirs))
	for i, subdir := range s.opts.Subdirs {
		fetches[i] = s.startIndex(run, subdir)
	}
	var files []sources.File
	var vers []string
	found, indexed := false, false
	for i, subdir := range s.opts.Subdirs {
		idx, err := s.index(ctx, run, subdir, fetches[i])
		if err != nil {
			return nil, err
		}
		if idx == nil {
			continue
		}
		indexed = true
		sum, ok := idx.Shards[pkg]
		if !ok {
			continue
		}
		found = true
		su, err := idx.shardsBase.Parse(hex.EncodeToString(sum[:]) + ".msgpack.zst")
		if err != nil {
			return nil, err
		}
		body, err := web.GetWithin(ctx, s.hc, su.String(), nil)
		if err != nil {
			return nil, err
		}
		fs, vs, err := decodeShard(su.String(), body, subdir, idx.base)
		if err != nil {
			return nil, err
		}
		files, vers = append(files, fs...), append(vers, vs...)
	}
	switch {
	case !indexed:
		// Every index 404: the host has no such channel (or none of its subdirs).
		return nil, fmt.Errorf("the host has no shard index of %s for %s (404): no such channel there: %w", s.opts.Channel, strings.Join(s.opts.Subdirs, ", "), sources.ErrNotFound)
	case !found:
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

// decodeShardMsgpack reads a shard: {packages: {FILENAME: record},
// packages.conda: {...}, removed: [FILENAME]}.
func decodeShardMsgpack(u string, raw []byte, subdir string, base *url.URL) ([]sources.File, []string, error) {
	var files []sources.File
	var vers []string
	add := func(f sources.File, version string) error {
		if len(files) >= maxRecords {
			return fmt.Errorf("more than %d files (limit)", maxRecords)
		}
		if pu, ok := web.ResolveFile(base, url.PathEscape(f.Name)); ok {
			f.URL = pu
		}
		files, vers = append(files, f), append(vers, version)
		return nil
	}
	err := eachKey(msgpack.NewReader(raw), func(r *msgpack.Reader, key string) error {
		switch key {
		case "packages", "packages.conda":
			return eachKey(r, func(r *msgpack.Reader, fn string) error {
				rec, err := readRecord(r)
				if err != nil {
					return err
				}
				f := sources.File{Name: fn, Kind: sources.KindConda, Subdir: subdir, Size: max(rec.Size, 0), Time: millis(rec.Timestamp),
					Build: rec.Build, BuildNumber: int(min(max(rec.BuildNumber, 0), 1<<31-1)), Depends: rec.Depends}
				if f.Build == "" {
					_, _, f.Build, _ = splitFilename(fn)
				}
				if sum, ok := digest(rec.SHA256); ok {
					f.SHA256 = hex.EncodeToString(sum[:])
				}
				if rec.Subdir != "" {
					f.Subdir = rec.Subdir
				}
				return add(f, rec.Version)
			})
		case "removed":
			n, err := r.ArrayLen()
			if err != nil {
				return err
			}
			for range n {
				fn, err := r.Str()
				if err != nil {
					return err
				}
				if _, v, _, ok := splitFilename(fn); ok {
					if err := add(sources.File{Name: fn, Kind: sources.KindConda, Subdir: subdir, Yanked: true}, v); err != nil {
						return err
					}
				}
			}
			return nil
		}
		return r.Skip()
	})
	if err != nil {
		return nil, nil, fmt.Errorf("%s: invalid shard: %w", web.Redact(u), err)
	}
	return files, vers, nil
}

// readStrings reads an array of at most limit strings (nil is empty).
func readStrings(r *msgpack.Reader, limit int) ([]string, error) {
	n, err := r.ArrayLen()
	if err != nil {
		return nil, err
	}
	if n > limit {
		return nil, fmt.Errorf("%d entries (limit %d)", n, limit)
	}
	out := make([]string, 0, n)
	for range n {
		s, err := r.Str()
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// readRecord reads the fields of a repodata record pinbot uses and skips the
// rest (constrains, license, ...).
func readRecord(r *msgpack.Reader) (record, error) {
	var rec record
	err := eachKey(r, func(r *msgpack.Reader, key string) error {
		var err error
		switch key {
		case "version":
			rec.Version, err = r.Str()
		case "subdir":
			rec.Subdir, err = r.Str()
		case "sha256":
			rec.SHA256, err = r.Bytes()
		case "size":
			rec.Size, err = r.Int()
		case "timestamp":
			rec.Timestamp, err = r.Int()
		case "build":
			rec.Build, err = r.Str()
		case "build_number":
			rec.BuildNumber, err = r.Int()
		case "depends":
			rec.Depends, err = readStrings(r, maxDepends)
		default:
			err = r.Skip()
		}
		return err
	})
	return rec, err
}
