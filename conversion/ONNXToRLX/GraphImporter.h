//===- GraphImporter.h - Walking an ONNX graph into rlx ---------*- C++ -*-===//
///
/// \file
/// The importer's state while it walks one ONNX graph in node order (ONNX
/// graphs are topologically sorted, and the checker has verified it): the
/// rlx value of each ONNX name, the values known at import time (constants,
/// initializers, static shapes) so that shape arithmetic folds, and the
/// initializers that became params. Each node is handed to its op's
/// converter (OpConverters.cpp) through a NodeContext, which reads its
/// attributes and operands and reports errors naming the node.
///
//===----------------------------------------------------------------------===//

#ifndef RLX_CONVERSION_ONNXTORLX_GRAPHIMPORTER_H
#define RLX_CONVERSION_ONNXTORLX_GRAPHIMPORTER_H

#include "conversion/ONNXToRLX/ONNXToRLX.h"

#include "dialects/RLX/IR/CheckedBuilders.h"
#include "dialects/RLX/IR/RLXDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include "onnx/onnx_pb.h"

#include <functional>
#include <memory>
#include <optional>

namespace mlir::rlx::onnx_import {

class GraphImporter;

/// One node being converted: its attributes, operands and results, and
/// errors that name it (`node 3 'conv1' (Conv): ...`).
class NodeContext {
public:
  NodeContext(GraphImporter &importer, const onnx::NodeProto &node,
              unsigned index, Location loc)
      : importer(importer), node(node), index(index), loc(loc) {}

  GraphImporter &importer;
  const onnx::NodeProto &node;
  unsigned index;
  Location loc;

  OpBuilder &builder();
  StringRef opType() const { return node.op_type(); }

  /// An error at the node's location, prefixed with the node.
  InFlightDiagnostic error();

  /// The number of inputs, and whether input `i` is given (ONNX marks an
  /// omitted optional input with an empty name).
  unsigned numInputs() const { return node.input_size(); }
  bool hasInput(unsigned i) const {
    return static_cast<int>(i) < node.input_size() && !node.input(i).empty();
  }
  bool hasOutput(unsigned i) const {
    return static_cast<int>(i) < node.output_size() && !node.output(i).empty();
  }

  /// The rlx value of input `i`; an error if it is missing.
  FailureOr<Value> input(unsigned i);
  /// The type of input `i` (which must exist).
  FailureOr<RankedTensorType> inputType(unsigned i);
  /// The value of input `i` when it is known at import time (a constant,
  /// an initializer, a folded shape computation), else nullopt.
  std::optional<DenseElementsAttr> constantInput(unsigned i);
  /// Input `i` as integers, known at import time; an error naming `what`
  /// if it is not.
  FailureOr<SmallVector<int64_t>> constantInts(unsigned i, StringRef what);

  /// Whether input `i` is an ONNX uint8 tensor (held as i32).
  bool inputIsUint8(unsigned i) const;
  /// The ONNX type of input `i` when it is held in a wider type (uint8,
  /// uint16, uint32, uint64, int16: see heldElementTypeOf), else 0.
  int32_t inputHeldType(unsigned i) const;
  /// Marks output `i` as an ONNX uint8 tensor held as i32.
  void markOutputUint8(unsigned i);
  /// Marks output `i` as a tensor of ONNX type `onnxType` held in a wider
  /// type.
  void markOutputHeld(unsigned i, int32_t onnxType);
  /// Sets output `i` to `value` / to a value known at import time.
  void setOutput(unsigned i, Value value);
  void setConstantOutput(unsigned i, DenseElementsAttr value);
  /// An error if any output from `first` on is used (outputs such as
  /// MaxPool's Indices or BatchNormalization's running statistics that the
  /// importer does not produce).
  LogicalResult expectUnusedOutputsFrom(unsigned first);

  /// Attributes. The `get*` forms return `fallback` when the attribute is
  /// absent and fail (with an error) when it has the wrong type.
  const onnx::AttributeProto *attribute(StringRef name) const;
  FailureOr<int64_t> getInt(StringRef name, int64_t fallback);
  FailureOr<float> getFloat(StringRef name, float fallback);
  FailureOr<std::string> getString(StringRef name, StringRef fallback);
  FailureOr<SmallVector<int64_t>> getInts(StringRef name,
                                          ArrayRef<int64_t> fallback);
  /// An error for an attribute value the importer does not map.
  LogicalResult unsupportedAttribute(StringRef name, const Twine &why);
  /// An error for an attribute that is not in `known` (so that nothing is
  /// silently ignored).
  LogicalResult checkKnownAttributes(ArrayRef<StringRef> known);

