//===- TosaToRLXPatterns.h - TOSA to rlx rewrite patterns -------*- C++ -*-===//
///
/// \file
/// The patterns of the TOSA import (convert-tosa-to-rlx): one per TOSA op and
/// one for `ml_program.global_load_const`.
///
//===----------------------------------------------------------------------===//

#ifndef RLX_CONVERSION_TOSATORLX_TOSATORLXPATTERNS_H
#define RLX_CONVERSION_TOSATORLX_TOSATORLXPATTERNS_H

#include "mlir/IR/PatternMatch.h"

namespace mlir::rlx {

/// Adds the patterns that rewrite TOSA ops and `ml_program.global_load_const`
/// into rlx ops. The patterns expect to visit producers before users (the
/// walk driver's order), because rlx result types are computed from the
/// already converted operands. A pattern that cannot convert its op reports
/// why at the op's location before failing, so a TOSA op left behind either
/// has no pattern or has been reported.
void populateTosaToRLXPatterns(mlir::RewritePatternSet &patterns);

} // namespace mlir::rlx

#endif // RLX_CONVERSION_TOSATORLX_TOSATORLXPATTERNS_H
