package symbols_test

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/pinbot-dev/pinbot/checks/symbols"
)

// result builds a small Result: forbidden maps a library key to its
// pattern → exports; clashes lists names with different bodies ("same name"
// for the same bodies, "name:exposure" to pick the exposure, default
// linked); errs lists unreadable wheel members.
func result(forbidden map[string]map[string]int, clashes []string, errs ...string) *symbols.Result {
	r := &symbols.Result{Patterns: []string{"google::protobuf::*", "llvm::*"}}
	for key, pats := range forbidden {
		f := symbols.Forbidden{Library: "/w/" + key, Key: key, Examples: []string{"google::protobuf::Message::~Message()"}}
		for _, p := range r.Patterns {
			f.Patterns = append(f.Patterns, symbols.PatternCount{Pattern: p, Exports: pats[p]})
			f.Exports += pats[p]
		}
		r.Forbidden = append(r.Forbidden, f)
		r.Libraries = append(r.Libraries, symbols.Library{Path: "/w/" + key, Key: key, Role: symbols.RoleTarget})
	}
	slices.SortFunc(r.Forbidden, func(a, b symbols.Forbidden) int { return strings.Compare(a.Key, b.Key) })
	for _, c := range clashes {
		name, expo, _ := strings.Cut(c, ":")
		if expo == "" {
			expo = string(symbols.ExposureLinked)
		}
		body := symbols.BodyDifferent
		if rest, ok := strings.CutPrefix(name, "same "); ok {
			name, body = rest, symbols.BodySame
		} else {
			r.Stats.Different++
		}
		r.Clashes = append(r.Clashes, symbols.Clash{
			Name: name, Demangled: name + "()", Type: "func", Body: body, Reason: "size", Exposure: symbols.Exposure(expo),
			Copies: []symbols.Copy{
				{Library: "/w/a/liba.so", Key: "a/liba.so", Role: symbols.RoleTarget, Size: 51, Bind: "WEAK", Group: 1},
				{Library: "/p/libprotobuf.so.32", Key: "libprotobuf.so", Role: symbols.RoleAgainst, Size: 59, Bind: "WEAK", Group: 2},
			},
		})
	}
	for _, e := range errs {
		r.Errors = append(r.Errors, symbols.InputError{Path: "/w/tf-2.20.whl!" + e, Error: "boom"})
	}
	r.Stats.Libraries = len(r.Libraries)
	r.Stats.Clashes = len(r.Clashes)
	return r
}

