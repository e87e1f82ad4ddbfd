// Package pixi reads the requirements of a pixi manifest, pixi.toml
// (https://pixi.sh/latest/reference/pixi_manifest/): conda dependencies, whose
// values are MatchSpec version specs (numba = ">=0.49") or tables
// ({ version = ">=1", channel = "conda-forge" }), and PyPI dependencies, whose
// values are PEP 440 specifiers or tables ({ version = ">=1", extras = [...] }).
//
// The dependency tables read are [dependencies], [host-dependencies],
// [build-dependencies] and [pypi-dependencies], at the top, in
// [feature.<name>], [target.<platform>] and [feature.<name>.target.<platform>],
// and [package.run-dependencies], [package.host-dependencies] and
// [package.build-dependencies] (with [package.target.<platform>]). Everything
// else (tasks, environments, activation) is ignored, whatever it mentions. The
// file is read with pins/internal/tomlwalk, so every string maps to its bytes.
package pixi

import (
	"github.com/pinbot-dev/pinbot/pins"
	"github.com/pinbot-dev/pinbot/pins/internal/piximan"
	"github.com/pinbot-dev/pinbot/pins/internal/tomlwalk"
)

// Name is the format's identifier.
const Name = "pixi"

// Format reads pixi.toml manifests.
type Format struct{}

var _ pins.Format = Format{}

// Name returns "pixi".
func (Format) Name() string { return Name }

// Match reports whether the file is named pixi.toml.
func (Format) Match(path string) bool { return pins.Base(path) == "pixi.toml" }

// Extract returns the dependencies of the manifest in file order. Conda ones
// have Scheme "conda" and Source the table's channel, else the first of the
// workspace's channels in priority order (all of them in Channels), else
// "conda"; PyPI ones have Scheme "pep440" and Source "pypi".
func (Format) Extract(path string, data []byte) ([]pins.Pin, error) {
	r := piximan.New()
	err := tomlwalk.Walk(path, data, func(d *tomlwalk.Doc, v tomlwalk.Value) error {
		r.Visit(d, v)
		return nil
	})
	if err != nil {
		return nil, err
	}
	out, errs := r.Pins(path, data)
	return out, pins.Skip(errs)
}

var _ pins.ChannelNamer = Format{}

// Channels returns the workspace's channels, in the order written
// (pins.ChannelNamer): the conda dependencies that name no channel follow
// them in pixi's priority order (Pin.Channels).
func (Format) Channels(path string, data []byte) ([]string, error) {
	return piximan.Channels(path, data)
}
