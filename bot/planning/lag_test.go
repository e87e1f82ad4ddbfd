package planning_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/pinbot-dev/pinbot/bot/planning"
	"github.com/pinbot-dev/pinbot/config"
	"github.com/pinbot-dev/pinbot/pins/all"
	"github.com/pinbot-dev/pinbot/sources"
	schemes "github.com/pinbot-dev/pinbot/versions/all"
)

// listSource serves fixed releases per package.
type listSource map[string][]sources.Release

func (listSource) Name() string   { return "pypi" }
func (listSource) Scheme() string { return "pep440" }
func (s listSource) Releases(ctx context.Context, pkg string) ([]sources.Release, error) {
	if rs, ok := s[pkg]; ok {
		return rs, nil
	}
	return nil, sources.ErrNotFound
}

func rel(v string, yanked bool) sources.Release {
	return sources.Release{Version: v, Yanked: yanked, Files: []sources.File{{Name: "x-" + v + ".tar.gz"}}}
}

// TestLag: a package's report says the newest release every pin admits and
// how many acceptable releases (not yanked, not pre-releases) lie between it
// and the target.
func TestLag(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "pyproject.toml"), []byte(`[project]
name = "x"
dependencies = ["numba>=0.58,<=0.65.0", "llvmlite<=0.49.0", "protobuf>=9"]
`), 0o644)
	os.WriteFile(filepath.Join(dir, "requirements.txt"), []byte("numba<0.67\n"), 0o644)
	cfg, err := config.Parse(".pinbot.yml", []byte("packages: {numba: {}, llvmlite: {}, protobuf: {}, tensorflow: {}}\n"))
	if err != nil {
		t.Fatal(err)
	}
	src := listSource{
		"numba":    {rel("0.64.0", false), rel("0.65.0", false), rel("0.66.0", false), rel("0.67.0rc1", false), rel("0.67.0", false), rel("0.67.1", true)},
		"llvmlite": {rel("0.48.0", false), rel("0.49.0", false)},
		"protobuf": {rel("5.29.3", false), rel("6.33.0", false)},
	}
	c := &planning.Checker{Root: dir, Config: cfg, Formats: all.Formats(), Sources: map[string]sources.Source{"pypi": src}, Schemes: schemes.Schemes()}
	rep, err := c.Check(context.Background(), planning.CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]struct {
		admits string
		behind int
	}{
		"numba":    {"0.65.0", 2}, // 0.66.0 and 0.67.0; the pre-release and the yanked 0.67.1 do not count
		"llvmlite": {"0.49.0", 0},
		"protobuf": {"", 2}, // >=9 admits no release: every one up to the target lags
	}
	for _, p := range rep.Packages {
		w := want[p.Name]
		if p.Admits != w.admits || p.Behind != w.behind {
			t.Errorf("%s (%s, target %s): admits %q behind %d, want %q and %d", p.Name, p.Status, p.Newest, p.Admits, p.Behind, w.admits, w.behind)
		}
		delete(want, p.Name)
	}
	if len(want) != 0 {
		t.Errorf("packages not reported: %v", want)
	}
}
