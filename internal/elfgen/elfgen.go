// Package elfgen writes synthetic x86-64 ELF shared objects of any size,
// for benchmarks of the symbol scanner: a library of N exported functions
// whose bodies call each other and read constants RIP-relative, followed
// by a bulk section that makes the file as large as asked. The bulk is
// left as a hole, so a 1 GB library costs next to nothing on disk.
//
// Two libraries generated with different Shift values hold the same
// functions at other addresses (equal once normalised, never byte for
// byte); Differ changes the constant of every Differ-th function.
package elfgen

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
)

// Spec describes a library to generate.
type Spec struct {
	// Functions is the number of exported functions (at least 1).
	Functions int
	// Size is the file size to reach with the bulk section; 0 for none.
	Size int64
	// Shift moves the constants and the code by this many bytes (a
	// multiple of 16), so that two libraries differ in layout only.
	Shift uint64
	// Differ, when positive, changes the constant read by every Differ-th
	// function (0, Differ, 2*Differ, ...).
	Differ int
	// Prefix starts every function name; "elfgen_fn_" by default.
	Prefix string
}

// FuncSize is the size of every generated function.
const FuncSize = 32

// Section indices of a generated library.
const (
	secNull = iota
	secDynsym
	secDynstr
	secDynamic
	secRodata
	secText
	secBulk
	secShstrtab
	numSections
)

