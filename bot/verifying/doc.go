// Package verifying is the room of bot that judges releases: given a
// package's candidates and baseline (a Request, chosen by bot/planning), it
// runs the package's checks (internal-API probes, checks/probe; symbol
// scans, checks/symbols) on the artifacts those releases install (wheels or
// conda packages, fetched into a verified store), or takes the verdicts a
// check job recorded (Recorded, bot/verifying/verdicts), and answers with
// the checks and a verdict per candidate (a Result).
//
// It knows releases and checks, never pins, plans, pull requests or Slack:
// it may not import bot/planning or bot/publishing, and it is handed no
// secret (release code runs under it).
package verifying
