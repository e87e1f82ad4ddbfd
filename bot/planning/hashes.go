package planning

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"

	"github.com/pinbot-dev/pinbot/bot/planning/plan"
	"github.com/pinbot-dev/pinbot/internal/diag"
	"github.com/pinbot-dev/pinbot/pins"
	"github.com/pinbot-dev/pinbot/pins/requirements"
)

// A Hasher gives the sha256 digests (hex) of the files of one release, the
// hashes a requirements file's --hash options list for it. A source that is
// one (*pypi.Source) lets pinbot move the == pins of files in pip's
// hash-checking mode.
type Hasher interface {
	Hashes(ctx context.Context, pkg, version string) ([]string, error)
}

// hashKey names one release on one source.
type hashKey struct{ source, pkg, version string }

// holdHashed settles the pins of one package whose hash options must change
// with their version (pins.Pin.HashText: an == pin with --hash options),
// from p, the package's plan over ps. A pin p moves needs the new version's
// hashes, fetched now from its source so that the report says what a write
// will do; a pin that does not move, or whose new hashes cannot be had, is
// marked skipped in ps with the reason, as every hash-locked pin used to be.
// It reports whether it marked any: the package is then planned again, so that
// its status and drift leave those pins out while its other pins still move.
func (c *Checker) holdHashed(ctx context.Context, log *slog.Logger, p plan.Plan, ps []pins.Pin) bool {
	if len(p.Pins) != len(ps) {
		return false // plan.Make keeps the pins in order; anything else is a bug caught by Apply
	}
	held := false
	for i, pp := range p.Pins {
		if pp.Pin.HashText == "" {
			continue
		}
		var why string
		if !pp.Changed {
			why = fmt.Sprintf("hash-locked: line %d pins files by --hash; pinbot writes new hashes only for an == pin it moves", pp.Pin.Line)
			if r := strings.TrimPrefix(pp.Reason, "not edited: "); r != "" {
				why += ", and this one stays: " + r
			}
		} else if version, _, err := c.newHashes(ctx, log, pp.Pin, pp.New); err != nil {
			why = fmt.Sprintf("hash-locked: no new hashes for %s %s, so the pin stays: %v", p.Name, version, err)
		}
		if why != "" {
			ps[i].Skip, held = why, true
		}
	}
	return held
}

// hashPins notes in the reason of each hash-locked pin that moves that its
// hashes are replaced. Such a pin moved to another version than holdHashed
// saw (the checks capped it at an older release) gets that version's hashes;
// when they cannot be had, it stays, with the reason.
func (c *Checker) hashPins(ctx context.Context, log *slog.Logger, plans []plan.Plan) {
	for i := range plans {
		p := &plans[i]
		for j := range p.Pins {
			pp := &p.Pins[j]
			if pp.Pin.HashText == "" || !pp.Changed {
				continue
			}
			version, digests, err := c.newHashes(ctx, log, pp.Pin, pp.New)
			if err != nil {
				pp.Pin.Skip = fmt.Sprintf("hash-locked: no new hashes for %s %s, so the pin stays: %v", p.Name, version, err)
				p.Revert(j, "not edited: "+pp.Pin.Skip)
				continue
			}
			files := fmt.Sprintf("%d files", len(digests))
			if len(digests) == 1 {
				files = "1 file"
			}
			pp.Reason += fmt.Sprintf("; its --hash options become the sha256 hashes of %s %s on %s (%s)", p.Name, version, pp.Pin.Source, files)
		}
	}
}

// hashExtra returns the Extra of the edit that moves p to the constraint
// newC: p's hash options replaced by the new version's hashes. A pin without
// hash options, or one that keeps its constraint, needs none.
func (c *Checker) hashExtra(ctx context.Context, log *slog.Logger, data []byte, p pins.Pin, newC string) ([]pins.Replace, error) {
	if p.HashText == "" || newC == p.Constraint {
		return nil, nil
	}
	_, digests, err := c.newHashes(ctx, log, p, newC)
	if err != nil {
		return nil, diag.Errorf(p.File, p.Line, p.Col, p.Key, "cannot write the new hashes: %v", err)
	}
	r, err := requirements.Rehash(data, p, digests)
	if err != nil {
		return nil, err
	}
	return []pins.Replace{r}, nil
}

// newHashes returns the version the == constraint newC names and the sha256
// digests of its files on p's source, sorted.
func (c *Checker) newHashes(ctx context.Context, log *slog.Logger, p pins.Pin, newC string) (string, []string, error) {
	version, ok := strings.CutPrefix(strings.TrimSpace(newC), "==")
	version = strings.TrimSpace(version)
	if !ok || version == "" || strings.ContainsAny(version, "=,*") {
		return version, nil, fmt.Errorf("the new constraint %q is not an == pin", newC)
	}
	digests, err := c.releaseHashes(ctx, log, p.Source, p.Package, version)
	return version, digests, err
}

// releaseHashes returns the sha256 digests of the files of pkg's version on
// the named source, sorted and without duplicates, asking the source once per
// check: the report and the files written (by check --write, or for run's pull
// requests after the check) carry the same hashes.
func (c *Checker) releaseHashes(ctx context.Context, log *slog.Logger, source, pkg, version string) ([]string, error) {
	key := hashKey{source, pkg, version}
	c.hashMu.Lock()
	hs, ok := c.hashCache[key]
	c.hashMu.Unlock()
	if ok {
		return hs, nil
	}
	src, err := c.source(source)
	if err != nil {
		return nil, err
	}
	h, ok := src.(Hasher)
	if !ok {
		return nil, fmt.Errorf("the %s source gives no file hashes", source)
	}
	log.Info("fetching hashes", "package", pkg, "version", version, "source", source)
	got, err := h.Hashes(ctx, pkg, version)
	if err != nil {
		return nil, err
	}
	for _, d := range got {
		d = strings.ToLower(d)
		if len(d) != 64 || strings.Trim(d, "0123456789abcdef") != "" {
			return nil, fmt.Errorf("%s gave %q for a file of %s %s, which is not a sha256 digest", source, d, pkg, version)
		}
		hs = append(hs, d)
	}
	if len(hs) == 0 {
		return nil, fmt.Errorf("%s lists no files with sha256 hashes for %s %s", source, pkg, version)
	}
	slices.Sort(hs)
	hs = slices.Compact(hs)
	c.hashMu.Lock()
	if c.hashCache == nil {
		c.hashCache = map[hashKey][]string{}
	}
	c.hashCache[key] = hs
	c.hashMu.Unlock()
	return hs, nil
}
