package probe

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/pinbot-dev/pinbot/versions/pep440"
	"github.com/pinbot-dev/pinbot/web"
)

//go:embed probe.py
var probeScript []byte

// cacheSchema changes when the layout or the way environments are built changes,
// so old cache entries are ignored rather than misused.
const cacheSchema = "pinbot-probe-env/2"

// detailMax caps a result's detail after sanitising.
const detailMax = 2000

const queryScript = `import json, sys, importlib.util as u
pip = None
try:
    import pip as p
    pip = p.__version__
except Exception:
    pass
tags = []
try:
    from pip._internal.utils.compatibility_tags import get_supported
    tags = [str(t) for t in get_supported()]
except Exception:
    pass
print(json.dumps({"version": sys.version.split()[0], "full": sys.version, "executable": sys.executable,
    "pip": pip, "venv": u.find_spec("venv") is not None, "ensurepip": u.find_spec("ensurepip") is not None, "tags": tags}))
`

// pyInfo describes the base interpreter environments are made from.
type pyInfo struct {
	Version    string `json:"version"`
	Full       string `json:"full"`
	Executable string `json:"executable"`
	Pip        string `json:"pip"`
	Venv       bool   `json:"venv"`
	Ensurepip  bool   `json:"ensurepip"`
	// Tags are the wheel tags pip installs on the interpreter, most
	// preferred first (none without pip): which local wheels it can take.
	Tags []string `json:"tags,omitempty"`
}

// sideSet is what one version gave: a Side per probe and a UseSide per
// distinct use.
type sideSet struct {
	probes []Side
	uses   []UseSide
}

