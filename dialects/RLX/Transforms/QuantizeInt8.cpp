//===- QuantizeInt8.cpp - Post-training int8 quantization of matmuls -------===//
///
/// \file
/// rlx-quantize-int8: each f32 matmul or conv2d of an activation by a
/// weight (isQuantizableMatmul, isQuantizableConv) becomes its i8 x i8 ->
/// i32 twin between scalings, the scheme ONNX Runtime's and PyTorch's int8
/// CPU inference use:
///
/// - the weight per output channel (a matmul's `[K, N]` column n, a conv
///   filter's last dim), symmetric: divided by s_w[n] = max |W[.., n]| / 127
///   and rounded to [-127, 127].
///   It depends on the weight alone, so rlx-prepare-params computes it once
///   per binding, as those runtimes pre-quantize initializers;
/// - the activation per tensor, symmetric: s_x = a / 127 with `a` the
///   largest |x| that calibration recorded (kActivationAbsMaxAttr, a
///   constant), or, without one, the largest |x| of this call (dynamic
///   quantization: one reduction over x, no calibration needed);
/// - the i32 product times s_x * s_w[n] is the f32 result. The rescaling
///   and whatever elementwise ops follow (bias, activation, the next
///   matmul's quantization) fuse into one loop.
///
/// Symmetric scales keep zero exact and need no zero-point corrections;
/// -128 is not used, so a negated code never overflows. Rounding is to
/// nearest, ties to even (as numpy.round and ONNX QuantizeLinear).
///
//===----------------------------------------------------------------------===//

#include "dialects/RLX/IR/AutodiffBuilders.h"
#include "dialects/RLX/IR/RLXDialect.h"
#include "dialects/RLX/Transforms/Passes.h"
#include "dialects/RLX/Transforms/Quantization.h"
#include "dialects/RLX/Transforms/Weights.h"

#include <cfloat>

namespace mlir::rlx {
#define GEN_PASS_DEF_RLXQUANTIZEINT8
#include "dialects/RLX/Transforms/Passes.h.inc"
} // namespace mlir::rlx

using namespace mlir;
using namespace mlir::rlx;
using namespace mlir::rlx::ad;

