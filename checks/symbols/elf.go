package symbols

import (
	"bufio"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"strings"
)

// ErrNotELF is the error for a file that does not start with the ELF magic.
var ErrNotELF = errors.New("not an ELF file")

// maxTable bounds the size of one table read whole (.dynsym, .dynstr,
// .dynamic, version tables): a crafted header cannot make the scan allocate
// more than this per table.
const maxTable = 256 << 20

// A symbol is one .dynsym entry, kept compact.
type symbol struct {
	name  string // a substring of the object's .dynstr copy
	value uint64
	size  uint64
	shndx uint16
	info  uint8
	other uint8
	ver   uint16 // .gnu.version entry, 0 when absent
}

func (s *symbol) bind() elf.SymBind { return elf.ST_BIND(s.info) }
func (s *symbol) typ() elf.SymType  { return elf.ST_TYPE(s.info) }

// isLinkerName reports whether name is one the linker defines in every
// object: not an export worth reporting.
func isLinkerName(name string) bool {
	switch name {
	case "_end", "_edata", "__bss_start", "_init", "_fini":
		return true
	}
	return false
}

// exported reports whether s is an exported definition: defined, bound
// GLOBAL, WEAK or GNU_UNIQUE, with default visibility, and not made by the
// linker.
func (s *symbol) exported() bool {
	if s.shndx == uint16(elf.SHN_UNDEF) || s.name == "" {
		return false
	}
	switch s.bind() {
	case elf.STB_GLOBAL, elf.STB_WEAK, stbGNUUnique:
	default:
		return false
	}
	return elf.ST_VISIBILITY(s.other) == elf.STV_DEFAULT && !isLinkerName(s.name)
}

// stbGNUUnique is STB_GNU_UNIQUE, which debug/elf does not name.
const stbGNUUnique elf.SymBind = 10

// object is what the scan keeps of one parsed shared object.
type object struct {
	class    elf.Class
	order    endian
	machine  elf.Machine
	syms     []symbol // the whole .dynsym, index 0 included
	exported []int32  // indices of exported definitions, in table order
	hashes   []uint64 // of the names of exported, for the clash index
	imports  []int32  // indices of undefined references
	versions []string // version names by .gnu.version index; "" for base and local
	soname   string
	needed   []string
	runpath  []string
	symbolic bool
	textrel  bool
	nodes    []string // version nodes defined, without the base one
	pyext    bool
}

// An endian reads integers in an object's byte order. Unlike a
// binary.ByteOrder, whose methods are called through an interface and are
// not inlined, its methods inline to a load and a branch that is always
// taken the same way: tables are read an entry at a time (libLLVM's
// relocations alone are 390,000 entries).
type endian struct{ big bool }

func (e endian) Uint16(b []byte) uint16 {
	if e.big {
		return binary.BigEndian.Uint16(b)
	}
	return binary.LittleEndian.Uint16(b)
}

func (e endian) Uint32(b []byte) uint32 {
	if e.big {
		return binary.BigEndian.Uint32(b)
	}
	return binary.LittleEndian.Uint32(b)
}

func (e endian) Uint64(b []byte) uint64 {
	if e.big {
		return binary.BigEndian.Uint64(b)
	}
	return binary.LittleEndian.Uint64(b)
}

// version returns the version name of symbol i ("" for none).
func (o *object) version(i int32) string {
	v := o.syms[i].ver & 0x7fff
	if int(v) < len(o.versions) {
		return o.versions[v]
	}
	return ""
}

// parseObject reads the dynamic symbol table, the dynamic section and the
// version definitions of the ELF object in r (size bytes). It reads only
// those tables, never .text, and never panics: a malformed object is an
// error.
func parseObject(r io.ReaderAt, size int64) (o *object, err error) {
	o, _, err = parseELF(r, size, nil)
	return o, err
}

// A nameVisitor is shown the name of every exported definition (export)
// and undefined reference (!export) as the symbol table is read, in table
// order: the names lie scattered over .dynstr, and a name is in the cache
// only while its symbol is read (libLLVM's 3 MB of names are read once,
// not once to classify, once to hash and once more to match the forbid
// patterns).
type nameVisitor func(name string, export bool)

// parseELF is parseObject, and returns the parsed headers too (nil with
// an error); visit, when not nil, is shown the names as they are read,
// including those of an object that turns out malformed.
func parseELF(r io.ReaderAt, size int64, visit nameVisitor) (o *object, f *elf.File, err error) {
	defer func() {
		if p := recover(); p != nil {
			o, f, err = nil, nil, fmt.Errorf("malformed ELF (reader panicked: %v)", p)
		}
	}()
	return parseHeaders(r, size, visit)
}