// runDynamic probes in Python: in opts.Python itself with NoInstall, else in one
// cached environment per version.
func runDynamic(ctx context.Context, opts *Options, specs []Spec, uses []Use, rep *Report) (base, cand *sideSet, err error) {
	if opts.NoInstall {
		sides, info, err := probeIn(ctx, opts, opts.Python, "", specs, uses, rep)
		if err != nil {
			return nil, nil, err
		}
		rep.Python = info.Python
		rep.Installed = info.Version
		rep.CandidateEnv = &Environment{Python: info.Python + " (" + opts.Python + ")", Distributions: info.Dists, Reused: true}
		switch {
		case info.Version == "":
			rep.Mismatch = fmt.Sprintf("%s is not installed in %s", opts.Package, opts.Python)
		case opts.Candidate != "" && !sameVersion(info.Version, opts.Candidate):
			rep.Mismatch = fmt.Sprintf("installed %s %s is not the candidate %s", opts.Package, info.Version, opts.Candidate)
		}
		if rep.Mismatch != "" {
			rep.Notes = append(rep.Notes, rep.Mismatch+": every check is a warning")
		}
		if rep.Candidate == "" {
			rep.Candidate = info.Version
		}
		v := cmp.Or(info.Version, "installed")
		for i := range sides.probes {
			sides.probes[i].Version = v
		}
		for i := range sides.uses {
			sides.uses[i].Version = v
		}
		return nil, sides, nil
	}
	if opts.CacheDir == "" {
		dir, err := os.MkdirTemp(opts.TempDir, "pinbot-probe-cache-*")
		if err != nil {
			return nil, nil, err
		}
		defer os.RemoveAll(dir)
		opts.CacheDir = dir
	}
	// A warm run needs no interpreter query when the interpreter is unchanged
	// since the one recorded, no resolution changed and every environment is
	// ready; anything the installer must do queries it afresh.
	py := cachedPython(opts)
	fresh := false
	query := func() error {
		if fresh {
			return nil
		}
		p, err := queryPython(ctx, opts)
		if err != nil {
			return err
		}
		py, fresh = p, true
		saveCachedPython(opts, py)
		return nil
	}
	if py == nil {
		if err := query(); err != nil {
			return nil, nil, err
		}
	}
	probeVersion := func(version string) (*sideSet, *Environment, *resolveRecord, probeInfo, error) {
		fail := func(err error) (*sideSet, *Environment, *resolveRecord, probeInfo, error) {
			return nil, nil, nil, probeInfo{}, err
		}
		if err := checkPinned(opts, py, version); err != nil {
			return fail(err)
		}
		var rec *resolveRecord
		var dists []Dist
		first := false // no resolution recorded: install and let pip report it
		if canResolve(opts, py) {
			if rec = cachedResolution(ctx, opts, py, version); rec == nil {
				if err := query(); err != nil {
					return fail(err)
				}
				file, _ := resolveRequest(opts, py, version)
				_, withUV := useUV(opts)
				if first = loadRecord(file) == nil && !withUV && pipAtLeast(py.Pip, 22, 3) && py.Venv; !first {
					var err error
					if rec, err = resolve(ctx, opts, py, version); err != nil {
						return fail(err)
					}
				}
			}
			if rec != nil {
				dists = rec.Dists
				if !envReady(envDir(opts, py, version, dists)) {
					if err := query(); err != nil {
						return fail(err)
					}
				}
			}
		} else {
			if err := query(); err != nil {
				return fail(err)
			}
			if !canResolve(opts, py) {
				rep.Notes = append(rep.Notes, fmt.Sprintf("pip %s cannot say what it would install (pip 22.2 and later can): "+
					"the environment%s was built afresh and not cached", cmp.Or(py.Pip, "(none)"), at(version)))
			}
		}
		var before map[string]pageValidator
		if first {
			before, _ = validators(ctx, opts, nil)
		}
		env, reused, installed, err := ensureEnv(ctx, opts, py, version, dists, first)
		if err != nil {
			if first {
				err = explainResolveError(ctx, opts, py, version, err)
			}
			return fail(err)
		}
		if first {
			rec = record(opts, py, version, installed, before)
		}
		if rec == nil {
			defer os.RemoveAll(env)
		}
		sides, info, err := probeIn(ctx, opts, filepath.Join(env, "venv", "bin", "python"), version, specs, uses, rep)
		if err != nil {
			return nil, nil, nil, probeInfo{}, err
		}
		e := &Environment{Python: info.Python + " (" + py.Executable + ")", Distributions: info.Dists, Reused: reused}
		if rec != nil {
			e.Resolved = rec.Resolved
			rec.Results = map[string]Status{}
			for i := range specs {
				rec.Results[specKey(&specs[i])] = sides.probes[i].Status
			}
			for i := range uses {
				rec.Results[useKey(&uses[i])] = sides.uses[i].Status
			}
			rec.save()
		}
		return sides, e, rec, info, nil
	}
	if opts.Baseline != "" {
		if base, rep.BaselineEnv, _, _, err = probeVersion(opts.Baseline); err != nil {
			return nil, nil, err
		}
	}
	var info probeInfo
	if cand, rep.CandidateEnv, rep.candRec, info, err = probeVersion(opts.Candidate); err != nil {
		return nil, nil, err
	}
	rep.candRequires = info.Requires
	rep.Python = py.Version
	if canResolve(opts, py) {
		rep.Constraints = opts.Constraints
	}
	return base, cand, nil
}

// specKey identifies a probe across runs, for the results kept with a
// resolution.
func specKey(s *Spec) string {
	b, _ := json.Marshal(s)
	return specKeyOf(b)
}

func specKeyOf(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
}

// sandbox makes a fresh temporary directory for one process (its HOME, TMPDIR and
// working directory) and returns it with its cleanup.
func sandbox(opts *Options) (string, func(), error) {
	dir, err := os.MkdirTemp(opts.TempDir, "pinbot-sandbox-*")
	if err != nil {
		return "", nil, err
	}
	if err := os.Mkdir(filepath.Join(dir, "tmp"), 0o700); err != nil {
		os.RemoveAll(dir)
		return "", nil, err
	}
	return dir, func() { os.RemoveAll(dir) }, nil
}

