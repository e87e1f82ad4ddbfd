package symbols

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"debug/elf"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/pinbot-dev/pinbot/internal/x86len"
	"golang.org/x/arch/x86/x86asm"
)

// errUnsupported marks bodies this scanner cannot normalise.
var errUnsupported = errors.New("unsupported machine")

// A libBodies reads the bodies of one object, for every goroutine that
// compares them: the tables it needs (sections, relocations, symbol
// addresses, unwind table) are loaded once, on first use, and then only
// read.
type libBodies struct {
	o        *object
	size     int64
	r        readerAt
	f        *elf.File
	borrowed bool           // r is closed by its owner, not by close
	secs     []*elf.Section // allocated sections sorted by address

	relocsOnce sync.Once
	relocs     []rela    // relocations not in runs, sorted by offset
	runs       []relaRun // long sorted runs of RELA entries, in place
	addrsOnce  sync.Once
	addrs      []symAddr // defined symbols sorted by address, then name
	ehOnce     sync.Once
	eh         *ehIndex
}

// A bodyCtx normalises bodies of one object for one goroutine: the
// shared libBodies, and the caches and buffers of that goroutine.
type bodyCtx struct {
	*libBodies
	tokens  map[uint64]string       // local-function tokens by address
	targets map[uint64]shallowToken // by packTarget
	scratch []byte                  // the copy of a body being normalised
	local   []byte                  // the copy of a local function being hashed
	toks    [2][]byte               // token buffers of hashCode by depth, reused
	hasher  hash.Hash
	cie     map[uint64]byte // FDE pointer encodings by CIE address
}

// view returns a new bodyCtx over l, with caches of its own.
func (l *libBodies) view() *bodyCtx { return &bodyCtx{libBodies: l} }

// digest hashes a normalised body: its bytes, then its tokens.
func (b *bodyCtx) digest(code, toks []byte) [32]byte {
	if b.hasher == nil {
		b.hasher = sha256.New()
	}
	b.hasher.Reset()
	b.hasher.Write(code)
	b.hasher.Write(toks)
	var sum [32]byte
	b.hasher.Sum(sum[:0])
	return sum
}

// open opens the object src holds (parsed as o) for reading bodies.
// When op is not nil, the object is read through it (kept open since it
// was parsed; its owner closes it), else opened again.
func openBodies(o *object, src *source, op *opened) (b *libBodies, err error) {
	b = &libBodies{o: o, size: src.size}
	if op != nil {
		b.r, b.f, b.size, b.borrowed = op.r, op.f, op.size, true
	}
	return b, b.open(src)
}

func (b *libBodies) open(src *source) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("malformed ELF (reader panicked: %v)", p)
		}
	}()
	if b.r == nil {
		if b.r, err = src.open(); err != nil {
			return err
		}
		if b.f, err = elf.NewFile(b.r); err != nil {
			return fmt.Errorf("malformed ELF: %w", err)
		}
	}
	for _, sec := range b.f.Sections {
		if sec.Flags&elf.SHF_ALLOC != 0 && sec.Flags&elf.SHF_TLS == 0 && sec.Size > 0 {
			b.secs = append(b.secs, sec)
		}
	}
	slices.SortStableFunc(b.secs, func(x, y *elf.Section) int { return cmp.Compare(x.Addr, y.Addr) })
	return nil
}

// release drops the pages of the object's bytes [off, off+n) from the
// process's resident set, when the object is a mapped file: they are
// served again from the page cache if read. Peak memory then counts the
// pages in use, not every page touched.
func (b *libBodies) release(off, n int64) {
	if m, ok := b.r.(interface{ Release(off, n int64) }); ok {
		m.Release(off, n)
	}
}

// tableCost estimates what loading the object's tables (symbol addresses,
// relocations) costs, in classes compared: one per 400 entries, measured
// on Debian's libraries.
func (b *libBodies) tableCost() int {
	n := len(b.o.syms)
	if b.f != nil {
		for _, sec := range b.f.Sections {
			if sec.Type == elf.SHT_RELA && sec.Flags&elf.SHF_ALLOC != 0 {
				n += int(sec.Size / 24)
			}
		}
	}
	return n / 400
}

