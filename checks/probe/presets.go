package probe

// numbaStubSnippet swaps a stub iterator into FunctionIdentity._unique_ids, builds
// the identity of a trivial function and checks the uid came from the stub: the
// invariant pytensor's cache monkeypatch relies on (upstreams.md §1-2).
const numbaStubSnippet = `from numba.core.bytecode import FunctionIdentity

def _pinbot_trivial(x):
    return x + 1

class _StubIds:
    calls = 0
    def __iter__(self):
        return self
    def __next__(self):
        _StubIds.calls += 1
        return 0x5EED0000 + _StubIds.calls

saved = FunctionIdentity.__dict__.get("_unique_ids")
FunctionIdentity._unique_ids = _StubIds()
try:
    fi = FunctionIdentity.from_function(_pinbot_trivial)
finally:
    if saved is None:
        del FunctionIdentity._unique_ids
    else:
        FunctionIdentity._unique_ids = saved
assert _StubIds.calls == 1, "from_function called next() on the stub %d times, want 1" % _StubIds.calls
assert fi.unique_id == 0x5EED0001, "unique_id %r did not come from the stub iterator" % (fi.unique_id,)
`

// mlirNewLayoutSnippet passes once the bindings have the post-#155114 layout.
const mlirNewLayoutSnippet = `import mlir.ir
assert hasattr(mlir.ir.Module, "_clear_mlir_module"), "mlir.ir.Module has no _clear_mlir_module (pre-#155114 layout)"
`

var presets = map[string]Preset{
	"numba-unique-ids": {
		Name:    "numba-unique-ids",
		Package: "numba",
		Doc: "pytensor replaces numba.core.bytecode.FunctionIdentity._unique_ids and relies on " +
			"from_function consuming it through next(cls._unique_ids).",
		Specs: []Spec{
			{
				Name:   "FunctionIdentity._unique_ids is an iterator",
				Path:   "numba.core.bytecode.FunctionIdentity._unique_ids",
				Expect: ExpectIterator,
			},
			{
				Name:           "FunctionIdentity.from_function calls next(cls._unique_ids)",
				Path:           "numba.core.bytecode.FunctionIdentity.from_function",
				Expect:         ExpectCallable,
				SourceContains: "next(cls._unique_ids)",
			},
			{
				Name:   "from_function takes its unique_id from a swapped-in iterator",
				Run:    numbaStubSnippet,
				Expect: ExpectPass,
			},
		},
	},
	"mlir-live-operations": {
		Name:    "mlir-live-operations",
		Package: "mlir-python-bindings",
		Doc: "Private mlir.ir.Context APIs: llvm PR #155114 removed the live-operation ones " +
			"(_get_live_operation_count, _get_live_operation_objects, _clear_live_operations, " +
			"_clear_live_operations_inside) and added Module._clear_mlir_module.",
		Specs: []Spec{
			{Path: "mlir.ir.Context._get_live_count"},
			{Path: "mlir.ir.Context._get_context_again"},
			{Path: "mlir.ir.Context._get_live_module_count"},
			{Path: "mlir.ir.Context._get_live_operation_count"},
			{Path: "mlir.ir.Context._get_live_operation_objects"},
			{Path: "mlir.ir.Context._clear_live_operations"},
			{Path: "mlir.ir.Context._clear_live_operations_inside"},
			{
				Name:   "post-#155114 layout (Module._clear_mlir_module) not yet there",
				Run:    mlirNewLayoutSnippet,
				Expect: ExpectFail,
			},
		},
	},
}
