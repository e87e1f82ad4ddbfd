package config

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/pinbot-dev/pinbot/checks/probe"
	"github.com/pinbot-dev/pinbot/checks/symbols"
	"github.com/pinbot-dev/pinbot/internal/diag"
	"github.com/pinbot-dev/pinbot/sources/conda"
	"github.com/pinbot-dev/pinbot/sources/condafile"
	"github.com/pinbot-dev/pinbot/sources/goproxy"
	"github.com/pinbot-dev/pinbot/sources/pypi"
	"github.com/pinbot-dev/pinbot/versions"
)

// Sources configures the release sources.
type Sources struct {
	PyPI    PyPI    `yaml:"pypi"`
	Conda   Conda   `yaml:"conda"`
	GoProxy GoProxy `yaml:"goproxy"`
}

// PyPI configures the PyPI source: pypi.org or any index serving the same APIs.
type PyPI struct {
	URL string `yaml:"url"`
	// API selects the JSON API ("json", /pypi/NAME/json, the default) or the
	// PEP 691 simple API ("simple", /simple/NAME/), which every index serves.
	API string `yaml:"api"`
}

// Validate checks the URL and the API name.
func (p *PyPI) Validate() error {
	if err := checkURL(p.URL); err != nil {
		return fmt.Errorf("url: %w", err)
	}
	return oneOf("api", p.API, "", "json", "simple")
}

// Conda configures the conda source.
type Conda struct {
	// URL is the anaconda.org API (default https://api.anaconda.org).
	URL string `yaml:"url"`
	// Channels are the channels to ask (default [conda-forge]); each is also a
	// source name for require.
	Channels []string `yaml:"channels"`
	// Labels are the labels that count (default [main]).
	Labels []string `yaml:"labels"`
	// RepodataURL is a channel host serving CEP-16 sharded repodata (such as
	// https://prefix.dev); when set it is used instead of the API.
	RepodataURL string `yaml:"repodata-url"`
}

// Validate checks the URLs and channel names.
func (c *Conda) Validate() error {
	for _, kv := range [][2]string{{"url", c.URL}, {"repodata-url", c.RepodataURL}} { // in order: one error, the same each run
		if err := checkURL(kv[1]); err != nil {
			return fmt.Errorf("%s: %w", kv[0], err)
		}
	}
	for i, ch := range c.Channels {
		if !conda.ValidChannel(ch) {
			return fmt.Errorf("channels[%d]: %q is not a channel name (such as conda-forge, or numba/label/dev)", i, ch)
		}
	}
	return nil
}

// SourceNames returns the names of the release sources the configuration
// sets up, which packages.NAME.require may name: pypi, goproxy, each
// channel of sources.conda.channels (default conda-forge) and conda, the
// alias of the first channel.
func (c *Config) SourceNames() []string {
	channels := c.Sources.Conda.Channels
	if len(channels) == 0 {
		channels = []string{conda.DefaultChannel}
	}
	return append([]string{pypi.Name, goproxy.Name, conda.Alias}, channels...)
}

// checkRequire checks that every packages.NAME.require entry names a source
// the configuration sets up: a typo (pypy) would otherwise only fail the
// package's lookup, after the network calls.
func (c *Config) checkRequire() error {
	var errs diag.List
	known := c.SourceNames()
	for _, name := range c.Watched() {
		p := c.Packages[name]
		if p == nil {
			continue
		}
		for i, r := range p.Require {
			if !slices.Contains(known, r) {
				errs = append(errs, c.Errorf(fmt.Sprintf("%s.require[%d]", cmp.Or(p.KeyPath(), "packages."+name), i),
					"unknown source %q (expected one of: %s; a conda channel is a source once sources.conda.channels lists it)", r, strings.Join(known, ", ")))
			}
		}
	}
	return errs.Err()
}

// GoProxy configures the Go module proxy source; the default follows GOPROXY.
type GoProxy struct {
	URL string `yaml:"url"`
}

// Validate checks the URL.
func (g *GoProxy) Validate() error {
	if err := checkURL(g.URL); err != nil {
		return fmt.Errorf("url: %w", err)
	}
	return nil
}