// parseHeaders is parseELF, without the recovery.
func parseHeaders(r io.ReaderAt, size int64, visit nameVisitor) (*object, *elf.File, error) {
	var magic [4]byte
	if n, _ := r.ReadAt(magic[:], 0); n < 4 || string(magic[:]) != elf.ELFMAG {
		return nil, nil, ErrNotELF
	}
	f, err := elf.NewFile(r)
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, nil, fmt.Errorf("truncated ELF: headers past the end of the file (%w)", err)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("malformed ELF: %w", err)
	}
	if f.Type != elf.ET_DYN && f.Type != elf.ET_EXEC {
		return nil, nil, fmt.Errorf("not a shared object or executable (type %v)", f.Type)
	}
	o := &object{class: f.Class, order: endian{big: f.Data == elf.ELFDATA2MSB}, machine: f.Machine}
	dynsym := f.SectionByType(elf.SHT_DYNSYM)
	if dynsym == nil {
		return o, f, nil // a static executable: nothing exported
	}
	if int(dynsym.Link) >= len(f.Sections) || dynsym.Link == 0 {
		return nil, nil, errors.New("malformed ELF: .dynsym links to no string table")
	}
	strs, err := readStrings(r, f.Sections[dynsym.Link], size)
	if err != nil {
		return nil, nil, err
	}
	if err := o.readSymbols(r, dynsym, size, strs, visit); err != nil {
		return nil, nil, err
	}
	if err := o.readVersions(f, r, size, strs, dynsym.Link); err != nil {
		return nil, nil, err
	}
	if err := o.readDynamic(f, r, size, strs, dynsym.Link); err != nil {
		return nil, nil, err
	}
	return o, f, nil
}

// checkTable checks that a section lies inside the file, is not absurdly
// large and is not compressed, before it is read whole.
func checkTable(s *elf.Section, fileSize int64) error {
	switch {
	case s.Type == elf.SHT_NOBITS || s.Size == 0:
		return nil
	case s.Size > maxTable:
		return fmt.Errorf("malformed ELF: section %s is %d bytes (limit %d)", s.Name, s.Size, maxTable)
	case s.Offset > uint64(fileSize) || s.Size > uint64(fileSize)-s.Offset:
		return fmt.Errorf("truncated ELF: section %s extends past the end of the file", s.Name)
	case s.Flags&elf.SHF_COMPRESSED != 0:
		return fmt.Errorf("malformed ELF: section %s is compressed", s.Name)
	}
	return nil
}

// readTable reads a whole section after checkTable: a slice of the
// object's bytes when they are mapped (not to be changed), else a copy.
func readTable(r io.ReaderAt, s *elf.Section, fileSize int64) ([]byte, error) {
	if err := checkTable(s, fileSize); err != nil || s.Type == elf.SHT_NOBITS || s.Size == 0 {
		return nil, err
	}
	if data := mapped(r); data != nil {
		return data[s.Offset : s.Offset+s.Size : s.Offset+s.Size], nil
	}
	buf := make([]byte, s.Size)
	if _, err := r.ReadAt(buf, int64(s.Offset)); err != nil {
		return nil, fmt.Errorf("reading %s: %w", s.Name, err)
	}
	return buf, nil
}

// mapped returns all the bytes of the object r reads when it holds them
// (a file mapped with internal/mmap, a stored wheel member inside the
// mapped wheel, a member decompressed into memory), so that tables and
// bodies are used where they lie; nil when r must be read with ReadAt.
// The bytes are read-only.
func mapped(r io.ReaderAt) []byte {
	if m, ok := r.(interface{ Bytes() []byte }); ok {
		return m.Bytes()
	}
	return nil
}

// readStrings reads a whole string table into one string, without an
// intermediate copy; names are substrings of it.
func readStrings(r io.ReaderAt, s *elf.Section, fileSize int64) (string, error) {
	if err := checkTable(s, fileSize); err != nil || s.Type == elf.SHT_NOBITS || s.Size == 0 {
		return "", err
	}
	if data := mapped(r); data != nil {
		return string(data[s.Offset : s.Offset+s.Size]), nil
	}
	var b strings.Builder
	b.Grow(int(s.Size))
	if _, err := io.Copy(&b, io.NewSectionReader(r, int64(s.Offset), int64(s.Size))); err != nil {
		return "", fmt.Errorf("reading %s: %w", s.Name, err)
	}
	return b.String(), nil
}

