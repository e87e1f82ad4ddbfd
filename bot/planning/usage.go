package planning

import (
	"context"
	"log/slog"

	"github.com/pinbot-dev/pinbot/bot/planning/plan"
	"github.com/pinbot-dev/pinbot/checks/usage"
	"github.com/pinbot-dev/pinbot/config"
	"github.com/pinbot-dev/pinbot/internal/repofs"
)

// usageRefs finds, once per run, every reference the repository's Python
// code makes to the planned packages whose usage checks are on (usage:
// auto, the default), for the verifier to judge beside their probes (issue
// #29). It reads nothing without a verifier, and looks for no package
// whose plan failed. The warnings name the files that could not be read or
// parsed (each skipped; the others are read).
func (c *Checker) usageRefs(ctx context.Context, log *slog.Logger, repo *repofs.Root, plans []plan.Plan, watched map[string]*config.Package) (map[string][]usage.Ref, []string) {
	if c.Verifier == nil {
		return nil, nil
	}
	var pkgs []usage.Package
	for _, p := range plans {
		if p.Status != plan.Error && watched[p.Name].UsageOn() {
			pkgs = append(pkgs, usage.Package{Name: p.Name})
		}
	}
	if len(pkgs) == 0 {
		return nil, nil
	}
	res, err := usage.Find(ctx, repo.FS(), usage.Options{Packages: pkgs, Include: c.Config.Usage.Include, Exclude: c.Config.Usage.Exclude})
	if err != nil {
		log.Warn("the usage checks could not read the repository's Python code", "err", err)
		return nil, []string{"usage checks: the repository's Python code could not be read: " + err.Error()}
	}
	out := map[string][]usage.Ref{}
	for _, r := range res.Refs {
		out[r.Package] = append(out[r.Package], r)
	}
	var warnings []string
	for _, w := range res.Warnings {
		warnings = append(warnings, "usage checks: "+w.Error())
	}
	log.Info("found the repository's references to the watched packages", "files", res.Files, "references", len(res.Refs))
	return out, warnings
}

// checked reports whether a package has checks in this run: its probes or
// symbol scan, or the usage checks of the names its code uses from it.
func checked(settings *config.Package, refs []usage.Ref) bool {
	return settings.HasChecks() || settings.UsageOn() && len(refs) > 0
}

// earlyWarns reports whether a package's checks run against a pre-release
// newer than its target: whenever it has checks, unless early-warning:
// false.
func earlyWarns(settings *config.Package, refs []usage.Ref) bool {
	return checked(settings, refs) && settings.EarlyWarningOn()
}
