//===- Quantization.h - Which matmuls int8 quantization rewrites -*- C++ -*-===//
///
/// \file
/// Shared by the rewrite (rlx-quantize-int8) and by calibration, which must
/// agree on the ops it measures: a matmul or conv of an activation by a
/// weight.
///
//===----------------------------------------------------------------------===//

#ifndef RLX_DIALECTS_RLX_TRANSFORMS_QUANTIZATION_H
#define RLX_DIALECTS_RLX_TRANSFORMS_QUANTIZATION_H

#include "dialects/RLX/IR/RLXDialect.h"

namespace mlir::rlx {

/// The f64 attribute with which calibration records, on a matmul or conv,
/// the largest |activation| it saw; rlx-quantize-int8 then scales that
/// activation by a constant instead of measuring it at every call.
inline constexpr llvm::StringLiteral kActivationAbsMaxAttr =
    "rlx.activation_absmax";

/// The largest contraction length whose int8 products cannot overflow the
/// i32 sum: 127 * 127 * K < 2^31.
inline constexpr int64_t kMaxInt8ContractionLength = 133144;

/// True for an f32 matmul whose rhs is a `[K, N]` weight (computed from
/// params and constants alone, in the same block) with a static K that
/// int8 products summed in i32 cannot overflow, and whose lhs is not a
/// weight too: an activation by a weight, what post-training quantization
/// rewrites.
bool isQuantizableMatmul(MatmulOp op);

/// Likewise for an f32 conv2d: its filter a weight (KH * KW * C / groups at
/// most kMaxInt8ContractionLength), its input not.
bool isQuantizableConv(Conv2DOp op);

/// The activation that int8 quantization scales per tensor (a matmul's
/// lhs, a conv's input) when `op` is a matmul or conv it rewrites; null
/// otherwise. Calibration measures these.
Value quantizedActivation(Operation *op);

} // namespace mlir::rlx

#endif // RLX_DIALECTS_RLX_TRANSFORMS_QUANTIZATION_H
