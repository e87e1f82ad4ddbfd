package probe

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Resolve asks a real resolver whether a set of requirements resolves, and
// what it would install (resolveRequirements: `uv pip compile` when uv is
// on PATH or Installer is "uv", else `pip install --dry-run --report` with
// the interpreter's pip, 22.2 or later). Only binary distributions are
// considered (--only-binary :all:), so resolving runs no release code: the
// metadata comes from wheels (or the index's PEP 658 files), never from
// building an sdist. Options give the interpreter, the index, the cache,
// the limits (ResolveTimeout for the resolver, InstallTimeout for the
// interpreter query) and the runner, as for Run; Package, the versions and
// Timeout are not used.
//
// requirements are PEP 508 requirement strings, one per line of the
// requirements file handed to the resolver; a string that is empty, spans
// lines or starts with "-" (an installer option) is refused.
func Resolve(ctx context.Context, opts Options, requirements []string) (*Resolution, error) {
	if len(requirements) == 0 {
		return nil, errors.New("probe: resolve: no requirements")
	}
	for _, r := range requirements {
		if t := strings.TrimSpace(r); t == "" || strings.ContainsAny(r, "\r\n") || t[0] == '-' {
			return nil, fmt.Errorf("probe: resolve: %q is not a requirement", clipText(r, 80))
		}
	}
	if opts.Environ == nil {
		opts.Environ = os.Environ()
	}
	if opts.Runner == nil {
		opts.Runner = ExecRunner{}
	}
	opts.setLimits()
	if opts.Index != "" && isLocalDir(opts.Index) {
		abs, err := filepath.Abs(strings.TrimPrefix(opts.Index, "file://"))
		if err != nil {
			return nil, fmt.Errorf("probe: index: %w", err)
		}
		opts.Index = abs
	}
	if opts.Python == "" {
		opts.Python = lookPath("python3", opts.Environ)
	}
	if opts.Python == "" {
		return nil, errors.New("probe: resolve: no Python interpreter (python3 on PATH, or --python)")
	}
	py, err := queryPython(ctx, &opts)
	if err != nil {
		return nil, err
	}
	if !canResolve(&opts, py) {
		return nil, fmt.Errorf("probe: resolve: %s has pip %q, which cannot say what it would install (pip 22.2 and later can; or put uv on PATH)",
			py.Executable, py.Pip)
	}
	res := &Resolution{Resolver: "pip " + py.Pip}
	if _, ok := useUV(&opts); ok {
		res.Resolver = "uv"
	}
	res.Picked, err = resolveRequirements(ctx, &opts, py, requirements, nil, true)
	var se *stepError
	switch {
	case errors.As(err, &se) && unresolvable(se.output):
		return nil, &UnresolvableError{Resolver: res.Resolver, Message: resolverMessage(se.output)}
	case errors.As(err, &se):
		return nil, fmt.Errorf("probe: resolve: %w: %s", se.err, resolverMessage(se.output))
	case err != nil:
		return nil, fmt.Errorf("probe: resolve: %w", err)
	}
	return res, nil
}

// A Resolution is what a resolver would install for a set of
// requirements.
type Resolution struct {
	// Resolver names it: "pip 24.0", "uv".
	Resolver string
	// Picked is every distribution it would install, sorted by name.
	Picked []Dist
}

// Version returns the version picked of the distribution name, or "".
func (r *Resolution) Version(name string) string {
	for _, d := range r.Picked {
		if normName(d.Name) == normName(name) {
			return d.Version
		}
	}
	return ""
}

// An UnresolvableError is a set of requirements no set of releases
// satisfies; Message is what the resolver said of the conflict.
type UnresolvableError struct {
	Resolver, Message string
}

// Error names the resolver and its message.
func (e *UnresolvableError) Error() string {
	return fmt.Sprintf("%s finds no set of releases that satisfies the requirements: %s", e.Resolver, e.Message)
}

// unresolvable reports whether a resolver's output says that no set of
// releases satisfies the requirements (rather than that it failed).
func unresolvable(out string) bool {
	for _, s := range []string{"ResolutionImpossible", "No matching distribution found", "Could not find a version that satisfies",
		"No solution found when resolving", "is unsatisfiable", "conflicting dependencies"} {
		if strings.Contains(out, s) {
			return true
		}
	}
	return false
}
