package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/pinbot-dev/pinbot/checks/symbols"
)

// ScanOptions are the flags of `pinbot scan`.
type ScanOptions struct {
	Factory *Factory

	Paths    []string
	Forbid   []string
	Against  []string
	Host     []string
	Preset   string
	Format   string
	SizeOnly bool
}

func newScanCmd(f *Factory, runF func(context.Context, *ScanOptions) error) *cobra.Command {
	opts := &ScanOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "scan PATH...",
		Short: "Scan archives, shared objects or directories for exported symbols that can clash",
		Long: `Scan reads the ELF shared objects in the given archives (wheels and zips, conda packages
.conda and .tar.bz2, tarballs .tar.gz, .tgz, .tar.xz, .tar.zst), .so files and directories and
reports exported symbols matching --forbid patterns, symbols also exported by an --against or
--host library, and which of those have different bodies. It exits 3 when it finds a problem
(a forbidden export or a clash with different bodies), 1 when an input cannot be read, 4 when
an input holds no ELF shared object (nothing was checked there).`,
		Args: usageArgs(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.Format != "text" && opts.Format != "json" {
				return &usageError{fmt.Errorf("--format: expected text or json, found %q", opts.Format)}
			}
			opts.Paths = args
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return scanRun(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.StringArrayVar(&opts.Forbid, "forbid", nil, "forbidden exports: a demangled glob (google::protobuf::*) or a mangled prefix (_ZN6google8protobuf); repeatable")
	fl.StringArrayVar(&opts.Against, "against", nil, "another package's archive, .so or directory whose exports may clash; repeatable")
	fl.StringArrayVar(&opts.Host, "host", nil, "the project's own library, compared like --against; repeatable")
	fl.StringVar(&opts.Preset, "preset", "", "add a built-in preset's patterns and packages (tensorflow-protobuf)")
	fl.StringVar(&opts.Format, "format", "text", "report format: text or json")
	fl.BoolVar(&opts.SizeOnly, "size-only", false, "compare bodies by st_size only (faster)")
	return cmd
}

// scanGCPercent is the garbage collector's target percentage during
// pinbot scan (the default is 100).
const scanGCPercent = 400

func scanRun(ctx context.Context, opts *ScanOptions) error {
	spec := symbols.Spec{Preset: opts.Preset, Forbid: opts.Forbid}
	if err := spec.Validate(); err != nil {
		return &usageError{err}
	}
	spec, err := spec.Resolve()
	if err != nil {
		return &usageError{err}
	}
	if opts.Factory.Getenv("GOGC") == "" {
		// Most of what a scan allocates (names, tables, tokens, caches)
		// lives until the scan's end, so most collections find little to
		// free: collecting a quarter as often as Go's default saves about
		// 4 % of a scan's wall time for 2 MB more peak memory on Debian's
		// 35 libraries (docs/performance.md). GOGC, when set, decides.
		defer debug.SetGCPercent(debug.SetGCPercent(scanGCPercent))
	}
	r, err := symbols.Scan(ctx, opts.Paths, symbols.Options{
		Forbid: spec.Forbid, Against: opts.Against, Host: opts.Host, SizeOnly: opts.SizeOnly,
	})
	if err != nil {
		return err
	}
	write := symbols.WriteText
	if opts.Format == "json" {
		write = symbols.WriteJSON
	}
	// The text report is written line by line: one write to the output,
	// not hundreds (a pipe or a terminal pays for each).
	out := bufio.NewWriterSize(opts.Factory.Stdout, 64<<10)
	if err := write(out, r); err != nil {
		return err
	}
	if err := out.Flush(); err != nil {
		return err
	}
	return scanOutcome(opts.Factory.Stderr, r)
}

// scanOutcome maps a scan to the exit codes: unreadable inputs and libraries
// of any role are failures (1), problems found are a failed check (3), an
// input that holds no ELF shared object (a pure-Python wheel, a conda
// metapackage) is a warning (4): nothing was checked there.
func scanOutcome(stderr io.Writer, r *symbols.Result) error {
	unreadable, found := len(r.Unreadable()), 0
	for _, p := range symbols.Problems(r) {
		if p.Kind != "error" {
			found++
		}
	}
	switch {
	case unreadable > 0:
		return fmt.Errorf("%d input(s) could not be read", unreadable)
	case found > 0:
		fmt.Fprintf(stderr, "pinbot: %d problem(s) found\n", found)
		return checkFailedError{}
	case len(r.Warnings) > 0 || r.Targets() == 0:
		n := max(len(r.Warnings), 1)
		fmt.Fprintf(stderr, "pinbot: warning: %d input(s) hold no ELF shared object: nothing was checked there, which is not a pass\n", n)
		return nothingScannedError{}
	}
	return nil
}
