package fleet_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pinbot-dev/pinbot/bot/publishing/github"
	"github.com/pinbot-dev/pinbot/fleet"
)

func TestSelect(t *testing.T) {
	repos := []github.Repository{
		{FullName: "lab/ml-a", Topics: []string{"ml", "python"}},
		{FullName: "lab/ml-b", Topics: []string{"ML"}, Fork: true},
		{FullName: "lab/ml-old", Topics: []string{"ml"}, Archived: true},
		{FullName: "lab/web", Topics: []string{"web"}},
		{FullName: "lab/ml-sandbox", Topics: []string{"ml"}},
		{FullName: "lab/tools"},
	}
	for _, tt := range []struct {
		name string
		f    fleet.Filter
		want []string
	}{
		{"all but archived and forks", fleet.Filter{}, []string{"lab/ml-a", "lab/ml-sandbox", "lab/tools", "lab/web"}},
		{"forks", fleet.Filter{Forks: true}, []string{"lab/ml-a", "lab/ml-b", "lab/ml-sandbox", "lab/tools", "lab/web"}},
		{"topic, any case", fleet.Filter{Topics: []string{"ml"}, Forks: true}, []string{"lab/ml-a", "lab/ml-b", "lab/ml-sandbox"}},
		{"two topics", fleet.Filter{Topics: []string{"web", "python"}}, []string{"lab/ml-a", "lab/web"}},
		{"include and exclude", fleet.Filter{Include: []string{"ml-*"}, Exclude: []string{"*-sandbox"}}, []string{"lab/ml-a"}},
		{"full-name glob", fleet.Filter{Include: []string{"lab/t*"}}, []string{"lab/tools"}},
		{"nothing", fleet.Filter{Topics: []string{"rust"}}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, skipped := fleet.Select("lab", repos, tt.f)
			if diff := cmp.Diff(tt.want, got); diff != "" || len(skipped) != 0 {
				t.Errorf("(-want +got):\n%s\nskipped %q", diff, skipped)
			}
		})
	}
	// Names GitHub does not allow, and another owner's, are skipped and
	// named, whatever the filter.
	hostile := append(slices.Clone(repos), github.Repository{FullName: "lab/$(touch${IFS}pwned)"}, github.Repository{FullName: "lab/../x"},
		github.Repository{FullName: "other/ml-a", Topics: []string{"ml"}}, github.Repository{FullName: "LAB/Tools2"})
	got, skipped := fleet.Select("lab", hostile, fleet.Filter{Include: []string{"*"}})
	want := []string{`"lab/$(touch${IFS}pwned)": not a repository name GitHub allows; skipped`, `"lab/../x": not a repository name GitHub allows; skipped`,
		`"other/ml-a": not a repository of lab; skipped`}
	if diff := cmp.Diff(want, skipped); diff != "" || !slices.Equal(got, []string{"LAB/Tools2", "lab/ml-a", "lab/ml-sandbox", "lab/tools", "lab/web"}) {
		t.Errorf("kept %q; skipped (-want +got):\n%s", got, diff)
	}
	if err := (fleet.Filter{Include: []string{"[a-"}}).Validate(); err == nil {
		t.Error("a bad glob was accepted")
	}
}

// TestBatch: no more batches than the cap, every name once and in order,
// sizes differing by at most one.
func TestBatch(t *testing.T) {
	for _, tt := range []struct{ n, max, jobs int }{{0, 256, 0}, {3, 256, 3}, {256, 256, 256}, {257, 256, 256}, {1000, 256, 256}, {10, 4, 4}, {7, 1, 1}, {5, 0, 1}} {
		var names []string
		for i := range tt.n {
			names = append(names, fmt.Sprintf("o/r%04d", i))
		}
		bs := fleet.Batch(names, tt.max)
		if len(bs) != tt.jobs {
			t.Errorf("%d names, max %d: %d batches, want %d", tt.n, tt.max, len(bs), tt.jobs)
			continue
		}
		var all []string
		lo, hi := tt.n, 0
		for _, b := range bs {
			all = append(all, b...)
			lo, hi = min(lo, len(b)), max(hi, len(b))
		}
		if !slices.Equal(all, names) || (len(bs) > 0 && hi-lo > 1) {
			t.Errorf("%d names, max %d: sizes %d..%d, order kept %v", tt.n, tt.max, lo, hi, slices.Equal(all, names))
		}
	}
}

func TestMatrix(t *testing.T) {
	m := fleet.NewMatrix(fleet.Batch([]string{"lab/a", "lab/b", "lab/c"}, 2))
	want := `{"include":[{"batch":1,"repositories":"lab/a lab/b","names":"a,b"},{"batch":2,"repositories":"lab/c","names":"c"}]}`
	if got := m.JSON(); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if got := fleet.NewMatrix(nil).JSON(); got != `{"include":[]}` {
		t.Errorf("empty: %s", got)
	}
}