func queryPython(ctx context.Context, opts *Options) (*pyInfo, error) {
	dir, done, err := sandbox(opts)
	if err != nil {
		return nil, err
	}
	defer done()
	out, err := opts.Runner.Run(ctx, &Command{
		Path: opts.Python, Args: []string{"-I", "-c", queryScript}, Dir: dir,
		Env: sandboxEnv(opts.Environ, dir, "", nil), Timeout: opts.InstallTimeout, MaxOutput: opts.MaxOutput,
	})
	if err != nil {
		return nil, fmt.Errorf("probe: running %s: %w", opts.Python, err)
	}
	if out.TimedOut {
		return nil, fmt.Errorf("probe: asking %s what it is timed out after %s: %s", opts.Python, opts.InstallTimeout, tail(out.Stderr, 500))
	}
	var info pyInfo
	if out.ExitCode != 0 || json.Unmarshal(bytes.TrimSpace(out.Stdout), &info) != nil || info.Executable == "" {
		return nil, fmt.Errorf("probe: %s does not work as a Python interpreter (exit %d): %s", opts.Python, out.ExitCode, tail(out.Stderr, 500))
	}
	return &info, nil
}

// effectiveIndex is where releases come from, for the cache key and messages.
func effectiveIndex(opts *Options) string {
	if opts.Index != "" {
		if isLocalDir(opts.Index) {
			abs, err := filepath.Abs(strings.TrimPrefix(opts.Index, "file://"))
			if err == nil {
				return "dir:" + abs
			}
		}
		return opts.Index
	}
	for _, name := range []string{"PIP_INDEX_URL", "UV_INDEX_URL", "UV_DEFAULT_INDEX", "PIP_FIND_LINKS", "UV_FIND_LINKS"} {
		if v := getenv(opts.Environ, name); v != "" {
			return name + "=" + v
		}
	}
	return "https://pypi.org/simple"
}

func isLocalDir(index string) bool {
	if strings.Contains(index, "://") && !strings.HasPrefix(index, "file://") {
		return false
	}
	fi, err := os.Stat(strings.TrimPrefix(index, "file://"))
	return err == nil && fi.IsDir()
}

// useUV reports whether environments are made with uv, and its path.
func useUV(opts *Options) (string, bool) {
	if opts.Installer == "pip" {
		return "", false
	}
	p := lookPath("uv", opts.Environ)
	return p, p != ""
}

func installerName(opts *Options) string {
	if _, ok := useUV(opts); ok {
		return "uv"
	}
	return "pip"
}

// pythonCacheFile is where the query result for opts.Python is kept, with the
// fingerprint of the interpreter binary it came from. It is "" when there is no
// persistent cache or the interpreter is a script (a pyenv or asdf shim, whose
// answer depends on settings outside the file).
func pythonCacheFile(opts *Options) (file, fingerprint string) {
	if opts.CacheDir == "" {
		return "", ""
	}
	abs, err1 := filepath.Abs(opts.Python)
	real, err2 := filepath.EvalSymlinks(opts.Python)
	fi, err3 := os.Stat(real)
	if err1 != nil || err2 != nil || err3 != nil {
		return "", ""
	}
	f, err := os.Open(real)
	if err != nil {
		return "", ""
	}
	head := make([]byte, 2)
	_, err = io.ReadFull(f, head)
	f.Close()
	if err != nil || string(head) == "#!" {
		return "", ""
	}
	sum := sha256.Sum256([]byte(abs))
	fp := fmt.Sprintf("%s %d %d", real, fi.Size(), fi.ModTime().UnixNano())
	return filepath.Join(opts.CacheDir, "python", hex.EncodeToString(sum[:8])+".json"), fp
}

type cachedInfo struct {
	Fingerprint string `json:"fingerprint"`
	Info        pyInfo `json:"info"`
}