// readSectionAt fills buf from offset off of section s of the object in r
// (size bytes), with ReadAt on r: debug/elf's Section.ReadAt is nil for
// compressed sections. .bss reads as zeros.
func readSectionAt(r io.ReaderAt, size int64, s *elf.Section, buf []byte, off uint64) error {
	n := uint64(len(buf))
	switch {
	case off > s.Size || n > s.Size-off:
		return fmt.Errorf("read past the end of section %s", s.Name)
	case s.Type == elf.SHT_NOBITS:
		clear(buf)
		return nil
	case s.Flags&elf.SHF_COMPRESSED != 0:
		return fmt.Errorf("section %s is compressed", s.Name)
	case s.Offset > uint64(size) || s.Offset+off > uint64(size) || n > uint64(size)-s.Offset-off:
		return fmt.Errorf("truncated ELF: section %s extends past the end of the file", s.Name)
	}
	_, err := r.ReadAt(buf, int64(s.Offset+off))
	return err
}

// sectionBytes returns n bytes from offset off of section s, as
// readSectionAt reads them, but without a copy when the object is mapped:
// the result must not be changed.
func sectionBytes(r io.ReaderAt, size int64, s *elf.Section, off, n uint64) ([]byte, error) {
	if data := mapped(r); data != nil && s.Type != elf.SHT_NOBITS && s.Flags&elf.SHF_COMPRESSED == 0 &&
		off <= s.Size && n <= s.Size-off && s.Offset <= uint64(len(data)) && s.Offset+off <= uint64(len(data)) &&
		n <= uint64(len(data))-s.Offset-off && int64(len(data)) <= size {
		at := s.Offset + off
		return data[at : at+n : at+n], nil
	}
	if size < 0 || n > uint64(size) { // never allocate what a header claims past the file's end
		return nil, fmt.Errorf("section %s: %d bytes past the end of the file", s.Name, n)
	}
	buf := make([]byte, n)
	if err := readSectionAt(r, size, s, buf, off); err != nil {
		return nil, err
	}
	return buf, nil
}

// cstring returns the NUL-terminated string at off in strs.
func cstring(strs string, off uint32) string {
	if int64(off) >= int64(len(strs)) {
		return ""
	}
	s := strs[off:]
	if i := strings.IndexByte(s, 0); i >= 0 {
		return s[:i]
	}
	return s
}

// readSymbols reads .dynsym, streamed (names are substrings of strs), and
// classifies each symbol as it is read (classify), showing visit its name.
func (o *object) readSymbols(r io.ReaderAt, s *elf.Section, size int64, strs string, visit nameVisitor) error {
	if err := checkTable(s, size); err != nil {
		return err
	}
	entSize := 24
	if o.class == elf.ELFCLASS32 {
		entSize = 16
	}
	n := int(s.Size) / entSize
	o.syms = make([]symbol, n)
	if n == 0 {
		return nil
	}
	o.exported = make([]int32, 0, n)
	o.hashes = make([]uint64, 0, n)
	// Mapped, the entries are decoded where they lie; else streamed.
	data := mapped(r)
	var br *bufio.Reader
	if data == nil {
		br = bufio.NewReaderSize(io.NewSectionReader(r, int64(s.Offset), int64(n*entSize)), 64<<10)
	}
	bo := o.order
	var e [24]byte
	b := e[:entSize]
	for i := range n {
		if data != nil {
			at := int(s.Offset) + i*entSize
			b = data[at : at+entSize]
		} else if _, err := io.ReadFull(br, b); err != nil {
			return fmt.Errorf("reading %s: %w", s.Name, err)
		}
		sym := &o.syms[i]
		sym.name = cstring(strs, bo.Uint32(b[0:4]))
		if entSize == 24 {
			sym.info, sym.other = b[4], b[5]
			sym.shndx = bo.Uint16(b[6:8])
			sym.value = bo.Uint64(b[8:16])
			sym.size = bo.Uint64(b[16:24])
		} else {
			sym.value = uint64(bo.Uint32(b[4:8]))
			sym.size = uint64(bo.Uint32(b[8:12]))
			sym.info, sym.other = b[12], b[13]
			sym.shndx = bo.Uint16(b[14:16])
		}
		o.classify(int32(i), visit)
	}
	return nil
}

