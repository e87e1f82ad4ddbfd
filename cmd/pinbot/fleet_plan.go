package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	gh "github.com/pinbot-dev/pinbot/bot/publishing/github"
	"github.com/pinbot-dev/pinbot/bot/report"
	"github.com/pinbot-dev/pinbot/config"
	"github.com/pinbot-dev/pinbot/fleet"
)

// FleetPlanOptions are the flags and dependencies of `pinbot fleet plan`.
type FleetPlanOptions struct {
	Factory *Factory
	Owner   string
	Filter  fleet.Filter
	MaxJobs int
	Auth    ghAuth
}

func newFleetPlanCmd(f *Factory, runF func(context.Context, *FleetPlanOptions) error) *cobra.Command {
	opts := &FleetPlanOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "plan",
		Short: "List an owner's repositories to guard and print a GitHub Actions matrix of batches",
		Long: `Plan lists the repositories of --owner (an organisation or a user; with --app-id,
the App installation's), skips archived ones and forks (unless --forks), keeps
those with one of the --topic topics and the --include globs but not the
--exclude ones, and prints {"include":[{"batch":1,"repositories":"OWNER/a
OWNER/b","names":"a,b"},...]}: at most --max-jobs batches whose sizes differ by
at most one. With GITHUB_OUTPUT set, it writes matrix=, count= and cache-key=
there.

With --cache-dir DIR, it also looks up the releases of the packages --defaults
watches and downloads the artifacts their checks read for each target release
into DIR, so that jobs using DIR as PINBOT_CACHE_DIR download none of them
again.`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			switch {
			case !report.ValidOwner(opts.Owner):
				return &usageError{fmt.Errorf("--owner: expected an organisation or user name, found %q", opts.Owner)}
			case opts.MaxJobs < 1 || opts.MaxJobs > fleet.MaxJobs:
				return &usageError{fmt.Errorf("--max-jobs: expected 1 to %d (a matrix's limit), found %d", fleet.MaxJobs, opts.MaxJobs)}
			}
			if err := opts.Filter.Validate(); err != nil {
				return &usageError{fmt.Errorf("--include/--exclude: %w", err)}
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return fleetPlanRun(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Owner, "owner", "", "the organisation or user whose repositories to guard (required)")
	fl.StringArrayVar(&opts.Filter.Topics, "topic", nil, "keep only repositories with this topic (repeatable: any of them)")
	fl.StringArrayVar(&opts.Filter.Include, "include", nil, "keep only repositories whose name matches this glob (repeatable)")
	fl.StringArrayVar(&opts.Filter.Exclude, "exclude", nil, "skip repositories whose name matches this glob (repeatable)")
	fl.BoolVar(&opts.Filter.Forks, "forks", false, "guard forks too")
	fl.IntVar(&opts.MaxJobs, "max-jobs", fleet.MaxJobs, "the most batches (a matrix runs at most 256 jobs)")
	registerDefaults(fl, f)
	fl.StringVar(&f.CacheDir, "cache-dir", "", "download the artifacts the defaults' checks read into this directory, in pinbot's cache layout")
	opts.Auth.register(fl, true)
	return cmd
}

func fleetPlanRun(ctx context.Context, opts *FleetPlanOptions) error {
	f := opts.Factory
	// The defaults are read first: a bad file stops the plan before any
	// request.
	tmp, cleanup, err := runTemp()
	if err != nil {
		return err
	}
	defer cleanup()
	cfg, err := f.loadConfig(tmp, "")
	if err != nil {
		return err
	}
	var counter gh.Counter
	tokens, err := opts.Auth.tokens(ctx, f, opts.Owner, &counter)
	if errors.Is(err, gh.ErrNoInstallation) {
		return &usageError{fmt.Errorf("--owner %s: %w", opts.Owner, err)}
	}
	if err != nil {
		return err
	}
	client, err := gh.New(gh.Options{APIURL: f.Getenv("GITHUB_API_URL"), Tokens: tokens, HTTP: f.HTTPClient(), Clock: runHooks.clock,
		Counter: &counter, Log: f.Log})
	if err != nil {
		return &usageError{err}
	}
	var repos []gh.Repository
	if opts.Auth.AppID != 0 {
		// An installation is one account's; Select skips any other's.
		if repos, err = client.InstallationRepositories(ctx); err != nil {
			return err
		}
	} else if repos, err = client.Repositories(ctx, opts.Owner); errors.Is(err, gh.ErrNoOwner) {
		return &usageError{fmt.Errorf("--owner: %w", err)}
	} else if err != nil {
		return err
	}
	names, skipped := fleet.Select(opts.Owner, repos, opts.Filter)
	for _, w := range skipped {
		f.Log.Warn(w)
	}
	matrix := fleet.NewMatrix(fleet.Batch(names, opts.MaxJobs))
	f.Log.Info("planned the fleet", "owner", opts.Owner, "listed", len(repos), "guarded", len(names), "batches", len(matrix.Include),
		"github_requests", counter.N())
	// Checked before the prefetch, with a cache key as long as any.
	outputs := [][2]string{{"matrix", matrix.JSON()}, {"count", strconv.Itoa(len(names))}, {"cache-key", cacheKey([]string{""})}}
	if n := gh.OutputsSize(outputs); n > gh.MaxJobOutputs {
		return fmt.Errorf("the matrix of %d repositories is %d bytes as GitHub counts a job's outputs (UTF-16), more than the 1 MB GitHub allows a job's outputs: "+
			"guard fewer repositories per workflow (--topic, --include or --exclude), and split the fleet over several workflows", len(names), n)
	}
	if f.CacheDir != "" {
		outputs[2][1] = prefetch(ctx, f, cfg, tmp)
	} else {
		outputs[2][1] = cacheKey(nil)
	}
	if _, err := fmt.Fprintln(f.Stdout, outputs[0][1]); err != nil {
		return err
	}
	if out := f.Getenv("GITHUB_OUTPUT"); out != "" {
		return gh.SetOutputs(out, outputs)
	}
	return nil
}

// cacheKey names the prefetched files at paths: pinbot-fleet-none for
// none, else pinbot-fleet- and 16 hex digits of their hash.
func cacheKey(paths []string) string {
	if len(paths) == 0 {
		return "pinbot-fleet-none"
	}
	paths = slices.Sorted(slices.Values(paths))
	sum := sha256.Sum256([]byte(strings.Join(paths, "\n")))
	return "pinbot-fleet-" + hex.EncodeToString(sum[:])[:16]
}

// prefetch downloads into the cache directory what the checks of the
// defaults' packages read for their targets, and returns a cache key that
// names what it holds. A failure is a warning: the jobs download what is
// missing themselves.
func prefetch(ctx context.Context, f *Factory, cfg *config.Config, tmp string) string {
	checker, _ := f.newChecker(tmp, cfg, probeFlags{}, tmp)
	got, err := checker.Prefetch(ctx)
	if err != nil {
		msg := "prefetching the checks' artifacts failed; the jobs will download what is missing: " + err.Error()
		f.Log.Warn(msg)
		f.workflow().Annotate(gh.Annotation{Level: "warning", Title: "pinbot fleet plan", Text: msg})
	}
	var paths []string
	for _, p := range got {
		f.Log.Info("prefetched", "package", p.Package, "version", p.Version, "file", p.File)
		paths = append(paths, p.Path)
	}
	return cacheKey(paths)
}
