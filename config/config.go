// Package config reads pinbot's configuration, .pinbot.yml.
//
// Decoding is strict: an unknown key, a value of the wrong type or a bad value is
// an error naming the file, line, column and key (for example
// ".pinbot.yml:7:10: packages.numba.cap: unknown strategy ..."). With no file,
// Default serves: watch numba, tensorflow and protobuf, discover pin files, ask
// public PyPI.
package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/pinbot-dev/pinbot/internal/diag"
	"github.com/pinbot-dev/pinbot/internal/pep503"
	"github.com/pinbot-dev/pinbot/internal/repofs"
	"github.com/pinbot-dev/pinbot/pins"
)

// Names are where Find looks for the configuration, in order, relative to the
// repository root.
var Names = []string{".pinbot.yml", ".pinbot.yaml", ".github/pinbot.yml", ".github/pinbot.yaml"}

// SchemaURL is where the JSON Schema of the configuration
// (config/pinbot.schema.json) is published, for editors: a file whose first
// line is "# yaml-language-server: $schema=" and this URL is completed and
// checked as it is typed.
const SchemaURL = "https://raw.githubusercontent.com/pinbot-dev/pinbot/main/config/pinbot.schema.json"

// DefaultPackages are watched when the configuration names none.
var DefaultPackages = []string{"numba", "tensorflow", "protobuf"}

// DefaultPyPIURL is the PyPI that serves when neither config nor environment
// names another.
const DefaultPyPIURL = "https://pypi.org"

// A Config is pinbot's configuration.
type Config struct {
	// File is where the configuration was read from ("" for the defaults).
	File     string              `yaml:"-"`
	Sources  Sources             `yaml:"sources"`
	Packages map[string]*Package `yaml:"packages"`
	// Files lists the pin files to read, relative to the repository root; empty
	// means discover them. It is the list form of the files key; its mapping
	// form is FileGlobs.
	Files []string `yaml:"files,mapping=FileGlobs"`
	// FileGlobs narrow discovery (files: {include: [...], exclude: [...]}):
	// a discovered file is read when it matches an include glob (or there is
	// none) and no exclude glob.
	FileGlobs FileGlobs `yaml:"-"`
	// GitHub, PullRequests and Notify configure `pinbot run` (config/bot.go).
	GitHub       GitHub       `yaml:"github"`
	PullRequests PullRequests `yaml:"pull-requests"`
	Notify       Notify       `yaml:"notify"`
	// DashboardOn is the boolean form of the dashboard key (dashboard:
	// false turns the issue off); its mapping form is Dashboard. See
	// DashboardIssue.
	DashboardOn *bool     `yaml:"dashboard,mapping=Dashboard"`
	Dashboard   Dashboard `yaml:"-"`
	// Network bounds the cost of requests (config/network.go).
	Network Network `yaml:"network"`
	// Groups makes packages move together, by group name
	// (groups: {numba-stack: [numba, llvmlite]}): one plan with targets
	// consistent with each other's dependency metadata, one pull request,
	// one verdict. Members are watched packages, each in one group at most
	// (config/groups.go); after loading they are normalised names.
	Groups map[string][]string `yaml:"groups"`
	// Solve asks a real resolver, before a pull request is opened, whether
	// the project's requirements resolve with the new caps;
	// packages.NAME.solve overrides it for one package.
	Solve bool `yaml:"solve"`
	// Usage narrows the Python files the usage checks read (usage:
	// {include: [...], exclude: [...]}); packages.NAME.usage turns them
	// off for one package.
	Usage Usage `yaml:"usage"`

	// pos is where each key path was written, for errors found after
	// decoding (see Pos).
	pos map[string][2]int
}

// Default returns the configuration used when there is no file.
func Default() *Config {
	c := &Config{Packages: map[string]*Package{}}
	for _, name := range DefaultPackages {
		c.Packages[name] = &Package{}
	}
	c.Sources.PyPI.URL = DefaultPyPIURL
	return c
}