// loadTables loads the tables normalising reads (symbol addresses,
// relocations, unwind table) now rather than on first use. A fault on the
// mapping leaves them as far as they were loaded, as on first use.
func (b *libBodies) loadTables() {
	defer func() { _ = recover() }()
	b.addrsOnce.Do(b.sortAddrs)
	b.relocsOnce.Do(b.loadRelocs)
	b.ehOnce.Do(b.loadEH)
}

// done drops the tables and releases the pages of an object whose bodies
// are all compared. Tables loaded first (loadTables) may still be loading
// on another worker, when the object's classes needed none of them: done
// waits for that load to end, and lets none start after it.
func (b *libBodies) done() {
	b.addrsOnce.Do(func() {})
	b.relocsOnce.Do(func() {})
	b.ehOnce.Do(func() {})
	b.relocs, b.runs, b.addrs, b.eh = nil, nil, nil, nil
	b.release(0, b.size)
}

func (b *libBodies) close() {
	if b.r != nil && !b.borrowed {
		b.r.Close()
	}
}

// read returns the bytes of sym from its section (zeros for .bss), and the
// section: where they lie when the object is mapped, so they must not be
// changed.
func (b *libBodies) read(sym *symbol) ([]byte, *elf.Section, error) {
	if sym.shndx == uint16(elf.SHN_ABS) {
		var v [8]byte
		binary.LittleEndian.PutUint64(v[:], sym.value)
		return v[:], nil, nil
	}
	if int(sym.shndx) >= len(b.f.Sections) || sym.shndx >= uint16(elf.SHN_LORESERVE) {
		return nil, nil, fmt.Errorf("symbol %s in unknown section %d", sym.name, sym.shndx)
	}
	sec := b.f.Sections[sym.shndx]
	off := sym.value - sec.Addr
	if sym.value < sec.Addr || off > sec.Size || sym.size > sec.Size-off {
		return nil, nil, fmt.Errorf("symbol %s lies outside its section %s", sym.name, sec.Name)
	}
	buf, err := sectionBytes(b.r, b.size, sec, off, sym.size)
	if err != nil {
		return nil, nil, fmt.Errorf("reading %s: %w", sym.name, err)
	}
	return buf, sec, nil
}

// normalise hashes sym's bytes with layout-dependent parts replaced by
// layout-free tokens.
func (b *bodyCtx) normalise(sym *symbol, raw []byte) (string, error) {
	if int(sym.shndx) >= len(b.f.Sections) { // SHN_ABS: the value is all there is
		sum := sha256.Sum256(raw)
		return string(sum[:]), nil
	}
	sec := b.f.Sections[sym.shndx]
	isCode := (sym.typ() == elf.STT_FUNC || sym.typ() == elf.STT_GNU_IFUNC) && sec.Flags&elf.SHF_EXECINSTR != 0
	var sum [32]byte
	if isCode {
		if b.o.machine != elf.EM_X86_64 || b.o.class != elf.ELFCLASS64 {
			return "", fmt.Errorf("%w: %s", errUnsupported, machineName(b.o.machine))
		}
		sum = b.hashCode(sym.value, raw, 0)
	} else {
		if b.o.class != elf.ELFCLASS64 {
			return "", fmt.Errorf("%w: relocations of 32-bit objects", errUnsupported)
		}
		sum = b.hashData(sym.value, raw)
	}
	return string(sum[:]), nil
}

// hashData replaces every slot covered by a dynamic relocation with the
// relocation's type, symbol and addend.
func (b *bodyCtx) hashData(start uint64, data []byte) [32]byte {
	toks := b.relocTokens(start, data, b.toks[0][:0], 0)
	b.toks[0] = toks
	return b.digest(data, toks)
}

