package github_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pinbot-dev/pinbot/bot/publishing/github"
	"github.com/pinbot-dev/pinbot/bot/report"
	"github.com/pinbot-dev/pinbot/internal/fakes"
	"github.com/pinbot-dev/pinbot/web"
)

const (
	repo  = "o/r"
	token = "ghp_unitTestToken"
)

type clock struct {
	mu     sync.Mutex
	now    time.Time
	sleeps []time.Duration
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *clock) Sleep(ctx context.Context, d time.Duration) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if d > 0 {
		c.now = c.now.Add(d)
		c.sleeps = append(c.sleeps, d)
	}
	return nil
}

// setup returns a fake with repo o/r and a client over web.Transport whose
// waits are recorded.
func setup(t *testing.T, policy web.Policy) (*fakes.GitHub, *github.Client, *clock, *[]time.Duration) {
	fake := fakes.NewGitHub(t)
	fake.AddRepo(repo, "main", map[string]string{"a/b/pyproject.toml": "old\n", "README.md": "hi\n"})
	fake.AddToken(token, "bot")
	var waits []time.Duration
	tr := web.NewTransport(nil, policy, "pinbot/test", nil)
	tr.Sleep = func(ctx context.Context, d time.Duration) error { waits = append(waits, d); return nil }
	clk := &clock{now: time.Now()}
	c, err := github.New(github.Options{APIURL: fake.URL, Repo: repo, Tokens: github.StaticToken(token), HTTP: &http.Client{Transport: tr}, Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	return fake, c, clk, &waits
}

func change(content string) github.Change {
	return github.Change{
		Package: "numba", Target: "0.67.0", Base: "main", Title: "Bump numba cap to 0.67.0", Body: "body", Message: "msg",
		Files: []github.File{{Path: "a/b/pyproject.toml", Content: []byte(content), Base: []byte("old\n")}},
	}
}

func TestSyncNestedPathAndStaleCheckout(t *testing.T) {
	fake, c, _, _ := setup(t, web.DefaultPolicy)
	ch := change("new\n")
	res, err := c.Sync(context.Background(), ch)
	if err != nil || res.Action != github.Opened || res.Number != 1 {
		t.Fatalf("%+v %v", res, err)
	}
	files := fake.Files(repo, "pinbot/main/numba")
	if files["a/b/pyproject.toml"] != "new\n" || files["README.md"] != "hi\n" || len(files) != 2 {
		t.Errorf("branch files %v", files)
	}
	// A file that is not text goes as a base64 blob.
	ch.Files[0].Content = []byte{0xff, 0xfe, 'x'}
	if res, err := c.Sync(context.Background(), ch); err != nil || res.Action != github.Updated {
		t.Fatalf("%+v %v", res, err)
	}
	if got := fake.Files(repo, "pinbot/main/numba")["a/b/pyproject.toml"]; got != "\xff\xfex" {
		t.Errorf("binary content %q", got)
	}
	// Planned from another state of the base branch: refused.
	ch.Files[0].Base = []byte("something else\n")
	if _, err := c.Sync(context.Background(), ch); err == nil || !strings.Contains(err.Error(), "checkout differs from the base branch") {
		t.Errorf("error %v", err)
	}
}

// TestNoClientSideFastFail checks that go-github's memory of a rate limit does
// not fail later requests without sending them: web.Transport decides.
func TestNoClientSideFastFail(t *testing.T) {
	p := web.DefaultPolicy
	p.MaxRetryAfter = 30 * time.Second // so that a 60 s Retry-After is given up on
	fake, c, _, _ := setup(t, p)
	fake.Fail("GET", `^/repos/o/r$`, fakes.SecondaryLimit(403))
	if _, err := c.DefaultBranch(context.Background()); err == nil || !strings.Contains(err.Error(), "secondary rate limit") {
		t.Fatalf("error %v", err)
	}
	// v60 alone would now answer "not making remote request" for 60 s.
	before := len(fake.Requests())
	if b, err := c.DefaultBranch(context.Background()); err != nil || b != "main" {
		t.Fatalf("second call: %q %v", b, err)
	}
	if len(fake.Requests()) != before+1 {
		t.Errorf("the second call did not reach the server")
	}
	// A response with no requests remaining: the next call still goes out.
	fake.Fail("GET", `^/repos/o/r$`, fakes.Fault{Status: 200, Body: `{"default_branch":"main"}`,
		Header: map[string]string{"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "9999999999"}})
	c.DefaultBranch(context.Background())
	before = len(fake.Requests())
	if _, err := c.DefaultBranch(context.Background()); err != nil || len(fake.Requests()) != before+1 {
		t.Errorf("after remaining 0: %v, %d requests", err, len(fake.Requests())-before)
	}
}

func TestPacing(t *testing.T) {
	_, c, clk, _ := setup(t, web.DefaultPolicy)
	for i := range 3 {
		ch := change("v" + string(rune('0'+i)) + "\n")
		ch.Package = "pkg" + string(rune('a'+i))
		if _, err := c.Sync(context.Background(), ch); err != nil {
			t.Fatal(err)
		}
	}
	// 3 × (tree, commit, ref, pull) writes: 11 gaps of at least 750 ms.
	var total time.Duration
	for _, s := range clk.sleeps {
		total += s
	}
	if len(clk.sleeps) < 11 || total < 11*750*time.Millisecond {
		t.Errorf("pacing sleeps %v", clk.sleeps)
	}
}

func TestAppTokens(t *testing.T) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	pemKey := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})
	fake := fakes.NewGitHub(t)
	fake.AddRepo(repo, "trunk", nil)
	fake.AddApp(99, &key.PublicKey, 1234, repo)
	ctx := context.Background()
	var minted []string
	ts, err := github.AppTokens(ctx, github.AppOptions{APIURL: fake.URL, AppID: 99, PrivateKey: pemKey, Repo: repo,
		Minted: func(s string) { minted = append(minted, s) }})
	if err != nil {
		t.Fatal(err)
	}
	tok, err := ts.Token()
	if err != nil || tok.AccessToken != "ghs_fakeInstallation1234Token1" {
		t.Fatalf("%v %v", tok, err)
	}
	// Every credential made is told of before it is used: the JWT that
	// found the installation and minted the token, and the token, which
	// nothing used yet.
	if creds := fake.Credentials(); len(minted) != 2 || len(creds) != 1 || minted[0] != creds[0] || minted[1] != tok.AccessToken {
		t.Errorf("minted %.20q, sent %.20q", minted, creds)
	}
	c, err := github.New(github.Options{APIURL: fake.URL, Repo: repo, Tokens: ts})
	if err != nil {
		t.Fatal(err)
	}
	if b, err := c.DefaultBranch(ctx); err != nil || b != "trunk" {
		t.Errorf("default branch %q %v", b, err)
	}
	if creds := fake.Credentials(); !slices.Equal(minted, creds) || len(creds) != 2 || creds[1] != tok.AccessToken {
		t.Errorf("minted %.20q, sent %.20q", minted, creds)
	}
	// A key that is not the App's is refused by the server.
	other, _ := rsa.GenerateKey(rand.Reader, 2048)
	bad := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(other)})
	if _, err := github.AppTokens(ctx, github.AppOptions{APIURL: fake.URL, AppID: 99, InstallationID: 1234, PrivateKey: bad}); err == nil || !strings.Contains(err.Error(), "401") {
		t.Errorf("error %v", err)
	}
	if _, err := github.AppTokens(ctx, github.AppOptions{AppID: 99, PrivateKey: []byte("not a key")}); err == nil {
		t.Error("a bad PEM was accepted")
	}
}

