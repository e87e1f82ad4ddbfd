package planning_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/pinbot-dev/pinbot/bot/planning"
	"github.com/pinbot-dev/pinbot/config"
	"github.com/pinbot-dev/pinbot/pins/all"
	"github.com/pinbot-dev/pinbot/sources"
	schemes "github.com/pinbot-dev/pinbot/versions/all"
)

// releaseSource lists two releases of every package.
type releaseSource struct{}

func (releaseSource) Name() string   { return "pypi" }
func (releaseSource) Scheme() string { return "pep440" }
func (releaseSource) Releases(context.Context, string) ([]sources.Release, error) {
	f := []sources.File{{Name: "x.tar.gz"}}
	return []sources.Release{{Version: "1.0.0", Files: f}, {Version: "1.1.0", Files: f}}, nil
}

// hashSource is a releaseSource that is a planning.Hasher too.
type hashSource struct {
	releaseSource
	digests []string
	err     error
	calls   atomic.Int32
}

func (s *hashSource) Hashes(_ context.Context, pkg, version string) ([]string, error) {
	s.calls.Add(1)
	if version != "1.1.0" {
		return nil, errors.New("asked for " + pkg + " " + version)
	}
	return s.digests, s.err
}

// hashRepo writes two requirements files that hash-lock pkg==1.0.0 and
// returns a checker whose pypi source is src.
func hashRepo(t *testing.T, src sources.Source) (*planning.Checker, string) {
	dir := t.TempDir()
	data := "pkg==1.0.0 \\\n    --hash=sha256:" + strings.Repeat("0", 64) + "\n"
	for _, name := range []string{"requirements.txt", "requirements-dev.txt"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg, err := config.Parse(".pinbot.yml", []byte("packages:\n  pkg:\n    cap: preserve\n"))
	if err != nil {
		t.Fatal(err)
	}
	return &planning.Checker{Root: dir, Config: cfg, Formats: all.Formats(), Sources: map[string]sources.Source{"pypi": src}, Schemes: schemes.Schemes()}, data
}

// TestHashesOncePerCheck moves two hash-locked pins of one package, asking the
// source for the hashes of the new version once per check.
func TestHashesOncePerCheck(t *testing.T) {
	a, b := strings.Repeat("a", 64), strings.Repeat("B", 64)
	src := &hashSource{digests: []string{b, a, a}}
	c, _ := hashRepo(t, src)
	rep, err := c.Check(context.Background(), planning.CheckOptions{Write: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Written) != 2 || src.calls.Load() != 1 {
		t.Errorf("written %v, %d calls to Hashes", rep.Written, src.calls.Load())
	}
	want := "pkg==1.1.0 \\\n    --hash=sha256:" + a + " \\\n    --hash=sha256:" + strings.ToLower(b) + "\n"
	for _, name := range rep.Written {
		if got, _ := os.ReadFile(filepath.Join(c.Root, name)); string(got) != want {
			t.Errorf("%s:\n%s\nwant:\n%s", name, got, want)
		}
	}
	if _, err := c.Check(context.Background(), planning.CheckOptions{}); err != nil || src.calls.Load() != 1 {
		t.Errorf("a check after the move asked for hashes: %d calls, %v", src.calls.Load(), err)
	}
}

// TestHashesRefused leaves the pins as written, with the reason, when the
// source cannot give hashes.
func TestHashesRefused(t *testing.T) {
	for _, tt := range []struct {
		name string
		src  sources.Source
		want string
	}{
		{"a source without hashes", releaseSource{}, "the pypi source gives no file hashes"},
		{"a lookup error", &hashSource{err: errors.New("index down")}, "index down"},
		{"no hashes", &hashSource{}, "pypi lists no files with sha256 hashes for pkg 1.1.0"},
		{"not a sha256 digest", &hashSource{digests: []string{"md5:abc"}}, `pypi gave "md5:abc" for a file of pkg 1.1.0, which is not a sha256 digest`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, data := hashRepo(t, tt.src)
			rep, err := c.Check(context.Background(), planning.CheckOptions{Write: true})
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Written) != 0 || len(rep.Packages) != 1 || rep.Packages[0].Status != "held" {
				t.Fatalf("written %v, packages %+v", rep.Written, rep.Packages)
			}
			for _, pin := range rep.Packages[0].Pins {
				if pin.After != pin.Before || !strings.HasPrefix(pin.Skip, "hash-locked: no new hashes for pkg 1.1.0, so the pin stays: ") ||
					!strings.Contains(pin.Skip, tt.want) || pin.Reason != "not edited: "+pin.Skip {
					t.Errorf("%s: %+v", pin.File, pin)
				}
				if got, _ := os.ReadFile(filepath.Join(c.Root, pin.File)); string(got) != data {
					t.Errorf("%s was written", pin.File)
				}
			}
		})
	}
}
