package pins

import (
	"io/fs"
)

// A Sniffer is a Format that also knows its files by their content, wherever
// they are and whatever they are called: a conda environment file is one
// whether it is environment.yml or ci/requirements/min-all-deps.yml.
// Discovery asks it about the files no format matches by path.
type Sniffer interface {
	Format
	// MaySniff reports whether a file at this slash-separated path could be
	// of this format, so that it is worth reading: a test on the path only
	// (".yml" and ".yaml" files), as cheap as Match.
	MaySniff(path string) bool
	// Sniff reports whether data, the contents of such a file, is of this
	// format. It must not fail on any input.
	Sniff(data []byte) bool
}

// SniffLimit is the most bytes a file may hold for discovery to read it to
// tell its format by content: far above any pin file.
const SniffLimit = 1 << 20

// Detect returns the format of the file at the slash-separated path rel,
// whose contents are data: the first format that matches its path (Lookup),
// else the first Sniffer that recognises its content, else nil.
func Detect(formats []Format, rel string, data []byte) Format {
	if f := Lookup(formats, rel); f != nil {
		return f
	}
	for _, f := range formats {
		if s, ok := f.(Sniffer); ok && len(data) <= SniffLimit && s.MaySniff(rel) && s.Sniff(data) {
			return f
		}
	}
	return nil
}

// sniff returns the first Sniffer of formats that recognises the content of
// the regular file p of fsys (or the regular file the link p leads to), or
// nil. The file is read only when a Sniffer may want it and it holds at most
// SniffLimit bytes; a file that cannot be read is no pin file.
func sniff(fsys fs.FS, p string, formats []Format) Format {
	var want []Sniffer
	for _, f := range formats {
		if s, ok := f.(Sniffer); ok && s.MaySniff(p) {
			want = append(want, s)
		}
	}
	if len(want) == 0 {
		return nil
	}
	if info, err := fs.Stat(fsys, p); err != nil || info.Size() > SniffLimit {
		return nil
	}
	data, err := fs.ReadFile(fsys, p)
	if err != nil || len(data) > SniffLimit {
		return nil
	}
	for _, s := range want {
		if s.Sniff(data) {
			return s
		}
	}
	return nil
}
