// Package pep503 normalises Python project names as PEP 503 does
// (https://peps.python.org/pep-0503/#normalized-names). It is a leaf that
// pins, sources and config all use, so that none of them imports another.
package pep503

import (
	"regexp"
	"strings"
)

var runs = regexp.MustCompile(`[-_.]+`)

// Normalize returns the normalised form of a project name: lower case, with
// each run of "-", "_" and "." replaced by "-" ("Ruamel.YAML" → "ruamel-yaml").
func Normalize(name string) string {
	return runs.ReplaceAllString(strings.ToLower(name), "-")
}
