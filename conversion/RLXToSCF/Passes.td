//===- Passes.td - rlx control flow to scf ------------------*- tablegen -*-===//

#ifndef RLX_CONVERSION_RLXTOSCF_PASSES_TD
#define RLX_CONVERSION_RLXTOSCF_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertRLXToSCF : Pass<"convert-rlx-to-scf", "mlir::ModuleOp"> {
  let summary = "Lowers rlx.scan, rlx.while and rlx.switch to scf with the bodies inlined";
  let description = [{
    `rlx.scan` becomes an `scf.for` over the steps whose iteration arguments
    are the carry and the stacked outputs (each step's outputs inserted in
    place); `rlx.while` an `scf.while` (the condition's `tensor<i1>` read
    with `tensor.extract`); `rlx.switch` an `scf.index_switch` on the index
    clamped into range. Each body function is cloned into its region, so
    the rlx ops inside are lowered by convert-rlx-to-linalg with the rest;
    loops in bodies are lowered in turn. Runs after autodiff (which needs
    the bodies as functions) and before the params are exposed. The result
    is the same for every target: on GPUs the scf ops stay host code that
    launches their bodies' kernels, and rlx-gpu-map-kernels has the host
    download the condition or index it branches on.
  }];
  let dependentDialects = [
    "mlir::scf::SCFDialect", "mlir::tensor::TensorDialect",
    "mlir::arith::ArithDialect"
  ];
}

#endif // RLX_CONVERSION_RLXTOSCF_PASSES_TD