// relocTokens clears the relocated slots of data (at address start) and
// appends a token for each.
func (b *bodyCtx) relocTokens(start uint64, data []byte, toks []byte, depth int) []byte {
	end := start + uint64(len(data))
	for _, r := range b.relocsIn(start, end) {
		off := r.off - start
		width := b.slotSize(r.typ())
		if off+width > uint64(len(data)) {
			width = uint64(len(data)) - off
		}
		addend := r.addend
		if r.implicit() && width == 8 {
			addend = int64(binary.LittleEndian.Uint64(data[off:]))
		}
		clear(data[off : off+width])
		toks = strconv.AppendUint(toks, off, 10)
		toks = append(toks, '=')
		toks = append(toks, b.relocToken("", r, addend, start, end, depth)...)
		toks = append(toks, ';')
	}
	return toks
}

// hashCode hashes an x86-64 function at address start: every PC-relative
// displacement is zeroed and a token for its target appended. depth 0 may
// follow calls into local functions (hashing them at depth 1).
func (b *bodyCtx) hashCode(start uint64, code []byte, depth int) [32]byte {
	toks := b.toks[depth][:0]
	if b.o.textrel {
		toks = b.relocTokens(start, code, toks, depth) // at depth 1, no further local function
	}
	for off := 0; off < len(code); {
		n, pcrel, pcrelOff, load, ok := decodeX86(code[off:])
		if !ok {
			off++ // not an instruction: the byte stays as it is
			continue
		}
		if pcrel > 0 {
			p := off + pcrelOff
			target := start + uint64(off+n) + uint64(displacement(code[p:], pcrel))
			clear(code[p : p+pcrel])
			toks = strconv.AppendInt(toks, int64(off), 10)
			toks = append(toks, '>')
			if lo, hi := start, start+uint64(len(code)); target >= lo && target < hi {
				toks = append(toks, "self+"...)
				toks = strconv.AppendUint(toks, target-lo, 10)
			} else {
				toks = append(toks, b.target(target, lo, hi, depth, load, true)...)
			}
			toks = append(toks, ';')
		}
		off += n
	}
	b.toks[depth] = toks
	return b.digest(code, toks)
}

// decodeX86 measures the x86-64 instruction at the start of code: its
// length, its PC-relative field (size and offset, 0 if none) and the bytes
// it reads at the field's target (0 for a branch, an address or no memory
// operand). ok is false where x86asm finds no instruction. The common
// encodings are measured by x86len; the width a RIP-relative operand reads
// is learnt from x86asm once per x86len.Key (memWidths); the rest is
// decoded by x86asm.
func decodeX86(code []byte) (n, pcrel, pcrelOff, load int, ok bool) {
	n, pcrel, pcrelOff, mem, lea, key, ok := x86len.Measure(code)
	switch {
	case !ok:
		return decodeFull(code)
	case !mem || lea:
		return n, pcrel, pcrelOff, 0, true
	}
	if w := memWidths[key].Load(); w > 0 {
		return n, pcrel, pcrelOff, int(w - 1), true
	}
	fn, fpcrel, foff, load, ok := decodeFull(code)
	if ok && fn == n && fpcrel == pcrel && foff == pcrelOff {
		memWidths[key].Store(int32(load + 1))
	}
	return fn, fpcrel, foff, load, ok
}

// memWidths caches, per x86len.Key, 1 + the bytes a RIP-relative operand
// reads (0: not learnt yet).
var memWidths [x86len.NumKeys]atomic.Int32

// decodeFull is decodeX86 by x86asm.
func decodeFull(code []byte) (n, pcrel, pcrelOff, load int, ok bool) {
	inst, err := x86asm.Decode(code, 64)
	if err != nil || inst.Len <= 0 {
		return 0, 0, 0, 0, false
	}
	if inst.PCRel > 0 && inst.PCRelOff >= 0 && inst.PCRelOff+inst.PCRel <= inst.Len {
		pcrel, pcrelOff = inst.PCRel, inst.PCRelOff
		if inst.Op != x86asm.LEA && inst.MemBytes > 0 && hasMemArg(inst) {
			load = inst.MemBytes
		}
	}
	return inst.Len, pcrel, pcrelOff, load, true
}

