package usage

import (
	"path"
	"strings"

	"github.com/pinbot-dev/pinbot/internal/pep503"
)

// importNames are the modules a distribution installs when its name does
// not say them (scikit-learn installs sklearn), by normalised distribution
// name (PEP 503). Any other package is imported as its normalised name
// with "-" made "_" (numba, llvmlite, typing_extensions).
var importNames = map[string][]string{
	"scikit-learn":             {"sklearn"},
	"scikit-image":             {"skimage"},
	"protobuf":                 {"google.protobuf"},
	"pyyaml":                   {"yaml"},
	"pillow":                   {"PIL"},
	"opencv-python":            {"cv2"},
	"opencv-python-headless":   {"cv2"},
	"opencv-contrib-python":    {"cv2"},
	"beautifulsoup4":           {"bs4"},
	"tensorflow":               {"tensorflow"},
	"tensorflow-cpu":           {"tensorflow"},
	"tensorflow-gpu":           {"tensorflow"},
	"tf-nightly":               {"tensorflow"},
	"tensorflow-macos":         {"tensorflow"},
	"tensorflow-intel":         {"tensorflow"},
	"mlir-python-bindings":     {"mlir"},
	"python-dateutil":          {"dateutil"},
	"jax":                      {"jax"},
	"jaxlib":                   {"jaxlib"},
	"torch":                    {"torch"},
	"pytorch":                  {"torch"},
	"pytest":                   {"pytest", "_pytest"},
	"attrs":                    {"attr", "attrs"},
	"pyzmq":                    {"zmq"},
	"pymongo":                  {"pymongo", "bson", "gridfs"},
	"msgpack-python":           {"msgpack"},
	"python-magic":             {"magic"},
	"pycryptodome":             {"Crypto"},
	"pyopenssl":                {"OpenSSL"},
	"grpcio":                   {"grpc"},
	"googleapis-common-protos": {"google.api", "google.rpc", "google.type"},
	"onnxruntime":              {"onnxruntime"},
	"onnxruntime-gpu":          {"onnxruntime"},
	"faiss-cpu":                {"faiss"},
	"faiss-gpu":                {"faiss"},
	"tf-keras":                 {"tf_keras"},
	"pymc":                     {"pymc"},
	"llvmlite":                 {"llvmlite"},
	"numba":                    {"numba"},
}

// Modules returns the top-level modules the watched package name installs,
// the names its users import: from the built-in table, else the normalised
// name with "-" made "_". A Go module path (it has a "/") installs none.
func Modules(name string) []string {
	if strings.Contains(name, "/") {
		return nil
	}
	n := pep503.Normalize(name)
	if m, ok := importNames[n]; ok {
		return m
	}
	return []string{strings.ReplaceAll(n, "-", "_")}
}

// privateNamespaces are modules whose whole tree is a package's internals,
// though no segment of their names starts with "_": a name under one is
// private.
var privateNamespaces = []string{
	"tensorflow.python",        // TensorFlow's implementation; the API is tensorflow.*
	"tensorflow.core",          // its protocol buffers and kernels
	"keras.src",                // Keras 3's implementation; the API is keras.*
	"tf_keras.src",             // the same in tf-keras
	"numpy.core",               // private since NumPy 2.0 (numpy._core)
	"google.protobuf.internal", // protobuf's implementation detail
	"jax._src",                 // jax's implementation (private by its "_" too)
	"torch._C",                 // torch's extension module (private by its "_" too)
	"_pytest",                  // pytest's implementation; the API is pytest.*
}

// Private reports whether the dotted name is a package's internal: a
// segment after the first starts with "_" and is not a dunder (__version__,
// __init__ are every module's and class's), or the name lies in one of the
// private namespaces (tensorflow.python, jax._src, torch._C).
func Private(name string) bool {
	for _, ns := range privateNamespaces {
		if name == ns || strings.HasPrefix(name, ns+".") {
			return true
		}
	}
	_, rest, _ := strings.Cut(name, ".")
	for rest != "" {
		var s string
		s, rest, _ = strings.Cut(rest, ".")
		if strings.HasPrefix(s, "_") && !dunder(s) {
			return true
		}
	}
	return false
}

// dunder reports whether s is a "magic" name, __x__.
func dunder(s string) bool {
	return len(s) > 4 && strings.HasPrefix(s, "__") && strings.HasSuffix(s, "__")
}

// within reports whether the dotted name is module or lies under it.
func within(name, module string) bool {
	return name == module || strings.HasPrefix(name, module) && name[len(module)] == '.'
}

// sourceRoots are the directories, relative to the repository root, a
// project's own top-level modules are in: the root, and src/ of the "src
// layout".
var sourceRoots = []string{".", "src"}

// ownModule returns the file that makes module the repository's own (a
// package directory with an __init__.py or .pyi, or a module file, at a
// source root), or "" when the repository has none: the project's own
// numba/ is what its "import numba" imports, not the watched package.
func ownModule(module string, files map[string]bool) string {
	rel := strings.ReplaceAll(module, ".", "/")
	for _, root := range sourceRoots {
		for _, suffix := range []string{"/__init__.py", "/__init__.pyi", ".py", ".pyi"} {
			if p := path.Join(root, rel+suffix); files[p] {
				return p
			}
		}
	}
	return ""
}
