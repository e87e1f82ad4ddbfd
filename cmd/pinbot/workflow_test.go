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
)

// The shipped Action (action.yml), this repository's workflow and the
// README's quick start: their layout keeps the secrets away from the job
// that runs release code, and the Action's scripts do what they say.

type ghStep struct {
	Name  string            `yaml:"name"`
	ID    string            `yaml:"id"`
	If    string            `yaml:"if"`
	Shell string            `yaml:"shell"`
	Run   string            `yaml:"run"`
	Uses  string            `yaml:"uses"`
	Env   map[string]string `yaml:"env"`
	With  map[string]string `yaml:"with"`
}

type ghJob struct {
	Needs       any            `yaml:"needs"`
	Permissions map[string]any `yaml:"permissions"`
	Steps       []ghStep       `yaml:"steps"`
	node        yaml.Node
}

type ghWorkflow struct {
	Permissions *map[string]any `yaml:"permissions"`
	Jobs        map[string]yaml.Node
}

type ghAction struct {
	Inputs map[string]struct {
		Default string `yaml:"default"`
	} `yaml:"inputs"`
	Runs struct {
		Using string   `yaml:"using"`
		Steps []ghStep `yaml:"steps"`
	} `yaml:"runs"`
}

func readAction(t *testing.T) ghAction {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var a ghAction
	if err := yaml.Unmarshal(data, &a); err != nil {
		t.Fatal(err)
	}
	return a
}

func (a ghAction) step(t *testing.T, id string) ghStep {
	t.Helper()
	for _, s := range a.Runs.Steps {
		if s.ID == id {
			return s
		}
	}
	t.Fatalf("action.yml has no step %q", id)
	return ghStep{}
}

// pinbotStep returns the step of job that uses the pinbot Action, if any.
func pinbotStep(job ghJob) (ghStep, bool) {
	for _, s := range job.Steps {
		if s.Uses == "./" || strings.HasPrefix(s.Uses, "pinbot-dev/pinbot@") {
			return s, true
		}
	}
	return ghStep{}, false
}

// checkTwoJobs asserts the two-job layout of a workflow: a check job with no
// secret, a token that can only read and no persisted credentials; a publish
// job that needs it and may write.
func checkTwoJobs(t *testing.T, name string, data []byte) {
	t.Helper()
	var wf ghWorkflow
	if err := yaml.Unmarshal(data, &wf); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if wf.Permissions == nil || len(*wf.Permissions) != 0 {
		t.Errorf("%s: top-level permissions should be {} so that each job asks for its own", name)
	}
	jobs := map[string]ghJob{}
	for n, node := range wf.Jobs {
		var j ghJob
		if err := node.Decode(&j); err != nil {
			t.Fatalf("%s: jobs.%s: %v", name, n, err)
		}
		j.node = node
		jobs[n] = j
	}
	var check, publish string
	for n, j := range jobs {
		if s, ok := pinbotStep(j); ok {
			switch s.With["mode"] {
			case "check":
				check = n
			case "publish":
				publish = n
			default:
				t.Errorf("%s: jobs.%s runs pinbot with mode %q, not check or publish", name, n, s.With["mode"])
			}
		}
	}
	if check == "" || publish == "" {
		t.Fatalf("%s: want a job with mode: check and one with mode: publish, found %v", name, jobs)
	}
	cj := jobs[check]
	if len(cj.Permissions) != 1 || cj.Permissions["contents"] != "read" {
		t.Errorf("%s: jobs.%s permissions %v, want {contents: read}", name, check, cj.Permissions)
	}
	raw, _ := yaml.Marshal(&cj.node)
	if bytes.Contains(raw, []byte("secrets.")) || bytes.Contains(raw, []byte("token:")) || bytes.Contains(raw, []byte("slack-webhook-url")) {
		t.Errorf("%s: jobs.%s holds a secret or a token:\n%s", name, check, raw)
	}
	for _, s := range cj.Steps {
		if strings.HasPrefix(s.Uses, "actions/checkout@") && s.With["persist-credentials"] != "false" {
			t.Errorf("%s: jobs.%s checks out with persisted credentials", name, check)
		}
	}
	pj := jobs[publish]
	needs := []string{}
	switch n := pj.Needs.(type) {
	case string:
		needs = append(needs, n)
	case []any:
		for _, x := range n {
			needs = append(needs, x.(string))
		}
	}
	if !slices.Contains(needs, check) {
		t.Errorf("%s: jobs.%s does not need %s", name, publish, check)
	}
	if pj.Permissions["contents"] != "write" || pj.Permissions["pull-requests"] != "write" || pj.Permissions["issues"] != "write" {
		t.Errorf("%s: jobs.%s permissions %v", name, publish, pj.Permissions)
	}
}

