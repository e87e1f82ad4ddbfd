package planning

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/pinbot-dev/pinbot/bot/planning/plan"
	"github.com/pinbot-dev/pinbot/bot/report"
	"github.com/pinbot-dev/pinbot/config"
	"github.com/pinbot-dev/pinbot/internal/diag"
	"github.com/pinbot-dev/pinbot/internal/repofs"
	"github.com/pinbot-dev/pinbot/pins"
	"github.com/pinbot-dev/pinbot/sources"
	"github.com/pinbot-dev/pinbot/versions"
	"github.com/pinbot-dev/pinbot/web"
)

// A Checker checks one repository.
type Checker struct {
	Root    string // the repository root
	Config  *config.Config
	Formats []pins.Format
	// Sources are the configured sources by name ("pypi", "conda-forge",
	// the "conda" alias); Channels finds the conda channels pin files name
	// that Sources does not hold (nil: such a channel is not asked).
	Sources  map[string]sources.Source
	Channels sources.Registry
	Schemes  map[string]versions.Scheme
	Log      *slog.Logger
	// Verifier runs the packages' probes and symbol scans; nil runs none.
	Verifier Verifier
	// Nightlies are the nightly sources of the packages that name one
	// (early-warning: {nightly: ...}; config.Package.NightlySource), by
	// package key: a source's Releases is asked for the package's name,
	// and answers with the builds where the configuration says they are
	// (cmd/pinbot builds them, like Sources).
	Nightlies map[string]sources.Source
	// Concurrency bounds the source lookups in flight (default 4).
	Concurrency int
	// Now is the clock min-age gates measure release ages with (default
	// time.Now).
	Now func() time.Time

	hashMu    sync.Mutex
	hashCache map[hashKey][]string // the digests releaseHashes fetched
	reqMu     sync.Mutex
	reqCache  map[requireKey]requireResult // what releases require (costs.go)
}

// CheckOptions are the per-run choices of Check.
type CheckOptions struct {
	// Packages limits the run to these packages; names the configuration does
	// not watch are watched with default settings for this run.
	Packages []string
	// Write applies the plan to the files.
	Write bool
}

// A FileError is a pin file that could not be read or parsed.
type FileError struct {
	Path string
	Err  error
}

func (e *FileError) Error() string { return e.Err.Error() }
func (e *FileError) Unwrap() error { return e.Err }

// An UnknownPackageError is a package the run was asked for (--package)
// that the configuration does not watch and no pin file pins.
type UnknownPackageError struct {
	Names   []string // as asked
	Watched []string // what the configuration watches
}

func (e *UnknownPackageError) Error() string {
	watched := "none"
	if len(e.Watched) > 0 {
		watched = strings.Join(e.Watched, ", ")
	}
	return fmt.Sprintf("%s: neither watched nor pinned in any pin file (watched packages: %s)", strings.Join(e.Names, ", "), watched)
}

