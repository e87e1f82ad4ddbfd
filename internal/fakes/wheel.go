package fakes

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"io"
	"maps"
	"path"
	"regexp"
	"slices"
	"strings"
)

var distRE = regexp.MustCompile(`[-_.]+`)

// Wheel builds a wheel (PEP 427) of name==version for the tags
// ("py3-none-any", "cp312-cp312-manylinux_2_17_x86_64") holding files (path in
// the wheel → content), with METADATA, WHEEL and a RECORD that matches, and
// returns its filename and bytes, ready for Release.Artifacts.
func Wheel(name, version, tags string, files map[string][]byte) (string, []byte) {
	return WheelMeta(name, version, tags, nil, files)
}

// WheelMeta is Wheel with further METADATA lines, such as
// "Requires-Dist: numpy>=1.22", so that pip resolves the wheel's dependencies.
func WheelMeta(name, version, tags string, meta []string, files map[string][]byte) (string, []byte) {
	dist := distRE.ReplaceAllString(strings.ToLower(name), "_")
	info := fmt.Sprintf("%s-%s.dist-info/", dist, version)
	all := maps.Clone(files)
	if all == nil {
		all = map[string][]byte{}
	}
	md := fmt.Sprintf("Metadata-Version: 2.1\nName: %s\nVersion: %s\n", name, version)
	for _, m := range meta {
		md += m + "\n"
	}
	all[info+"METADATA"] = []byte(md)
	purelib := strings.HasSuffix(tags, "-none-any")
	all[info+"WHEEL"] = fmt.Appendf(nil, "Wheel-Version: 1.0\nGenerator: pinbot-fakes\nRoot-Is-Purelib: %v\nTag: %s\n", purelib, tags)
	var record strings.Builder
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, p := range slices.Sorted(maps.Keys(all)) {
		sum := sha256.Sum256(all[p])
		fmt.Fprintf(&record, "%s,sha256=%s,%d\n", p, base64.RawURLEncoding.EncodeToString(sum[:]), len(all[p]))
		w, _ := zw.Create(p)
		w.Write(all[p])
	}
	fmt.Fprintf(&record, "%sRECORD,,\n", info)
	w, _ := zw.Create(info + "RECORD")
	w.Write([]byte(record.String()))
	zw.Close()
	return fmt.Sprintf("%s-%s-%s.whl", dist, version, tags), buf.Bytes()
}

// wheelMetadata returns the METADATA of a wheel's .dist-info, or nil when
// data is not a wheel that has one.
func wheelMetadata(data []byte) []byte {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil
	}
	for _, f := range zr.File {
		dir, base := path.Split(f.Name)
		if base != "METADATA" || !strings.HasSuffix(dir, ".dist-info/") || strings.Count(dir, "/") != 1 {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			return nil
		}
		defer rc.Close()
		b, err := io.ReadAll(io.LimitReader(rc, 1<<20))
		if err != nil {
			return nil
		}
		return b
	}
	return nil
}
