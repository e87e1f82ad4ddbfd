package probe

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Probe environments are keyed on what the installer resolves, not on the
// release alone: before an environment is reused, pinbot asks what a fresh
// install of the release would get today (pip install --dry-run --report, or uv
// pip compile), with the project's constraints, and builds a new environment
// when anything resolves differently. Asking the installer costs a second or
// so of Python start-up and index reads, so a resolution is kept with the
// validators (ETag, Last-Modified, content digest) of the index pages of every
// distribution in it; when all of them answer "not modified", nothing the
// resolution read has changed and the installer is not asked again. See
// README.md, "Environments".

// resolveSchema changes when the record layout or what a resolution depends on
// changes.
const resolveSchema = "pinbot-probe-resolve/1"

// historyMax bounds the earlier resolutions a record keeps.
const historyMax = 5

// A Dist is one distribution of an environment.
type Dist struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// A Constraint is what the project's own pin files require of another package
// ("numpy<2.5"), applied to probe environments as an installer constraint
// (pip -c), so the probe sees what the project's users get.
type Constraint struct {
	Requirement string `json:"requirement"` // a PEP 508 requirement without extras: name, specifier, marker
	Origin      string `json:"origin"`      // where the project says so, "pyproject.toml:4"
}

// String is the requirement with its origin.
func (c Constraint) String() string {
	if c.Origin == "" {
		return c.Requirement
	}
	return c.Requirement + " (" + c.Origin + ")"
}

// A ResolveError is a release that resolves on its own but not together with
// the project's constraints: the project holds it back. Output is the
// resolver's message.
type ResolveError struct {
	Package, Version string
	Constraints      []Constraint
	Output           string
}

// Error names the release, the constraints and the resolver's message.
func (e *ResolveError) Error() string {
	cs := make([]string, len(e.Constraints))
	for i, c := range e.Constraints {
		cs[i] = c.String()
	}
	return fmt.Sprintf("%s %s cannot be installed with the project's constraints %s: %s",
		e.Package, e.Version, strings.Join(cs, ", "), e.Output)
}

// pageValidator is what revalidates one index page.
type pageValidator struct {
	ETag         string `json:"etag,omitempty"`
	LastModified string `json:"last_modified,omitempty"`
	SHA256       string `json:"sha256,omitempty"`
}

// pastResolution is an earlier resolution of the same request, with the probe
// results seen on it.
type pastResolution struct {
	Dists   []Dist            `json:"dists"`
	Until   time.Time         `json:"until"`
	Results map[string]Status `json:"results,omitempty"`
}

// resolveRecord is a request's current resolution, how to tell whether it is
// still current, and the resolutions before it.
type resolveRecord struct {
	Schema   string                   `json:"schema"`
	Request  map[string]string        `json:"request"` // credentials redacted
	Dists    []Dist                   `json:"dists"`
	Pages    map[string]pageValidator `json:"pages,omitempty"` // by normalised name, or "*dir" for a wheel directory
	Resolved time.Time                `json:"resolved"`
	Results  map[string]Status        `json:"results,omitempty"` // probe results on Dists, by probe name
	History  []pastResolution         `json:"history,omitempty"` // newest first
	file     string
	changed  bool // Dists differ from the previous run's
}

// resolveRequest identifies a resolution: what is asked and of whom. The
// installer's own version is part of it, since another pip may choose
// differently.
func resolveRequest(opts *Options, py *pyInfo, version string) (file string, req map[string]string) {
	cs := make([]string, len(opts.Constraints))
	for i, c := range opts.Constraints {
		cs[i] = c.Requirement
	}
	slices.Sort(cs)
	installer := "pip " + py.Pip
	if uv, ok := useUV(opts); ok {
		installer = "uv " + fileFingerprint(uv)
	}
	req = map[string]string{
		"schema":         resolveSchema,
		"package":        normName(distOf(opts, version)),
		"version":        version,
		"python":         py.Executable,
		"python_version": py.Full,
		"index":          effectiveIndex(opts),
		"installer":      installer,
		"constraints":    strings.Join(cs, "\n"),
	}
	if with := withFor(opts, version); len(with) > 0 {
		req["with"] = strings.Join(with, " ")
	}
	if files := pinnedFiles(opts, py, version); files != "" {
		req["pinned"] = files
	}
	b, _ := json.Marshal(req)
	sum := sha256.Sum256(b)
	req["index"] = redactURL(req["index"])
	name := fmt.Sprintf("%s-%s-%s.json", normName(distOf(opts, version)), version, hex.EncodeToString(sum[:8]))
	return filepath.Join(opts.CacheDir, "resolutions", name), req
}

