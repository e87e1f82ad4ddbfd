package planning_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pinbot-dev/pinbot/bot/planning"
	"github.com/pinbot-dev/pinbot/config"
	"github.com/pinbot-dev/pinbot/internal/fakes"
	"github.com/pinbot-dev/pinbot/pins/all"
	"github.com/pinbot-dev/pinbot/sources"
	schemes "github.com/pinbot-dev/pinbot/versions/all"
)

// TestCheckGoMod raises go.mod requirements through the check job: a
// requirement is a minimum, so it moves up to the newest release of the same
// major version, keeps its "// indirect" comment, and never gains a cap.
func TestCheckGoMod(t *testing.T) {
	root := t.TempDir()
	gomod := "module example.com/m\n\ngo 1.26\n\nrequire golang.org/x/mod v0.41.0 // indirect\n\nrequire (\n\tgithub.com/spf13/cobra v1.10.2\n\tgithub.com/google/go-github/v60 v60.0.0\n)\n"
	if err := os.WriteFile(filepath.Join(root, "go.mod"), []byte(gomod), 0o644); err != nil {
		t.Fatal(err)
	}
	// Module paths are watched as written: config.Parse normalises package
	// names with PEP 503 ("golang.org" becomes "golang-org"), so this test
	// builds the configuration directly.
	cfg := &config.Config{Packages: map[string]*config.Package{"golang.org/x/mod": {}, "github.com/spf13/cobra": {}, "github.com/google/go-github/v60": {}}}
	goproxy := fakes.Literal{Source: "goproxy", Versions: map[string][]string{
		"golang.org/x/mod":                {"v0.41.0", "v0.42.0", "v0.43.0-rc.1"},
		"github.com/spf13/cobra":          {"v1.10.2", "v2.0.0"}, // v2 would be another module path
		"github.com/google/go-github/v60": {"v60.0.0"},
	}}
	c := &planning.Checker{Root: root, Config: cfg, Formats: all.Formats(), Sources: map[string]sources.Source{"goproxy": goproxy}, Schemes: schemes.Schemes()}
	rep, err := c.Check(context.Background(), planning.CheckOptions{Write: true})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(root, "go.mod"))
	want := strings.Replace(gomod, "golang.org/x/mod v0.41.0 // indirect", "golang.org/x/mod v0.42.0 // indirect", 1)
	if string(b) != want {
		t.Errorf("go.mod =\n%s\nwant\n%s", b, want)
	}
	status := map[string]string{}
	for _, p := range rep.Packages {
		status[p.Name] = p.Status + ": " + p.Pins[0].Reason
	}
	for name, w := range map[string]string{
		"golang.org/x/mod":                "bump: v0.42.0 is newer than the required v0.41.0",
		"github.com/spf13/cobra":          "current: v2.0.0 is another major version",
		"github.com/google/go-github/v60": "current: requires v60.0.0, the newest release",
	} {
		if !strings.HasPrefix(status[name], w) {
			t.Errorf("%s: %q, want %q", name, status[name], w)
		}
	}
	if len(rep.Errors) != 0 || len(rep.Written) != 1 {
		t.Errorf("errors %v, written %v", rep.Errors, rep.Written)
	}
}
