package versions_test

import (
	"testing"

	"github.com/pinbot-dev/pinbot/versions"
	"github.com/pinbot-dev/pinbot/versions/conda"
	"github.com/pinbot-dev/pinbot/versions/pep440"
	"github.com/pinbot-dev/pinbot/versions/poetry"
)

// TestCrossesMajor: a cap that lets in a major version the old one shut out
// crosses it; a cap moving inside a major version, a cap added where there
// was none and a 0.x cap do not.
func TestCrossesMajor(t *testing.T) {
	for _, tt := range []struct {
		scheme   versions.Scheme
		old, new string
		from, to string // "" when it does not cross
	}{
		{pep440.Scheme{}, "<7", "<8", "<7", "<8"},
		{pep440.Scheme{}, ">=5.29.3,<7", ">=5.29.3,<=7.0.1", "<7", "<=7.0.1"},
		{pep440.Scheme{}, "<7.0.0", "<=7.34.0", "<7.0.0", "<=7.34.0"},
		{pep440.Scheme{}, "<=6.31.1", "<=7.0.1", "<=6.31.1", "<=7.0.1"},
		{pep440.Scheme{}, "~=6.31", "~=7.34", "<7", "<8"},
		{pep440.Scheme{}, "<7.0.0rc1", "<=7.0.0", "<7.0.0rc1", "<=7.0.0"},
		{poetry.Scheme{}, "^6.31", "^7.0", "<7", "<8"},
		{conda.Scheme{}, ">=6,<7", ">=6,<=7.0.1", "<7", "<=7.0.1"},
		// Inside a major version, or on 0.x.
		{pep440.Scheme{}, "<=6.31.1", "<=6.33.0", "", ""},
		{pep440.Scheme{}, "<6.32", "<6.34", "", ""},
		{pep440.Scheme{}, "<7.1", "<=7.34.0", "", ""},
		{pep440.Scheme{}, ">0.57,<1", ">0.57,<=0.67.0", "", ""},
		{pep440.Scheme{}, ">=0.58,<=0.66.0", ">=0.58,<=0.67.0", "", ""},
		{pep440.Scheme{}, "<0.67", "<0.68", "", ""},
		// No cap before: nothing was shut out.
		{pep440.Scheme{}, ">=6.31.1", ">=6.31.1,<=7.0.1", "", ""},
		{pep440.Scheme{}, "", "<=7.0.1", "", ""},
		// Another epoch is not compared.
		{pep440.Scheme{}, "<7", "<=1!1.0", "", ""},
	} {
		s := tt.scheme
		oc, err := s.ParseConstraint(tt.old)
		if err != nil {
			t.Fatal(err)
		}
		nc, err := s.ParseConstraint(tt.new)
		if err != nil {
			t.Fatal(err)
		}
		mc, ok := versions.CrossesMajor(s, oc, nc)
		if ok != (tt.from != "") || ok && (mc.From.String() != tt.from || mc.To.String() != tt.to) {
			t.Errorf("%s: CrossesMajor(%q, %q) = %v, %v; want %q → %q", s.Name(), tt.old, tt.new, mc, ok, tt.from, tt.to)
		}
	}
}