// Find returns the path of the configuration file under root, or "" if there is
// none.
func Find(root string) (string, error) {
	repo, err := repofs.Open(root)
	if err != nil {
		return "", err
	}
	defer repo.Close()
	name, err := FindIn(repo)
	if name == "" || err != nil {
		return "", err
	}
	return filepath.Join(root, filepath.FromSlash(name)), nil
}

// FindIn returns the name of the configuration file in the repository (one
// of Names), or "" if there is none. A name that exists but leads outside the
// repository is an error, not a reason to look further.
func FindIn(repo *repofs.Root) (string, error) {
	for _, n := range Names {
		if _, err := repo.Stat(n); err == nil {
			return n, nil
		} else if !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
	}
	return "", nil
}

// FindAllIn returns the names of every configuration file the repository
// has, in the order of Names: FindIn's answer first. More than one is a
// mistake worth a warning, since only the first is read.
func FindAllIn(repo *repofs.Root) ([]string, error) {
	var out []string
	for _, n := range Names {
		if _, err := repo.Stat(n); err == nil {
			out = append(out, n)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return out, err
		}
	}
	return out, nil
}

// Load reads and parses the configuration file at path: a file a person
// named, read wherever it is, but only a regular file of at most
// repofs.MaxFileSize bytes.
func Load(path string) (*Config, error) {
	data, err := repofs.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, data)
}

// LoadIn reads and parses the configuration file name of the repository
// (as FindIn returns it), confined to the repository; file is the name
// errors give it.
func LoadIn(repo *repofs.Root, name, file string) (*Config, error) {
	data, err := repo.ReadFile(name)
	if err != nil {
		return nil, err
	}
	return Parse(file, data)
}

// Parse parses configuration data read from file (used in errors).
func Parse(file string, data []byte) (*Config, error) {
	doc, err := parseYAML(file, data)
	if err != nil {
		return nil, err
	}
	return fromYAML(file, doc)
}

// parseYAML reads data, read from file, as a YAML document.
func parseYAML(file string, data []byte) (*yaml.Node, error) {
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil && !errors.Is(err, io.EOF) {
		return nil, &diag.Error{File: file, Line: yamlErrorLine(err), Err: fmt.Errorf("not valid YAML: %v", err)}
	}
	return &doc, nil
}

// fromYAML decodes a configuration document strictly and checks it whole;
// file names it in errors.
func fromYAML(file string, doc *yaml.Node) (*Config, error) {
	c, err := decodeYAML(file, doc)
	if err != nil {
		return nil, err
	}
	if err := c.checkRequire(); err != nil {
		return nil, err
	}
	if err := c.checkEarlyWarning(); err != nil {
		return nil, err
	}
	return c, nil
}

// decodeYAML is fromYAML without the checks of references to keys another
// file may set: the repository's own file, read before it is merged over a
// fleet's defaults, may require a channel the defaults list, or turn on the
// early warning of a package whose probes the defaults give.
func decodeYAML(file string, doc *yaml.Node) (*Config, error) {
	c := &Config{File: file}
	if len(doc.Content) > 0 {
		if err := checkAliases(file, doc.Content[0]); err != nil {
			return nil, err
		}
		d := &decoder{file: file, pos: map[string][2]int{}}
		d.decode(doc.Content[0], reflect.ValueOf(c).Elem(), "")
		c.pos = d.pos
		if err := d.errs.Err(); err != nil {
			return nil, err
		}
	}
	if c.Sources.PyPI.URL == "" {
		c.Sources.PyPI.URL = DefaultPyPIURL
	}
	if len(c.Packages) == 0 {
		c.Packages = Default().Packages
	}
	if err := c.normalize(); err != nil {
		return nil, err
	}
	if err := c.checkGroups(); err != nil {
		return nil, err
	}
	return c, nil
}