// target names the address addr without depending on layout:
//
//	self+N       inside the body being hashed [lo, hi)
//	plt:RELOC    a PLT stub, by the relocation of its GOT slot
//	got:RELOC    a relocated slot (GOT entry)
//	sym:NAME+N   inside a defined dynamic symbol (aliases: the first name)
//	local:HASH+N inside a local function (bounds from .eh_frame), at depth 0
//	data:HEX     the load bytes read there, in read-only data
//	str:"..."    a C string in read-only data whose address is taken (a
//	             source path, as __FILE__ gives, by its base name)
//	sect:NAME    anywhere else in section NAME
func (b *bodyCtx) target(addr, lo, hi uint64, depth, load int, viaReloc bool) string {
	if addr >= lo && addr < hi {
		return "self+" + strconv.FormatUint(addr-lo, 10)
	}
	tok, local := b.shallowTarget(addr, depth, load, viaReloc)
	if local {
		if t, ok := b.localToken(addr); ok {
			return t
		}
	}
	return tok
}

// shallowTarget is target for an address outside the body, except that
// a local function is not hashed: local is true where target's token is
// localToken's when the function can be hashed, tok when it cannot.
func (b *bodyCtx) shallowTarget(addr uint64, depth, load int, viaReloc bool) (tok string, local bool) {
	k, packed := packTarget(addr, depth, load, viaReloc)
	if !packed { // never in real objects: not worth a cache
		return b.resolve(addr, depth, load, viaReloc)
	}
	if e, ok := b.targets[k]; ok {
		return e.tok, e.local
	}
	tok, local = b.resolve(addr, depth, load, viaReloc)
	if b.targets == nil {
		b.targets = map[uint64]shallowToken{}
	}
	b.targets[k] = shallowToken{tok, local}
	return tok, local
}

// packTarget packs what a target token depends on besides the body it is
// met in (address, depth, load width, whether a relocation led there) into
// one integer, a cheap map key, when the address fits in 48 bits and the
// width in 13 (always, in real objects).
func packTarget(addr uint64, depth, load int, viaReloc bool) (uint64, bool) {
	if addr >= 1<<48 || load < 0 || load >= 1<<13 || depth < 0 || depth > 1 {
		return 0, false
	}
	k := addr<<16 | uint64(load)<<2 | uint64(depth)<<1
	if viaReloc {
		k |= 1
	}
	return k, true
}

// A shallowToken is a result of shallowTarget.
type shallowToken struct {
	tok   string
	local bool
}

// resolve computes shallowTarget's token; see target.
func (b *bodyCtx) resolve(addr uint64, depth, load int, viaReloc bool) (tok string, local bool) {
	sec := b.sectionAt(addr)
	if sec == nil {
		return "abs", false
	}
	if viaReloc {
		switch sec.Name {
		case ".plt", ".plt.sec", ".plt.got":
			if slot, ok := b.pltSlot(sec, addr); ok {
				if r, ok := b.relocAt(slot); ok {
					return b.relocToken("plt:", r, r.addend, 0, 0, depth), false
				}
			}
			return "plt", false
		}
		if r, ok := b.relocAt(addr); ok {
			addend := r.addend
			if r.implicit() {
				slot := b.readAt(addr, 8)
				if len(slot) < 8 {
					return "got", false
				}
				addend = int64(binary.LittleEndian.Uint64(slot))
			}
			return b.relocToken("got:", r, addend, 0, 0, depth), false
		}
	}
	if name, off, ok := b.symbolAt(addr); ok {
		return "sym:" + name + "+" + strconv.FormatUint(off, 10), false
	}
	if sec.Flags&elf.SHF_EXECINSTR != 0 {
		return "sect:" + sec.Name, depth == 0
	}
	if sec.Flags&elf.SHF_WRITE == 0 && sec.Type == elf.SHT_PROGBITS {
		if load > 0 && load <= 64 {
			if d := b.readAt(addr, load); len(d) == load {
				return "data:" + hex.EncodeToString(d), false
			}
		} else if s, ok := b.cstringAt(sec, addr); ok {
			if looksLikeSourcePath(s) {
				s = path.Base(s)
			}
			return "str:" + strconv.Quote(s), false
		}
	}
	return "sect:" + sec.Name, false
}

