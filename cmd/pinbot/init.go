package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/pinbot-dev/pinbot/config"
	"github.com/pinbot-dev/pinbot/internal/diag"
	"github.com/pinbot-dev/pinbot/internal/escape"
	"github.com/pinbot-dev/pinbot/internal/repofs"
	"github.com/pinbot-dev/pinbot/pins"
	"github.com/pinbot-dev/pinbot/pins/all"
)

// InitOptions are the flags and dependencies of `pinbot init`.
type InitOptions struct {
	Factory *Factory

	Dir      string
	Packages []string
	Force    bool
}

func newInitCmd(f *Factory, runF func(context.Context, *InitOptions) error) *cobra.Command {
	opts := &InitOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "init",
		Short: "Write a commented .pinbot.yml for the repository",
		Long: `Init writes .pinbot.yml at the root of --dir: the watched packages (the defaults,
or each --package) with their settings spelled out and commented, and the pin files
pinbot finds there with the watched pins in each. It refuses to replace an existing
configuration unless --force is given.`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkDir(opts.Dir); err != nil {
				return err
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return initRun(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Dir, "dir", ".", "the repository to configure")
	fl.StringSliceVar(&opts.Packages, "package", nil, "watch this package (repeatable; default: "+strings.Join(config.DefaultPackages, ", ")+")")
	fl.BoolVar(&opts.Force, "force", false, "replace an existing configuration file")
	return cmd
}

func initRun(ctx context.Context, opts *InitOptions) error {
	repo, err := repofs.Open(opts.Dir)
	if err != nil {
		return err
	}
	defer repo.Close()
	if !opts.Force {
		existing, err := config.Find(opts.Dir)
		if err != nil {
			return err
		}
		if existing != "" {
			rel, _ := filepath.Rel(opts.Dir, existing)
			return &usageError{fmt.Errorf("%s exists; pinbot init does not replace it without --force", filepath.ToSlash(rel))}
		}
	}
	names := config.DefaultPackages
	if len(opts.Packages) > 0 {
		names = nil
		for _, n := range opts.Packages {
			if n = strings.TrimSpace(n); n == "" {
				return &usageError{errors.New("--package: empty name")}
			}
			n = config.Key(n) // a PyPI or conda name normalised; a Go module path as written
			if !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
	}
	found, err := pins.DiscoverFS(repo.FS(), all.Formats())
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	data := initFile(repo, names, found)
	if _, err := config.Parse(".pinbot.yml", data); err != nil {
		return fmt.Errorf("internal error: the written configuration does not parse: %w", err)
	}
	path := filepath.Join(opts.Dir, ".pinbot.yml")
	if err := repo.WriteFile(".pinbot.yml", data, 0o644); err != nil {
		return err
	}
	fmt.Fprintf(opts.Factory.Stdout, "wrote %s: %d watched package(s), %d pin file(s) found\n", path, len(names), len(found))
	return nil
}

// initFile renders the configuration: every package with its settings at
// their defaults, commented, and the pin files found, as a commented list.
func initFile(repo *repofs.Root, names []string, found []pins.Found) []byte {
	where := map[string][]string{}  // package -> file:line
	inFile := map[string][]string{} // file -> watched packages
	problems := map[string]string{} // file -> why it could not be read
	partly := map[string]string{}   // file -> the entries that could not be read
	for _, f := range found {
		b, err := repo.ReadFile(f.Path)
		var ps []pins.Pin
		var skipped diag.List
		if err == nil {
			ps, skipped, err = pins.ReadFile(f.Format, f.Path, b)
		}
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			problems[f.Path] = strings.SplitN(err.Error(), "\n", 2)[0]
		} else if len(skipped) > 0 {
			partly[f.Path] = "skipped " + skipped[0].Error()
			if len(skipped) > 1 {
				partly[f.Path] += fmt.Sprintf(" and %d more", len(skipped)-1)
			}
		}
		for _, p := range ps {
			if !slices.Contains(names, p.Package) {
				continue
			}
			where[p.Package] = append(where[p.Package], fmt.Sprintf("%s:%d", escape.Text(p.File), p.Line))
			if !slices.Contains(inFile[f.Path], p.Package) {
				inFile[f.Path] = append(inFile[f.Path], p.Package)
			}
		}
	}
	var b bytes.Buffer
	b.WriteString(`# pinbot configuration, written by "pinbot init".
# Every key is optional; see the Configuration section of pinbot's README.

# sources:
#   pypi:
#     url: https://pypi.org   # any index serving PyPI's JSON API

packages:
`)
	for _, n := range names {
		if locs := where[n]; len(locs) > 0 {
			fmt.Fprintf(&b, "  # %s is pinned at %s\n", n, strings.Join(locs, ", "))
		} else {
			fmt.Fprintf(&b, "  # %s: no pins found yet\n", n)
		}
		fmt.Fprintf(&b, "  %s:\n", n)
		b.WriteString(`    cap: inclusive       # inclusive (<=NEWEST), exclusive (<NEXT BOUNDARY) or preserve (keep the operator)
    add-cap: true        # give a pin without an upper bound one
    yanked: report       # a cap naming a yanked release: report it, or follow (lower it)
    unify: false         # bring every pin of the package to one range across files
    prereleases: false   # let pre-releases be targets
`)
	}
	b.WriteString("\n")
	if len(found) == 0 {
		b.WriteString("# No pin files were found. pinbot discovers them on every run.\n")
		return b.Bytes()
	}
	b.WriteString(`# The pin files found now. pinbot discovers pin files on every run; uncomment
# "files" to read only the ones listed.
# files:
`)
	for _, f := range found {
		note := "no watched pins"
		switch {
		case problems[f.Path] != "":
			note = "does not parse: " + problems[f.Path]
		case len(inFile[f.Path]) > 0:
			note = strings.Join(inFile[f.Path], ", ")
		}
		if partly[f.Path] != "" {
			note += "; " + partly[f.Path]
		}
		// A file's name and its error are escaped: a line break in either
		// would end the comment and write configuration.
		fmt.Fprintf(&b, "#   - %s   # %s (%s)\n", escape.Text(f.Path), escape.Text(note), f.Format.Name())
	}
	return b.Bytes()
}
