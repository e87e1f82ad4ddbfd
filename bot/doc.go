// Package bot is pinbot's work on one repository, in three rooms whose
// imports run one way (ARCHITECTURE.md draws the map):
//
//   - bot/planning finds the pins of the watched packages, looks up their
//     releases, plans the new caps (with bot/planning/plan, groups, holds and
//     earlywarn) and rewrites the pin files. It chooses each package's
//     candidates and baseline and asks the verifier to judge them, through
//     its small Verifier interface.
//   - bot/verifying judges candidates against baselines with the package's
//     checks (checks/probe, checks/symbols), or takes a check job's recorded
//     verdicts (bot/verifying/verdicts). It knows releases and checks, never
//     plans, pull requests or Slack: it imports neither other room.
//   - bot/publishing turns planning's report into pull requests, the
//     dashboard issue, Slack messages and the state kept between runs (with
//     bot/publishing/github, slack, dashboard, state and upstream). Neither
//     other room imports it.
//
// bot/report, the report the three speak, is shared and imports no room.
// This package holds no code; internal/layout's tests hold these rules.
package bot
