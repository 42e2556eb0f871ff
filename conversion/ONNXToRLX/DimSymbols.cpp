//===- DimSymbols.cpp - Which dynamic dims are the same -------------------===//
///
/// \file
/// Each dynamic dim of an imported value gets a symbol: a graph input's
/// `dim_param` names one (two inputs with dim_param "batch" share it), and
/// each rlx op built passes its operands' symbols to the dims of its result
/// that are the same size by its shape rule (elementwise broadcasting,
/// transposes, matmul's batch and outer dims, gathers, reductions, reshapes
/// that keep a dim's group). A dim no rule explains gets a fresh symbol.
/// Shape arithmetic on dynamic dims (ShapeArithmetic.cpp) reads them: a
/// Reshape target that names the batch of another input is still the batch
/// of the reshaped value when both carry its symbol.
///
//===----------------------------------------------------------------------===//

#include "conversion/ONNXToRLX/GraphImporter.h"

#include "dialects/RLX/IR/RLXTraits.h"

namespace mlir::rlx::onnx_import {

int64_t GraphImporter::freshSymbol() { return ++lastSymbol; }

int64_t GraphImporter::namedSymbol(StringRef dimParam) {
  auto [it, inserted] = dimParamSymbols.try_emplace(dimParam, 0);
  if (inserted)
    it->second = freshSymbol();
  return it->second;
}

ArrayRef<int64_t> GraphImporter::symbolsOf(Value value) {
  auto found = dimSymbols.find(value);
  if (found != dimSymbols.end())
    return found->second;
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<int64_t> symbols;
  for (int64_t dim : type.getShape())
    symbols.push_back(ShapedType::isDynamic(dim) ? freshSymbol() : 0);
  return dimSymbols[value] = symbols;
}

namespace {

/// The product of the static dims of `shape`, or -1 with more than one
/// dynamic dim.
int64_t staticProduct(ArrayRef<int64_t> shape) {
  int64_t product = 1;
  for (int64_t d : shape)
    if (!ShapedType::isDynamic(d) &&
        __builtin_mul_overflow(product, d, &product))
      return -1;
  return product;
}

} // namespace

void GraphImporter::assignSymbols(Operation *op) {
  for (Value result : op->getResults()) {
    auto type = dyn_cast<RankedTensorType>(result.getType());
    if (!type || dimSymbols.count(result))
      continue;
    ArrayRef<int64_t> shape = type.getShape();
    int64_t rank = shape.size();
    SmallVector<int64_t> symbols(rank, 0);
    auto take = [&](int64_t i, int64_t symbol) {
      if (ShapedType::isDynamic(shape[i]) && !symbols[i])
        symbols[i] = symbol;
    };
    auto operandSymbols = [&](unsigned i) {
      return symbolsOf(op->getOperand(i));
    };
    auto dimOf = [&](unsigned i, int64_t d) {
      return cast<RankedTensorType>(op->getOperand(i).getType()).getDimSize(d);
    };

    if (op->hasTrait<OpTrait::rlx::BroadcastingShape>() ||
        op->hasTrait<OpTrait::SameOperandsAndResultType>() ||
        isa<CastOp, PadOp>(op)) {
      // Right-aligned: a dynamic result dim is a dynamic operand dim there.
      for (unsigned k = 0; k < op->getNumOperands(); ++k) {
        auto operandType =
            dyn_cast<RankedTensorType>(op->getOperand(k).getType());
        if (!operandType || operandType.getRank() > rank)
          continue;
        ArrayRef<int64_t> s = operandSymbols(k);
        int64_t offset = rank - operandType.getRank();
        for (int64_t i = 0; i < operandType.getRank(); ++i)
          if (ShapedType::isDynamic(operandType.getDimSize(i)))
            take(offset + i, s[i]);
      }
    } else if (auto t = dyn_cast<TransposeOp>(op)) {
      ArrayRef<int64_t> s = operandSymbols(0);
      for (auto [i, p] : llvm::enumerate(t.getPermutation()))
        take(i, s[p]);
    } else if (isa<MatmulOp>(op)) {
      ArrayRef<int64_t> lhs = operandSymbols(0), rhs = operandSymbols(1);
      take(rank - 2, lhs[lhs.size() - 2]);
      take(rank - 1, rhs[rhs.size() - 1]);
      for (ArrayRef<int64_t> s : {lhs, rhs})
        for (int64_t i = 0, n = s.size() - 2; i < n; ++i)
          take(rank - 2 - n + i, s[i]);
    } else if (auto g = dyn_cast<GatherOp>(op)) {
      ArrayRef<int64_t> x = operandSymbols(0), idx = operandSymbols(1);
      int64_t axis = g.getAxis(), n = idx.size();
      for (int64_t i = 0; i < axis; ++i)
        take(i, x[i]);
      for (int64_t i = 0; i < n; ++i)
        take(axis + i, idx[i]);
      for (int64_t i = axis + 1; i < (int64_t)x.size(); ++i)
        take(i - 1 + n, x[i]);
    } else if (auto c = dyn_cast<ConcatOp>(op)) {
      for (unsigned k = 0; k < op->getNumOperands(); ++k) {
        ArrayRef<int64_t> s = operandSymbols(k);
        for (int64_t i = 0; i < rank; ++i)
          if (i != (int64_t)c.getAxis() && ShapedType::isDynamic(dimOf(k, i)))
            take(i, s[i]);
      }
    } else if (auto s = dyn_cast<SliceOp>(op)) {
      // A dynamic dim taken whole keeps its size.
      ArrayRef<int64_t> x = operandSymbols(0);
      for (int64_t i = 0; i < rank; ++i)
        if (s.getStart()[i] == 0 && s.getLimit()[i] == -1 &&
            s.getStrides()[i] == 1)
          take(i, x[i]);
    } else if (auto b = dyn_cast<BroadcastInDimOp>(op)) {
      ArrayRef<int64_t> x = operandSymbols(0);
      for (auto [i, d] : llvm::enumerate(b.getBroadcastDimensions()))
        if (ShapedType::isDynamic(dimOf(0, i)))
          take(d, x[i]);
    } else if (isa<SumOp, MeanOp, MaxOp>(op)) {
      ArrayRef<int64_t> axes = op->getAttrOfType<DenseI64ArrayAttr>("axes");
      bool keep = op->getAttrOfType<BoolAttr>("keepdims").getValue();
      ArrayRef<int64_t> x = operandSymbols(0);
      for (int64_t i = 0, j = 0; i < (int64_t)x.size(); ++i) {
        bool reduced = llvm::is_contained(axes, i);
        if (!reduced || keep) {
          if (!reduced)
            take(j, x[i]);
          ++j;
        }
      }
    } else if (isa<Conv2DOp, MaxPool2DOp, AvgPool2DOp>(op)) {
      take(0, operandSymbols(0)[0]); // The batch.
    } else if (isa<ReshapeOp>(op)) {
      // Dims copied in place (an equal prefix or suffix of both shapes)
      // keep their symbols; with one dynamic dim on each side and equal
      // static products, the dynamic dim is the same size too.
      ArrayRef<int64_t> in =
          cast<RankedTensorType>(op->getOperand(0).getType()).getShape();
      ArrayRef<int64_t> x = operandSymbols(0);
      int64_t n = in.size();
      for (int64_t i = 0; i < std::min(n, rank) && in[i] == shape[i]; ++i)
        take(i, x[i]);
      for (int64_t i = 1;
           i <= std::min(n, rank) && in[n - i] == shape[rank - i]; ++i)
        take(rank - i, x[n - i]);
      if (llvm::count_if(in, ShapedType::isDynamic) == 1 &&
          llvm::count_if(shape, ShapedType::isDynamic) == 1 &&
          staticProduct(in) == staticProduct(shape))
        take(llvm::find_if(shape, ShapedType::isDynamic) - shape.begin(),
             x[llvm::find_if(in, ShapedType::isDynamic) - in.begin()]);
    }
    for (int64_t i = 0; i < rank; ++i)
      if (ShapedType::isDynamic(shape[i]) && !symbols[i])
        symbols[i] = freshSymbol();
    dimSymbols[result] = symbols;
  }
}

} // namespace mlir::rlx::onnx_import