// A Package configures how one watched package's pins move.
type Package struct {
	// Cap is the cap strategy (default inclusive).
	Cap Strategy `yaml:"cap"`
	// Prereleases lets pre-releases be targets.
	Prereleases bool `yaml:"prereleases"`
	// AddCap gives a pin with no upper bound one (default true).
	AddCap *bool `yaml:"add-cap"`
	// Yanked says what to do when a cap names a yanked release: "report"
	// (default) or "follow" (lower the cap to the newest good release).
	Yanked string `yaml:"yanked"`
	// Unify brings every pin of the package to one range across files.
	Unify bool `yaml:"unify"`
	// Require lists sources that must all have a release before any cap moves
	// to it, such as [pypi, conda-forge].
	Require []string `yaml:"require"`
	// Platforms are the conda subdirs (linux-64, osx-arm64, ...) a release must
	// be available for, on conda and as matching wheels on PyPI.
	Platforms []string `yaml:"platforms"`
	// Python lists the project's Python versions ("3.12") wheels must serve.
	Python []string `yaml:"python"`
	// MinAge ignores releases younger than this ("3d", "12h").
	MinAge Duration `yaml:"min-age"`
	// Probes are internal-API probes run against a candidate release before
	// a cap moves to it (checks/probe).
	Probes []probe.Spec `yaml:"probes"`
	// Symbols configures the ELF symbol scan of a candidate's wheels
	// (checks/symbols).
	Symbols *symbols.Spec `yaml:"symbols"`
	// ProbeEnvironment configures the environments dynamic probes run in.
	ProbeEnvironment ProbeEnvironment `yaml:"probe-environment"`
	// EarlyWarning runs the package's checks against a pre-release newer
	// than the target, when there is one (default on for a package with
	// checks; see EarlyWarns). It is the boolean form of the early-warning
	// key; its mapping form is EarlyWarnings.
	EarlyWarning *bool `yaml:"early-warning,mapping=EarlyWarnings"`
	// EarlyWarnings is early-warning's mapping form
	// (early-warning: {nightly: scientific-python}): on, with where the
	// package's nightly builds are (NightlySource).
	EarlyWarnings *EarlyWarnings `yaml:"-"`
	// Solve, when set, overrides the global solve for this package.
	Solve *bool `yaml:"solve"`
	// Usage is "auto" (the default: the repository's Python code is read
	// for the names it uses from the package) or "off".
	Usage string `yaml:"usage"`

	// key is the package's key path as written ("packages.Numba"), for
	// errors found after decoding.
	key string
}

// KeyPath returns the package's key path as written in the configuration
// ("packages.Numba"); "" for a package the file does not name.
func (p *Package) KeyPath() string {
	if p == nil {
		return ""
	}
	return p.key
}

// ProbeEnvironment configures a package's probe environments.
type ProbeEnvironment struct {
	// Constraints is "project" (default: the project's own pins of other
	// packages constrain the environment, as pip -c does) or "none".
	Constraints string `yaml:"constraints"`
}

// ProbeConstraintsProject and ProbeConstraintsNone are the values of
// probe-environment.constraints.
const (
	ProbeConstraintsProject = "project"
	ProbeConstraintsNone    = "none"
)

// Validate checks the constraints setting.
func (e *ProbeEnvironment) Validate() error {
	return oneOf("constraints", e.Constraints, "", ProbeConstraintsProject, ProbeConstraintsNone)
}

// ProjectConstraints reports whether the project's pins constrain probe
// environments (the default).
func (p *Package) ProjectConstraints() bool {
	return p == nil || p.ProbeEnvironment.Constraints != ProbeConstraintsNone
}

// UsageAuto and UsageOff are the values of packages.NAME.usage.
const (
	UsageAuto = "auto"
	UsageOff  = "off"
)

// UsageOn reports whether the repository's code is read for the names it
// uses from the package (usage: auto, the default).
func (p *Package) UsageOn() bool { return p == nil || p.Usage != UsageOff }

// HasChecks reports whether the package asks for probes or a symbol scan.
func (p *Package) HasChecks() bool { return p != nil && (len(p.Probes) > 0 || p.Symbols != nil) }