func TestCompare(t *testing.T) {
	pb := map[string]int{"google::protobuf::*": 12}
	tests := []struct {
		name                  string
		base, cand            *symbols.Result
		ok                    bool
		newN, existing, fixed int
	}{
		{"clean", result(nil, nil), result(nil, nil), true, 0, 0, 0},
		{"new forbidden", result(nil, nil), result(map[string]map[string]int{"tf/lib.so": pb}, nil), false, 1, 0, 0},
		{"forbidden at both", result(map[string]map[string]int{"tf/lib.so": {"google::protobuf::*": 3}}, nil),
			result(map[string]map[string]int{"tf/lib.so": pb}, nil), true, 0, 1, 0},
		{"new pattern in a library", result(map[string]map[string]int{"tf/lib.so": pb}, nil),
			result(map[string]map[string]int{"tf/lib.so": {"google::protobuf::*": 12, "llvm::*": 1}}, nil), false, 1, 1, 0},
		{"moved to another library", result(map[string]map[string]int{"tf/a.so": pb}, nil),
			result(map[string]map[string]int{"tf/b.so": pb}, nil), false, 1, 0, 1},
		{"fixed", result(map[string]map[string]int{"tf/lib.so": pb}, nil), result(nil, nil), true, 0, 0, 1},
		{"imports only", result(nil, nil), result(map[string]map[string]int{"tf/lib.so": {}}, nil), true, 0, 0, 0},
		{"new clash", result(nil, nil), result(nil, []string{"_ZN1a1fEv"}), false, 1, 0, 0},
		{"clash at both", result(nil, []string{"_ZN1a1fEv"}), result(nil, []string{"_ZN1a1fEv"}), true, 0, 1, 0},
		{"symbolic clash", result(nil, nil), result(nil, []string{"_ZN1a1fEv:symbolic"}), true, 0, 0, 0},
		{"extension clash", result(nil, nil), result(nil, []string{"_ZN1a1fEv:global"}), false, 1, 0, 0},
		{"same body", result(nil, nil), result(nil, []string{"same _ZN1a1fEv"}), true, 0, 0, 0},
		{"unreadable candidate", result(nil, nil), result(nil, nil, "tf/lib.so"), false, 1, 0, 0},
		{"unreadable at both", result(nil, nil, "tf/lib.so"), result(nil, nil, "tf/lib.so"), true, 0, 1, 0},
		{"no baseline", nil, result(map[string]map[string]int{"tf/lib.so": pb}, []string{"_ZN1a1fEv"}), false, 2, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := symbols.Compare(tt.base, tt.cand)
			if v.OK != tt.ok || len(v.New) != tt.newN || len(v.Existing) != tt.existing || len(v.Fixed) != tt.fixed {
				t.Errorf("Compare = ok %v, %d new, %d existing, %d fixed; want %v, %d, %d, %d\n%+v",
					v.OK, len(v.New), len(v.Existing), len(v.Fixed), tt.ok, tt.newN, tt.existing, tt.fixed, v)
			}
		})
	}
}

func TestVerdictDetail(t *testing.T) {
	base := result(map[string]map[string]int{"tf/old.so": {"llvm::*": 2}}, nil)
	cand := result(map[string]map[string]int{"tf/lib.so": {"google::protobuf::*": 1234}, "tf/old.so": {"llvm::*": 2}},
		[]string{"_ZN1a1fEv", "_ZN1a1gEv", "_ZN1a1hEv"})
	v := symbols.Compare(base, cand)
	want := "4 new: _ZN1a1fEv() has different bodies: liba.so 51 B, libprotobuf.so.32 59 B (linked); " +
		"_ZN1a1gEv() has different bodies: liba.so 51 B, libprotobuf.so.32 59 B (linked); " +
		"_ZN1a1hEv() has different bodies: liba.so 51 B, libprotobuf.so.32 59 B (linked); and 1 more; 1 existing (warning)"
	if got := v.Detail(); got != want {
		t.Errorf("Detail() =\n%s\nwant\n%s", got, want)
	}
	if got := (symbols.Verdict{OK: true}).Detail(); got != "no new symbol problems" {
		t.Errorf("empty Detail() = %q", got)
	}
	var forbidden symbols.Problem
	for _, p := range v.New {
		if p.Kind == "forbidden" {
			forbidden = p
		}
	}
	if forbidden.Detail != "lib.so exports 1,234 symbols matching google::protobuf::* (e.g. google::protobuf::Message::~Message())" ||
		forbidden.Library != "tf/lib.so" || forbidden.Count != 1234 {
		t.Errorf("forbidden problem = %+v", forbidden)
	}

	e := symbols.Judge("tensorflow", &symbols.Side{Version: "2.19.0", File: "tf-2.19.0.whl", Result: base},
		symbols.Side{Version: "2.20.0", File: "tf-2.20.0.whl", Result: cand}, symbols.Env{})
	wantEntry := symbols.Check{
		Kind: "symbols", Name: "tensorflow", OK: false,
		Baseline:  "1 library; 2 forbidden exports in 1; 0 clashes, 0 with different bodies",
		Candidate: "2 libraries; 1,236 forbidden exports in 2; 3 clashes, 3 with different bodies",
		Detail:    want + "; read tf-2.20.0.whl (baseline tf-2.19.0.whl)",
		Verdict:   "blocked",
	}
	if e != wantEntry {
		t.Errorf("Judge =\n%+v\nwant\n%+v", e, wantEntry)
	}
	if got := symbols.Summary(nil); got != "not scanned" {
		t.Errorf("Summary(nil) = %q", got)
	}
}

