package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/pinbot-dev/pinbot/bot/planning"
	"github.com/pinbot-dev/pinbot/checks/usage"
	"github.com/pinbot-dev/pinbot/config"
	"github.com/pinbot-dev/pinbot/internal/errw"
	"github.com/pinbot-dev/pinbot/internal/escape"
	"github.com/pinbot-dev/pinbot/internal/repofs"
	"github.com/pinbot-dev/pinbot/pins/all"
)

// UsageOptions are the flags of `pinbot usage`.
type UsageOptions struct {
	Factory *Factory

	Dir        string
	ConfigPath string
	Format     string
	Packages   []string
}

func newUsageCmd(f *Factory, runF func(context.Context, *UsageOptions) error) *cobra.Command {
	opts := &UsageOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "usage",
		Short: "List every name the repository's Python code uses from each watched package",
		Long: `Usage reads the repository's Python files (.py and .pyi, found as pin files are:
.gitignore, virtual environments, vendored code and build output skipped; tests
included) and lists, per watched package, every place the code uses one of its
names: imports, attribute chains, calls, instances of its classes, subclasses,
monkeypatches and mock.patch targets, each with file:line:col, marked private or
guarded. It reads the code and never runs it: no network, no Python. A file that
does not parse is a warning; the others are read.`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.Format != "text" && opts.Format != "json" {
				return &usageError{fmt.Errorf("--format: expected text or json, found %q", opts.Format)}
			}
			for _, n := range opts.Packages {
				if strings.TrimSpace(n) == "" {
					return &usageError{errors.New("--package: empty name")}
				}
			}
			if err := checkDir(opts.Dir); err != nil {
				return err
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return usageRun(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Dir, "dir", ".", "the repository to read")
	fl.StringVar(&opts.ConfigPath, "config", "", "configuration file (default: .pinbot.yml or .github/pinbot.yml in --dir)")
	fl.StringVar(&opts.Format, "format", "text", "output format on stdout: text or json")
	fl.StringSliceVar(&opts.Packages, "package", nil, "list only this package's references (repeatable; default: the watched packages)")
	registerDefaults(fl, f)
	return cmd
}

// usageSchema is the version of `pinbot usage --format json`'s layout.
const usageSchema = 1

// A usageReport is what `pinbot usage` prints: its JSON keys are a
// contract, added to and never renamed.
type usageReport struct {
	Schema   int            `json:"schema"`
	Packages []usagePackage `json:"packages"`
	// Files counts the Python files read.
	Files    int      `json:"files"`
	Warnings []string `json:"warnings"`
}

type usagePackage struct {
	Name string `json:"name"`
	// Usage is the package's usage setting: "auto", or "off" (then its
	// code is not read and References is empty).
	Usage string `json:"usage"`
	// Modules are the modules the package installs, whose names are
	// looked for.
	Modules    []string   `json:"modules"`
	References []usageRef `json:"references"`
}

type usageRef struct {
	Name    string     `json:"name"`
	Module  string     `json:"module"`
	Kind    string     `json:"kind"`
	File    string     `json:"file"`
	Line    int        `json:"line"`
	Col     int        `json:"col"`
	Private bool       `json:"private"`
	Guarded bool       `json:"guarded"`
	Call    *usageCall `json:"call,omitempty"`
}

type usageCall struct {
	Positional int      `json:"positional"`
	Keywords   []string `json:"keywords"`
	Star       bool     `json:"star"`
	DoubleStar bool     `json:"double_star"`
	Bound      bool     `json:"bound"`
}

func usageRun(ctx context.Context, opts *UsageOptions) error {
	f := opts.Factory
	cfg, err := f.loadConfig(opts.Dir, opts.ConfigPath)
	if err != nil {
		return err
	}
	names, err := usagePackages(cfg, opts)
	if err != nil {
		return err
	}
	repo, err := repofs.Open(opts.Dir)
	if err != nil {
		return err
	}
	defer repo.Close()
	rep := &usageReport{Schema: usageSchema, Packages: []usagePackage{}, Warnings: []string{}}
	var find []usage.Package
	for _, n := range names {
		p := usagePackage{Name: n, Usage: config.UsageAuto, Modules: usage.Modules(n), References: []usageRef{}}
		if p.Modules == nil {
			p.Modules = []string{}
		}
		if !cfg.Packages[n].UsageOn() {
			p.Usage = config.UsageOff
		} else {
			find = append(find, usage.Package{Name: n})
		}
		rep.Packages = append(rep.Packages, p)
	}
	res, err := usage.Find(ctx, repo.FS(), usage.Options{Packages: find, Include: cfg.Usage.Include, Exclude: cfg.Usage.Exclude})
	if err != nil {
		return err
	}
	rep.Files = res.Files
	for _, w := range res.Warnings {
		rep.Warnings = append(rep.Warnings, w.Error())
	}
	for _, r := range res.Refs {
		i := slices.IndexFunc(rep.Packages, func(p usagePackage) bool { return p.Name == r.Package })
		ref := usageRef{Name: r.Name, Module: r.Module, Kind: string(r.Kind), File: r.File, Line: r.Line, Col: r.Col, Private: r.Private, Guarded: r.Guarded}
		if c := r.Call; c != nil {
			ref.Call = &usageCall{Positional: c.Positional, Keywords: c.Keywords, Star: c.Star, DoubleStar: c.DoubleStar, Bound: c.Bound}
			if ref.Call.Keywords == nil {
				ref.Call.Keywords = []string{}
			}
		}
		rep.Packages[i].References = append(rep.Packages[i].References, ref)
	}
	out := bufio.NewWriterSize(f.Stdout, 64<<10)
	if opts.Format == "json" {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		err = enc.Encode(rep)
	} else {
		err = usageText(out, rep)
	}
	if err != nil {
		return err
	}
	return out.Flush()
}

// usagePackages returns the normalised names of the packages to list:
// each --package, once, else the watched packages. A name neither watched
// nor pinned in any pin file is a usage error, as for pinbot check.
func usagePackages(cfg *config.Config, opts *UsageOptions) ([]string, error) {
	if len(opts.Packages) == 0 {
		return cfg.Watched(), nil
	}
	checker := &planning.Checker{Root: opts.Dir, Config: cfg, Formats: all.Formats()}
	var unknown *planning.UnknownPackageError
	if err := checker.Unknown(opts.Packages); errors.As(err, &unknown) {
		return nil, &usageError{fmt.Errorf("--package %w", err)}
	} else if err != nil {
		return nil, err
	}
	var names []string
	for _, n := range opts.Packages {
		if n = config.Key(strings.TrimSpace(n)); !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	return names, nil
}

// usageText writes the report for people and scripts: per package a line
// saying how many references it has, then one line per reference,
// "  file:line:col  kind  name", followed by "private" and "guarded" when
// they hold; the warnings last. Every name from the repository is escaped.
func usageText(w io.Writer, rep *usageReport) error {
	ew := errw.New(w)
	t := escape.Text
	for i, p := range rep.Packages {
		if i > 0 {
			ew.Printf("\n")
		}
		switch {
		case p.Usage == config.UsageOff:
			ew.Printf("%s: usage off (packages.%s.usage), not read\n", t(p.Name), t(p.Name))
			continue
		case len(p.Modules) == 0:
			ew.Printf("%s: no Python module to look for\n", t(p.Name))
			continue
		case len(p.References) == 0:
			ew.Printf("%s: no references (modules %s)\n", t(p.Name), t(strings.Join(p.Modules, ", ")))
			continue
		}
		files := map[string]bool{}
		for _, r := range p.References {
			files[r.File] = true
		}
		ew.Printf("%s: %d %s in %d %s\n", t(p.Name), len(p.References), plural(len(p.References), "reference", "references"), len(files), plural(len(files), "file", "files"))
		for _, r := range p.References {
			ew.Printf("  %s:%d:%d  %s  %s", t(r.File), r.Line, r.Col, r.Kind, t(r.Name))
			if r.Private {
				ew.Printf("  private")
			}
			if r.Guarded {
				ew.Printf("  guarded")
			}
			ew.Printf("\n")
		}
	}
	if len(rep.Packages) == 0 {
		ew.Printf("no watched packages\n")
	}
	ew.Printf("\n%d %s read\n", rep.Files, plural(rep.Files, "Python file", "Python files"))
	for _, warn := range rep.Warnings {
		ew.Printf("warning: %s\n", t(warn))
	}
	return ew.Err
}
