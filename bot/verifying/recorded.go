package verifying

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/pinbot-dev/pinbot/bot/report"
	"github.com/pinbot-dev/pinbot/sources"
)

// A Recorded source answers for a candidate's checks without running them:
// `pinbot run --verdicts` takes the verdicts of a check job's report (see
// bot/verifying/verdicts) so that the job holding the secrets runs no release code.
// Everything else (the plan, the candidates, what is written) the run computes
// itself from the pin files and the package sources; a recorded verdict only
// says whether a candidate the run chose itself is blocked.
type Recorded interface {
	// Verdict returns the recorded checks and verdict of pkg's candidate
	// version judged against baseline ("" for none). When the report holds
	// no such verdict the error wraps ErrNotJudged: the candidate was not
	// checked, and the package is not bumped on trust.
	Verdict(pkg, baseline, version string) (checks []report.Check, blocked bool, err error)
}

// ErrNotJudged is a candidate the recorded verdicts say nothing of. For the
// target it is the package's error; for an older candidate, tried after the
// target was blocked, it means the check job tried no further (it ran with
// --no-install, say), and the caps stay as they are.
var ErrNotJudged = errors.New("not checked")

// judge decides one candidate: from the recorded verdicts when there are
// some (the report's early warning for a pre-release, its nightly for a
// nightly build), else by running its checks.
func (v *Verifier) judge(ctx context.Context, req *Request, cand sources.Release) ([]report.Check, bool, error) {
	switch {
	case v.Recorded == nil:
		return v.run(ctx, req, cand)
	case req.Nightly:
		if nr, ok := v.Recorded.(NightlyRecorded); ok {
			return nr.NightlyVerdict(req.Package, versionOf(req.Baseline), cand.Version, req.Uploaded)
		}
		return nil, false, fmt.Errorf("the recorded verdicts hold no nightlies: %w", ErrNotJudged)
	case !req.Prerelease:
		return v.Recorded.Verdict(req.Package, versionOf(req.Baseline), cand.Version)
	}
	if pr, ok := v.Recorded.(PrereleaseRecorded); ok {
		return pr.PrereleaseVerdict(req.Package, versionOf(req.Baseline), cand.Version)
	}
	return nil, false, fmt.Errorf("the recorded verdicts hold no early warnings: %w", ErrNotJudged)
}

// Dynamic reports whether probes run Python, and so each release's code
// (and a repository's run: snippets): --no-install or an interpreter given or
// found on PATH, unless --static. Recorded verdicts run nothing.
func (v *Verifier) Dynamic() bool {
	return v.Recorded == nil && !v.Static && (v.NoInstall || v.Python != "" || onPath("python3", "python"))
}

// A PrereleaseRecorded is a Recorded source that also holds the early
// warnings of the check job's report (bot/verifying/verdicts), so that
// pinbot run --verdicts reports them without running release code.
type PrereleaseRecorded interface {
	// PrereleaseVerdict is Verdict for the pre-release the report's early
	// warning judged.
	PrereleaseVerdict(pkg, baseline, version string) (checks []report.Check, blocked bool, err error)
}

// A NightlyRecorded is a Recorded source that also holds the nightlies of
// the check job's report (bot/verifying/verdicts), so that pinbot run
// --verdicts reports them without running release code.
type NightlyRecorded interface {
	// NightlyVerdict is Verdict for the nightly build the report judged:
	// the same version, uploaded at the same time (zero: unknown), against
	// the same baseline.
	NightlyVerdict(pkg, baseline, version string, uploaded time.Time) (checks []report.Check, blocked bool, err error)
}
