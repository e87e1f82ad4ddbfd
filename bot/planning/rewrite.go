package planning

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"

	"github.com/pinbot-dev/pinbot/bot/report"
	"github.com/pinbot-dev/pinbot/config"
	"github.com/pinbot-dev/pinbot/internal/repofs"
	"github.com/pinbot-dev/pinbot/pins"
)

// A Rewritten is a pin file with a pull request's edits applied: Content,
// and Base, the file as it was read.
type Rewritten struct {
	// Path is the file itself, slash-separated and relative to the root,
	// its links resolved: for a pin file the report names by a link
	// (requirements.txt -> deps/base.txt) it is the target, so that a pull
	// request compares with and changes the file and leaves the link a
	// link. The report, and with it the pull request's body, keep the name.
	Path          string
	Content, Base []byte
}

// Rewrite returns the files p's pull request changes: each file read
// again, with only p's pins set to what the report says (each pin's After),
// applied and verified in memory by pins.Apply (a hash-locked pin with the
// new version's hashes, as the check fetched them). The report is the one
// truth: whatever the plan and the checks decided is what the pull request
// carries. Each file is read, told and edited under the name the report
// gives it, and returned under the name of the file it leads to (Path).
func (c *Checker) Rewrite(ctx context.Context, log *slog.Logger, ps []report.Package) ([]Rewritten, error) {
	type pkgPin struct {
		pkg string
		report.Pin
	}
	byFile := map[string][]pkgPin{}
	for _, p := range ps {
		for _, pin := range p.Pins {
			if pin.After != pin.Before && pin.Skip == "" {
				byFile[pin.File] = append(byFile[pin.File], pkgPin{p.Name, pin})
			}
		}
	}
	repo, err := repofs.Open(c.Root)
	if err != nil {
		return nil, err
	}
	defer repo.Close()
	var files []Rewritten
	names := map[string]string{} // a file's own name -> the name it was read under
	for _, path := range slices.Sorted(maps.Keys(byFile)) {
		real, err := repo.Resolve(path)
		if err != nil {
			return nil, err
		}
		if prev, ok := names[real]; ok {
			// The check reads a file once (pins.Once, readPinFile): two
			// names for one file are two edits of it that would race.
			return nil, fmt.Errorf("%s: the same file as %s (%s); the report names it twice", path, prev, real)
		}
		names[real] = path
		data, err := repo.ReadFile(path)
		if err != nil {
			return nil, err
		}
		format := pins.Detect(c.Formats, path, data) // by name, else by content
		if format == nil {
			return nil, fmt.Errorf("%s: no pin-file format reads this file", path)
		}
		found, _, err := pins.ReadFile(format, path, data) // the check warned about skipped entries
		if err != nil {
			return nil, err
		}
		var edits []pins.Edit
		for _, want := range byFile[path] {
			i := slices.IndexFunc(found, func(f pins.Pin) bool {
				return config.Key(f.Package) == want.pkg && f.Line == want.Line && f.Key == want.Key && f.Text == want.Before
			})
			if i < 0 {
				return nil, fmt.Errorf("%s:%d: %s changed since the check", path, want.Line, want.Before)
			}
			newC, ok := constraintFor(found[i], want.After)
			if !ok {
				return nil, fmt.Errorf("%s:%d: cannot turn %q into %q by its constraint alone", path, want.Line, want.Before, want.After)
			}
			extra, err := c.hashExtra(ctx, log, data, found[i], newC)
			if err != nil {
				return nil, err
			}
			edits = append(edits, pins.Edit{Pin: found[i], New: newC, Extra: extra})
		}
		b, err := pins.Apply(format, path, data, edits)
		if err != nil {
			return nil, err
		}
		files = append(files, Rewritten{Path: real, Content: b, Base: data})
	}
	return files, nil
}

// constraintFor returns the constraint that makes pin's requirement read
// after, if only the constraint differs.
func constraintFor(p pins.Pin, after string) (string, bool) {
	start, end := p.Span.Start-p.TextStart, p.Span.End-p.TextStart
	if start < 0 || end > len(p.Text) || start > end {
		return "", false
	}
	prefix, suffix := p.Text[:start], p.Text[end:]
	if len(after) < len(prefix)+len(suffix) || !strings.HasPrefix(after, prefix) || !strings.HasSuffix(after, suffix) {
		return "", false
	}
	c := after[len(prefix) : len(after)-len(suffix)]
	if p.Constraint == "" {
		c = strings.TrimPrefix(c, p.Insert)
	}
	if p.With(c) != after {
		return "", false
	}
	return c, true
}
