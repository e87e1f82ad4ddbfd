// Command pinbot guards the version caps of fragile dependencies: it finds the
// pins of watched packages, asks the package sources what was released, plans
// the new caps and rewrites the pin files byte-exactly.
//
// Exit codes: 0 success (bumps pending or not); 1 a runtime failure (a source
// unreachable after retries, a file that does not parse); 2 a usage or
// configuration error; 3 a check failed; 4 pinbot scan found nothing to scan.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/pinbot-dev/pinbot/internal/diag"
	"github.com/pinbot-dev/pinbot/internal/escape"
)

// Exit codes, documented in docs/exit-codes.md.
const (
	exitOK      = 0
	exitFailure = 1
	exitUsage   = 2
	exitCheck   = 3
	exitEmpty   = 4
)

func main() {
	// First, before anything can start release code: see harden.
	if err := harden(); err != nil {
		fmt.Fprintf(os.Stderr, "pinbot: warning: could not make the process non-dumpable (%v): processes of this user can read its environment\n", err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], newFactory(os.Stdout, os.Stderr, os.Getenv))
	stop()
	os.Exit(code)
}

// run executes the command line args and returns the exit code.
func run(ctx context.Context, args []string, f *Factory) int {
	root := newRootCmd(f)
	root.SetArgs(args)
	root.SetOut(f.Stdout)
	root.SetErr(f.Stderr)
	err := root.ExecuteContext(ctx)
	return exitCode(err, f.Stderr)
}

// usageError is a bad command line or configuration.
type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

// checkFailedError means a check blocked a bump; the report says which.
// Blocked counts the packages blocked (0 from pinbot scan).
type checkFailedError struct{ Blocked int }

func (checkFailedError) Error() string { return "a check failed" }

// nothingScannedError means pinbot scan read an input that holds no ELF
// shared object: a warning, never a pass; the report says which.
type nothingScannedError struct{}

func (nothingScannedError) Error() string { return "nothing to scan" }

// exitCode maps an error to an exit code, printing it unless it is silent.
func exitCode(err error, stderr io.Writer) int {
	var (
		ue *usageError
		ce checkFailedError
		ne nothingScannedError
	)
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &ce):
		return exitCheck
	case errors.As(err, &ne):
		return exitEmpty
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "pinbot: %s\n", escape.TextLines(err.Error()))
		return exitUsage
	case errors.Is(err, context.Canceled):
		fmt.Fprintln(stderr, "pinbot: interrupted")
		return exitFailure
	}
	if _, ok := diag.As(err); !ok {
		err = fmt.Errorf("pinbot: %w", err)
	}
	// Errors carry names and messages from outside: escaped, line by line.
	fmt.Fprintln(stderr, escape.TextLines(err.Error()))
	return exitFailure
}

func newRootCmd(f *Factory) *cobra.Command {
	root := &cobra.Command{
		Use:           "pinbot",
		Short:         "Guard the version caps of fragile dependencies",
		SilenceUsage:  true,
		SilenceErrors: true,
		Args:          usageArgs(cobra.NoArgs),
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error {
			return f.setupLog()
		},
		RunE: func(cmd *cobra.Command, args []string) error { return cmd.Help() },
		// --version prints what pinbot version does.
		Version: buildID().String(),
	}
	root.SetVersionTemplate("{{.Version}}")
	root.PersistentFlags().StringVar(&f.LogFormat, "log-format", "text", "log format on stderr: text or json")
	root.PersistentFlags().BoolVarP(&f.Verbose, "verbose", "v", false, "log debug detail (every HTTP request)")
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		return &usageError{fmt.Errorf("%w\n\n%s", err, cmd.UsageString())}
	})
	root.AddCommand(newCheckCmd(f, nil), newRunCmd(f, nil), newInitCmd(f, nil), newVersionCmd(f), newScanCmd(f, nil), newUsageCmd(f, nil))
	root.AddCommand(newFleetCmd(f))
	return root
}
