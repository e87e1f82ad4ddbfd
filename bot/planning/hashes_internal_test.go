package planning

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/pinbot-dev/pinbot/bot/planning/plan"
	"github.com/pinbot-dev/pinbot/pins"
	"github.com/pinbot-dev/pinbot/sources"
)

type versionHasher struct{ ok map[string][]string }

func (versionHasher) Name() string { return "pypi" }
func (versionHasher) Releases(context.Context, string) ([]sources.Release, error) {
	return nil, errors.New("not asked")
}
func (h versionHasher) Hashes(_ context.Context, _, version string) ([]string, error) {
	if hs, ok := h.ok[version]; ok {
		return hs, nil
	}
	return nil, errors.New("no such version")
}

// TestHashPinsAfterChecks covers a hash-locked pin that the checks moved to an
// older release than the plan's target: it gets that release's hashes, or,
// when they cannot be had, stays as written and holds the package (status held:
// the pin shuts out the release the checks chose).
func TestHashPinsAfterChecks(t *testing.T) {
	pin := pins.Pin{File: "requirements.txt", Line: 1, Package: "pkg", Text: "pkg==1.0.0", Constraint: "==1.0.0", Source: "pypi",
		HashText: "--hash=sha256:" + strings.Repeat("0", 64)}
	moved := func(v string) []plan.Plan {
		return []plan.Plan{{Name: "pkg", Status: plan.Bump, Pins: []plan.PinPlan{{Pin: pin, New: "==" + v, Changed: true, RaisesLower: true, Reason: "moved"}}}}
	}
	c := &Checker{Sources: map[string]sources.Source{"pypi": versionHasher{ok: map[string][]string{"1.0.5": {strings.Repeat("a", 64)}}}}}
	log := slog.New(slog.DiscardHandler)

	ok := moved("1.0.5")
	c.hashPins(context.Background(), log, ok)
	if pp := ok[0].Pins[0]; !pp.Changed || ok[0].Status != plan.Bump || pp.Reason != "moved; its --hash options become the sha256 hashes of pkg 1.0.5 on pypi (1 file)" {
		t.Errorf("1.0.5: %s %+v", ok[0].Status, pp)
	}
	failed := moved("1.0.4")
	c.hashPins(context.Background(), log, failed)
	if pp := failed[0].Pins[0]; pp.Changed || pp.New != "==1.0.0" || pp.RaisesLower || failed[0].Status != plan.Held ||
		pp.Pin.Skip != "hash-locked: no new hashes for pkg 1.0.4, so the pin stays: no such version" || pp.Reason != "not edited: "+pp.Pin.Skip {
		t.Errorf("1.0.4: %s %+v", failed[0].Status, pp)
	}
}
