package cisupport_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pinbot-dev/pinbot/internal/corpus"
	"github.com/pinbot-dev/pinbot/internal/pinstest"
	"github.com/pinbot-dev/pinbot/pins"
	"github.com/pinbot-dev/pinbot/pins/cisupport"
	"github.com/pinbot-dev/pinbot/versions"
	"github.com/pinbot-dev/pinbot/versions/conda"
)

var f = cisupport.Format{}

const (
	tfName = "conda-forge__tensorflow-feedstock__.ci_support__linux_64_cuda_compiler_versionNonemicroarch_level1.yaml"
	tfPath = ".ci_support/linux_64_cuda_compiler_versionNonemicroarch_level1.yaml"
)

func TestMatch(t *testing.T) {
	pinstest.Match(t, f, map[string]bool{
		".ci_support/linux_64_.yaml":                   true,
		".ci_support/migrations/libprotobuf631.yaml":   true,
		"recipe/conda_build_config.yaml":               true,
		"conda_build_config.yml":                       true,
		".ci_support/README":                           false,
		"ci_support/linux_64_.yaml":                    false,
		"recipe/meta.yaml":                             false,
		".github/workflows/conda_build_config.yaml.j2": false,
	})
}

type found struct {
	Line           int
	Key, Text, Con string
	Skip           string
}

// TestCorpus checks the tensorflow variant file against INDEX.md: libprotobuf,
// libtensorflow_cc and tensorflow are found, and every pin is skipped.
func TestCorpus(t *testing.T) {
	ps := pinstest.Extract(t, f, tfPath, corpus.Read(t, tfName))
	var got []found
	for _, p := range ps {
		if p.Skip != cisupport.Generated {
			t.Errorf("%s: skip %q", p.Key, p.Skip)
		}
		if strings.Contains(p.Package, "protobuf") || strings.Contains(p.Package, "tensorflow") || p.Package == "python" {
			got = append(got, found{p.Line, p.Key, p.Text, p.Constraint, p.Skip})
		}
		if strings.Contains(p.Key, "compiler") || strings.HasPrefix(p.Key, "c_stdlib") || strings.HasPrefix(p.Key, "docker_image") ||
			strings.HasPrefix(p.Key, "zip_keys") || strings.HasPrefix(p.Key, "target_platform") || strings.HasPrefix(p.Key, "channel_") {
			t.Errorf("%s: a build setting reported as a pin", p.Key)
		}
	}
	g := cisupport.Generated
	want := []found{
		{44, "libprotobuf[0]", "6.31.1", "6.31.1", g},
		{46, "libtensorflow_cc[0]", "2.16", "2.16", g},
		{62, "python[0]", "3.10.* *_cpython", "3.10.*", g},
		{63, "python[1]", "3.11.* *_cpython", "3.11.*", g},
		{64, "python[2]", "3.12.* *_cpython", "3.12.*", g},
		{65, "python[3]", "3.13.* *_cp313", "3.13.*", g},
		{73, "tensorflow[0]", "2.16", "2.16", g},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("pins (-want +got):\n%s", diff)
	}
}

// TestNeverEdited plans the inclusive cap for every pin of the corpus file
// (the golden result is the file unchanged) and checks that Apply refuses
// each one.
func TestNeverEdited(t *testing.T) {
	data := corpus.Read(t, tfName)
	ps := pinstest.Extract(t, f, tfPath, data)
	var edits []pins.Edit
	for _, p := range ps {
		if p.Skip == "" {
			c, err := conda.Scheme{}.ParseConstraint(p.Constraint)
			if err != nil {
				t.Fatal(err)
			}
			if m, err := versions.NewUpper(conda.Scheme{}, c, "99.0", versions.Policy{Strategy: versions.Inclusive, AddCap: true}); err == nil && m.Changed {
				edits = append(edits, pins.Edit{Pin: p, New: m.Text})
			}
		}
		if !pinstest.SpanHolds(data, p) {
			t.Errorf("%s: span %v does not hold its constraint %q", p.Key, p.Span, p.Constraint)
		}
		if _, err := pins.Apply(f, tfPath, data, []pins.Edit{{Pin: p, New: "99.0"}}); err == nil || !strings.Contains(err.Error(), "not editable") {
			t.Errorf("%s: Apply = %v, want a refusal", p.Key, err)
		}
	}
	out, err := pins.Apply(f, tfPath, data, edits)
	if err != nil || len(edits) != 0 || !bytes.Equal(out, data) {
		t.Errorf("planned %d edits (%v); the file must stay as it is", len(edits), err)
	}
}

func TestConfig(t *testing.T) {
	doc := "# numba:\r\n#  - '0.1'\r\n" +
		"numpy:\r\n" +
		"  - 2.0   # [not win]\r\n" +
		"  - '1.26'  # [win]\r\n" +
		"c_compiler:      # [win]\r\n  - vs2022        # [win]\r\n" +
		"MACOSX_SDK_VERSION:\r\n  - '11.0'\r\n" +
		"numba: [\"0.61\", 0.62]\r\n" +
		"pin_run_as_build:\r\n  libprotobuf:\r\n    max_pin: x.x\r\n" +
		"numpy:   # [linux]\r\n  - \"2\\x2e1\"   # [linux]\r\n" +
		"libboost: 1.86\r\n"
	ps := pinstest.Extract(t, f, "recipe/conda_build_config.yaml", []byte(doc))
	var got []string
	for _, p := range ps {
		got = append(got, fmt.Sprintf("%d %s %s %q %q", p.Line, p.Key, p.Package, p.Constraint, p.Skip))
	}
	v := cisupport.Variant
	want := []string{
		fmt.Sprintf("4 numpy[0] numpy %q %q", "2.0", v),
		fmt.Sprintf("5 numpy[1] numpy %q %q", "1.26", v),
		fmt.Sprintf("10 numba[0] numba %q %q", "0.61", v),
		fmt.Sprintf("10 numba[1] numba %q %q", "0.62", v),
		fmt.Sprintf("15 numpy[0] numpy %q %q", "2.1", v), // escaped: skipped all the same
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestErrors(t *testing.T) {
	pinstest.Errors(t, f, ".ci_support/x.yaml", []pinstest.ErrorCase{
		{Doc: "numpy:\n  - 2\n - 3\n", Line: 2, InMsg: "not valid YAML"},
		{Doc: "numpy:\n\t- 2\n", Line: 2, InMsg: "not valid YAML"},
		{Doc: "- numpy\n", Line: 1, InMsg: "expected a mapping of variants"},
	})
	for _, doc := range []string{"", "# nothing\n", "{}\n"} {
		if ps, err := f.Extract(".ci_support/x.yaml", []byte(doc)); err != nil || len(ps) != 0 {
			t.Errorf("Extract(%q) = %v, %v; want nothing", doc, ps, err)
		}
	}
}

func FuzzExtract(f *testing.F) {
	pinstest.Fuzz(f, cisupport.Format{}, ".ci_support/x.yaml", func(t *testing.T, _ []byte, ps []pins.Pin) {
		for _, p := range ps {
			if p.Skip == "" {
				t.Fatalf("pin %+v is not skipped", p)
			}
		}
	}, []byte("libprotobuf:\n- 6.31.1\ntensorflow:\n- '2.16'\nzip_keys:\n- - a\n  - b\n"))
}
