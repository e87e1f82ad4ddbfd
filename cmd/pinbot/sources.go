package main

import (
	"net/http"

	"github.com/pinbot-dev/pinbot/config"
	"github.com/pinbot-dev/pinbot/sources"
	"github.com/pinbot-dev/pinbot/sources/pypi"
)

// newSources builds the release sources the configuration describes.
func newSources(cfg *config.Config, hc *http.Client) map[string]sources.Source {
	return map[string]sources.Source{
		pypi.Name: pypi.New(cfg.Sources.PyPI.URL, hc),
	}
}