// EarlyWarns reports whether the package's probes and symbol scan are run
// against a pre-release newer than its target: on for a package with
// them, unless early-warning: false (the mapping form is on). A run whose
// usage checks give a package checks early-warns it too (bot/planning,
// EarlyWarningOn).
func (p *Package) EarlyWarns() bool { return p.HasChecks() && p.EarlyWarningOn() }

// EarlyWarningOn reports whether the package's early warning is on
// whenever it has checks: unless early-warning: false.
func (p *Package) EarlyWarningOn() bool {
	return p == nil || p.EarlyWarning == nil || *p.EarlyWarning || p.EarlyWarnings != nil
}

// Validate checks the package's values.
func (p *Package) Validate() error {
	if err := oneOf("yanked", p.Yanked, "", "report", "follow"); err != nil {
		return err
	}
	if err := oneOf("usage", p.Usage, "", UsageAuto, UsageOff); err != nil {
		return err
	}
	for i, r := range p.Require {
		// pypi, goproxy and conda are written as channel names are.
		if !conda.ValidChannel(r) {
			return fmt.Errorf("require[%d]: %q is not a source name", i, r)
		}
	}
	for i, pl := range p.Platforms {
		if !condafile.KnownSubdir(pl) {
			return fmt.Errorf("platforms[%d]: %q is not a conda platform (expected one of: %s)", i, pl, strings.Join(condafile.KnownSubdirs, ", "))
		}
	}
	for i, py := range p.Python {
		if !pythonRE().MatchString(py) {
			return fmt.Errorf("python[%d]: %q is not a Python version such as 3.12", i, py)
		}
	}
	return nil
}

// Policy returns the package's cap policy with defaults applied.
func (p *Package) Policy() versions.Policy {
	pol := versions.Policy{Strategy: versions.Inclusive, AddCap: true}
	if p == nil {
		return pol
	}
	if p.Cap != "" {
		pol.Strategy = versions.Strategy(p.Cap)
	}
	if p.AddCap != nil {
		pol.AddCap = *p.AddCap
	}
	return pol
}

// A Strategy is a cap strategy name as written in the configuration.
type Strategy string

// strategies are the cap strategies this version of pinbot implements.
var strategies = []versions.Strategy{versions.Inclusive, versions.Exclusive, versions.Preserve}

// UnmarshalText accepts the implemented strategy names.
func (s *Strategy) UnmarshalText(b []byte) error {
	names := make([]string, len(strategies))
	for i, known := range strategies {
		if string(b) == string(known) {
			*s = Strategy(b)
			return nil
		}
		names[i] = string(known)
	}
	return fmt.Errorf("unknown cap strategy %q (expected one of: %s)", b, strings.Join(names, ", "))
}

// A Duration is a length of time written as a Go duration ("12h", "90m") or in
// days or weeks ("3d", "2w").
type Duration time.Duration

// dayRE is a duration in days or weeks, compiled when first used (only a
// config that sets such a duration needs it).
var dayRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(\d+)([dw])$`) })

// UnmarshalText parses a duration.
func (d *Duration) UnmarshalText(b []byte) error {
	s := string(b)
	if m := dayRE().FindStringSubmatch(s); m != nil {
		n, _ := strconv.Atoi(m[1])
		unit := 24 * time.Hour
		if m[2] == "w" {
			unit *= 7
		}
		*d = Duration(time.Duration(n) * unit)
		return nil
	}
	v, err := time.ParseDuration(s)
	if err != nil || v < 0 {
		return fmt.Errorf("expected a duration such as 3d, 12h or 1w, found %q", s)
	}
	*d = Duration(v)
	return nil
}

// pythonRE matches Python versions ("3.12"); it is compiled when first
// used, as only a config that names Python versions needs it.
var pythonRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^3\.\d{1,2}$`) })

func oneOf(key, v string, allowed ...string) error {
	for _, a := range allowed {
		if v == a {
			return nil
		}
	}
	return fmt.Errorf("%s: unknown value %q (expected one of: %s)", key, v, strings.Join(allowed[1:], ", "))
}
