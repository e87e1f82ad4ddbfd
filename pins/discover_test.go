package pins_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/pinbot-dev/pinbot/pins"
	"github.com/pinbot-dev/pinbot/pins/pyproject"
)

func TestDiscover(t *testing.T) {
	root := t.TempDir()
	for _, p := range []string{
		"pyproject.toml", "sub/pkg/pyproject.toml",
		".git/pyproject.toml", "node_modules/x/pyproject.toml", "build/pyproject.toml",
		"testdata/pyproject.toml", "pkg/testdata/fixture/pyproject.toml",
		"env/pyvenv.cfg", "env/lib/pyproject.toml", // a virtual environment under any name
	} {
		full := filepath.Join(root, filepath.FromSlash(p))
		os.MkdirAll(filepath.Dir(full), 0o755)
		os.WriteFile(full, nil, 0o644)
	}
	os.Symlink(filepath.Join(root, "pyproject.toml"), filepath.Join(root, "sub", "link.toml"))
	found, err := pins.Discover(root, []pins.Format{pyproject.Format{}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range found {
		got = append(got, f.Path)
	}
	if want := []string{"pyproject.toml", "sub/pkg/pyproject.toml"}; !slices.Equal(got, want) {
		t.Errorf("Discover = %v, want %v", got, want)
	}
	if _, err := pins.Discover(filepath.Join(root, "missing"), nil); err == nil {
		t.Error("a missing root: want an error")
	}
}