func TestBodyTruncated(t *testing.T) {
	fake, c, _, _ := setup(t, web.DefaultPolicy)
	ch := change("new\n")
	ch.Body = strings.Repeat("| a very long row of evidence |\n", 5000)
	if _, err := c.Sync(context.Background(), ch); err != nil {
		t.Fatal(err)
	}
	body := fake.Pulls(repo)[0].Body
	if len(body) > 65536 || !strings.HasPrefix(body, "<!-- pinbot:v1 package=numba target=0.67.0 base=main -->") ||
		!strings.Contains(body, "cut to fit GitHub's size limit") {
		t.Errorf("body of %d bytes: %.100s … %s", len(body), body, body[max(0, len(body)-200):])
	}
}

func TestDescribe(t *testing.T) {
	d := github.Describe{Base: "main", WorkflowToken: true, Package: report.Package{
		Name: "numba", Newest: "0.67.0", Status: "bump", Sources: map[string]string{"pypi": "0.67.0", "conda-forge": "0.67.0", "other": "1"},
		Reason: "pypi has 0.67.0",
		Pins:   []report.Pin{{File: "pyproject.toml", Line: 53, Before: "numba<=0.66.0", After: "numba<=0.67.0"}},
		Checks: []report.Check{{Kind: "probe", Name: "ids", OK: true, Baseline: "pass", Candidate: "pass"}},
	}}
	body := d.Body()
	for _, want := range []string{"https://pypi.org/project/numba/0.67.0/", "https://anaconda.org/conda-forge/numba/files?version=0.67.0",
		"- other: numba 1", "| probe `ids` | ✅ ok |", "workflow's `GITHUB_TOKEN`", "actions/create-github-app-token"} {
		if !strings.Contains(body, want) {
			t.Errorf("body lacks %q:\n%s", want, body)
		}
	}
	if m := d.Message(); !strings.Contains(m, "pyproject.toml:53: numba<=0.66.0 -> numba<=0.67.0") || !strings.HasPrefix(m, "Bump numba cap to 0.67.0\n") {
		t.Errorf("message %q", m)
	}
}

