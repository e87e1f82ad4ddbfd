// Package x86len measures x86-64 instructions quickly: their length and
// where their PC-relative field lies (a branch displacement or a
// RIP-relative memory operand), for the general-purpose and common SSE
// encodings compilers emit.
//
// It exists because a full decode (golang.org/x/arch/x86/x86asm) builds
// every operand and costs about ten times as much, while normalising a
// function body for comparison needs only the instruction boundaries and
// the PC-relative fields. Decode answers ok only for encodings it knows;
// for anything else (VEX and EVEX, x87, system instructions, rare forms)
// it answers false and the caller decodes fully. Where it answers, it
// agrees with x86asm.Decode(b, 64): FuzzAgree and the test over the code
// of real libraries check it.
package x86len

// Inst is what Decode finds out about one instruction.
type Inst struct {
	// Len is the instruction's length in bytes.
	Len int
	// PCRel is the size of the PC-relative field (1, 2 or 4), 0 if none;
	// PCRelOff is its offset in the instruction.
	PCRel, PCRelOff int
	// Mem reports that the PC-relative field is a RIP-relative memory
	// operand rather than a branch displacement.
	Mem bool
	// LEA reports that the instruction is LEA (it reads no memory).
	LEA bool
	// Key, for an instruction with a memory operand, identifies what
	// decides the operand's width: the opcode map and opcode, the
	// mandatory-prefix class, REX.W and ModRM.reg. Two such instructions
	// with one Key read as many bytes (TestKeyDecidesWidth): a caller can
	// learn the width of a Key from one full decode and reuse it.
	Key uint16
}

// NumKeys bounds Inst.Key.
const NumKeys = 1 << 15

// Operand flags of an opcode.
const (
	fModRM    = 1 << iota // a ModRM byte follows
	fImm8                 // an 8-bit immediate
	fImm16                // a 16-bit immediate
	fImmZ                 // a 16- or 32-bit immediate (operand size)
	fRel8                 // an 8-bit branch displacement
	fRel32                // a 32-bit branch displacement
	fImmV                 // a 16-, 32- or 64-bit immediate (MOV r, imm)
	fGroup                // depends on ModRM.reg: see group
	fNone     = 0
	fUnknown  = 0xffff // not handled: the caller decodes fully
	fPrefix   = 0xfffe // a legacy prefix
	fEscape   = 0xfffd // 0F: the two-byte map
	fREX      = 0xfffc // a REX prefix
	maxLength = 15
)

// one and two are the flags of the one-byte and 0F opcode maps.
var one, two [256]uint16

