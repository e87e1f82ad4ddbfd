package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/mod/modfile"

	"github.com/pinbot-dev/pinbot/config"
	"github.com/pinbot-dev/pinbot/internal/fakes"
)

// TestSelfGuard checks the configuration pinbot's own workflow uses
// (.github/pinbot-self.yml): it loads, every module it watches is required by
// pinbot's go.mod, and a check of the repository against a Go proxy with one
// newer release plans exactly that bump.
func TestSelfGuard(t *testing.T) {
	root := filepath.Join("..", "..")
	gomod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	mf, err := modfile.Parse("go.mod", gomod, nil)
	if err != nil {
		t.Fatal(err)
	}
	required := map[string]string{}
	for _, r := range mf.Require {
		required[r.Mod.Path] = r.Mod.Version
	}
	e := newEnv(t)
	cfgData, err := os.ReadFile(filepath.Join(root, ".github", "pinbot-self.yml"))
	if err != nil {
		t.Fatal(err)
	}
	e.file("go.mod", gomod)
	e.file(".github/pinbot-self.yml", cfgData)
	cfg, err := config.Load(filepath.Join(e.dir, ".github", "pinbot-self.yml"))
	if err != nil {
		t.Fatal(err)
	}
	proxy := fakes.NewGoProxy(t)
	old := time.Now().AddDate(0, -1, 0)
	for _, m := range cfg.Watched() {
		v, ok := required[m]
		if !ok {
			t.Errorf("pinbot-self.yml watches %s, which go.mod does not require", m)
			continue
		}
		proxy.Add(m, fakes.GoVersion{Version: v, Time: old})
	}
	proxy.Add("golang.org/x/mod", fakes.GoVersion{Version: required["golang.org/x/mod"], Time: old}, fakes.GoVersion{Version: "v0.99.0", Time: old})
	e.vars["GOPROXY"] = proxy.URL
	code, out, stderr := e.run("check", "--dir", e.dir, "--config", filepath.Join(e.dir, ".github", "pinbot-self.yml"), "--format", "json")
	if code != 0 || strings.Count(out, `"status": "bump"`) != 1 || !strings.Contains(out, "golang.org/x/mod v0.99.0") {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
}
