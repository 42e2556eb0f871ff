//===- AccumulateInF32.cpp - 16-bit contractions and sums in f32 ----------===//
///
/// \file
/// rlx-accumulate-in-f32: a matmul, conv or sum over bf16 or f16 operands
/// that accumulated in its own type would lose the low bits of every term
/// after a few hundred of them (bf16 keeps 8 significant bits): a 512-term
/// dot product is off by whole units. As XLA does, such an op computes in
/// f32 between casts: its operands widen (exactly), the op runs in f32 and
/// the result rounds once to the 16-bit type. The casts are elementwise, so
/// they fuse with their neighbours.
///
//===----------------------------------------------------------------------===//

#include "dialects/RLX/IR/RLXDialect.h"
#include "dialects/RLX/Transforms/Passes.h"

#include "mlir/IR/IRMapping.h"

namespace mlir::rlx {
#define GEN_PASS_DEF_RLXACCUMULATEINF32
#include "dialects/RLX/Transforms/Passes.h.inc"
} // namespace mlir::rlx

using namespace mlir;
using namespace mlir::rlx;

namespace {

/// Ops that add many terms of their operands' type.
bool accumulates(Operation *op) {
  return isa<MatmulOp, Conv2DOp, AvgPool2DOp, SumOp, MeanOp, SoftmaxOp,
             LogSoftmaxOp>(op);
}

bool isSixteenBitFloat(Type type) {
  Type element = getElementTypeOrSelf(type);
  return element.isBF16() || element.isF16();
}

Type widened(Type type) {
  auto tensor = cast<RankedTensorType>(type);
  return isSixteenBitFloat(tensor) ? tensor.clone(Float32Type::get(type.getContext()))
                                   : type;
}

struct AccumulateInF32
    : mlir::rlx::impl::RLXAccumulateInF32Base<AccumulateInF32> {
  void runOnOperation() override {
    SmallVector<Operation *> ops;
    getOperation()->walk([&](Operation *op) {
      if (accumulates(op) && llvm::any_of(op->getOperandTypes(), isSixteenBitFloat))
        ops.push_back(op);
    });
    for (Operation *op : ops) {
      OpBuilder b(op);
      Location loc = op->getLoc();
      IRMapping mapping;
      for (Value operand : op->getOperands())
        if (isSixteenBitFloat(operand.getType()))
          mapping.map(operand, CastOp::create(b, loc, widened(operand.getType()),
                                              operand));
      Operation *wide = b.clone(*op, mapping);
      for (OpResult result : wide->getResults())
        result.setType(widened(result.getType()));
      for (auto [from, to] : llvm::zip(op->getResults(), wide->getResults())) {
        Value narrow = from.getType() == to.getType()
                           ? Value(to)
                           : CastOp::create(b, loc, from.getType(), to);
        from.replaceAllUsesWith(narrow);
      }
      op->erase();
    }
  }
};

} // namespace
