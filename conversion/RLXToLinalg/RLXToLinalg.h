//===- RLXToLinalg.h - rlx to linalg conversion -----------------*- C++ -*-===//
///
/// \file
/// The rlx → linalg/tensor/arith/math conversion: its pass and patterns.
///
//===----------------------------------------------------------------------===//

#ifndef RLX_CONVERSION_RLXTOLINALG_RLXTOLINALG_H
#define RLX_CONVERSION_RLXTOLINALG_RLXTOLINALG_H

#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::rlx {

#define GEN_PASS_DECL
#include "conversion/RLXToLinalg/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "conversion/RLXToLinalg/Passes.h.inc"

/// Adds the patterns lowering every rlx op but rlx.param and
/// rlx.unpack_dot_operand (its readers lower it; the pass copies the rest).
/// `tensorCoreProducts`: the pass's option of that name.
void populateRLXToLinalgPatterns(mlir::RewritePatternSet &patterns,
                                 bool tensorCoreProducts = false);

// The pattern families, one file each.
void populateElementwiseToLinalgPatterns(mlir::RewritePatternSet &patterns);
void populateStructuredToLinalgPatterns(mlir::RewritePatternSet &patterns,
                                        bool tensorCoreProducts);
void populateShapeToLinalgPatterns(mlir::RewritePatternSet &patterns);
void populateRandomToLinalgPatterns(mlir::RewritePatternSet &patterns);
void populateBlockDequantizeToLinalgPatterns(mlir::RewritePatternSet &patterns);
void populateDotOperandsToLinalgPatterns(mlir::RewritePatternSet &patterns);
/// rlx.cast from or to the unsigned integers ui8 ... ui64.
void populateUnsignedCastPatterns(mlir::RewritePatternSet &patterns);

/// Makes every unsigned integer type under `root` its signless twin, once
/// rlx.cast no longer reads them (linalg, arith and LLVM take signless only).
void makeIntegersSignless(mlir::Operation *root);

} // namespace mlir::rlx

#endif // RLX_CONVERSION_RLXTOLINALG_RLXTOLINALG_H
