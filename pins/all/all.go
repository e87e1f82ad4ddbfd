// Package all lists every pin-file format pinbot reads, in the order discovery
// tries them.
package all

import (
	"github.com/pinbot-dev/pinbot/pins"
	"github.com/pinbot-dev/pinbot/pins/cisupport"
	"github.com/pinbot-dev/pinbot/pins/condaenv"
	"github.com/pinbot-dev/pinbot/pins/condarecipe"
	"github.com/pinbot-dev/pinbot/pins/gomod"
	"github.com/pinbot-dev/pinbot/pins/pixi"
	"github.com/pinbot-dev/pinbot/pins/pyproject"
	"github.com/pinbot-dev/pinbot/pins/rattler"
	"github.com/pinbot-dev/pinbot/pins/requirements"
	"github.com/pinbot-dev/pinbot/pins/setupcfg"
	"github.com/pinbot-dev/pinbot/pins/setuppy"
)

// Formats returns every format.
func Formats() []pins.Format {
	return []pins.Format{
		pyproject.Format{},
		setupcfg.Format{},
		setuppy.Format{},
		requirements.Format{},
		gomod.Format{},
		condarecipe.Format{},
		rattler.Format{},
		cisupport.Format{},
		pixi.Format{},
		condaenv.Format{}, // last: its conda-envs/ directory rule is the broadest
	}
}