// readVersions reads .gnu.version and the version definitions. A version
// table that does not match .dynsym is ignored rather than trusted.
func (o *object) readVersions(f *elf.File, r io.ReaderAt, size int64, strs string, strIndex uint32) error {
	vs := f.SectionByType(elf.SHT_GNU_VERSYM)
	if vs == nil {
		return nil
	}
	data, err := readTable(r, vs, size)
	if err != nil {
		return err
	}
	if len(data)/2 == len(o.syms) {
		for i := range o.syms {
			o.syms[i].ver = o.order.Uint16(data[2*i:])
		}
	}
	vd := f.SectionByType(elf.SHT_GNU_VERDEF)
	if vd == nil {
		return nil
	}
	d, err := readTable(r, vd, size)
	if err != nil {
		return err
	}
	if vd.Link != strIndex {
		if int(vd.Link) >= len(f.Sections) {
			return nil
		}
		other, err := readStrings(r, f.Sections[vd.Link], size)
		if err != nil {
			return err
		}
		strs = other
	}
	bo := o.order
	for i, count := 0, 0; i+20 <= len(d) && count < 1<<15; count++ {
		flags := bo.Uint16(d[i+2:])
		ndx := bo.Uint16(d[i+4:]) & 0x7fff
		cnt := bo.Uint16(d[i+6:])
		aux := bo.Uint32(d[i+12:])
		next := bo.Uint32(d[i+16:])
		if cnt > 0 && uint64(i)+uint64(aux)+8 <= uint64(len(d)) {
			name := cstring(strs, bo.Uint32(d[i+int(aux):]))
			for int(ndx) >= len(o.versions) {
				o.versions = append(o.versions, "")
			}
			if flags&1 == 0 { // VER_FLG_BASE names the object, not a version
				o.versions[ndx] = name
				o.nodes = append(o.nodes, name)
			}
		}
		if next == 0 || uint64(i)+uint64(next) > uint64(len(d)) {
			break
		}
		i += int(next)
	}
	return nil
}

// Dynamic tags and flags debug/elf does not export as constants we need.
const (
	dfSymbolic = 0x2
	dfTextrel  = 0x4
)

func (o *object) readDynamic(f *elf.File, r io.ReaderAt, size int64, strs string, strIndex uint32) error {
	ds := f.SectionByType(elf.SHT_DYNAMIC)
	if ds == nil {
		return nil
	}
	d, err := readTable(r, ds, size)
	if err != nil {
		return err
	}
	if ds.Link != strIndex && int(ds.Link) < len(f.Sections) && ds.Link != 0 {
		other, err := readStrings(r, f.Sections[ds.Link], size)
		if err != nil {
			return err
		}
		strs = other
	}
	bo := o.order
	entSize := 16
	if o.class == elf.ELFCLASS32 {
		entSize = 8
	}
	for i := 0; i+entSize <= len(d); i += entSize {
		var tag elf.DynTag
		var val uint64
		if entSize == 16 {
			tag, val = elf.DynTag(bo.Uint64(d[i:])), bo.Uint64(d[i+8:])
		} else {
			tag, val = elf.DynTag(int32(bo.Uint32(d[i:]))), uint64(bo.Uint32(d[i+4:]))
		}
		str := func() string {
			if val > uint64(len(strs)) {
				return ""
			}
			return cstring(strs, uint32(val))
		}
		switch tag {
		case elf.DT_NULL:
			return nil
		case elf.DT_NEEDED:
			o.needed = append(o.needed, str())
		case elf.DT_SONAME:
			o.soname = str()
		case elf.DT_RUNPATH, elf.DT_RPATH:
			if p := str(); p != "" {
				o.runpath = append(o.runpath, strings.Split(p, ":")...)
			}
		case elf.DT_SYMBOLIC:
			o.symbolic = true
		case elf.DT_TEXTREL:
			o.textrel = true
		case elf.DT_FLAGS:
			o.symbolic = o.symbolic || val&dfSymbolic != 0
			o.textrel = o.textrel || val&dfTextrel != 0
		}
	}
	return nil
}

// nameSeed seeds the hashes of exported names: one seed per process, so
// that hashes of different objects compare.
var nameSeed = maphash.MakeSeed()

// classify files symbol i, just read, as an exported definition (its
// name hashed for the clash index) or an undefined reference, notes
// whether the object is a Python extension module, and shows visit the
// name of either.
func (o *object) classify(i int32, visit nameVisitor) {
	s := &o.syms[i]
	switch {
	case s.exported():
		o.exported = append(o.exported, i)
		o.hashes = append(o.hashes, maphash.String(nameSeed, s.name))
		if s.typ() == elf.STT_FUNC && strings.HasPrefix(s.name, "PyInit_") {
			o.pyext = true
		}
		if visit != nil {
			visit(s.name, true)
		}
	case s.shndx == uint16(elf.SHN_UNDEF) && s.name != "" && (s.bind() == elf.STB_GLOBAL || s.bind() == elf.STB_WEAK):
		o.imports = append(o.imports, i)
		if visit != nil {
			visit(s.name, false)
		}
	}
}
