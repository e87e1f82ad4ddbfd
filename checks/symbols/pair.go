package symbols

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"maps"
)

// A pairer shows copies of a symbol alike without hashing them: it walks
// two bodies in lockstep and compares them field by field, as normalising
// would see them. It answers "alike" only when hashCode or hashData would
// give both one hash (the same normalised bytes and the same tokens); any
// other answer means "not shown", and the caller hashes them as before. So
// it saves work without changing a verdict: copies that differ (a few in a
// hundred on real libraries) are hashed, the rest are not.
//
// Lockstep is sound because an x86-64 instruction's length and the place of
// its PC-relative field never depend on the field's value
// (TestDecodeIgnoresDisplacements): bytes equal outside the first copy's
// fields decode into the same instructions in both copies.
type pairer struct {
	// locals remembers the local callees compared, by their entry
	// addresses in the two libraries.
	locals map[localPair]bool
}

// A localPair is a local function entry in each of two libraries.
type localPair struct {
	a, b   *bodyCtx
	ta, tb uint64
}

// alike reports whether symbols sa of a and sb of b were shown to
// normalise alike. A panic (a fault on a mapping) is "not shown": hashing
// them again reports it.
func (p *pairer) alike(a *bodyCtx, sa *symbol, b *bodyCtx, sb *symbol) (same bool) {
	defer func() {
		if recover() != nil {
			same = false
		}
	}()
	if sa.size != sb.size || int(sa.shndx) >= len(a.f.Sections) || int(sb.shndx) >= len(b.f.Sections) ||
		a.o.class != elf.ELFCLASS64 || b.o.class != elf.ELFCLASS64 {
		return false
	}
	secA, secB := a.f.Sections[sa.shndx], b.f.Sections[sb.shndx]
	isCode := func(s *symbol, sec *elf.Section) bool {
		return (s.typ() == elf.STT_FUNC || s.typ() == elf.STT_GNU_IFUNC) && sec.Flags&elf.SHF_EXECINSTR != 0
	}
	code := isCode(sa, secA)
	if code != isCode(sb, secB) {
		return false
	}
	rawA, _, err := a.read(sa)
	if err != nil {
		return false
	}
	rawB, _, err := b.read(sb)
	if err != nil || len(rawA) != len(rawB) {
		return false
	}
	if !code {
		return p.sameData(a, sa.value, rawA, b, sb.value, rawB)
	}
	// Text relocations would be normalised too: those few are hashed.
	if a.o.machine != elf.EM_X86_64 || b.o.machine != elf.EM_X86_64 || a.o.textrel || b.o.textrel {
		return false
	}
	return p.sameCode(a, sa.value, rawA, b, sb.value, rawB, 0)
}

// sameCode walks the x86-64 functions x (at address sx in a) and y (at sy
// in b), of equal length, as hashCode does at depth: the bytes outside
// PC-relative fields must be equal and each field's target must have the
// same token on both sides.
func (p *pairer) sameCode(a *bodyCtx, sx uint64, x []byte, b *bodyCtx, sy uint64, y []byte, depth int) bool {
	last := 0 // x and y are equal before last
	for off := 0; off < len(x); {
		n, pcrel, pcrelOff, load, ok := decodeX86(x[off:])
		if !ok {
			off++
			continue
		}
		if pcrel > 0 {
			f := off + pcrelOff
			if !bytes.Equal(x[last:f], y[last:f]) {
				return false
			}
			last = f + pcrel
			next := uint64(off + n)
			if !p.sameTarget(a, sx, sx+next+uint64(displacement(x[f:], pcrel)), b, sy, sy+next+uint64(displacement(y[f:], pcrel)),
				uint64(len(x)), depth, load, true) {
				return false
			}
		}
		off += n
	}
	return bytes.Equal(x[last:], y[last:])
}

// displacement reads a PC-relative field of size n (1, 2 or 4; 0 for
// another size).
func displacement(field []byte, n int) int64 {
	switch n {
	case 1:
		return int64(int8(field[0]))
	case 2:
		return int64(int16(binary.LittleEndian.Uint16(field)))
	case 4:
		return int64(int32(binary.LittleEndian.Uint32(field)))
	}
	return 0
}

