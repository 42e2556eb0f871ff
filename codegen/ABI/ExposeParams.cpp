//===- ExposeParams.cpp - rlx.param reads become entry arguments ----------===//
///
/// \file
/// The runtime passes weights like inputs (docs/abi.md), so each entry point
/// takes its params as trailing arguments. The manifest description of the
/// entry point is recorded here, while types are still tensors.
///
//===----------------------------------------------------------------------===//

#include "codegen/ABI/Passes.h"
#include "codegen/ABI/DimConstraints.h"
#include "dialects/RLX/IR/RLXDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/ConvertUTF.h"

namespace mlir::rlx {
#define GEN_PASS_DEF_RLXEXPOSEPARAMS
#include "codegen/ABI/Passes.h.inc"
} // namespace mlir::rlx

using namespace mlir;
using namespace mlir::rlx;

std::string mlir::rlx::dtypeName(Type t) {
  if (t.isF16())
    return "f16";
  if (t.isBF16())
    return "bf16";
  if (t.isF32())
    return "f32";
  if (t.isF64())
    return "f64";
  if (t.isSignlessInteger(1))
    return "i1";
  if (t.isSignlessInteger(8))
    return "i8";
  if (t.isSignlessInteger(32))
    return "i32";
  if (t.isSignlessInteger(64))
    return "i64";
  if (t.isSignlessInteger(16))
    return "i16";
  // ui8 ... ui64: MLIR's unsigned integers, as rlx.cast reads and writes them.
  if (t.isUnsignedInteger(8) || t.isUnsignedInteger(16) ||
      t.isUnsignedInteger(32) || t.isUnsignedInteger(64)) {
    std::string name;
    llvm::raw_string_ostream(name) << t;
    return name;
  }
  // The narrow floats the runtime has dtypes for: MLIR's spelling.
  if (isa<Float8E4M3FNType, Float8E5M2Type, Float8E4M3FNUZType,
          Float8E5M2FNUZType, Float6E3M2FNType, Float6E2M3FNType,
          Float4E2M1FNType, Float8E8M0FNUType>(t)) {
    std::string name;
    llvm::raw_string_ostream(name) << t;
    return name;
  }
  return "";
}

namespace {

/// {name, dtype, shape} of one tensor crossing the ABI, or a diagnostic.
FailureOr<DictionaryAttr> describe(Builder &b, StringRef name, Type type,
                                   function_ref<InFlightDiagnostic()> error) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor) {
    error() << "expects ranked tensors at the entry point boundary, '" << name
            << "' is " << type;
    return failure();
  }
  std::string dtype = dtypeName(tensor.getElementType());
  if (dtype.empty()) {
    error() << "expects a dtype among f16, bf16, f32, f64, i1, i8, i16, i32, "
               "i64, ui8, ui16, ui32, ui64, f8E4M3FN, f8E5M2, f8E4M3FNUZ, "
               "f8E5M2FNUZ, f6E3M2FN, f6E2M3FN, "
               "f4E2M1FN, f8E8M0FNU for '"
            << name << "', got " << tensor.getElementType();
    return failure();
  }
  SmallVector<int64_t> shape;
  for (int64_t d : tensor.getShape())
    shape.push_back(ShapedType::isDynamic(d) ? -1 : d);
  return b.getDictionaryAttr(
      {b.getNamedAttr("name", b.getStringAttr(name)),
       b.getNamedAttr("dtype", b.getStringAttr(dtype)),
       b.getNamedAttr("shape", b.getI64ArrayAttr(shape))});
}

/// `name` as the diagnostic shows it: quoted, with NUL and bytes outside
/// printable ASCII escaped.
std::string quoted(StringRef name) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << '"';
  llvm::printEscapedString(name, os);
  os << '"';
  return text;
}

/// The runtime takes names as C strings and the manifest is JSON: a name
/// holding a NUL or bytes that are not UTF-8 could never be bound or
/// looked up. `what` is "input 1", "param", "entry point", ...
LogicalResult checkName(StringRef name, StringRef what,
                        function_ref<InFlightDiagnostic()> error) {
  if (name.contains('\0'))
    return error() << "expects names without NUL characters, " << what
                   << " is named " << quoted(name);
  const auto *begin = reinterpret_cast<const llvm::UTF8 *>(name.begin());
  if (!llvm::isLegalUTF8String(
          &begin, reinterpret_cast<const llvm::UTF8 *>(name.end())))
    return error() << "expects names in UTF-8, " << what << " is named "
                   << quoted(name);
  return success();
}

/// Each of `names` is a valid name and none repeats: a call binds inputs and
/// returns outputs by name, so two of one name make one of them unreachable.
LogicalResult checkNames(ArrayRef<std::string> names, StringRef kind,
                         function_ref<InFlightDiagnostic(unsigned)> error) {
  llvm::StringMap<unsigned> first;
  for (auto [index, name] : llvm::enumerate(names)) {
    unsigned i = index; // a lambda cannot capture a structured binding
    std::string what = (kind + " " + Twine(i)).str();
    if (failed(checkName(name, what, [&] { return error(i); })))
      return failure();
    auto [it, inserted] = first.try_emplace(name, i);
    if (!inserted)
      return error(i) << "expects distinct " << kind << " names, " << kind
                      << "s " << it->second << " and " << i
                      << " are both named " << quoted(name);
  }
  return success();
}

