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

/// Whether `generic` is a product by a weight prepacked in groups of
/// `group` k (1: the f32 kernel's K x width panels, not a block-scaled
/// weight's; 2: the bf16 dot-product kernel's pairs), plain maps on A and
/// C, and the output's columns static (the panels'). Its row tiles, and
/// views of its panels, are generics like it.
inline bool isPrepackedProduct(linalg::GenericOp generic, int64_t group) {
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
         packed.getRank() == 3 && dot_layout::packedGroup(packed) == group &&
         !output.isDynamicDim(1);
}

inline bool isPrepackedF32Product(linalg::GenericOp generic) {
  return isPrepackedProduct(generic, 1) &&
         getElementTypeOrSelf(generic.getDpsInputs()[0].getType()).isF32();
}

/// A bf16 x bf16 -> f32 product by a weight prepacked for the bf16
/// dot-product kernel.
inline bool isPrepackedBF16Product(linalg::GenericOp generic) {
  return isPrepackedProduct(generic, 2) &&
         getElementTypeOrSelf(generic.getDpsInputs()[0].getType()).isBF16() &&
         getElementTypeOrSelf(generic->getResult(0).getType()).isF32();
}

} // namespace mlir::rlx

#endif // RLX_CODEGEN_CPU_PREPACKEDPRODUCT_H