// cachedPython returns the recorded query result for opts.Python if the
// interpreter binary is unchanged. It is used only to find ready environments;
// making one always queries the interpreter afresh.
func cachedPython(opts *Options) *pyInfo {
	file, fp := pythonCacheFile(opts)
	if file == "" {
		return nil
	}
	b, err := os.ReadFile(file)
	var c cachedInfo
	if err != nil || json.Unmarshal(b, &c) != nil || c.Fingerprint != fp || c.Info.Executable == "" {
		return nil
	}
	return &c.Info
}

func saveCachedPython(opts *Options, py *pyInfo) {
	file, fp := pythonCacheFile(opts)
	if file == "" {
		return
	}
	b, _ := json.Marshal(cachedInfo{fp, *py})
	if os.MkdirAll(filepath.Dir(file), 0o755) != nil {
		return
	}
	tmp := file + ".tmp" + strconv.Itoa(os.Getpid())
	if os.WriteFile(tmp, b, 0o644) == nil {
		os.Rename(tmp, file)
	}
}

// sameVersion reports whether two PEP 440 versions are equal (0.67 is 0.67.0).
func sameVersion(a, b string) bool {
	s := pep440.Scheme{}
	if s.Valid(a) && s.Valid(b) {
		return s.Compare(a, b) == 0
	}
	return a == b
}

// probeHeader is the first line the probe script prints.
type probeHeader struct {
	Python     string      `json:"python"`
	Executable string      `json:"executable"`
	Version    *string     `json:"version"`
	Requires   []string    `json:"requires"`
	Dists      [][2]string `json:"dists"`
}

// probeInfo is what the probe process says of its environment: the Python
// version, the probed package's installed version and Requires-Dist, and
// every installed distribution.
type probeInfo struct {
	Python, Version string
	Requires        []string
	Dists           []Dist
}

// probeIn runs every spec and resolves every use in one sandboxed process of
// python and returns one Side per spec and one UseSide per use.
func probeIn(ctx context.Context, opts *Options, python, version string, specs []Spec, uses []Use, rep *Report) (*sideSet, probeInfo, error) {
	dir, done, err := sandbox(opts)
	if err != nil {
		return nil, probeInfo{}, err
	}
	defer done()
	script := filepath.Join(dir, "pinbot_probe.py")
	if err := os.WriteFile(script, probeScript, 0o644); err != nil {
		return nil, probeInfo{}, err
	}
	type reqProbe struct {
		I              int    `json:"i"`
		Name           string `json:"name"`
		Path           string `json:"path,omitempty"`
		Expect         string `json:"expect,omitempty"`
		SourceContains string `json:"source_contains,omitempty"`
		Signature      string `json:"signature,omitempty"`
		Run            string `json:"run,omitempty"`
	}
	req := struct {
		Package     string     `json:"package"`
		WantVersion bool       `json:"want_version"`
		Tail        int        `json:"tail"`
		Probes      []reqProbe `json:"probes"`
		Uses        []reqUse   `json:"uses,omitempty"`
	}{Package: distOf(opts, version), WantVersion: true, Tail: detailMax, Uses: requestUses(uses)}
	for i, s := range specs {
		req.Probes = append(req.Probes, reqProbe{i, s.DisplayName(), s.Path, s.expectKind(), s.SourceContains, s.Signature, s.Run})
	}
	stdin, _ := json.Marshal(req)
	pathPrefix := ""
	if !opts.NoInstall {
		pathPrefix = filepath.Dir(python)
	}
	out, err := opts.Runner.Run(ctx, &Command{
		Path: python, Args: []string{"-I", "-X", "utf8", script}, Dir: dir, Stdin: stdin,
		Env: sandboxEnv(opts.Environ, dir, pathPrefix, nil), Timeout: opts.Timeout, MaxOutput: opts.MaxOutput,
	})
	if err != nil {
		return nil, probeInfo{}, fmt.Errorf("probe: running %s: %w", python, err)
	}
	if out.Truncated {
		rep.Notes = append(rep.Notes, fmt.Sprintf("output of the probe process%s beyond %d bytes was discarded", at(version), opts.MaxOutput))
	}
	return parseProbeOutput(out, specs, uses, version, opts.Timeout)
}

