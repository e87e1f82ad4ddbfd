package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/pinbot-dev/pinbot/fleet"
	"github.com/pinbot-dev/pinbot/internal/fakes"
)

// The reusable workflow .github/workflows/fleet.yml and the manual's caller
// of it (docs/fleet.md): the layout keeps the secrets away from the jobs that run release
// code, the caller passes only what the workflow takes, and the workflow's
// scripts do what they say, run with the real binary against the fakes.

type fleetWorkflow struct {
	On struct {
		WorkflowCall struct {
			Inputs  map[string]any `yaml:"inputs"`
			Secrets map[string]any `yaml:"secrets"`
		} `yaml:"workflow_call"`
	} `yaml:"on"`
	Permissions *map[string]any      `yaml:"permissions"`
	Jobs        map[string]yaml.Node `yaml:"jobs"`
}

type fleetJob struct {
	Needs       any            `yaml:"needs"`
	If          string         `yaml:"if"`
	Permissions map[string]any `yaml:"permissions"`
	Strategy    struct {
		Matrix      string `yaml:"matrix"`
		MaxParallel string `yaml:"max-parallel"`
		FailFast    *bool  `yaml:"fail-fast"`
	} `yaml:"strategy"`
	Steps []ghStep `yaml:"steps"`
	raw   string
}

func readFleetWorkflow(t *testing.T) (fleetWorkflow, map[string]fleetJob) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", ".github", "workflows", "fleet.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var wf fleetWorkflow
	if err := yaml.Unmarshal(data, &wf); err != nil {
		t.Fatal(err)
	}
	jobs := map[string]fleetJob{}
	for name, node := range wf.Jobs {
		var j fleetJob
		if err := node.Decode(&j); err != nil {
			t.Fatalf("jobs.%s: %v", name, err)
		}
		raw, _ := yaml.Marshal(&node)
		j.raw = string(raw)
		jobs[name] = j
	}
	return wf, jobs
}

func (j fleetJob) step(t *testing.T, name string) ghStep {
	t.Helper()
	for _, s := range j.Steps {
		if s.Name == name || s.ID == name {
			return s
		}
	}
	t.Fatalf("no step %q", name)
	return ghStep{}
}

// TestFleetWorkflowLayout: plan, then per batch fetch, check (no secret),
// publish (an App token scoped to the batch, max-parallel), then one report.
func TestFleetWorkflowLayout(t *testing.T) {
	wf, jobs := readFleetWorkflow(t)
	for _, in := range []string{"owner", "topic", "defaults", "max-parallel"} {
		if _, ok := wf.On.WorkflowCall.Inputs[in]; !ok {
			t.Errorf("no input %s", in)
		}
	}
	for _, s := range []string{"app-id", "app-private-key", "token", "slack-webhook-url"} {
		if _, ok := wf.On.WorkflowCall.Secrets[s]; !ok {
			t.Errorf("no secret %s", s)
		}
	}
	if wf.Permissions == nil || len(*wf.Permissions) != 0 {
		t.Error("top-level permissions should be {}")
	}
	if got := sortedKeys(jobs); !slices.Equal(got, []string{"check", "fetch", "plan", "publish", "report"}) {
		t.Fatalf("jobs %v", got)
	}
	for _, name := range []string{"fetch", "check", "publish"} {
		j := jobs[name]
		if j.Strategy.Matrix != "${{ fromJSON(needs.plan.outputs.matrix) }}" || j.If != "needs.plan.outputs.count != '0'" ||
			j.Strategy.FailFast == nil || *j.Strategy.FailFast {
			t.Errorf("%s: matrix %q, if %q, fail-fast %v", name, j.Strategy.Matrix, j.If, j.Strategy.FailFast)
		}
	}
	check := jobs["check"]
	if len(check.Permissions) != 1 || check.Permissions["contents"] != "read" {
		t.Errorf("check permissions %v", check.Permissions)
	}
	for _, bad := range []string{"secrets.", "token", "slack"} {
		if strings.Contains(strings.ToLower(check.raw), bad) {
			t.Errorf("the check job mentions %q:\n%s", bad, check.raw)
		}
	}
	for name, j := range jobs {
		for _, s := range j.Steps {
			if strings.HasPrefix(s.Uses, "actions/checkout@") && s.With["persist-credentials"] != "false" {
				t.Errorf("%s: a checkout persists credentials", name)
			}
		}
		if name != "report" && strings.Contains(j.raw, "slack-webhook-url") {
			t.Errorf("%s holds the Slack webhook: the fleet's message is the report job's", name)
		}
	}
	pub := jobs["publish"]
	if pub.Strategy.MaxParallel != "${{ inputs.max-parallel }}" {
		t.Errorf("publish max-parallel %q", pub.Strategy.MaxParallel)
	}
	app := pub.step(t, "app")
	if !strings.HasPrefix(app.Uses, "actions/create-github-app-token@") || app.With["repositories"] != "${{ matrix.names }}" {
		t.Errorf("publish token step %+v", app)
	}
	if !strings.Contains(pub.step(t, "Publish the batch").Run, "--verdicts") {
		t.Error("publish does not use --verdicts")
	}
	if needs, _ := jobs["report"].Needs.([]any); !slices.Contains(needs, any("publish")) {
		t.Errorf("report needs %v", jobs["report"].Needs)
	}
}