// Check runs the check and returns its report. Problems with one file or one
// package are in the report (Errors, a package's Error); the error return is for
// failures that leave no report, such as a write that could not be completed,
// an *UnknownPackageError, or ctx cancelled. When ctx's deadline passes, Check
// returns the report of what was done by then with the deadline's cause (see
// web.ContextError), and writes nothing.
func (c *Checker) Check(ctx context.Context, opts CheckOptions) (*report.Report, error) {
	log := c.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	watched := c.watched(opts.Packages)
	c.hashMu.Lock()
	c.hashCache = nil // a release can gain files: ask again in each check
	c.hashMu.Unlock()
	c.reqMu.Lock()
	c.reqCache = nil
	c.reqMu.Unlock()
	// Every file of the repository is reached through repo: confined to the
	// repository, links and all, and read within repofs.MaxFileSize.
	repo, err := repofs.Open(c.Root)
	if err != nil {
		return nil, err
	}
	defer repo.Close()
	files, err := c.files(repo)
	if err != nil {
		return nil, err
	}
	rep := &report.Report{}
	files = c.followIncludes(repo, files, rep)
	data := map[string][]byte{}
	formats := map[string]pins.Format{}
	byPkg := map[string][]pins.Pin{}
	read := map[string]string{} // the file each path leads to -> the path read for it
	// The pins of symbol scans' against packages the run does not watch:
	// they say which version of such a package the project installs.
	against := againstPackages(watched)
	otherPins := map[string][]pins.Pin{}
	var project []pins.Pin // every requirement, watched or not: probe constraints, solve
	for _, f := range files {
		b, err := c.readPinFile(repo, log, f.Path, read)
		if err != nil {
			rep.Errors = append(rep.Errors, err.Error())
			continue
		}
		if b == nil {
			continue
		}
		ps, skipped, err := pins.ReadFile(f.Format, f.Path, b)
		if err != nil {
			rep.Errors = append(rep.Errors, err.Error())
			continue
		}
		rep.Warnings = append(rep.Warnings, skipWarnings(skipped)...)
		data[f.Path], formats[f.Path] = b, f.Format
		for _, p := range ps {
			// What probe constraints and solve read (PEP 440 requirements
			// pinbot could read); the rest of a large tree is not kept twice.
			if projectPin(p) {
				project = append(project, p)
			}
		}
		n := 0
		for _, p := range ps {
			key := config.Key(p.Package)
			if _, ok := watched[key]; ok {
				p.Package = key
				byPkg[p.Package] = append(byPkg[p.Package], p)
				n++
			} else if against[key] {
				p.Package = key
				otherPins[key] = append(otherPins[key], p)
			}
		}
		log.Debug("read pin file", "file", f.Path, "format", f.Format.Name(), "requirements", len(ps), "watched", n)
	}

	if err := c.unknown(opts.Packages, byPkg); err != nil {
		return nil, err
	}
	names := slices.Sorted(maps.Keys(byPkg))
	lookups := c.lookup(ctx, log, names, byPkg)
	plans := make([]plan.Plan, len(names))
	pkgs := make([]plan.Package, len(names))
	for i, name := range names {
		settings := watched[name]
		pkgs[i] = planPackage(name, settings)
		pkgs[i].Gate = c.gate(settings)
		plans[i] = plan.Make(pkgs[i], byPkg[name], lookups[name], c.Schemes)
		if c.holdHashed(ctx, log, plans[i], byPkg[name]) {
			plans[i] = plan.Make(pkgs[i], byPkg[name], lookups[name], c.Schemes)
		}
	}
	groups := groupsOf(c.Config, names)
	c.planGroups(ctx, log, groups, plans, pkgs, byPkg, lookups, watched)
	c.memberBaselines(groups, pkgs, byPkg, lookups)
	refs, usageWarnings := c.usageRefs(ctx, log, repo, plans, watched)
	rep.Warnings = append(rep.Warnings, usageWarnings...)
	checks := c.verifyAll(ctx, plans, pkgs, byPkg, otherPins, lookups, watched, project, groups, refs)
	groups.settle(plans)
	prereleases, earlyWarnings := c.earlyWarnAll(ctx, log, plans, pkgs, otherPins, lookups, watched, project, groups, refs)
	rep.Warnings = append(rep.Warnings, earlyWarnings...)
	c.hashPins(ctx, log, plans)
	solves, solveWarnings := c.solveAll(ctx, log, plans, project, groups)
	rep.Warnings = append(rep.Warnings, solveWarnings...)
	costs, costWarnings := c.holdsBack(ctx, log, plans, byPkg, lookups, watched)
	rep.Warnings = append(rep.Warnings, costWarnings...)
	for i, p := range plans {
		for _, w := range p.Warnings {
			rep.Warnings = append(rep.Warnings, w.Error())
		}
		rp := toReport(p, data)
		rp.Checks, rp.Verdicts = checks[p.Name].checks, checks[p.Name].verdicts
		ew := prereleases[p.Name]
		rp.Prerelease, rp.PrereleaseSkipped, rp.Nightly, rp.NightlyUnseen = ew.pr, ew.skipped, ew.nightly, ew.unseen
		rp.Admits, rp.Behind = c.lag(p, pkgs[i].Prereleases, byPkg[p.Name], lookups[p.Name])
		rp.HoldsBack = costs[p.Name]
		rp.Solve = solves[p.Name]
		rep.Packages = append(rep.Packages, rp)
	}
	rep.Groups = groups.report(rep.Packages)
	if err := ctx.Err(); err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return rep, web.ContextError(ctx)
		}
		return nil, err
	}
	if opts.Write {
		written, err := c.write(ctx, log, repo, plans, data, formats)
		if err != nil {
			return nil, err
		}
		rep.Written = written
	}
	return rep, nil
}