namespace {

bool isF32Tensor(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && tensor.getElementType().isF32();
}

/// `v` (already divided by its scale) clamped to [-127, 127], rounded to
/// nearest with ties to even, as i8.
Value roundToInt8(RuleBuilder r, Value v) {
  Value clamped = MinimumOp::create(
      r.b, r.loc, MaximumOp::create(r.b, r.loc, v, scalarLike(r, v, -127)),
      scalarLike(r, v, 127));
  return castTo(r, roundHalfToEven(r, clamped), r.b.getI8Type());
}

/// The scale of a tensor whose largest magnitude is `absMax`: absMax / 127,
/// at least the smallest normal f32 so that an all-zero tensor divides to
/// zeros rather than NaNs.
Value scaleOf(RuleBuilder r, Value absMax) {
  Value scale = div(r, absMax, scalarLike(r, absMax, 127));
  return MaximumOp::create(r.b, r.loc, scale, scalarLike(r, scale, FLT_MIN));
}

/// The activation's scale: the calibrated largest |x| on `op`, else the
/// largest |x| of this call.
Value activationScale(RuleBuilder r, Operation *op, Value x) {
  Value absMax;
  if (auto calibrated = op->getAttrOfType<FloatAttr>(kActivationAbsMaxAttr)) {
    absMax = scalarLike(r, x, calibrated.getValueAsDouble());
  } else {
    auto rank = tensorType(x).getRank();
    SmallVector<int64_t> all = llvm::to_vector(llvm::seq<int64_t>(0, rank));
    absMax = MaxOp::create(r.b, r.loc, AbsOp::create(r.b, r.loc, x),
                           r.b.getDenseI64ArrayAttr(all),
                           r.b.getBoolAttr(false));
  }
  return scaleOf(r, absMax);
}

/// The weight's scales, one per output channel (its last dim): the largest
/// |w| over `reduced`, / 127.
Value weightScales(RuleBuilder r, Value w, ArrayRef<int64_t> reduced) {
  Value absMax = MaxOp::create(r.b, r.loc, AbsOp::create(r.b, r.loc, w),
                               r.b.getDenseI64ArrayAttr(reduced),
                               r.b.getBoolAttr(false));
  return scaleOf(r, absMax);
}

/// Replaces `op` (f32 result) by `product` (its i32 twin) times
/// xScale * wScale.
void rescale(RuleBuilder r, Operation *op, Value product, Value xScale,
             Value wScale) {
  Type f32 = cast<RankedTensorType>(op->getResult(0).getType()).getElementType();
  Value y = mul(r, castTo(r, product, f32), mul(r, xScale, wScale));
  op->getResult(0).replaceAllUsesWith(y);
  op->erase();
}

void quantize(MatmulOp op) {
  OpBuilder b(op);
  RuleBuilder r{b, op.getLoc()};
  Value x = op.getLhs(), w = op.getRhs();
  Value wScale = weightScales(r, w, {0});
  Value wq = roundToInt8(r, div(r, w, wScale));
  Value xScale = activationScale(r, op, x);
  Value xq = roundToInt8(r, div(r, x, xScale));
  auto resultType = cast<RankedTensorType>(op.getType());
  Value product = MatmulOp::create(
      b, r.loc, resultType.clone(b.getI32Type()), xq, wq);
  rescale(r, op, product, xScale, wScale);
}

/// The same for a conv: the filter `[KH, KW, C / groups, F]` per output
/// channel F. Zero padding stays exact: 0 quantizes to 0.
void quantize(Conv2DOp op) {
  OpBuilder b(op);
  RuleBuilder r{b, op.getLoc()};
  Value x = op.getInput(), w = op.getFilter();
  Value wScale = weightScales(r, w, {0, 1, 2});
  Value wq = roundToInt8(r, div(r, w, wScale));
  Value xScale = activationScale(r, op, x);
  Value xq = roundToInt8(r, div(r, x, xScale));
  Value product = Conv2DOp::create(
      b, r.loc, op.getType().clone(b.getI32Type()), xq, wq, op.getStrides(),
      op.getPadding(), op.getDilations(), op.getGroups());
  rescale(r, op, product, xScale, wScale);
}

struct QuantizeInt8 : mlir::rlx::impl::RLXQuantizeInt8Base<QuantizeInt8> {
  void runOnOperation() override {
    SmallVector<Operation *> ops;
    getOperation()->walk([&](Operation *op) {
      if (quantizedActivation(op))
        ops.push_back(op);
    });
    for (Operation *op : ops) {
      if (auto matmul = dyn_cast<MatmulOp>(op))
        quantize(matmul);
      else
        quantize(cast<Conv2DOp>(op));
    }
  }
};

} // namespace

bool mlir::rlx::isQuantizableMatmul(MatmulOp op) {
  if (!isF32Tensor(op.getLhs().getType()) ||
      !isF32Tensor(op.getRhs().getType()) || !isF32Tensor(op.getType()))
    return false;
  auto rhs = cast<RankedTensorType>(op.getRhs().getType());
  if (rhs.getRank() != 2 || rhs.isDynamicDim(0) ||
      rhs.getDimSize(0) > kMaxInt8ContractionLength)
    return false;
  Block *block = op->getBlock();
  return isWeight(op.getRhs(), block) && !isWeight(op.getLhs(), block);
}

bool mlir::rlx::isQuantizableConv(Conv2DOp op) {
  if (!isF32Tensor(op.getInput().getType()) ||
      !isF32Tensor(op.getFilter().getType()) || !isF32Tensor(op.getType()))
    return false;
  auto filter = op.getFilter().getType();
  if (!filter.hasStaticShape() ||
      filter.getDimSize(0) * filter.getDimSize(1) * filter.getDimSize(2) >
          kMaxInt8ContractionLength)
    return false;
  Block *block = op->getBlock();
  return isWeight(op.getFilter(), block) && !isWeight(op.getInput(), block);
}

Value mlir::rlx::quantizedActivation(Operation *op) {
  if (auto matmul = dyn_cast<MatmulOp>(op))
    return isQuantizableMatmul(matmul) ? matmul.getLhs() : Value();
  if (auto conv = dyn_cast<Conv2DOp>(op))
    return isQuantizableConv(conv) ? conv.getInput() : Value();
  return Value();
}
