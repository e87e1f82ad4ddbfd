package pep503_test

import (
	"testing"

	"github.com/pinbot-dev/pinbot/internal/pep503"
)

func TestNormalize(t *testing.T) {
	for in, want := range map[string]string{
		"Ruamel.YAML": "ruamel-yaml", "numba": "numba", "numba_cuda": "numba-cuda", "A__b.-c": "a-b-c", "": "",
	} {
		if got := pep503.Normalize(in); got != want {
			t.Errorf("Normalize(%q) = %q, want %q", in, got, want)
		}
	}
}
