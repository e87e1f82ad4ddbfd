package planning

import (
	"errors"
	"slices"

	"github.com/pinbot-dev/pinbot/bot/report"
	"github.com/pinbot-dev/pinbot/internal/diag"
	"github.com/pinbot-dev/pinbot/internal/repofs"
	"github.com/pinbot-dev/pinbot/pins"
	"github.com/pinbot-dev/pinbot/pins/requirements"
)

// followIncludes adds to files the files that the requirements files among
// them include (-r, -c), transitively, read with the requirements format
// whatever their names; it records each included file's chain in rep and
// each include that cannot be followed (a missing file, a cycle) in
// rep.Errors, and each include it does not follow (a URL, a ${VAR}, a path
// outside the repository) in rep.Warnings. Files that such an include breaks are dropped, so they are
// neither planned nor written. Includes are read through repo: one that
// leads outside the repository, or to what is not a regular file within
// repofs.MaxFileSize, is an error naming its include line.
func (c *Checker) followIncludes(repo *repofs.Root, files []pins.Found, rep *report.Report) []pins.Found {
	var roots []string
	have := map[string]bool{}
	for _, f := range files {
		have[f.Path] = true
		if f.Format.Name() == requirements.Name {
			roots = append(roots, f.Path)
		}
	}
	if len(roots) == 0 {
		return files
	}
	found, broken, unfollowed, err := requirements.Follow(roots, repo.ReadFile)
	for _, e := range unfollowed {
		rep.Warnings = append(rep.Warnings, e.Error())
	}
	for _, in := range found {
		inc := report.Include{File: in.Path}
		for _, hop := range in.Chain {
			inc.Chain = append(inc.Chain, hop.String())
		}
		rep.Includes = append(rep.Includes, inc)
		if !have[in.Path] {
			have[in.Path] = true
			files = append(files, pins.Found{Path: in.Path, Format: requirements.Format{}})
		}
	}
	if len(broken) > 0 {
		files = slices.DeleteFunc(files, func(f pins.Found) bool { return slices.Contains(broken, f.Path) })
	}
	var list diag.List
	if errors.As(err, &list) {
		for _, e := range list {
			rep.Errors = append(rep.Errors, e.Error())
		}
	} else if err != nil {
		rep.Errors = append(rep.Errors, err.Error())
	}
	return files
}