// TestDescribeProbeEnvironment: a pull request whose probes ran with a
// dependency that moved says which, beside the failure it explains, and the
// project constraints the environment honoured; names from the index stay in code spans.
func TestDescribeProbeEnvironment(t *testing.T) {
	env := &report.Environment{Python: "3.11.7 (/usr/bin/python3)",
		Candidate:   []report.Distribution{{Name: "numba", Version: "0.63.0"}, {Name: "numpy", Version: "2.5.2"}},
		Baseline:    []report.Distribution{{Name: "numba", Version: "0.62.0"}, {Name: "numpy", Version: "2.4.6"}},
		Changes:     []report.Change{{Name: "numpy", From: "2.4.6", To: "2.5.2"}, {Name: "evil`<b>x</b>", To: "1"}},
		Constraints: []string{"llvmlite<0.47 (pyproject.toml:5)"}}
	d := github.Describe{Base: "main", Blocked: true, Package: report.Package{
		Name: "numba", Newest: "0.62.5", Status: "blocked", Reason: "checks failed on 0.63.0, 0.62.5 passed",
		Pins: []report.Pin{{File: "pyproject.toml", Line: 4, Before: "numba<=0.62.0", After: "numba<=0.62.5"}},
		Checks: []report.Check{{Kind: "probe", Name: "arrayobj", Baseline: "pass", Candidate: "fail", Verdict: "blocked", Environment: env,
			Detail: "blocked: numba 0.63.0 fails with numpy 2.5.2 (new since the last run); numba declares numpy>=1.22 with no cap"}},
	}}
	body := d.Body()
	for _, want := range []string{"Probe environment: Python 3.11.7", "baseline → candidate: `numpy 2.4.6 → 2.5.2`",
		"project constraints: `llvmlite<0.47 (pyproject.toml:5)`",
		"numba 0.63.0 fails with numpy 2.5.2 (new since the last run); numba declares numpy&gt;=1.22 with no cap"} {
		if !strings.Contains(body, want) {
			t.Errorf("body lacks %q:\n%s", want, body)
		}
	}
	if !strings.Contains(body, "``evil`<b>x</b> 1 (new)``") { // a code span: inert
		t.Errorf("a distribution name left its code span:\n%s", body)
	}
}

