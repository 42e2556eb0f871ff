//===- DimConstraints.cpp - Run-time equalities of dynamic dims -----------===//

#include "codegen/ABI/DimConstraints.h"
#include "dialects/RLX/IR/RLXDialect.h"
#include "dialects/RLX/IR/ShapeUtils.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/EquivalenceClasses.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::rlx;

namespace {

/// A dim of a tensor value, identified by (value, dim index).
using DimRef = std::pair<Value, unsigned>;

/// Union-find over dims, with a static size per class when one is known.
class DimRelations {
public:
  int64_t size(Value v, unsigned d) {
    return cast<RankedTensorType>(v.getType()).getDimSize(d);
  }

  /// Records that dim `a` and dim `b` are equal at run time.
  void equate(Value a, unsigned da, Value b, unsigned db) {
    int64_t sa = size(a, da), sb = size(b, db);
    bool dynA = ShapedType::isDynamic(sa), dynB = ShapedType::isDynamic(sb);
    if (!dynA && !dynB)
      return;
    if (dynA && dynB) {
      classes.unionSets(key(a, da), key(b, db));
      return;
    }
    if (dynA)
      staticSizes.push_back({key(a, da), sb});
    else
      staticSizes.push_back({key(b, db), sa});
  }

  /// Records that dim `d` of `v` equals `size` at run time.
  void require(Value v, unsigned d, int64_t size) {
    if (ShapedType::isDynamic(this->size(v, d)))
      staticSizes.push_back({key(v, d), size});
  }

  /// Equates every dim of `a` with the same dim of `b` (same rank).
  void equateAll(Value a, Value b) {
    unsigned rank = cast<RankedTensorType>(a.getType()).getRank();
    for (unsigned d = 0; d < rank; ++d)
      equate(a, d, b, d);
  }

  /// Elementwise broadcasting: result dims against right-aligned operand
  /// dims that are not stretched from a static 1.
  void broadcast(Value result, ValueRange operands, unsigned trailing = 0) {
    auto rType = cast<RankedTensorType>(result.getType());
    unsigned rRank = rType.getRank() - trailing;
    for (Value operand : operands) {
      auto oType = cast<RankedTensorType>(operand.getType());
      unsigned oRank = oType.getRank() - trailing;
      for (unsigned od = 0; od < oRank; ++od) {
        unsigned d = od + (rRank - oRank);
        if (oType.getDimSize(od) == 1 && rType.getDimSize(d) != 1)
          continue;
        equate(result, d, operand, od);
      }
    }
  }

  std::vector<DimConstraint> constraintsOn(func::FuncOp func) {
    // Class leader → constraint.
    llvm::MapVector<unsigned, DimConstraint> byClass;
    for (BlockArgument arg : func.getArguments()) {
      auto type = dyn_cast<RankedTensorType>(arg.getType());
      if (!type)
        continue;
      for (unsigned d = 0; d < type.getRank(); ++d) {
        if (!type.isDynamicDim(d))
          continue;
        unsigned leader = leaderOf(key(arg, d));
        byClass[leader].dims.push_back({arg.getArgNumber(), d});
      }
    }
    for (auto &[k, size] : staticSizes) {
      auto it = byClass.find(leaderOf(k));
      if (it != byClass.end())
        it->second.size = size;
    }
    std::vector<DimConstraint> result;
    for (auto &entry : byClass)
      if (entry.second.dims.size() > 1 || entry.second.size >= 0)
        result.push_back(entry.second);
    return result;
  }

private:
  /// Dims are keyed by a stable opaque pointer built from the value and dim.
  unsigned key(Value v, unsigned d) {
    auto [it, inserted] = ids.try_emplace(DimRef{v, d}, 0u);
    if (inserted) {
      it->second = static_cast<unsigned>(ids.size());
      classes.insert(it->second);
    }
    return it->second;
  }
  unsigned leaderOf(unsigned k) { return classes.getLeaderValue(k); }

