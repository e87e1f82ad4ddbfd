package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
)

// Set by the linker: -ldflags "-X main.version=v1.2.3 -X main.commit=abc123".
// Unset, they come from the build information the go command stamps into
// every binary (see buildID).
var (
	version = "dev"
	commit  = ""
)

// A buildStamp says what a binary is: its module version, and the commit it
// was built from with that commit's time and whether the tree had changes.
type buildStamp struct {
	Version  string // "v1.2.3", a pseudo-version, or "dev"
	Revision string // the VCS revision, or "unknown"
	Time     string // the commit's time (RFC 3339), or ""
	Modified bool   // the working tree had uncommitted changes
}

// buildID returns what this binary is: the linker's values when set, else
// what runtime/debug.ReadBuildInfo says (go install MODULE@VERSION stamps the
// module version; go build in a checkout stamps a pseudo-version and the
// vcs.* settings).
func buildID() buildStamp {
	info, _ := debug.ReadBuildInfo()
	return stampOf(version, commit, info)
}

// stampOf is buildID on given linker values and build information (nil when
// there is none).
func stampOf(ldVersion, ldCommit string, info *debug.BuildInfo) buildStamp {
	s := buildStamp{Version: ldVersion, Revision: ldCommit}
	if info != nil {
		// "(devel)" is what the go command says of a main module it has no
		// version for (a build outside version control, a test binary).
		if v := info.Main.Version; (s.Version == "" || s.Version == "dev") && v != "" && v != "(devel)" {
			s.Version = v
		}
		var rev string
		for _, kv := range info.Settings {
			switch kv.Key {
			case "vcs.revision":
				rev = kv.Value
			case "vcs.time":
				s.Time = kv.Value
			case "vcs.modified":
				s.Modified = kv.Value == "true"
			}
		}
		if s.Revision == "" {
			s.Revision = rev
		} else if rev != s.Revision {
			// A commit given to the linker says nothing of the time and
			// state of another revision.
			s.Time, s.Modified = "", false
		}
	}
	if s.Version == "" {
		s.Version = "dev"
	}
	if s.Revision == "" {
		s.Revision = "unknown"
	}
	return s
}

// String is what pinbot version and pinbot --version print.
func (s buildStamp) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "pinbot %s\ncommit %s", s.Version, s.Revision)
	var notes []string
	if s.Time != "" {
		notes = append(notes, s.Time)
	}
	if s.Modified {
		notes = append(notes, "modified")
	}
	if len(notes) > 0 {
		fmt.Fprintf(&b, " (%s)", strings.Join(notes, ", "))
	}
	fmt.Fprintf(&b, "\n%s %s/%s\n", runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return b.String()
}

// versionString is the version sent as the User-Agent.
func versionString() string { return buildID().Version }

func newVersionCmd(f *Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print pinbot's version, commit and Go version",
		Args:  usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			_, err := fmt.Fprint(f.Stdout, buildID())
			return err
		},
	}
}

// usageArgs makes an argument check's error a usage error (exit 2).
func usageArgs(check cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := check(cmd, args); err != nil {
			return &usageError{err}
		}
		return nil
	}
}
