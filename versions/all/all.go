// Package all lists every version scheme pinbot knows, keyed by name.
package all

import (
	"github.com/pinbot-dev/pinbot/versions"
	"github.com/pinbot-dev/pinbot/versions/conda"
	"github.com/pinbot-dev/pinbot/versions/pep440"
	"github.com/pinbot-dev/pinbot/versions/poetry"
	"github.com/pinbot-dev/pinbot/versions/semver"
)

// Schemes returns every scheme keyed by its name.
func Schemes() map[string]versions.Scheme {
	return map[string]versions.Scheme{
		pep440.Name: pep440.Scheme{},
		conda.Name:  conda.Scheme{},
		semver.Name: semver.Scheme{},
		poetry.Name: poetry.Scheme{},
	}
}