func at(version string) string {
	if version == "" {
		return ""
	}
	return " at " + version
}

// parseProbeOutput reads the probe process's JSON lines (hostile: they come
// from the release's code's process) into a Side per spec and a UseSide per
// use; an answer that never came is unknown, or a failure for the probe or
// use the process died in.
func parseProbeOutput(out *Output, specs []Spec, uses []Use, version string, timeout time.Duration) (*sideSet, probeInfo, error) {
	sides := make([]Side, len(specs))
	for i := range sides {
		sides[i] = Side{Version: version}
	}
	seen := make([]bool, len(specs))
	uc := newUseCollector(uses, version)
	var info probeInfo
	header, finished, running := false, false, -1
	for _, line := range bytes.Split(out.Stdout, []byte("\n")) {
		var m struct {
			probeHeader
			Start     *int         `json:"start"`
			I         *int         `json:"i"`
			Status    Status       `json:"status"`
			Detail    string       `json:"detail"`
			Signature *pySignature `json:"signature"`
			Done      bool         `json:"done"`
			useLine
		}
		if len(bytes.TrimSpace(line)) == 0 || json.Unmarshal(line, &m) != nil {
			continue
		}
		switch {
		case m.Python == "" && uc.line(&m.useLine, m.Status, m.Detail):
		case m.Python != "":
			header = true
			info.Python = sanitize(clipText(m.Python, 40))
			if m.Version != nil {
				info.Version = sanitize(clipText(*m.Version, 100))
			}
			for _, r := range m.Requires {
				info.Requires = append(info.Requires, sanitize(clipText(r, 200)))
			}
			for _, d := range m.Dists {
				if validName(d[0]) && validVersion(d[1]) {
					info.Dists = append(info.Dists, Dist{Name: d[0], Version: d[1]})
				}
			}
			slices.SortFunc(info.Dists, func(a, b Dist) int { return strings.Compare(normName(a.Name), normName(b.Name)) })
		case m.Start != nil:
			running = *m.Start
		case m.I != nil && *m.I >= 0 && *m.I < len(specs):
			st := m.Status
			if st != Pass && st != Fail && st != Unknown {
				st = Unknown
			}
			sides[*m.I].Status, sides[*m.I].Detail = st, sanitize(m.Detail)
			if specs[*m.I].Signature != "" && st == Pass {
				sst, detail := m.Signature.check(&specs[*m.I])
				if sst != Pass {
					sides[*m.I].Status, sides[*m.I].Detail = sst, sanitize(detail)
				} else {
					sides[*m.I].Detail = sanitize(m.Detail + "; " + detail)
				}
			}
			seen[*m.I] = true
			running = -1
		case m.Done:
			finished = true
		}
	}
	if !header {
		why := fmt.Sprintf("exit status %d", out.ExitCode)
		if out.TimedOut {
			why = fmt.Sprintf("timed out after %s", timeout)
		}
		return nil, info, fmt.Errorf("probe: the probe process%s printed no results (%s): %s", at(version), why, sanitize(tail(out.Stderr, 800)))
	}
	errTail := sanitize(tail(out.Stderr, 600))
	useSides := uc.finish(out, finished, timeout, errTail)
	for i := range sides {
		if seen[i] {
			continue
		}
		switch {
		case i == running && out.TimedOut:
			sides[i].Status = Unknown
			sides[i].Detail = fmt.Sprintf("timed out after %s while running this probe; stderr: %s", timeout, errTail)
		case i == running:
			sides[i].Status = Fail
			sides[i].Detail = fmt.Sprintf("the Python process died (exit status %d) while running this probe; stderr: %s", out.ExitCode, errTail)
		case out.TimedOut:
			sides[i].Status, sides[i].Detail = Unknown, "not run: the probe process timed out on an earlier probe"
		case !finished:
			sides[i].Status, sides[i].Detail = Unknown, fmt.Sprintf("not run: the probe process exited early (status %d)", out.ExitCode)
		default:
			sides[i].Status, sides[i].Detail = Unknown, "no result from the probe process"
		}
	}
	return &sideSet{probes: sides, uses: useSides}, info, nil
}

