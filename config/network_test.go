package config_test

import (
	"strings"
	"testing"
	"time"

	"github.com/pinbot-dev/pinbot/config"
	"github.com/pinbot-dev/pinbot/internal/diag"
)

func TestNetwork(t *testing.T) {
	cfg, err := config.Parse(".pinbot.yml", []byte("network:\n  attempt-timeout: 5s\n  request-timeout: 20s\n  max-artifact-size: 500MB\n"))
	if err != nil {
		t.Fatal(err)
	}
	n := cfg.Network
	if time.Duration(n.AttemptTimeout) != 5*time.Second || time.Duration(n.RequestTimeout) != 20*time.Second || n.MaxArtifactSize != 500_000_000 {
		t.Errorf("network = %+v", n)
	}
	for text, want := range map[string]config.Size{"100": 100, "2GiB": 2 << 30, "1.5G": 3 << 29, "64KB": 64_000, "1Mi": 1 << 20} {
		var s config.Size
		if err := s.UnmarshalText([]byte(text)); err != nil || s != want {
			t.Errorf("Size(%q) = %d, %v; want %d", text, s, err, want)
		}
	}
	for doc, msg := range map[string]string{
		"network:\n  max-artifact-size: lots\n":                     "expected a size",
		"network:\n  max-artifact-size: 0\n":                        "out of range",
		"network:\n  attempt-timeout: soon\n":                       "expected a duration",
		"network:\n  attempt-timeout: 1m\n  request-timeout: 30s\n": "shorter than attempt-timeout",
		"network:\n  retries: 3\n":                                  "unknown key",
	} {
		_, err := config.Parse(".pinbot.yml", []byte(doc))
		if e, ok := diag.As(err); !ok || e.Line == 0 || !strings.Contains(err.Error(), msg) {
			t.Errorf("Parse(%q) = %v, want %q at a line", doc, err, msg)
		}
	}
}
