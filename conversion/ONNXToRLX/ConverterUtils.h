//===- ConverterUtils.h - What the ONNX op converters share -----*- C++ -*-===//
///
/// \file
/// Helpers of the op converters (ElementwiseOps.cpp, ShapeOps.cpp,
/// NNOps.cpp) and the functions that add each family to the op table.
///
//===----------------------------------------------------------------------===//

#ifndef RLX_CONVERSION_ONNXTORLX_CONVERTERUTILS_H
#define RLX_CONVERSION_ONNXTORLX_CONVERTERUTILS_H

#include "conversion/ONNXToRLX/GraphImporter.h"

#include <optional>

namespace mlir::rlx::onnx_import {

using Ints = SmallVector<int64_t>;

RankedTensorType typeOf(Value value);
/// `axis` in [-rank, rank) made non-negative, or an error.
FailureOr<int64_t> normalizeAxis(NodeContext &ctx, int64_t axis, int64_t rank,
                                 StringRef what = "axis");
/// A rank-0 constant of `elementType` holding `value`.
Value scalar(NodeContext &ctx, Type elementType, double value);
/// The lowest value of `elementType` as a rank-0 constant (-inf, or the
/// signed minimum): what a max pool pads with, what TopK masks with.
Value lowest(NodeContext &ctx, Type elementType);
/// `x` reshaped to `shape` (itself when it has that shape).
Value reshape(NodeContext &ctx, Value x, ArrayRef<int64_t> shape);
FailureOr<Value> transpose(NodeContext &ctx, Value x, ArrayRef<int64_t> perm);
/// Integers as a DenseElementsAttr of `elementType` with `shape`.
DenseElementsAttr intsAttr(MLIRContext *context, ArrayRef<int64_t> values,
                           ArrayRef<int64_t> shape, Type elementType);
/// True when `attr` holds integers (not i1) small enough to fold.
bool isFoldableInts(const std::optional<DenseElementsAttr> &attr);
/// The NumPy broadcast of two static shapes, or nullopt.
std::optional<Ints> broadcastShapes(ArrayRef<int64_t> a, ArrayRef<int64_t> b);
/// The row-major index into `shape` (right-aligned against `outShape`,
/// broadcasting its size-1 dims) of element `linear` of `outShape`.
int64_t broadcastIndex(ArrayRef<int64_t> shape, ArrayRef<int64_t> outShape,
                       int64_t linear);
/// The axes of Squeeze/Unsqueeze/Reduce*: the input (opset 13+) or the
/// attribute of older opsets; nullopt when neither is given.
FailureOr<std::optional<Ints>> axesOf(NodeContext &ctx, unsigned input);

/// `a op b` (op one of + - * /) on int64, or nullopt where C++ would
/// overflow or divide by zero: values from a model file must not reach
/// undefined behavior.
std::optional<int64_t> checkedArith(char op, int64_t a, int64_t b);

/// The product of static `dims`, or nullopt when it overflows.
std::optional<int64_t> checkedProduct(ArrayRef<int64_t> dims);

/// Float `x` rounded down, and to the nearest integer with halves to even
/// (ComposedOps.cpp).
FailureOr<Value> floorOf(NodeContext &ctx, Value x);
FailureOr<Value> roundHalfToEven(NodeContext &ctx, Value x);

/// Class indices 0..size-1 along `axis` of a rank-`rank` tensor of `type`
/// (size 1 on the other dims), or an error when it would be too large.
FailureOr<Value> indicesAlong(NodeContext &ctx, int64_t size, int64_t axis,
                              int64_t rank, Type type);

/// The most elements of a constant the importer computes itself (index
/// arrays, masks): a model's dims must not make it allocate without bound.
constexpr int64_t kMaxComputedConstant = int64_t(1) << 24;

/// The attributes of Conv, ConvInteger and QLinearConv (read by convolve).
inline constexpr StringRef kConvAttributes[] = {
    "auto_pad", "dilations", "group", "kernel_shape", "pads", "strides"};

/// ONNX's Conv of `x` (N x C x L, N x C x H x W or N x C x D x H x W) by
/// `w` (M x C/group x kernel) with the node's window attributes and
/// `group`: rlx.conv2d between layout transposes (WindowOps.cpp). With
/// `int8`, x and w are i8 and the result i32 (ConvInteger, QLinearConv).
FailureOr<Value> convolve(NodeContext &ctx, Value x, Value w, bool int8);

/// The op families, each adding its converters to the table.
void addElementwiseOps(llvm::StringMap<OpConverter> &table);
void addShapeOps(llvm::StringMap<OpConverter> &table);
void addNNOps(llvm::StringMap<OpConverter> &table);
void addWindowOps(llvm::StringMap<OpConverter> &table);
void addRecurrentOps(llvm::StringMap<OpConverter> &table);
void addIndexedOps(llvm::StringMap<OpConverter> &table);
void addSamplingOps(llvm::StringMap<OpConverter> &table);
void addControlFlowOps(llvm::StringMap<OpConverter> &table);
void addComposedOps(llvm::StringMap<OpConverter> &table);
void addQuantOps(llvm::StringMap<OpConverter> &table);

} // namespace mlir::rlx::onnx_import

#endif // RLX_CONVERSION_ONNXTORLX_CONVERTERUTILS_H