func fileFingerprint(p string) string {
	fi, err := os.Stat(p)
	if err != nil {
		return p
	}
	return fmt.Sprintf("%s %d %d", p, fi.Size(), fi.ModTime().UnixNano())
}

func loadRecord(file string) *resolveRecord {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil
	}
	var r resolveRecord
	if json.Unmarshal(b, &r) != nil || r.Schema != resolveSchema || len(r.Dists) == 0 {
		return nil
	}
	r.file = file
	return &r
}

func (r *resolveRecord) save() {
	if r.file == "" {
		return
	}
	b, _ := json.MarshalIndent(r, "", "  ")
	if os.MkdirAll(filepath.Dir(r.file), 0o755) != nil {
		return
	}
	tmp := r.file + ".tmp" + strconv.Itoa(os.Getpid())
	if os.WriteFile(tmp, append(b, '\n'), 0o644) == nil {
		os.Rename(tmp, r.file)
	}
}

// update records a new resolution; the previous one, when it differs, moves to
// the history with its results.
func (r *resolveRecord) update(dists []Dist, pages map[string]pageValidator, now time.Time) {
	r.Pages, r.Resolved = pages, now
	if len(r.Dists) > 0 && !slices.Equal(r.Dists, dists) {
		r.History = append([]pastResolution{{Dists: r.Dists, Until: now, Results: r.Results}}, r.History...)
		if len(r.History) > historyMax {
			r.History = r.History[:historyMax]
		}
		r.Results, r.changed = nil, true
	}
	r.Dists = dists
}

// cachedResolution returns the recorded resolution of opts.Package==version
// when every index page it read is unchanged (nil otherwise).
func cachedResolution(ctx context.Context, opts *Options, py *pyInfo, version string) *resolveRecord {
	file, _ := resolveRequest(opts, py, version)
	rec := loadRecord(file)
	if rec == nil {
		return nil
	}
	pages, ok := unchanged(ctx, opts, rec.Dists, rec.Pages)
	if !ok {
		return nil
	}
	rec.Pages = pages
	now := time.Now()
	_ = os.Chtimes(file, now, now) // for LRU pruning
	return rec
}

// resolve asks the installer what a fresh install of opts.Package==version
// gets today and records it with the validators of the pages it read.
func resolve(ctx context.Context, opts *Options, py *pyInfo, version string) (*resolveRecord, error) {
	file, _ := resolveRequest(opts, py, version)
	prev := loadRecord(file)
	var names []Dist
	if prev != nil {
		names = prev.Dists
	}
	// Validators are taken before the installer reads the pages, so a page
	// that changes meanwhile is noticed by the next run.
	before, _ := validators(ctx, opts, names)
	dists, err := runResolver(ctx, opts, py, version, opts.Constraints)
	if err != nil {
		return nil, explainResolveError(ctx, opts, py, version, err)
	}
	return record(opts, py, version, dists, before), nil
}

// explainResolveError turns an installer's failure with the project's
// constraints into a *ResolveError when the release resolves without them.
func explainResolveError(ctx context.Context, opts *Options, py *pyInfo, version string, err error) error {
	var ie *InstallError
	if errors.As(err, &ie) && len(opts.Constraints) > 0 {
		if _, err2 := runResolver(ctx, opts, py, version, nil); err2 == nil {
			return &ResolveError{Package: distOf(opts, version), Version: version, Constraints: opts.Constraints, Output: resolverMessage(ie.Output)}
		}
	}
	return err
}

// record stores a resolution of opts.Package==version with the validators of
// its pages taken before the installer ran (before) and returns the record,
// its history kept. A distribution new to the resolution (no validator taken
// before) gets none: one fetched now could describe a page that changed after
// the installer read it, and the next run would take the stale resolution for
// current. Without a validator the next run resolves again, this time with
// every page's validator taken first.
func record(opts *Options, py *pyInfo, version string, dists []Dist, before map[string]pageValidator) *resolveRecord {
	file, req := resolveRequest(opts, py, version)
	rec := loadRecord(file)
	if rec == nil {
		rec = &resolveRecord{Schema: resolveSchema, file: file}
	}
	rec.Request = req
	pages := map[string]pageValidator{}
	for _, d := range dists {
		if v, ok := before[normName(d.Name)]; ok {
			pages[normName(d.Name)] = v
		}
	}
	if v, ok := before[dirPage]; ok {
		pages[dirPage] = v
	}
	if before == nil {
		pages = nil // cannot tell next time: ask the installer again
	}
	rec.update(dists, pages, time.Now().UTC())
	rec.save()
	return rec
}