// normalize keys packages by their normalised names.
func (c *Config) normalize() error {
	norm := make(map[string]*Package, len(c.Packages))
	for _, name := range slices.Sorted(maps.Keys(c.Packages)) {
		n := Key(name)
		if _, dup := norm[n]; dup {
			return &diag.Error{File: c.File, Key: "packages." + name, Err: fmt.Errorf("names the same package as another entry (%s)", n)}
		}
		norm[n] = c.Packages[name]
		if norm[n] != nil {
			norm[n].key = "packages." + name
		}
	}
	c.Packages = norm
	return nil
}

// Key returns the name under which a package is watched: a Go module path
// (it has a "/") as written, since module paths are case-sensitive and keep
// their dots; any other name in its PEP 503 form, so that numba, Numba and a
// conda pin's numba are one package, as are typing_extensions and
// typing-extensions.
func Key(name string) string {
	if strings.Contains(name, "/") {
		return name
	}
	return pep503.Normalize(name)
}

// Pos returns where the key path (as written: "packages.Numba.symbols.host[0]")
// is in the configuration file, or where the nearest enclosing key is;
// zeros when unknown (the defaults, an alias's contents).
func (c *Config) Pos(key string) (line, col int) {
	for key != "" {
		if p, ok := c.pos[key]; ok {
			return p[0], p[1]
		}
		i := strings.LastIndexAny(key, ".[")
		if i < 0 {
			break
		}
		key = key[:i]
	}
	return 0, 0
}

// Errorf returns an error at the place key was written in the configuration
// file: "file:line:col: key: message".
func (c *Config) Errorf(key, format string, args ...any) *diag.Error {
	line, col := c.Pos(key)
	return diag.Errorf(c.File, line, col, key, format, args...)
}

// Watched returns the normalised names of the watched packages, sorted.
func (c *Config) Watched() []string { return slices.Sorted(maps.Keys(c.Packages)) }

func checkURL(u string) error {
	if u == "" {
		return nil
	}
	if !strings.HasPrefix(u, "https://") && !strings.HasPrefix(u, "http://") {
		return fmt.Errorf("expected an http:// or https:// URL, found %q", u)
	}
	return nil
}

var yamlLineRE = regexp.MustCompile(`line (\d+)`)

// yamlErrorLine digs the line number out of a yaml.v3 syntax error message;
// yaml.v3 leaves it out for the first line.
func yamlErrorLine(err error) int {
	if m := yamlLineRE.FindStringSubmatch(err.Error()); m != nil {
		n, _ := strconv.Atoi(m[1])
		return n
	}
	return 1
}

// Validate checks that files are inside the repository.
func (c *Config) Validate() error {
	for i, f := range c.Files {
		clean := filepath.ToSlash(filepath.Clean(f))
		if filepath.IsAbs(f) || clean == ".." || strings.HasPrefix(clean, "../") {
			return fmt.Errorf("files[%d]: %q: expected a path inside the repository, relative to its root", i, f)
		}
	}
	return nil
}

// Usage configures which of the repository's Python files the usage
// checks read (checks/usage): every .py and .pyi file discovery's walk
// visits that matches an include glob (or there is none) and no exclude
// glob, with the syntax of the files key's globs.
type Usage struct {
	Include []string `yaml:"include"`
	Exclude []string `yaml:"exclude"`
}

// Validate checks every glob.
func (u *Usage) Validate() error {
	return (&FileGlobs{Include: u.Include, Exclude: u.Exclude}).Validate()
}

// FileGlobs are the include and exclude globs of the mapping form of the
// files key, over paths relative to the repository root (see
// pins.Selection for their syntax).
type FileGlobs struct {
	Include []string `yaml:"include"`
	Exclude []string `yaml:"exclude"`
}

// Validate checks every glob.
func (g *FileGlobs) Validate() error {
	for _, key := range []string{"include", "exclude"} { // in order: one error, the same each run
		list := g.Include
		if key == "exclude" {
			list = g.Exclude
		}
		for i, p := range list {
			if err := pins.CheckGlob(p); err != nil {
				return fmt.Errorf("%s[%d]: %w", key, i, err)
			}
		}
	}
	return nil
}
