package config

import (
	"cmp"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/pinbot-dev/pinbot/internal/diag"
	"github.com/pinbot-dev/pinbot/sources/conda"
)

// EarlyWarnings is the mapping form of packages.NAME.early-warning
// (early-warning: {nightly: ...}): the early warning on, pre-releases
// included, and where the package's nightly builds are, whose checks warn
// weeks before a release candidate does (docs/early-warning.md).
type EarlyWarnings struct {
	// NightlyPreset is the preset form of nightly (nightly:
	// scientific-python); its mapping form is Nightly.
	NightlyPreset string `yaml:"nightly,mapping=Nightly"`
	// Nightly says where the nightly builds are (nightly: {index: URL}).
	Nightly *Nightly `yaml:"-"`
}

// The nightly presets: names for the indexes projects publish their nightly
// builds to.
const (
	// NightlyScientificPython is the scientific-python-nightly-wheels index
	// of SPEC 4 (numpy, scipy, pandas, matplotlib, scikit-learn, ...).
	NightlyScientificPython = "scientific-python"
)

// ScientificPythonNightlyIndex is the PEP 503/691 index of the
// scientific-python preset.
const ScientificPythonNightlyIndex = "https://pypi.anaconda.org/scientific-python-nightly-wheels/simple"

// Validate checks the preset name and that the two forms are not both set.
func (e *EarlyWarnings) Validate() error {
	if err := oneOf("nightly", e.NightlyPreset, "", NightlyScientificPython); err != nil {
		return err
	}
	return nil
}

// A Nightly is where a package's nightly builds are: exactly one of a PEP
// 503/691 index, a find-links page, another project on the package's own
// index, or a conda channel.
type Nightly struct {
	// Index is a PEP 503/691 simple index (PyTorch's
	// https://download.pytorch.org/whl/nightly/cpu).
	Index string `yaml:"index"`
	// FindLinks is an HTML page of links to wheels, as pip's --find-links
	// reads it.
	FindLinks string `yaml:"find-links"`
	// Project is another project on the package's own index that
	// publishes the same code under another name (tf-nightly for
	// tensorflow); its modules keep their import names.
	Project string `yaml:"project"`
	// Channel is a conda channel, most often a label channel
	// (numba/label/dev).
	Channel string `yaml:"channel"`
}

// The kinds of Nightly, as Nightly.Kind names them.
const (
	NightlyIndex     = "index"
	NightlyFindLinks = "find-links"
	NightlyProject   = "project"
	NightlyChannel   = "channel"
)

// projectRE is a PyPI project name (PEP 508), compiled when first used:
// only a configuration with a nightly project needs it.
var projectRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[A-Za-z0-9]([A-Za-z0-9._-]{0,198}[A-Za-z0-9])?$`)
})

// Validate checks that exactly one place is named, and that it is one.
func (n *Nightly) Validate() error {
	set := 0
	for _, v := range []string{n.Index, n.FindLinks, n.Project, n.Channel} {
		if v != "" {
			set++
		}
	}
	if set != 1 {
		return fmt.Errorf("expected exactly one of index, find-links, project or channel, found %d", set)
	}
	for _, kv := range [][2]string{{"index", n.Index}, {"find-links", n.FindLinks}} { // in order: one error, the same each run
		if err := checkURL(kv[1]); err != nil {
			return fmt.Errorf("%s: %w", kv[0], err)
		}
	}
	if n.Project != "" && !projectRE().MatchString(n.Project) {
		return fmt.Errorf("project: %q is not a project name (such as tf-nightly)", n.Project)
	}
	if n.Channel != "" && !conda.ValidChannel(n.Channel) {
		return fmt.Errorf("channel: %q is not a channel name (such as numba/label/dev)", n.Channel)
	}
	return nil
}

// Kind names where n is: NightlyIndex, NightlyFindLinks, NightlyProject or
// NightlyChannel.
func (n Nightly) Kind() string {
	switch {
	case n.Index != "":
		return NightlyIndex
	case n.FindLinks != "":
		return NightlyFindLinks
	case n.Project != "":
		return NightlyProject
	}
	return NightlyChannel
}

// Where is what n names: the URL, the project or the channel.
func (n Nightly) Where() string {
	return n.Index + n.FindLinks + n.Project + n.Channel
}

// NightlySource returns where the package's nightly builds are, the preset
// resolved (scientific-python is its index); false when the configuration
// names none. A package without checks names one only as a member of a
// group, whose other members' checks install its nightly beside theirs.
func (p *Package) NightlySource() (Nightly, bool) {
	if p == nil || p.EarlyWarnings == nil {
		return Nightly{}, false
	}
	e := p.EarlyWarnings
	switch {
	case e.Nightly != nil:
		n := *e.Nightly
		n.Index, n.FindLinks = strings.TrimRight(n.Index, "/"), strings.TrimSpace(n.FindLinks)
		return n, true
	case e.NightlyPreset == NightlyScientificPython:
		return Nightly{Index: ScientificPythonNightlyIndex}, true
	}
	return Nightly{}, false
}

// checkEarlyWarning checks that every package whose early warning is asked
// for (early-warning: true, or its mapping form) has checks to run (probes,
// a symbol scan, or usage checks, on unless usage: off), or, for
// a nightly source, is a member of a group, whose other members' checks
// install its nightly beside theirs: a fleet's defaults may give the probes
// a repository's file turns the early warning on for, so it is checked once
// the files are merged.
func (c *Config) checkEarlyWarning() error {
	var errs diag.List
	for _, name := range c.Watched() {
		p := c.Packages[name]
		if p == nil || p.HasChecks() || p.UsageOn() {
			continue // usage checks give a package whose code uses it checks
		}
		key := cmp.Or(p.KeyPath(), "packages."+name) + ".early-warning"
		group, _ := c.GroupOf(name)
		switch {
		case p.EarlyWarnings != nil && p.EarlyWarnings.NightlyPreset == "" && p.EarlyWarnings.Nightly == nil:
			errs = append(errs, c.Errorf(key, "the package has no probes or symbols to run against a pre-release, and usage: off"))
		case p.EarlyWarnings != nil && group == "":
			errs = append(errs, c.Errorf(key, "the package has no probes or symbols to run against a nightly build, usage: off, and is in no group whose members' checks would install it"))
		case p.EarlyWarning != nil && *p.EarlyWarning:
			errs = append(errs, c.Errorf(key, "true, but the package has no probes or symbols to run against a pre-release, and usage: off"))
		}
	}
	return errs.Err()
}
