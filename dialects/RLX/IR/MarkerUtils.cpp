//===- MarkerUtils.cpp - What a transform marker differentiates -----------===//

#include "dialects/RLX/IR/MarkerUtils.h"
#include "dialects/RLX/IR/RLXDialect.h"

#include "llvm/ADT/SmallPtrSet.h"

using namespace mlir;
using namespace mlir::rlx;

static void collectParamsInto(
    func::FuncOp func, SymbolTableCollection &symbols,
    llvm::MapVector<StringRef, RankedTensorType> &params,
    llvm::SmallPtrSetImpl<Operation *> &visited) {
  if (!func || !visited.insert(func).second)
    return;
  func.walk([&](Operation *op) {
    if (auto param = dyn_cast<ParamOp>(op)) {
      params.insert({param.getName(), param.getType()});
      return;
    }
    auto visit = [&](FlatSymbolRefAttr symbolRef) {
      collectParamsInto(
          symbols.lookupNearestSymbolFrom<func::FuncOp>(op, symbolRef),
          symbols, params, visited);
    };
    if (auto symbolRef = op->getAttrOfType<FlatSymbolRefAttr>("callee"))
      visit(symbolRef);
    // Loops and branches read the params of their bodies.
    if (isa<ScanOp, WhileOp, SwitchOp>(op))
      op->getAttrDictionary().walk([&](FlatSymbolRefAttr ref) { visit(ref); });
  });
}

llvm::MapVector<StringRef, RankedTensorType>
mlir::rlx::collectParams(func::FuncOp func, SymbolTableCollection &symbols) {
  llvm::MapVector<StringRef, RankedTensorType> params;
  llvm::SmallPtrSet<Operation *, 8> visited;
  collectParamsInto(func, symbols, params, visited);
  return params;
}

/// The random op of `callee` that reads its argument `input` as a key, if
/// any: asking for the gradient with respect to it gets its own message.
static Operation *keyUser(func::FuncOp callee, int64_t input) {
  if (!callee || callee.isExternal() ||
      input >= static_cast<int64_t>(callee.getNumArguments()))
    return nullptr;
  Value arg = callee.getArgument(input);
  for (OpOperand &use : arg.getUses())
    if (use.getOperandNumber() == 0 &&
        isa<RandomBitsOp, RandomUniformOp, RandomNormalOp,
            RandomTruncatedNormalOp, RandomSplitOp, RandomFoldInOp>(use.getOwner()))
      return use.getOwner();
  return nullptr;
}

FailureOr<SmallVector<Leaf>>
mlir::rlx::resolveLeaves(Operation *marker, func::FuncOp callee,
                   ArrayRef<int64_t> wrt, Attribute wrtParams,
                   SymbolTableCollection &symbols) {
  SmallVector<Leaf> leaves;
  for (int64_t position : wrt) {
    if (position < 0 || position >= callee.getNumArguments())
      return marker->emitOpError("expects wrt positions in [0, ")
             << callee.getNumArguments() << "), got " << position;
    auto type = dyn_cast<RankedTensorType>(callee.getArgumentTypes()[position]);
    if (!type)
      return marker->emitOpError("expects ranked tensor arguments");
    Leaf leaf;
    leaf.input = position;
    leaf.type = type;
    leaves.push_back(leaf);
  }
  if (wrtParams) {
    llvm::MapVector<StringRef, RankedTensorType> params =
        collectParams(callee, symbols);
    SmallVector<StringRef> names;
    if (auto word = dyn_cast<StringAttr>(wrtParams)) {
      if (word.getValue() != "all")
        return marker->emitOpError(
                   "expects wrt_params to be \"all\" or a list of param "
                   "names, got \"")
               << word.getValue() << "\"";
      for (auto &entry : params)
        names.push_back(entry.first);
    } else if (auto list = dyn_cast<ArrayAttr>(wrtParams)) {
      for (Attribute a : list) {
        auto name = dyn_cast<StringAttr>(a);
        if (!name)
          return marker->emitOpError(
              "expects wrt_params to be \"all\" or a list of param names");
        if (!params.count(name.getValue()))
          return marker->emitOpError("expects param '")
                 << name.getValue() << "' to be read by @"
                 << callee.getSymName();
        names.push_back(name.getValue());
      }
    } else {
      return marker->emitOpError(
          "expects wrt_params to be \"all\" or a list of param names");
    }
    for (StringRef name : names) {
      Leaf leaf;
      leaf.isParam = true;
      leaf.paramName = name.str();
      leaf.type = params.lookup(name);
      leaves.push_back(leaf);
    }
  }
  if (leaves.empty())
    return marker->emitOpError("expects something to differentiate: wrt "
                               "positions or wrt_params");
  for (const Leaf &leaf : leaves) {
    if (isa<FloatType>(leaf.type.getElementType()))
      continue;
    std::string what = leaf.isParam ? "param '" + leaf.paramName + "'"
                                    : "input " + std::to_string(leaf.input);
    if (Operation *user = leaf.isParam ? nullptr : keyUser(callee, leaf.input))
      return marker->emitOpError("cannot differentiate with respect to ")
             << what << " of type " << leaf.type << ": it is a PRNG key (of '"
             << user->getName() << "'), and keys carry no gradient";
    return marker->emitOpError("cannot differentiate with respect to ")
           << what << " of type " << leaf.type
           << ": hold integer or boolean data as a constant (not a leaf)";
  }
  return leaves;
}