// localToken hashes the local function around addr (one level deep).
func (b *bodyCtx) localToken(addr uint64) (string, bool) {
	if tok, ok := b.tokens[addr]; ok {
		return tok, tok != ""
	}
	if b.tokens == nil {
		b.tokens = map[uint64]string{}
	}
	tok := ""
	if start, code, ok := b.localFunc(addr); ok {
		// Hashing clears fields: it works on a copy.
		b.local = append(b.local[:0], code...)
		sum := b.hashCode(start, b.local, 1)
		tok = fmt.Sprintf("local:%x+%d", sum[:8], addr-start)
	}
	b.tokens[addr] = tok
	return tok, tok != ""
}

// localFunc returns the start and the bytes (not to be changed) of the
// local function around addr, when it can be hashed: bounds from its FDE,
// at most 1 MiB, inside a section with contents.
func (b *bodyCtx) localFunc(addr uint64) (start uint64, code []byte, ok bool) {
	start, size, ok := b.funcAt(addr)
	if !ok || size == 0 || size > 1<<20 {
		return 0, nil, false
	}
	sec := b.sectionAt(start)
	if sec == nil || sec.Type == elf.SHT_NOBITS || start+size > sec.Addr+sec.Size {
		return 0, nil, false
	}
	code, err := sectionBytes(b.r, b.size, sec, start-sec.Addr, size)
	if err != nil {
		return 0, nil, false
	}
	return start, code, true
}

// relocToken names a relocation by type, symbol and addend; a relative
// relocation by the target its addend resolves to. The name follows
// prefix (made in one piece).
func (b *bodyCtx) relocToken(prefix string, r rela, addend int64, lo, hi uint64, depth int) string {
	typ := r.typ()
	si := r.sym()
	if si == 0 {
		if b.isRelative(typ) {
			t := b.target(uint64(addend), lo, hi, depth, 0, false)
			if sym, ok := strings.CutPrefix(t, "sym:"); ok {
				return prefix + "addr:" + sym // as if bound by name
			}
			return prefix + "rel:" + t
		}
		return prefix + "t" + strconv.FormatUint(uint64(typ), 10) + ":+" + strconv.FormatInt(addend, 10)
	}
	// The symbol's version is left out: clashes pair versioned with
	// unversioned definitions, and their relocations differ the same way.
	name := "?"
	if int(si) < len(b.o.syms) {
		name = b.o.syms[si].name
	}
	if b.isAddress(typ) { // the same through the PLT, the GOT or a data slot
		return prefix + "addr:" + name + "+" + strconv.FormatInt(addend, 10)
	}
	return prefix + "t" + strconv.FormatUint(uint64(typ), 10) + ":" + name + "+" + strconv.FormatInt(addend, 10)
}

// isAddress reports whether typ stores the address of its symbol
// (R_X86_64_64, GLOB_DAT, JUMP_SLOT and their AArch64 peers).
func (b *libBodies) isAddress(typ uint32) bool {
	switch b.o.machine {
	case elf.EM_X86_64:
		switch elf.R_X86_64(typ) {
		case elf.R_X86_64_64, elf.R_X86_64_GLOB_DAT, elf.R_X86_64_JMP_SLOT:
			return true
		}
	case elf.EM_AARCH64:
		switch elf.R_AARCH64(typ) {
		case elf.R_AARCH64_ABS64, elf.R_AARCH64_GLOB_DAT, elf.R_AARCH64_JUMP_SLOT:
			return true
		}
	}
	return false
}

// isRelative reports whether typ is the machine's RELATIVE or IRELATIVE
// relocation.
func (b *libBodies) isRelative(typ uint32) bool {
	switch b.o.machine {
	case elf.EM_X86_64:
		return typ == uint32(elf.R_X86_64_RELATIVE) || typ == uint32(elf.R_X86_64_IRELATIVE)
	case elf.EM_AARCH64:
		return typ == uint32(elf.R_AARCH64_RELATIVE) || typ == uint32(elf.R_AARCH64_IRELATIVE)
	}
	return false
}

