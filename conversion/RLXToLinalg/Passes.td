//===- Passes.td - rlx to linalg conversion -----------------*- tablegen -*-===//

#ifndef RLX_CONVERSION_RLXTOLINALG_PASSES_TD
#define RLX_CONVERSION_RLXTOLINALG_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertRLXToLinalg : Pass<"convert-rlx-to-linalg"> {
  let summary = "Lowers rlx tensor ops to linalg, tensor, arith and math";
  let description = [{
    One conversion for every rlx op: elementwise ops become `linalg.generic`
    with broadcasting indexing maps, matmuls `linalg.matmul` (or a batched
    generic contraction), reductions generics with reduction iterators,
    shape ops `tensor` ops. `rlx.param` stays: the artifact ABI turns params
    into entry-point arguments before this pass in the compile pipeline.
  }];
  let dependentDialects = [
    "mlir::linalg::LinalgDialect", "mlir::tensor::TensorDialect",
    "mlir::arith::ArithDialect", "mlir::math::MathDialect",
    "mlir::cf::ControlFlowDialect"
  ];
}

#endif // RLX_CONVERSION_RLXTOLINALG_PASSES_TD
