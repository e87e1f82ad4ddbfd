package all_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pinbot-dev/pinbot/internal/corpus"
	"github.com/pinbot-dev/pinbot/internal/pinstest"
	"github.com/pinbot-dev/pinbot/pins"
	"github.com/pinbot-dev/pinbot/pins/all"
)

// TestChannels reads the channels every format that names them apart from
// a pin names: an environment file's list (URLs become names, defaults and
// nodefaults are passed over), a pixi workspace's, in pixi.toml and in a
// pyproject's [tool.pixi]; and the real files of the corpus.
func TestChannels(t *testing.T) {
	for _, tt := range []struct {
		path, data string
		want       []string
	}{
		{"environment.yml", "channels:\n  - numba\n  - conda-forge\ndependencies:\n  - numba>=0.59\n", []string{"numba", "conda-forge"}},
		{"environment.yml", "channels: [defaults, https://conda.anaconda.org/pytorch/, nodefaults, https://prefix.dev/conda-forge, conda-forge]\ndependencies: [numba]\n",
			[]string{"pytorch", "conda-forge"}},
		{"environment.yml", "name: x\ndependencies:\n  - conda-forge::numba\n", nil},
		{"pixi.toml", "[workspace]\nchannels = [\"conda-forge\", { channel = \"numba\", priority = 1 }]\n[dependencies]\nnumba = \"*\"\n", []string{"conda-forge", "numba"}},
		{"pyproject.toml", "[project]\nname = \"x\"\n[tool.pixi.workspace]\nchannels = [\"nvidia\", \"conda-forge\"]\n", []string{"nvidia", "conda-forge"}},
		{"pyproject.toml", "[project]\nname = \"x\"\ndependencies = [\"numba\"]\n", nil},
	} {
		f, ok := pins.Lookup(all.Formats(), tt.path).(pins.ChannelNamer)
		if !ok {
			t.Fatalf("%s: the format names no channels", tt.path)
		}
		got := pinstest.CheckChannels(t, f, tt.path, []byte(tt.data))
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s %q (-want +got):\n%s", tt.path, tt.data, diff)
		}
	}
	if _, err := (pins.Lookup(all.Formats(), "environment.yml").(pins.ChannelNamer)).Channels("environment.yml", []byte("channels: [\n")); err == nil {
		t.Error("a file that does not parse gives no error")
	}
	for name, want := range map[string][]string{
		"pymc-devs__pytensor__environment.yml": {"conda-forge"},
		"numba__numba__docs__environment.yml":  {"numba/label/dev"},
		"pydata__sparse__pixi.toml":            {"conda-forge"},
	} {
		path := repoPath(name)
		data := corpus.Read(t, name)
		f := pins.Detect(all.Formats(), path, data).(pins.ChannelNamer)
		if diff := cmp.Diff(want, pinstest.CheckChannels(t, f, path, data)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", name, diff)
		}
	}
}
