//===- Passes.td - CPU codegen passes -----------------------*- tablegen -*-===//

#ifndef RLX_CODEGEN_CPU_PASSES_TD
#define RLX_CODEGEN_CPU_PASSES_TD

include "mlir/Pass/PassBase.td"

def RLXCPUVectorizeMatmul : Pass<"rlx-cpu-vectorize-matmul", "mlir::ModuleOp"> {
  let summary = "Tiles linalg.matmul on buffers for registers and vectorizes it";
  let description = [{
    Tiles every `linalg.matmul` (on memrefs) into `tile-m` x `tile-n` x 1
    register tiles, vectorizes them (masked at partial tiles), lowers the
    contractions to outer products and hoists the accumulator out of the k
    loop, so the C tile lives in vector registers. Applied with the transform
    dialect interpreter from a script built in C++.
  }];
  let options = [
    Option<"tileM", "tile-m", "int64_t", /*default=*/"8", "rows per tile">,
    Option<"tileN", "tile-n", "int64_t", /*default=*/"32", "columns per tile">
  ];
  let dependentDialects = [
    "mlir::transform::TransformDialect", "mlir::linalg::LinalgDialect",
    "mlir::vector::VectorDialect", "mlir::scf::SCFDialect",
    "mlir::memref::MemRefDialect", "mlir::affine::AffineDialect",
    "mlir::arith::ArithDialect"
  ];
}

def RLXCPULowerStridedCopies : Pass<"rlx-cpu-lower-strided-copies", "mlir::ModuleOp"> {
  let summary = "Turns memref.copy between non-contiguous buffers into linalg.copy";
  let description = [{
    The LLVM lowering of a `memref.copy` whose operands are not both
    contiguous calls `memrefCopy` from MLIR's C runner utilities, a library
    an artifact must not depend on. Such copies become `linalg.copy`, which
    lowers to loops; contiguous copies stay and become `memcpy`.
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect"];
}

def RLXFuseElementwise : Pass<"rlx-fuse-elementwise"> {
  let summary = "Fuses elementwise linalg producers into their consumers";
  let description = [{
    linalg's elementwise fusion without the reshape propagation of
    `linalg-fuse-elementwise-ops`: propagating collapse/expand shapes through
    a named matmul turns it into a generic contraction that no longer gets
    the vectorized matmul schedule.
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect"];
}

#endif // RLX_CODEGEN_CPU_PASSES_TD