func TestActionsFiles(t *testing.T) {
	var b bytes.Buffer
	wf := github.NewWorkflow(&b)
	wf.Mask("-----BEGIN KEY-----\nabc%def\n\n-----END KEY-----\n")
	wf.Annotate(github.Annotation{Level: "warning", File: "a,b.toml", Line: 3, Title: "pinbot: x", Text: "line1\nline2 100%"})
	want := "::add-mask::abc%25def\n::warning file=a%2Cb.toml,line=3,title=pinbot%3A x::line1%0Aline2 100%25\n"
	if b.String() != want {
		t.Errorf("got %q\nwant %q", b.String(), want)
	}
	// Text from outside is escaped as on a terminal: no ESC, BEL or CR
	// reaches the log, in the file, the title or the text.
	b.Reset()
	wf.Annotate(github.Annotation{Level: "error", File: "r\x1b[2J.txt", Line: 1, Title: "t\x07", Text: "a\x1b]0;x\x07\r\nb\u202e"})
	want = `::error file=r\x1b[2J.txt,line=1,title=t\x07::a\x1b]0;x\x07\r%0Ab\u202e` + "\n"
	if b.String() != want {
		t.Errorf("got %q\nwant %q", b.String(), want)
	}
	// A nil Workflow (outside Actions) writes nothing.
	var none *github.Workflow
	none.Mask("x")
	none.Annotate(github.Annotation{Level: "warning", Text: "x"})
	// No mask is written to a regular file (2> log.txt): the runner would
	// not see it, and the secret would be on disk.
	f, err := os.Create(filepath.Join(t.TempDir(), "log.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	onDisk := github.NewWorkflow(f)
	onDisk.Mask("s3cret")
	onDisk.Annotate(github.Annotation{Level: "warning", Text: "kept"})
	if data, _ := os.ReadFile(f.Name()); string(data) != "::warning::kept\n" {
		t.Errorf("log file %q", data)
	}
	dir := t.TempDir()
	summary := filepath.Join(dir, "summary")
	if err := github.AppendSummary(summary, strings.Repeat("x", 2<<20)); err != nil {
		t.Fatal(err)
	}
	if s, _ := os.ReadFile(summary); len(s) > github.MaxSummary || !strings.Contains(string(s), "1 MiB limit") {
		t.Errorf("summary of %d bytes", len(s))
	}
	out := filepath.Join(dir, "out")
	if err := github.SetOutputs(out, [][2]string{{"a", "1"}, {"b", "[]"}}); err != nil {
		t.Fatal(err)
	}
	if s, _ := os.ReadFile(out); string(s) != "a=1\nb=[]\n" {
		t.Errorf("outputs %q", s)
	}
	if err := github.SetOutputs(out, [][2]string{{"a", "x\ny"}}); err == nil {
		t.Error("a newline in an output was accepted")
	}
}

// TestDescribeMajor: a cap that crosses a major version is said in the
// title, which still names the target, and at the top of the body, with the
// comment beside the pin kept inert; a pull request whose caps stay inside a
// major version says nothing of it.
func TestDescribeMajor(t *testing.T) {
	d := github.Describe{Base: "main", Package: report.Package{
		Name: "protobuf", Newest: "7.34.0", Status: "bump", Sources: map[string]string{"pypi": "7.34.0"}, Reason: "pypi has 7.34.0",
		Pins: []report.Pin{
			{File: "requirements.txt", Line: 2, Before: "protobuf>=5.29.3,<7", After: "protobuf>=5.29.3,<8",
				Major: &report.Major{From: "<7", To: "<8", Comment: "7 breaks `_pb2` <b>modules</b> @team"}},
			{File: "pyproject.toml", Line: 9, Before: "protobuf>=5", After: "protobuf>=5,<=7.34.0"},
		},
	}}
	if got, want := d.Title(), "Bump protobuf cap to 7.34.0 across a major version (<7 → <8)"; got != want {
		t.Errorf("title %q, want %q", got, want)
	}
	body := d.Body()
	if !strings.HasPrefix(body, "> [!IMPORTANT]\n> This pull request moves a cap across a major version.") {
		t.Errorf("the body does not start with the major-version note:\n%s", body)
	}
	if want := "> - `requirements.txt:2`: the cap on protobuf goes from `<7` to `<8`; the file says beside it: ``7 breaks `_pb2` <b>modules</b> @team``\n"; !strings.Contains(body, want) {
		t.Errorf("body lacks %q:\n%s", want, body)
	}
	if strings.Contains(body, "pyproject.toml:9`: the cap") {
		t.Errorf("a cap added inside a major version is listed as crossing one:\n%s", body)
	}
	if m := d.Message(); !strings.HasPrefix(m, "Bump protobuf cap to 7.34.0 across a major version (<7 → <8)\n") {
		t.Errorf("message %q", m)
	}
	// Blocked: the hidden marker stays first, the note follows.
	d.Blocked = true
	if body := d.Body(); !strings.HasPrefix(body, "<!-- pinbot:check-failed -->\n> [!IMPORTANT]\n") || !strings.Contains(body, "> [!WARNING]") {
		t.Errorf("blocked body:\n%s", body)
	}
	// A group says which member crosses.
	g := github.Describe{Base: "main", Group: &report.Group{Name: "proto", Packages: []string{"grpcio", "protobuf"}},
		Members: []report.Package{{Name: "grpcio", Newest: "1.70.0", Pins: []report.Pin{{File: "r.txt", Line: 1, Before: "grpcio<=1.69.0", After: "grpcio<=1.70.0"}}}, d.Package}}
	if got, want := g.Title(), "Bump proto caps: grpcio 1.70.0, protobuf 7.34.0, across a major version (protobuf <7 → <8)"; got != want {
		t.Errorf("group title %q, want %q", got, want)
	}
	// Inside a major version: nothing said.
	d = github.Describe{Base: "main", Package: report.Package{Name: "numba", Newest: "0.67.0",
		Pins: []report.Pin{{File: "pyproject.toml", Line: 53, Before: "numba<=0.66.0", After: "numba<=0.67.0"}}}}
	if d.Title() != "Bump numba cap to 0.67.0" || strings.Contains(d.Body(), "major") {
		t.Errorf("title %q, body:\n%s", d.Title(), d.Body())
	}
}

// TestSyncRefusesLinks: a change never writes into a base-tree entry that is
// a symbolic link, even when the planned base text happens to equal the
// link's target path (the stale-checkout comparison alone would pass): the
// new text would become where the link points.
func TestSyncRefusesLinks(t *testing.T) {
	fake, c, _, _ := setup(t, web.DefaultPolicy)
	fake.AddLink(repo, "main", "requirements.txt", "a/b/pyproject.toml")
	ch := change("new\n")
	ch.Files = []github.File{{Path: "requirements.txt", Content: []byte("numba<=0.67.0\n"), Base: []byte("a/b/pyproject.toml")}}
	_, err := c.Sync(context.Background(), ch)
	if err == nil || !strings.Contains(err.Error(), "requirements.txt is a symbolic link on main") {
		t.Fatalf("error %v", err)
	}
	if mode, _ := fake.Entry(repo, "main", "requirements.txt"); mode != "120000" {
		t.Errorf("the link's mode is %q", mode)
	}
	if len(fake.Pulls(repo)) != 0 {
		t.Errorf("a pull request was opened: %+v", fake.Pulls(repo))
	}
}
