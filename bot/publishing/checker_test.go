package publishing_test

import (
	"github.com/pinbot-dev/pinbot/bot/planning"
	"github.com/pinbot-dev/pinbot/config"
	"github.com/pinbot-dev/pinbot/internal/fakes"
	"github.com/pinbot-dev/pinbot/pins/all"
	"github.com/pinbot-dev/pinbot/sources"
	schemes "github.com/pinbot-dev/pinbot/versions/all"
)

var pythonReleases = map[string][]string{
	"numba":          {"0.56.4", "0.57.1", "0.58.1", "0.59.1", "0.60.0", "0.61.2", "0.62.1", "0.63.0b1", "0.63.1", "0.64.0", "0.65.1", "0.66.0", "0.67.0rc1", "0.67.0"},
	"llvmlite":       {"0.41.1", "0.44.0", "0.48.0", "0.49.0"},
	"tensorflow":     {"2.15.1", "2.16.1", "2.19.1", "2.20.0", "2.21.0rc0"},
	"tensorflow-cpu": {"2.16.1", "2.20.0"},
	"protobuf":       {"5.29.3", "6.33.0"},
	"jax":            {"0.4.13", "0.8.1"},
	"jaxlib":         {"0.4.22", "0.8.1"},
	"libprotobuf":    {"5.29.3", "6.31.1"},
}

// newChecker returns a checker over root watching the corpus's packages, with
// literal release sources.
func newChecker(root string) *planning.Checker {
	cfg := config.Default()
	for n := range pythonReleases {
		cfg.Packages[n] = &config.Package{}
	}
	srcs := map[string]sources.Source{}
	for _, n := range []string{"pypi", "conda", "conda-forge", "goproxy"} {
		srcs[n] = fakes.Literal{Source: n, Versions: pythonReleases}
	}
	return &planning.Checker{Root: root, Config: cfg, Formats: all.Formats(), Sources: srcs, Schemes: schemes.Schemes()}
}