// runResolver asks the installer what installing package==version (with
// constraints) would install, without installing anything.
func runResolver(ctx context.Context, opts *Options, py *pyInfo, version string, constraints []Constraint) ([]Dist, error) {
	name := distOf(opts, version)
	reqs := append([]string{requirement(opts, py, name, version)}, withRequirements(opts, py, version)...)
	dists, err := resolveRequirements(ctx, opts, py, reqs, constraints, false)
	if err != nil {
		ie := &InstallError{Package: name, Version: version, Err: err}
		var se *stepError
		if errors.As(err, &se) {
			ie.Err, ie.Output = fmt.Errorf("resolving: %w", se.err), se.output
		}
		return nil, ie
	}
	if !slices.ContainsFunc(dists, func(d Dist) bool { return normName(d.Name) == normName(name) }) {
		return nil, &InstallError{Package: name, Version: version, Err: errors.New("the resolution does not contain the package")}
	}
	return dists, nil
}

// resolveRequirements asks the installer what installing requirements (with
// constraints) would install, without installing anything: `uv pip
// compile`, or `pip install --dry-run --report`. With onlyBinary it
// considers wheels alone (--only-binary :all:), so that no sdist is built
// and no release code runs. It is the one place pinbot runs a resolver:
// for probe environments (runResolver) and for solve (Resolve). A failure
// of the installer is a *stepError with its output.
func resolveRequirements(ctx context.Context, opts *Options, py *pyInfo, requirements []string, constraints []Constraint, onlyBinary bool) ([]Dist, error) {
	uv, withUV := useUV(opts)
	if opts.Installer == "uv" && !withUV {
		return nil, errors.New("probe: installer uv requested but uv is not on PATH")
	}
	cache := filepath.Join(opts.CacheDir, "pip")
	if withUV {
		cache = filepath.Join(opts.CacheDir, "uv")
	}
	if opts.CacheDir == "" {
		cache = "" // no cache between runs: the sandbox's own
	}
	var cacheArgs []string
	if cache != "" {
		cacheArgs = []string{"--cache-dir", cache}
	}
	var dists []Dist
	err := runSandboxed(ctx, opts, withUV, opts.ResolveTimeout, func(dir string) ([]string, error) {
		var argv []string
		if withUV {
			in := filepath.Join(dir, "requirements.in")
			if err := os.WriteFile(in, []byte(strings.Join(requirements, "\n")+"\n"), 0o644); err != nil {
				return nil, err
			}
			argv = append(append([]string{uv, "pip", "compile", "--no-config", "--quiet", "--no-header", "--no-annotate",
				"--python", py.Executable}, cacheArgs...), "-o", filepath.Join(dir, "resolved.txt"))
		} else {
			// Not --quiet: pip says why a resolution is impossible only at
			// its default verbosity.
			argv = append([]string{py.Executable, "-m", "pip", "install", "--dry-run", "--ignore-installed",
				"--report", filepath.Join(dir, "report.json"), "--disable-pip-version-check", "--no-input", "--prefer-binary"}, cacheArgs...)
		}
		if onlyBinary {
			argv = append(argv, "--only-binary", ":all:")
		}
		argv = append(argv, indexArgs(opts)...)
		c, err := constraintArgs(dir, constraints)
		if err != nil {
			return nil, err
		}
		argv = append(argv, c...)
		if withUV {
			return append(argv, filepath.Join(dir, "requirements.in")), nil
		}
		if len(requirements) == 1 {
			return append(argv, requirements[0]), nil
		}
		rf := filepath.Join(dir, "requirements.txt")
		if err := os.WriteFile(rf, []byte(strings.Join(requirements, "\n")+"\n"), 0o644); err != nil {
			return nil, err
		}
		return append(argv, "-r", rf), nil
	}, func(dir string) error {
		var err error
		if withUV {
			dists, err = readUVCompile(filepath.Join(dir, "resolved.txt"))
		} else {
			dists, err = readPipReport(filepath.Join(dir, "report.json"))
		}
		return err
	})
	return dists, err
}