// Write writes the library spec describes to path.
func Write(path string, spec Spec) error {
	if spec.Functions < 1 {
		return errors.New("elfgen: at least one function")
	}
	if spec.Shift%16 != 0 {
		return errors.New("elfgen: Shift must be a multiple of 16")
	}
	if spec.Prefix == "" {
		spec.Prefix = "elfgen_fn_"
	}
	n := spec.Functions
	le := binary.LittleEndian

	// .dynstr and .dynsym.
	dynstr := []byte{0}
	soname := len(dynstr)
	dynstr = append(dynstr, "libelfgen.so\x00"...)
	nameOff := make([]uint32, n)
	for i := range n {
		nameOff[i] = uint32(len(dynstr))
		dynstr = fmt.Appendf(dynstr, "%s%07d\x00", spec.Prefix, i)
	}
	const hdr = 64
	align := func(v, a uint64) uint64 { return (v + a - 1) &^ (a - 1) }
	var off [numSections]uint64
	var size [numSections]uint64
	size[secDynsym] = uint64(n+1) * 24
	size[secDynstr] = uint64(len(dynstr))
	size[secDynamic] = 2 * 16
	size[secRodata] = uint64(n) * 8
	size[secText] = uint64(n) * FuncSize
	off[secDynsym] = hdr
	off[secDynstr] = off[secDynsym] + size[secDynsym]
	off[secDynamic] = align(off[secDynstr]+size[secDynstr], 8)
	off[secRodata] = align(off[secDynamic]+size[secDynamic], 4096) + spec.Shift
	off[secText] = align(off[secRodata]+size[secRodata], 4096) + 2*spec.Shift
	off[secBulk] = align(off[secText]+size[secText], 4096)
	shstrtab := []byte("\x00.dynsym\x00.dynstr\x00.dynamic\x00.rodata\x00.text\x00.bulk\x00.shstrtab\x00")
	names := [numSections]uint32{0, 1, 9, 17, 26, 34, 40, 46}
	tail := uint64(len(shstrtab)) + 16 + numSections*64
	if spec.Size > 0 && uint64(spec.Size) > off[secBulk]+tail {
		size[secBulk] = align(uint64(spec.Size)-off[secBulk]-tail, 16)
	}
	off[secShstrtab] = off[secBulk] + size[secBulk]
	size[secShstrtab] = uint64(len(shstrtab))
	shoff := align(off[secShstrtab]+size[secShstrtab], 8)

	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := &writer{f: f}

	// ELF header.
	h := make([]byte, hdr)
	copy(h, "\x7fELF\x02\x01\x01")
	le.PutUint16(h[16:], 3)  // ET_DYN
	le.PutUint16(h[18:], 62) // EM_X86_64
	le.PutUint32(h[20:], 1)
	le.PutUint64(h[40:], shoff)
	le.PutUint16(h[52:], hdr)
	le.PutUint16(h[58:], 64)
	le.PutUint16(h[60:], numSections)
	le.PutUint16(h[62:], secShstrtab)
	w.at(h, 0)

	// Symbols: global functions in .text, addresses equal to offsets.
	syms := make([]byte, size[secDynsym])
	for i := range n {
		e := syms[(i+1)*24:]
		le.PutUint32(e, nameOff[i])
		e[4] = 1<<4 | 2 // STB_GLOBAL, STT_FUNC
		le.PutUint16(e[6:], secText)
		le.PutUint64(e[8:], off[secText]+uint64(i)*FuncSize)
		le.PutUint64(e[16:], FuncSize)
	}
	w.at(syms, off[secDynsym])
	w.at(dynstr, off[secDynstr])
	dyn := make([]byte, size[secDynamic])
	le.PutUint64(dyn, 14) // DT_SONAME
	le.PutUint64(dyn[8:], uint64(soname))
	w.at(dyn, off[secDynamic])

	// Constants, and code: push rbp; mov rbp,rsp; call next; mov rax,[rip+const]; pop rbp; ret.
	ro := make([]byte, size[secRodata])
	text := make([]byte, size[secText])
	for i := range n {
		v := uint64(i)*0x9e3779b97f4a7c15 + 1
		if spec.Differ > 0 && i%spec.Differ == 0 {
			v ^= 0xff
		}
		le.PutUint64(ro[i*8:], v)
		at := off[secText] + uint64(i)*FuncSize
		c := text[i*FuncSize : (i+1)*FuncSize]
		for k := range c {
			c[k] = 0xcc
		}
		copy(c, []byte{0x55, 0x48, 0x89, 0xe5, 0xe8})
		next := off[secText] + uint64((i+1)%n)*FuncSize
		le.PutUint32(c[5:], uint32(int32(int64(next)-int64(at+9))))
		copy(c[9:], []byte{0x48, 0x8b, 0x05})
		le.PutUint32(c[12:], uint32(int32(int64(off[secRodata]+uint64(i)*8)-int64(at+16))))
		c[16], c[17] = 0x5d, 0xc3
	}
	w.at(ro, off[secRodata])
	w.at(text, off[secText])
	w.at(shstrtab, off[secShstrtab])

	// Section headers.
	sh := make([]byte, numSections*64)
	type secHdr struct {
		typ, flags, link, info, align, entsize uint64
	}
	hdrs := [numSections]secHdr{
		secDynsym:   {typ: 11, flags: 2, link: secDynstr, info: 1, align: 8, entsize: 24},
		secDynstr:   {typ: 3, flags: 2, align: 1},
		secDynamic:  {typ: 6, flags: 3, link: secDynstr, align: 8, entsize: 16},
		secRodata:   {typ: 1, flags: 2, align: 16},
		secText:     {typ: 1, flags: 6, align: 16},
		secBulk:     {typ: 1, flags: 2, align: 16},
		secShstrtab: {typ: 3, align: 1},
	}
	for i := 1; i < numSections; i++ {
		e := sh[i*64:]
		s := hdrs[i]
		le.PutUint32(e, names[i])
		le.PutUint32(e[4:], uint32(s.typ))
		le.PutUint64(e[8:], s.flags)
		if s.flags&2 != 0 {
			le.PutUint64(e[16:], off[i]) // addresses equal offsets
		}
		le.PutUint64(e[24:], off[i])
		le.PutUint64(e[32:], size[i])
		le.PutUint32(e[40:], uint32(s.link))
		le.PutUint32(e[44:], uint32(s.info))
		le.PutUint64(e[48:], s.align)
		le.PutUint64(e[56:], s.entsize)
	}
	w.at(sh, shoff)
	if w.err != nil {
		f.Close()
		return w.err
	}
	return f.Close()
}

// writer writes at offsets, keeping the first error; what is not written
// stays a hole.
type writer struct {
	f   *os.File
	err error
}

func (w *writer) at(b []byte, off uint64) {
	if w.err == nil {
		_, w.err = w.f.WriteAt(b, int64(off))
	}
}
