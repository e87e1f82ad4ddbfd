package fakes

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/dsnet/compress/bzip2"
	"github.com/klauspost/compress/zstd"
	"github.com/ulikunitz/xz"
)

// An ArchiveMember is one member of an archive built for a test.
type ArchiveMember struct {
	Name string
	Data []byte
	// Symlink makes the member a symbolic link to this target.
	Symlink string
	// Hardlink makes the member a hard link to this member.
	Hardlink string
	// Dir makes the member a directory.
	Dir bool
}

// archiveTime is the modification time of every member, so equal content
// gives equal bytes.
var archiveTime = time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)

// Tarball builds a tarball of kind "tar", "tar.gz", "tar.bz2", "tar.xz" or
// "tar.zst" holding members, in order, with names as given (hostile ones
// too).
func Tarball(kind string, members []ArchiveMember) []byte {
	var raw bytes.Buffer
	tw := tar.NewWriter(&raw)
	for _, m := range members {
		h := &tar.Header{Name: m.Name, Mode: 0o644, ModTime: archiveTime, Typeflag: tar.TypeReg, Size: int64(len(m.Data)), Format: tar.FormatPAX}
		switch {
		case m.Symlink != "":
			h.Typeflag, h.Linkname, h.Size, h.Mode = tar.TypeSymlink, m.Symlink, 0, 0o777
		case m.Hardlink != "":
			h.Typeflag, h.Linkname, h.Size = tar.TypeLink, m.Hardlink, 0
		case m.Dir:
			h.Typeflag, h.Size, h.Mode = tar.TypeDir, 0, 0o755
		}
		if err := tw.WriteHeader(h); err != nil {
			panic(err)
		}
		if h.Typeflag == tar.TypeReg {
			tw.Write(m.Data)
		}
	}
	if err := tw.Close(); err != nil {
		panic(err)
	}
	return Compress(kind, raw.Bytes())
}

// Compress compresses a tarball as kind says ("tar" leaves it as it is).
func Compress(kind string, data []byte) []byte {
	var out bytes.Buffer
	var w io.WriteCloser
	switch kind {
	case "tar":
		return data
	case "tar.gz", "tgz":
		w = gzip.NewWriter(&out)
	case "tar.bz2":
		bw, err := bzip2.NewWriter(&out, &bzip2.WriterConfig{Level: 9})
		if err != nil {
			panic(err)
		}
		w = bw
	case "tar.xz":
		xw, err := xz.NewWriter(&out)
		if err != nil {
			panic(err)
		}
		w = xw
	case "tar.zst":
		zw, err := zstd.NewWriter(&out, zstd.WithEncoderLevel(zstd.SpeedBestCompression))
		if err != nil {
			panic(err)
		}
		w = zw
	default:
		panic("fakes.Compress: unknown kind " + kind)
	}
	w.Write(data)
	if err := w.Close(); err != nil {
		panic(err)
	}
	return out.Bytes()
}

// A CondaPackage describes a conda package file to build.
type CondaPackage struct {
	Name, Version, Build string
	Subdir               string // default linux-64
	Depends              []string
	// Members are the package's files (lib/..., site-packages/...).
	Members []ArchiveMember
	// TarBz2 builds the classic .tar.bz2 format instead of .conda.
	TarBz2 bool
}

// Filename returns the package's file name: NAME-VERSION-BUILD.conda (or
// .tar.bz2).
func (p CondaPackage) Filename() string {
	ext := ".conda"
	if p.TarBz2 {
		ext = ".tar.bz2"
	}
	return p.Name + "-" + p.Version + "-" + p.Build + ext
}

// Bytes builds the package: info/index.json, info/files and
// info/paths.json beside the members, as a .conda (a zip of stored
// metadata.json, info-DIST.tar.zst and pkg-DIST.tar.zst) or a .tar.bz2.
func (p CondaPackage) Bytes() []byte {
	subdir := p.Subdir
	if subdir == "" {
		subdir = "linux-64"
	}
	depends := p.Depends
	if depends == nil {
		depends = []string{}
	}
	index, _ := json.MarshalIndent(map[string]any{
		"name": p.Name, "version": p.Version, "build": p.Build, "build_number": buildNumber(p.Build),
		"depends": depends, "subdir": subdir, "license": "BSD-3-Clause", "timestamp": archiveTime.UnixMilli(),
	}, "", "  ")
	var files []string
	var paths []map[string]any
	for _, m := range p.Members {
		if m.Dir {
			continue
		}
		files = append(files, m.Name)
		e := map[string]any{"_path": m.Name, "path_type": "hardlink", "size_in_bytes": len(m.Data)}
		if m.Symlink != "" {
			e["path_type"] = "softlink"
		}
		paths = append(paths, e)
	}
	slices.Sort(files)
	pathsJSON, _ := json.MarshalIndent(map[string]any{"paths": paths, "paths_version": 1}, "", "  ")
	info := []ArchiveMember{
		{Name: "info/index.json", Data: index},
		{Name: "info/files", Data: []byte(strings.Join(files, "\n") + "\n")},
		{Name: "info/paths.json", Data: pathsJSON},
	}
	if p.TarBz2 {
		return Tarball("tar.bz2", append(info, p.Members...))
	}
	dist := p.Name + "-" + p.Version + "-" + p.Build
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, m := range []struct {
		name string
		data []byte
	}{
		{"metadata.json", []byte(`{"conda_pkg_format_version": 2}`)},
		{"info-" + dist + ".tar.zst", Tarball("tar.zst", info)},
		{"pkg-" + dist + ".tar.zst", Tarball("tar.zst", p.Members)},
	} {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: m.name, Method: zip.Store, Modified: archiveTime})
		if err != nil {
			panic(err)
		}
		w.Write(m.data)
	}
	if err := zw.Close(); err != nil {
		panic(err)
	}
	return buf.Bytes()
}
