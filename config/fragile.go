package config

import "slices"

// Fragile are the packages pinbot knows to be fragile: a new release of one
// breaks projects that depend on it through what no deprecation policy
// covers (internal APIs, a C++ ABI, generated code, a lockstep partner), so
// projects cap them and a cap should move only once checks say the release
// works. `pinbot init` watches each of them that a repository pins, and no
// other package unless it is named with --package. It is the one list:
// DefaultPackages and every package a ready-made check (probe or symbol
// preset) is made for are on it. Names are normalised (Key), PyPI's and
// conda's spellings both.
//
// numpy and scipy are not on it: they deprecate over several releases and
// keep their ABI backward compatible (NumPy 2's break was announced a year
// ahead, and builds against 2.x run on later 2.x), so capping them holds a
// project back for nothing, and the packages that do break on a NumPy
// release (numba) cap it themselves and are watched. tf-nightly and other
// nightlies are not on it either: a nightly is installed by date, never
// capped. A project that wants either watched names it in .pinbot.yml.
var Fragile = []string{
	// numba is patched and subclassed through its internals (pytensor
	// replaces numba.core.bytecode.FunctionIdentity._unique_ids); each
	// release takes one llvmlite minor, released with it.
	"numba", "llvmlite",
	// TensorFlow under its platform names: custom ops are built against its
	// C++ ABI, and it links its own protobuf, Abseil and LLVM.
	"tensorflow", "tensorflow-cpu", "tensorflow-gpu", "tensorflow-macos", "tensorflow-aarch64", "tensorflow-intel", "tensorflow-base",
	// Generated _pb2 code is checked against the runtime's major version;
	// libprotobuf is conda's C++ library.
	"protobuf", "libprotobuf",
	// jaxlib must match jax, and jax removes APIs after short deprecations.
	"jax", "jaxlib",
	// Extensions are built against one torch's C++ ABI (pytorch is conda's
	// name for it).
	"torch", "pytorch",
	// MLIR has no stable API: each set of Python bindings is built from one
	// LLVM commit.
	"mlir", "mlir-python-bindings", "torch-mlir", "finch-mlir",
	// Converters and runtimes follow its opsets and the protobuf schema it
	// generates.
	"onnx",
}

// IsFragile reports whether the package (a normalised name, as Key
// returns it) is on the Fragile list.
func IsFragile(name string) bool { return slices.Contains(Fragile, name) }
