//===- Collectives.cpp - Collectives over a named axis of replicas --------===//
///
/// \file
/// Each collective is its rlx op (RLXCollectiveOps.td) built at the
/// caller's location, so the op's verifier reports a bad dim or axis size
/// as an rlx::Error naming the call.
///
//===----------------------------------------------------------------------===//

#include "rlx/frontend/Collectives.h"

#include "TraceIR.h"

#include "dialects/RLX/IR/RLXDialect.h"

using namespace mlir::rlx;

namespace rlx {

using namespace detail;

namespace {

void checkOperand(const std::string &op, const Tensor &x, SourceLoc loc) {
  if (!x.valid())
    throw Error("rlx::" + op + ": x is an empty Tensor" + loc.suffix());
}

Tensor allReduce(const std::string &op, const Tensor &x,
                 const std::string &axis, const char *kind, SourceLoc loc) {
  checkOperand(op, x, loc);
  mlir::Builder b(sharedContext().get());
  return buildTyped<AllReduceOp>(x.scope(), op, loc, x.type(), valueOf(x),
                                 b.getStringAttr(axis), b.getStringAttr(kind));
}

/// all_gather (`gather`) or psum_scatter: `dim` scaled by `axisSize`.
template <typename OpTy>
Tensor scaled(const std::string &op, const Tensor &x, const std::string &axis,
              int64_t dim, int64_t axisSize, bool gather, SourceLoc loc) {
  checkOperand(op, x, loc);
  int64_t rank = x.rank();
  if (dim < -rank || dim >= rank || rank == 0)
    throw Error("rlx::" + op + ": dim " + std::to_string(dim) +
                " is out of range for " + x.type().str() + loc.suffix());
  if (dim < 0)
    dim += rank;
  if (axisSize < 1)
    throw Error("rlx::" + op + ": axis_size must be >= 1, got " +
                std::to_string(axisSize) + loc.suffix());
  Shape shape = x.shape();
  if (shape[dim] >= 0)
    shape[dim] = gather ? shape[dim] * axisSize : shape[dim] / axisSize;
  mlir::Builder b(sharedContext().get());
  return buildTyped<OpTy>(x.scope(), op, loc, TensorType{x.dtype(), shape},
                          valueOf(x), b.getStringAttr(axis),
                          b.getI64IntegerAttr(dim),
                          b.getI64IntegerAttr(axisSize));
}

} // namespace

Tensor psum(const Tensor &x, const std::string &axis, SourceLoc loc) {
  return allReduce("psum", x, axis, "sum", loc);
}

Tensor pmean(const Tensor &x, const std::string &axis, SourceLoc loc) {
  return allReduce("pmean", x, axis, "mean", loc);
}

Tensor pmax(const Tensor &x, const std::string &axis, SourceLoc loc) {
  return allReduce("pmax", x, axis, "max", loc);
}

Tensor pmin(const Tensor &x, const std::string &axis, SourceLoc loc) {
  return allReduce("pmin", x, axis, "min", loc);
}

Tensor all_gather(const Tensor &x, const std::string &axis, int64_t dim,
                  int64_t axisSize, SourceLoc loc) {
  return scaled<AllGatherOp>("all_gather", x, axis, dim, axisSize, true, loc);
}

Tensor psum_scatter(const Tensor &x, const std::string &axis, int64_t dim,
                    int64_t axisSize, SourceLoc loc) {
  return scaled<ReduceScatterOp>("psum_scatter", x, axis, dim, axisSize, false,
                                 loc);
}

Tensor pbroadcast(const Tensor &x, const std::string &axis, int64_t root,
                  SourceLoc loc) {
  checkOperand("pbroadcast", x, loc);
  mlir::Builder b(sharedContext().get());
  return buildTyped<BroadcastOp>(x.scope(), "pbroadcast", loc, x.type(),
                                 valueOf(x), b.getStringAttr(axis),
                                 b.getI64IntegerAttr(root));
}

Tensor axis_index(Scope &s, const std::string &axis, SourceLoc loc) {
  mlir::Builder b(sharedContext().get());
  return buildTyped<AxisIndexOp>(s, "axis_index", loc, TensorType{DType::i32, {}},
                                 b.getStringAttr(axis));
}

} // namespace rlx
