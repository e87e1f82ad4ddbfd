package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
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
	"github.com/pinbot-dev/pinbot/sources/conda"
	"github.com/pinbot-dev/pinbot/versions"
	schemes "github.com/pinbot-dev/pinbot/versions/all"
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
		Long: `Init writes .pinbot.yml at the root of --dir: the watched packages (the fragile
packages the repository pins, or each --package) with their settings spelled out and
commented, add-cap off for a package none of whose pins has a cap, the conda channels
the pin files name, the ready-made checks (presets) of the packages pinned, commented
out, and the pin files pinbot finds there with the watched pins in each. It refuses to
replace an existing configuration (under any of the names pinbot reads) unless --force
is given, and then replaces that same file.`,
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
	fl.StringSliceVar(&opts.Packages, "package", nil, "watch this package (repeatable; default: the fragile packages the repository pins, else "+strings.Join(config.DefaultPackages, ", ")+")")
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
		// What the repository pins of the packages pinbot knows to be
		// fragile, in the list's order; with none, the defaults, which a
		// configuration without packages watches anyway.
		for _, pkg := range config.Fragile {
			if slices.Contains(read.pinned, pkg) {
				names = append(names, pkg)
			}
		}
		if len(names) == 0 {
			names = slices.Clone(config.DefaultPackages)
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
	// capped and uncapped are, by package, the places of its pins pinbot
	// edits that have a cap (or whose constraint it cannot bound, which
	// is no sign of a choice) and of those that have none.
	capped, uncapped map[string][]string
	// channels are the conda channels the files name, in the order first
	// named, and the files naming each.
	channels []string
	namedBy  map[string][]string
}

// readPins reads the pins of every file found, and the channels they name.
func readPins(repo *repofs.Root, found []pins.Found) pinsRead {
	r := pinsRead{where: map[string][]string{}, inFile: map[string][]string{}, problems: map[string]string{}, partly: map[string]string{},
		capped: map[string][]string{}, uncapped: map[string][]string{}, namedBy: map[string][]string{}}
	ss := schemes.Schemes()
	for _, f := range found {
		b, err := repo.ReadFile(f.Path)
		var ps []pins.Pin
		var skipped diag.List
		if err == nil {
			ps, skipped, err = pins.ReadFile(f.Format, f.Path, b)
		}
		if cn, ok := f.Format.(pins.ChannelNamer); ok && err == nil {
			chs, _ := cn.Channels(f.Path, b) // a file that does not parse has no pins either
			r.named(f.Path, chs...)
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
			p.Package = config.Key(p.Package)
			if !slices.Contains(r.pinned, p.Package) {
				r.pinned = append(r.pinned, p.Package)
			}
			at := fmt.Sprintf("%s:%d", escape.Text(p.File), p.Line)
			r.where[p.Package] = append(r.where[p.Package], at)
			if !slices.Contains(r.inFile[f.Path], p.Package) {
				r.inFile[f.Path] = append(r.inFile[f.Path], p.Package)
			}
			if capped, ok := hasCap(ss, p); ok && capped {
				r.capped[p.Package] = append(r.capped[p.Package], at)
			} else if ok {
				r.uncapped[p.Package] = append(r.uncapped[p.Package], at)
			}
			if p.Scheme == "conda" && p.Source != conda.Alias {
				r.named(f.Path, p.Source) // conda-forge::numba, a pixi table's channel
			}
		}
	}
	return r
}

// named records that the file names the channels. Files are read one after
// the other, so a file already recorded for a channel is its last; a tree
// naming a channel a line costs a map lookup a line.
func (r *pinsRead) named(file string, channels ...string) {
	for _, ch := range channels {
		by, seen := r.namedBy[ch]
		if !seen {
			r.channels = append(r.channels, ch)
		}
		if len(by) == 0 || by[len(by)-1] != file {
			r.namedBy[ch] = append(by, file)
		}
	}
}

