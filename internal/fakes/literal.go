package fakes

import (
	"context"
	"fmt"
	"strings"

	"github.com/pinbot-dev/pinbot/sources"
)

// A Literal is a release source that answers from memory, for tests of
// planning that need no HTTP: Releases maps a package to its versions, each
// with one wheel-named file; a version written "1.2.0!yanked" is yanked. A
// package it does not list is sources.ErrNotFound.
type Literal struct {
	Source   string              // the source's name ("pypi", "conda-forge", "goproxy")
	Versions map[string][]string // package -> versions
}

// Name returns the source's name.
func (l Literal) Name() string { return l.Source }

// Releases returns pkg's releases, in the order listed.
func (l Literal) Releases(_ context.Context, pkg string) ([]sources.Release, error) {
	vs, ok := l.Versions[pkg]
	if !ok {
		return nil, fmt.Errorf("%s: %w", pkg, sources.ErrNotFound)
	}
	var rs []sources.Release
	for _, v := range vs {
		r := sources.Release{Version: v, Files: []sources.File{{Name: pkg + "-" + v + ".whl"}}}
		if y, ok := strings.CutSuffix(v, "!yanked"); ok {
			r.Version, r.Yanked = y, true
		}
		rs = append(rs, r)
	}
	return rs, nil
}

var _ sources.Source = Literal{}