// TestFleetWorkflowCaller: the manual's caller (docs/fleet.md) uses the
// reusable workflow with inputs and secrets it declares, and grants what its
// jobs ask for.
func TestFleetWorkflowCaller(t *testing.T) {
	wf, jobs := readFleetWorkflow(t)
	page, err := os.ReadFile(filepath.Join("..", "..", "docs", "fleet.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(page), "# Guarding an organisation\n") {
		t.Fatal("docs/fleet.md does not begin with Guarding an organisation")
	}
	m := regexp.MustCompile("(?s)```yaml\n(.*?)```").FindStringSubmatch(string(page))
	if m == nil {
		t.Fatal("docs/fleet.md: no yaml block")
	}
	var caller struct {
		Permissions *map[string]any `yaml:"permissions"`
		Jobs        map[string]struct {
			Uses        string            `yaml:"uses"`
			Permissions map[string]string `yaml:"permissions"`
			With        map[string]any    `yaml:"with"`
			Secrets     map[string]string `yaml:"secrets"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal([]byte(m[1]), &caller); err != nil {
		t.Fatal(err)
	}
	if caller.Permissions == nil || len(*caller.Permissions) != 0 {
		t.Error("the caller's top-level permissions should be {}")
	}
	j, ok := caller.Jobs["fleet"]
	if !ok || j.Uses != "pinbot-dev/pinbot/.github/workflows/fleet.yml@v1" {
		t.Fatalf("caller jobs %+v", caller.Jobs)
	}
	for k := range j.With {
		if _, ok := wf.On.WorkflowCall.Inputs[k]; !ok {
			t.Errorf("the caller passes input %s, which fleet.yml does not take", k)
		}
	}
	for k := range j.Secrets {
		if _, ok := wf.On.WorkflowCall.Secrets[k]; !ok {
			t.Errorf("the caller passes secret %s, which fleet.yml does not take", k)
		}
	}
	// A called workflow's jobs get at most what the caller grants.
	rank := map[string]int{"none": 0, "read": 1, "write": 2}
	for name, job := range jobs {
		for scope, level := range job.Permissions {
			if rank[j.Permissions[scope]] < rank[level.(string)] {
				t.Errorf("jobs.%s asks for %s: %s; the caller grants %q", name, scope, level, j.Permissions[scope])
			}
		}
	}
}

// TestFleetWorkflowScripts: the scripts take inputs through env: only,
// parse, and pass shellcheck.
func TestFleetWorkflowScripts(t *testing.T) {
	_, jobs := readFleetWorkflow(t)
	shellcheck, err := exec.LookPath("shellcheck")
	if err != nil && os.Getenv("PINBOT_INTEGRATION") != "" {
		t.Fatal("shellcheck is not installed")
	}
	for name, j := range jobs {
		for _, s := range j.Steps {
			if s.Run == "" {
				continue
			}
			if strings.Contains(s.Run, "${{") {
				t.Errorf("%s: step %q splices an expression into its script", name, s.Name)
			}
			if out, err := exec.Command("bash", "-n", "-c", s.Run).CombinedOutput(); err != nil {
				t.Errorf("%s: step %q: bash -n: %v\n%s", name, s.Name, err, out)
			}
			if shellcheck != "" {
				cmd := exec.Command(shellcheck, "-s", "bash", "-")
				cmd.Stdin = strings.NewReader(s.Run)
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Errorf("%s: step %q: shellcheck: %v\n%s", name, s.Name, err, out)
				}
			}
		}
	}
}

// workflowStep runs a step's script as the runner would, in dir, with its
// env: resolved by exprs (every ${{ }} it holds must be there) over base.
func workflowStep(t *testing.T, s ghStep, dir string, exprs, base map[string]string) (int, string, string) {
	t.Helper()
	env := []string{}
	for k, v := range base {
		env = append(env, k+"="+v)
	}
	for k, v := range s.Env {
		if strings.Contains(v, "${{") {
			r, ok := exprs[v]
			if !ok {
				t.Fatalf("step %q: env %s=%s: the test cannot evaluate it", s.Name, k, v)
			}
			v = r
		}
		env = append(env, k+"="+v)
	}
	cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", s.Run)
	cmd.Env, cmd.Dir = env, dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, stdout.String(), stderr.String()
}

// gitServer makes a repository for each of repos (owner/name -> files) under
// a directory that serves as GITHUB_SERVER_URL (file://), as git clone
// reads https://github.com/owner/name.git.
func gitServer(t *testing.T, repos map[string]map[string]string) string {
	t.Helper()
	root := t.TempDir()
	git := func(dir string, args ...string) {
		cmd := exec.Command("git", append([]string{"-c", "user.name=Maintainer", "-c", "user.email=m@example.com", "-c", "init.defaultBranch=main"}, args...)...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+root)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	for full, files := range repos {
		dir := filepath.Join(root, full+".git")
		os.MkdirAll(dir, 0o755)
		git(dir, "init", "-q")
		for name, content := range files {
			p := filepath.Join(dir, filepath.FromSlash(name))
			os.MkdirAll(filepath.Dir(p), 0o755)
			os.WriteFile(p, []byte(content), 0o644)
		}
		git(dir, "add", "-A")
		git(dir, "commit", "-q", "-m", "initial")
	}
	return "file://" + root
}

// copyDir copies what an artifact carries from one job to another.
func copyDir(t *testing.T, from, to string) {
	t.Helper()
	os.MkdirAll(to, 0o755)
	if out, err := exec.Command("cp", "-a", from+"/.", to).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v\n%s", err, out)
	}
}

// TestFleetWorkflowEndToEnd runs the workflow's scripts, job after job, with
// the real binary against the fakes and a git server: the plan lists the
// organisation, fetch clones each batch, check runs with no token, publish
// opens the pull request with the batch's token, and report keeps the
// dashboard issue and tells Slack once.
func TestFleetWorkflowEndToEnd(t *testing.T) {
	t.Parallel() // slow (environments, subprocesses): overlaps the other tests
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	_, jobs := readFleetWorkflow(t)
	e := newRunEnv(t, testConfig)
	repos := map[string]map[string]string{
		"lab/svc-a": {"pyproject.toml": "[project]\nname = \"a\"\ndependencies = [\"numba>=0.58,<=0.66.0\"]\n", ".pinbot.yml": "packages:\n  numba: {cap: inclusive}\n"},
		"lab/svc-b": {"requirements.txt": "numba<=0.67.0\nllvmlite<=0.48.0\n"},
		"lab/svc-c": {"requirements.txt": "numba<=0.60.0\n"},
	}
	for full, files := range repos {
		e.gh.AddRepo(full, "main", files)
		e.gh.SetRepoMeta(full, fakes.RepoMeta{Topics: []string{"ml"}})
	}
	e.gh.SetRepoMeta("lab/svc-c", fakes.RepoMeta{Topics: []string{"ml"}, Archived: true})
	e.gh.AddRepo("lab/.github", "main", nil)
	server := gitServer(t, repos)
	bin, err := os.ReadFile(pinbotBinary(t))
	if err != nil {
		t.Fatal(err)
	}
	// The calling repository's checkout, with the fleet's defaults.
	workspace := t.TempDir()
	os.MkdirAll(filepath.Join(workspace, ".github"), 0o755)
	os.WriteFile(filepath.Join(workspace, ".github", "pinbot-fleet.yml"), []byte("packages:\n  numba: {}\n  llvmlite: {}\n"), 0o644)
	runner := func() string {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "pinbot"), bin, 0o755); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	base := func(temp string) map[string]string {
		return map[string]string{
			"PATH": os.Getenv("PATH"), "HOME": t.TempDir(), "RUNNER_TEMP": temp, "GITHUB_WORKSPACE": workspace,
			"GITHUB_ACTIONS": "true", "GITHUB_OUTPUT": filepath.Join(temp, "output"), "GITHUB_STEP_SUMMARY": filepath.Join(temp, "summary"),
			"GITHUB_API_URL": e.gh.URL, "GITHUB_SERVER_URL": server, "GITHUB_REPOSITORY": "lab/.github", "GITHUB_REPOSITORY_OWNER": "lab",
			"PINBOT_PYPI_URL": e.pypi.URL, "GIT_CONFIG_NOSYSTEM": "1",
		}
	}
	exprs := map[string]string{
		"${{ inputs.owner || github.repository_owner }}": "lab", "${{ inputs.topic }}": "ml", "${{ inputs.defaults }}": ".github/pinbot-fleet.yml",
		"${{ inputs.max-jobs }}": "2", "${{ inputs.max-parallel }}": "4", "${{ inputs.plan-args }}": "", "${{ inputs.pinbot-ref }}": "v1",
		"${{ secrets.app-id }}": "", "${{ secrets.app-private-key }}": "", "${{ secrets.token }}": testToken,
		"${{ steps.app.outputs.token || secrets.token }}": testToken, "${{ github.token }}": testToken,
		"${{ secrets.slack-webhook-url }}": e.slack.URL,
	}

	// plan
	planTemp := runner()
	code, out, stderr := workflowStep(t, jobs["plan"].step(t, "plan"), workspace, exprs, base(planTemp))
	if code != 0 {
		t.Fatalf("plan: exit %d\n%s\n%s", code, out, stderr)
	}
	outputs, _ := os.ReadFile(filepath.Join(planTemp, "output"))
	mm := regexp.MustCompile(`(?m)^matrix=(.*)$`).FindSubmatch(outputs)
	if mm == nil || !strings.Contains(string(outputs), "count=2\n") {
		t.Fatalf("plan outputs:\n%s", outputs)
	}
	var matrix fleet.Matrix
	if err := json.Unmarshal(mm[1], &matrix); err != nil || len(matrix.Include) != 2 {
		t.Fatalf("matrix %s: %v", mm[1], err)
	}

	reports := t.TempDir() // what the report job downloads, merged
	told := len(e.slack.Messages())
	for _, job := range matrix.Include {
		exprs["${{ matrix.repositories }}"] = job.Repositories
		// fetch
		fetchTemp := runner()
		code, out, stderr := workflowStep(t, jobs["fetch"].step(t, "Clone the batch"), workspace, exprs, base(fetchTemp))
		if code != 0 {
			t.Fatalf("fetch %d: exit %d\n%s\n%s", job.Batch, code, out, stderr)
		}
		// check: no token, no webhook in its environment
		checkTemp := runner()
		copyDir(t, filepath.Join(fetchTemp, "pinbot-src"), filepath.Join(checkTemp, "pinbot-src"))
		if _, err := os.Stat(filepath.Join(planTemp, "pinbot-fleet-cache")); err == nil {
			copyDir(t, filepath.Join(planTemp, "pinbot-fleet-cache"), filepath.Join(checkTemp, "pinbot-cache"))
		}
		before := len(e.gh.Requests())
		env := base(checkTemp)
		delete(env, "GITHUB_API_URL")
		code, out, stderr = workflowStep(t, jobs["check"].step(t, "Check the batch (no secret here)"), workspace, exprs, env)
		if code != 0 || len(e.gh.Requests()) != before {
			t.Fatalf("check %d: exit %d, %d GitHub requests\n%s\n%s", job.Batch, code, len(e.gh.Requests())-before, out, stderr)
		}
		// publish
		pubTemp := runner()
		copyDir(t, filepath.Join(checkTemp, "pinbot-check"), filepath.Join(pubTemp, "pinbot-verdicts"))
		code, out, stderr = workflowStep(t, jobs["publish"].step(t, "Publish the batch"), workspace, exprs, base(pubTemp))
		if code != 0 {
			t.Fatalf("publish %d: exit %d\n%s\n%s", job.Batch, code, out, stderr)
		}
		for _, line := range strings.Split(out+stderr, "\n") {
			if strings.Contains(line, testToken) {
				t.Errorf("the token leaked: %s", line)
			}
		}
		copyDir(t, filepath.Join(pubTemp, "pinbot-reports"), reports)
	}
	files, _ := filepath.Glob(filepath.Join(reports, "*.json"))
	if len(files) != 2 {
		t.Errorf("reports %v", files)
	}
	for _, f := range files {
		if data, _ := os.ReadFile(f); bytes.Contains(data, []byte(testToken)) {
			t.Errorf("%s holds the token", f)
		}
	}
	if n := len(e.slack.Messages()) - told; n != 0 {
		t.Errorf("the publishing jobs sent %d Slack messages; the fleet's is the report job's", n)
	}
	pulls := e.gh.Pulls("lab/svc-a")
	if len(pulls) != 1 || pulls[0].Title != "Bump numba cap to 0.67.0" {
		t.Errorf("svc-a pull requests %+v", pulls)
	}
	if pulls := e.gh.Pulls("lab/svc-b"); len(pulls) != 1 || pulls[0].Title != "Bump llvmlite cap to 0.49.0" {
		t.Errorf("svc-b pull requests %+v (llvmlite is watched by the defaults alone)", pulls)
	}
	if len(e.gh.Pulls("lab/svc-c")) != 0 {
		t.Error("the archived repository got a pull request")
	}

	// report
	reportTemp := runner()
	copyDir(t, reports, filepath.Join(reportTemp, "pinbot-reports"))
	for range 2 {
		code, out, stderr = workflowStep(t, jobs["report"].step(t, "Report"), workspace, exprs, base(reportTemp))
		if code != 0 {
			t.Fatalf("report: exit %d\n%s\n%s", code, out, stderr)
		}
	}
	issues := e.gh.Issues("lab/.github")
	if len(issues) != 1 || !strings.Contains(issues[0].Body, "| lab/svc-a | bumped |") || !strings.Contains(issues[0].Body, "## llvmlite 0.49.0") {
		t.Fatalf("issues %+v", issues)
	}
	if msgs := e.slack.Messages()[told:]; len(msgs) != 1 || !strings.Contains(string(msgs[0]), "numba 0.67.0: 1 bumped") {
		t.Errorf("slack %s", msgs)
	}
}

func sortedKeys(m map[string]fleetJob) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
