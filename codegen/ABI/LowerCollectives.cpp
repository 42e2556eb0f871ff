//===- LowerCollectives.cpp - Collectives become calls of the runtime -----===//
///
/// \file
/// Each rlx collective becomes two calls of `rlx_collective_<type>(kind,
/// dtype, in, out, count, arg)`: one starting it (RLX_COLLECTIVE_START) and,
/// where its result is first read, one waiting for it (CollectiveSchedule.h
/// says where those go). Both take 1-D views of its operand's and result's
/// buffers (`bufferization.to_buffer` of the operand, a fresh `memref.alloc`
/// for the result, read back with `to_tensor restrict`), which
/// rlx-define-collective-hooks defines over the runtime's collective hook
/// (rlx/abi.h). Passing the memrefs themselves, not pointers taken from
/// them, keeps the buffers alive across the call for the deallocation
/// passes. The runtime moves contiguous blocks, so all_gather and
/// reduce_scatter along dim d > 0 transpose d to the front and back
/// around the call. One declaration per element type, since a function
/// has one type; after lowering to LLVM they share one signature.
///
/// CPU only: a GPU target's buffers are device memory, which the
/// communicators do not take yet, so there a collective is an error.
///
//===----------------------------------------------------------------------===//

#include "codegen/ABI/CollectiveSchedule.h"
#include "codegen/ABI/Passes.h"
#include "dialects/RLX/IR/RLXDialect.h"
#include "rlx/abi.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "llvm/ADT/MapVector.h"

namespace mlir::rlx {
#define GEN_PASS_DEF_RLXLOWERCOLLECTIVES
#include "codegen/ABI/Passes.h.inc"
} // namespace mlir::rlx

using namespace mlir;
using namespace mlir::rlx;

