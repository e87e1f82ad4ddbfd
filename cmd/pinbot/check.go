package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/pinbot-dev/pinbot/bot/planning"
	"github.com/pinbot-dev/pinbot/bot/planning/plan"
	"github.com/pinbot-dev/pinbot/bot/publishing"
	"github.com/pinbot-dev/pinbot/bot/publishing/state"
	"github.com/pinbot-dev/pinbot/bot/report"
	"github.com/pinbot-dev/pinbot/internal/escape"
)

// CheckOptions are the flags and dependencies of `pinbot check`.
type CheckOptions struct {
	Factory *Factory
	jobFlags
	Write bool
	// Repository names the repository in the report (default
	// $GITHUB_REPOSITORY).
	Repository string
}

// formats are the report renderers by --format name.
var formats = map[string]func(io.Writer, *report.Report) error{
	"text":     report.Text,
	"json":     report.JSON,
	"markdown": report.Markdown,
}

func newCheckCmd(f *Factory, runF func(context.Context, *CheckOptions) error) *cobra.Command {
	opts := &CheckOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "check",
		Short: "Plan new caps for the watched packages (and apply them with --write)",
		Long: `Check finds the pins of watched packages in the repository's pin files, asks the
package sources for their releases, and plans the new caps. It prints the plan on
stdout; --write applies it to the files. It needs no token.`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := opts.validate(); err != nil {
				return err
			}
			if err := validRepository(opts.Repository); err != nil {
				return err
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return checkRun(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	opts.register(fl, f, "the repository to check", "check only this package (repeatable)")
	fl.BoolVar(&opts.Write, "write", false, "rewrite the pin files with the new caps")
	fl.StringVar(&opts.Repository, "repository", "", "the repository the report names, owner/name (default $GITHUB_REPOSITORY)")
	return cmd
}

func checkRun(ctx context.Context, opts *CheckOptions) error {
	ctx, cancel := opts.deadline(ctx)
	defer cancel()
	f := opts.Factory
	cfg, err := f.loadConfig(opts.Dir, opts.ConfigPath)
	if err != nil {
		return err
	}
	tmp, cleanup, err := runTemp()
	if err != nil {
		return err
	}
	defer cleanup()
	defer f.pruneCache()
	checker, _ := f.newChecker(opts.Dir, cfg, opts.Probes, tmp)
	rep, err := checker.Check(ctx, planning.CheckOptions{Packages: opts.Packages, Write: opts.Write})
	var unknown *planning.UnknownPackageError
	switch {
	case errors.As(err, &unknown):
		return &usageError{fmt.Errorf("--package %w", err)}
	case err != nil && rep == nil:
		return err
	}
	rep.Repository = cmp.Or(opts.Repository, f.Getenv("GITHUB_REPOSITORY"))
	f.nightlyWindows(rep)
	if err := f.render(opts.Format)(f.Stdout, rep); err != nil {
		return err
	}
	if err := cutShort(err, "the report is what was done by then; nothing was written"); err != nil {
		return err
	}
	if opts.Format == "text" {
		nextSteps(f.Stdout, rep, checkMoves(rep, opts.Write))
	}
	return outcome(rep)
}

// nightlyWindows gives the report's nightlies the window pinbot run
// remembers for the repository (publishing.NightlyWindows): the state file
// in the cache directory, read and never written, its newest record of the
// repository whatever the base branch. Without a repository, a cache or a
// record, a nightly's window is what this check alone saw.
func (f *Factory) nightlyWindows(rep *report.Report) {
	dir := f.cacheDir()
	if dir == "" || rep.Repository == "" {
		return
	}
	st, err := state.Open(filepath.Join(dir, stateFile))
	if err != nil {
		f.Log.Debug("no memory of the nightlies to read", "err", err)
		return
	}
	if sc, ok := st.Latest(rep.Repository); ok {
		publishing.NightlyWindows(rep, sc.Nightlies, nil)
	}
}

// outcome turns a report into the run's error: a runtime failure (exit 1) when a
// file or a package failed, else a check failure (exit 3) when a bump is blocked.
func outcome(rep *report.Report) error {
	var failures []string
	for _, e := range rep.Errors {
		failures = append(failures, escape.Text(e))
	}
	blocked := 0
	for _, p := range rep.Packages {
		switch plan.Status(p.Status) {
		case plan.Error:
			failures = append(failures, escape.Text(p.Name+": "+strings.ReplaceAll(p.Error, "\n", "; ")))
		case plan.Blocked:
			blocked++
		}
	}
	switch {
	case len(failures) > 0:
		return fmt.Errorf("%d failure(s):\n  %s", len(failures), strings.Join(failures, "\n  "))
	case blocked > 0:
		return checkFailedError{Blocked: blocked}
	}
	return nil
}
