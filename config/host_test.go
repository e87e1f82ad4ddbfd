package config_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pinbot-dev/pinbot/config"
)

// TestCheckHosts: a symbols.host entry that matches nothing, or a file that
// is not ELF, is an error at the entry's line, or at the alias that brought
// it in; entries that resolve are fine.
func TestCheckHosts(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "build"), 0o755)
	os.WriteFile(filepath.Join(root, "build", "notes.so"), []byte("text"), 0o644)
	os.Mkdir(filepath.Join(root, "lib"), 0o755)
	cfg, err := config.Parse(".pinbot.yml", []byte(`packages:
  TensorFlow:
    symbols:
      host:
        - lib
        - build/*.so
`))
	if err != nil {
		t.Fatal(err)
	}
	err = cfg.CheckHosts(root)
	if err == nil || !strings.Contains(err.Error(), `.pinbot.yml:6:11: packages.TensorFlow.symbols.host[1]: "build/*.so": `) ||
		!strings.Contains(err.Error(), "notes.so cannot be read as ELF") || strings.Contains(err.Error(), "host[0]") {
		t.Errorf("err = %v", err)
	}

	cfg, err = config.Parse(".pinbot.yml", []byte("packages:\n  a:\n    symbols: {host: &h [\"nothing/*.so\"]}\n  b:\n    symbols: {host: *h}\n"))
	if err != nil {
		t.Fatal(err)
	}
	err = cfg.CheckHosts(root)
	for _, want := range []string{`.pinbot.yml:3:25: packages.a.symbols.host[0]: "nothing/*.so" matches no file in the repository`,
		`.pinbot.yml:5:21: packages.b.symbols.host[0]: "nothing/*.so" matches no file`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("err = %v\nwant %s", err, want)
		}
	}
}