struct RLXExposeParamsPass
    : mlir::rlx::impl::RLXExposeParamsBase<RLXExposeParamsPass> {
  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (func.isPrivate() || func.isExternal())
        continue;
      if (failed(exposeParams(func)))
        return signalPassFailure();
    }
  }

  LogicalResult exposeParams(func::FuncOp func) {
    Builder b(func.getContext());
    WalkResult calls = func.walk([&](func::CallOp call) {
      call.emitOpError("expects calls inside entry point '")
          << func.getSymName()
          << "' to be inlined before params are exposed (recursive calls "
             "cannot be)";
      return WalkResult::interrupt();
    });
    if (calls.wasInterrupted())
      return failure();

    if (failed(checkName(func.getSymName(), "entry point",
                         [&] { return func.emitOpError(); })))
      return failure();

    // One argument per distinct name, in order of first use.
    llvm::MapVector<StringRef, SmallVector<ParamOp>> params;
    func.walk([&](ParamOp op) { params[op.getName()].push_back(op); });
    for (auto &[name, ops] : params)
      if (failed(checkName(name, "param",
                           [&, &ops = ops] { return ops.front().emitOpError(); })))
        return failure();
    unsigned numInputs = func.getNumArguments();
    for (auto &[name, ops] : params) {
      Type type = ops.front().getType();
      for (ParamOp op : ops)
        if (op.getType() != type)
          return op.emitOpError("expects every read of param '")
                 << name << "' to have one type, got " << type << " and "
                 << op.getType();
      unsigned index = func.getNumArguments();
      DictionaryAttr attrs = b.getDictionaryAttr(
          b.getNamedAttr("rlx.param", b.getStringAttr(name)));
      if (failed(func.insertArgument(index, type, attrs, ops.front().getLoc())))
        return func.emitOpError("cannot add an argument for param '")
               << name << "'";
      for (ParamOp op : ops) {
        op.getResult().replaceAllUsesWith(func.getArgument(index));
        op.erase();
      }
    }

    // The manifest description of this entry point.
    auto error = [&]() { return func.emitOpError(); };
    SmallVector<std::string> inputNames, outputNames;
    for (unsigned i = 0; i < numInputs; ++i) {
      auto name = func.getArgAttrOfType<StringAttr>(i, "rlx.name");
      inputNames.push_back(name ? name.str() : "arg" + std::to_string(i));
    }
    for (unsigned i = 0; i < func.getNumResults(); ++i) {
      auto name = func.getResultAttrOfType<StringAttr>(i, "rlx.name");
      outputNames.push_back(name ? name.str() : "out" + std::to_string(i));
    }
    if (failed(checkNames(inputNames, "input",
                          [&](unsigned i) {
                            return emitError(func.getArgument(i).getLoc())
                                   << "'" << func.getSymName() << "' ";
                          })) ||
        failed(checkNames(outputNames, "output",
                          [&](unsigned) { return func.emitOpError(); })))
      return failure();

    SmallVector<Attribute> inputs, paramDescs, outputs;
    for (unsigned i = 0; i < numInputs; ++i) {
      FailureOr<DictionaryAttr> d =
          describe(b, inputNames[i], func.getArgumentTypes()[i], error);
      if (failed(d))
        return failure();
      inputs.push_back(*d);
    }
    for (auto [i, entryPair] : llvm::enumerate(params)) {
      FailureOr<DictionaryAttr> d =
          describe(b, entryPair.first,
                   func.getArgumentTypes()[numInputs + i], error);
      if (failed(d))
        return failure();
      paramDescs.push_back(*d);
    }
    for (unsigned i = 0; i < func.getNumResults(); ++i) {
      FailureOr<DictionaryAttr> d =
          describe(b, outputNames[i], func.getResultTypes()[i], error);
      if (failed(d))
        return failure();
      outputs.push_back(*d);
    }
    // Equalities among dynamic input dims that the runtime checks.
    SmallVector<Attribute> constraints;
    for (const DimConstraint &c : inferDimConstraints(func)) {
      if (llvm::any_of(c.dims, [&](auto dim) { return dim.first >= numInputs; }))
        continue;
      SmallVector<Attribute> dims;
      for (auto [input, dim] : c.dims)
        dims.push_back(b.getI64ArrayAttr({input, dim}));
      constraints.push_back(b.getDictionaryAttr(
          {b.getNamedAttr("dims", b.getArrayAttr(dims)),
           b.getNamedAttr("size", b.getI64IntegerAttr(c.size))}));
    }
    func->setAttr(
        "rlx.entry",
        b.getDictionaryAttr(
            {b.getNamedAttr("inputs", b.getArrayAttr(inputs)),
             b.getNamedAttr("params", b.getArrayAttr(paramDescs)),
             b.getNamedAttr("outputs", b.getArrayAttr(outputs)),
             b.getNamedAttr("dim_constraints", b.getArrayAttr(constraints))}));
    return success();
  }
};

} // namespace