  /// Builds an inferring rlx op, reporting a shape error against the node.
  template <typename OpTy, typename... Args>
  FailureOr<Value> create(Args &&...args) {
    FailureOr<OpTy> op =
        createChecked<OpTy>(builder(), loc, std::forward<Args>(args)...);
    if (failed(op))
      return error() << "its operands are rejected by "
                     << OpTy::getOperationName() << " (see the error above)",
             failure();
    return (*op)->getResult(0);
  }
};

/// Converts one node; errors are reported through the NodeContext.
using OpConverter = std::function<LogicalResult(NodeContext &)>;

/// The op table: ONNX op type (default domain) -> converter.
const llvm::StringMap<OpConverter> &opConverters();

/// A rank-0 or rank-1 integer tensor computed from shapes at import time
/// whose elements are not all known: an element is a number, a dynamic dim
/// of a value (`Shape` of a `?` dim), or unknown (arithmetic on one). Shape
/// arithmetic, `Reshape`, `Expand` and `ConstantOfShape` read it at import
/// (dynamic elements become dynamic dims); any other op reads it as a
/// tensor computed at run time (materializeSymbolicShape).
struct SymbolicShape {
  struct Element {
    int64_t value = ShapedType::kDynamic;
    /// For a dynamic dim: the value and the dim it is the size of, and that
    /// dim's symbol (DimSymbols.cpp).
    Value source;
    int64_t dim = -1;
    int64_t symbol = 0;
    bool known() const { return !ShapedType::isDynamic(value); }
  };
  SmallVector<Element> elements;
  bool scalar = false;
  Type elementType;
};

/// Input `i` as a symbolic shape: a symbolic one, or a known integer
/// tensor of rank 0 or 1; nullopt otherwise.
std::optional<SymbolicShape> symbolicInput(NodeContext &ctx, unsigned i);

/// Converts `ctx`'s node when it computes on symbolic shapes (a Shape of a
/// dynamic dim, arithmetic on one, a Reshape to one); returns false when
/// the node is not such a computation and its op's converter should run.
FailureOr<bool> convertSymbolicShapeOp(NodeContext &ctx);

/// A symbolic shape as a tensor computed at run time (a shape read as
/// data: `x.size(0)` in arithmetic on floats), or an error naming the node.
FailureOr<Value> materializeSymbolicShape(NodeContext &ctx,
                                          const SymbolicShape &shape);

/// A 1-D f32 tensor with as many elements as `source` has along `dim`
/// (a dynamic dim brought in as a tensor: rlx ops take no run-time sizes).
FailureOr<Value> dimCarrier(NodeContext &ctx, Value source, int64_t dim);

/// The size of `source`'s dim `dim` as a rank-0 tensor of `elementType`,
/// counted at run time (exact up to 2^24).
FailureOr<Value> dimSize(NodeContext &ctx, Value source, int64_t dim,
                         Type elementType);

/// The result shape of ONNX Reshape of `in` to `spec` (0: copy, -1: the
/// rest, kDynamic: a dynamic dim), or an error. `equalTo[i]`, when given
/// and not -1, is the input dim that the dynamic entry i equals.
FailureOr<SmallVector<int64_t>>
reshapeShape(NodeContext &ctx, ArrayRef<int64_t> in, ArrayRef<int64_t> spec,
             bool allowZero, ArrayRef<int64_t> equalTo = {});

/// Walks one graph and builds `@main`.
class GraphImporter {
public:
  GraphImporter(MLIRContext *context, StringRef fileName,
                std::vector<ONNXWeight> &weights)
      : builder(context), fileName(fileName.str()), weights(weights) {}

  /// Builds the module from `model` (loaded and normalized by loadModel).
  OwningOpRef<ModuleOp> importModel(const onnx::ModelProto &model);

  OpBuilder builder;
  std::string fileName;
  /// The rlx value of each ONNX name defined so far.
  llvm::StringMap<Value> values;
  /// Values known at import time (constants, folded shape arithmetic).
  llvm::StringMap<DenseElementsAttr> constants;
  /// Initializers by name; read as params when used as data.
  llvm::StringMap<const onnx::TensorProto *> initializers;
  std::vector<ONNXWeight> &weights;
  /// Shape tensors with dynamic elements, by ONNX name.
  llvm::StringMap<SymbolicShape> symbolicShapes;
  /// Dim symbols (DimSymbols.cpp): per value, a symbol for each dynamic dim
  /// (0 for static dims); equal symbols are equal sizes.
  llvm::DenseMap<Value, SmallVector<int64_t>> dimSymbols;
  llvm::StringMap<int64_t> dimParamSymbols;
  int64_t lastSymbol = 0;
  int64_t freshSymbol();
  /// The symbol of a graph input's `dim_param`, the same for every input.
  int64_t namedSymbol(StringRef dimParam);
  /// The symbols of `value`'s dims (fresh ones for a value not seen yet).
  ArrayRef<int64_t> symbolsOf(Value value);
  /// Gives the results of `op` (just built) their dims' symbols.
  void assignSymbols(Operation *op);
  /// Every name a node reads or the graph outputs.
  llvm::StringSet<> usedNames;
  /// The ONNX types of the tensors held in a wider signless type (rlx
  /// computes on signless integers; see heldElementTypeOf), by name. An op
  /// computing such a tensor wraps its result back into the ONNX type's
  /// range (importNodes), so held values are always the ONNX values.
  llvm::StringMap<int32_t> heldTypes;
  /// The ONNX type `name` is held for, or 0.
  int32_t heldType(StringRef name) const;
  bool isUint8(StringRef name) const;

