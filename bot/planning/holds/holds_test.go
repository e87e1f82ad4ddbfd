package holds_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pinbot-dev/pinbot/bot/planning/holds"
	"github.com/pinbot-dev/pinbot/versions/conda"
	"github.com/pinbot-dev/pinbot/versions/pep440"
)

var (
	numpy    = []string{"2.3.0", "2.4.1", "2.5.0", "2.5.1", "2.6.0rc1"}
	llvmlite = []string{"0.48.0", "0.49.0", "0.50.0", "0.50.1", "0.51.0"}
)

func parse(t *testing.T, env holds.Env, reqs ...string) []holds.Requirement {
	t.Helper()
	rs, errs := holds.ParsePEP508(reqs, env, pep440.Scheme{})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	return rs
}

func TestFind(t *testing.T) {
	py312 := holds.Env{Pythons: []string{"3.12"}}
	releases := map[string][]string{"numpy": {"2.3.0", "2.4.1", "2.5.0", "2.5.1"}, "llvmlite": llvmlite, "scipy": {"1.16.0"}}
	tests := []struct {
		name             string
		env              holds.Env
		admits, requires []string
		want             []holds.HoldBack
	}{
		{
			name:     "the pytensor case: numba's cap holds numpy and llvmlite",
			env:      py312,
			admits:   []string{"llvmlite<0.49,>=0.48.0dev0", "numpy<2.5,>=1.24", `scipy>=1.0; extra == "cuda"`},
			requires: []string{"llvmlite<0.51,>=0.50.0dev0", "numpy<2.6,>=1.24"},
			want: []holds.HoldBack{
				{Package: "llvmlite", Constraint: "<0.49", RequiredBy: "numba 0.65.1", Newest: "0.51.0",
					Reason: "numba 0.65.1, the newest release the caps admit, holds llvmlite<0.49 while llvmlite 0.51.0 is out; numba 0.67.0 admits llvmlite<0.51 (up to 0.50.1)"},
				{Package: "numpy", Constraint: "<2.5", RequiredBy: "numba 0.65.1", Newest: "2.5.1",
					Reason: "numba 0.65.1, the newest release the caps admit, holds numpy<2.5 while numpy 2.5.1 is out; numba 0.67.0 admits numpy<2.6"},
			},
		},
		{
			name:     "the target holds it as far back: not the cap's cost",
			env:      py312,
			admits:   []string{"numpy<2.5,>=1.24"},
			requires: []string{"numpy>=1.26,<2.5"},
		},
		{
			name:     "the target does not require it",
			env:      py312,
			admits:   []string{"numpy==2.4.1"},
			requires: []string{"llvmlite"},
			want: []holds.HoldBack{{Package: "numpy", Constraint: "==2.4.1", RequiredBy: "numba 0.65.1", Newest: "2.5.1",
				Reason: "numba 0.65.1, the newest release the caps admit, holds numpy==2.4.1 while numpy 2.5.1 is out; numba 0.67.0 does not require numpy"}},
		},
		{
			name:     "the newest release is admitted",
			env:      py312,
			admits:   []string{"numpy<3,>=1.24", "llvmlite"},
			requires: []string{"numpy<3"},
		},
		{
			name:     "markers decided by the configured Python",
			env:      py312,
			admits:   []string{`numpy<2.0; python_version < "3.10"`, `numpy<2.5,>=1.26; python_version >= "3.10"`},
			requires: []string{`numpy<2.6,>=1.26; python_version >= "3.10"`},
			want: []holds.HoldBack{{Package: "numpy", Constraint: "<2.5", RequiredBy: "numba 0.65.1", Newest: "2.5.1",
				Reason: "numba 0.65.1, the newest release the caps admit, holds numpy<2.5 while numpy 2.5.1 is out; numba 0.67.0 admits numpy<2.6"}},
		},
		{
			name:     "no Python configured: the marker is shown",
			admits:   []string{`numpy<2.5; python_version >= "3.10"`},
			requires: []string{`numpy<2.6; python_version >= "3.10"`},
			want: []holds.HoldBack{{Package: "numpy", Constraint: `<2.5; python_version >= "3.10"`, RequiredBy: "numba 0.65.1", Newest: "2.5.1",
				Reason: `numba 0.65.1, the newest release the caps admit, holds numpy<2.5 (when python_version >= "3.10") while numpy 2.5.1 is out; numba 0.67.0 admits numpy<2.6`}},
		},
		{
			name:     "a requirement that admits no release is broken, not held",
			env:      py312,
			admits:   []string{"numpy>=9"},
			requires: []string{"numpy>=1"},
		},
		{
			name:     "a dependency whose releases are unknown is skipped",
			env:      py312,
			admits:   []string{"cffi<1"},
			requires: []string{"cffi<2"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := holds.Cap{Package: "numba", Admitted: "0.65.1", Target: "0.67.0",
				Admits: parse(t, tt.env, tt.admits...), Targets: parse(t, tt.env, tt.requires...)}
			got := holds.Find(c, releases, pep440.Scheme{})
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
}

func TestParsePEP508(t *testing.T) {
	rs, errs := holds.ParsePEP508([]string{
		"Numpy_Core<2.5", `scipy; extra == "all"`, `tomli; python_version < "3.11"`, "pkg @ https://example.com/pkg.whl",
		"numpy (<2.5)", "not a requirement!", `x; python_versio < "3"`,
	}, holds.Env{Pythons: []string{"3.12", "3.10"}}, pep440.Scheme{})
	want := []holds.Requirement{{Name: "numpy-core", Constraint: "<2.5"}, {Name: "tomli"}, {Name: "numpy", Constraint: "<2.5"}}
	if diff := cmp.Diff(want, rs); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
	if len(errs) != 2 {
		t.Errorf("errors %v, want 2", errs)
	}
}

func TestMayHold(t *testing.T) {
	for c, want := range map[string]bool{"": false, ">=1.24": false, ">1,>=2": false, "<2.5,>=1.24": true, "==2.4.1": true, "~=2.4": true, "!=2.5.0": true} {
		if got := holds.MayHold(holds.Requirement{Name: "numpy", Constraint: c}, pep440.Scheme{}); got != want {
			t.Errorf("%q: %v", c, got)
		}
	}
}

// TestFindConda reads conda depends with conda's version order.
func TestFindConda(t *testing.T) {
	admits, errs := holds.ParseConda([]string{"numpy >=1.24,<2.5", "python >=3.12,<3.13.0a0", "python_abi 3.12.* *_cp312", "__glibc >=2.17", "llvmlite >=0.48.0,<0.49.0a0", "libgcc"})
	targets, errs2 := holds.ParseConda([]string{"numpy >=1.24,<2.6", "python >=3.13,<3.14.0a0", "llvmlite 0.50.*"})
	if len(errs)+len(errs2) > 0 {
		t.Fatal(errs, errs2)
	}
	got := holds.Find(holds.Cap{Package: "numba", Admitted: "0.65.1", Target: "0.67.0", Admits: admits, Targets: targets},
		map[string][]string{"numpy": numpy[:4], "python": {"3.12.4", "3.13.1"}, "llvmlite": llvmlite}, conda.Scheme{})
	var names []string
	for _, h := range got {
		names = append(names, h.Package+h.Constraint)
	}
	// python is left out, though the target's build is for a newer one.
	if diff := cmp.Diff([]string{"llvmlite<0.49.0a0", "numpy<2.5"}, names); diff != "" {
		t.Errorf("(-want +got)\n%s\n%+v", diff, got)
	}
}
