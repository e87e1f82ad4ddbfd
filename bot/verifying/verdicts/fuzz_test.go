package verdicts_test

import (
	"strings"
	"testing"
	"time"

	"github.com/pinbot-dev/pinbot/bot/verifying/verdicts"
)

// FuzzParse: any bytes either fail to parse or give verdicts whose every
// package answers Verdict without panicking; nothing is trusted that the
// validation did not check.
func FuzzParse(f *testing.F) {
	f.Add([]byte(good))
	f.Add([]byte(`{"schema": 1, "packages": [{"name": "numba", "verdicts": [{"version": "1", "blocked": true}, {"version": "0"}]}]}`))
	f.Add([]byte(`{"schema": 1, "packages": [`))
	f.Add([]byte(withPrerelease))
	f.Add([]byte(withNightly))
	f.Add([]byte(`{"schema": 1, "packages": [], "repository": "lab/a"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := verdicts.Parse("r.json", data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "r.json") {
				t.Errorf("error %q does not name the file", err)
			}
			return
		}
		v.For("lab/a")
		for _, name := range v.Packages() {
			v.Verdict(name, "", "0")
			v.PrereleaseVerdict(name, "", "0rc1")
			v.NightlyVerdict(name, "", "0.dev1", time.Time{})
		}
	})
}
