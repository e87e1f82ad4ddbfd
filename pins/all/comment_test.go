package all_test

import (
	"strings"
	"testing"

	"github.com/pinbot-dev/pinbot/pins"
	"github.com/pinbot-dev/pinbot/pins/all"
)

// TestLineComment reads the comment beside a pin in every format that keeps
// one on the pin's line, and none where the "#" belongs to something else.
func TestLineComment(t *testing.T) {
	for _, tt := range []struct {
		path, data, pkg, want string
	}{
		{"requirements.txt", "numpy\nprotobuf>=5.29.3,<7  # 7 breaks the generated _pb2 modules\n", "protobuf", "7 breaks the generated _pb2 modules"},
		{"requirements.txt", "protobuf<7 ; python_version >= '3.9' #  keep below 7\r\n", "protobuf", "keep below 7"},
		{"requirements.txt", "protobuf<7\n# 7 breaks things\n", "protobuf", ""},
		{"pyproject.toml", "[project]\nname = \"x\"\ndependencies = [\n  \"protobuf<7\",  # 7 drops the pure-Python runtime\n]\n", "protobuf", "7 drops the pure-Python runtime"},
		{"pyproject.toml", "[project]\nname = \"x\"\ndependencies = [\"protobuf<7\", \"foo @ https://x/y.whl#sha256=ab\"]\n", "protobuf", ""},
		{"pyproject.toml", "[tool.poetry.dependencies]\nprotobuf = \"<7\" # 7 breaks things\n", "protobuf", "7 breaks things"},
		{"setup.cfg", "[options]\ninstall_requires =\n    protobuf >= 5, < 7  # no 7 yet\n", "protobuf", "no 7 yet"},
		{"environment.yml", "channels: [conda-forge]\ndependencies:\n  - protobuf >=5,<7   # 7: see #123\n", "protobuf", "7: see #123"},
		{"pixi.toml", "[workspace]\nchannels = [\"conda-forge\"]\n[dependencies]\nprotobuf = \">=5,<7\"  # pinned\n", "protobuf", "pinned"},
		{"go.mod", "module x\n\ngo 1.22\n\nrequire golang.org/x/mod v0.20.0 // indirect\n", "golang.org/x/mod", ""},
	} {
		f := pins.Lookup(all.Formats(), tt.path)
		ps, err := pins.Extract(f, tt.path, []byte(tt.data))
		if err != nil {
			t.Fatalf("%s: %v", tt.path, err)
		}
		found := false
		for _, p := range ps {
			if p.Package != tt.pkg {
				continue
			}
			found = true
			if got := pins.LineComment([]byte(tt.data), p); got != tt.want {
				t.Errorf("%s: %q: comment %q, want %q", tt.path, p.Text, got, tt.want)
			}
		}
		if !found {
			t.Errorf("%s: no %s pin", tt.path, tt.pkg)
		}
	}
	// A long comment is cut on a rune; a pin whose text is not at its
	// offset has none.
	data := "protobuf<7  # " + strings.Repeat("é", pins.MaxComment) + "\n"
	ps, _ := pins.Extract(pins.Lookup(all.Formats(), "requirements.txt"), "requirements.txt", []byte(data))
	if got := pins.LineComment([]byte(data), ps[0]); len(got) > pins.MaxComment+len("…") || !strings.HasSuffix(got, "é…") {
		t.Errorf("long comment: %d bytes, %q", len(got), got)
	}
	ps[0].TextStart++
	if got := pins.LineComment([]byte(data), ps[0]); got != "" {
		t.Errorf("misplaced pin: %q", got)
	}
}
