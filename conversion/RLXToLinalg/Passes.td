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
  let options = [
    Option<"tensorCoreProducts", "tensor-core-products", "bool",
           /*default=*/"false",
           "16-bit matmuls, bf16 or f16, 2-D or batched, read the 16-bit "
           "operands rlx-accumulate-in-f32 widened (CUDA's tensor cores "
           "multiply them); without it only 2-D bf16 ones do (the CPU's "
           "bf16 dot products)">
  ];
  let dependentDialects = [
    "mlir::linalg::LinalgDialect", "mlir::tensor::TensorDialect",
    "mlir::arith::ArithDialect", "mlir::math::MathDialect",
    "mlir::cf::ControlFlowDialect"
  ];
}

#endif // RLX_CONVERSION_RLXTOLINALG_PASSES_TD
