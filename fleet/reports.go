package fleet

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/pinbot-dev/pinbot/bot/report"
)

// Reading the reports of a fleet's jobs: pinbot check --format json (a
// report) or pinbot run --format json (a report with the pull requests).
// They come from jobs that ran other code, so each is untrusted input: read
// through a size cap, checked for its shape, names and versions, its texts
// bounded; a file that is not a pinbot report is named in a warning and
// skipped, and the others are still read.

// MaxReportSize caps one report file.
const MaxReportSize = 16 << 20

// Limits on one report; real ones stay far below them.
const (
	maxPackages = 10000
	maxText     = 1 << 16
)

// The patterns are compiled when first used, not when the program starts:
// their counted repetitions make large programs (about 0.7 ms of every
// pinbot command's start).
var (
	statusRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z][a-z-]{0,31}$`) })
)

// A Report is one repository's report.
type Report struct {
	// File is where it was read, relative to the directory.
	File       string
	Repository string
	Packages   []report.Package
	// Errors are the repository's problems tied to no package (a pin file
	// that does not parse) and, from pinbot run, its failures.
	Errors []string
	// Pulls are the pull requests pinbot run made or found (none from
	// pinbot check).
	Pulls       []Pull
	APIRequests int
}

// A Pull is a pull request of a run's report.
type Pull struct {
	Package string `json:"package"`
	Action  string `json:"action"`
	Number  int    `json:"number"`
	URL     string `json:"url"`
	Draft   bool   `json:"draft"`
}

// doc is what Read takes from a report file: a check's report, or a run's
// document with the report under "report".
type doc struct {
	Schema      *int              `json:"schema"`
	Packages    *[]report.Package `json:"packages"`
	Errors      []string          `json:"errors"`
	Repository  string            `json:"repository"`
	APIRequests int               `json:"api_requests"`
	// A run's document.
	Report   *doc     `json:"report"`
	Pulls    []Pull   `json:"pull_requests"`
	Failures []string `json:"failures"`
}

// Read reads every regular file under dir as a report, in path order. A
// report is bound to the repository its file is named for, OWNER__NAME.json
// (as the fleet workflow names the report of OWNER/NAME, in any directory):
// a job that ran release code for one repository can write a report that
// claims another, and that report is refused, so that it never displaces
// the other repository's own. Files that are not pinbot reports, whose name
// binds them to no repository, or that claim another repository than their
// name's come back as warnings naming them; the error is for a directory
// that cannot be read.
func Read(dir string) ([]Report, []string, error) {
	var out []Report
	var warnings []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == dir {
				return err
			}
			warnings = append(warnings, fmt.Sprintf("%s: %v", p, err))
			return nil
		}
		if d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		if !d.Type().IsRegular() {
			warnings = append(warnings, fmt.Sprintf("%s: skipped: not a regular file", rel))
			return nil
		}
		repo, ok := boundTo(d.Name())
		if !ok {
			warnings = append(warnings, fmt.Sprintf("%s: skipped: its name does not say whose report it is (OWNER__NAME.json, as the fleet workflow names them)", rel))
			return nil
		}
		r, err := readFile(p)
		if err != nil {
			warnings = append(warnings, fmt.Sprintf("%s: skipped: %v", rel, err))
			return nil
		}
		if !report.SameRepository(r.Repository, repo) {
			warnings = append(warnings, fmt.Sprintf("%s: skipped: it claims to be the report of %s, but it is %s's", rel, r.Repository, repo))
			return nil
		}
		r.File = rel
		out = append(out, r)
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return out, warnings, nil
}

// boundTo returns the repository a report's file name binds it to:
// OWNER/NAME for OWNER__NAME.json. An owner holds no '_', so the first "__"
// ends it.
func boundTo(file string) (string, bool) {
	stem, ok := strings.CutSuffix(file, ".json")
	owner, name, cut := strings.Cut(stem, "__")
	repo := owner + "/" + name
	return repo, ok && cut && report.ValidRepository(repo)
}

func readFile(path string) (Report, error) {
	f, err := os.Open(path)
	if err != nil {
		return Report{}, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxReportSize+1))
	if err != nil {
		return Report{}, err
	}
	if len(data) > MaxReportSize {
		return Report{}, fmt.Errorf("more than the %d bytes a report may have", MaxReportSize)
	}
	return Parse(data)
}

// Parse reads one report: a pinbot check or pinbot run JSON document.
func Parse(data []byte) (Report, error) {
	var d doc
	if err := json.Unmarshal(data, &d); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return Report{}, fmt.Errorf("not a pinbot report: not valid JSON at byte %d", se.Offset)
		}
		return Report{}, fmt.Errorf("not a pinbot report: %v", err)
	}
	r := Report{}
	if d.Report != nil {
		// pinbot run: the pull requests, then the report inside.
		r.Pulls, r.Errors = d.Pulls, d.Failures
		if d.Schema == nil || *d.Schema != report.SchemaVersion {
			return Report{}, errors.New("not a pinbot report of schema 1")
		}
		d = *d.Report
	} else {
		r.Errors = d.Errors
	}
	switch {
	case d.Schema == nil || d.Packages == nil:
		return Report{}, errors.New("not a pinbot report (no schema or packages)")
	case *d.Schema != report.SchemaVersion:
		return Report{}, fmt.Errorf("schema %d: this pinbot reads schema %d", *d.Schema, report.SchemaVersion)
	case d.Repository == "":
		return Report{}, errors.New("the report names no repository (run pinbot with --repository OWNER/NAME or GITHUB_REPOSITORY)")
	case !report.ValidRepository(d.Repository):
		return Report{}, fmt.Errorf("repository %s: not owner/name", quote(d.Repository))
	case len(*d.Packages) > maxPackages:
		return Report{}, fmt.Errorf("%d packages, more than %d", len(*d.Packages), maxPackages)
	}
	r.Repository, r.Packages, r.APIRequests = d.Repository, *d.Packages, max(d.APIRequests, 0)
	for i, p := range r.Packages {
		if err := validPackage(p); err != nil {
			return Report{}, fmt.Errorf("packages[%d]: %s: %v", i, quote(p.Name), err)
		}
	}
	for i, p := range r.Pulls {
		if !report.ValidName(p.Package) || !statusRE().MatchString(p.Action) || p.Number < 0 || len(p.URL) > 2000 {
			return Report{}, fmt.Errorf("pull_requests[%d]: not a pull request of pinbot run", i)
		}
	}
	for i, e := range r.Errors {
		if len(e) > maxText {
			r.Errors[i] = e[:maxText]
		}
	}
	return r, nil
}

// validPackage checks the fields the dashboard shows or compares.
func validPackage(p report.Package) error {
	switch {
	case !report.ValidName(p.Name):
		return errors.New("not a package name")
	case !statusRE().MatchString(p.Status):
		return fmt.Errorf("status %s", quote(p.Status))
	case p.Newest != "" && !report.ValidVersion(p.Newest):
		return fmt.Errorf("newest: %s is not a version", quote(p.Newest))
	case p.Admits != "" && !report.ValidVersion(p.Admits):
		return fmt.Errorf("admits: %s is not a version", quote(p.Admits))
	case p.Behind < 0:
		return errors.New("behind: negative")
	case len(p.Reason) > maxText || len(p.Error) > maxText:
		return errors.New("a text too long")
	}
	for _, c := range p.Checks {
		if len(c.Name) > maxText || len(c.Detail) > maxText || len(c.Verdict) > 64 {
			return errors.New("checks: a text too long")
		}
	}
	if n := p.Nightly; n != nil {
		switch {
		case !report.ValidVersion(n.Version):
			return fmt.Errorf("nightly.version: %s is not a version", quote(n.Version))
		case !statusRE().MatchString(n.Verdict):
			return fmt.Errorf("nightly.verdict %s", quote(n.Verdict))
		case len(n.Source) > maxText || len(n.Reason) > maxText:
			return errors.New("nightly: a text too long")
		}
		for _, b := range []*report.NightlyBuild{n.FirstFailing, n.LastPassing} {
			if b != nil && !report.ValidVersion(b.Version) {
				return fmt.Errorf("nightly: %s is not a version", quote(b.Version))
			}
		}
	}
	return nil
}

// quote shows text from a report in one line, cut to 80 bytes, with anything
// unprintable escaped.
func quote(s string) string {
	if len(s) > 80 {
		s = strings.ToValidUTF8(s[:80], "") + "…"
	}
	return fmt.Sprintf("%q", s)
}
