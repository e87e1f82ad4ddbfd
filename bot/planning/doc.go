// Package planning is the room of bot that plans one repository: Check finds
// the pins of the watched packages in the pin files, asks the release
// sources, plans the new caps (bot/planning/plan; groups, the cost of a cap,
// solve), has the verifier judge the candidates it chose, and writes the
// files (only through pins.Apply). Its result is the report (bot/report)
// that publishing turns into pull requests.
//
// It owns every decision about pins and plans: which releases are
// candidates, which is the baseline, what a verdict does to a plan. It may
// import bot/verifying (through the Verifier interface, and its release
// helpers) and bot/report, never bot/publishing, and it reads no secret.
package planning