namespace {

/// The rlx_dtype_t value and function suffix of `element`, or -1.
std::pair<int32_t, StringRef> dtypeOf(Type element) {
  if (element.isF16())
    return {0, "f16"};
  if (element.isBF16())
    return {1, "bf16"};
  if (element.isF32())
    return {2, "f32"};
  if (element.isF64())
    return {3, "f64"};
  if (element.isInteger(1))
    return {4, "i1"};
  if (element.isInteger(8))
    return {5, "i8"};
  if (element.isInteger(32))
    return {6, "i32"};
  if (element.isInteger(64))
    return {7, "i64"};
  return {-1, ""};
}

/// What one collective asks of the runtime.
struct Request {
  int32_t kind;
  int64_t arg = 0;
  /// all_gather/reduce_scatter: the dim moved to the front, and the factor
  /// (> 0: the result's is that times the operand's; < 0: divided by it).
  int64_t dim = 0;
  int64_t scale = 1;
};

Request requestFor(Operation *op) {
  if (auto reduce = dyn_cast<AllReduceOp>(op)) {
    StringRef kind = reduce.getKind();
    return {kind == "sum"    ? RLX_COLLECTIVE_ALL_REDUCE_SUM
            : kind == "mean" ? RLX_COLLECTIVE_ALL_REDUCE_MEAN
            : kind == "max"  ? RLX_COLLECTIVE_ALL_REDUCE_MAX
                             : RLX_COLLECTIVE_ALL_REDUCE_MIN};
  }
  if (auto gather = dyn_cast<AllGatherOp>(op)) {
    auto size = static_cast<int64_t>(gather.getAxisSize());
    return {RLX_COLLECTIVE_ALL_GATHER, size,
            static_cast<int64_t>(gather.getDim()), size};
  }
  if (auto scatter = dyn_cast<ReduceScatterOp>(op)) {
    auto size = static_cast<int64_t>(scatter.getAxisSize());
    return {RLX_COLLECTIVE_REDUCE_SCATTER, size,
            static_cast<int64_t>(scatter.getDim()), -size};
  }
  if (auto broadcast = dyn_cast<BroadcastOp>(op))
    return {RLX_COLLECTIVE_BROADCAST, static_cast<int64_t>(broadcast.getRoot())};
  return {RLX_COLLECTIVE_AXIS_INDEX};
}

/// `perm` moving `dim` to the front.
SmallVector<int64_t> frontPermutation(int64_t rank, int64_t dim) {
  SmallVector<int64_t> perm = {dim};
  for (int64_t d = 0; d < rank; ++d)
    if (d != dim)
      perm.push_back(d);
  return perm;
}

RankedTensorType permuted(RankedTensorType type, ArrayRef<int64_t> perm) {
  SmallVector<int64_t> shape;
  for (int64_t p : perm)
    shape.push_back(type.getDimSize(p));
  return type.clone(shape);
}

Value transposed(OpBuilder &b, Location loc, Value x, ArrayRef<int64_t> perm) {
  auto type = permuted(cast<RankedTensorType>(x.getType()), perm);
  return TransposeOp::create(b, loc, type, x, b.getDenseI64ArrayAttr(perm));
}

/// A 1-D `memref<?xT>` view of identity-layout `buffer` (rank >= 1).
Value flatView(OpBuilder &b, Location loc, Value buffer) {
  auto type = cast<MemRefType>(buffer.getType());
  Value flat = buffer;
  if (type.getRank() != 1) {
    ReassociationIndices all;
    for (int64_t d = 0; d < type.getRank(); ++d)
      all.push_back(d);
    flat = memref::CollapseShapeOp::create(b, loc, buffer,
                                           ArrayRef<ReassociationIndices>{all});
  }
  auto dynamic = MemRefType::get({ShapedType::kDynamic}, type.getElementType());
  return memref::CastOp::create(b, loc, dynamic, flat);
}

/// The callee for `element`, declared once per module.
func::FuncOp declareCallee(ModuleOp module, SymbolTable &symbols, Type element,
                           StringRef suffix) {
  std::string name = ("rlx_collective_" + suffix).str();
  if (auto existing = symbols.lookup<func::FuncOp>(name))
    return existing;
  OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
  auto buffer = MemRefType::get({ShapedType::kDynamic}, element);
  auto type = b.getFunctionType({b.getI32Type(), b.getI32Type(), buffer,
                                 buffer, b.getI64Type(), b.getI64Type()},
                                {});
  auto fn = func::FuncOp::create(b, module.getLoc(), name, type);
  fn.setPrivate();
  symbols.insert(fn);
  return fn;
}

LogicalResult lower(Operation *op, SymbolTable &symbols, ModuleOp module) {
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  auto [dtype, suffix] = dtypeOf(resultType.getElementType());
  if (dtype < 0)
    return op->emitOpError("element type ")
           << resultType.getElementType()
           << " is not supported by the collectives' runtime";
  Request request = requestFor(op);
  Location loc = op->getLoc();
  // axis_index has nothing to wait for; the rest start here and end there.
  bool async = request.kind != RLX_COLLECTIVE_AXIS_INDEX;
  Operation *waitPoint = async ? waitPointOf(op) : nullptr;
  OpBuilder b(op);
  Value x = op->getNumOperands() ? op->getOperand(0) : Value();
  RankedTensorType outType = resultType;

  // Rank 0 as rank 1; the scaled dim in front.
  bool scalar = resultType.getRank() == 0;
  SmallVector<int64_t> perm;
  if (scalar) {
    outType = RankedTensorType::get({1}, resultType.getElementType());
    if (x)
      x = ReshapeOp::create(b, loc, outType, x);
  } else if (request.dim != 0) {
    perm = frontPermutation(resultType.getRank(), request.dim);
    x = transposed(b, loc, x, perm);
    outType = permuted(resultType, perm);
  }

  Value in;
  SmallVector<Value> outSizes;
  if (x) {
    auto xType = cast<RankedTensorType>(x.getType());
    Value buffer = bufferization::ToBufferOp::create(
        b, loc, MemRefType::get(xType.getShape(), xType.getElementType()), x,
        /*read_only=*/true);
    for (int64_t d = 0; d < outType.getRank(); ++d) {
      if (!outType.isDynamicDim(d))
        continue;
      Value size = memref::DimOp::create(b, loc, buffer, d);
      if (d == 0 && request.scale != 1) {
        Value factor = arith::ConstantIndexOp::create(
            b, loc, std::abs(request.scale));
        size = request.scale > 0
                   ? arith::MulIOp::create(b, loc, size, factor).getResult()
                   : arith::DivUIOp::create(b, loc, size, factor).getResult();
      }
      outSizes.push_back(size);
    }
    in = flatView(b, loc, buffer);
  }
  auto outBufferType =
      MemRefType::get(outType.getShape(), outType.getElementType());
  Value outBuffer = memref::AllocOp::create(b, loc, outBufferType, outSizes);
  Value out = flatView(b, loc, outBuffer);
  if (!in)
    in = out; // axis_index reads nothing

  // The count the hook takes: the block for gather/scatter, else all.
  Value count = memref::DimOp::create(
      b, loc, request.kind == RLX_COLLECTIVE_REDUCE_SCATTER ? out : in, 0);
  count = arith::IndexCastOp::create(b, loc, b.getI64Type(), count);
  auto i32 = [&](int64_t v) {
    return arith::ConstantIntOp::create(b, loc, b.getI32Type(), v);
  };
  Value arg = arith::ConstantIntOp::create(b, loc, b.getI64Type(), request.arg);
  func::FuncOp callee =
      declareCallee(module, symbols, resultType.getElementType(), suffix);
  func::CallOp::create(
      b, loc, callee,
      ValueRange{i32(async ? request.kind | RLX_COLLECTIVE_START : request.kind),
                 i32(dtype), in, out, count, arg});
  if (async) {
    // The wait reads both buffers, so both live until it. Nothing to wait
    // before (no terminator, no reader): right after the start.
    if (waitPoint)
      b.setInsertionPoint(waitPoint);
    func::CallOp::create(b, loc, callee,
                         ValueRange{i32(RLX_COLLECTIVE_WAIT), i32(dtype), in,
                                    out, count, arg});
  }

  Value result = bufferization::ToTensorOp::create(
      b, loc, outType, outBuffer, /*restrict=*/true, /*writable=*/true);
  if (scalar)
    result = ReshapeOp::create(b, loc, resultType, result);
  else if (!perm.empty()) {
    SmallVector<int64_t> inverse(perm.size());
    for (auto [i, p] : llvm::enumerate(perm))
      inverse[p] = static_cast<int64_t>(i);
    result = transposed(b, loc, result, inverse);
  }
  op->getResult(0).replaceAllUsesWith(result);
  op->erase();
  return success();
}

struct RLXLowerCollectivesPass
    : mlir::rlx::impl::RLXLowerCollectivesBase<RLXLowerCollectivesPass> {
  using Base::Base;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<Operation *> ops;
    module.walk([&](Operation *op) {
      if (isa<AllReduceOp, AllGatherOp, ReduceScatterOp, BroadcastOp,
              AxisIndexOp>(op))
        ops.push_back(op);
    });
    if (ops.empty())
      return;
    if (target != "cpu") {
      ops.front()->emitOpError("is not supported on target '")
          << target << "' yet (collectives run on the CPU target only)";
      return signalPassFailure();
    }
    // Per block, in program order.
    llvm::MapVector<Block *, SmallVector<Operation *>> byBlock;
    for (Operation *op : ops)
      byBlock[op->getBlock()].push_back(op);
    for (auto &[block, collectives] : byBlock)
      scheduleCollectives(collectives);
    SymbolTable symbols(module);
    for (Operation *op : ops)
      if (failed(lower(op, symbols, module)))
        return signalPassFailure();
  }
};

} // namespace