// pySignature is inspect.signature's answer as the probe script sends it.
type pySignature struct {
	Text   string `json:"text"`
	Params []struct {
		Name       string  `json:"name"`
		Kind       string  `json:"kind"`
		Default    bool    `json:"default"`
		Annotation *string `json:"annotation"`
	} `json:"params"`
	Returns *string `json:"returns"`
}

// check compares the signature the probe found with the spec's.
func (ps *pySignature) check(s *Spec) (Status, string) {
	if ps == nil {
		return Unknown, "the probe process sent no signature"
	}
	got := signature{Text: sanitize(ps.Text)}
	for _, p := range ps.Params {
		k, ok := kindNames[p.Kind]
		if !ok {
			return Unknown, fmt.Sprintf("unknown parameter kind %q", sanitize(p.Kind))
		}
		sp := sigParam{Name: p.Name, Kind: k, Default: p.Default}
		if p.Annotation != nil {
			sp.Annotation = squashSpaces(*p.Annotation)
		}
		got.Params = append(got.Params, sp)
	}
	if ps.Returns != nil {
		got.Returns = squashSpaces(*ps.Returns)
	}
	return checkSignatureOf(s, got)
}

// sanitize makes text from untrusted code safe to show: no control characters but
// newline and tab, valid UTF-8, at most detailMax bytes. A longer text keeps its
// beginning, where a detail says what happened (the verdict, the exception's type
// and first line); tails of output are cut to size before (tail).
func sanitize(s string) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	s = strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' {
			return r
		}
		if unicode.IsControl(r) || r == '\u202e' || r == '\u202d' || (r >= '\u2066' && r <= '\u2069') {
			return '\uFFFD'
		}
		return r
	}, s)
	if len(s) > detailMax {
		cut := detailMax
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "..."
	}
	return s
}

func tail(b []byte, n int) string {
	b = bytes.TrimSpace(b)
	if len(b) > n {
		b = append([]byte("..."), b[len(b)-n:]...)
	}
	return string(b)
}

func getenv(env []string, name string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(env[i], "="); ok && k == name {
			return v
		}
	}
	return ""
}

// lookPath finds an executable on the PATH of env (not of this process).
func lookPath(name string, env []string) string {
	for _, dir := range filepath.SplitList(getenv(env, "PATH")) {
		if dir == "" {
			continue
		}
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p
		}
	}
	return ""
}

// normName is the PEP 503 normalised form of a distribution name.
func normName(s string) string {
	s = strings.ToLower(s)
	var b strings.Builder
	dash := false
	for _, r := range s {
		if r == '-' || r == '_' || r == '.' {
			dash = true
			continue
		}
		if dash && b.Len() > 0 {
			b.WriteByte('-')
		}
		dash = false
		b.WriteRune(r)
	}
	return b.String()
}

// redactURL shows an index URL, or NAME=URL, through web.Redact (an index
// URL may carry credentials).
func redactURL(s string) string {
	prefix := ""
	if k, v, ok := strings.Cut(s, "="); ok && !strings.Contains(k, "/") && strings.ToUpper(k) == k {
		prefix, s = k+"=", v
	}
	return prefix + web.Redact(s)
}

// redactText redacts the URLs in installer output through web.RedactText.
func redactText(s string) string { return web.RedactText(s) }