// slotSize is the width a relocation of type typ writes.
func (b *libBodies) slotSize(typ uint32) uint64 {
	if b.o.machine == elf.EM_X86_64 {
		switch elf.R_X86_64(typ) {
		case elf.R_X86_64_32, elf.R_X86_64_32S, elf.R_X86_64_PC32, elf.R_X86_64_DTPOFF32, elf.R_X86_64_TPOFF32:
			return 4
		}
	}
	return 8
}

// pltSlot decodes the PLT stub at addr and returns the GOT slot its
// indirect jump goes through.
func (b *libBodies) pltSlot(sec *elf.Section, addr uint64) (uint64, bool) {
	off := addr - sec.Addr
	n := min(uint64(16), sec.Size-off)
	code, err := sectionBytes(b.r, b.size, sec, off, n)
	if err != nil {
		return 0, false
	}
	// The usual stub starts with jmp *disp32(%rip), as x86asm decodes it.
	if len(code) >= 6 && code[0] == 0xff && code[1] == 0x25 {
		return addr + 6 + uint64(int64(int32(binary.LittleEndian.Uint32(code[2:])))), true
	}
	return pltJump(code, addr)
}

// pltJump decodes the PLT stub code (at addr) with x86asm and returns the
// GOT slot its indirect jump goes through.
func pltJump(code []byte, addr uint64) (uint64, bool) {
	for pos, i := 0, 0; pos < len(code) && i < 3; i++ {
		inst, err := x86asm.Decode(code[pos:], 64)
		if err != nil || inst.Len <= 0 {
			return 0, false
		}
		if inst.Op == x86asm.JMP && inst.PCRel == 4 && inst.Len >= inst.PCRelOff+4 {
			if _, isMem := inst.Args[0].(x86asm.Mem); isMem {
				disp := int64(int32(binary.LittleEndian.Uint32(code[pos+inst.PCRelOff:])))
				return addr + uint64(pos+inst.Len) + uint64(disp), true
			}
		}
		pos += inst.Len
	}
	return 0, false
}

// sectionAt returns the allocated section holding addr.
func (b *libBodies) sectionAt(addr uint64) *elf.Section {
	i, _ := slices.BinarySearchFunc(b.secs, addr, func(s *elf.Section, a uint64) int {
		if s.Addr > a {
			return 1
		}
		return -1
	})
	for j := i - 1; j >= 0 && j >= i-2; j-- {
		if s := b.secs[j]; addr >= s.Addr && addr < s.Addr+s.Size {
			return s
		}
	}
	return nil
}

// cstringAt returns the printable ASCII NUL-terminated string at addr, if
// any, of 2 to 255 bytes.
func (b *libBodies) cstringAt(sec *elf.Section, addr uint64) (string, bool) {
	off := addr - sec.Addr
	n := min(uint64(256), sec.Size-off)
	buf, err := sectionBytes(b.r, b.size, sec, off, n)
	if err != nil {
		return "", false
	}
	end := bytes.IndexByte(buf, 0)
	if end < 2 {
		return "", false // no string, or too short to tell from table bytes
	}
	for _, c := range buf[:end] {
		if (c < 0x20 || c >= 0x7f) && c != '\t' && c != '\n' && c != '\r' && c != 0x1b {
			return "", false // not text: a jump table or constants
		}
	}
	return string(buf[:end]), true
}

// symbolAt returns the defined dynamic symbol holding addr and the offset
// in it. Of aliases at one address, the first name in byte order wins, so
// the choice does not depend on table order.
func (b *libBodies) symbolAt(addr uint64) (string, uint64, bool) {
	b.addrsOnce.Do(b.sortAddrs)
	// First symbol with value > addr; candidates are before it.
	i, _ := slices.BinarySearchFunc(b.addrs, addr, func(x symAddr, a uint64) int {
		if x.value > a {
			return 1
		}
		return -1
	})
	if i == 0 {
		return "", 0, false
	}
	v := b.addrs[i-1].value
	j := i - 1
	for j > 0 && b.addrs[j-1].value == v {
		j--
	}
	// Of the aliases holding addr, the first name in byte order.
	var best *symbol
	for ; j < i; j++ {
		s := &b.o.syms[b.addrs[j].sym]
		if addr < s.value+max(s.size, 1) && (best == nil || s.name < best.name) {
			best = s
		}
	}
	if best == nil {
		return "", 0, false
	}
	return best.name, addr - best.value, true
}

