package config_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/pinbot-dev/pinbot/config"
	"github.com/pinbot-dev/pinbot/internal/diag"
)

// TestDashboardForms reads the dashboard key's forms: absent (on, with the
// defaults), false (off), true, and a mapping of title and labels.
func TestDashboardForms(t *testing.T) {
	tests := []struct {
		doc    string
		on     bool
		title  string
		labels []string
	}{
		{"", true, "pinbot dashboard", []string{"pinbot"}},
		{"dashboard: false\n", false, "pinbot dashboard", []string{"pinbot"}},
		{"dashboard: true\n", true, "pinbot dashboard", []string{"pinbot"}},
		{"dashboard: {}\n", true, "pinbot dashboard", []string{"pinbot"}},
		{"dashboard:\n  title: Pins of pytensor\n  labels: [dependencies, pins]\n", true, "Pins of pytensor", []string{"dependencies", "pins"}},
		{"dashboard: {labels: []}\n", true, "pinbot dashboard", []string{}},
	}
	for _, tt := range tests {
		cfg, err := config.Parse(".pinbot.yml", []byte(tt.doc))
		if err != nil {
			t.Fatalf("%q: %v", tt.doc, err)
		}
		d, on := cfg.DashboardIssue()
		if on != tt.on || d.Title != tt.title || !slices.Equal(d.Labels, tt.labels) {
			t.Errorf("%q: on %v, %+v; want %v %q %q", tt.doc, on, d, tt.on, tt.title, tt.labels)
		}
	}
}

// TestEarlyWarns: early warning is on for a package with checks unless
// early-warning: false, and never for a package without checks.
func TestEarlyWarns(t *testing.T) {
	cfg, err := config.Parse(".pinbot.yml", []byte(`packages:
  numba:
    probes: [{preset: numba-unique-ids}]
  llvmlite:
    probes: [{preset: numba-unique-ids}]
    early-warning: false
  protobuf: {}
  tensorflow: {early-warning: false}
`))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"numba": true, "llvmlite": false, "protobuf": false, "tensorflow": false}
	for name, w := range want {
		if got := cfg.Packages[name].EarlyWarns(); got != w {
			t.Errorf("%s: EarlyWarns() = %v, want %v", name, got, w)
		}
	}
	var none *config.Package
	if none.EarlyWarns() {
		t.Error("a package with default settings early-warns")
	}
}

// TestForesightErrors: bad dashboard and early-warning values are errors
// naming file, line, column and key.
func TestForesightErrors(t *testing.T) {
	tests := []struct {
		doc       string
		line, col int
		key, msg  string
	}{
		{"dashboard: maybe\n", 1, 12, "dashboard", "expected true or false"},
		{"dashboard: [a]\n", 1, 12, "dashboard", "expected true or false"},
		{"dashboard: {titel: x}\n", 1, 13, "dashboard.titel", "unknown key (known keys: title, labels)"},
		{"dashboard:\n  title: \"a\\nb\"\n", 2, 10, "dashboard.title", "expected one line"},
		{"dashboard:\n  title: " + strings.Repeat("t", 257) + "\n", 2, 10, "dashboard.title", "at most 256 characters"},
		{"dashboard:\n  labels: [\"a,b\"]\n", 2, 12, "dashboard.labels[0]", `"a,b" is not a label name`},
		{"dashboard:\n  labels: [\" \"]\n", 2, 12, "dashboard.labels[0]", "is not a label name"},
		{"packages:\n  numba:\n    early-warning: sometimes\n", 3, 20, "packages.numba.early-warning", "expected true or false"},
		{"packages:\n  numba:\n    early-warning: true\n    usage: off\n", 3, 20, "packages.numba.early-warning", "true, but the package has no probes or symbols to run against a pre-release, and usage: off"},
		{"notify:\n  on: [early-warnings]\n", 2, 8, "notify.on[0]", `unknown event "early-warnings"`},
	}
	for _, tt := range tests {
		_, err := config.Parse(".pinbot.yml", []byte(tt.doc))
		e, ok := diag.As(err)
		if !ok {
			t.Errorf("Parse(%q) = %v, want a diag.Error", tt.doc, err)
			continue
		}
		if e.File != ".pinbot.yml" || e.Line != tt.line || e.Col != tt.col || e.Key != tt.key || !strings.Contains(e.Err.Error(), tt.msg) {
			t.Errorf("Parse(%q) = %q (line %d col %d key %q), want %d:%d %s: %s", tt.doc, e, e.Line, e.Col, e.Key, tt.line, tt.col, tt.key, tt.msg)
		}
	}
	if _, err := config.Parse(".pinbot.yml", []byte("notify: {on: [early-warning]}\n")); err != nil {
		t.Errorf("notify.on early-warning: %v", err)
	}
}
