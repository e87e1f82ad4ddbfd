package symbols

import (
	"cmp"
	"debug/elf"
	"encoding/binary"
	"slices"
	"sort"
)

// A rela is one dynamic relocation: 24 bytes, as in the file.
type rela struct {
	off    uint64
	info   uint64 // symbol << 32 | type, and implicitBit
	addend int64
}

// implicitBit marks a packed relative relocation (SHT_RELR), whose addend
// is the slot's content.
const implicitBit = 1 << 63

func (r rela) sym() uint32    { return uint32(r.info>>32) &^ (implicitBit >> 32) }
func (r rela) typ() uint32    { return uint32(r.info) }
func (r rela) implicit() bool { return r.info&implicitBit != 0 }

// shtRelr is SHT_RELR, packed relative relocations.
const shtRelr elf.SectionType = 19

// inPlaceRun is the shortest sorted run of RELA entries kept where it lies
// rather than copied: linkers emit the relative relocations (nearly all of
// them) as one run sorted by offset, and the rest in symbol order.
const inPlaceRun = 1024

// A relaRun is a run of RELA entries sorted by offset, read where they lie.
type relaRun struct {
	data []byte // 24 bytes an entry
	bo   endian
}

func (r relaRun) len() int { return len(r.data) / 24 }

// covers reports whether addr lies between the run's first and last
// offsets: most addresses asked about (code) lie outside every run, and
// are answered without a search.
func (r relaRun) covers(addr uint64) bool {
	return addr >= r.bo.Uint64(r.data) && addr <= r.bo.Uint64(r.data[len(r.data)-24:])
}

func (r relaRun) at(i int) rela {
	e := r.data[i*24 : i*24+24]
	return rela{off: r.bo.Uint64(e[0:]), info: r.bo.Uint64(e[8:]), addend: int64(r.bo.Uint64(e[16:]))}
}

