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

	"github.com/pinbot-dev/pinbot/checks/probe"
	"github.com/pinbot-dev/pinbot/checks/symbols"
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
		Long: `Init writes .pinbot.yml at the root of --dir: the watched packages (the defaults and
the well-known fragile packages the repository pins, or each --package) with their
settings spelled out and commented, the ready-made checks (presets) of those that are
pinned, commented out, and the pin files pinbot finds there with the watched pins in
each. It refuses to replace an existing configuration (under any of the names pinbot
reads) unless --force is given, and then replaces that same file.`,
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
	// One repository, one configuration: init writes the file pinbot
	// reads, never a second one beside it.
	existing, err := config.FindAllIn(repo)
	if err != nil {
		return err
	}
	target := ".pinbot.yml"
	if len(existing) > 0 {
		if !opts.Force {
			return &usageError{fmt.Errorf("%s %s; pinbot init does not replace it without --force", andList(existing), plural(len(existing), "exists", "exist"))}
		}
		target = existing[0]
	}
	var names []string
	for _, n := range opts.Packages {
		if n = strings.TrimSpace(n); n == "" {
			return &usageError{errors.New("--package: empty name")}
		}
		n = config.Key(n) // a PyPI or conda name normalised; a Go module path as written
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	found, err := pins.DiscoverFS(repo.FS(), all.Formats())
	if err != nil {
		return err
	}
	found = pins.Once(found)
	if err := ctx.Err(); err != nil {
		return err
	}
	read := readPins(repo, found)
	if len(names) == 0 {
		// The defaults, and every well-known fragile package the
		// repository pins: those pinbot has ready-made checks for.
		names = slices.Clone(config.DefaultPackages)
		for _, pkg := range read.pinned {
			if p, s := presetsFor(pkg); (len(p) > 0 || len(s) > 0) && !slices.Contains(names, pkg) {
				names = append(names, pkg)
			}
		}
	}
	data := initFile(read, names, found)
	if _, err := config.Parse(target, data); err != nil {
		return fmt.Errorf("internal error: the written configuration does not parse: %w", err)
	}
	if err := repo.WriteFile(target, data, 0o644); err != nil {
		return err
	}
	path := filepath.Join(opts.Dir, filepath.FromSlash(target))
	fmt.Fprintf(opts.Factory.Stdout, "wrote %s: %d watched package(s), %d pin file(s) found\n", path, len(names), len(found))
	if len(existing) > 1 {
		fmt.Fprintf(opts.Factory.Stdout, "note: %s also %s; pinbot reads %s only: remove the others\n", andList(existing[1:]), plural(len(existing)-1, "exists", "exist"), target)
	}
	return nil
}

// andList joins names as prose: "a", "a and b", "a, b and c".
func andList(names []string) string {
	if len(names) <= 1 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// countWord spells a small count: "two configuration files".
func countWord(n int) string {
	if words := []string{"no", "one", "two", "three", "four"}; n < len(words) {
		return words[n]
	}
	return fmt.Sprint(n)
}

// plural is one when n is 1, else many.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// presetsFor returns the built-in checks made for pkg (a normalised name):
// internal-API probe presets and symbol-scan presets.
func presetsFor(pkg string) ([]probe.Preset, []symbols.Preset) {
	var probes []probe.Preset
	for _, name := range probe.PresetNames() {
		if p, _ := probe.LookupPreset(name); p.Package == pkg {
			probes = append(probes, p)
		}
	}
	var syms []symbols.Preset
	for _, p := range symbols.Presets {
		if p.Package == pkg {
			syms = append(syms, p)
		}
	}
	slices.SortFunc(syms, func(a, b symbols.Preset) int { return strings.Compare(a.Name, b.Name) })
	return probes, syms
}

// pinsRead is what init learnt from the pin files found.
type pinsRead struct {
	pinned   []string            // every package pinned, in the order first seen
	where    map[string][]string // package -> file:line
	inFile   map[string][]string // file -> packages
	problems map[string]string   // file -> why it could not be read
	partly   map[string]string   // file -> the entries that could not be read
}

// readPins reads the pins of every file found.
func readPins(repo *repofs.Root, found []pins.Found) pinsRead {
	r := pinsRead{where: map[string][]string{}, inFile: map[string][]string{}, problems: map[string]string{}, partly: map[string]string{}}
	for _, f := range found {
		b, err := repo.ReadFile(f.Path)
		var ps []pins.Pin
		var skipped diag.List
		if err == nil {
			ps, skipped, err = pins.ReadFile(f.Format, f.Path, b)
		}
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			r.problems[f.Path] = strings.SplitN(err.Error(), "\n", 2)[0]
		} else if len(skipped) > 0 {
			r.partly[f.Path] = "skipped " + skipped[0].Error()
			if len(skipped) > 1 {
				r.partly[f.Path] += fmt.Sprintf(" and %d more", len(skipped)-1)
			}
		}
		for _, p := range ps {
			if !slices.Contains(r.pinned, p.Package) {
				r.pinned = append(r.pinned, p.Package)
			}
			r.where[p.Package] = append(r.where[p.Package], fmt.Sprintf("%s:%d", escape.Text(p.File), p.Line))
			if !slices.Contains(r.inFile[f.Path], p.Package) {
				r.inFile[f.Path] = append(r.inFile[f.Path], p.Package)
			}
		}
	}
	return r
}

// initFile renders the configuration: every package with its settings at
// their defaults, and its ready-made checks when it is pinned, commented,
// and the pin files found, as a commented list.
func initFile(read pinsRead, names []string, found []pins.Found) []byte {
	where := read.where
	inFile := map[string][]string{} // file -> watched packages
	for file, pkgs := range read.inFile {
		for _, p := range pkgs {
			if slices.Contains(names, p) {
				inFile[file] = append(inFile[file], p)
			}
		}
	}
	problems, partly := read.problems, read.partly
	var b bytes.Buffer
	b.WriteString(`# yaml-language-server: $schema=` + config.SchemaURL + `
# pinbot configuration, written by "pinbot init".
# Every key is optional; see https://github.com/pinbot-dev/pinbot/blob/main/docs/configuration.md

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
		if len(where[n]) > 0 {
			writePresets(&b, n)
		}
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

// writePresets writes the ready-made checks for pkg, commented out: removing
// the "# " of the key lines turns them on.
func writePresets(b *bytes.Buffer, pkg string) {
	probes, syms := presetsFor(pkg)
	if len(probes) == 0 && len(syms) == 0 {
		return
	}
	fmt.Fprintf(b, "    # Ready-made checks for %s: uncomment to run them before a cap moves.\n", pkg)
	if len(probes) > 0 {
		for _, p := range probes {
			writeComment(b, "    #   ", p.Name+": "+p.Doc)
		}
		b.WriteString("    # probes:\n")
		for _, p := range probes {
			fmt.Fprintf(b, "    #   - preset: %s\n", p.Name)
		}
	}
	// symbols takes one preset.
	if len(syms) > 0 {
		writeComment(b, "    #   ", syms[0].Name+": "+syms[0].Description)
		fmt.Fprintf(b, "    # symbols:\n    #   preset: %s\n", syms[0].Name)
	}
}

// writeComment writes text as comment lines starting with prefix, wrapped
// at 100 columns.
func writeComment(b *bytes.Buffer, prefix, text string) {
	line := prefix
	for _, w := range strings.Fields(text) {
		if len(line) > len(prefix) && len(line)+1+len(w) > 100 {
			b.WriteString(line + "\n")
			line = prefix + "  "
		} else if len(line) > len(prefix) {
			line += " "
		}
		line += w
	}
	b.WriteString(line + "\n")
}
