package planning_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/pinbot-dev/pinbot/sources"
)

// literal is a release source that answers from memory.
type literal struct {
	name     string
	releases map[string][]string // package -> versions
}

func (l literal) Name() string { return l.name }

func (l literal) Releases(_ context.Context, pkg string) ([]sources.Release, error) {
	vs, ok := l.releases[pkg]
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
