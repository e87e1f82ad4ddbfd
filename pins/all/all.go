// Package all lists every pin-file format pinbot reads, in the order discovery
// tries them.
package all

import (
	"github.com/pinbot-dev/pinbot/pins"
	"github.com/pinbot-dev/pinbot/pins/pyproject"
)

// Formats returns every format.
func Formats() []pins.Format {
	return []pins.Format{
		pyproject.Format{},
	}
}