// sameTarget reports whether target tx, met in the body at lx in a, and ty,
// met in the body at ly in b (both bodies size bytes), have one token.
func (p *pairer) sameTarget(a *bodyCtx, lx, tx uint64, b *bodyCtx, ly, ty, size uint64, depth, load int, viaReloc bool) bool {
	inX, inY := tx >= lx && tx-lx < size, ty >= ly && ty-ly < size
	if inX || inY {
		return inX && inY && tx-lx == ty-ly // self+N
	}
	tokX, localX := a.shallowTarget(tx, depth, load, viaReloc)
	tokY, localY := b.shallowTarget(ty, depth, load, viaReloc)
	if !localX && !localY {
		return tokX == tokY
	}
	if localX && localY && p.sameLocal(a, tx, b, ty) {
		return true
	}
	return a.target(tx, lx, lx+size, depth, load, viaReloc) == b.target(ty, ly, ly+size, depth, load, viaReloc)
}

// forget drops what p remembers of b's local functions.
func (p *pairer) forget(b *bodyCtx) {
	maps.DeleteFunc(p.locals, func(k localPair, _ bool) bool { return k.a == b || k.b == b })
}

// sameLocal reports whether the local functions around tx in a and ty in b
// were shown to hash alike at depth 1, with tx and ty at one offset in
// them: then their tokens are equal.
func (p *pairer) sameLocal(a *bodyCtx, tx uint64, b *bodyCtx, ty uint64) bool {
	k := localPair{a, b, tx, ty}
	if same, ok := p.locals[k]; ok {
		return same
	}
	same := false
	if sx, x, ok := a.localFunc(tx); ok {
		if sy, y, ok := b.localFunc(ty); ok && len(x) == len(y) && tx-sx == ty-sy {
			same = p.sameCode(a, sx, x, b, sy, y, 1)
		}
	}
	if p.locals == nil {
		p.locals = map[localPair]bool{}
	}
	p.locals[k] = same
	return same
}

// sameData compares data x (at address sx in a) and y (at sy in b), of
// equal length, as hashData does: the bytes outside relocated slots must
// be equal and each slot's relocation must have the same token.
func (p *pairer) sameData(a *bodyCtx, sx uint64, x []byte, b *bodyCtx, sy uint64, y []byte) bool {
	size := uint64(len(x))
	rx, ry := a.relocsIn(sx, sx+size), b.relocsIn(sy, sy+size)
	if len(rx) != len(ry) {
		return false
	}
	last := uint64(0)
	for i := range rx {
		off := rx[i].off - sx
		// Slots that overlap are cleared in turn by hashData: hashed.
		if off != ry[i].off-sy || off < last {
			return false
		}
		width, widthY := a.slotSize(rx[i].typ()), b.slotSize(ry[i].typ())
		if width != widthY {
			return false
		}
		width = min(width, size-off)
		if !bytes.Equal(x[last:off], y[last:off]) {
			return false
		}
		last = off + width
		addX, addY := rx[i].addend, ry[i].addend
		if rx[i].implicit() && width == 8 {
			addX = int64(binary.LittleEndian.Uint64(x[off:]))
		}
		if ry[i].implicit() && width == 8 {
			addY = int64(binary.LittleEndian.Uint64(y[off:]))
		}
		if rx[i].sym() == 0 && ry[i].sym() == 0 && a.isRelative(rx[i].typ()) && b.isRelative(ry[i].typ()) {
			// relocToken's "rel:" or "addr:" token is a function of the
			// target's token.
			if !p.sameTarget(a, sx, uint64(addX), b, sy, uint64(addY), size, 0, 0, false) {
				return false
			}
			continue
		}
		if a.relocToken("", rx[i], addX, sx, sx+size, 0) != b.relocToken("", ry[i], addY, sy, sy+size, 0) {
			return false
		}
	}
	return bytes.Equal(x[last:], y[last:])
}