// sortAddrs sorts the defined symbols by address, for symbolAt.
func (b *libBodies) sortAddrs() {
	syms := b.o.syms
	b.addrs = make([]symAddr, 0, len(syms))
	for i := range syms {
		s := &syms[i]
		if s.shndx != uint16(elf.SHN_UNDEF) && s.shndx < uint16(elf.SHN_LORESERVE) && s.name != "" &&
			s.typ() != elf.STT_TLS && s.typ() != elf.STT_SECTION && s.typ() != elf.STT_FILE {
			b.addrs = append(b.addrs, symAddr{s.value, int32(i)})
		}
	}
	// By value; symbolAt chooses among aliases.
	sortByValue(b.addrs)
}

// A symAddr is a defined symbol's value and index, for symbolAt.
type symAddr struct {
	value uint64
	sym   int32
}

// sortByValue sorts a by value, stably (radixSort).
func sortByValue(a []symAddr) {
	radixSort(a, func(e symAddr) uint64 { return e.value })
}

// radixSort sorts a by key, stably: a least-significant-digit radix sort,
// radixBits of the key a pass, skipping the digits all entries share (the
// high ones, in a library's addresses). One pass counts every digit; each
// pass that moves entries moves them between a and one buffer, back and
// forth, so that a is copied at most once more at the end. libLLVM's
// 44,000 defined symbols (27-bit addresses: four passes) are sorted in
// about a millisecond.
func radixSort[T any](a []T, key func(T) uint64) {
	if len(a) < 2 {
		return
	}
	var count [64 / radixBits][1 << radixBits]int // 16 KB, on the stack
	for _, e := range a {
		k := key(e)
		for d := range count {
			count[d][k>>(radixBits*d)&(1<<radixBits-1)]++
		}
	}
	first := key(a[0])
	src := a
	var dst []T
	for d := range count {
		shift := radixBits * d
		c := &count[d]
		if c[first>>shift&(1<<radixBits-1)] == len(a) {
			continue // one digit for all: nothing to move
		}
		pos := 0
		for v, n := range c {
			c[v] = pos
			pos += n
		}
		if dst == nil {
			dst = make([]T, len(a))
		}
		for _, e := range src {
			v := key(e) >> shift & (1<<radixBits - 1)
			dst[c[v]] = e
			c[v]++
		}
		src, dst = dst, src
	}
	if &src[0] != &a[0] {
		copy(a, src)
	}
}

// radixBits is the width of radixSort's digit: the counters of all eight
// digits fit on the stack (wider digits need fewer passes, but their
// counters, allocated and cleared on every call, cost more than the
// passes they save on all but the largest tables).
const radixBits = 8

// hasMemArg reports whether inst has a memory operand (rather than a
// PC-relative branch target).
func hasMemArg(inst x86asm.Inst) bool {
	for _, a := range inst.Args {
		if a == nil {
			break
		}
		if _, ok := a.(x86asm.Mem); ok {
			return true
		}
	}
	return false
}

// looksLikeSourcePath reports whether s is a source file path, as __FILE__
// expands to: build trees differ ("../src/x.h", "./x.h"), the file does not.
func looksLikeSourcePath(s string) bool {
	if !strings.Contains(s, "/") || strings.ContainsAny(s, " \t\n%") {
		return false
	}
	switch path.Ext(s) {
	case ".c", ".cc", ".cpp", ".cxx", ".h", ".hh", ".hpp", ".hxx", ".inc", ".inl", ".ipp", ".tcc":
		return true
	}
	return false
}