func init() {
	for i := range one {
		one[i], two[i] = fUnknown, fUnknown
	}
	set := func(t *[256]uint16, f uint16, ops ...int) {
		for _, op := range ops {
			t[op] = f
		}
	}
	// ALU: op r/m,r; op r,r/m; op al,ib; op eax,iz.
	for base := 0x00; base <= 0x38; base += 8 {
		set(&one, fModRM, base, base+1, base+2, base+3)
		set(&one, fImm8, base+4)
		set(&one, fImmZ, base+5)
	}
	set(&one, fPrefix, 0x26, 0x2e, 0x36, 0x3e, 0x64, 0x65, 0x66, 0x67, 0xf0, 0xf2, 0xf3)
	one[0x0f] = fEscape
	for op := 0x40; op <= 0x4f; op++ {
		one[op] = fREX
	}
	for op := 0x50; op <= 0x5f; op++ {
		one[op] = fNone
	}
	set(&one, fModRM, 0x63, 0x84, 0x85, 0x86, 0x87, 0x88, 0x89, 0x8a, 0x8b, 0x8d)
	set(&one, fModRM|fGroup, 0xd0, 0xd1, 0xd2, 0xd3)
	set(&one, fImmZ, 0x68, 0xa9)
	set(&one, fModRM|fImmZ, 0x69, 0x81)
	set(&one, fImm8, 0x6a, 0xa8, 0xcd)
	set(&one, fModRM|fImm8, 0x6b, 0x80, 0x83)
	set(&one, fModRM|fImm8|fGroup, 0xc0, 0xc1)
	for op := 0x70; op <= 0x7f; op++ {
		one[op] = fRel8
	}
	set(&one, fRel8, 0xeb)
	set(&one, fRel32, 0xe8, 0xe9)
	for op := 0x90; op <= 0x99; op++ {
		one[op] = fNone
	}
	set(&one, fNone, 0x9b, 0x9c, 0x9d, 0x9e, 0x9f, 0xa4, 0xa5, 0xa6, 0xa7, 0xaa, 0xab, 0xac, 0xad, 0xae, 0xaf,
		0xc3, 0xc9, 0xcc, 0xf4, 0xf5, 0xf8, 0xf9, 0xfa, 0xfb, 0xfc, 0xfd)
	for op := 0xb0; op <= 0xb7; op++ {
		one[op] = fImm8
	}
	for op := 0xb8; op <= 0xbf; op++ {
		one[op] = fImmV
	}
	set(&one, fImm16, 0xc2)
	set(&one, fModRM|fGroup, 0xc6, 0xc7, 0xf6, 0xf7, 0xfe, 0xff, 0x8f)

	// The 0F map: the operands of every opcode whose length depends only
	// on them; twoValid says with which prefixes and forms x86asm accepts
	// it.
	set(&two, fNone, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0b, 0x30, 0x31, 0x32, 0x33, 0x34, 0x35, 0x37, 0x77, 0xa0, 0xa1,
		0xa2, 0xa8, 0xa9, 0xaa)
	for op := 0x10; op <= 0xff; op++ {
		switch {
		case op >= 0x80 && op <= 0x8f:
			two[op] = fRel32
		case op >= 0xc8 && op <= 0xcf:
			two[op] = fNone // bswap
		case op == 0x70 || op == 0x71 || op == 0x72 || op == 0x73 || op == 0xa4 || op == 0xac || op == 0xba ||
			op == 0xc2 || op == 0xc4 || op == 0xc5 || op == 0xc6:
			two[op] = fModRM | fImm8
		case op >= 0x10 && op <= 0x1f, op >= 0x28 && op <= 0x2f, op >= 0x40 && op <= 0x76, op >= 0x7c && op <= 0x7f,
			op >= 0x90 && op <= 0x9f, op == 0xa3, op == 0xa5, op == 0xab, op == 0xad, op >= 0xaf && op <= 0xc1,
			op == 0xc3, op == 0xc7, op >= 0xd0:
			two[op] = fModRM
		}
	}
}

// Prefix classes of a 0F-map instruction: none, 66, F3 or F2 (the
// mandatory prefixes of SSE).
const (
	pNone = iota
	p66
	pF3
	pF2
)

// Decode measures the instruction at the start of b. ok is false when the
// encoding is not one it handles (or b is too short): decode it fully.
func Decode(b []byte) (inst Inst, ok bool) {
	n, pcrel, pcrelOff, mem, lea, key, ok := Measure(b)
	if !ok {
		return Inst{}, false
	}
	return Inst{Len: n, PCRel: pcrel, PCRelOff: pcrelOff, Mem: mem, LEA: lea, Key: key}, true
}