  llvm::DenseMap<DimRef, unsigned> ids;
  llvm::EquivalenceClasses<unsigned> classes;
  std::vector<std::pair<unsigned, int64_t>> staticSizes;
};

void relate(Operation *op, DimRelations &rel) {
  if (op->getNumResults() != 1 ||
      !isa<RankedTensorType>(op->getResult(0).getType()))
    return;
  Value result = op->getResult(0);
  llvm::TypeSwitch<Operation *>(op)
      .Case<MatmulOp>([&](MatmulOp mm) {
        Value lhs = mm.getLhs(), rhs = mm.getRhs();
        unsigned lr = mm.getLhs().getType().getRank();
        unsigned rr = mm.getRhs().getType().getRank();
        unsigned r = mm.getType().getRank();
        rel.equate(lhs, lr - 1, rhs, rr - 2);        // K
        rel.equate(result, r - 2, lhs, lr - 2);      // M
        rel.equate(result, r - 1, rhs, rr - 1);      // N
        rel.broadcast(result, {lhs, rhs}, /*trailing=*/2);
      })
      .Case<Conv2DOp>([&](Conv2DOp conv) {
        rel.equate(result, 0, conv.getInput(), 0);
        auto filter = conv.getFilter().getType();
        rel.require(conv.getInput(), 3,
                    filter.getDimSize(2) * static_cast<int64_t>(conv.getGroups()));
      })
      .Case<MaxPool2DOp, AvgPool2DOp>([&](auto pool) {
        rel.equate(result, 0, pool.getInput(), 0);
        rel.equate(result, 3, pool.getInput(), 3);
      })
      .Case<SumOp, MeanOp, MaxOp>([&](auto reduce) {
        Value x = reduce.getX();
        unsigned rank = reduce.getX().getType().getRank();
        unsigned out = 0;
        for (unsigned d = 0; d < rank; ++d) {
          if (llvm::is_contained(reduce.getAxes(), int64_t(d))) {
            out += reduce.getKeepdims() ? 1 : 0;
            continue;
          }
          rel.equate(result, out++, x, d);
        }
      })
      .Case<ReshapeOp>([&](ReshapeOp reshape) {
        auto in = reshape.getX().getType(), out = reshape.getType();
        // Several dynamic result dims: each equals its group's operand dim.
        if (out.getNumDynamicDims() > 1) {
          auto groups = groupReshape(in.getShape(), out.getShape());
          if (!groups)
            return;
          for (const ReshapeGroup &g : *groups) {
            int64_t din = g.inBegin, dout = g.outBegin;
            while (din < g.inEnd && !in.isDynamicDim(din))
              ++din;
            while (dout < g.outEnd && !out.isDynamicDim(dout))
              ++dout;
            if (din < g.inEnd && dout < g.outEnd)
              rel.equate(result, dout, reshape.getX(), din);
          }
          return;
        }
        // One dynamic dim in and out with the same static part: equal.
        if (in.getNumDynamicDims() != 1 || out.getNumDynamicDims() != 1)
          return;
        auto staticPart = [](RankedTensorType t) {
          int64_t p = 1;
          for (int64_t s : t.getShape())
            if (!ShapedType::isDynamic(s))
              p *= s;
          return p;
        };
        if (staticPart(in) != staticPart(out))
          return;
        unsigned din = 0, dout = 0;
        while (!in.isDynamicDim(din))
          ++din;
        while (!out.isDynamicDim(dout))
          ++dout;
        rel.equate(result, dout, reshape.getX(), din);
      })
      .Case<TransposeOp>([&](TransposeOp t) {
        for (auto [i, p] : llvm::enumerate(t.getPermutation()))
          rel.equate(result, i, t.getX(), p);
      })
      .Case<BroadcastInDimOp>([&](BroadcastInDimOp b) {
        auto in = b.getX().getType();
        for (auto [i, d] : llvm::enumerate(b.getBroadcastDimensions()))
          if (in.getDimSize(i) != 1 || b.getType().getDimSize(d) == 1)
            rel.equate(result, d, b.getX(), i);
      })
      .Case<SliceOp>([&](SliceOp s) {
        auto in = s.getX().getType();
        for (unsigned d = 0; d < in.getRank(); ++d)
          if (in.isDynamicDim(d) && s.getStart()[d] == 0 &&
              s.getLimit()[d] == -1)
            rel.equate(result, d, s.getX(), d);
      })
      .Case<ConcatOp>([&](ConcatOp c) {
        unsigned rank = c.getType().getRank();
        for (Value input : c.getInputs())
          for (unsigned d = 0; d < rank; ++d)
            if (d != c.getAxis())
              rel.equate(result, d, input, d);
      })
      .Case<GatherOp>([&](GatherOp g) {
        unsigned axis = g.getAxis();
        unsigned idxRank = g.getIndices().getType().getRank();
        unsigned rank = g.getX().getType().getRank();
        for (unsigned d = 0; d < axis; ++d)
          rel.equate(result, d, g.getX(), d);
        for (unsigned d = 0; d < idxRank; ++d)
          rel.equate(result, axis + d, g.getIndices(), d);
        for (unsigned d = axis + 1; d < rank; ++d)
          rel.equate(result, d + idxRank - 1, g.getX(), d);
      })
      .Case<BlockDequantizeOp>([&](BlockDequantizeOp bd) {
        // The scales' blocked dim is a ceil division of x's: not expressed
        // (the kernel checks it at run time).
        rel.equateAll(result, bd.getX());
        for (unsigned d = 0; d < bd.getX().getType().getRank(); ++d)
          if (d != bd.getAxis())
            rel.equate(result, d, bd.getScales(), d);
      })
      .Default([&](Operation *other) {
        if (other->hasTrait<OpTrait::rlx::BroadcastingShape>()) {
          rel.broadcast(result, other->getOperands());
          return;
        }
        // Same-shape ops (unary, gelu, cast, softmax): dim for dim.
        for (Value operand : other->getOperands())
          if (operand.getType() == result.getType() ||
              (isa<RankedTensorType>(operand.getType()) &&
               cast<RankedTensorType>(operand.getType()).getShape() ==
                   cast<RankedTensorType>(result.getType()).getShape()))
            rel.equateAll(result, operand);
      });
}

} // namespace

std::vector<DimConstraint> mlir::rlx::inferDimConstraints(func::FuncOp func) {
  DimRelations rel;
  func.walk([&](Operation *op) {
    if (op->getDialect() && isa<RLXDialect>(op->getDialect()))
      relate(op, rel);
  });
  // Results returned directly tie nothing; everything else is in the ops.
  return rel.constraintsOn(func);
}