// search returns the index of the first entry at or after addr.
func (r relaRun) search(addr uint64) int {
	lo, hi := 0, r.len()
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if r.bo.Uint64(r.data[m*24:]) < addr {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// loadRelocs indexes the dynamic relocations (.rela.dyn, .rela.plt,
// .relr.dyn) of a 64-bit object by offset: long sorted runs of RELA
// entries are searched where they lie (mapped, or read once), the rest is
// decoded into one sorted slice of 24-byte entries.
func (b *libBodies) loadRelocs() {
	if b.o.class != elf.ELFCLASS64 {
		return
	}
	bo := b.o.order
	// Short runs are copied: counted first, so the slice is made once.
	var short []relaRun
	count := 0
	for _, sec := range b.f.Sections {
		if sec.Flags&elf.SHF_ALLOC == 0 || sec.Offset > uint64(b.size) || sec.Size > uint64(b.size)-sec.Offset {
			continue
		}
		switch sec.Type {
		case elf.SHT_RELA:
			data, err := sectionBytes(b.r, b.size, sec, 0, sec.Size/24*24)
			if err != nil {
				continue
			}
			n := len(data) / 24
			for i := 0; i < n; {
				j := i + 1
				for j < n && bo.Uint64(data[j*24:]) >= bo.Uint64(data[(j-1)*24:]) {
					j++
				}
				run := relaRun{data: data[i*24 : j*24], bo: bo}
				if j-i >= inPlaceRun {
					b.runs = append(b.runs, run)
				} else {
					short = append(short, run)
					count += run.len()
				}
				i = j
			}
		case shtRelr:
			b.readRelr(sec, bo)
			b.release(int64(sec.Offset), int64(sec.Size))
		}
	}
	b.relocs = slices.Grow(b.relocs, count)
	for _, run := range short {
		for k := range run.len() {
			b.relocs = append(b.relocs, run.at(k))
		}
	}
	// Runs are searched in place, a few pages at a time.
	for _, sec := range b.f.Sections {
		if sec.Type == elf.SHT_RELA && sec.Flags&elf.SHF_ALLOC != 0 {
			b.release(int64(sec.Offset), int64(sec.Size))
		}
	}
	if !slices.IsSortedFunc(b.relocs, cmpRela) {
		radixSort(b.relocs, func(r rela) uint64 { return r.off })
	}
}

func cmpRela(x, y rela) int { return cmp.Compare(x.off, y.off) }

// readRelr decodes SHT_RELR: an even entry is an address, an odd one a
// bitmap of the next 63 words.
func (b *libBodies) readRelr(sec *elf.Section, bo endian) {
	var rel uint32
	switch b.o.machine {
	case elf.EM_X86_64:
		rel = uint32(elf.R_X86_64_RELATIVE)
	case elf.EM_AARCH64:
		rel = uint32(elf.R_AARCH64_RELATIVE)
	default:
		return
	}
	data, err := sectionBytes(b.r, b.size, sec, 0, sec.Size/8*8) // where they lie when mapped
	if err != nil {
		return
	}
	var where uint64
	for len(b.relocs) < 1<<26 && len(data) >= 8 {
		var v uint64
		v, data = bo.Uint64(data), data[8:]
		if v&1 == 0 {
			b.relocs = append(b.relocs, rela{off: v, info: uint64(rel) | implicitBit})
			where = v + 8
			continue
		}
		for i := uint64(0); v>>1 != 0; i++ {
			v >>= 1
			if v&1 != 0 {
				b.relocs = append(b.relocs, rela{off: where + i*8, info: uint64(rel) | implicitBit})
			}
		}
		where += 63 * 8
	}
}

// relocAt returns the relocation of the slot at addr.
func (b *libBodies) relocAt(addr uint64) (rela, bool) {
	b.relocsOnce.Do(b.loadRelocs)
	for _, run := range b.runs {
		if !run.covers(addr) {
			continue
		}
		if i := run.search(addr); i < run.len() && run.at(i).off == addr {
			return run.at(i), true
		}
	}
	if len(b.relocs) == 0 || addr < b.relocs[0].off || addr > b.relocs[len(b.relocs)-1].off {
		return rela{}, false
	}
	i, found := slices.BinarySearchFunc(b.relocs, addr, func(r rela, a uint64) int { return cmp.Compare(r.off, a) })
	if !found {
		return rela{}, false
	}
	return b.relocs[i], true
}

// relocsIn returns the relocations of slots in [lo, hi), sorted by offset.
func (b *libBodies) relocsIn(lo, hi uint64) []rela {
	b.relocsOnce.Do(b.loadRelocs)
	i, _ := slices.BinarySearchFunc(b.relocs, lo, func(r rela, a uint64) int { return cmp.Compare(r.off, a) })
	j := i
	for j < len(b.relocs) && b.relocs[j].off < hi {
		j++
	}
	out := b.relocs[i:j:j]
	merged := false
	for _, run := range b.runs {
		for k := run.search(lo); k < run.len(); k++ {
			r := run.at(k)
			if r.off >= hi {
				break
			}
			out = append(out, r) // out's capacity ends at j: this copies
			merged = true
		}
	}
	if merged {
		slices.SortStableFunc(out, cmpRela)
	}
	return out
}

// An ehIndex is the binary-search table of .eh_frame_hdr: it gives the start
// of every function with unwind information, local ones included, and
// survives stripping. It is read where it lies: pairs of 32-bit offsets
// from base (the function's start, its FDE), sorted.
type ehIndex struct {
	table []byte
	base  uint64
}

func (e *ehIndex) len() int { return len(e.table) / 8 }

// pc is the start of function i; fde the address of its FDE.
func (e *ehIndex) pc(i int) uint64 {
	return e.base + uint64(int64(int32(binary.LittleEndian.Uint32(e.table[8*i:]))))
}

func (e *ehIndex) fde(i int) uint64 {
	return e.base + uint64(int64(int32(binary.LittleEndian.Uint32(e.table[8*i+4:]))))
}

// DWARF exception-header pointer encodings.
const (
	pePCRel   = 0x10
	peDataRel = 0x30
	peOmit    = 0xff
)

// loadEH reads .eh_frame_hdr when its table uses the usual encoding
// (datarel, sdata4).
func (b *libBodies) loadEH() {
	sec := b.f.Section(".eh_frame_hdr")
	if sec == nil {
		return
	}
	data, err := readTable(b.r, sec, b.size)
	if err != nil || len(data) < 4 || data[0] != 1 || data[3] != peDataRel|0x0b {
		return
	}
	pos := 4
	if _, n, ok := decodePtr(data[pos:], data[1], sec.Addr+uint64(pos), sec.Addr); ok {
		pos += n
	} else {
		return
	}
	count, n, ok := decodePtr(data[pos:], data[2], sec.Addr+uint64(pos), sec.Addr)
	if !ok {
		return
	}
	pos += n
	count = min(count, uint64(len(data)-pos)/8)
	eh := &ehIndex{table: data[pos : pos+int(count)*8], base: sec.Addr}
	for i := 1; i < eh.len(); i++ {
		if eh.pc(i) < eh.pc(i-1) {
			return
		}
	}
	b.eh = eh
}

// funcAt returns the bounds of the function holding addr, from its FDE.
func (b *bodyCtx) funcAt(addr uint64) (start, size uint64, ok bool) {
	b.ehOnce.Do(b.loadEH)
	if b.eh == nil {
		return 0, 0, false
	}
	// The first function starting at or after addr, else the one before.
	i := sort.Search(b.eh.len(), func(i int) bool { return b.eh.pc(i) >= addr })
	if i == b.eh.len() || b.eh.pc(i) != addr {
		i--
	}
	if i < 0 {
		return 0, 0, false
	}
	fde := b.eh.fde(i)
	buf := b.readAt(fde, 40)
	if len(buf) < 16 {
		return 0, 0, false
	}
	length := binary.LittleEndian.Uint32(buf)
	if length == 0 || length == 0xffffffff {
		return 0, 0, false
	}
	ciePtr := binary.LittleEndian.Uint32(buf[4:])
	cieAddr := fde + 4 - uint64(ciePtr)
	enc, ok := b.cieEncoding(cieAddr)
	if !ok {
		return 0, 0, false
	}
	pcBegin, n, ok := decodePtr(buf[8:], enc, fde+8, 0)
	if !ok {
		return 0, 0, false
	}
	pcRange, _, ok := decodePtr(buf[8+n:], enc&0x0f, 0, 0)
	if !ok || addr < pcBegin || addr-pcBegin >= pcRange {
		return 0, 0, false
	}
	return pcBegin, pcRange, true
}

// cieEncoding returns the FDE pointer encoding a CIE declares ('R' in its
// augmentation).
func (b *bodyCtx) cieEncoding(addr uint64) (byte, bool) {
	if enc, ok := b.cie[addr]; ok {
		return enc, enc != peOmit
	}
	if b.cie == nil {
		b.cie = map[uint64]byte{}
	}
	enc := byte(peOmit)
	defer func() { b.cie[addr] = enc }()
	buf := b.readAt(addr, 128)
	if len(buf) < 10 || binary.LittleEndian.Uint32(buf[4:]) != 0 {
		return 0, false
	}
	version := buf[8]
	p := 9
	augEnd := p
	for augEnd < len(buf) && buf[augEnd] != 0 {
		augEnd++
	}
	if augEnd == len(buf) {
		return 0, false
	}
	aug := string(buf[p:augEnd])
	p = augEnd + 1
	var ok bool
	if _, p, ok = uleb(buf, p); !ok { // code alignment
		return 0, false
	}
	if _, p, ok = uleb(buf, p); !ok { // data alignment (SLEB, same length)
		return 0, false
	}
	if version == 1 {
		p++
	} else if _, p, ok = uleb(buf, p); !ok {
		return 0, false
	}
	if aug == "" || aug[0] != 'z' {
		enc = 0 // absptr
		return enc, true
	}
	if _, p, ok = uleb(buf, p); !ok { // augmentation length
		return 0, false
	}
	for _, c := range aug[1:] {
		if p >= len(buf) {
			return 0, false
		}
		switch c {
		case 'R':
			enc = buf[p]
			return enc, enc != peOmit
		case 'L':
			p++
		case 'P':
			penc := buf[p]
			_, n, ok := decodePtr(buf[p+1:], penc, 0, 0)
			if !ok {
				return 0, false
			}
			p += 1 + n
		case 'S', 'B', 'G':
		default:
			return 0, false
		}
	}
	enc = 0
	return enc, true
}

// readAt returns up to n bytes at address addr from the section holding
// it, where they lie when the object is mapped: not to be changed.
func (b *libBodies) readAt(addr uint64, n int) []byte {
	sec := b.sectionAt(addr)
	if sec == nil || sec.Type == elf.SHT_NOBITS {
		return nil
	}
	off := addr - sec.Addr
	buf, err := sectionBytes(b.r, b.size, sec, off, min(uint64(n), sec.Size-off))
	if err != nil {
		return nil
	}
	return buf
}

// decodePtr decodes a DWARF exception-header pointer with encoding enc
// located at address pc; dataRel is the base of datarel values.
func decodePtr(b []byte, enc byte, pc, dataRel uint64) (uint64, int, bool) {
	if enc == peOmit {
		return 0, 0, false
	}
	var v uint64
	var n int
	switch enc & 0x0f {
	case 0x00, 0x04, 0x0c:
		if len(b) < 8 {
			return 0, 0, false
		}
		v, n = binary.LittleEndian.Uint64(b), 8
	case 0x01, 0x09:
		var ok bool
		var end int
		if v, end, ok = uleb(b, 0); !ok {
			return 0, 0, false
		}
		n = end
		if enc&0x0f == 0x09 && n < 10 && v&(1<<(7*n-1)) != 0 {
			v |= ^uint64(0) << (7 * n) // sign-extend SLEB128
		}
	case 0x02:
		if len(b) < 2 {
			return 0, 0, false
		}
		v, n = uint64(binary.LittleEndian.Uint16(b)), 2
	case 0x0a:
		if len(b) < 2 {
			return 0, 0, false
		}
		v, n = uint64(int64(int16(binary.LittleEndian.Uint16(b)))), 2
	case 0x03:
		if len(b) < 4 {
			return 0, 0, false
		}
		v, n = uint64(binary.LittleEndian.Uint32(b)), 4
	case 0x0b:
		if len(b) < 4 {
			return 0, 0, false
		}
		v, n = uint64(int64(int32(binary.LittleEndian.Uint32(b)))), 4
	default:
		return 0, 0, false
	}
	switch enc & 0x70 {
	case 0:
	case pePCRel:
		v += pc
	case peDataRel:
		v += dataRel
	default:
		return 0, 0, false
	}
	return v, n, true
}

// uleb reads an unsigned LEB128 at b[p:] and returns it and the position
// after it.
func uleb(b []byte, p int) (uint64, int, bool) {
	var v uint64
	for shift := 0; p < len(b) && shift < 64; shift += 7 {
		c := b[p]
		p++
		v |= uint64(c&0x7f) << shift
		if c&0x80 == 0 {
			return v, p, true
		}
	}
	return 0, p, false
}
