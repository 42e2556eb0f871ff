//===- InsertDebugChecks.cpp - A NaN/Inf check after every rlx op ---------===//
///
/// \file
/// `rlxc --debug-checks`: the first op whose result holds a NaN or an Inf
/// ends the call with a status naming the op and its source location
/// (`model.mlir:14:9: rlx.log produced -inf`). Each check is a reduction of
/// the result to one code and `cf.assert`s on it, which rlx-runtime-checks
/// turns into the runtime's error status. Running on rlx ops, before they
/// are lowered, keeps the op's name without carrying it through the
/// lowering; normal builds never add the pass and pay nothing.
///
//===----------------------------------------------------------------------===//

#include "codegen/ABI/Passes.h"

#include "dialects/RLX/IR/RLXDialect.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include "llvm/ADT/APFloat.h"

namespace mlir::rlx {
#define GEN_PASS_DEF_RLXINSERTDEBUGCHECKS
#include "codegen/ABI/Passes.h.inc"
} // namespace mlir::rlx

using namespace mlir;

namespace {

/// The codes of the reduction; the largest found wins, so a NaN is
/// reported before an Inf of the same tensor.
enum FindingCode : int32_t { kFinite = 0, kNegInf = 1, kPosInf = 2, kNaN = 3 };

/// Whether `value` is a float tensor a check can reduce.
bool isCheckedType(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && isa<FloatType>(tensor.getElementType());
}

/// The code of the worst element of `x`, an i32 scalar.
Value buildFindingCode(OpBuilder &b, Location loc, Value x) {
  auto type = cast<RankedTensorType>(x.getType());
  auto floatType = cast<FloatType>(type.getElementType());
  int64_t rank = type.getRank();
  Type i32 = b.getI32Type();
  Value init = tensor::EmptyOp::create(b, loc, ArrayRef<int64_t>{}, i32);
  Value zero = arith::ConstantIntOp::create(b, loc, i32, kFinite);
  Value acc = linalg::FillOp::create(b, loc, zero, init).getResult(0);
  SmallVector<AffineMap> maps = {
      b.getMultiDimIdentityMap(rank),
      AffineMap::get(rank, /*symbolCount=*/0, {}, b.getContext())};
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::reduction);
  auto reduce = linalg::GenericOp::create(
      b, loc, TypeRange{acc.getType()}, ValueRange{x}, ValueRange{acc}, maps,
      iterators, [&](OpBuilder &nb, Location l, ValueRange args) {
        const llvm::fltSemantics &semantics = floatType.getFloatSemantics();
        auto code = [&](int32_t c) {
          return arith::ConstantIntOp::create(nb, l, i32, c).getResult();
        };
        auto infinity = [&](bool negative) {
          return arith::ConstantFloatOp::create(
                     nb, l, floatType, llvm::APFloat::getInf(semantics, negative))
              .getResult();
        };
        Value v = args[0];
        Value isNaN =
            arith::CmpFOp::create(nb, l, arith::CmpFPredicate::UNO, v, v);
        Value isPos = arith::CmpFOp::create(nb, l, arith::CmpFPredicate::OEQ,
                                            v, infinity(false));
        Value isNeg = arith::CmpFOp::create(nb, l, arith::CmpFPredicate::OEQ,
                                            v, infinity(true));
        Value found = arith::SelectOp::create(nb, l, isNeg, code(kNegInf),
                                              code(kFinite));
        found = arith::SelectOp::create(nb, l, isPos, code(kPosInf), found);
        found = arith::SelectOp::create(nb, l, isNaN, code(kNaN), found);
        Value worst = arith::MaxSIOp::create(nb, l, found, args[1]);
        linalg::YieldOp::create(nb, l, worst);
      });
  return tensor::ExtractOp::create(b, loc, reduce.getResult(0), ValueRange{});
}

/// `file:line:col: rlx.op produced ` for the op at `loc`.
std::string messagePrefix(Operation *op) {
  std::string prefix;
  llvm::raw_string_ostream os(prefix);
  if (auto file = op->getLoc()->findInstanceOf<FileLineColLoc>())
    os << file.getFilename().getValue() << ":" << file.getLine() << ":"
       << file.getColumn() << ": ";
  os << op->getName().getStringRef() << " produced ";
  return prefix;
}

struct RLXInsertDebugChecksPass
    : mlir::rlx::impl::RLXInsertDebugChecksBase<RLXInsertDebugChecksPass> {
  void runOnOperation() override {
    SmallVector<Operation *> checked;
    getOperation().walk([&](Operation *op) {
      // An unpack's values are its pack's, checked where the pack runs;
      // a check would make the matmul read an unpacked copy.
      if (isa<rlx::RLXDialect>(op->getDialect()) &&
          !op->hasTrait<OpTrait::ConstantLike>() &&
          !isa<rlx::UnpackDotOperandOp>(op) &&
          llvm::any_of(op->getResultTypes(), isCheckedType))
        checked.push_back(op);
    });
    OpBuilder b(&getContext());
    for (Operation *op : checked) {
      b.setInsertionPointAfter(op);
      Location loc = op->getLoc();
      std::string prefix = messagePrefix(op);
      for (OpResult result : op->getResults()) {
        if (!isCheckedType(result.getType()))
          continue;
        std::string where;
        if (op->getNumResults() > 1)
          where = " in result " + std::to_string(result.getResultNumber());
        Value code = buildFindingCode(b, loc, result);
        auto assertNot = [&](int32_t finding, llvm::StringRef name) {
          Value ok = arith::CmpIOp::create(
              b, loc, arith::CmpIPredicate::ne, code,
              arith::ConstantIntOp::create(b, loc, b.getI32Type(), finding));
          cf::AssertOp::create(b, loc, ok, prefix + name.str() + where);
        };
        assertNot(kNaN, "a NaN");
        assertNot(kPosInf, "+inf");
        assertNot(kNegInf, "-inf");
      }
    }
  }
};

} // namespace
