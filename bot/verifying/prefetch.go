package verifying

import (
	"context"
	"errors"
	"path/filepath"
	"strings"

	"github.com/pinbot-dev/pinbot/config"
)

// A Prefetched is an artifact Prefetch put in (or found in) the store.
type Prefetched struct {
	Package, Version string
	// File is the artifact's name; Path its place in the store, relative to
	// the store's directory (sha256/XX/DIGEST/NAME).
	File, Path string
}

// Prefetch fetches into the artifact store the files the checks of req's
// first candidate would read, choosing them as the checks do (probeWheel,
// scanWheel, againstWheel, for the wheel target of this Verifier): the
// wheel static probes read, the wheel dynamic probes install and those of
// req.With installed beside it, the wheels a symbol scan reads (the
// candidate's and its against packages' at the versions req.Installs
// gives). Check jobs that share the store then find them there.
func (v *Verifier) Prefetch(ctx context.Context, req Request) ([]Prefetched, error) {
	if v.Artifacts == nil {
		return nil, errors.New("prefetch needs an artifact store")
	}
	if len(req.Candidates) == 0 {
		return nil, errors.New("no release to prefetch")
	}
	name, settings, r := req.Package, req.Settings, req.Candidates[0]
	var out []Prefetched
	add := func(pkg, version, path string) {
		rel, err := filepath.Rel(v.Artifacts.Dir, path)
		if err != nil {
			rel = path
		}
		out = append(out, Prefetched{Package: pkg, Version: version, File: filepath.Base(path), Path: filepath.ToSlash(rel)})
	}
	if len(settings.Probes) > 0 {
		w, _, err := v.probeWheel(ctx, r, settings)
		if err != nil {
			return out, err
		}
		add(name, r.Version, w.Path)
		// Dynamic probes install the wheel pip picks for the probe
		// interpreter, which a wheel target set for symbol scans may not be.
		if f, ok := v.installWheel(ctx, r); ok {
			p, err := v.Artifacts.Fetch(ctx, f)
			if err != nil {
				return out, err
			}
			if p != w.Path {
				add(name, r.Version, p)
			}
		}
		// A group member's probes install the other members beside it:
		// their wheels for the probe interpreter, which storedWheels then
		// finds.
		for _, w := range req.With {
			if w.Release == nil {
				continue
			}
			f, ok := v.installWheel(ctx, *w.Release)
			if !ok {
				continue
			}
			p, err := v.Artifacts.Fetch(ctx, f)
			if err != nil {
				return out, err
			}
			member, _, _ := strings.Cut(w.Requirement, "==")
			add(member, w.Release.Version, p)
		}
	}
	if settings.Symbols != nil {
		spec, err := settings.Symbols.Resolve()
		if err != nil {
			return out, err
		}
		target, err := v.target(ctx, spec.Wheel)
		if err != nil {
			return out, err
		}
		p, _, err := v.scanWheel(ctx, name, r, target)
		if err != nil {
			return out, err
		}
		if p != "" {
			add(name, r.Version, p)
		}
		for _, a := range spec.Against {
			if p, _, _ := v.againstWheel(ctx, a, req.Installs, target); p != "" {
				add(config.Key(a), "", p)
			}
		}
	}
	return out, nil
}
