package groups_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pinbot-dev/pinbot/bot/planning/groups"
	"github.com/pinbot-dev/pinbot/bot/planning/holds"
	"github.com/pinbot-dev/pinbot/versions/pep440"
)

// index is what each release requires, as Requires-Dist strings.
type index map[string][]string

func (ix index) requires(reads *[]string) groups.Requires {
	return func(member, version string) ([]holds.Requirement, error) {
		*reads = append(*reads, member+" "+version)
		raw, ok := ix[member+" "+version]
		if !ok && strings.HasPrefix(version, "9") {
			return nil, errors.New("404 Not Found")
		}
		rs, errs := holds.ParsePEP508(raw, holds.Env{Pythons: []string{"3.12"}}, pep440.Scheme{})
		if len(errs) > 0 {
			return nil, errs[0]
		}
		return rs, nil
	}
}

var numbaStack = index{
	"numba 0.67.0":    {"llvmlite<0.51,>=0.50.0dev0", "numpy<2.6,>=1.24"},
	"numba 0.66.0":    {"llvmlite<0.50,>=0.49.0dev0", "numpy<2.5,>=1.24"},
	"llvmlite 0.51.0": {},
	"llvmlite 0.50.1": {},
	"llvmlite 0.50.0": {},
	"llvmlite 0.49.0": {},
}

func TestSolve(t *testing.T) {
	tests := []struct {
		name    string
		members []groups.Member
		ix      index
		want    map[string]string
		why     map[string]string
		err     string
	}{
		{
			name: "llvmlite's newest 0.50.x, not 0.51.0",
			members: []groups.Member{
				{Name: "numba", Candidates: []string{"0.67.0", "0.66.0"}},
				{Name: "llvmlite", Candidates: []string{"0.51.0", "0.50.1", "0.50.0", "0.49.0"}},
			},
			ix:   numbaStack,
			want: map[string]string{"numba": "0.67.0", "llvmlite": "0.50.1"},
			why:  map[string]string{"llvmlite": "numba 0.67.0 requires llvmlite<0.51,>=0.50.0dev0"},
		},
		{
			name: "every target consistent",
			members: []groups.Member{
				{Name: "numba", Candidates: []string{"0.67.0", "0.66.0"}},
				{Name: "llvmlite", Candidates: []string{"0.50.1", "0.49.0"}},
			},
			ix:   numbaStack,
			want: map[string]string{"numba": "0.67.0", "llvmlite": "0.50.1"},
			why:  map[string]string{},
		},
		{
			name: "llvmlite cannot move: numba stays where llvmlite is admitted",
			members: []groups.Member{
				{Name: "numba", Candidates: []string{"0.67.0", "0.66.0"}},
				{Name: "llvmlite", Candidates: []string{"0.49.0"}},
			},
			ix:   numbaStack,
			want: map[string]string{"numba": "0.66.0", "llvmlite": "0.49.0"},
			why:  map[string]string{"numba": "numba 0.67.0 requires llvmlite<0.51,>=0.50.0dev0 (llvmlite 0.49.0 is chosen)"},
		},
		{
			name: "a later member's requirement on an earlier one",
			members: []groups.Member{
				{Name: "numba", Candidates: []string{"0.67.0", "0.66.0"}},
				{Name: "numba-cuda", Candidates: []string{"0.20.0", "0.19.0"}},
			},
			ix:   index{"numba 0.67.0": {}, "numba 0.66.0": {}, "numba-cuda 0.20.0": {"numba>=0.68"}, "numba-cuda 0.19.0": {"numba>=0.66"}},
			want: map[string]string{"numba": "0.67.0", "numba-cuda": "0.19.0"},
			why:  map[string]string{"numba-cuda": "numba-cuda 0.20.0 requires numba>=0.68 (numba 0.67.0 is chosen)"},
		},
		{
			name: "no consistent set",
			members: []groups.Member{
				{Name: "numba", Candidates: []string{"0.67.0", "0.66.0"}},
				{Name: "llvmlite", Candidates: []string{"0.51.0"}},
			},
			ix:  numbaStack,
			err: "no consistent set of releases: numba 0.67.0 requires llvmlite<0.51,>=0.50.0dev0; numba 0.66.0 requires llvmlite<0.50,>=0.49.0dev0",
		},
		{
			name: "requirements that cannot be read end the search",
			members: []groups.Member{
				{Name: "numba", Candidates: []string{"9.0.0"}},
				{Name: "llvmlite", Candidates: []string{"0.51.0"}},
			},
			ix:  numbaStack,
			err: "numba 9.0.0: 404 Not Found",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var reads []string
			got, err := groups.Solve(tt.members, tt.ix.requires(&reads), pep440.Scheme{}, 0)
			if tt.err != "" {
				if err == nil || err.Error() != tt.err {
					t.Errorf("error %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got.Versions); diff != "" {
				t.Errorf("versions (-want +got)\n%s", diff)
			}
			if diff := cmp.Diff(tt.why, got.Why); diff != "" {
				t.Errorf("why (-want +got)\n%s", diff)
			}
			seen := map[string]bool{}
			for _, r := range reads {
				if seen[r] {
					t.Errorf("%s read twice", r)
				}
				seen[r] = true
			}
		})
	}
}

// TestSolveBudget: a search that would read more releases than the budget
// gives up, saying so.
func TestSolveBudget(t *testing.T) {
	var cands []string
	ix := index{}
	for _, v := range []string{"1.9", "1.8", "1.7", "1.6", "1.5", "1.4", "1.3", "1.2", "1.1", "1.0"} {
		cands = append(cands, v)
		ix["a "+v] = []string{"b>=5"}
	}
	var reads []string
	_, err := groups.Solve([]groups.Member{{Name: "a", Candidates: cands}, {Name: "b", Candidates: []string{"1.0"}}}, ix.requires(&reads), pep440.Scheme{}, 4)
	if !errors.Is(err, groups.ErrInconsistent) || !strings.Contains(err.Error(), "gave up after reading the requirements of 4 releases") || len(reads) != 4 {
		t.Errorf("error %v after %d reads", err, len(reads))
	}
}
