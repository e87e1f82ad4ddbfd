package report_test

import (
	"strings"
	"testing"

	"github.com/pinbot-dev/pinbot/bot/report"
)

// TestValidRepository: the names GitHub allows for a repository of an
// owner, and nothing a shell, a path or a flag parser would read as more.
func TestValidRepository(t *testing.T) {
	for _, tt := range []struct {
		full string
		ok   bool
	}{
		{"lab/svc-a", true},
		{"Lab/Good.v2_x-y", true},
		{"lab/.github", true},
		{"lab/..x", true},
		{"lab/" + strings.Repeat("a", 100), true},
		{"lab/" + strings.Repeat("a", 101), false},
		{"lab/.", false},
		{"lab/..", false},
		{"lab/../../etc", false},
		{"lab/-flag", false},
		{"lab/a b", false},
		{"lab/a\nb", false},
		{"lab/$(touch${IFS}pwned)", false},
		{"lab/ünï", false},
		{"lab/", false},
		{"lab", false},
		{"-lab/a", false},
		{"la_b/a", false},
		{"/a", false},
	} {
		if got := report.ValidRepository(tt.full); got != tt.ok {
			t.Errorf("ValidRepository(%q) = %v, want %v", tt.full, got, tt.ok)
		}
	}
	if !report.SameRepository("Lab/Svc-A", "lab/svc-a") || report.SameRepository("lab/a", "lab/b") {
		t.Error("SameRepository does not compare as GitHub does")
	}
}