// Measure is Decode with the fields of Inst as results. A caller that
// measures every instruction of a library keeps them in registers: the
// compiler passes a struct of more than four fields through memory, a
// store and reload of each result that cost a few percent of a symbol
// scan.
func Measure(b []byte) (n, pcrel, pcrelOff int, mem, lea bool, key uint16, ok bool) {
	pos := 0
	opsize16, addr32, rexW := false, false, false
	class, mandatory := pNone, 0
	var flags uint16
	for {
		if pos >= len(b) || pos >= maxLength {
			return 0, 0, 0, false, false, 0, false
		}
		flags = one[b[pos]]
		if flags == fPrefix {
			switch b[pos] {
			case 0x66:
				opsize16 = true
				class = p66
				mandatory++
			case 0xf3:
				class = pF3
				mandatory++
			case 0xf2:
				class = pF2
				mandatory++
			case 0x67:
				addr32 = true
			}
			pos++
			continue
		}
		break
	}
	if flags == fREX {
		rexW = b[pos]&8 != 0
		pos++
		if pos >= len(b) {
			return 0, 0, 0, false, false, 0, false
		}
		flags = one[b[pos]]
		if flags == fPrefix || flags == fREX {
			return 0, 0, 0, false, false, 0, false // a REX prefix not right before the opcode
		}
	}
	op := b[pos]
	escaped := false
	var reg byte
	if flags == fEscape {
		pos++
		if pos >= len(b) {
			return 0, 0, 0, false, false, 0, false
		}
		op = b[pos]
		flags = two[op]
		escaped = true
		if mandatory > 1 || pos+1 >= len(b) {
			return 0, 0, 0, false, false, 0, false
		}
		form := 1 // memory
		if flags&fModRM != 0 {
			if b[pos+1]>>6 == 3 {
				form = 0
			}
			reg = b[pos+1] >> 3 & 7
		}
		w := 0
		if rexW {
			w = 1
		}
		if twoValid[w][op]&(1<<((class*2+form)*8+int(reg))) == 0 {
			return 0, 0, 0, false, false, 0, false
		}
	}
	if flags == fUnknown {
		return 0, 0, 0, false, false, 0, false
	}
	pos++ // past the opcode
	lea = !escaped && op == 0x8d
	if flags&fModRM != 0 {
		if pos >= len(b) {
			return 0, 0, 0, false, false, 0, false
		}
		modrm := b[pos]
		var mod, rm byte
		mod, reg, rm = modrm>>6, (modrm>>3)&7, modrm&7
		if flags&fGroup != 0 {
			switch op {
			case 0xc0, 0xc1, 0xd0, 0xd1, 0xd2, 0xd3:
				if reg == 6 { // the undocumented SAL alias
					return 0, 0, 0, false, false, 0, false
				}
			case 0xc6:
				if reg != 0 {
					return 0, 0, 0, false, false, 0, false
				}
				flags |= fImm8
			case 0xc7:
				if reg != 0 {
					return 0, 0, 0, false, false, 0, false
				}
				flags |= fImmZ
			case 0xf6, 0xf7:
				switch {
				case reg == 1: // the undocumented TEST alias
					return 0, 0, 0, false, false, 0, false
				case reg == 0 && op == 0xf6:
					flags |= fImm8
				case reg == 0:
					flags |= fImmZ
				}
			case 0xfe:
				if reg > 1 {
					return 0, 0, 0, false, false, 0, false
				}
			case 0xff:
				if reg == 7 || (reg == 3 || reg == 5) && mod == 3 { // far forms take memory
					return 0, 0, 0, false, false, 0, false
				}
			case 0x8f:
				if reg != 0 {
					return 0, 0, 0, false, false, 0, false
				}
			}
		}
		if lea && mod == 3 {
			return 0, 0, 0, false, false, 0, false // LEA of a register is invalid
		}
		pos++ // past ModRM
		if mod != 3 {
			if rm == 4 { // SIB
				if pos >= len(b) {
					return 0, 0, 0, false, false, 0, false
				}
				if mod == 0 && b[pos]&7 == 5 {
					mod = 2 // no base: disp32
				}
				pos++
			}
			switch {
			case mod == 0 && rm == 5:
				if addr32 {
					return 0, 0, 0, false, false, 0, false
				}
				pcrel, pcrelOff, mem = 4, pos, true
				pos += 4
			case mod == 1:
				pos++
			case mod == 2:
				pos += 4
			}
		}
	}
	switch {
	case flags&fImm8 != 0:
		pos++
	case flags&fImm16 != 0:
		pos += 2
	case flags&fImmZ != 0:
		if opsize16 && !rexW {
			pos += 2
		} else {
			pos += 4
		}
	case flags&fImmV != 0:
		switch {
		case rexW:
			pos += 8
		case opsize16:
			pos += 2
		default:
			pos += 4
		}
	case flags&(fRel8|fRel32) != 0:
		if opsize16 || addr32 {
			return 0, 0, 0, false, false, 0, false
		}
		pcrelOff = pos
		pcrel = 1
		if flags&fRel32 != 0 {
			pcrel = 4
		}
		pos += pcrel
	}
	if pos > len(b) || pos > maxLength {
		return 0, 0, 0, false, false, 0, false
	}
	if mem {
		if mandatory > 1 {
			return 0, 0, 0, false, false, 0, false // the class would not tell the operand size
		}
		k := uint16(op)<<6 | uint16(class)<<4 | uint16(reg)<<1
		if escaped {
			k |= 1 << 14
		}
		if rexW {
			k |= 1
		}
		key = k
	}
	return pos, pcrel, pcrelOff, mem, lea, key, true
}
