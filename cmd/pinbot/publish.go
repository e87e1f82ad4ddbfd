package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	gh "github.com/pinbot-dev/pinbot/bot/publishing/github"
	"github.com/pinbot-dev/pinbot/bot/report"
	"github.com/pinbot-dev/pinbot/bot/verifying"
	"github.com/pinbot-dev/pinbot/bot/verifying/verdicts"
	"github.com/pinbot-dev/pinbot/config"
)

// The two-job layout (docs/security.md): `pinbot check --format json`
// runs the checks, and so each new release's code, in a job that holds no
// secret; `pinbot run --verdicts REPORT` makes the pull requests and the
// message in the job that holds them, planning again from the pin files and
// the package sources and taking only the verdicts from the report
// (bot/verifying/verdicts). This file holds the run command's side of it.

// probeFlagNames are the flags that choose how probes run; with --verdicts
// none runs.
var probeFlagNames = []string{"static", "python", "no-install", "probe-timeout"}

// validateVerdicts refuses probe flags beside --verdicts, which runs no probe.
func validateVerdicts(cmd *cobra.Command, opts *RunOptions) error {
	if opts.Verdicts == "" {
		return nil
	}
	for _, name := range probeFlagNames {
		if cmd.Flags().Changed(name) {
			return &usageError{fmt.Errorf("--%s: --verdicts runs no probe (the check job does); drop one of them", name)}
		}
	}
	return nil
}

// readVerdicts reads the check job's report named by --verdicts.
func readVerdicts(path string) (*verdicts.Verdicts, error) {
	v, err := verdicts.ReadFile(path)
	if err != nil {
		return nil, &usageError{fmt.Errorf("--verdicts: %w", err)}
	}
	return v, nil
}

// warnReleaseCode says, once, that this run is about to run release code
// beside secrets, and how to keep them apart: when a secret is in the
// environment and some package of the run has probes that run Python.
func warnReleaseCode(f *Factory, opts *RunOptions, cfg *config.Config, env runEnv, v *verifying.Verifier) {
	var secrets []string
	for _, s := range []struct{ name, value string }{
		{opts.TokenEnv, env.token}, {appKeyEnv(opts, cfg), env.appKey}, {"SLACK_WEBHOOK_URL", env.webhook},
	} {
		if s.value != "" && !slices.Contains(secrets, s.name) {
			secrets = append(secrets, s.name)
		}
	}
	probed := probedPackages(cfg, opts.Packages)
	if len(secrets) == 0 || len(probed) == 0 || !v.Dynamic() {
		return
	}
	msg := fmt.Sprintf("release code runs beside secrets: the probes of %s import each new release (and run the repository's run: snippets) "+
		"while %s are in this process's environment. pinbot keeps its own environment from them on Linux, but where they can gain root "+
		"(GitHub-hosted runners allow sudo) a hostile release can take the secrets. Split the job: run `pinbot check --format json > report.json` "+
		"where no secret is, then `pinbot run --verdicts report.json` where the secrets are (the Action's mode: check and mode: publish; "+
		"see https://github.com/pinbot-dev/pinbot/blob/main/docs/security.md)", strings.Join(probed, ", "), strings.Join(secrets, ", "))
	f.Log.Warn(msg)
	f.workflow().Annotate(gh.Annotation{Level: "warning", Title: "pinbot: release code runs beside secrets", Text: msg})
}

// appKeyEnv is the variable the GitHub App's key is read from.
func appKeyEnv(opts *RunOptions, cfg *config.Config) string {
	if opts.AppKeyEnv != "" {
		return opts.AppKeyEnv
	}
	return cfg.GitHub.App.KeyEnv()
}

// probedPackages returns the packages of the run (only, else the watched
// ones) that have probes, sorted.
func probedPackages(cfg *config.Config, only []string) []string {
	names := cfg.Watched()
	if len(only) > 0 {
		names = nil
		for _, n := range only {
			names = append(names, config.Key(n))
		}
	}
	var out []string
	for _, n := range names {
		if p := cfg.Packages[n]; p != nil && len(p.Probes) > 0 && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}

// warnUnused names the report's packages this run did not plan: a verdict
// for them chooses nothing.
func warnUnused(f *Factory, v *verdicts.Verdicts, rep *report.Report) {
	var unused []string
	for _, name := range v.Packages() {
		if !slices.ContainsFunc(rep.Packages, func(p report.Package) bool { return p.Name == config.Key(name) }) {
			unused = append(unused, name)
		}
	}
	if len(unused) > 0 {
		f.Log.Warn("the report names packages this run does not plan; their verdicts are ignored", "packages", strings.Join(unused, ", "))
	}
}
