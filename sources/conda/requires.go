package conda

import (
	"context"
	"fmt"

	"github.com/pinbot-dev/pinbot/sources"
	"github.com/pinbot-dev/pinbot/sources/condafile"
)

var _ sources.Requirer = (*Source)(nil)

// Requires returns the run requirements (depends, MatchSpec strings) of
// release r of pkg, from the file records the channel lists (no request is
// made): those of the file conda would install on linux-64 for the newest
// Python the release has a build for (condafile.Choose), since builds of
// one version differ in their Python and sometimes their pins. A release
// with no such file is an error.
func (s *Source) Requires(_ context.Context, pkg string, r sources.Release) ([]string, error) {
	c := condafile.Choose(condafile.Target{}, r.Files)
	if !c.Found {
		return nil, fmt.Errorf("on %s: %s, so what it requires cannot be read", s.Name(), c.Warning(pkg+" "+r.Version))
	}
	return c.File.Depends, nil
}