// skipWarnings words the entries of a pin file that pinbot could not read as
// warnings: each is skipped, and the file's other pins are planned.
func skipWarnings(entries diag.List) []string {
	out := make([]string, len(entries))
	for i, e := range entries {
		out[i] = e.Error() + " (entry skipped; the file's other pins are read)"
	}
	return out
}

// unknown returns an *UnknownPackageError for the names of only that the
// configuration does not watch and no pin file pins: a typo, most often,
// which would otherwise check nothing and pass.
func (c *Checker) unknown(only []string, byPkg map[string][]pins.Pin) error {
	var unknown []string
	for _, n := range only {
		key := config.Key(n)
		if _, ok := c.Config.Packages[key]; !ok && len(byPkg[key]) == 0 {
			unknown = append(unknown, n)
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	return &UnknownPackageError{Names: unknown, Watched: c.Config.Watched()}
}

// Unknown returns an *UnknownPackageError for the names of only that the
// configuration does not watch and no pin file of the repository pins, as
// Check does for its Packages; it reads the pin files (no network) only
// when some name is not watched. A pin file that cannot be read pins
// nothing here: Check reports it.
func (c *Checker) Unknown(only []string) error {
	if !slices.ContainsFunc(only, func(n string) bool { _, ok := c.Config.Packages[config.Key(n)]; return !ok }) {
		return nil
	}
	repo, err := repofs.Open(c.Root)
	if err != nil {
		return err
	}
	defer repo.Close()
	files, err := c.files(repo)
	if err != nil {
		return err
	}
	files = c.followIncludes(repo, files, &report.Report{})
	asked := map[string]bool{}
	for _, n := range only {
		asked[config.Key(n)] = true
	}
	byPkg := map[string][]pins.Pin{}
	for _, f := range files {
		b, err := repo.ReadFile(f.Path)
		if err != nil {
			continue
		}
		ps, _, _ := pins.ReadFile(f.Format, f.Path, b)
		for _, p := range ps {
			if key := config.Key(p.Package); asked[key] {
				byPkg[key] = append(byPkg[key], p)
			}
		}
	}
	return c.unknown(only, byPkg)
}

// watched returns the packages of this run with their settings (nil: defaults).
func (c *Checker) watched(only []string) map[string]*config.Package {
	w := map[string]*config.Package{}
	if len(only) == 0 {
		for _, n := range c.Config.Watched() {
			w[n] = c.Config.Packages[n]
		}
		return w
	}
	for _, n := range only {
		n = config.Key(n)
		w[n] = c.Config.Packages[n]
		// A package moves with its group: the group is checked whole.
		_, members := c.Config.GroupOf(n)
		for _, m := range members {
			w[m] = c.Config.Packages[m]
		}
	}
	return w
}

// files returns the configured pin files, or the discovered ones that the
// configuration's include and exclude globs keep, each file once
// (pins.Once). A configured file no format matches by name is told by its
// content (a conda environment file under any name).
func (c *Checker) files(repo *repofs.Root) ([]pins.Found, error) {
	if len(c.Config.Files) == 0 {
		found, err := pins.DiscoverFS(repo.FS(), c.Formats)
		sel := pins.Selection{Include: c.Config.FileGlobs.Include, Exclude: c.Config.FileGlobs.Exclude}
		// The globs choose among the names a file is found under (a link
		// kept by an include glob is read even when its target is not).
		return pins.Once(sel.Apply(found)), err
	}
	var out []pins.Found
	for _, f := range c.Config.Files {
		rel := filepath.ToSlash(filepath.Clean(f))
		format := pins.Lookup(c.Formats, rel)
		if format == nil {
			if data, err := repo.ReadFile(rel); err == nil {
				format = pins.Detect(c.Formats, rel, data)
			}
		}
		if format == nil {
			return nil, fmt.Errorf("%s: files: %s: no pin-file format reads this file", c.Config.File, f)
		}
		out = append(out, pins.Found{Path: rel, Format: format})
	}
	return out, nil
}

// lookup asks, for each package, every source its pins follow and every
// source its configuration requires (require: [pypi, conda-forge]), at most
// Concurrency requests at a time across packages, each source once per
// package, and returns the answers per package in source order. A pin
// follows a chain of sources (chain): its file's conda channels, in the
// order conda asks them, else its one source. Each pin's Source and
// SourceAt are set, in place, to the source that governs it: the first of
// its chain that has the package, or, when a channel fails in another way,
// that channel (govern, resolve). A failed lookup fails that package's pins
// that follow the source, and no other package's (plan.Make); a cancelled
// context ends the lookups still waiting with its error.
func (c *Checker) lookup(ctx context.Context, log *slog.Logger, names []string, byPkg map[string][]pins.Pin) map[string][]plan.Lookup {
	a := c.newAsker(ctx, log)
	type pkgWalks struct {
		walks    []*chainWalk
		required []string
	}
	all := make([]pkgWalks, len(names))
	var wg sync.WaitGroup
	for i, name := range names {
		pw := &all[i]
		byChain := map[chainID]*chainWalk{}
		for j, p := range byPkg[name] {
			id := chainOf(p)
			w := byChain[id]
			if w == nil {
				w = &chainWalk{chain: c.chain(p)}
				byChain[id] = w
				pw.walks = append(pw.walks, w)
			}
			w.pins = append(w.pins, j)
		}
		for _, w := range pw.walks {
			wg.Go(func() {
				w.governs = govern(w.chain, func(src string) plan.Lookup { return a.ask(name, src) }, func(ch, next string) {
					log.Info("the channel does not have the package: the next of the list is asked", "package", name, "channel", ch, "next", next)
				})
			})
		}
		if settings := c.Config.Packages[name]; settings != nil {
			for _, r := range settings.Require {
				r = c.canonical(r)
				pw.required = append(pw.required, r)
				wg.Go(func() { a.ask(name, r) })
			}
		}
	}
	wg.Wait()
	res := map[string][]plan.Lookup{}
	for i, name := range names {
		res[name] = a.resolve(name, byPkg[name], all[i].walks, all[i].required)
	}
	return res
}

// source returns the source a pin or the configuration names: a configured
// one (Sources), else a conda channel a pin file names (Channels).
func (c *Checker) source(name string) (sources.Source, error) {
	if src, ok := c.Sources[name]; ok {
		return src, nil
	}
	if c.Channels != nil {
		return c.Channels.Source(name)
	}
	return nil, fmt.Errorf("no source %q is configured (sources are pypi, goproxy and the conda channels of sources.conda.channels)", name)
}

// Clock is the run's clock: Now when set (tests), else the time.
func (c *Checker) Clock() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}

// gate returns the availability rules of a package's settings (nil: none),
// with the run's clock and the version scheme of every source.
func (c *Checker) gate(settings *config.Package) plan.Gate {
	g := plan.Gate{Now: c.Clock(), Schemes: map[string]string{}}
	for name, src := range c.Sources {
		if s := sources.SchemeOf(src); s != "" {
			g.Schemes[name] = s
			g.Schemes[src.Name()] = s
		}
	}
	if settings != nil {
		for _, r := range settings.Require {
			if src, ok := c.Sources[r]; ok {
				r = src.Name()
			}
			g.Require = append(g.Require, r)
		}
		g.Platforms, g.Python, g.MinAge = settings.Platforms, settings.Python, time.Duration(settings.MinAge)
	}
	return g
}

// write applies every changed pin, a hash-locked pin with its new version's
// hashes (hashPins fetched them). All files are rewritten in memory and
// verified first; only then is any file replaced, each atomically.
func (c *Checker) write(ctx context.Context, log *slog.Logger, repo *repofs.Root, plans []plan.Plan, data map[string][]byte, formats map[string]pins.Format) ([]string, error) {
	edits := map[string][]pins.Edit{}
	var errs []error
	failed := map[string]bool{} // files with an edit that cannot be made
	for _, p := range plans {
		if p.Status != plan.Bump && p.Status != plan.Blocked {
			continue // a blocked package's changed pins are the newest release that passed
		}
		for _, pp := range p.Pins {
			if pp.Changed {
				extra, err := c.hashExtra(ctx, log, data[pp.Pin.File], pp.Pin, pp.New)
				if err != nil {
					errs, failed[pp.Pin.File] = append(errs, err), true
				}
				edits[pp.Pin.File] = append(edits[pp.Pin.File], pins.Edit{Pin: pp.Pin, New: pp.New, Extra: extra})
			}
		}
	}
	paths := slices.Sorted(maps.Keys(edits))
	out := map[string][]byte{}
	for _, path := range paths {
		if failed[path] {
			continue
		}
		b, err := pins.Apply(formats[path], path, data[path], edits[path])
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out[path] = b
	}
	if len(errs) > 0 {
		return nil, &FileError{Path: paths[0], Err: fmt.Errorf("nothing written: %w", errors.Join(errs...))}
	}
	for _, path := range paths {
		if err := repo.WriteFile(path, out[path], 0o644); err != nil {
			return nil, err
		}
	}
	return paths, nil
}

// reportMajor says that the pin's cap crosses a major version, with the
// comment beside it in its file (data), if any; nil when it does not.
func reportMajor(pp plan.PinPlan, data []byte) *report.Major {
	if pp.Major == nil {
		return nil
	}
	return &report.Major{From: pp.Major.From.String(), To: pp.Major.To.String(), Comment: pins.LineComment(data, pp.Pin)}
}

// readPinFile reads the pin file at path through repo, after removing what
// a killed write of it left behind. It returns nil data, and no error, for a
// path that leads to a file already read under another name (read maps
// each file read to its path), so that a file and a link to it are planned
// and written once.
func (c *Checker) readPinFile(repo *repofs.Root, log *slog.Logger, path string, read map[string]string) ([]byte, error) {
	real, err := repo.Resolve(path)
	if err != nil {
		return nil, err
	}
	if first, ok := read[real]; ok {
		log.Debug("pin file already read under another name", "file", path, "as", first)
		return nil, nil
	}
	read[real] = path
	removed, err := repo.RemoveStale(path)
	for _, p := range removed {
		log.Info("removed a temporary file an interrupted write left", "file", p)
	}
	if err != nil {
		log.Warn("removing temporary files an interrupted write left", "file", path, "err", err)
	}
	return repo.ReadFile(path)
}

// toReport is the report's entry for a plan; data holds the pin files read,
// for the comment beside a pin whose cap crosses a major version.
func toReport(p plan.Plan, data map[string][]byte) report.Package {
	rp := report.Package{Name: p.Name, Newest: p.Target, Status: string(p.Status), Sources: p.Newest, Reason: p.Reason, Drift: reportDrift(p.Drift), Hold: p.Hold}
	if p.Err != nil {
		rp.Error = p.Err.Error()
	}
	for _, pp := range p.Pins {
		rp.Pins = append(rp.Pins, report.Pin{
			File: pp.Pin.File, Line: pp.Pin.Line, Key: pp.Pin.Key,
			Before: pp.Pin.Text, After: pp.Pin.With(pp.New),
			Reason: pp.Reason, Narrows: pp.Narrows, Skip: pp.Pin.Skip, RaisesLower: pp.RaisesLower, Yanked: pp.Yanked,
			Held: pp.Held, Fix: pp.Fix, Major: reportMajor(pp, data[pp.Pin.File]), Uncapped: pp.Uncapped,
		})
	}
	slices.SortStableFunc(rp.Pins, func(a, b report.Pin) int {
		return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line))
	})
	return rp
}
