package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/oauth2"

	gh "github.com/pinbot-dev/pinbot/bot/publishing/github"
)

// pinbot fleet: guard every repository of an organisation from one
// workflow (docs/fleet.md). fleet plan lists and
// batches the repositories (fleet_plan.go); each batch's jobs run pinbot
// check and pinbot run; fleet report aggregates their reports
// (fleet_report.go). The logic lives in package fleet.

func newFleetCmd(f *Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "fleet",
		Short: "Guard every repository of an organisation: plan the matrix, then report on it",
		Long: `fleet plan lists an owner's repositories and prints a GitHub Actions matrix of
batches; each batch's jobs run pinbot check and pinbot run --repository; fleet
report reads their JSON reports and writes the fleet's dashboard.`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newFleetPlanCmd(f, nil), newFleetReportCmd(f, nil))
	return cmd
}

// validRepository refuses a --repository that is not owner/name.
func validRepository(repo string) error {
	if repo == "" {
		return nil
	}
	if _, _, err := gh.SplitRepo(repo); err != nil {
		return &usageError{fmt.Errorf("--repository: %w", err)}
	}
	return nil
}

// ghAuth are the flags that say how the fleet's commands authenticate to
// GitHub: a token from a variable, or a GitHub App, as for pinbot run.
type ghAuth struct {
	TokenEnv       string
	AppID          int64
	InstallationID int64
	AppKeyEnv      string
}

func (a *ghAuth) register(fl *pflag.FlagSet, app bool) {
	fl.StringVar(&a.TokenEnv, "token-env", "GITHUB_TOKEN", "the environment variable holding the token")
	if app {
		fl.Int64Var(&a.AppID, "app-id", 0, "authenticate as this GitHub App, listing its installation's repositories")
		fl.Int64Var(&a.InstallationID, "app-installation-id", 0, "the App's installation (default: the owner's)")
		fl.StringVar(&a.AppKeyEnv, "app-key-env", "PINBOT_APP_PRIVATE_KEY", "the environment variable holding the App's PEM key")
	}
}

// tokens returns the credentials for the owner's installation or the
// token; see githubLogin.
func (a *ghAuth) tokens(ctx context.Context, f *Factory, owner string, counter *gh.Counter) (oauth2.TokenSource, error) {
	return githubLogin{Token: f.Getenv(a.TokenEnv), TokenEnv: a.TokenEnv, AppID: a.AppID, InstallationID: a.InstallationID,
		AppKey: f.Getenv(a.AppKeyEnv), AppKeyEnv: a.AppKeyEnv, APIURL: f.Getenv("GITHUB_API_URL"), Owner: owner,
		Counter: counter}.tokens(ctx, f)
}
