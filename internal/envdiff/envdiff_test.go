package envdiff_test

import (
	"encoding/json"
	"testing"

	"github.com/pinbot-dev/pinbot/internal/envdiff"
)

func TestChange(t *testing.T) {
	for c, want := range map[envdiff.Change]string{
		{Name: "numpy", From: "2.4.6", To: "2.5.2"}: "numpy 2.4.6 → 2.5.2",
		{Name: "numpy", To: "2.5.2"}:                "numpy 2.5.2 (new)",
		{Name: "numpy", From: "2.4.6"}:              "numpy 2.4.6 (gone)",
	} {
		if got := c.String(); got != want {
			t.Errorf("%#v.String() = %q, want %q", c, got, want)
		}
	}
	// The JSON keys are the report's contract.
	b, _ := json.Marshal(envdiff.Change{Name: "numpy", To: "2.5.2"})
	if string(b) != `{"name":"numpy","from":"","to":"2.5.2"}` {
		t.Errorf("JSON %s", b)
	}
}
