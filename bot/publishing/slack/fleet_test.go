package slack_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pinbot-dev/pinbot/bot/publishing/slack"
)

func TestBuildFleetGolden(t *testing.T) {
	m := slack.BuildFleet(slack.FleetSummary{
		Fleet: "lab", Repositories: 42,
		URL:    "https://github.com/lab/.github/issues/7",
		RunURL: "https://github.com/lab/.github/actions/runs/9",
		Lines: []slack.FleetLine{
			{Text: "numba 0.67.0: 37 bumped, 3 blocked, 2 held", Alert: true},
			{Text: "protobuf 6.33.0: 40 current"},
			{Text: "evil <!channel> & <https://x|y>"},
		},
	})
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", "fleet_message.json")
	if *update {
		os.WriteFile(path, b, 0o644)
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), string(b)); diff != "" {
		t.Errorf("message (-want +got):\n%s", diff)
	}
}

// TestBuildFleetLimits: a fleet of many packages stays within 50 blocks and
// says how many lines it left out; the fallback text lists them all.
func TestBuildFleetLimits(t *testing.T) {
	var lines []slack.FleetLine
	for i := range 80 {
		lines = append(lines, slack.FleetLine{Text: fmt.Sprintf("pkg%02d 1.0: 1 bumped", i)})
	}
	m := slack.BuildFleet(slack.FleetSummary{Fleet: "lab", Repositories: 1, Lines: lines})
	if len(m.Blocks) != slack.MaxBlocks {
		t.Errorf("%d blocks", len(m.Blocks))
	}
	last := m.Blocks[len(m.Blocks)-2].Text.Text
	if last != "…and 35 more packages" {
		t.Errorf("last section %q", last)
	}
	if !strings.Contains(m.Text, "pkg79 1.0: 1 bumped") {
		t.Errorf("fallback lacks the last package")
	}
}
