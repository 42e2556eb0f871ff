//===- PrepackedProduct.h - A product by a prepacked f32 weight -*- C++ -*-===//
///
/// \file
/// The generic that rlx-pack-dot-operands and convert-rlx-to-linalg leave
/// for an A [M, K] times a prepacked f32 weight on tensors, as the CPU's
/// tensor-level passes (matmul epilogues, conv tap products) take it.
///
//===----------------------------------------------------------------------===//

#ifndef RLX_CODEGEN_CPU_PREPACKEDPRODUCT_H
#define RLX_CODEGEN_CPU_PREPACKEDPRODUCT_H

#include "dialects/RLX/IR/DotOperandLayout.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"

namespace mlir::rlx {

/// Whether `generic` is a product by a prepacked f32 weight in the f32
/// kernel's K x width panels (one group; not a block-scaled weight's),
/// plain maps on A and C, and the output's columns static (the panels').
/// Its row tiles, and views of its panels, are generics like it.
inline bool isPrepackedF32Product(linalg::GenericOp generic) {
  if (!generic->hasAttr(dot_layout::kPackedRhsAttrName) ||
      generic->hasAttr(dot_layout::kScaleBlockAttrName) ||
      !generic.hasPureTensorSemantics() || generic.getNumDpsInputs() != 2 ||
      generic.getNumDpsInits() != 1)
    return false;
  MLIRContext *context = generic.getContext();
  AffineExpr m = getAffineDimExpr(0, context), n = getAffineDimExpr(1, context),
             k = getAffineDimExpr(2, context);
  SmallVector<AffineMap> maps = generic.getIndexingMapsArray();
  auto packed = cast<RankedTensorType>(generic.getDpsInputs()[1].getType());
  auto output = cast<RankedTensorType>(generic->getResult(0).getType());
  return maps[0] == AffineMap::get(3, 0, {m, k}, context) &&
         maps[2] == AffineMap::get(3, 0, {m, n}, context) &&
         packed.getRank() == 3 && dot_layout::packedGroup(packed) == 1 &&
         !output.isDynamicDim(1);
}

} // namespace mlir::rlx

#endif // RLX_CODEGEN_CPU_PREPACKEDPRODUCT_H