func TestWriteJSON(t *testing.T) {
	var buf bytes.Buffer
	if err := symbols.WriteJSON(&buf, &symbols.Result{}); err != nil {
		t.Fatal(err)
	}
	want := `{
  "patterns": [],
  "libraries": [],
  "forbidden": [],
  "clashes": [],
  "errors": [],
  "warnings": [],
  "stats": {
    "libraries": 0,
    "symbols": 0,
    "exported": 0,
    "undefined": 0,
    "clashes": 0,
    "different": 0
  }
}
`
	if buf.String() != want {
		t.Errorf("empty result JSON =\n%s\nwant\n%s", buf.String(), want)
	}

	buf.Reset()
	r := result(map[string]map[string]int{"tf/lib.so": {"google::protobuf::*": 1}}, []string{"_ZN1a1fEv"})
	if err := symbols.WriteJSON(&buf, r); err != nil {
		t.Fatal(err)
	}
	var generic map[string]any
	if err := json.Unmarshal(buf.Bytes(), &generic); err != nil {
		t.Fatal(err)
	}
	clash := generic["clashes"].([]any)[0].(map[string]any)
	var keys []string
	for k := range clash {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if want := []string{"body", "copies", "demangled", "exposure", "name", "reason", "type", "version"}; !slices.Equal(keys, want) {
		t.Errorf("clash keys = %q, want %q", keys, want)
	}
	copy0 := clash["copies"].([]any)[0].(map[string]any)
	keys = keys[:0]
	for k := range copy0 {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if want := []string{"bind", "group", "key", "library", "role", "size", "version"}; !slices.Equal(keys, want) {
		t.Errorf("copy keys = %q, want %q", keys, want)
	}
	f := generic["forbidden"].([]any)[0].(map[string]any)
	if f["import_examples"] == nil || f["examples"] == nil {
		t.Errorf("forbidden entry lacks example lists: %v", f)
	}

	buf.Reset()
	if err := symbols.WriteVerdictJSON(&buf, symbols.Verdict{OK: true}); err != nil {
		t.Fatal(err)
	}
	if want := "{\n  \"ok\": true,\n  \"new\": [],\n  \"existing\": [],\n  \"fixed\": []\n}\n"; buf.String() != want {
		t.Errorf("verdict JSON = %s", buf.String())
	}
}

func TestWriteText(t *testing.T) {
	r := result(map[string]map[string]int{"tf/lib.so": {"google::protobuf::*": 1234}}, []string{"_ZN1a1fEv", "same _ZN1a1gEv"}, "tf/bad.so")
	var buf bytes.Buffer
	if err := symbols.WriteText(&buf, r); err != nil {
		t.Fatal(err)
	}
	want := `1 library (0 Python extensions): 0 symbols, 0 exported, 0 undefined

errors:
  /w/tf-2.20.whl!tf/bad.so: boom

forbidden (google::protobuf::*, llvm::*): 1,234 exports
  /w/tf/lib.so: 1,234 exports, 0 imports
    google::protobuf::*            1,234 exported       0 imported
    exports google::protobuf::Message::~Message()

clashes: 2 (1 different, 1 same, 0 unknown)
  different bodies:
    _ZN1a1fEv()  [func, linked, by size]
      _ZN1a1fEv
      51       WEAK   body 1  /w/a/liba.so
      59       WEAK   body 2  /p/libprotobuf.so.32
  same or unknown bodies, by libraries:
          1 same    /w/a/liba.so + /p/libprotobuf.so.32
            e.g. _ZN1a1gEv()
`
	if buf.String() != want {
		t.Errorf("WriteText =\n%s\nwant\n%s", buf.String(), want)
	}
}