// resolverMessage keeps what a resolver says about why it failed, without
// its progress lines and generic advice.
func resolverMessage(out string) string {
	var keep []string
	advice := false
	for _, line := range strings.Split(out, "\n") {
		t := strings.TrimSpace(line)
		switch {
		case t == "":
			advice = false
			continue
		case strings.HasPrefix(t, "To fix this you could try to"):
			advice = true
		}
		if advice {
			continue
		}
		skip := false
		for _, p := range []string{"Looking in ", "Processing ", "Collecting ", "INFO: ", "Downloading ", "Using cached ", "Obtaining ", "...", "Requirement already"} {
			skip = skip || strings.HasPrefix(t, p)
		}
		if !skip {
			keep = append(keep, t)
		}
	}
	if len(keep) == 0 {
		return strings.TrimSpace(out)
	}
	// pip prints its verdict to stderr and the conflict to stdout: verdict
	// first, without the generic help line.
	var first, rest []string
	for _, l := range keep {
		switch {
		case strings.HasPrefix(l, "ERROR: ResolutionImpossible"):
		case strings.HasPrefix(l, "ERROR: "):
			first = append(first, strings.TrimPrefix(l, "ERROR: "))
		default:
			rest = append(rest, l)
		}
	}
	return strings.ReplaceAll(strings.Join(append(first, rest...), "; "), ":; ", ": ")
}

// indexArgs are the installer's index options for opts.Index.
func indexArgs(opts *Options) []string {
	switch {
	case opts.Index != "" && isLocalDir(opts.Index):
		return []string{"--no-index", "--find-links", strings.TrimPrefix(opts.Index, "file://")}
	case opts.Index != "":
		return []string{"--index-url", opts.Index}
	}
	return nil
}

// maxReport bounds a resolver's report.
const maxReport = 32 << 20

// readPipReport reads the distributions of pip's installation report
// (https://pip.pypa.io/en/stable/reference/installation-report/).
func readPipReport(file string) ([]Dist, error) {
	b, err := readCapped(file, maxReport)
	if err != nil {
		return nil, err
	}
	var rep struct {
		Install []struct {
			Metadata struct {
				Name    string `json:"name"`
				Version string `json:"version"`
			} `json:"metadata"`
		} `json:"install"`
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		return nil, fmt.Errorf("reading pip's report: %w", err)
	}
	var out []Dist
	for _, in := range rep.Install {
		out = append(out, Dist{Name: in.Metadata.Name, Version: in.Metadata.Version})
	}
	return sortDists(out)
}

// readUVCompile reads uv pip compile's output: name==version lines.
func readUVCompile(file string) ([]Dist, error) {
	b, err := readCapped(file, maxReport)
	if err != nil {
		return nil, err
	}
	var out []Dist
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' || line[0] == '-' {
			continue
		}
		line, _, _ = strings.Cut(line, ";")
		line, _, _ = strings.Cut(line, " ")
		name, version, ok := strings.Cut(line, "==")
		if !ok {
			return nil, fmt.Errorf("reading uv's resolution: %q is not name==version", sanitize(clipText(line, 80)))
		}
		out = append(out, Dist{Name: name, Version: version})
	}
	return sortDists(out)
}

// sortDists checks names and versions (they become install arguments and
// directory names) and sorts by normalised name.
func sortDists(ds []Dist) ([]Dist, error) {
	for _, d := range ds {
		if !validName(d.Name) || !validVersion(d.Version) {
			return nil, fmt.Errorf("the resolution names %q %q, which is not a distribution and version", sanitize(clipText(d.Name, 80)), sanitize(clipText(d.Version, 40)))
		}
	}
	if len(ds) == 0 {
		return nil, errors.New("the resolution is empty")
	}
	slices.SortFunc(ds, func(a, b Dist) int { return strings.Compare(normName(a.Name), normName(b.Name)) })
	return ds, nil
}

func readCapped(file string, max int64) ([]byte, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("%s is larger than %d bytes", filepath.Base(file), max)
	}
	return b, nil
}

// constraintArgs writes the constraints to a file in dir and returns the
// installer's arguments naming it (pip and uv both take -c FILE); none when
// there are no constraints.
func constraintArgs(dir string, constraints []Constraint) ([]string, error) {
	if len(constraints) == 0 {
		return nil, nil
	}
	var b strings.Builder
	for _, c := range constraints {
		b.WriteString(c.Requirement + "\n")
	}
	cf := filepath.Join(dir, "constraints.txt")
	if err := os.WriteFile(cf, []byte(b.String()), 0o644); err != nil {
		return nil, err
	}
	return []string{"-c", cf}, nil
}
