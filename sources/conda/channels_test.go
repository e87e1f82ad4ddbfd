package conda_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/pinbot-dev/pinbot/internal/fakes"
	"github.com/pinbot-dev/pinbot/sources"
	"github.com/pinbot-dev/pinbot/sources/conda"
)

// TestChannels: the configured channels come first and stay one source each;
// a channel a pin file names is made on first use on the same host, with the
// configured options, once; a label channel counts its label; a name that is
// no channel on the host, or one past MaxNamed, is refused without a request;
// a channel the host does not have answers 404, as anaconda.org does.
func TestChannels(t *testing.T) {
	c := fakes.NewConda(t)
	c.Add("numba", "numba", fakes.CondaFile{Version: "0.66.0"}, fakes.CondaFile{Version: "0.67.0rc1", Labels: []string{"dev"}})
	c.Add("conda-forge", "numba", fakes.CondaFile{Version: "0.66.0"})
	chs := conda.NewChannels(conda.Options{APIURL: c.URL}, []string{"conda-forge", "bioconda", "conda-forge"}, client())

	var names []string
	for _, src := range chs.Configured() {
		names = append(names, src.Name())
	}
	if strings.Join(names, ",") != "conda-forge,bioconda" {
		t.Errorf("configured %v, want [conda-forge bioconda]", names)
	}
	forge, err := chs.Source("conda-forge")
	if err != nil || forge != sources.Source(chs.Configured()[0]) {
		t.Errorf("conda-forge = %v, %v; want the configured source", forge, err)
	}

	ctx := context.Background()
	numba, err := chs.Source("numba")
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := chs.Source("numba"); again != numba {
		t.Error("a named channel was made twice")
	}
	rs, err := numba.Releases(ctx, "numba")
	if err != nil || len(rs) != 2 || len(rs[0].Files)+len(rs[1].Files) != 1 {
		t.Errorf("numba on numba = %+v, %v; want two releases, the main label's file counted", rs, err)
	}
	dev, err := chs.Source("numba/label/dev")
	if err != nil {
		t.Fatal(err)
	}
	rs, err = dev.Releases(ctx, "numba")
	if err != nil || !slices1(rs, "0.67.0rc1") {
		t.Errorf("numba on numba/label/dev = %+v, %v; want 0.67.0rc1's file", rs, err)
	}

	// A channel the host does not have: 404, a not-found error.
	nosuch, err := chs.Source("nosuch")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := nosuch.Releases(ctx, "numba"); !errors.Is(err, sources.ErrNotFound) || !strings.Contains(err.Error(), "404") {
		t.Errorf("a channel the host lacks: %v", err)
	}

	// On a sharded-repodata host, a channel it lacks has no index in any
	// subdir: the error says so rather than that the package is missing.
	shards := conda.NewChannels(conda.Options{RepodataURL: c.URL, Subdirs: []string{"linux-64"}}, nil, client())
	nosuch, err = shards.Source("nosuch")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := nosuch.Releases(ctx, "numba"); !errors.Is(err, sources.ErrNotFound) || !strings.Contains(err.Error(), "no such channel there") {
		t.Errorf("a channel the repodata host lacks: %v", err)
	}
	numba, _ = shards.Source("numba")
	if rs, err := numba.Releases(ctx, "numba"); err != nil || len(rs) == 0 {
		t.Errorf("numba on the repodata host: %+v, %v", rs, err)
	}

	before := len(c.Log())
	for _, tt := range []struct{ name, want string }{
		{"https://example.com/private", "is a channel on another host"},
		{"../../user", "is not a channel name"},
		{"numba?x=1", "is not a channel name"},
		{"", "is not a channel name"},
	} {
		if _, err := chs.Source(tt.name); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Source(%q) = %v, want an error saying %q", tt.name, err, tt.want)
		}
	}
	for i := 0; ; i++ {
		_, err := chs.Source(fmt.Sprintf("chan%d", i))
		if err != nil {
			if !strings.Contains(err.Error(), "more than 16 channels") || i+3 != conda.MaxNamed {
				t.Errorf("channel %d refused: %v (numba, numba/label/dev and nosuch were named before)", i, err)
			}
			break
		}
		if i > conda.MaxNamed {
			t.Fatal("no bound on the channels pin files name")
		}
	}
	if len(c.Log()) != before {
		t.Error("a refused or merely made channel was asked")
	}
}

// slices1 reports whether exactly one release has files, and it is v.
func slices1(rs []sources.Release, v string) bool {
	n := 0
	for _, r := range rs {
		if len(r.Files) > 0 {
			if r.Version != v {
				return false
			}
			n++
		}
	}
	return n == 1
}