  /// The rlx value of `name`, making an rlx.param (initializer) or
  /// rlx.constant (a value known at import) on first use. `ctx` names the
  /// node in errors.
  FailureOr<Value> lookup(StringRef name, NodeContext &ctx);
  /// The import-time value of `name`, decoding an initializer if need be.
  std::optional<DenseElementsAttr> lookupConstant(StringRef name,
                                                  NodeContext *ctx);
  /// A known value as an rlx.constant.
  Value materialize(DenseElementsAttr value, Location loc);

  /// The module being built (the bodies of control flow go beside @main).
  ModuleOp module;
  /// Converts `graph`'s nodes in order into `block` (the builder's insertion
  /// point), verifying the ops built for each node.
  LogicalResult importNodes(const onnx::GraphProto &graph, Block *block);

  /// Subgraphs (a Loop or Scan body, an If branch) are imported into a
  /// function of their own (ControlFlowOps.cpp) between enterSubgraph and
  /// exitSubgraph: while inside, `values`, `constants` and `symbolicShapes`
  /// are the subgraph's, and a name the subgraph does not define is looked
  /// up in the enclosing graphs. A value known at import there is
  /// materialized inside (shape arithmetic keeps folding); any other (a
  /// computed value, a weight) is captured: a leading argument of `body`,
  /// which the control-flow op passes as one of its consts.
  struct Scope {
    /// The enclosing graph's state, swapped back on exit.
    llvm::StringMap<Value> values;
    llvm::StringMap<DenseElementsAttr> constants;
    llvm::StringMap<SymbolicShape> symbolicShapes;
    OpBuilder::InsertPoint insertPoint;
    std::string errorPrefix;
    /// The subgraph's block, and the enclosing values it reads, in the
    /// order of its leading arguments.
    Block *body = nullptr;
    SmallVector<Value> captures;
  };
  void enterSubgraph(Block *body, const Twine &errorPrefix);
  /// Leaves the innermost subgraph; returns the values it captured.
  SmallVector<Value> exitSubgraph();
  /// Prefixed to node errors inside a subgraph (`node 3 'loop' (Loop),
  /// body: `), so an error names every enclosing node.
  std::string errorPrefix;

private:
  LogicalResult importGraph(const onnx::GraphProto &graph, ModuleOp module);
  /// `name` from an enclosing graph of the current subgraph.
  FailureOr<Value> capture(StringRef name, NodeContext &ctx);
  void swapState(Scope &scope);
  SmallVector<std::unique_ptr<Scope>> scopes;
  Location fileLoc();
};

//===----------------------------------------------------------------------===//
// Tensor and type helpers shared by the converters
//===----------------------------------------------------------------------===//

/// The MLIR element type of an ONNX TensorProto data type, or null.
Type elementTypeOf(MLIRContext *context, int32_t onnxType);
/// The type rlx computes an ONNX uint8, uint16 or int16 tensor in (i32) or a
/// uint32 or uint64 one (i64), or null for other types. uint64 values of
/// 2^63 and more are negative there, so ops whose result depends on the
/// sign refuse uint64.
Type heldElementTypeOf(MLIRContext *context, int32_t onnxType);
/// The type such a tensor has at the entry point's boundary (ui8, ui16,
/// ui32, ui64, i16: the runtime's dtypes of the same names), or null.
Type boundaryElementTypeOf(MLIRContext *context, int32_t onnxType);
/// `held` (of heldElementTypeOf(onnxType)) as the boundary type: its low
/// bits. With `rehold`, back in the held type: the ONNX type's wrap-around.
Value castHeldToBoundary(OpBuilder &b, Location loc, Value held,
                         int32_t onnxType, bool rehold = false);
/// A held constant (an integer tensor of heldElementTypeOf(onnxType))
/// wrapped into the ONNX type's range.
DenseElementsAttr wrapHeldConstant(DenseElementsAttr value, int32_t onnxType);
/// The ONNX spelling of a data type ("FLOAT", "STRING", ...).
std::string onnxTypeName(int32_t onnxType);
/// Decodes a TensorProto's elements; the reason in `error` on failure
/// (unsupported type, data size not matching the dims).
std::optional<DenseElementsAttr> decodeTensor(MLIRContext *context,
                                              const onnx::TensorProto &tensor,
                                              std::string &error);
/// The elements of an integer attribute as int64.
SmallVector<int64_t> toInts(DenseElementsAttr value);

} // namespace mlir::rlx::onnx_import

#endif // RLX_CONVERSION_ONNXTORLX_GRAPHIMPORTER_H