// TestWorkflowLayout: this repository's workflow and the README's quick start
// both use the two-job layout.
func TestWorkflowLayout(t *testing.T) {
	root := filepath.Join("..", "..")
	wf, err := os.ReadFile(filepath.Join(root, ".github", "workflows", "pinbot.yml"))
	if err != nil {
		t.Fatal(err)
	}
	checkTwoJobs(t, ".github/workflows/pinbot.yml", wf)
	if !bytes.Contains(wf, []byte("config: .github/pinbot-self.yml")) {
		t.Error("the workflow does not use .github/pinbot-self.yml")
	}
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "\n## Quick start\n")
	if !ok {
		t.Fatal("README: no Quick start section")
	}
	m := regexp.MustCompile("(?s)```yaml\n(.*?)```").FindStringSubmatch(section)
	if m == nil {
		t.Fatal("README: no yaml block in the Quick start section")
	}
	// The Quick start is the README's first section, its workflow one to copy.
	if line := strings.Count(string(readme)[:strings.Index(string(readme), "\n## Quick start\n")], "\n") + 2; line > 40 {
		t.Errorf("README: Quick start begins on line %d, past the first 40", line)
	}
	checkTwoJobs(t, "README quick start", []byte(m[1]))
}

// TestActionScripts: the Action's scripts take inputs through env: only
// (never ${{ }} in the script text), parse, and pass shellcheck; the steps of
// mode check get no token and no webhook.
func TestActionScripts(t *testing.T) {
	a := readAction(t)
	if a.Runs.Using != "composite" {
		t.Fatalf("runs.using %q", a.Runs.Using)
	}
	shellcheck, err := exec.LookPath("shellcheck")
	if err != nil && os.Getenv("PINBOT_INTEGRATION") != "" {
		t.Fatal("shellcheck is not installed")
	}
	for _, s := range a.Runs.Steps {
		if s.Run == "" {
			continue
		}
		if strings.Contains(s.Run, "${{") {
			t.Errorf("step %q splices an expression into its script", s.Name)
		}
		if out, err := exec.Command("bash", "-n", "-c", s.Run).CombinedOutput(); err != nil {
			t.Errorf("step %q: bash -n: %v\n%s", s.Name, err, out)
		}
		if shellcheck != "" {
			cmd := exec.Command(shellcheck, "-s", "bash", "-")
			cmd.Stdin = strings.NewReader(s.Run)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("step %q: shellcheck: %v\n%s", s.Name, err, out)
			}
		}
	}
	for _, s := range a.Runs.Steps {
		if !strings.Contains(s.If, "mode == 'check'") && !strings.Contains(s.If, "mode != 'publish'") && s.If != "" {
			continue
		}
		for k, v := range s.Env {
			if k == "GITHUB_TOKEN" || k == "SLACK_WEBHOOK_URL" || strings.Contains(v, "inputs.token") || strings.Contains(v, "slack-webhook-url") {
				t.Errorf("step %q, which runs in mode check, gets %s", s.Name, k)
			}
		}
	}
}

