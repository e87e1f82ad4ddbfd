# RUN: %PYTHON %s | FileCheck %s
# The shape of MLIR's Python tests of live operations (llvm/llvm-project,
# mlir/test/python/ir), which call Context's private counters.

import gc
from mlir.ir import *


def run(f):
    print("\nTEST:", f.__name__)
    f()
    gc.collect()
    assert Context._get_live_count() == 0
    return f


# CHECK-LABEL: TEST: testLiveOperations
@run
def testLiveOperations():
    ctx = Context()
    ctx.allow_unregistered_dialects = True
    module = Module.parse(
        r"""
    func.func @f1() {
      return
    }
  """,
        ctx,
    )
    assert ctx._get_live_operation_count() == 1
    live_ops = ctx._get_live_operation_objects()
    assert len(live_ops) == 1
    ctx._clear_live_operations()
    assert ctx._get_live_operation_count() == 0
    with Context() as inner, Location.unknown():
        op = Operation.create("custom.op1")
        inner._clear_live_operations_inside(op)
