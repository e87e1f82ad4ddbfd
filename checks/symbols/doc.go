// Package symbols scans the ELF shared objects of a release (wheels, .so
// files, directories) for exported symbols that can clash with other
// libraries in one process, and compares the findings with the currently
// capped release so that only new problems block a cap move.
//
// The method, per shared object (System V gABI and the Itanium C++ ABI):
//
//  1. Read .dynsym, .dynstr, .gnu.version, .gnu.version_d and .dynamic only,
//     never .text. An exported definition is a defined entry bound GLOBAL,
//     WEAK or GNU_UNIQUE with default visibility, other than the linker's
//     _end, _edata, __bss_start, _init and _fini.
//  2. Forbid patterns (see Pattern) select exports and imports; symbols are
//     keyed by mangled name and demangled only when a pattern needs it or
//     a result reports it.
//  3. A clash is a symbol exported by a target library and at least one
//     other library, with the same version or no version on one side: the
//     dynamic linker binds a versioned reference only to its version (or an
//     unversioned definition), so differently versioned copies do not clash.
//  4. Bodies are compared in stages, each run only where the previous one
//     could not decide: st_size; raw bytes, where they lie in a read-only
//     mapping of the file; then bytes normalised for layout. For x86-64 code, PC-relative displacements are
//     zeroed and a token naming the target is added (a PLT stub or GOT slot
//     by its relocation's symbol, an exported symbol by name, a local
//     function by the hash of its own normalised body, found through the
//     .eh_frame_hdr table, one level deep; a C string by its text; else the
//     section). For data, every slot a dynamic relocation covers is replaced
//     by the relocation's type, symbol and addend, or for relative
//     relocations by the target. Aliases at one address are named by their
//     first name in byte order.
//  5. Whether copies can meet (Exposure) follows from DT_NEEDED links,
//     FLAGS SYMBOLIC and Python extensions (PyInit_*), which CPython loads
//     RTLD_LOCAL.
//
// Wheels are read in place: members are decompressed to memory, or to a
// temporary file when large, within limits on member count, size and
// compression ratio; member names that escape the archive refuse the wheel.
package symbols
