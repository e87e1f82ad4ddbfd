package config

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Network bounds what pinbot's requests may cost; an unset value keeps the
// default the manual's docs/network.md gives.
type Network struct {
	// AttemptTimeout bounds one attempt of one request, body included
	// (default 20s).
	AttemptTimeout Duration `yaml:"attempt-timeout"`
	// RequestTimeout bounds all attempts of one request and the backoffs
	// between them (default 45s).
	RequestTimeout Duration `yaml:"request-timeout"`
	// MaxArtifactSize bounds one artifact download whatever the index
	// declares (default 2GiB).
	MaxArtifactSize Size `yaml:"max-artifact-size"`
}

// Validate checks that the timeouts are consistent.
func (n *Network) Validate() error {
	if n.AttemptTimeout > 0 && n.RequestTimeout > 0 && n.RequestTimeout < n.AttemptTimeout {
		return fmt.Errorf("request-timeout (%s) is shorter than attempt-timeout (%s)", time.Duration(n.RequestTimeout), time.Duration(n.AttemptTimeout))
	}
	return nil
}

// A Size is a number of bytes, written as an integer or with a unit: 500MB,
// 2GiB, 1.5G (K, M, G and T are powers of 1000 with B, of 1024 with iB or
// alone).
type Size int64

// sizeRE is a size's shape, compiled when first used (only a config that
// sets a size needs it).
var sizeRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(\d+(?:\.\d+)?)\s*([KMGT]?)(i?B?)$`) })

// UnmarshalText parses a size.
func (s *Size) UnmarshalText(b []byte) error {
	m := sizeRE().FindStringSubmatch(strings.TrimSpace(string(b)))
	if m == nil {
		return fmt.Errorf("expected a size such as 500MB or 2GiB, found %q", b)
	}
	v, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		return fmt.Errorf("expected a size such as 500MB or 2GiB, found %q", b)
	}
	base := 1024.0
	if m[3] == "B" {
		base = 1000
	}
	for _, u := range "KMGT" {
		if m[2] == "" {
			break
		}
		v *= base
		if string(u) == m[2] {
			break
		}
	}
	if v < 1 || v > 1<<50 {
		return fmt.Errorf("size %q is out of range (1 byte to 1 PiB)", b)
	}
	*s = Size(v)
	return nil
}
