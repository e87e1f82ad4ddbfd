package conda_test

import (
	"context"
	"net"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/pinbot-dev/pinbot/internal/fakes"
	"github.com/pinbot-dev/pinbot/sources/conda"
	"github.com/pinbot-dev/pinbot/web"
)

// countingConn counts the bytes read from the network.
type countingConn struct {
	net.Conn
	n *atomic.Int64
}

func (c countingConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// wireClient returns a client whose received bytes (headers and bodies, as
// sent: gzip-compressed where the server compressed) are counted in n, with
// the on-disk cache in dir when dir is not "".
func wireClient(n *atomic.Int64, dir string) *http.Client {
	d := &net.Dialer{}
	tr := &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := d.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return countingConn{c, n}, nil
	}}
	var rt http.RoundTripper = web.NewTransport(tr, web.DefaultPolicy, "bench", nil)
	if dir != "" {
		rt = web.NewCache(dir, rt, nil)
	}
	return &http.Client{Transport: rt}
}

// BenchmarkLookupBytes measures the bytes one conda lookup receives for a
// package with 2,000 files across seven subdirs: from the anaconda.org API
// (gzip and identity), and from CEP-16 shards for the default subdirs
// (linux-64, osx-arm64, win-64, noarch), split into the shards themselves and
// the subdir indexes, whose size depends on the channel (16,000 names per
// subdir here, about conda-forge linux-64's 670 KB at the time of CEP-16). A
// second run on the same cache revalidates the indexes and reads the shards
// (immutable) from disk.
//
//	go test ./sources/conda -run '^$' -bench LookupBytes -benchtime 1x
func BenchmarkLookupBytes(b *testing.B) {
	fake := fakes.NewConda(b)
	fake.IndexNames = 16000
	fake.Add("conda-forge", "numba", fakes.CondaHistory(2000)...)
	lookup := func(o conda.Options, dir string) int64 {
		var n atomic.Int64
		rs, err := conda.New(o, wireClient(&n, dir)).Releases(context.Background(), "numba")
		if err != nil || len(rs) == 0 {
			b.Fatalf("lookup: %d releases, %v", len(rs), err)
		}
		return n.Load()
	}
	var apiGzip, apiRaw, shardsCold, shardsOnly, indexes, warm int64
	for b.Loop() {
		fake.SetGzip(true)
		apiGzip = lookup(conda.Options{APIURL: fake.URL}, "")
		fake.SetGzip(false)
		apiRaw = lookup(conda.Options{APIURL: fake.URL}, "")
		fake.SetGzip(true)
		fake.ResetLog()
		dir := b.TempDir()
		shardsCold = lookup(conda.Options{RepodataURL: fake.URL}, dir)
		indexes, shardsOnly = 0, 0
		for _, r := range fake.Log() {
			if len(r.Path) > 9 && r.Path[len(r.Path)-len("repodata_shards.msgpack.zst"):] == "repodata_shards.msgpack.zst" {
				indexes += r.Bytes
			} else {
				shardsOnly += r.Bytes
			}
		}
		warm = lookup(conda.Options{RepodataURL: fake.URL}, dir)
	}
	b.ReportMetric(float64(apiGzip), "api-gzip-B")
	b.ReportMetric(float64(apiRaw), "api-identity-B")
	b.ReportMetric(float64(shardsCold), "shards-cold-B")
	b.ReportMetric(float64(shardsOnly), "shard-bodies-B")
	b.ReportMetric(float64(indexes), "index-bodies-B")
	b.ReportMetric(float64(warm), "shards-warm-B")
	b.ReportMetric(100*float64(shardsOnly)/float64(apiRaw), "shard/api-identity-%")
	b.ReportMetric(100*float64(shardsOnly)/float64(apiGzip), "shard/api-gzip-%")
}
