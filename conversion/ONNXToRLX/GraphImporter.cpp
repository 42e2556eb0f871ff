//===- GraphImporter.cpp - Walking an ONNX graph into rlx -----------------===//
///
/// \file
/// The graph walk, the lookup of ONNX names (params and constants made on
/// first use, so initializers that only feed shapes never become params),
/// node contexts and the decoding of ONNX tensors.
///
//===----------------------------------------------------------------------===//

#include "conversion/ONNXToRLX/GraphImporter.h"
#include "conversion/ONNXToRLX/ConverterUtils.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/StringSet.h"

#include <cstring>

namespace mlir::rlx::onnx_import {

//===----------------------------------------------------------------------===//
// Tensors
//===----------------------------------------------------------------------===//

Type elementTypeOf(MLIRContext *context, int32_t onnxType) {
  Builder b(context);
  switch (onnxType) {
  case onnx::TensorProto::FLOAT:
    return b.getF32Type();
  case onnx::TensorProto::DOUBLE:
    return b.getF64Type();
  case onnx::TensorProto::FLOAT16:
    return b.getF16Type();
  case onnx::TensorProto::BFLOAT16:
    return b.getBF16Type();
  case onnx::TensorProto::INT8:
    return b.getIntegerType(8);
  case onnx::TensorProto::INT32:
    return b.getIntegerType(32);
  case onnx::TensorProto::INT64:
    return b.getIntegerType(64);
  case onnx::TensorProto::BOOL:
    return b.getI1Type();
  default:
    return {};
  }
}

Type heldElementTypeOf(MLIRContext *context, int32_t onnxType) {
  switch (onnxType) {
  case onnx::TensorProto::UINT8:
  case onnx::TensorProto::UINT16:
  case onnx::TensorProto::INT16:
    return IntegerType::get(context, 32);
  case onnx::TensorProto::UINT32:
  case onnx::TensorProto::UINT64:
    return IntegerType::get(context, 64);
  default:
    return {};
  }
}

Type boundaryElementTypeOf(MLIRContext *context, int32_t onnxType) {
  switch (onnxType) {
  case onnx::TensorProto::UINT8:
    return IntegerType::get(context, 8, IntegerType::Unsigned);
  case onnx::TensorProto::UINT16:
    return IntegerType::get(context, 16, IntegerType::Unsigned);
  case onnx::TensorProto::UINT32:
    return IntegerType::get(context, 32, IntegerType::Unsigned);
  case onnx::TensorProto::UINT64:
    return IntegerType::get(context, 64, IntegerType::Unsigned);
  case onnx::TensorProto::INT16:
    return IntegerType::get(context, 16);
  default:
    return {};
  }
}

Value castHeldToBoundary(OpBuilder &b, Location loc, Value held,
                         int32_t onnxType, bool rehold) {
  auto type = cast<RankedTensorType>(held.getType());
  MLIRContext *context = b.getContext();
  Value narrow = CastOp::create(
      b, loc, type.clone(boundaryElementTypeOf(context, onnxType)), held);
  if (!rehold)
    return narrow;
  return CastOp::create(
      b, loc, type.clone(heldElementTypeOf(context, onnxType)), narrow);
}

DenseElementsAttr wrapHeldConstant(DenseElementsAttr value, int32_t onnxType) {
  unsigned bits =
      boundaryElementTypeOf(value.getContext(), onnxType).getIntOrFloatBitWidth();
  bool isSigned = onnxType == onnx::TensorProto::INT16;
  SmallVector<int64_t> wrapped;
  for (const APInt &v : value.getValues<APInt>()) {
    APInt low = v.trunc(bits);
    wrapped.push_back(isSigned ? low.getSExtValue()
                               : static_cast<int64_t>(low.getZExtValue()));
  }
  return intsAttr(value.getContext(), wrapped, value.getType().getShape(),
                  value.getElementType());
}

std::string onnxTypeName(int32_t onnxType) {
  if (onnx::TensorProto::DataType_IsValid(onnxType))
    return onnx::TensorProto::DataType_Name(
        static_cast<onnx::TensorProto::DataType>(onnxType));
  return "data type " + std::to_string(onnxType);
}

namespace {

/// Bytes per element as rlx stores them (i1: one byte).
size_t storageBytes(Type type) {
  if (type.isInteger(1))
    return 1;
  return type.getIntOrFloatBitWidth() / 8;
}

/// The elements of `tensor` as rlx stores them (row-major, little-endian,
/// one byte per i1), with its type; the reason in `error` on failure.
bool tensorBytes(MLIRContext *context, const onnx::TensorProto &tensor,
                 RankedTensorType &type, std::vector<char> &bytes,
                 std::string &error) {
  // uint8 ... uint64 and int16 are held in i32 or i64 (heldElementTypeOf).
  Type heldType = heldElementTypeOf(context, tensor.data_type());
  Type elementType =
      heldType ? heldType : elementTypeOf(context, tensor.data_type());
  if (!elementType) {
    error = onnxTypeName(tensor.data_type()) + " tensors are not supported";
    return false;
  }
  SmallVector<int64_t> dims;
  uint64_t count = 1;
  for (int64_t dim : tensor.dims()) {
    // At most 2^59 elements: their bytes (8 at most each) fit 2^62.
    if (dim < 0 || (dim > 0 && count > (uint64_t(1) << 59) / uint64_t(dim))) {
      error = "has an invalid dim " + std::to_string(dim);
      return false;
    }
    count *= static_cast<uint64_t>(dim);
    dims.push_back(dim);
  }
  type = RankedTensorType::get(dims, elementType);
  size_t width = storageBytes(elementType);
  auto shapeText = [&] {
    std::string s = "[";
    for (size_t i = 0; i < dims.size(); ++i)
      s += (i ? ", " : "") + std::to_string(dims[i]);
    return s + "]";
  };
  auto mismatch = [&](uint64_t have, const char *unit) {
    error = "has " + std::to_string(have) + " " + unit +
            " of data but its dims " + shapeText() + " of " +
            onnxTypeName(tensor.data_type()) + " need " +
            std::to_string(std::strcmp(unit, "bytes") ? count : count * width);
    return false;
  };
  if (tensor.data_location() == onnx::TensorProto::EXTERNAL) {
    error = "has external data that was not loaded";
    return false;
  }
  // A held element's value from the low bits of `bits`, as its ONNX type
  // reads them.
  bool isSigned = tensor.data_type() == onnx::TensorProto::INT16;
  unsigned onnxBits =
      heldType ? boundaryElementTypeOf(context, tensor.data_type())
                     .getIntOrFloatBitWidth()
               : 0;
  auto heldValue = [&](uint64_t bits) {
    if (onnxBits < 64)
      bits &= (uint64_t(1) << onnxBits) - 1;
    if (isSigned && (bits >> (onnxBits - 1)))
      bits |= ~((uint64_t(1) << onnxBits) - 1);
    return bits;
  };
  if (tensor.has_raw_data() && heldType) {
    const std::string &raw = tensor.raw_data();
    size_t onnxWidth = onnxBits / 8;
    if (raw.size() != count * onnxWidth) {
      width = onnxWidth;
      return mismatch(raw.size(), "bytes");
    }
    bytes.resize(count * width);
    for (uint64_t i = 0; i < count; ++i) {
      uint64_t bits = 0;
      std::memcpy(&bits, raw.data() + i * onnxWidth, onnxWidth);
      uint64_t value = heldValue(bits);
      std::memcpy(bytes.data() + i * width, &value, width);
    }
    return true;
  }
  if (tensor.has_raw_data()) {
    const std::string &raw = tensor.raw_data();
    if (raw.size() != count * width)
      return mismatch(raw.size(), "bytes");
    bytes.assign(raw.begin(), raw.end());
    if (elementType.isInteger(1))
      for (char &c : bytes)
        c = c != 0;
    return true;
  }
  auto copyFrom = [&](const auto &field, auto convert) {
    if (static_cast<uint64_t>(field.size()) != count)
      return mismatch(field.size(), "elements");
    bytes.resize(count * width);
    for (uint64_t i = 0; i < count; ++i) {
      auto value = convert(field[static_cast<int>(i)]);
      std::memcpy(bytes.data() + i * width, &value, width);
    }
    return true;
  };
  switch (tensor.data_type()) {
  case onnx::TensorProto::FLOAT:
    return copyFrom(tensor.float_data(), [](float v) { return v; });
  case onnx::TensorProto::DOUBLE:
    return copyFrom(tensor.double_data(), [](double v) { return v; });
  case onnx::TensorProto::INT64:
    return copyFrom(tensor.int64_data(), [](int64_t v) { return v; });
  case onnx::TensorProto::INT32:
    return copyFrom(tensor.int32_data(), [](int32_t v) { return v; });
  case onnx::TensorProto::INT8:
    return copyFrom(tensor.int32_data(),
                    [](int32_t v) { return static_cast<int8_t>(v); });
  case onnx::TensorProto::UINT8:
  case onnx::TensorProto::UINT16:
  case onnx::TensorProto::INT16:
    return copyFrom(tensor.int32_data(), [&](int32_t v) {
      return static_cast<int32_t>(heldValue(static_cast<uint32_t>(v)));
    });
  case onnx::TensorProto::UINT32:
    return copyFrom(tensor.uint64_data(), [&](uint64_t v) {
      return static_cast<int64_t>(heldValue(v));
    });
  case onnx::TensorProto::UINT64:
    return copyFrom(tensor.uint64_data(), [](uint64_t v) { return v; });
  case onnx::TensorProto::BOOL:
    return copyFrom(tensor.int32_data(),
                    [](int32_t v) { return static_cast<int8_t>(v != 0); });
  case onnx::TensorProto::FLOAT16:
  case onnx::TensorProto::BFLOAT16:
    // The 16 bits of each element in the low half of an int32.
    return copyFrom(tensor.int32_data(),
                    [](int32_t v) { return static_cast<uint16_t>(v); });
  default:
    error = onnxTypeName(tensor.data_type()) + " tensors are not supported";
    return false;
  }
}

} // namespace

std::optional<DenseElementsAttr> decodeTensor(MLIRContext *context,
                                              const onnx::TensorProto &tensor,
                                              std::string &error) {
  RankedTensorType type;
  std::vector<char> bytes;
  if (!tensorBytes(context, tensor, type, bytes, error))
    return std::nullopt;
  if (type.getElementType().isInteger(1)) {
    SmallVector<bool> bits(bytes.begin(), bytes.end());
    return DenseElementsAttr::get(type, ArrayRef<bool>(bits));
  }
  return DenseElementsAttr::getFromRawBuffer(type, ArrayRef<char>(bytes));
}

SmallVector<int64_t> toInts(DenseElementsAttr value) {
  SmallVector<int64_t> result;
  for (const APInt &v : value.getValues<APInt>())
    result.push_back(value.getElementType().isInteger(1) ? v.getZExtValue()
                                                         : v.getSExtValue());
  return result;
}

//===----------------------------------------------------------------------===//
// NodeContext
//===----------------------------------------------------------------------===//

OpBuilder &NodeContext::builder() { return importer.builder; }

InFlightDiagnostic NodeContext::error() {
  InFlightDiagnostic diag = emitError(loc)
                            << importer.errorPrefix << "node " << index << " ";
  if (!node.name().empty())
    diag << "'" << node.name() << "' ";
  diag << "(" << node.op_type() << "): ";
  return diag;
}

FailureOr<Value> NodeContext::input(unsigned i) {
  if (!hasInput(i))
    return error() << "input " << i << " is missing";
  return importer.lookup(node.input(i), *this);
}

FailureOr<RankedTensorType> NodeContext::inputType(unsigned i) {
  FailureOr<Value> value = input(i);
  if (failed(value))
    return failure();
  return cast<RankedTensorType>(value->getType());
}

std::optional<DenseElementsAttr> NodeContext::constantInput(unsigned i) {
  if (!hasInput(i))
    return std::nullopt;
  return importer.lookupConstant(node.input(i), this);
}

FailureOr<SmallVector<int64_t>> NodeContext::constantInts(unsigned i,
                                                          StringRef what) {
  if (!hasInput(i))
    return error() << "input " << i << " (" << what << ") is missing";
  std::optional<DenseElementsAttr> value = constantInput(i);
  if (!value)
    return error() << "input " << i << " (" << what << ", '" << node.input(i)
                   << "') must be known at import time (a constant, an "
                      "initializer or a static shape)";
  if (!isa<IntegerType>(value->getElementType()))
    return error() << "input " << i << " (" << what << ") must be integers";
  return toInts(*value);
}

bool NodeContext::inputIsUint8(unsigned i) const {
  return hasInput(i) && importer.isUint8(node.input(i));
}

int32_t NodeContext::inputHeldType(unsigned i) const {
  return hasInput(i) ? importer.heldType(node.input(i)) : 0;
}

void NodeContext::markOutputUint8(unsigned i) {
  markOutputHeld(i, onnx::TensorProto::UINT8);
}

void NodeContext::markOutputHeld(unsigned i, int32_t onnxType) {
  if (hasOutput(i))
    importer.heldTypes[node.output(i)] = onnxType;
}

void NodeContext::setOutput(unsigned i, Value value) {
  if (hasOutput(i))
    importer.values[node.output(i)] = value;
}

void NodeContext::setConstantOutput(unsigned i, DenseElementsAttr value) {
  if (hasOutput(i))
    importer.constants[node.output(i)] = value;
}

LogicalResult NodeContext::expectUnusedOutputsFrom(unsigned first) {
  for (int i = first; i < node.output_size(); ++i)
    if (!node.output(i).empty() && importer.usedNames.contains(node.output(i)))
      return error() << "output " << i << " ('" << node.output(i)
                     << "') is not supported by the importer, and is used";
  return success();
}

const onnx::AttributeProto *NodeContext::attribute(StringRef name) const {
  for (const onnx::AttributeProto &attr : node.attribute())
    if (attr.name() == name)
      return &attr;
  return nullptr;
}

FailureOr<int64_t> NodeContext::getInt(StringRef name, int64_t fallback) {
  const onnx::AttributeProto *attr = attribute(name);
  if (!attr)
    return fallback;
  if (attr->type() != onnx::AttributeProto::INT)
    return error() << "attribute '" << name << "' must be an int";
  return attr->i();
}

FailureOr<float> NodeContext::getFloat(StringRef name, float fallback) {
  const onnx::AttributeProto *attr = attribute(name);
  if (!attr)
    return fallback;
  if (attr->type() != onnx::AttributeProto::FLOAT)
    return error() << "attribute '" << name << "' must be a float";
  return attr->f();
}

FailureOr<std::string> NodeContext::getString(StringRef name,
                                              StringRef fallback) {
  const onnx::AttributeProto *attr = attribute(name);
  if (!attr)
    return fallback.str();
  if (attr->type() != onnx::AttributeProto::STRING)
    return error() << "attribute '" << name << "' must be a string";
  return attr->s();
}

FailureOr<SmallVector<int64_t>>
NodeContext::getInts(StringRef name, ArrayRef<int64_t> fallback) {
  const onnx::AttributeProto *attr = attribute(name);
  if (!attr)
    return SmallVector<int64_t>(fallback);
  if (attr->type() != onnx::AttributeProto::INTS)
    return error() << "attribute '" << name << "' must be a list of ints";
  return SmallVector<int64_t>(attr->ints().begin(), attr->ints().end());
}

LogicalResult NodeContext::unsupportedAttribute(StringRef name,
                                                const Twine &why) {
  return error() << "attribute '" << name << "' (opset " << kONNXImportOpset
                 << "): " << why;
}

LogicalResult NodeContext::checkKnownAttributes(ArrayRef<StringRef> known) {
  for (const onnx::AttributeProto &attr : node.attribute())
    if (!llvm::is_contained(known, attr.name()))
      return unsupportedAttribute(attr.name(),
                                  "the importer does not know this attribute");
  return success();
}

//===----------------------------------------------------------------------===//
// GraphImporter
//===----------------------------------------------------------------------===//

int32_t GraphImporter::heldType(StringRef name) const {
  auto held = heldTypes.find(name);
  if (held != heldTypes.end())
    return held->second;
  auto init = initializers.find(name);
  if (init != initializers.end() &&
      heldElementTypeOf(builder.getContext(), init->second->data_type()))
    return init->second->data_type();
  return 0;
}

bool GraphImporter::isUint8(StringRef name) const {
  return heldType(name) == onnx::TensorProto::UINT8;
}

namespace {

/// The quantized ops: they read uint8 (held as i32) knowing what it is.
bool isQuantizedOp(StringRef opType) {
  return llvm::is_contained({"QuantizeLinear", "DequantizeLinear",
                             "DynamicQuantizeLinear", "MatMulInteger",
                             "QLinearMatMul", "ConvInteger", "QLinearConv"},
                            opType);
}

/// Ops whose results are elements of their inputs (or comparisons of
/// them): a held result needs no wrap into its ONNX type's range.
bool keepsHeldRange(StringRef opType) {
  return llvm::is_contained(
      {"Identity", "Reshape", "Flatten", "Squeeze", "Unsqueeze", "Transpose",
       "Concat", "Split", "Slice", "Gather", "GatherElements", "GatherND",
       "Expand", "Tile", "Pad", "Where", "Max", "Min", "ReduceMax",
       "ReduceMin", "Clip", "TopK", "DepthToSpace", "SpaceToDepth",
       "ScatterND", "ScatterElements", "MaxPool", "GlobalMaxPool", "Dropout",
       "Mod", "Relu"},
      opType);
}

/// Ops whose result depends on the sign of their operands' values, so
/// that uint64 values of 2^63 and more (negative in the i64 rlx holds
/// them in) would be computed wrongly.
bool readsSign(StringRef opType) {
  return llvm::is_contained(
      {"Div", "Mod", "Less", "LessOrEqual", "Greater", "GreaterOrEqual", "Max",
       "Min", "ArgMax", "ArgMin", "ReduceMax", "ReduceMin", "ReduceMean",
       "Mean", "TopK", "Clip", "Abs", "Relu", "Sign", "MaxPool",
       "GlobalMaxPool", "CumSum", "Pow"},
      opType);
}

/// The input whose ONNX type the op's outputs have (Where's and OneHot's
/// data come after their condition or indices).
unsigned typeSourceInput(StringRef opType) {
  if (opType == "Where")
    return 1;
  if (opType == "OneHot")
    return 2;
  return 0;
}

/// Outputs that never have their inputs' ONNX type, whatever their
/// element type: indices, shapes and sizes.
bool isIndexOutput(StringRef opType, unsigned output) {
  return llvm::is_contained({"ArgMax", "ArgMin", "Shape", "Size", "NonZero"},
                            opType) ||
         (opType == "TopK" && output == 1);
}

} // namespace

Location GraphImporter::fileLoc() {
  return FileLineColLoc::get(builder.getContext(), fileName, 0, 0);
}

Value GraphImporter::materialize(DenseElementsAttr value, Location loc) {
  return ConstantOp::create(builder, loc, value.getType(),
                            cast<ElementsAttr>(value));
}

std::optional<DenseElementsAttr>
GraphImporter::lookupConstant(StringRef name, NodeContext *ctx) {
  auto known = constants.find(name);
  if (known != constants.end())
    return known->second;
  if (!scopes.empty()) {
    // Inside a subgraph: its own values first, then what the enclosing
    // graphs know.
    if (values.count(name))
      return std::nullopt;
    for (const std::unique_ptr<Scope> &scope : llvm::reverse(scopes)) {
      auto outer = scope->constants.find(name);
      if (outer != scope->constants.end())
        return outer->second;
      if (scope->values.count(name))
        return std::nullopt;
    }
  }
  auto init = initializers.find(name);
  if (init == initializers.end())
    return std::nullopt;
  std::string error;
  std::optional<DenseElementsAttr> value =
      decodeTensor(builder.getContext(), *init->second, error);
  if (!value) {
    if (ctx)
      ctx->error() << "initializer '" << name << "' " << error;
    return std::nullopt;
  }
  // Inside a subgraph the weight stays the enclosing graph's (captured
  // when read as data), so its value is not cached as the subgraph's.
  if (scopes.empty())
    constants[name] = *value;
  return value;
}

FailureOr<Value> GraphImporter::lookup(StringRef name, NodeContext &ctx) {
  auto found = values.find(name);
  if (found != values.end())
    return found->second;
  if (!scopes.empty() && !symbolicShapes.count(name)) {
    // Inside a subgraph: a value it knows, else one from outside.
    auto known = constants.find(name);
    if (known == constants.end())
      return capture(name, ctx);
    Value value = materialize(known->second, ctx.loc);
    values[name] = value;
    return value;
  }
  auto init = initializers.find(name);
  if (init != initializers.end()) {
    // An initializer read as data: a param bound by its ONNX name.
    ONNXWeight weight;
    weight.name = name.str();
    std::string error;
    if (!tensorBytes(builder.getContext(), *init->second, weight.type,
                     weight.bytes, error))
      return ctx.error() << "initializer '" << name << "' " << error;
    Value param = ParamOp::create(builder, fileLoc(), weight.type, name);
    weights.push_back(std::move(weight));
    values[name] = param;
    return param;
  }
  auto known = constants.find(name);
  if (known != constants.end()) {
    Value value = materialize(known->second, ctx.loc);
    values[name] = value;
    return value;
  }
  auto symbolic = symbolicShapes.find(name);
  if (symbolic != symbolicShapes.end()) {
    // A shape read as data: computed at run time, once.
    FailureOr<Value> value = materializeSymbolicShape(ctx, symbolic->second);
    if (failed(value))
      return failure();
    values[name] = *value;
    return value;
  }
  return ctx.error() << "input '" << name
                     << "' is not produced by an earlier node, a graph input "
                        "or an initializer";
}

void GraphImporter::swapState(Scope &scope) {
  std::swap(values, scope.values);
  std::swap(constants, scope.constants);
  std::swap(symbolicShapes, scope.symbolicShapes);
}

void GraphImporter::enterSubgraph(Block *body, const Twine &prefix) {
  auto scope = std::make_unique<Scope>();
  scope->insertPoint = builder.saveInsertionPoint();
  scope->errorPrefix = errorPrefix;
  scope->body = body;
  swapState(*scope);
  errorPrefix = prefix.str();
  builder.setInsertionPointToEnd(body);
  scopes.push_back(std::move(scope));
}

SmallVector<Value> GraphImporter::exitSubgraph() {
  std::unique_ptr<Scope> scope = scopes.pop_back_val();
  swapState(*scope);
  errorPrefix = scope->errorPrefix;
  builder.restoreInsertionPoint(scope->insertPoint);
  return std::move(scope->captures);
}

FailureOr<Value> GraphImporter::capture(StringRef name, NodeContext &ctx) {
  // Known at import in an enclosing graph and not a weight: a constant
  // here too, so that shape arithmetic inside folds.
  if (!initializers.count(name))
    if (std::optional<DenseElementsAttr> known = lookupConstant(name, &ctx)) {
      Value value = materialize(*known, ctx.loc);
      values[name] = value;
      return value;
    }
  // Looked up as the enclosing graph's own nodes would (making its param,
  // or capturing it in turn from further out), before the control-flow op
  // being built there.
  std::unique_ptr<Scope> scope = scopes.pop_back_val();
  swapState(*scope);
  OpBuilder::InsertPoint inner = builder.saveInsertionPoint();
  builder.restoreInsertionPoint(scope->insertPoint);
  FailureOr<Value> outer = lookup(name, ctx);
  scope->insertPoint = builder.saveInsertionPoint();
  builder.restoreInsertionPoint(inner);
  swapState(*scope);
  scopes.push_back(std::move(scope));
  if (failed(outer))
    return failure();
  Scope &current = *scopes.back();
  BlockArgument arg = current.body->insertArgument(current.captures.size(),
                                                   outer->getType(), ctx.loc);
  current.captures.push_back(*outer);
  dimSymbols[arg] = SmallVector<int64_t>(symbolsOf(*outer));
  values[name] = arg;
  return Value(arg);
}

namespace {

/// Every name read by `graph`'s nodes and those of its subgraphs.
void collectUsedNames(const onnx::GraphProto &graph, llvm::StringSet<> &used) {
  for (const onnx::NodeProto &node : graph.node()) {
    for (const std::string &input : node.input())
      used.insert(input);
    for (const onnx::AttributeProto &attr : node.attribute()) {
      if (attr.has_g())
        collectUsedNames(attr.g(), used);
      for (const onnx::GraphProto &g : attr.graphs())
        collectUsedNames(g, used);
    }
  }
  for (const onnx::ValueInfoProto &output : graph.output())
    used.insert(output.name());
}

/// The type of a graph input or output, or the reason it has none.
FailureOr<RankedTensorType> valueType(MLIRContext *context,
                                      const onnx::ValueInfoProto &info,
                                      std::string &error) {
  if (!info.type().has_tensor_type()) {
    error = "is not a tensor";
    return failure();
  }
  const onnx::TypeProto::Tensor &tensor = info.type().tensor_type();
  // uint8 ... uint64 and int16 cross the boundary as themselves (ui8 ...):
  // importGraph casts them to and from the type rlx computes them in.
  Type elementType = boundaryElementTypeOf(context, tensor.elem_type());
  if (!elementType)
    elementType = elementTypeOf(context, tensor.elem_type());
  if (!elementType) {
    error = "has element type " + onnxTypeName(tensor.elem_type()) +
            ", which is not supported";
    return failure();
  }
  if (!tensor.has_shape()) {
    error = "has no shape (unranked tensors are not supported)";
    return failure();
  }
  SmallVector<int64_t> dims;
  for (const onnx::TensorShapeProto::Dimension &dim : tensor.shape().dim())
    dims.push_back(dim.has_dim_value() && dim.dim_value() >= 0
                       ? dim.dim_value()
                       : ShapedType::kDynamic);
  return RankedTensorType::get(dims, elementType);
}

} // namespace

LogicalResult GraphImporter::importNodes(const onnx::GraphProto &graph,
                                         Block *block) {
  Location loc = fileLoc();
  const llvm::StringMap<OpConverter> &converters = opConverters();
  for (auto [index, node] : llvm::enumerate(graph.node())) {
    std::string label = node.name().empty()
                            ? node.op_type() + "_" + std::to_string(index)
                            : node.name();
    Location nodeLoc = NameLoc::get(builder.getStringAttr(label), loc);
    NodeContext ctx(*this, node, index, nodeLoc);
    if (!node.domain().empty() && node.domain() != "ai.onnx")
      return ctx.error() << "op domain '" << node.domain()
                         << "' is not supported (only the default ONNX domain)";
    auto converter = converters.find(node.op_type());
    if (converter == converters.end())
      return ctx.error() << "op '" << node.op_type() << "' (opset "
                         << kONNXImportOpset
                         << ") is not supported by the ONNX importer";
    StringRef opType = node.op_type();
    for (const std::string &name : node.input()) {
      int32_t held = name.empty() ? 0 : heldType(name);
      if (!held)
        continue;
      if (isQuantizedOp(opType) && held != onnx::TensorProto::UINT8)
        return ctx.error() << "reads '" << name << "', a "
                           << onnxTypeName(held)
                           << " tensor: the quantized ops read int8 and uint8 "
                              "data";
      if (held == onnx::TensorProto::UINT64 && readsSign(opType))
        return ctx.error() << "reads '" << name
                           << "', a UINT64 tensor: rlx computes uint64 in "
                              "i64, where "
                           << opType
                           << " would be wrong for values of 2^63 and more";
    }
    Operation *before = block->empty() ? nullptr : &block->back();
    FailureOr<bool> symbolic = convertSymbolicShapeOp(ctx);
    if (failed(symbolic) || (!*symbolic && failed(converter->second(ctx))))
      return failure();
    // An op computing on held values (not the quantized ops and Cast, which
    // mark their own): its outputs of the held type are of the ONNX type
    // too, wrapped into its range where the op may leave it.
    if (int32_t held = ctx.inputHeldType(typeSourceInput(opType));
        held && !isQuantizedOp(opType) && opType != "Cast" &&
        opType != "CastLike") {
      Type heldElement = heldElementTypeOf(builder.getContext(), held);
      for (int i = 0; i < node.output_size(); ++i) {
        if (!ctx.hasOutput(i) || isIndexOutput(opType, i))
          continue;
        auto value = values.find(node.output(i));
        auto known = constants.find(node.output(i));
        if (value != values.end() &&
            typeOf(value->second).getElementType() == heldElement) {
          ctx.markOutputHeld(i, held);
          if (!keepsHeldRange(opType))
            value->second = castHeldToBoundary(builder, nodeLoc,
                                               value->second, held, true);
        } else if (value == values.end() && known != constants.end() &&
                   known->second.getElementType() == heldElement) {
          // Folded at import (integer arithmetic on initializers).
          ctx.markOutputHeld(i, held);
          if (!keepsHeldRange(opType))
            known->second = wrapHeldConstant(known->second, held);
        }
      }
    }
    // Ops whose result type the converter chose (reshape, cast, ...) are
    // verified here, so that an error names the node.
    for (Operation &op : llvm::make_range(
             before ? std::next(before->getIterator()) : block->begin(),
             block->end())) {
      if (failed(verify(&op)))
        return ctx.error() << "the rlx ops built for it are invalid (see the "
                              "error above)";
      assignSymbols(&op);
    }
  }
  return success();
}

LogicalResult GraphImporter::importGraph(const onnx::GraphProto &graph,
                                         ModuleOp module) {
  MLIRContext *context = builder.getContext();
  Location loc = fileLoc();
  this->module = module;
  if (graph.sparse_initializer_size() > 0)
    return emitError(loc) << "sparse initializers are not supported";
  for (const onnx::TensorProto &tensor : graph.initializer())
    initializers[tensor.name()] = &tensor;
  collectUsedNames(graph, usedNames);

  // Graph inputs that are also initializers (old exporters list every
  // weight as an input) are params, not arguments.
  SmallVector<const onnx::ValueInfoProto *> inputs;
  SmallVector<Type> argTypes;
  for (const onnx::ValueInfoProto &input : graph.input()) {
    if (initializers.count(input.name()))
      continue;
    std::string error;
    FailureOr<RankedTensorType> type = valueType(context, input, error);
    if (failed(type))
      return emitError(loc) << "graph input '" << input.name() << "' " << error;
    inputs.push_back(&input);
    argTypes.push_back(*type);
  }

  builder.setInsertionPointToEnd(module.getBody());
  auto func = func::FuncOp::create(builder, loc, "main",
                                   builder.getFunctionType(argTypes, {}));
  Block *entry = func.addEntryBlock();
  builder.setInsertionPointToEnd(entry);
  for (auto [i, input] : llvm::enumerate(inputs)) {
    func.setArgAttr(i, "rlx.name", builder.getStringAttr(input->name()));
    Value value = entry->getArgument(i);
    // Dims with the same dim_param are the same size.
    SmallVector<int64_t> symbols;
    for (const onnx::TensorShapeProto::Dimension &dim :
         input->type().tensor_type().shape().dim())
      symbols.push_back(dim.has_dim_value() && dim.dim_value() >= 0 ? 0
                        : dim.has_dim_param() ? namedSymbol(dim.dim_param())
                                              : freshSymbol());
    dimSymbols[value] = symbols;
    int32_t onnxType = input->type().tensor_type().elem_type();
    if (Type held = heldElementTypeOf(context, onnxType)) {
      value = CastOp::create(builder, loc,
                             cast<RankedTensorType>(value.getType())
                                 .clone(held),
                             value);
      dimSymbols[value] = symbols;
      heldTypes[input->name()] = onnxType;
    }
    values[input->name()] = value;
  }

  if (failed(importNodes(graph, entry)))
    return failure();

  SmallVector<Value> results;
  SmallVector<Type> resultTypes;
  for (const onnx::ValueInfoProto &output : graph.output()) {
    auto found = values.find(output.name());
    Value value;
    if (found != values.end()) {
      value = found->second;
    } else if (std::optional<DenseElementsAttr> known =
                   lookupConstant(output.name(), nullptr)) {
      value =
          initializers.count(output.name())
              ? ParamOp::create(builder, loc, known->getType(), output.name())
                    .getResult()
              : materialize(*known, loc);
      if (initializers.count(output.name())) {
        ONNXWeight weight;
        weight.name = output.name();
        std::string error;
        tensorBytes(context, *initializers[output.name()], weight.type,
                    weight.bytes, error);
        weights.push_back(std::move(weight));
      }
      // An output named twice reads the same value.
      values[output.name()] = value;
    } else if (symbolicShapes.count(output.name())) {
      return emitError(loc) << "graph output '" << output.name()
                            << "' is a shape computed from dynamic dims; "
                               "returning one is not supported";
    } else {
      return emitError(loc) << "graph output '" << output.name()
                            << "' is not produced by any node";
    }
    // A held value leaves as its ONNX type (ui8 ...).
    if (int32_t held = heldType(output.name()))
      value = castHeldToBoundary(builder, loc, value, held);
    results.push_back(value);
    resultTypes.push_back(value.getType());
  }
  func::ReturnOp::create(builder, loc, results);
  func.setType(builder.getFunctionType(argTypes, resultTypes));
  for (auto [i, output] : llvm::enumerate(graph.output()))
    func.setResultAttr(i, "rlx.name", builder.getStringAttr(output.name()));
  return success();
}

OwningOpRef<ModuleOp>
GraphImporter::importModel(const onnx::ModelProto &model) {
  OwningOpRef<ModuleOp> module = ModuleOp::create(fileLoc());
  if (failed(importGraph(model.graph(), *module)) || failed(verify(*module)))
    return nullptr;
  return module;
}

} // namespace mlir::rlx::onnx_import