// actionStep runs one of the Action's scripts with bash as the runner would:
// its env: with ${{ inputs.NAME }} resolved from inputs (over the action's
// defaults), plus the runner's variables in base.
func actionStep(t *testing.T, a ghAction, s ghStep, inputs, base map[string]string) (int, string, string) {
	t.Helper()
	in := map[string]string{}
	for k, v := range a.Inputs {
		in[k] = v.Default
	}
	for k, v := range inputs {
		in[k] = v
	}
	env := []string{}
	for k, v := range base {
		env = append(env, k+"="+v)
	}
	exprRE := regexp.MustCompile(`^\$\{\{ inputs\.([a-z-]+) \}\}$`)
	for k, v := range s.Env {
		switch m := exprRE.FindStringSubmatch(v); {
		case m != nil:
			v = in[m[1]]
		case v == "${{ inputs.token == github.token }}":
			v = "false"
		case strings.Contains(v, "${{"):
			t.Fatalf("step %q: env %s=%s: the test cannot evaluate it", s.Name, k, v)
		}
		env = append(env, k+"="+v)
	}
	// What the runner runs for shell: bash.
	cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", s.Run)
	cmd.Env = env
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

// TestActionCheckThenPublish runs the Action's own scripts, mode check then
// mode publish, with the real binary against the fakes: check writes the
// report and its output even though a check blocked a bump (exit 3); the
// publish step, given the report where download-artifact puts it, makes the
// draft pull request capped at the release that passed, and stays green
// (fail-on: error, the default) unless fail-on: blocked asks otherwise.
func TestActionCheckThenPublish(t *testing.T) {
	t.Parallel() // slow (environments, subprocesses): overlaps the other tests
	a := readAction(t)
	e := newPublishEnv(t)
	runner := t.TempDir()
	bin, err := os.ReadFile(pinbotBinary(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(runner, "pinbot"), bin, 0o755); err != nil {
		t.Fatal(err)
	}
	output := filepath.Join(runner, "output.txt")
	base := map[string]string{
		"PATH": os.Getenv("PATH"), "HOME": t.TempDir(), "RUNNER_TEMP": runner, "GITHUB_OUTPUT": output,
		"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": filepath.Join(runner, "summary.md"),
		"PINBOT_PYPI_URL": e.pypi.URL, "PINBOT_CACHE_DIR": t.TempDir(),
	}

	code, stdout, _ := actionStep(t, a, a.Runs.Steps[0], map[string]string{"mode": "bogus"}, base)
	if code != 2 || !strings.Contains(stdout, "::error title=pinbot::mode: expected check, publish or all, found 'bogus'") {
		t.Errorf("mode bogus: exit %d\n%s", code, stdout)
	}

	code, stdout, stderr := actionStep(t, a, a.step(t, "check"), map[string]string{"mode": "check", "directory": e.dir, "args": "--static"}, base)
	if code != 0 {
		t.Fatalf("check step: exit %d\n%s\n%s", code, stdout, stderr)
	}
	out, _ := os.ReadFile(output)
	report := filepath.Join(runner, "pinbot-report", "report.json")
	if !strings.Contains(string(out), "report="+report+"\n") {
		t.Errorf("outputs %q", out)
	}
	data, err := os.ReadFile(report)
	if err != nil || !strings.Contains(string(data), `"verdicts"`) {
		t.Fatalf("report: %v\n%s", err, data)
	}
	if e.gh.Calls() != 0 || len(e.gh.Requests()) != 0 {
		t.Errorf("the check step called GitHub")
	}

	// What download-artifact does.
	os.MkdirAll(filepath.Join(runner, "pinbot-verdicts"), 0o755)
	os.WriteFile(filepath.Join(runner, "pinbot-verdicts", "report.json"), data, 0o644)
	os.Remove(output)
	base["GITHUB_API_URL"], base["GITHUB_REPOSITORY"] = e.gh.URL, testRepo
	inputs := map[string]string{"mode": "publish", "directory": e.dir, "token": testToken, "slack-webhook-url": e.slack.URL}
	code, stdout, stderr = actionStep(t, a, a.step(t, "run"), inputs, base)
	if code != exitOK || !strings.Contains(stderr, "1 bump(s) blocked by a failed check (exit 0: --fail-on error)") {
		t.Fatalf("publish step: exit %d, want 0: a blocked bump is an alert and a draft\n%s\n%s", code, stdout, stderr)
	}
	pulls := e.gh.Pulls(testRepo)
	if len(pulls) != 1 || !pulls[0].Draft || pulls[0].Title != "Bump numba cap to 0.67.0 (a check failed)" {
		t.Fatalf("pull requests %+v", pulls)
	}
	out, _ = os.ReadFile(output)
	if !strings.Contains(string(out), "blocked=1") || !strings.Contains(string(out), `"number":1`) {
		t.Errorf("outputs %q", out)
	}
	if strings.Contains(stderr, "release code runs beside secrets") {
		t.Errorf("the publisher warned about release code:\n%s", stderr)
	}
	for _, line := range strings.Split(stdout+stderr, "\n") {
		if strings.Contains(line, testToken) {
			t.Errorf("the token leaked: %s", line)
		}
	}
	var rep struct{ Packages []struct{ Name string } }
	if json.Unmarshal(data, &rep) != nil || len(rep.Packages) != 1 {
		t.Errorf("report packages %+v", rep)
	}

	inputs["fail-on"] = "blocked"
	if code, stdout, stderr = actionStep(t, a, a.step(t, "run"), inputs, base); code != exitCheck {
		t.Errorf("publish step with fail-on: blocked: exit %d, want 3\n%s\n%s", code, stdout, stderr)
	}
	if pulls := e.gh.Pulls(testRepo); len(pulls) != 1 || !pulls[0].Draft {
		t.Errorf("pull requests %+v", pulls)
	}
}

// TestActionSetsUpPython (#11 point 10): modes check and all set up the
// Python of input python-version (a current CPython by default) before
// pinbot check runs, so that a fresh workflow probes dynamically; the check
// itself asks for no static fallback.
func TestActionSetsUpPython(t *testing.T) {
	a := readAction(t)
	def := a.Inputs["python-version"].Default
	if m := regexp.MustCompile(`^3\.(\d+)$`).FindStringSubmatch(def); m == nil || len(m[1]) < 2 || m[1] < "12" {
		t.Errorf("input python-version defaults to %q, want a current CPython (3.12 or newer)", def)
	}
	setup, check := -1, -1
	for i, s := range a.Runs.Steps {
		switch {
		case strings.HasPrefix(s.Uses, "actions/setup-python@"):
			setup = i
			if s.With["python-version"] != "${{ inputs.python-version }}" {
				t.Errorf("setup-python is given %q, not the input", s.With["python-version"])
			}
			if !strings.Contains(s.If, "inputs.mode != 'publish'") {
				t.Errorf("setup-python runs if %q: want every mode that checks (check, all)", s.If)
			}
		case s.ID == "check":
			check = i
			if strings.Contains(s.Run, "--static") {
				t.Error("the check step asks for static probes")
			}
		}
	}
	if setup < 0 || check < 0 || setup > check {
		t.Errorf("setup-python at step %d, the check at %d: want Python set up first", setup, check)
	}
}
