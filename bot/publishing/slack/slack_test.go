package slack_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/pinbot-dev/pinbot/bot/publishing/slack"
	"github.com/pinbot-dev/pinbot/internal/escape/inerttest"
	"github.com/pinbot-dev/pinbot/internal/fakes"
	"github.com/pinbot-dev/pinbot/web"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func summary() slack.Summary {
	return slack.Summary{
		Repo:   "pymc-devs/pytensor",
		RunURL: "https://github.com/pymc-devs/pytensor/actions/runs/42",
		Items: []slack.Item{
			{Kind: slack.KindPR, Title: "numba: opened #12 Bump numba cap to 0.67.0", URL: "https://github.com/pymc-devs/pytensor/pull/12"},
			{Kind: slack.KindFailure, Title: "tensorflow: a check failed against 2.21.0", URL: "https://github.com/pymc-devs/pytensor/pull/13",
				Detail: "probe numba-unique-ids: FunctionIdentity._unique_ids is gone <@U123> & more"},
			{Kind: slack.KindFailure, Title: "numba: a check failed", Package: "numba", Versions: "0.66.0 → 0.68.0", Verdict: "blocked",
				Links:  []slack.Link{{Text: "numba 0.68.0 on PyPI", URL: "https://pypi.org/project/numba/0.68.0/"}, {Text: "release notes", URL: "https://numba.readthedocs.io/notes"}},
				Detail: "probe `unique-ids` fails at 0.68.0 (passes at 0.66.0): gone"},
			{Kind: slack.KindUpstreamFixed, Title: "numba: canary fork-cache passes", Detail: "the workaround can go"},
			{Kind: slack.KindHeld, Title: "jax: held, 0.7.1 is shut out",
				Detail: `pyproject.toml:12 jax = "^0.6.0" shuts out 0.7.1: ^0.6.0 caps below 0.7.1; the inclusive strategy does not rewrite it (cap: preserve does)`},
			{Kind: slack.KindError, Title: "protobuf: pypi: 404 Not Found"},
		},
	}
}

func TestBuildGolden(t *testing.T) {
	b, err := json.MarshalIndent(slack.Build(summary()), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", "message.json")
	if *update {
		os.MkdirAll("testdata", 0o755)
		os.WriteFile(path, b, 0o644)
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), string(b)); diff != "" {
		t.Errorf("message (-want +got):\n%s", diff)
	}
}

// checkLimits fails the test when m breaks a Block Kit limit.
func checkLimits(t *testing.T, m slack.Message) {
	t.Helper()
	if len(m.Blocks) > slack.MaxBlocks {
		t.Errorf("%d blocks", len(m.Blocks))
	}
	if !utf8.ValidString(m.Text) || m.Text == "" {
		t.Errorf("fallback text %q", m.Text)
	}
	for i, b := range m.Blocks {
		if len(b.Fields) > 10 {
			t.Errorf("block %d: %d fields", i, len(b.Fields))
		}
		for _, f := range b.Fields {
			if n := utf8.RuneCountInString(f.Text); n > 2000 || !utf8.ValidString(f.Text) {
				t.Errorf("block %d: a field of %d characters", i, n)
			}
		}
		if b.Text == nil {
			continue
		}
		n := utf8.RuneCountInString(b.Text.Text)
		if !utf8.ValidString(b.Text.Text) || n == 0 ||
			(b.Type == "header" && n > slack.MaxHeader) || (b.Type == "section" && n > slack.MaxSection) {
			t.Errorf("block %d (%s): %d characters, valid UTF-8 %v", i, b.Type, n, utf8.ValidString(b.Text.Text))
		}
	}
}

func TestBuildLimits(t *testing.T) {
	s := summary()
	s.Repo = strings.Repeat("a-very-long-organisation/", 20)
	for i := range 120 {
		s.Items = append(s.Items, slack.Item{Kind: slack.KindPR, Title: fmt.Sprintf("pkg%d: %s", i, strings.Repeat("é", 700)),
			URL: "https://example.com/pull/1", Detail: strings.Repeat("<&>", 2000)})
	}
	m := slack.Build(s)
	checkLimits(t, m)
	if len(m.Blocks) != slack.MaxBlocks {
		t.Errorf("%d blocks, want the full %d", len(m.Blocks), slack.MaxBlocks)
	}
	last := m.Blocks[len(m.Blocks)-2].Text.Text
	if !strings.HasPrefix(last, "…and 81 more") { // 126 items, 45 shown
		t.Errorf("overflow line %q", last)
	}
}

func FuzzBuild(f *testing.F) {
	f.Add("owner/repo", "numba: opened #1", "https://x/pull/1", "detail", 3, 100)
	f.Add(strings.Repeat("x", 200), "<&>|*_~`", "", strings.Repeat("&amp;", 900), 60, 3000)
	f.Fuzz(func(t *testing.T, repo, title, url, detail string, n, width int) {
		n, width = min(max(n, 0), 200), min(max(width, 0), 5000)
		s := slack.Summary{Repo: repo, RunURL: url}
		for i := range n {
			d := detail
			if width > 0 {
				d = strings.Repeat(detail+" ", width/(len(detail)+1)+1)
			}
			s.Items = append(s.Items, slack.Item{Kind: []slack.Kind{slack.KindPR, slack.KindError}[i%2], Title: title, URL: url, Detail: d})
		}
		m := slack.Build(s)
		checkLimits(t, m)
		if _, err := json.Marshal(m); err != nil {
			t.Fatal(err)
		}
	})
}

