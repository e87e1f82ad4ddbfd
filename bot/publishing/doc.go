// Package publishing is the room of bot that tells the world: Run checks
// the repository (bot/planning), then opens or updates one pull request per
// package or group whose caps move, sends one Slack message when there is
// news, keeps the dashboard issue and remembers what it alerted
// (bot/publishing/github, slack, dashboard, state, upstream).
//
// It reads planning's result and never plans or judges itself: the pull
// requests carry the files planning rewrites (Checker.Rewrite). It may import
// bot/planning and bot/report; neither of the other rooms imports it, and
// only it holds the GitHub token and the Slack webhook.
package publishing