// hasCap reports whether the pin caps its package's versions: an upper
// bound, explicit (<7, <=0.66.0) or implied (==2.16.1, ~=2.16, ^0.56,
// 0.61.*), or a constraint whose bounds cannot be told (alternatives, a
// pattern), which is no sign that it was left open on purpose. ok is false
// for a pin pinbot does not edit, whose add-cap it never applies.
func hasCap(ss map[string]versions.Scheme, p pins.Pin) (capped, ok bool) {
	s := ss[p.Scheme]
	if p.Skip != "" || s == nil {
		return false, false
	}
	c, err := s.ParseConstraint(p.Constraint)
	if err != nil {
		return true, true
	}
	_, upper, known := versions.Bounds(s, c)
	return !known || upper.Version != "", true
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

`)
	writeSources(&b, read)
	b.WriteString("\npackages:\n")
	for _, n := range names {
		if locs := where[n]; len(locs) > 0 {
			fmt.Fprintf(&b, "  # %s is pinned at %s\n", n, strings.Join(locs, ", "))
		} else {
			fmt.Fprintf(&b, "  # %s: no pins found yet\n", n)
		}
		fmt.Fprintf(&b, "  %s:\n", n)
		b.WriteString(`    cap: inclusive       # inclusive (<=NEWEST), exclusive (<NEXT BOUNDARY) or preserve (keep the operator)
`)
		writeAddCap(&b, n, read)
		b.WriteString(`    yanked: report       # a cap naming a yanked release: report it, or follow (lower it)
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

// maxChannels bounds the channels init writes: a real repository names a
// few, and a hostile tree naming hundreds should not make a configuration
// that asks them all.
const maxChannels = 16

// writeSources writes the sources section: the conda channels the pin files
// name when any is another than conda-forge, the default. conda-forge stays
// first, as the channel of the conda pins of files that name none, then the
// others in the order the files name them (discovery's order). A name that
// is no channel pinbot can ask (a URL of another host) is said in a
// comment, escaped, and not written.
func writeSources(b *bytes.Buffer, read pinsRead) {
	channels := []string{conda.DefaultChannel}
	var refused []string
	for _, ch := range read.channels { // each once
		switch {
		case ch == conda.DefaultChannel:
		case (&config.Conda{Channels: []string{ch}}).Validate() != nil:
			refused = append(refused, ch)
		default:
			channels = append(channels, ch)
		}
	}
	if len(channels) == 1 {
		b.WriteString(`# sources:
#   pypi:
#     url: https://pypi.org   # any index serving PyPI's JSON API
`)
		writeRefused(b, "", refused)
		return
	}
	b.WriteString(`sources:
  # pypi:
  #   url: https://pypi.org   # any index serving PyPI's JSON API
  conda:
`)
	writeComment(b, "    # ", "The conda channels the pin files name. A file's conda pins come from the first channel it names, "+
		"or the one a pin names itself (conda-forge::numba); the first here serves the files that name none, as by default.")
	b.WriteString("    channels:\n")
	for i, ch := range channels {
		if i == maxChannels {
			fmt.Fprintf(b, "      # and %d more, not written\n", len(channels)-maxChannels)
			break
		}
		line := "      - " + yamlString(ch)
		if files := read.namedBy[ch]; len(files) > 0 {
			line += "   # " + escape.Text(andList(firstFew(files)))
		}
		b.WriteString(line + "\n")
	}
	writeRefused(b, "    ", refused)
}

// writeRefused says, in a comment, which channels the files name that
// pinbot cannot ask by name.
func writeRefused(b *bytes.Buffer, indent string, refused []string) {
	if len(refused) == 0 {
		return
	}
	var quoted []string
	for _, ch := range firstFew(refused) {
		quoted = append(quoted, strconv.Quote(ch))
	}
	writeComment(b, indent+"# ", "Not asked: "+escape.Text(strings.Join(quoted, ", "))+": no channel name pinbot can ask on the channel host.")
}

// firstFew returns the first three of list, and a last item saying how many
// more there are.
func firstFew(list []string) []string {
	if len(list) <= 3 {
		return list
	}
	return append(slices.Clone(list[:3]), fmt.Sprintf("%d more", len(list)-3))
}

// yamlString writes a channel name (a name config accepts) as a YAML
// string: plain when YAML reads it as that string, quoted when it would
// read another value (true, null, 1.5).
func yamlString(s string) string {
	switch strings.ToLower(s) {
	case "true", "false", "yes", "no", "on", "off", "y", "n", "null", "~":
		return strconv.Quote(s)
	}
	if s == "" || s[0] < 'A' || s[0] > 'z' || (s[0] > 'Z' && s[0] < 'a') {
		return strconv.Quote(s)
	}
	return s
}

// writeAddCap writes the package's add-cap: false when it is pinned and
// none of the pins pinbot edits has a cap, a choice the repository made
// (umap's numba>=0.51.2, onnx's protobuf>=6.31.1), with how to turn it on;
// true otherwise, naming the pins it would give a cap, if any.
func writeAddCap(b *bytes.Buffer, pkg string, read pinsRead) {
	open := read.uncapped[pkg]
	if len(open) > 0 && len(read.capped[pkg]) == 0 {
		writeComment(b, "    # ", fmt.Sprintf("No pin of %s has a cap (%s): a choice, it seems, so pinbot adds none; "+
			"add-cap: true caps %s at the newest release.", pkg, andList(firstFew(open)), plural(len(open), "it", "each")))
		b.WriteString("    add-cap: false\n")
		return
	}
	b.WriteString("    add-cap: true        # give a pin without an upper bound one")
	if len(open) > 0 {
		fmt.Fprintf(b, " (%s %s none)", andList(firstFew(open)), plural(len(open), "has", "have"))
	}
	b.WriteString("\n")
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