// client returns a Slack client over web.Transport whose waits are recorded.
func client(t *testing.T, url string, log *slog.Logger) (*slack.Client, *[]time.Duration) {
	var waits []time.Duration
	tr := web.NewTransport(nil, web.DefaultPolicy, "pinbot/test", log)
	tr.Sleep = func(ctx context.Context, d time.Duration) error { waits = append(waits, d); return nil }
	c := &slack.Client{URL: url, HTTP: &http.Client{Transport: tr},
		Sleep: func(ctx context.Context, d time.Duration) error { waits = append(waits, d); return nil }}
	return c, &waits
}

func TestPost(t *testing.T) {
	tests := []struct {
		name    string
		faults  []fakes.Fault
		want    string // error text; "" for success
		calls   int
		waitMin time.Duration
	}{
		{name: "ok", calls: 1},
		{name: "429 then ok", faults: []fakes.Fault{{Status: 429, Header: map[string]string{"Retry-After": "7"}, Body: "rate_limited"}}, calls: 2, waitMin: 7 * time.Second},
		{name: "500 then ok", faults: []fakes.Fault{{Status: 500, Body: "rollup_error"}}, calls: 2},
		{name: "404", faults: []fakes.Fault{{Status: 404, Body: "channel_not_found"}}, want: "slack webhook: 404 channel_not_found", calls: 1},
		{name: "410", faults: []fakes.Fault{{Status: 410, Body: "channel_is_archived"}}, want: "slack webhook: 410 channel_is_archived", calls: 1},
		{name: "400", faults: []fakes.Fault{{Status: 400, Body: "invalid_payload"}}, want: "slack webhook: 400 invalid_payload", calls: 1},
		{name: "500 three times", faults: []fakes.Fault{{Status: 500, Body: "rollup_error"}, {Status: 503, Body: "x"}, {Status: 500, Body: "rollup_error"}}, want: "500 rollup_error", calls: 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := fakes.NewSlack(t)
			fake.Fail(tt.faults...)
			var logs bytes.Buffer
			c, waits := client(t, fake.URL, slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})))
			err := c.Post(context.Background(), slack.Build(summary()))
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("error %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Fatalf("error %v, want %q", err, tt.want)
			}
			var se *slack.Error
			if tt.want != "" && !errors.As(err, &se) {
				t.Errorf("error %T is not a *slack.Error", err)
			}
			if fake.Calls() != tt.calls {
				t.Errorf("%d calls, want %d", fake.Calls(), tt.calls)
			}
			if tt.waitMin > 0 && (len(*waits) == 0 || (*waits)[0] < tt.waitMin) {
				t.Errorf("waits %v, want Retry-After %v honoured", *waits, tt.waitMin)
			}
			if tt.want == "" && len(fake.Messages()) != 1 {
				t.Errorf("%d messages accepted", len(fake.Messages()))
			}
			for _, s := range []string{logs.String(), fmt.Sprint(err)} {
				if strings.Contains(s, fakes.SlackWebhookPath) || strings.Contains(s, "s3cr3t") {
					t.Errorf("the webhook URL leaked: %s", s)
				}
			}
		})
	}
}

func TestPostUnreachable(t *testing.T) {
	fake := fakes.NewSlack(t)
	url := fake.URL
	fake.Close()
	p := web.DefaultPolicy
	p.Attempts = 1
	c := &slack.Client{URL: url, HTTP: &http.Client{Transport: web.NewTransport(nil, p, "t", nil)}, Attempts: 1}
	err := c.Post(context.Background(), slack.Message{Text: "x"})
	if err == nil || strings.Contains(err.Error(), "s3cr3t") {
		t.Errorf("error %v: want one without the URL", err)
	}
}

// TestBuildHostile puts what an attacker would choose in every title and
// detail: the message holds no mention, channel ping or link but pinbot's
// own, in the blocks and in the notification text, and no mrkdwn text lets
// Slack turn bare URLs or @names into links.
func TestBuildHostile(t *testing.T) {
	const ours = "https://github.com/o/r/pull/1"
	s := slack.Summary{Repo: "o/r<!channel>", RunURL: "https://github.com/o/r/actions/runs/1"}
	for _, h := range inerttest.Hostile {
		s.Items = append(s.Items,
			slack.Item{Kind: slack.KindError, Title: h, Detail: h},
			slack.Item{Kind: slack.KindPR, Title: h, URL: ours, Detail: h},
			slack.Item{Kind: slack.KindFailure, Title: h + ": x", Package: h, Versions: h, Verdict: h, Links: []slack.Link{{Text: h, URL: ours}}})
	}
	m := slack.Build(s)
	texts := []string{m.Text}
	for _, b := range m.Blocks {
		for _, f := range b.Fields {
			texts = append(texts, f.Text)
			if !f.Verbatim {
				t.Errorf("a mrkdwn field Slack may link-ify: %q", f.Text)
			}
		}
		if b.Text != nil && b.Text.Type == "mrkdwn" {
			texts = append(texts, b.Text.Text)
			if !b.Text.Verbatim {
				t.Errorf("a mrkdwn text Slack may link-ify: %q", b.Text.Text)
			}
		}
		for _, e := range b.Elements {
			texts = append(texts, e.Text)
		}
	}
	for _, text := range texts {
		for off := 0; ; {
			j := strings.IndexByte(text[off:], '<')
			if j < 0 {
				break
			}
			i := off + j
			if !strings.HasPrefix(text[i:], "<"+ours+"|") && !strings.HasPrefix(text[i:], "<"+s.RunURL+"|") {
				t.Errorf("a Slack control sequence pinbot did not write at %q", text[i:min(len(text), i+30)])
			}
			off = i + 1
		}
	}
}
